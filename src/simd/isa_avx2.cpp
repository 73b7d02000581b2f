// AVX2 + FMA3 kernels. CMake compiles this file alone for AVX2 + FMA
// (realify_isa_sources); arch.cpp calls into it only after checking the
// CPU has both.
#include "isa_table.hpp"

#if !XSIMD_WITH_FMA3_AVX2
#error "isa_avx2.cpp must be compiled with -mavx2 -mfma"
#endif

namespace realify::simd::detail {
const kernel_table& avx2_kernels() noexcept {
    static constexpr kernel_table table = make_kernel_table<xsimd::fma3<xsimd::avx2>>();
    return table;
}
}  // namespace realify::simd::detail
