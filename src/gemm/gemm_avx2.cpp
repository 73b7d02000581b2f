// The matrix products built for AVX2 + FMA3: CMake compiles this file alone with
// that instruction set (realify_isa_sources); gemm_dispatch.cpp calls it only
// when the CPU has it. Eigen's namespace is renamed for this unit only (why:
// gemm_kernels.hpp).
#if !defined(__AVX2__) || !defined(__FMA__) || defined(__AVX512F__)
#error "gemm_avx2.cpp must be compiled with -mavx2 -mfma (and without AVX-512)"
#endif

#define REALIFY_GEMM_EIGEN_NAMESPACE realify_eigen_avx2
#include "gemm_kernels.hpp"

namespace realify::simd::detail {

void gemm_avx2(const gemm_call<float>& call) { run(call); }
void gemm_avx2(const gemm_call<double>& call) { run(call); }

}  // namespace realify::simd::detail
