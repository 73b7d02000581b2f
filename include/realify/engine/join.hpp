// cat and stack on the engine's refs: the parts' shapes checked against each
// other and each part copied into its slice of the result. Compiled once, in
// realify_simd (src/engine/join.cpp): the user's unit only makes the refs of
// its operands and allocates the result.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

#include "realify/engine/tensor_ref.hpp"

namespace realify::engine {

/// The result's shape of cat (stack = false) or stack of `parts` along `dim`
/// (PyTorch's dim: negative counts from the end) and the axis the parts run
/// along in it. A shape_error when the list is empty or the parts disagree
/// (cat: outside that dim; stack: anywhere).
std::pair<dims, std::size_t> joined_shape(std::string_view op, std::span<const tensor_ref> parts, std::ptrdiff_t dim,
                                          bool stack);

/// Writes cat / stack of `parts` along `dim` into `to`: its shape must be
/// joined_shape's, and no part may overlap it (a part would be read after
/// its slice was written).
void join(std::string_view op, std::span<const tensor_ref> parts, std::ptrdiff_t dim, bool stack, const tensor_ref& to);

}  // namespace realify::engine
