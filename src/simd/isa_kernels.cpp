// The kernel table of one instruction set. xsimd 8.1 enables an
// architecture's kernels only in a translation unit compiled for it, so CMake
// builds this file once per level of REALIFY_SIMD_ARCHS, each time with that
// level's options (realify_isa_unit: REALIFY_ISA_<LEVEL> says which level,
// REALIFY_ISA_NAME(prefix, suffix) spells its names); arch.cpp calls a level's
// table only after checking the CPU has that level.
#include "isa_table.hpp"

#if defined(REALIFY_ISA_SSE2)
#if !XSIMD_WITH_SSE2
#error "the sse2 kernel table must be compiled for x86-64 (SSE2)"
#endif
using level_arch = xsimd::sse2;  // the x86-64 baseline: every x86-64 CPU has it
#elif defined(REALIFY_ISA_AVX2)
#if !XSIMD_WITH_FMA3_AVX2
#error "the avx2 kernel table must be compiled with -mavx2 -mfma"
#endif
using level_arch = xsimd::fma3<xsimd::avx2>;
#elif defined(REALIFY_ISA_AVX512)
#if !XSIMD_WITH_AVX512F
#error "the avx512 kernel table must be compiled with -mavx512f"
#endif
using level_arch = xsimd::avx512f;
#else
#error "isa_kernels.cpp is built by realify_isa_unit, once per instruction set"
#endif

namespace realify::simd::detail {
const kernel_table& REALIFY_ISA_NAME(, _kernels)() noexcept {
    static constexpr kernel_table table = make_kernel_table<level_arch>();
    return table;
}
}  // namespace realify::simd::detail
