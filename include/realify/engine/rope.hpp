// Rotary position embeddings on one tensor, as tensor_refs: what
// realify::rope::apply_rotary_emb(x, freqs_cis, start_pos, out) and the
// graph's graph::rope run.
//
//   x      (batch, seq, heads, head_dim), real float or double, any strides
//   freqs  (end, head_dim / 2), complex of x's component type; row
//          start_pos + s rotates position s (end ≥ start_pos + seq)
//   out    x's shape and type, any strides: x itself (in place, the same
//          layout) or memory of its own
//
// The rows of x and out are read and written where they lie by the compiled
// RoPE kernel (realify/rope/compiled.hpp), whatever the strides of the
// batch, seq and head axes; only a head_dim axis that is not contiguous is
// copied (x packed first, out written through a packed temporary), and a
// table that is not packed. x overlapping out other than exactly is copied
// first. Errors: shape_error (shapes, start_pos), layout_error (out
// overlapping freqs or itself), realify::error (types), each naming `op`.
// Compiled once in realify_simd (src/engine/rope.cpp); this header is cheap.
#pragma once

#include <cstddef>
#include <string_view>

#include "realify/engine/tensor_ref.hpp"
#include "realify/rope/pair_layout.hpp"

namespace realify::engine {

/// out = x rotated by the rows start_pos … of freqs, pairs as `layout` says.
void rope(std::string_view op, const tensor_ref& x, const tensor_ref& freqs, std::ptrdiff_t start_pos,
          realify::rope::pair_layout layout, const tensor_ref& out);

}  // namespace realify::engine
