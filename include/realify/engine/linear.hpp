// PyTorch's F.linear on tensor_refs: out = x · wᵀ + b.
//
//   x (…, in), w (out_features, in), b (out_features) or none → (…, out_features)
//
// One matrix product of the compiled GEMM (realify/simd/gemm.hpp): x's
// leading dims are its rows (read in place when they are one stride apart,
// else packed once), w is read through its strides as the transposed
// operand — a transposed matrix is its strides swapped, so the weight is
// never copied — and the product is written straight into out when out is
// row-major contiguous and shares no memory with an operand (else through a
// temporary, copied in through out's strides). The bias is added in one pass
// over the rows. Real float or double operands of one type, or all complex
// (complex w: x · wᵀ, not its conjugate, as PyTorch). Errors name the op and
// the shapes. Compiled in realify_gemm (src/gemm/linear.cpp): linking
// realify::realify.
#pragma once

#include <string_view>

#include "realify/engine/tensor_ref.hpp"

namespace realify::engine {

/// The shape of linear(x, w, b), after the checks.
dims linear_shape(std::string_view op, const tensor_ref& x, const tensor_ref& w, const tensor_ref* b);

/// out = x · wᵀ + b (b: nullptr for none).
void linear(std::string_view op, const tensor_ref& x, const tensor_ref& w, const tensor_ref* b, const tensor_ref& out);

}  // namespace realify::engine
