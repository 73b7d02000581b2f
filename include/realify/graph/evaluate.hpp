// Evaluation: every canonical record has an evaluator — a plain function
// (evaluator_fn) chosen from its node's type when the graph is lowered — and
// values are asked for by slot (value_at, graph/value.hpp): memoised by the
// canonical slot (shared nodes and CSE'd duplicates), folded constants
// reused, children evaluated first through their own evaluators. Evaluators
// are compiled per op, component type and operand kinds, not per node type,
// so a graph adds little code beyond its own shape; only the typed facts a
// rule needs (a region's expression, a user op's reference, a constant's
// value) are per node.
//
// The evaluators of the rules (graph/rules.hpp):
//   input, number, constant, cast   here
//   erased, zero-copy               here (the memory re-described; zero_copy.hpp: the views)
//   fused                           graph/fusion.hpp (the fused loop the
//                                   fuse_elementwise pass recorded; a lone multiply on engine::mul_rows)
//   table                           graph/table_route.hpp
//   fallback                        graph/fallback.hpp
//   tensor_op                       graph/tensor_op.hpp
//   kernel                          graph/kernel_ops.hpp
//
// Writing outputs into caller buffers is graph/write_outputs.hpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>

#include "realify/errors.hpp"
#include "realify/graph/fallback.hpp"
#include "realify/graph/fusion.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/kernel_ops.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/rules.hpp"
#include "realify/graph/table_route.hpp"
#include "realify/graph/tensor_op.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"
#include "realify/graph/zero_copy.hpp"

namespace realify::graph::detail {

/// An input: the bound argument (its type checked when it was bound).
graph_value evaluate_input(const ir_node& self, eval_context& ctx, const buffer_layout*);

/// A number as a 0-d tensor (where it is not read as a number operand).
template <class S>
graph_value evaluate_number(const ir_node& self, eval_context&, const buffer_layout*) {
    return number_value<typename component_of<S>::type>(number_of<S>(self));
}

/// A constant: its (…,2) real layout, bound once (the fold) or per call.
template <class C>
graph_value evaluate_constant(const ir_node& self, eval_context&, const buffer_layout*) {
    return as_graph_value(bind_argument(*static_cast<const constant_node<C>*>(self.object)->value));
}

/// A view that changes nothing: its child's value (a same-type cast).
graph_value evaluate_same(const ir_node& self, eval_context& ctx, const buffer_layout*);

/// Converts `from` into `to` (same shape and kind, packed), component by
/// component: the engine's converting copy, any strides.
void convert_into(const engine::tensor_ref& from, const engine::tensor_ref& to);

/// .float() / type_as to another component type.
template <class To, class From>
graph_value evaluate_cast(const ir_node& self, eval_context& ctx, const buffer_layout*) {
    const tensor_value<From>& v = value_as<From>(ctx, self.children[0]);
    auto r = allocate<To>(v.shape, v.complex);
    convert_into(ref_of(v), ref_of(r));
    return r;
}

/// The shape of `self` known before evaluation, if any (infer_shapes).
const std::optional<shape_vector>* known_shape(const ir_node& self, const eval_context& ctx);

/// view_as_complex: the (…,2) memory seen as complex, no code — a packed
/// copy first when its last axis is not [re, im] side by side (stride 1),
/// where PyTorch refuses.
template <class T>
graph_value evaluate_view_as_complex(const ir_node& self, eval_context& ctx, const buffer_layout*) {
    tensor_value<T> v = value_as<T>(ctx, self.children[0]);
    if (v.shape.empty() || v.shape.back() != 2)
        throw layout_error("realify::graph::view_as_complex: the last dimension must be 2 ([real, imag]); got shape " +
                           realify::detail::format_sequence(v.shape));
    if (v.strides.back() != 1) v = packed_copy(v);
    v.shape.pop_back();
    v.strides.pop_back();
    v.complex = true;
    return v;
}

/// view_as_real: the complex memory seen as (…,2), no code.
template <class T>
graph_value evaluate_view_as_real(const ir_node& self, eval_context& ctx, const buffer_layout*) {
    tensor_value<T> v = value_as<T>(ctx, self.children[0]);
    v.shape.push_back(2);
    v.strides.push_back(1);
    v.complex = false;
    return v;
}

/// A view: the same memory, the view's shape and strides
/// (graph/zero_copy.hpp); a reshape the strides do not allow views a packed
/// copy of the operand.
template <class T>
graph_value evaluate_view(const ir_node& self, eval_context& ctx, const buffer_layout*) {
    tensor_value<T> v = value_as<T>(ctx, self.children[0]);
    const auto* known = known_shape(self, ctx);
    std::optional<engine::tensor_ref> view = view_of(self, ref_of(v), known ? &**known : nullptr);
    if (!view) {
        v = packed_copy(v);
        view = view_of(self, ref_of(v), known ? &**known : nullptr);
    }
    return bound_value<T>(*view, std::move(v.keep));
}

// The evaluators that re-describe or convert memory, compiled once for float
// and double, in realify_simd (src/graph/evaluate.cpp).
#define REALIFY_GRAPH_VIEW_EVALUATORS(EXTERN, T)                                                              \
    EXTERN template graph_value evaluate_view_as_complex<T>(const ir_node&, eval_context&, const buffer_layout*); \
    EXTERN template graph_value evaluate_view_as_real<T>(const ir_node&, eval_context&, const buffer_layout*);    \
    EXTERN template graph_value evaluate_view<T>(const ir_node&, eval_context&, const buffer_layout*);
REALIFY_GRAPH_VIEW_EVALUATORS(extern, float)
REALIFY_GRAPH_VIEW_EVALUATORS(extern, double)
extern template graph_value evaluate_cast<float, double>(const ir_node&, eval_context&, const buffer_layout*);
extern template graph_value evaluate_cast<double, float>(const ir_node&, eval_context&, const buffer_layout*);

template <class N>
struct children_kinds;
template <class Tag, class... C>
struct children_kinds<node<Tag, C...>> {
    template <class T>
    static constexpr evaluator_fn table = &evaluate_table<Tag, T, operand_kind_t<C>...>;
};
template <class Tag, class R, class... C>
struct children_kinds<custom_node<Tag, R, C...>> {
    template <class T>
    static constexpr evaluator_fn table = &evaluate_table<Tag, T, operand_kind_t<C>...>;
};

/// The evaluator of node type N, by its rule (strict mode refuses user ops
/// without a lowering in graph::program, graph/program.hpp).
template <class N>
constexpr evaluator_fn evaluator_of() {
    using T = typename traits_t<N>::real_type;
    constexpr node_rule rule = rule_of<N>();
    if constexpr (rule == node_rule::input) {
        return &evaluate_input;
    } else if constexpr (rule == node_rule::constant) {
        return []<class C>(std::type_identity<constant_node<C>>) { return &evaluate_constant<C>; }(std::type_identity<N>{});
    } else if constexpr (rule == node_rule::number) {
        return []<class S>(std::type_identity<scalar_node<S>>) { return &evaluate_number<S>; }(std::type_identity<N>{});
    } else if constexpr (rule == node_rule::cast) {
        using From = typename traits_t<std::tuple_element_t<0, typename N::children_type>>::real_type;
        if constexpr (re_described_v<N>) return &evaluate_same;
        else return &evaluate_cast<T, From>;
    } else if constexpr (rule == node_rule::erased) {
        using Child = typename traits_t<std::tuple_element_t<0, typename N::children_type>>::real_type;
        if constexpr (std::is_same_v<typename N::tag, op::view_as_complex>) return &evaluate_view_as_complex<Child>;
        else return &evaluate_view_as_real<Child>;
    } else if constexpr (rule == node_rule::zero_copy) {
        return &evaluate_view<T>;
    } else if constexpr (rule == node_rule::fused) {
        return &evaluate_fused<T>;
    } else if constexpr (rule == node_rule::table) {
        return children_kinds<N>::template table<T>;
    } else if constexpr (rule == node_rule::tensor_op) {
        return &evaluate_tensor_op<N>;
    } else if constexpr (rule == node_rule::kernel) {
        return kernel_evaluator<N>::value;
    } else if constexpr (!is_custom_v<N>) {
        return nullptr;  // never compiles: refused at its builder call (graph/builder.hpp), one error there
    } else {
        return &evaluate_fallback<N>;
    }
}

}  // namespace realify::graph::detail
