// RoPE kernels for avx512: this translation unit is compiled with the avx512 flags of
// realify_simd; it only instantiates the templates of
// realify/rope/kernels/xsimd_rope.hpp for xsimd::avx512f.
#include "realify/rope/kernels/xsimd_rope.hpp"
#include "rope_arch.hpp"

namespace realify::rope::detail {

void rope_avx512(const rope_call<float>& call) { kernel::rope_simd<float, xsimd::avx512f>::run(call); }
void rope_avx512(const rope_call<double>& call) { kernel::rope_simd<double, xsimd::avx512f>::run(call); }

}  // namespace realify::rope::detail
