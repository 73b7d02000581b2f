// AVX-512F kernels. CMake compiles this file alone for AVX-512F + AVX2 + FMA
// (realify_isa_sources); arch.cpp calls into it only after checking the
// CPU has them.
#include "isa_table.hpp"

#if !XSIMD_WITH_AVX512F
#error "isa_avx512.cpp must be compiled with -mavx512f"
#endif

namespace realify::simd::detail {
const kernel_table& avx512_kernels() noexcept {
    static constexpr kernel_table table = make_kernel_table<xsimd::avx512f>();
    return table;
}
}  // namespace realify::simd::detail
