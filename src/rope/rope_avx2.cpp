// RoPE kernels for avx2: this translation unit is compiled with the avx2 flags of
// realify_simd; it only instantiates the templates of
// realify/rope/kernels/xsimd_rope.hpp for xsimd::fma3<xsimd::avx2>.
#include "realify/rope/kernels/xsimd_rope.hpp"
#include "rope_arch.hpp"

namespace realify::rope::detail {

void rope_avx2(const rope_call<float>& call) { kernel::rope_simd<float, xsimd::fma3<xsimd::avx2>>::run(call); }
void rope_avx2(const rope_call<double>& call) { kernel::rope_simd<double, xsimd::fma3<xsimd::avx2>>::run(call); }

}  // namespace realify::rope::detail
