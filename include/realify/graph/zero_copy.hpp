// Views: shape ops that re-describe their operand's memory — the same
// memory, a new shape and new strides; no element is touched, as PyTorch's
// views. A value is strided memory (graph/value.hpp), so what a view feeds
// reads it in place: the fused loops, the reductions, the rows of softmax
// and the norms, einsum and the matrix products (a transposed weight is its
// strides swapped, an expanded batch a repeated batch offset).
//
//   strided views   permute, transpose, t, select, getitem, narrow, slice
//                   (with step), expand (stride 0), a piece of split /
//                   split_with_sizes / chunk: always views, whatever the
//                   operand's strides (PyTorch's);
//   reshape-likes   unsqueeze, squeeze: always views; reshape, view,
//                   unsafe_view, flatten: a view when the operand's strides
//                   allow it (PyTorch's view rule: each group of dims merged
//                   or split is contiguous), else the operand is copied once,
//                   packed, and viewed (where PyTorch's view() would refuse,
//                   the graph copies, as reshape does);
//   the operand     alias, detach, clone, resolve_conj, conj / real of a
//                   real tensor: the value itself (values are never written).
//
// Shapes, strides and errors are the eager shape ops' (the same routines:
// realify/ops/shape_inference.hpp, and the views of
// realify/dispatch/lowerings/shape.hpp); graph::same(k) in a reshape shape
// stands for the operand's extent at dim k. Compiled once, in realify_simd
// (src/graph/zero_copy.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "realify/engine/tensor_ref.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"

namespace realify::graph::detail {

/// The shape view record `n` gives an operand of shape `from` (a complex
/// one when n.is_complex, of components of n.component_bytes bytes);
/// shape_error when it does not fit.
shape_vector view_shape(const ir_node& n, const shape_vector& from);

/// View record `n` of the memory `in`: the same memory, the view's shape
/// (`known` when inferred already) and strides; nullopt when a reshape's
/// strides do not allow it (the operand is then copied, packed).
std::optional<engine::tensor_ref> view_of(const ir_node& n, const engine::tensor_ref& in, const shape_vector* known);

/// Whether view record `n` keeps a packed operand packed, its elements in
/// the same order (the reshape-likes, the operand itself, view_as_complex
/// and view_as_real): a value seen through such views is the memory it was.
bool keeps_order(const ir_node& n);

/// For a view that only reorders axes (permute, transpose, t): for each axis
/// of the view, the operand's axis it is; nullopt for any other view.
std::optional<std::vector<std::size_t>> axis_order(const ir_node& n, std::size_t rank);

}  // namespace realify::graph::detail
