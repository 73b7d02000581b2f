// Scaled dot-product attention on tensor_refs — PyTorch's
// torch.nn.functional.scaled_dot_product_attention, fused:
//
//   out = softmax(q · kᵀ · scale + mask) · v
//
//   q (…, L, E), k (…, S, E), v (…, S, Ev) → out (…, L, Ev); the leading dims
//   broadcast (a k or v expanded over the heads, stride 0, is read as it
//   lies), or — enable_gqa, PyTorch ≥ 2.5's grouped-query attention — q's
//   head count (dim −3) is a multiple of k's and v's, q head h reading
//   kv head h / (Hq / Hk).
//   mask: none, bool (true = takes part: false is −inf) or of q's type
//   (added), broadcastable to (…, L, S); causal: the upper-left lower
//   triangle, key j taken by query i when j ≤ i (PyTorch's is_causal), not
//   with a mask; scale: 1/√E by default.
//
// One pass over the keys per block of queries with an online softmax
// (src/simd/isa/attention_kernels.hpp): the L×S scores are never in memory.
// Every operand is read through its strides (a (B, S, H, E) tensor seen as
// (B, H, S, E) is not copied). The call is cut into pieces — the query rows
// of one (batch, kv group) that read the same keys, 64 rows at most — by the
// sizes alone: results are the same on any number of threads.
//
// A row whose scores are all −inf (its mask takes no key) is NaN, as the
// materialised formula gives (0/0); a NaN in q, k or a taken key's v
// makes the rows that read it NaN. S = 0 gives zeros (an empty sum).
//
// Real float or double q, k and v of one type; errors name the op and the
// shapes (shape_error) or the types (realify::error); out must not overlap
// an operand (layout_error). Compiled once in realify_simd
// (src/engine/attention.cpp); this header is cheap.
#pragma once

#include <optional>
#include <string_view>

#include "realify/engine/tensor_ref.hpp"

namespace realify::engine {

struct attention_options {
    const tensor_ref* mask = nullptr;  // bool, or q's type
    bool causal = false;
    std::optional<double> scale;       // 1/√E when empty
    bool enable_gqa = false;
};

/// The shape of the result (…, L, Ev), after the checks of shapes and types.
dims attention_shape(std::string_view op, const tensor_ref& q, const tensor_ref& k, const tensor_ref& v,
                     const attention_options& options);

/// out = scaled_dot_product_attention(q, k, v, options), out of that shape.
void attention(std::string_view op, const tensor_ref& q, const tensor_ref& k, const tensor_ref& v,
               const attention_options& options, const tensor_ref& out);

}  // namespace realify::engine
