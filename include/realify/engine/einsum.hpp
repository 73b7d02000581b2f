// einsum on tensor_refs (PyTorch's torch.einsum): the equation is parsed at
// run time — subscripts a–z, A–Z, one "..." per operand (its dims broadcast
// right-aligned), spaces ignored, "->" and the output optional (implicit:
// the labels seen once, uppercase first, after the ellipsis dims); a label
// repeated in one operand takes the diagonal, a label missing from the
// output is summed, a label of extent 1 broadcasts against the others.
//
// Operands are contracted left to right in pairs, each pair as ONE batched
// matrix product of the compiled GEMM (realify/simd/gemm.hpp: the real GEMM
// for real operands, the induced methods for complex ones): the labels both
// operands keep are the batch, the labels only one keeps the rows or the
// columns, the shared labels no later step needs the contraction. Each
// operand is read in place through its strides (a diagonal is a stride sum,
// a permutation a re-description); it is copied only where a group of its
// dims is not one stride in memory, or summed first over the labels no one
// else needs. So "bhqd,bhkd->bhqk" is q · kᵀ per (b, h) with no copy of k,
// and "bqhd,bkhd->bhqk" reads q and k in their (b, seq, heads, d) layout.
//
// Compiled once in realify_simd (src/simd/einsum.cpp); this header is cheap.
#pragma once

#include <span>
#include <string_view>

#include "realify/engine/tensor_ref.hpp"

namespace realify::engine {

/// The shape of einsum(equation, operands) (their shapes alone are read);
/// realify::error (a bad equation) or shape_error (extents that do not
/// broadcast) naming `op` otherwise.
dims einsum_shape(std::string_view op, std::string_view equation, std::span<const tensor_ref> operands);

/// out = einsum(equation, operands): all real (float or double, one type) or
/// all complex of one type; out of the result's shape and kind (float or
/// double), no internal overlap. out may overlap an operand: the result is
/// complete before out is written.
void einsum(std::string_view op, std::string_view equation, std::span<const tensor_ref> operands, const tensor_ref& out);

}  // namespace realify::engine
