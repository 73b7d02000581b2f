// The matrix products of one instruction set (the tiles of the GEMM and its
// methods, the skinny products): CMake builds this file once per
// level of REALIFY_SIMD_ARCHS, each time with that level's options
// (realify_isa_unit: REALIFY_ISA_<LEVEL> says which level,
// REALIFY_ISA_NAME(prefix, suffix) spells its names); gemm.cpp calls the
// products of the level the kernel table runs on. Eigen's namespace is renamed
// for each unit (why: gemm_kernels.hpp).
#if defined(REALIFY_ISA_SSE2)
#if defined(__AVX__)
#error "the sse2 products must be compiled for the x86-64 baseline (-march=x86-64)"
#endif
#elif defined(REALIFY_ISA_AVX2)
#if !defined(__AVX2__) || !defined(__FMA__) || defined(__AVX512F__)
#error "the avx2 products must be compiled with -mavx2 -mfma (and without AVX-512)"
#endif
#elif defined(REALIFY_ISA_AVX512)
#if !defined(__AVX512F__)
#error "the avx512 products must be compiled with -mavx512f"
#endif
// the native method's complex product, built with contraction (gemm_native_avx512.cpp)
#define REALIFY_GEMM_NATIVE native_gemm_avx512
#else
#error "gemm_isa.cpp is built by realify_isa_unit, once per instruction set"
#endif

#define REALIFY_GEMM_EIGEN_NAMESPACE REALIFY_ISA_NAME(realify_eigen_, )
#include "gemm_kernels.hpp"
#include "skinny.hpp"

namespace realify::simd::detail {

void REALIFY_ISA_NAME(gemm_, )(const gemm_call<float>& call, const gemm_tile& tile, gemm_workspace& workspace) {
    run(call, tile, workspace);
}
void REALIFY_ISA_NAME(gemm_, )(const gemm_call<double>& call, const gemm_tile& tile, gemm_workspace& workspace) {
    run(call, tile, workspace);
}
void REALIFY_ISA_NAME(skinny_, )(const skinny_call<float>& call, std::size_t first, std::size_t last) {
    skinny(call, first, last);
}
void REALIFY_ISA_NAME(skinny_, )(const skinny_call<double>& call, std::size_t first, std::size_t last) {
    skinny(call, first, last);
}

}  // namespace realify::simd::detail
