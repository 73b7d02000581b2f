// softmax, log_softmax, layer_norm and rms_norm on tensor_refs: any layout
// of real float or double tensors, into any output layout (the input's
// shape; the input itself, in place, is allowed). Each row — the elements
// along the softmax dim, or the trailing normalised dims — is computed by the
// row kernels of the active instruction set (src/simd/isa/row_kernels.hpp)
// while it sits in L1: a row contiguous in memory is read and written in
// place, any other is gathered into a scratch row first (allocated once per
// call). Compiled once in realify_simd (src/engine/rows.cpp); this header is
// cheap.
//
//   softmax      e^(x − max) · (1 / Σ e^(x − max))       (PyTorch's order)
//   log_softmax  (x − max) − log Σ e^(x − max)
//   layer_norm   ((x − mean) / √(var + eps)) · w + b      mean and the biased
//                                                          variance in double,
//                                                          two passes
//   rms_norm     (x · 1/√(mean(x²) + eps)) · w             (Llama's RMSNorm)
//
// A NaN in a row makes the whole row NaN, +inf too (inf − inf), a row of
// −inf is NaN (softmax), as PyTorch. Errors: realify::shape_error (shapes,
// naming the op), realify::layout_error (out overlapping an input other than
// exactly, or itself).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "realify/engine/tensor_ref.hpp"

namespace realify::engine {

/// out = softmax (log: log_softmax) of in along `axis` (< rank; a rank-0
/// input is one row of one element).
void softmax(std::string_view op, const tensor_ref& in, std::size_t axis, bool log, const tensor_ref& out);

enum class norm : std::uint8_t { layer, rms };

/// out = the layer or RMS normalisation of in over its trailing `normalized`
/// dims (≤ rank); weight and bias: nullptr or tensors of those dims' shape
/// (an RMS norm takes no bias).
void normalize(std::string_view op, norm kind, const tensor_ref& in, std::size_t normalized, const tensor_ref* weight,
               const tensor_ref* bias, double eps, const tensor_ref& out);

}  // namespace realify::engine
