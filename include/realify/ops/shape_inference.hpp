// The shapes PyTorch's shape ops give, computed once for every caller: the
// eager lowerings on the (…,2) layout (dispatch/lowerings/shape.hpp) and the
// graph's zero-copy views (graph/zero_copy.hpp) both call these.
//
//   wrap_dim        a dim in [−rank, rank) → [0, rank) (maybe_wrap_dim)
//   reduction_axes  the axes a reduction's dim list names (dim_list_to_bitset)
//   reshape_extents a reshape/view shape with at most one −1 (infer_size)
//   flatten_extents dims start … end merged into one
//   unsqueeze_extents, squeeze_extents, squeeze_all_extents
//
// Shapes are complex (logical) shapes: on the (…,2) layout a complex dim d
// is the real axis d when d ≥ 0 and d − 1 when d < 0 — the same axis as d
// wrapped in the complex rank, so no caller adjusts dims itself.
//
// This lives with the op definitions (tags, references, promotion) because
// it says what an op means, independently of how a tensor is stored or
// evaluated: it needs only realify/checked_size.hpp, and both the dispatch
// table and the graph may include it.
//
// `op` is the entry point as it appears after "realify::" in messages
// ("reshape", "graph::flatten").
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <xtensor/xstorage.hpp>

#include "realify/checked_size.hpp"
#include "realify/errors.hpp"

namespace realify::detail {

using dim_vector = xt::svector<std::size_t, 6>;

/// PyTorch's dim wrap: dim in [−rank, rank) → [0, rank), else a shape_error
/// naming the op, the dim and the rank (rank 0 has no dims).
inline std::size_t wrap_dim(std::string_view op, std::ptrdiff_t dim, std::size_t rank) {
    const auto r = static_cast<std::ptrdiff_t>(rank);
    const std::ptrdiff_t axis = dim < 0 ? dim + r : dim;
    if (axis < 0 || axis >= r) {
        std::ostringstream message;
        message << "dimension " << dim << " is out of range for a tensor of rank " << rank;
        if (rank > 0) message << " (expected in [" << -r << ", " << r - 1 << "])";
        throw_size_error(op, message.str());
    }
    return static_cast<std::size_t>(axis);
}

/// The axes a reduction over `dims` reduces, ascending: every axis when the
/// list is empty (PyTorch's sum(dim=[])). A dim named twice (after wrapping)
/// is a shape_error, as PyTorch's "dim 0 appears multiple times in the list
/// of dims"; a 0-d tensor takes dim 0 or −1 and reduces nothing (PyTorch
/// wraps scalars as rank 1).
inline std::vector<std::size_t> reduction_axes(std::string_view op, const std::vector<std::ptrdiff_t>& dims,
                                               std::size_t rank) {
    const std::size_t wrap_rank = rank == 0 ? 1 : rank;
    std::vector<bool> named(wrap_rank, dims.empty());
    for (std::ptrdiff_t d : dims) {
        const std::size_t axis = wrap_dim(op, d, wrap_rank);
        if (named[axis]) throw_size_error(op, "dim " + std::to_string(axis) + " appears multiple times in the list of dims");
        named[axis] = true;
    }
    std::vector<std::size_t> axes;
    for (std::size_t axis = 0; axis < rank; ++axis)
        if (named[axis]) axes.push_back(axis);
    return axes;
}

/// PyTorch's infer_size: the shape `requested` (extents, at most one −1)
/// for a tensor of shape `from`; the −1 takes what the others leave. The
/// products are checked, so a shape whose product wraps std::size_t is
/// refused, never matched modulo 2^64.
inline dim_vector reshape_extents(std::string_view op, const std::vector<std::ptrdiff_t>& requested,
                                  const dim_vector& from) {
    const std::size_t count = checked_element_count(op, "input shape", from);
    dim_vector result(requested.size(), 1);  // the −1 slot counts as 1 in `known`
    std::ptrdiff_t infer = -1;
    bool ok = true;
    for (std::size_t i = 0; i < requested.size(); ++i) {
        if (requested[i] == -1 && infer < 0) infer = static_cast<std::ptrdiff_t>(i);
        else if (requested[i] < 0) ok = false;
        else result[i] = static_cast<std::size_t>(requested[i]);
    }
    const std::size_t known = ok ? checked_element_count(op, "shape", result) : 0;
    if (ok && infer >= 0) {
        if (known == 0 || count % known != 0) ok = false;
        else result[static_cast<std::size_t>(infer)] = count / known;
    } else if (ok && known != count) {
        ok = false;
    }
    if (!ok) {
        std::ostringstream message;
        message << "shape " << format_sequence(requested) << " is invalid for a tensor of shape " << format_sequence(from)
                << " (" << count << " elements)";
        throw_size_error(op, message.str());
    }
    return result;
}

/// torch.flatten(start, end): dims start … end merged (a rank-0 tensor becomes (1)).
inline dim_vector flatten_extents(std::string_view op, const dim_vector& from, std::ptrdiff_t start, std::ptrdiff_t end) {
    if (from.empty()) return dim_vector{1};
    const std::size_t s = wrap_dim(op, start, from.size()), e = wrap_dim(op, end, from.size());
    if (s > e) throw_size_error(op, "start dim must not be after end dim");
    dim_vector result(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(s));
    result.push_back(checked_element_count(
        op, "merged dims", dim_vector(from.begin() + static_cast<std::ptrdiff_t>(s), from.begin() + static_cast<std::ptrdiff_t>(e) + 1)));
    for (std::size_t i = e + 1; i < from.size(); ++i) result.push_back(from[i]);
    return result;
}

/// torch.unsqueeze(dim): an extent 1 inserted at dim (wrapped in rank + 1).
inline dim_vector unsqueeze_extents(std::string_view op, const dim_vector& from, std::ptrdiff_t dim) {
    const std::size_t axis = wrap_dim(op, dim, from.size() + 1);
    dim_vector result;
    for (std::size_t i = 0; i <= from.size(); ++i) {
        if (i == axis) result.push_back(1);
        if (i < from.size()) result.push_back(from[i]);
    }
    return result;
}

/// torch.squeeze(dims): the listed dims dropped where their extent is 1.
inline dim_vector squeeze_extents(std::string_view op, const dim_vector& from, const std::vector<std::ptrdiff_t>& dims) {
    std::vector<bool> drop(from.size(), false);
    for (std::ptrdiff_t d : dims) drop[wrap_dim(op, d, from.size())] = true;
    dim_vector result;
    for (std::size_t i = 0; i < from.size(); ++i)
        if (!(drop[i] && from[i] == 1)) result.push_back(from[i]);
    return result;
}

/// torch.squeeze(): every extent-1 dim dropped.
inline dim_vector squeeze_all_extents(const dim_vector& from) {
    dim_vector result;
    for (std::size_t extent : from)
        if (extent != 1) result.push_back(extent);
    return result;
}

}  // namespace realify::detail
