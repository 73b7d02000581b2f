// The native method's Eigen complex product built for AVX-512F (+ AVX2 + FMA3)
// WITH contraction of a·b + c (src/gemm/CMakeLists.txt): Eigen's complex GEMM
// kernel leaves its multiply-adds to the compiler, and the other units are
// built with -ffp-contract=off (the direct loop is the pair formula without
// fused multiply-adds) — there it ran at half the speed. Only the native
// method runs here, on finite operands (gemm_kernels.hpp, product_native).
// Eigen's namespace is renamed for this unit (why: gemm_kernels.hpp).
#if !defined(__AVX512F__)
#error "gemm_native_avx512.cpp must be compiled with -mavx512f"
#endif

// What Eigen/Core includes, before the rename.
#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <cfloat>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <immintrin.h>
#include <iosfwd>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "gemm_arch.hpp"

#define EIGEN_DONT_PARALLELIZE
#define Eigen realify_eigen_native_avx512
#include <Eigen/Core>

#include "complex_gemm.hpp"

namespace realify::simd::detail {

void native_gemm_avx512(std::ptrdiff_t rows, std::ptrdiff_t n, std::ptrdiff_t k, const complex_view<float>& a,
                        const complex_view<float>& b, float* c, std::ptrdiff_t ldc) {
    eigen_complex_gemm(rows, n, k, a, b, c, ldc);
}
void native_gemm_avx512(std::ptrdiff_t rows, std::ptrdiff_t n, std::ptrdiff_t k, const complex_view<double>& a,
                        const complex_view<double>& b, double* c, std::ptrdiff_t ldc) {
    eigen_complex_gemm(rows, n, k, a, b, c, ldc);
}

}  // namespace realify::simd::detail
