// PyTorch's creation ops and triangles on tensor_refs: what the eager
// realify::arange, triu and tril and the graph's nodes of them run. (full,
// zeros, ones and empty are the engine's copy of one number, broadcast.)
// Compiled once in realify_simd (src/engine/construction.cpp); this header
// is cheap.
//
//   arange_length   torch.arange's length, ceil((end − start) / step) (the
//                   int64 form for integral bounds: (end − start + step − sign) / step),
//                   and its errors: step 0 ("step must be nonzero"), a step
//                   of the wrong sign ("upper bound and larger bound
//                   inconsistent with step sign"), a bound not finite.
//   arange          out[i] = start + i·step, computed in double (as
//                   PyTorch's accumulate type for float) or, integral, in int64.
//   triangle        triu (upper) / tril of the last two dims, every matrix
//                   of the leading dims: element (i, j) kept when j − i ≥
//                   diagonal (triu) or j − i ≤ diagonal (tril), else zero.
//                   Any component type, real or complex; out may be in
//                   exactly (in place).
#pragma once

#include <cstddef>
#include <string_view>

#include "realify/engine/tensor_ref.hpp"

namespace realify::engine {

std::size_t arange_length(std::string_view op, double start, double end, double step, bool integral);

/// out (1-D, any stride, float, double or an integer type) = start + i·step.
void arange(std::string_view op, double start, double step, bool integral, const tensor_ref& out);

void triangle(std::string_view op, const tensor_ref& in, std::ptrdiff_t diagonal, bool upper, const tensor_ref& out);

/// shape_error naming the op unless out has the result's shape (the creation
/// ops that write no values, empty and empty_like, check their buffer so).
void check_out_shape(std::string_view op, const tensor_ref& out, const dims& shape);

}  // namespace realify::engine
