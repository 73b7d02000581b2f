// The matrix products built for SSE2 (the x86-64 baseline): CMake compiles this file alone with
// that instruction set (realify_isa_sources); gemm_dispatch.cpp calls it only
// when the CPU has it. Eigen's namespace is renamed for this unit only (why:
// gemm_kernels.hpp).
#if defined(__AVX__)
#error "gemm_sse2.cpp must be compiled for the x86-64 baseline (-march=x86-64)"
#endif

#define REALIFY_GEMM_EIGEN_NAMESPACE realify_eigen_sse2
#include "gemm_kernels.hpp"

namespace realify::simd::detail {

void gemm_sse2(const gemm_call<float>& call) { run(call); }
void gemm_sse2(const gemm_call<double>& call) { run(call); }

}  // namespace realify::simd::detail
