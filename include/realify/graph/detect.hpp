// Detection from the types alone (Torch-TensorRT's complex-subgraph detection,
// done by the compiler).
//
// A node's type names its op and its children's types, so everything the
// detection pass finds by walking an FX graph at run time is a compile-time
// constant here:
//
//   anchor               a view_as_real node;
//   in a complex subgraph an op whose value is complex or that reads a complex
//                        value (view_as_real, abs, angle, …) — decided by the
//                        types, never by a run-time extent of 2;
//   boundary input       a child outside the subgraph that feeds it (the
//                        placeholders and the real ops before view_as_complex);
//   rule                 how the node will be evaluated (erased, zero-copy
//                        view, fused loop, dispatch table, std::complex
//                        fallback) and the table entry it takes.
//
// graph::detect<Outs...> walks the output types back from every anchor (and
// from complex outputs that have none) and reports the subgraph's ops and
// boundary inputs in post-order, e.g.
//
//   using d = graph::detect<decltype(xq_out)>;
//   static_assert(d::anchors == 1 && d::fallbacks == 0);
//   static_assert(d::complex_ops[0] == "view_as_complex");
//
// Only one thing is left for lower(): node identity. Two outputs that share a
// node (xq_out and xk_out both reading freqs_cis) have trees that repeat the
// node's type, so the walk here counts it once per use; lower() builds the
// graph by identity, where each node appears once, reads these flags from the
// types and merges the subgraphs that share nodes (passes.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

#include "realify/graph/rules.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/sizes.hpp"
#include "realify/graph/traits.hpp"

namespace realify::graph {

namespace detail {

template <class N>
struct children_of {
    using type = type_list<>;
};
template <class Tag, class... C>
struct children_of<node<Tag, C...>> {
    using type = type_list<C...>;
};
template <class Tag, class R, class... C>
struct children_of<custom_node<Tag, R, C...>> {
    using type = type_list<C...>;
};
template <node_name Name, class Result, class Fn, class... C>
struct children_of<tensor_op_node<Name, Result, Fn, C...>> {
    using type = type_list<C...>;
};
template <class To, class C>
struct children_of<cast_node<To, C>> {
    using type = type_list<C>;
};


template <class N>
inline constexpr bool is_op_node_v = false;  // counts in coverage: table ops and user ops
template <class Tag, class... C>
inline constexpr bool is_op_node_v<node<Tag, C...>> = true;
template <class Tag, class R, class... C>
inline constexpr bool is_op_node_v<custom_node<Tag, R, C...>> = true;
template <node_name Name, class Result, class Fn, class... C>
inline constexpr bool is_op_node_v<tensor_op_node<Name, Result, Fn, C...>> = true;
template <class Tag, class T>
inline constexpr bool is_op_node_v<creation_node<Tag, T>> = true;


template <class N>
constexpr std::string_view op_name() {
    if constexpr (is_tensor_op_v<N>) return N::user_name;
    else if constexpr (is_op_node_v<N>) return N::tag::name;
    else if constexpr (is_cast_v<N>) return "cast";
    else if constexpr (rule_of<N>() == node_rule::input) return "input";
    else if constexpr (rule_of<N>() == node_rule::constant) return "constant";
    else return "number";
}

/// The op id of a node of the table's ops; none for inputs, numbers, casts,
/// tensor-level user ops and user ops with tags of their own.
template <class N>
constexpr std::optional<op_id> tag_id_of() {
    if constexpr (is_op_node_v<N> && !is_tensor_op_v<N>) {
        if constexpr (listed_op<typename N::tag>) return N::tag::id;
    }
    return std::nullopt;
}

template <class N>
inline constexpr bool is_anchor_v = false;
template <class C>
inline constexpr bool is_anchor_v<node<op::view_as_real, C>> = true;

template <class L>
inline constexpr bool any_complex_v = false;
template <class... C>
inline constexpr bool any_complex_v<type_list<C...>> = (traits_t<C>::is_complex || ...);

/// Inside a complex subgraph: an op (or a cast) with a complex value or a
/// complex operand — except a tensor-level user op, which is a boundary: its
/// complex operands end the subgraphs below it (materialised as tensors), its
/// complex result feeds the ones above it as a boundary input.
template <class N>
inline constexpr bool in_complex_subgraph_v =
    (is_op_node_v<N> || is_cast_v<N>) && !is_tensor_op_v<N> &&
    (traits_t<N>::is_complex || any_complex_v<typename children_of<N>::type>);

/// A child that feeds a complex subgraph from outside it (numbers are attributes, not inputs).
template <class Parent, class Child>
inline constexpr bool is_boundary_v =
    in_complex_subgraph_v<Parent> && !in_complex_subgraph_v<Child> && !is_scalar_node_v<Child>;

struct detection_counts {
    std::size_t anchors = 0;
    std::size_t complex_nodes = 0;    // subgraph nodes (ops and casts)
    std::size_t boundary_inputs = 0;
    std::size_t op_nodes = 0;         // every op, inside a subgraph or not (coverage's n_total)
    std::size_t fallbacks = 0;
};

/// The walk back from N, in post-order; Visit(type_identity<X>, is_boundary) per node.
template <class N, class Visit>
constexpr void walk_back(Visit& visit) {
    [&]<class... C>(type_list<C...>) {
        ((walk_back<C>(visit), visit(std::type_identity<C>{}, is_boundary_v<N, C>)), ...);
    }(typename children_of<N>::type{});
}

template <class... Outs>
constexpr detection_counts count_detected() {
    detection_counts c;
    auto visit = [&c]<class X>(std::type_identity<X>, bool boundary) {
        c.anchors += is_anchor_v<X> ? 1 : 0;
        c.complex_nodes += in_complex_subgraph_v<X> ? 1 : 0;
        c.boundary_inputs += boundary ? 1 : 0;
        c.op_nodes += is_op_node_v<X> ? 1 : 0;
        c.fallbacks += rule_of<X>() == node_rule::fallback ? 1 : 0;
    };
    ((walk_back<Outs>(visit), visit(std::type_identity<Outs>{}, false)), ...);
    return c;
}

template <bool Boundary, std::size_t Size, class... Outs>
constexpr std::array<std::string_view, Size> detected_names() {
    std::array<std::string_view, Size> names{};
    std::size_t next = 0;
    auto visit = [&]<class X>(std::type_identity<X>, bool boundary) {
        if (Boundary ? boundary : in_complex_subgraph_v<X>) names[next++] = op_name<X>();
    };
    ((walk_back<Outs>(visit), visit(std::type_identity<Outs>{}, false)), ...);
    return names;
}

}  // namespace detail

/// The rule a node type takes (see node_rule).
template <class N>
inline constexpr node_rule rule_v = detail::rule_of<std::remove_cvref_t<N>>();

/// Whether a node type lies in a complex subgraph (decided by types only).
template <class N>
inline constexpr bool in_complex_subgraph_v = detail::in_complex_subgraph_v<std::remove_cvref_t<N>>;

/// Compile-time detection over the output types (counts are per use: a node
/// shared by two outputs is counted in each; see the header comment).
template <class... Outs>
struct detect {
private:
    static constexpr detail::detection_counts counts = detail::count_detected<std::remove_cvref_t<Outs>...>();

public:
    static constexpr std::size_t anchors = counts.anchors;
    /// Complex outputs no view_as_real anchors: returned as complex tensors.
    static constexpr std::size_t unanchored_complex_outputs = (std::size_t(traits_t<Outs>::is_complex) + ... + 0);
    static constexpr std::size_t complex_nodes = counts.complex_nodes;
    static constexpr std::size_t boundary_inputs = counts.boundary_inputs;
    static constexpr std::size_t op_nodes = counts.op_nodes;
    static constexpr std::size_t fallbacks = counts.fallbacks;
    /// Op names of the complex subgraphs' nodes, post-order.
    static constexpr auto complex_ops = detail::detected_names<false, complex_nodes, std::remove_cvref_t<Outs>...>();
    /// What feeds them from outside (op names, "input", "constant"), post-order.
    static constexpr auto boundary_ops = detail::detected_names<true, boundary_inputs, std::remove_cvref_t<Outs>...>();
};

}  // namespace realify::graph
