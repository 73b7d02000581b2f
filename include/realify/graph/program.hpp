// realify::graph::lower(outputs...) -> program; program(inputs...) -> tensors.
//
//   auto prog = graph::lower(xq_out, xk_out);            // passes run once, here
//   auto [q, k] = prog(xq, xk, freqs);                   // new tensors
//   prog(graph::out(q, k), xq, xk, freqs);               // into caller buffers
//
// Inputs are passed in the order the placeholders were created
// (program::input_names() lists them). Outputs are returned as the output
// nodes declare: std::complex containers for complex outputs (no
// view_as_real anchor), real ones otherwise; xtensor_fixed when every input
// is fixed-shape, xtensor<E, N> when the rank is static, xarray otherwise.
#pragma once

#include <algorithm>
#include <any>
#include <array>
#include <complex>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "realify/errors.hpp"
#include "realify/graph/detect.hpp"
#include "realify/graph/evaluate.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/passes.hpp"
#include "realify/graph/traits.hpp"

namespace realify::graph {

/// Strict mode tag: lower(strict, outputs...) refuses (at compile time) any
/// node no lowering accepts, instead of falling back to std::complex.
struct strict_t {};
inline constexpr strict_t strict{};

/// Caller buffers for program(out(a, b), inputs...).
template <class... B>
struct out_buffers {
    std::tuple<B&...> buffers;
};
template <class... B>
out_buffers<B...> out(B&... buffers) {
    return {std::tuple<B&...>(buffers...)};
}

namespace detail {

template <class X>
inline constexpr bool is_out_buffers_v = false;
template <class... B>
inline constexpr bool is_out_buffers_v<out_buffers<B...>> = true;

inline std::string format_attrs(std::string_view op, const node_attrs& a) {
    std::ostringstream s;
    if (!a.dims.empty()) {
        s << '(';
        for (std::size_t i = 0; i < a.dims.size(); ++i) {
            if (i) s << ", ";
            if (is_same_marker(a.dims[i])) s << "same(" << same_marker_dim(a.dims[i]) << ')';
            else s << a.dims[i];
        }
        s << ')';
    }
    if (op == "flatten" || op == "transpose" || op == "select") s << a.i0 << ", " << a.i1;
    else if (op == "unsqueeze" || op == "squeeze_dim" || op == "cumsum" || op == "prod_dim") s << a.i0;
    else if (op == "narrow") s << a.i0 << ", " << a.i1 << ", " << a.i2;
    else if (op == "slice") s << a.i0 << ", " << a.i1 << ", " << a.i2 << ", " << a.i3;
    else if (op == "split" || op == "chunk") s << a.i0 << ", " << a.i1 << "; piece " << a.i2;
    else if (op == "split_with_sizes") s << ", " << a.i1 << "; piece " << a.i2;
    if (a.has_scalar) {
        if (a.scalar.imag() == 0) s << a.scalar.real();
        else s << a.scalar;
    }
    return s.str();
}

template <class T>
std::string type_name() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_same_v<T, bool>) return "bool";
    else return "other";
}

/// Adds n (and, first, its children) to the run-time mirror. Every flag comes
/// from the node's type (graph/detect.hpp); only identities are new here.
template <bool Strict, class N>
std::size_t add_to_ir(graph_ir& g, const N& n) {
    if (auto it = g.slot_of.find(n.id); it != g.slot_of.end()) return it->second;  // shared node: once
    using Tr = traits_t<N>;
    constexpr node_rule rule = rule_v<N>;
    ir_node r;
    r.id = n.id;
    r.op = std::string(detail::op_name<N>());
    r.is_complex = Tr::is_complex;
    r.is_op = detail::is_op_node_v<N>;
    r.anchor = detail::is_anchor_v<N>;
    r.in_complex_subgraph = in_complex_subgraph_v<N>;
    if constexpr (requires { n.children; }) {
        std::apply(
            [&](const auto&... c) {
                (
                    [&]<class C>(const C& child) {
                        const std::size_t slot = add_to_ir<Strict>(g, child);
                        if constexpr (detail::is_boundary_v<N, C>) g.nodes[slot].boundary_input = true;
                        r.children.push_back(slot);
                    }(c),
                    ...);
            },
            n.children);
        r.evaluate = [n](eval_context& ctx) { return std::any(eval<Strict>(n, ctx)); };
    }
    if constexpr (rule == node_rule::input) {
        r.label = n.name + " : " + (Tr::is_complex ? "complex " : "real ") + type_name<typename Tr::real_type>();
        r.is_input = true;
        r.lowering = "bound argument (zero copy when contiguous)";
    } else if constexpr (rule == node_rule::constant) {
        r.label = std::string(Tr::is_complex ? "complex " : "real ") + type_name<typename Tr::real_type>();
        r.is_constant = true;
        r.lowering = "constant";
        r.evaluate = [n](eval_context& ctx) { return std::any(eval<false>(n, ctx)); };
    } else if constexpr (rule == node_rule::number) {
        std::ostringstream s;
        s << n.value;
        r.label = s.str();
        r.is_scalar = true;
        r.lowering = "number operand";
    } else if constexpr (rule == node_rule::cast) {
        [&]<class To, class C>(type_list<To, C>) {
            r.op = "to_" + type_name<To>();  // the seed's .float() / type_as: not a complex op
            r.erased = std::is_same_v<typename traits_t<C>::real_type, To>;
            r.lowering = r.erased ? "erased (same component type)" : "component conversion";
        }(tag_and_children(n));
    } else {
        r.label = format_attrs(N::tag::name, n.attrs);
        // a user op's reference is a run-time object: two nodes of the same tag may
        // compute different things, so they are never merged by CSE
        if constexpr (detail::is_custom_v<N>) r.label += "#" + std::to_string(n.id);
        r.erased = rule == node_rule::erased;
        r.zero_copy = rule == node_rule::zero_copy;
        r.fusable = rule == node_rule::fused;
        r.fallback = rule == node_rule::fallback;
        if constexpr (rule == node_rule::erased) r.lowering = "erased";
        else if constexpr (rule == node_rule::zero_copy) r.lowering = "zero-copy view of the contiguous (…,2) memory";
        else if constexpr (rule == node_rule::fallback) r.lowering = "std::complex fallback (graph break: this node only)";
        else if constexpr (rule == node_rule::table) r.lowering = std::string(table_of<N>::name());
        else if constexpr (lone_complex_mul_v<N, true>)
            r.lowering = "realify::simd::mul_block_rows when one operand repeats rows of the other, else the fused loop";
        else if constexpr (in_complex_subgraph_v<N>)
            r.lowering = "fused loop (the table's pair kernel of " + r.op + ")";
        else r.lowering = "fused loop (real arithmetic)";
    }
    if (r.is_input) {
        const std::size_t slot = g.nodes.size();
        // inputs in creation order (ids grow with creation)
        auto pos = std::find_if(g.inputs.begin(), g.inputs.end(), [&](std::size_t s) { return g.nodes[s].id > n.id; });
        g.inputs.insert(pos, slot);
    }
    r.canonical = g.nodes.size();
    g.slot_of.emplace(n.id, g.nodes.size());
    g.nodes.push_back(std::move(r));
    return g.nodes.size() - 1;
}

/// The shape a node will have, when it is cheap to know before evaluating it.
template <class N>
std::optional<shape_vector> infer_shape(const N& n, const eval_context& ctx) {
    const std::size_t slot = ctx.ir->slot(n.id);
    const ir_node& rec = ctx.ir->resolve(slot);
    if (rec.folded) return std::any_cast<const value_t<N>&>(rec.folded_value).shape;
    constexpr node_rule rule = rule_of<N>();
    if constexpr (rule == node_rule::input) {
        if (const auto* v = std::any_cast<value_t<N>>(&bound_input(ctx, slot))) return v->shape;
        return std::nullopt;
    } else if constexpr (rule == node_rule::number) {
        return shape_vector{};
    } else if constexpr (rule == node_rule::cast) {
        return infer_shape(std::get<0>(n.children), ctx);
    } else if constexpr (rule == node_rule::erased || rule == node_rule::zero_copy) {
        using Tag = typename N::tag;
        auto s = infer_shape(std::get<0>(n.children), ctx);
        if (!s) return s;
        if constexpr (std::is_same_v<Tag, op::view_as_complex>) {
            if (s->empty() || s->back() != 2) return std::nullopt;  // evaluation reports it
            s->pop_back();
            return s;
        } else if constexpr (std::is_same_v<Tag, op::view_as_real>) {
            s->push_back(2);
            return s;
        } else {
            return zero_copy_shape<Tag>(n.attrs, *s);
        }
    } else if constexpr (rule == node_rule::fused) {
        std::optional<shape_vector> result = shape_vector{};
        std::apply(
            [&](const auto&... c) {
                auto merge = [&](const auto& child) {
                    if (!result) return;
                    auto s = infer_shape(child, ctx);
                    if (!s) {
                        result.reset();
                        return;
                    }
                    realify::detail::operand_ref<float, false> a, b;
                    a.shape = *result;
                    b.shape = *s;
                    result = realify::detail::broadcast_shapes(N::tag::name, a, b);
                };
                (merge(c), ...);
            },
            n.children);
        return result;
    } else {
        return std::nullopt;  // constants (unless folded), table ops, fallbacks: known once evaluated
    }
}

/// Evaluates n straight into dst (its shape already checked): elementwise
/// chains write the caller's buffer from their one loop; views forward it to
/// their child. Shared or folded nodes are evaluated (once) and copied.
template <bool Strict, class N>
void eval_into(const N& n, eval_context& ctx, typename traits_t<N>::real_type* dst) {
    using T = typename traits_t<N>::real_type;
    const std::size_t slot = ctx.ir->slot(n.id);
    const ir_node& rec = ctx.ir->nodes[slot];
    const bool private_node = rec.canonical == slot && !rec.folded && rec.uses <= 1;
    if constexpr (re_described_v<N>) {
        if (private_node) return eval_into<Strict>(std::get<0>(n.children), ctx, dst);  // same memory, re-described
    } else if constexpr (rule_of<N>() == node_rule::fused) {
        if (private_node) {
            run_fused_region<Strict>(n, ctx, dst);
            return;
        }
    }
    auto v = eval<Strict>(n, ctx);
    if (static_cast<const void*>(v.data) != static_cast<const void*>(dst))
        std::memmove(dst, v.data, v.components() * sizeof(T));
}

template <class C>
auto* component_pointer(C& c) {
    using E = typename C::value_type;
    if constexpr (is_std_complex<E>::value) return realify::detail::as_real_pointer(c.data());
    else return c.data();
}

}  // namespace detail

/// A lowered graph: call it on the inputs.
template <bool Strict, class... Outs>
class program {
public:
    explicit program(const pipeline& passes, Outs... outputs) : m_outputs(std::move(outputs)...) {
        auto g = std::make_shared<graph_ir>();
        std::apply([&](const auto&... o) { (g->outputs.push_back(detail::add_to_ir<Strict>(*g, o)), ...); }, m_outputs);
        g->before = describe(*g, false);
        passes.run(*g);
        m_ir = std::move(g);
    }

    /// Evaluates the outputs into new tensors: one tensor, or a std::tuple of them.
    template <class... Args>
        requires(sizeof...(Args) == 0 || (!detail::is_out_buffers_v<std::remove_cvref_t<Args>> && ...))
    auto operator()(const Args&... args) const {
        std::vector<std::any> bound = bind(args...);
        std::vector<std::any> memo(m_ir->nodes.size());
        eval_context ctx{m_ir.get(), &memo, &bound};
        auto results = std::apply([&](const auto&... o) { return std::make_tuple(materialise(o, ctx)...); }, m_outputs);
        if constexpr (sizeof...(Outs) == 1) return std::get<0>(std::move(results));
        else return results;
    }

    /// Evaluates into caller buffers (one per output, element type as the
    /// output declares); realify::shape_error on a wrong shape. A buffer may be
    /// an input too (in place).
    template <class... B, class... Args>
    void operator()(out_buffers<B...> buffers, const Args&... args) const {
        static_assert(sizeof...(B) == sizeof...(Outs), "realify::graph::program: give one out() buffer per output.");
        std::vector<std::any> bound = bind(args...);
        std::vector<std::any> memo(m_ir->nodes.size());
        eval_context ctx{m_ir.get(), &memo, &bound};
        // every shape is checked before anything is written (writing changes no input's shape)
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            const std::array<std::optional<shape_vector>, sizeof...(Outs)> shapes{
                detail::infer_shape(std::get<I>(m_outputs), ctx)...};
            (check_buffer<Outs>(shapes[I], std::get<I>(buffers.buffers), I), ...);
            (write_into(std::get<I>(m_outputs), shapes[I].has_value(), std::get<I>(buffers.buffers), ctx, I), ...);
        }(std::index_sequence_for<Outs...>{});
    }

    const graph_ir& ir() const noexcept { return *m_ir; }
    std::vector<std::string> input_names() const {
        std::vector<std::string> r;
        for (std::size_t s : m_ir->inputs) r.push_back(m_ir->nodes[s].label.substr(0, m_ir->nodes[s].label.find(" : ")));
        return r;
    }
    const std::tuple<Outs...>& outputs() const noexcept { return m_outputs; }

    /// A text dump of the graph: all nodes (false) or the live, lowered ones (true).
    static std::string describe(const graph_ir& g, bool after);

private:
    template <class... Args>
    std::vector<std::any> bind(const Args&... args) const {
        if (sizeof...(Args) != m_ir->inputs.size()) {
            std::ostringstream m;
            m << "realify::graph::program: " << m_ir->inputs.size() << " inputs expected (";
            for (const std::string& n : input_names()) m << n << ' ';
            m << "), " << sizeof...(Args) << " given";
            throw error(m.str());
        }
        std::vector<std::any> bound;
        (bound.push_back(std::any(detail::bind_argument(args))), ...);
        return bound;
    }

    /// The output container of O for a result of shape `shape`.
    template <class O>
    static output_container_t<O> make_output(const shape_vector& shape) {
        using C = output_container_t<O>;
        if constexpr (traits_t<O>::rank == 0 && requires { C::from_shape(std::array<std::size_t, 0>{}); }) {
            // rank 0: no extents to copy (copying zero of them trips GCC's nonnull check at -O3)
            return C::from_shape(std::array<std::size_t, 0>{});
        } else if constexpr (requires { C::from_shape(shape); }) {
            return C::from_shape(shape);
        } else {
            C fixed;
            if (!std::equal(fixed.shape().begin(), fixed.shape().end(), shape.begin(), shape.end()))
                throw shape_error("realify::graph::program: result of shape " + realify::detail::format_sequence(shape) +
                                  " does not fit the output's fixed shape");
            return fixed;
        }
    }

    /// A new tensor for output o. When its shape follows from the inputs, the
    /// container is made first and evaluation writes straight into it (a
    /// fused loop or the SIMD kernel fills it: no copy); otherwise the value
    /// is evaluated, then copied into a container of its shape.
    template <class O>
    static auto materialise(const O& o, eval_context& ctx) {
        if (auto shape = detail::infer_shape(o, ctx)) {
            auto result = make_output<O>(*shape);
            detail::eval_into<Strict>(o, ctx, detail::component_pointer(result));
            return result;
        }
        auto v = detail::eval<Strict>(o, ctx);
        auto result = make_output<O>(v.shape);
        std::copy(v.data, v.data + v.components(), detail::component_pointer(result));
        return result;
    }

    template <class O, class B>
    static void check_buffer(const std::optional<shape_vector>& shape, const B& buffer, std::size_t index) {
        static_assert(std::is_same_v<std::remove_cv_t<typename B::value_type>, element_t<O>>,
                      "realify::graph::program: an out() buffer's element type must be the output's (std::complex<T> "
                      "for complex outputs, T for real ones).");
        if (shape) check_shape(*shape, buffer, index);  // else known only after evaluation: checked then, before writing
    }
    template <class B>
    static void check_shape(const shape_vector& s, const B& buffer, std::size_t index) {
        const auto& bs = buffer.shape();
        if (!std::equal(bs.begin(), bs.end(), s.begin(), s.end())) {
            std::ostringstream m;
            m << "realify::graph::program: out buffer " << index << " has shape " << realify::detail::format_sequence(bs)
              << ", the output has shape " << realify::detail::format_sequence(s);
            throw shape_error(m.str());
        }
    }
    template <class O, class B>
    static void write_into(const O& o, bool shape_known, B& buffer, eval_context& ctx, std::size_t index) {
        auto* dst = detail::component_pointer(buffer);
        if (shape_known) {
            detail::eval_into<Strict>(o, ctx, dst);
        } else {
            auto v = detail::eval<Strict>(o, ctx);
            check_shape(v.shape, buffer, index);
            std::memmove(dst, v.data, v.components() * sizeof(*dst));
        }
    }

    std::tuple<Outs...> m_outputs;
    std::shared_ptr<const graph_ir> m_ir;
};

template <bool Strict, class... Outs>
std::string program<Strict, Outs...>::describe(const graph_ir& g, bool after) {
    std::ostringstream s;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const ir_node& n = g.nodes[i];
        if (after && (!n.live || n.erased || n.canonical != i || n.is_scalar)) continue;
        s << "  %" << i << " = " << n.op;
        if (!n.label.empty()) s << '[' << n.label << ']';
        s << '(';
        for (std::size_t k = 0; k < n.children.size(); ++k) {
            std::size_t c = n.children[k];
            if (after) {
                c = g.nodes[c].canonical;
                while (g.nodes[c].erased && !g.nodes[c].children.empty()) c = g.nodes[g.nodes[c].children[0]].canonical;
            }
            s << (k ? ", %" : "%") << c;
        }
        s << ')' << (n.is_complex ? " : complex" : " : real");
        if (after) {
            s << "  <- " << n.lowering;
            if (n.folded) s << " [folded at lower time]";
            if (n.fused_into_consumer) s << " [fused into its consumer's loop]";
        }
        s << '\n';
    }
    return s.str();
}

/// Lowers the outputs with the standard passes (or `passes`).
template <graph_node... Outs>
auto lower(const Outs&... outputs) {
    return program<false, Outs...>(pipeline::standard(), outputs...);
}
template <graph_node... Outs>
auto lower(const pipeline& passes, const Outs&... outputs) {
    return program<false, Outs...>(passes, outputs...);
}
template <graph_node... Outs>
auto lower(strict_t, const Outs&... outputs) {
    return program<true, Outs...>(pipeline::standard(), outputs...);
}
template <graph_node... Outs>
auto lower(strict_t, const pipeline& passes, const Outs&... outputs) {
    return program<true, Outs...>(passes, outputs...);
}

}  // namespace realify::graph
