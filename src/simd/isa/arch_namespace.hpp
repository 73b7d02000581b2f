// The name of the inline namespace per-instruction-set kernel code lives in
// (src/simd/isa), chosen by the flags of the
// including translation unit. The per-arch TUs are linked into one binary;
// without distinct names an inline non-template helper (or an out-of-line
// copy at -O0/-O1) compiled with -mavx512f could be the copy the linker keeps
// for the SSE2 path too.
#pragma once

#include "realify/version.hpp"

#if defined(__AVX512F__)
#define REALIFY_SIMD_KERNEL_NAMESPACE for_avx512f
#elif defined(__AVX2__) && defined(__FMA__)
#define REALIFY_SIMD_KERNEL_NAMESPACE for_avx2_fma
#elif defined(__AVX__)
#define REALIFY_SIMD_KERNEL_NAMESPACE for_avx
#else
#define REALIFY_SIMD_KERNEL_NAMESPACE for_baseline
#endif
