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
// table and the graph may include it. The functions are compiled once, in
// realify_simd (src/engine/shape_inference.cpp).
//
// `op` is the entry point as it appears after "realify::" in messages
// ("reshape", "graph::flatten").
#pragma once

#include <cstddef>
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
std::size_t wrap_dim(std::string_view op, std::ptrdiff_t dim, std::size_t rank);

/// The axes a reduction over `dims` reduces, ascending: every axis when the
/// list is empty (PyTorch's sum(dim=[])). A dim named twice (after wrapping)
/// is a shape_error, as PyTorch's "dim 0 appears multiple times in the list
/// of dims"; a 0-d tensor takes dim 0 or −1 and reduces nothing (PyTorch
/// wraps scalars as rank 1).
std::vector<std::size_t> reduction_axes(std::string_view op, const std::vector<std::ptrdiff_t>& dims,
                                        std::size_t rank);

/// PyTorch's infer_size: the shape `requested` (extents, at most one −1)
/// for a tensor of shape `from`; the −1 takes what the others leave. The
/// products are checked, so a shape whose product wraps std::size_t is
/// refused, never matched modulo 2^64.
dim_vector reshape_extents(std::string_view op, const std::vector<std::ptrdiff_t>& requested,
                           const dim_vector& from);

/// torch.flatten(start, end): dims start … end merged (a rank-0 tensor becomes (1)).
dim_vector flatten_extents(std::string_view op, const dim_vector& from, std::ptrdiff_t start, std::ptrdiff_t end);

/// torch.unsqueeze(dim): an extent 1 inserted at dim (wrapped in rank + 1).
dim_vector unsqueeze_extents(std::string_view op, const dim_vector& from, std::ptrdiff_t dim);

/// torch.squeeze(dims): the listed dims dropped where their extent is 1.
dim_vector squeeze_extents(std::string_view op, const dim_vector& from, const std::vector<std::ptrdiff_t>& dims);

/// torch.squeeze(): every extent-1 dim dropped.
dim_vector squeeze_all_extents(const dim_vector& from);

}  // namespace realify::detail
