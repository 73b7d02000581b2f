// Indexing by integer tensors, as PyTorch does it: torch.index_select,
// torch.gather, F.embedding, and Tensor.masked_fill with a bool mask.
//
//   index_select(x, dim, index)   x's slices at the positions `index` (1-D or
//                                 0-D, int32 or int64) along dim
//   gather(x, dim, index)         out[…, i, …] = x[…, index[…, i, …], …] along
//                                 dim; index int64, of x's rank, no larger
//                                 than x on the other dims; out: index's shape
//   embedding(ids, weight)        rows of weight [num, dim] picked by ids (any
//                                 shape, int32 or int64): ids.shape + [dim]
//   masked_fill(x, mask, value)   value where mask (bool, broadcast to x's
//                                 shape), x elsewhere; x's shape and dtype
//
// x (weight) may be real or complex (std::complex elements: a complex row is
// copied whole). An index out of range is a realify::error naming the op,
// the index, the size and the shapes — never a read outside x (PyTorch
// raises too; negative indices are refused as PyTorch's index_select,
// gather and embedding refuse them). The result is a new row-major tensor;
// the operands are read through their own layout (any strides).
//
// Integer and bool element types: these take PyTorch's index dtypes
// (index_select and embedding: int32 or int64; gather: int64 only) and
// masked_fill's bool mask; another dtype is one static_assert naming the op.
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xoperation.hpp>

#include "realify/errors.hpp"

namespace realify {
namespace detail {

template <class I>
inline constexpr bool index_type_v = std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>;

/// dim counted from the end when negative; shape_error naming `op` when out of range.
inline std::size_t indexing_dim(const char* op, std::ptrdiff_t dim, std::size_t rank) {
    const auto r = static_cast<std::ptrdiff_t>(rank);
    if (dim < -r || dim >= r || rank == 0)
        throw shape_error(std::string("realify::") + op + ": dim " + std::to_string(dim) +
                          " is out of range for a tensor of rank " + std::to_string(rank));
    return static_cast<std::size_t>(dim < 0 ? dim + r : dim);
}

/// The position `i` checked against `size`: realify::error naming op, the index and the shape.
template <class I, class Shape>
std::size_t checked_index(const char* op, I i, std::size_t size, std::size_t dim, const Shape& shape) {
    if (i < 0 || static_cast<std::size_t>(i) >= size)
        throw error(std::string("realify::") + op + ": index " + std::to_string(static_cast<long long>(i)) +
                    " is out of range for dimension " + std::to_string(dim) + " of size " + std::to_string(size) +
                    " (input shape " + format_sequence(shape) + ")");
    return static_cast<std::size_t>(i);
}

/// Row-major strides (in elements) of a shape.
template <class Shape>
std::vector<std::size_t> row_major_strides(const Shape& shape) {
    std::vector<std::size_t> strides(shape.size(), 1);
    for (std::size_t a = shape.size(); a-- > 1;) strides[a - 1] = strides[a] * shape[a];
    return strides;
}

}  // namespace detail

/// torch.index_select(x, dim, index).
template <class X, class I>
auto index_select(const X& x, std::ptrdiff_t dim, const I& index) {
    using E = std::remove_cv_t<typename X::value_type>;
    using J = std::remove_cv_t<typename I::value_type>;
    static_assert(detail::index_type_v<J>, "realify::index_select: the index must be an int32 or int64 tensor (PyTorch: "
                                           "index_select(): Expected dtype int32 or int64 for index)");
    const xt::xarray<E> in(x);
    const xt::xarray<J> idx(index);
    if (idx.dimension() > 1)
        throw shape_error("realify::index_select: the index must be 1-D or 0-D, got shape " +
                          detail::format_sequence(idx.shape()));
    const std::size_t d = detail::indexing_dim("index_select", dim, in.dimension());
    std::vector<std::size_t> shape(in.shape().begin(), in.shape().end());
    const std::size_t n = idx.size();
    shape[d] = n;
    xt::xarray<E> result = xt::xarray<E>::from_shape(shape);
    std::size_t outer = 1, inner = 1;
    for (std::size_t a = 0; a < d; ++a) outer *= in.shape()[a];
    for (std::size_t a = d + 1; a < in.dimension(); ++a) inner *= in.shape()[a];
    const std::size_t extent = in.shape()[d];
    std::vector<std::size_t> rows(n);
    for (std::size_t k = 0; k < n; ++k) rows[k] = detail::checked_index("index_select", idx.data()[k], extent, d, in.shape());
    for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t k = 0; k < n; ++k) {
            const E* from = in.data() + (o * extent + rows[k]) * inner;
            E* to = result.data() + (o * n + k) * inner;
            std::copy(from, from + inner, to);
        }
    return result;
}

/// torch.gather(x, dim, index).
template <class X, class I>
auto gather(const X& x, std::ptrdiff_t dim, const I& index) {
    using E = std::remove_cv_t<typename X::value_type>;
    using J = std::remove_cv_t<typename I::value_type>;
    static_assert(std::is_same_v<J, std::int64_t>,
                  "realify::gather: the index must be an int64 tensor (PyTorch: gather(): Expected dtype int64 for index)");
    const xt::xarray<E> in(x);
    const xt::xarray<J> idx(index);
    const std::size_t rank = in.dimension();
    if (idx.dimension() != rank)
        throw shape_error("realify::gather: index (shape " + detail::format_sequence(idx.shape()) +
                          ") must have as many dims as the input (shape " + detail::format_sequence(in.shape()) + ")");
    const std::size_t d = detail::indexing_dim("gather", dim, rank);
    for (std::size_t a = 0; a < rank; ++a)
        if (a != d && idx.shape()[a] > in.shape()[a])
            throw shape_error("realify::gather: index (shape " + detail::format_sequence(idx.shape()) +
                              ") is larger than the input (shape " + detail::format_sequence(in.shape()) +
                              ") along dim " + std::to_string(a));
    xt::xarray<E> result = xt::xarray<E>::from_shape(idx.shape());
    const auto in_strides = detail::row_major_strides(in.shape());
    std::vector<std::size_t> at(rank, 0);
    for (std::size_t k = 0, total = idx.size(); k < total; ++k) {
        std::size_t offset = 0;
        for (std::size_t a = 0; a < rank; ++a) {
            const std::size_t i =
                a == d ? detail::checked_index("gather", idx.data()[k], in.shape()[d], d, in.shape()) : at[a];
            offset += i * in_strides[a];
        }
        result.data()[k] = in.data()[offset];
        for (std::size_t a = rank; a-- > 0;) {  // odometer over index's shape
            if (++at[a] < idx.shape()[a]) break;
            at[a] = 0;
        }
    }
    return result;
}

/// F.embedding(ids, weight): weight's rows picked by ids; shape ids.shape + [dim].
template <class Ids, class W>
auto embedding(const Ids& ids, const W& weight) {
    using E = std::remove_cv_t<typename W::value_type>;
    using J = std::remove_cv_t<typename Ids::value_type>;
    static_assert(detail::index_type_v<J>, "realify::embedding: the ids must be an int32 or int64 tensor (PyTorch: "
                                           "Expected tensor for argument #1 'indices' to have one of the following "
                                           "scalar types: Long, Int)");
    const xt::xarray<E> table(weight);
    const xt::xarray<J> idx(ids);
    if (table.dimension() != 2)
        throw shape_error("realify::embedding: weight must be 2-D (num_embeddings, embedding_dim), got shape " +
                          detail::format_sequence(table.shape()));
    const std::size_t rows = table.shape()[0], width = table.shape()[1];
    std::vector<std::size_t> shape(idx.shape().begin(), idx.shape().end());
    shape.push_back(width);
    xt::xarray<E> result = xt::xarray<E>::from_shape(shape);
    for (std::size_t k = 0, n = idx.size(); k < n; ++k) {
        const std::size_t r = detail::checked_index("embedding", idx.data()[k], rows, 0, table.shape());
        std::copy(table.data() + r * width, table.data() + (r + 1) * width, result.data() + k * width);
    }
    return result;
}

/// Tensor.masked_fill(mask, value): value where mask, x elsewhere; mask (bool)
/// broadcast to x's shape — the result has x's shape and element type.
template <class X, class M, class S>
auto masked_fill(const X& x, const M& mask, S value) {
    using E = std::remove_cv_t<typename X::value_type>;
    static_assert(std::is_same_v<std::remove_cv_t<typename M::value_type>, bool>,
                  "realify::masked_fill: the mask must be a bool tensor (PyTorch: masked_fill_ only supports boolean "
                  "masks)");
    static_assert(std::is_arithmetic_v<S> || !std::is_arithmetic_v<E>,
                  "realify::masked_fill: a complex value cannot fill a real tensor (PyTorch refuses it too)");
    const xt::xarray<E> in(x);
    const xt::xarray<bool> m(mask);
    std::vector<std::size_t> shape(in.shape().begin(), in.shape().end());
    bool fits = m.dimension() <= shape.size();
    for (std::size_t a = 0; fits && a < m.dimension(); ++a) {
        const std::size_t e = m.shape()[m.dimension() - 1 - a];
        fits = e == 1 || e == shape[shape.size() - 1 - a];
    }
    if (!fits)
        throw shape_error("realify::masked_fill: the mask (shape " + detail::format_sequence(m.shape()) +
                          ") must broadcast to the input's shape " + detail::format_sequence(in.shape()));
    const E fill = static_cast<E>(value);
    xt::xarray<E> result = xt::where(xt::broadcast(m, shape), fill, in);
    return result;
}

}  // namespace realify
