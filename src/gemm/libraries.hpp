// Private: the GEMM libraries realify_gemm may be built with beside Eigen —
// one CBLAS (OpenBLAS, BLIS or MKL: cmake/RealifyBlas.cmake) and oneDNN —
// called from one baseline unit (libraries.cpp), so the per-ISA units never
// include their headers. Every call runs on ONE thread of the library's own,
// whichever thread makes it (docs/numerics.md, "Which backend runs").
#pragma once

#include <cstddef>
#include <string_view>

#include "gemm_arch.hpp"

namespace realify::simd::detail {

/// Whether the library is built in (eigen always is).
bool library_built_in(gemm_library library) noexcept;
/// "eigen", "openblas" / "blis" / "mkl" (the CBLAS built in; "blas" when none), "onednn".
std::string_view library_name(gemm_library library) noexcept;
/// Whether the library has a real GEMM of this precision (oneDNN's dnnl_sgemm
/// has no double sibling) and a complex GEMM (the CBLAS's cgemm / zgemm).
bool library_has_real(gemm_library library, bool double_precision) noexcept;
bool library_has_complex(gemm_library library) noexcept;
/// The library's version, as it reports it ("0.3.21", "2.6.3"), or "".
std::string library_version(gemm_library library);

/// C = α·op(A)·op(B) + β·C, row-major, op(X) = Xᵀ when trans_x, on the CBLAS
/// (library blas) or oneDNN; α and β are ±1 and 0 or 1. Sizes and leading
/// dimensions fit an int (gemm.cpp checks).
void library_gemm(gemm_library library, bool trans_a, bool trans_b, std::ptrdiff_t m, std::ptrdiff_t n,
                  std::ptrdiff_t k, float alpha, const float* a, std::ptrdiff_t lda, const float* b,
                  std::ptrdiff_t ldb, float beta, float* c, std::ptrdiff_t ldc);
void library_gemm(gemm_library library, bool trans_a, bool trans_b, std::ptrdiff_t m, std::ptrdiff_t n,
                  std::ptrdiff_t k, double alpha, const double* a, std::ptrdiff_t lda, const double* b,
                  std::ptrdiff_t ldb, double beta, double* c, std::ptrdiff_t ldc);

/// C (m × n pairs, ldc apart) = op(A)·op(B) on the CBLAS's cgemm / zgemm.
void library_complex_gemm(std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k, const complex_view<float>& a,
                          const complex_view<float>& b, float* c, std::ptrdiff_t ldc);
void library_complex_gemm(std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k, const complex_view<double>& a,
                          const complex_view<double>& b, double* c, std::ptrdiff_t ldc);

}  // namespace realify::simd::detail
