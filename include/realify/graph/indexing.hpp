// Indexing by integer tensors in a graph — PyTorch's index_select, gather,
// F.embedding — and masked_fill with a bool mask:
//
//   graph::index_select(x, dim, index)   index: an int32/int64 node (1-D or 0-D)
//   graph::gather(x, dim, index)         index: an int64 node of x's rank
//   graph::embedding(ids, weight)        ids: int32/int64 node (token ids), weight [num, dim]
//   graph::masked_fill(x, mask, value)   mask: a bool node (an input, x > 0, …)
//
// The three indexing ops read their operands whole: each is a tensor-level
// node of the graph (graph/tensor_op.hpp) whose function is the eager op of
// the same name (realify/eager/indexing.hpp), its result's shape declared
// from the operands' shapes, so it is known before evaluation and the node
// writes a caller's out= buffer directly. Like every tensor_op it is a
// boundary of complex subgraphs (a complex table's rows are copied whole)
// and explain() lists it. masked_fill is where(mask, value, x): one fused
// elementwise node, the mask any bool node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "realify/eager/indexing.hpp"
#include "realify/graph/builder.hpp"
#include "realify/graph/tensor_op.hpp"
#include "realify/graph/traits.hpp"

namespace realify::graph {

namespace detail {
template <class N>
inline constexpr bool index_node_v =
    !traits_t<N>::is_complex && (std::is_same_v<typename traits_t<N>::real_type, std::int32_t> ||
                                 std::is_same_v<typename traits_t<N>::real_type, std::int64_t>);
template <class N>
inline constexpr bool indexed_node_v =
    std::is_floating_point_v<typename traits_t<N>::real_type>;  // float, double, complex of them
}  // namespace detail

/// torch.index_select(x, dim, index).
template <graph_node X, graph_node I>
auto index_select(X x, std::ptrdiff_t dim, I index) {
    static_assert(detail::index_node_v<I>, "realify::graph::index_select: the index must be an int32 or int64 node");
    static_assert(detail::indexed_node_v<X>,
                  "realify::graph::index_select: x must be a float, double or complex node (convert it first)");
    auto shape = [dim](std::vector<std::size_t> x_shape, std::vector<std::size_t> index_shape) {
        if (index_shape.size() > 1)
            throw shape_error("realify::graph::index_select: the index must be 1-D or 0-D, got shape " +
                              realify::detail::format_sequence(index_shape));
        x_shape[realify::detail::indexing_dim("graph::index_select", dim, x_shape.size())] =
            index_shape.empty() ? 1 : index_shape[0];
        return x_shape;
    };
    auto fn = [dim](const auto& in, const auto& idx, auto& result) { result = realify::index_select(in, dim, idx); };
    return tensor_op<"index_select", element_t<X>>(shape, fn, std::move(x), std::move(index));
}

/// torch.gather(x, dim, index): the result has index's shape.
template <graph_node X, graph_node I>
auto gather(X x, std::ptrdiff_t dim, I index) {
    static_assert(!traits_t<I>::is_complex && std::is_same_v<typename traits_t<I>::real_type, std::int64_t>,
                  "realify::graph::gather: the index must be an int64 node (PyTorch: gather(): Expected dtype int64 for "
                  "index)");
    static_assert(detail::indexed_node_v<X>,
                  "realify::graph::gather: x must be a float, double or complex node (convert it first)");
    auto shape = [](const std::vector<std::size_t>&, std::vector<std::size_t> index_shape) { return index_shape; };
    auto fn = [dim](const auto& in, const auto& idx, auto& result) { result = realify::gather(in, dim, idx); };
    return tensor_op<"gather", element_t<X>>(shape, fn, std::move(x), std::move(index));
}

/// F.embedding(ids, weight): weight's rows picked by the token ids; shape ids.shape + [dim].
template <graph_node Ids, graph_node W>
auto embedding(Ids ids, W weight) {
    static_assert(detail::index_node_v<Ids>, "realify::graph::embedding: the ids must be an int32 or int64 node");
    static_assert(detail::indexed_node_v<W>,
                  "realify::graph::embedding: weight must be a float, double or complex node (convert it first)");
    auto shape = [](std::vector<std::size_t> ids_shape, const std::vector<std::size_t>& weight_shape) {
        if (weight_shape.size() != 2)
            throw shape_error("realify::graph::embedding: weight must be 2-D (num_embeddings, embedding_dim), got "
                              "shape " + realify::detail::format_sequence(weight_shape));
        ids_shape.push_back(weight_shape[1]);
        return ids_shape;
    };
    auto fn = [](const auto& idx, const auto& table, auto& result) { result = realify::embedding(idx, table); };
    return tensor_op<"embedding", element_t<W>>(shape, fn, std::move(ids), std::move(weight));
}

/// Tensor.masked_fill(mask, value): value where mask, x elsewhere (where(mask, value, x)).
template <graph_node X, graph_node M, class S>
    requires(std::is_arithmetic_v<S> || detail::is_std_complex<S>::value)
auto masked_fill(X x, M mask, S value) {
    static_assert(!traits_t<M>::is_complex && std::is_same_v<typename traits_t<M>::real_type, bool>,
                  "realify::graph::masked_fill: the mask must be a bool node (an input of bool, a comparison, …)");
    static_assert(traits_t<X>::is_complex || !detail::is_std_complex<S>::value,
                  "realify::graph::masked_fill: a complex value cannot fill a real tensor (PyTorch refuses it too)");
    return where(std::move(mask), value, std::move(x));
}

}  // namespace realify::graph
