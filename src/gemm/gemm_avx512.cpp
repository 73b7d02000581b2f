// The matrix products built for AVX-512F (+ AVX2 + FMA3): CMake compiles this file alone with
// that instruction set (realify_isa_sources); its products are
// entries of the same level's kernel table (src/simd/isa_<level>.cpp).
// Eigen's namespace is renamed for this unit only (why: gemm_kernels.hpp).
#if !defined(__AVX512F__)
#error "gemm_avx512.cpp must be compiled with -mavx512f"
#endif

#define REALIFY_GEMM_EIGEN_NAMESPACE realify_eigen_avx512
// the native method's complex product, built with contraction (gemm_native_avx512.cpp)
#define REALIFY_GEMM_NATIVE native_gemm_avx512
#include "gemm_kernels.hpp"

namespace realify::simd::detail {

void gemm_avx512(const gemm_call<float>& call) { run(call); }
void gemm_avx512(const gemm_call<double>& call) { run(call); }

}  // namespace realify::simd::detail
