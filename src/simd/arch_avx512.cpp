// AVX-512F kernels. CMake compiles this file alone with -mavx512f -mavx2
// -mfma; the dispatcher calls into it only after checking the CPU has them.
// GCC 12's avx512fintrin.h builds its "don't care" operands with
// _mm512_undefined_*() (a self-initialised variable), which -Wuninitialized
// flags once inlined into our code (xsimd's own swizzle included): silence
// exactly those two warnings for this TU.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "arch_table.hpp"

#if !XSIMD_WITH_AVX512F
#error "arch_avx512.cpp must be compiled with -mavx512f"
#endif

namespace realify::simd::detail {
const kernel_table& avx512_kernels() noexcept {
    static constexpr kernel_table table = make_kernel_table<xsimd::avx512f>();
    return table;
}
}  // namespace realify::simd::detail
