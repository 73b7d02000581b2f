// Zero-copy views: reshape, view, flatten, unsqueeze, squeeze, alias, detach
// and clone give their operand's contiguous (…,2) memory a new shape; no
// element is touched. The shape is PyTorch's (realify/ops/shape_inference.hpp,
// shared with the eager lowerings); graph::same(k) in a reshape shape stands
// for the operand's extent at dim k.
#pragma once

#include <string>
#include <string_view>

#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"

namespace realify::graph::detail {

/// The shape a zero-copy view (shape rule `rule`, entry point `where` —
/// "graph::reshape" —, attributes `a`) gives an operand of shape `from`;
/// shape_error when it does not fit.
shape_vector view_shape(shape_rule rule, std::string_view where, const node_attrs& a, const shape_vector& from);

}  // namespace realify::graph::detail
