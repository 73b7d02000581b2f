// Evaluation of typed nodes. Every node is evaluated at most once per call:
// values are memoised by the node's canonical slot (shared nodes and CSE'd
// duplicates), constant subgraphs come from the fold made at lower time. The
// rule a node takes is decided by its type (graph/rules.hpp); each rule's
// evaluation lives in its own header:
//
//   erased, zero-copy   here, and graph/zero_copy.hpp (the view's shape)
//   fused               graph/fusion.hpp (one loop per region, as the
//                       fuse_elementwise pass recorded), graph/simd_rows.hpp
//   table               graph/table_route.hpp
//   fallback            graph/fallback.hpp
//
// Writing outputs into caller buffers is graph/write_outputs.hpp.
#pragma once

#include <any>
#include <cstddef>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "realify/errors.hpp"
#include "realify/graph/fallback.hpp"
#include "realify/graph/fusion.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/rules.hpp"
#include "realify/graph/table_route.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"
#include "realify/graph/zero_copy.hpp"

namespace realify::graph::detail {

template <class Tag, class... C>
type_list<Tag, C...> tag_and_children(const node<Tag, C...>&) { return {}; }
template <class Tag, class R, class... C>
type_list<Tag, C...> tag_and_children(const custom_node<Tag, R, C...>&) { return {}; }
template <class To, class C>
type_list<To, C> tag_and_children(const cast_node<To, C>&) { return {}; }

/// The argument bound to the input node at `slot`.
inline const std::any& bound_value(const eval_context& ctx, std::size_t slot) {
    return (*ctx.inputs)[ctx.ir->nodes[slot].input_position].value;
}

template <bool Strict, class N>
value_t<N> compute(const N& n, eval_context& ctx) {
    using V = value_t<N>;
    using Tr = traits_t<N>;
    using T = typename Tr::real_type;
    constexpr node_rule rule = rule_of<N>();
    if constexpr (rule == node_rule::input) {
        const V* v = std::any_cast<V>(&bound_value(ctx, ctx.ir->slot(n.id)));
        if (v == nullptr || v->complex != Tr::is_complex) {
            std::ostringstream m;
            m << "realify::graph: input '" << n.name << "' is declared " << (Tr::is_complex ? "complex" : "real")
              << " with components of " << sizeof(T) * 8 << " bits, and was given a tensor of another element type"
              << " (a real tensor is never reinterpreted as complex, even with a trailing extent of 2)";
            throw layout_error(m.str());
        }
        return *v;
    } else if constexpr (rule == node_rule::constant) {  // unpacked to (…,2) once, at lower time
        return bind_argument(*n.value);
    } else if constexpr (rule == node_rule::number) {
        return scalar_value<T>(n);
    } else if constexpr (rule == node_rule::cast) {  // .float() / type_as
        auto v = eval<Strict>(std::get<0>(n.children), ctx);
        if constexpr (re_described_v<N>) {
            return v;  // same component type: erased
        } else {
            auto r = allocate<T>(v.shape, v.complex);
            for (std::size_t i = 0; i < v.components(); ++i) r.data[i] = static_cast<T>(v.data[i]);
            return r;
        }
    } else if constexpr (rule == node_rule::erased) {
        auto v = eval<Strict>(std::get<0>(n.children), ctx);
        V r{v.data, v.shape, Tr::is_complex, v.keep};
        if constexpr (std::is_same_v<typename N::tag, op::view_as_complex>) {
            if (v.shape.empty() || v.shape.back() != 2)
                throw layout_error("realify::graph::view_as_complex: the last dimension must be 2 ([real, imag]); got shape " +
                                   realify::detail::format_sequence(v.shape));
            r.shape.pop_back();
        } else {
            r.shape.push_back(2);
        }
        return r;
    } else if constexpr (rule == node_rule::zero_copy) {
        auto v = eval<Strict>(std::get<0>(n.children), ctx);
        v.shape = view_shape(shape_rule_of<N>(), N::tag::name, n.attrs, v.shape);
        return v;
    } else if constexpr (rule == node_rule::fused) {
        return run_fused_region<Strict>(n, ctx, nullptr);
    } else if constexpr (rule == node_rule::table) {
        return through_table<typename N::tag, T, Strict>(n.attrs, n.children, ctx);
    } else if constexpr (!is_custom_v<N>) {
        static_assert(table_of<N>::ok,
                      "realify::graph: no lowering of the dispatch table accepts this op with these operand "
                      "types (see Tag in the instantiation above); wrap it in graph::custom<Tag>(reference, …) "
                      "to evaluate it on std::complex, or register a user lowering.");
        return V{};
    } else if constexpr (Strict) {
        [[maybe_unused]] constexpr std::size_t error = sizeof(strict_mode_no_lowering_for_op<typename N::tag>);
        return V{};
    } else {
        return fallback_on_std_complex<Strict>(n, ctx);
    }
}

/// Evaluates a node once per call (memo by canonical slot; folded constants reused).
template <bool Strict, class N>
value_t<N> eval(const N& n, eval_context& ctx) {
    const std::size_t slot = ctx.ir->slot(n.id);
    const std::size_t c = ctx.ir->nodes[slot].canonical;
    const ir_node& record = ctx.ir->nodes[c];
    if (record.folded) return std::any_cast<value_t<N>>(record.folded_value);
    std::any& memo = (*ctx.memo)[c];
    if (memo.has_value()) return std::any_cast<value_t<N>>(memo);
    value_t<N> v = compute<Strict>(n, ctx);
    memo = v;
    return v;
}

/// The evaluator the IR records for a node: eval over the typed node object.
template <bool Strict, class N>
std::any evaluate_erased(const void* object, eval_context& ctx) {
    return std::any(eval<Strict>(*static_cast<const N*>(object), ctx));
}

}  // namespace realify::graph::detail
