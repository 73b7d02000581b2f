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

#include <algorithm>
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
    constexpr void add(const detection_counts& o) noexcept {
        anchors += o.anchors;
        complex_nodes += o.complex_nodes;
        boundary_inputs += o.boundary_inputs;
        op_nodes += o.op_nodes;
        fallbacks += o.fallbacks;
    }
};

/// The counts a node of type X adds when the walk back meets it (a child
/// feeding a complex subgraph from outside: `boundary`).
template <class X>
constexpr void count_node(detection_counts& c, bool boundary) {
    c.anchors += is_anchor_v<X> ? 1 : 0;
    c.complex_nodes += in_complex_subgraph_v<X> ? 1 : 0;
    c.boundary_inputs += boundary ? 1 : 0;
    c.op_nodes += is_op_node_v<X> ? 1 : 0;
    c.fallbacks += rule_of<X>() == node_rule::fallback ? 1 : 0;
}

/// A node type as the walks below read it: a constant per type, pointing at
/// its children's.
struct type_node {
    std::string_view name;
    bool in_complex_subgraph = false;
    const type_node* const* children = nullptr;
    const bool* boundary = nullptr;  // per child: it feeds this node's complex subgraph from outside
    std::size_t count = 0;
};

/// The first of the types that is not void (void when all are).
template <class... T>
struct first_non_void {
    using type = void;
};
template <class T, class... Rest>
struct first_non_void<T, Rest...> {
    using type = std::conditional_t<std::is_void_v<T>, typename first_non_void<Rest...>::type, T>;
};

/// The tag of N when N is a user op (graph::custom) no lowering accepts: what
/// strict mode refuses.
template <class N>
constexpr auto unlowered_tag() {
    if constexpr (is_custom_v<N>) {
        if constexpr (rule_of<N>() == node_rule::fallback) return std::type_identity<typename N::tag>{};
        else return std::type_identity<void>{};
    } else {
        return std::type_identity<void>{};
    }
}

#ifndef REALIFY_GRAPH_MAX_DEPTH
/// The deepest graph (nodes on its longest path) a program may hold. A node's
/// type names every node below it, so the compiler's work per node grows with
/// the depth, and a graph's with its square: a chain of 1000 ops takes about
/// 90 s and 2.6 GB to compile (docs/graph.md, "Deep graphs"). Define it
/// before including realify to move the limit.
#define REALIFY_GRAPH_MAX_DEPTH 1024
#endif
#define REALIFY_GRAPH_STRINGIZE_(X) #X
#define REALIFY_GRAPH_STRINGIZE(X) REALIFY_GRAPH_STRINGIZE_(X)

/// What detection finds below a node type, each fact computed from its
/// children's: the counts of the walk back from N (N's descendants, per use:
/// a node shared by two consumers counts in each), the depth, the first user
/// op no lowering accepts (children first), and N as a type_node. The facts
/// of a node's children are instantiated with the node's type, where it is
/// built (detail::node_children), after theirs: nothing walks down a type, so
/// no chain of instantiations grows with the graph's depth.
template <class N, class Children>
struct graph_facts_of;
template <class N, class... C>
struct graph_facts_of<N, type_list<C...>> {
    static constexpr std::size_t depth = 1 + std::max({std::size_t{0}, graph_facts<C>::depth...});
    // one error, at the node that crosses the limit (those above it say nothing more)
    static_assert(depth <= REALIFY_GRAPH_MAX_DEPTH || depth - 1 > REALIFY_GRAPH_MAX_DEPTH,
                  "realify::graph: this node makes the graph deeper than REALIFY_GRAPH_MAX_DEPTH = "
                  REALIFY_GRAPH_STRINGIZE(REALIFY_GRAPH_MAX_DEPTH) " nodes, where its compile time grows with the "
                  "square of the depth: lower the graph in parts (one program's output is the next one's graph::input)");
    static constexpr detection_counts below = [] {
        detection_counts c;
        ((c.add(graph_facts<C>::below), count_node<C>(c, is_boundary_v<N, C>)), ...);
        return c;
    }();
    using unlowered = typename first_non_void<typename graph_facts<C>::unlowered...,
                                              typename decltype(unlowered_tag<N>())::type>::type;
    static constexpr std::array<const type_node*, sizeof...(C)> children{&graph_facts<C>::node...};
    static constexpr std::array<bool, sizeof...(C)> boundary{is_boundary_v<N, C>...};
    static constexpr type_node node{op_name<N>(), in_complex_subgraph_v<N>, children.data(), boundary.data(),
                                    sizeof...(C)};
    /// Every fact above computed (what node_children instantiates).
    static constexpr bool ready = depth > 0 && below.op_nodes + 1 > 0 && node.count == sizeof...(C);
};

template <class N>
struct graph_facts : graph_facts_of<N, typename children_of<N>::type> {};

template <class... Outs>
constexpr detection_counts count_detected() {
    detection_counts c;
    ((c.add(graph_facts<Outs>::below), count_node<Outs>(c, false)), ...);
    return c;
}

/// The names of the complex subgraphs' nodes (Boundary: of their boundary
/// inputs) in the walk's post-order, per use: a loop with a stack as deep as
/// the graph over the type_nodes, not a recursion over the types.
template <bool Boundary, std::size_t Size, class... Outs>
constexpr std::array<std::string_view, Size> detected_names() {
    std::array<std::string_view, Size> names{};
    std::size_t next = 0;
    struct frame {
        const type_node* n;
        std::size_t child;
        bool boundary;
    };
    std::array<frame, std::max({std::size_t{1}, graph_facts<Outs>::depth...})> stack{};
    for (const type_node* root : {&graph_facts<Outs>::node...}) {
        std::size_t top = 0;
        stack[0] = {root, 0, false};
        for (;;) {
            frame& f = stack[top];
            if (f.child < f.n->count) {
                const std::size_t i = f.child++;
                stack[++top] = {f.n->children[i], 0, f.n->boundary[i]};
                continue;
            }
            if (Boundary ? f.boundary : f.n->in_complex_subgraph) names[next++] = f.n->name;
            if (top == 0) break;
            --top;
        }
    }
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
