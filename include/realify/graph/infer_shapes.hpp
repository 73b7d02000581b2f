// Shapes known before evaluation: for every node whose shape follows from the
// bound inputs through views and elementwise ops (RoPE's outputs included),
// computed on the IR records alone — no typed code, no evaluation. Outputs
// with such a shape are written straight into their buffer or result
// container; the others (table ops, fallbacks) are evaluated first.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "realify/graph/ir.hpp"

namespace realify::graph::detail {

/// The shape a reduction (rule reduce_dims: attrs.dims, all axes when none;
/// reduce_dim: the one dim attrs.i0) gives an operand of shape `from`:
/// each reduced axis dropped, or kept as extent 1 when attrs.i1 (keepdim) —
/// the eager reductions' shapes (realify::detail::reduction_axes: a dim
/// named twice is refused, a 0-d operand takes dim 0 or −1).
std::optional<shape_vector> reduced_shape(shape_rule rule, std::string_view where, const node_attrs& a,
                                          const shape_vector& from);

/// The shape of every live node that follows from the bound inputs (by
/// slot; nothing where it is known only once evaluated).
std::vector<std::optional<shape_vector>> infer_shapes(const eval_context& ctx);

/// The component shape of a value of logical shape `shape` (+ [2] when complex).
shape_vector component_shape(shape_vector shape, bool complex);

}  // namespace realify::graph::detail
