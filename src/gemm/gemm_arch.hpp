// Private: what gemm.cpp hands to the per-instruction-set products
// (src/gemm/gemm_isa.cpp, one unit per level). Plain pointers and numbers only — no standard
// library templates — so nothing here is compiled differently per ISA.
#pragma once

#include <cstddef>

#include "realify/simd/gemm.hpp"

namespace realify::simd::detail {

/// Scratch memory of the calling thread, kept between calls (gemm.cpp).
class gemm_workspace {
public:
    gemm_workspace() = default;
    gemm_workspace(const gemm_workspace&) = delete;
    gemm_workspace& operator=(const gemm_workspace&) = delete;
    ~gemm_workspace();

    /// At least `bytes` bytes, 64-byte aligned; valid until the next reserve.
    void* reserve(std::size_t bytes);
    /// Frees the memory if it is larger than what is worth keeping.
    void trim() noexcept;

private:
    void* data_ = nullptr;
    std::size_t size_ = 0;
};

/// One operand as the products read it (see simd::gemm_operand); batch_offsets
/// is never null: it has one entry per batch.
template <class T>
struct gemm_matrix {
    const T* data;
    std::ptrdiff_t row_stride;
    std::ptrdiff_t col_stride;
    const std::ptrdiff_t* batch_offsets;
    bool conjugate;
};

template <class T>
struct gemm_call {
    std::size_t batch, m, n, k;  // all non-zero
    gemm_matrix<T> a, b;
    T* out;                      // contiguous batch × m × n (× 2 when complex)
    bool complex;
    bool shared_b;               // every batch reads the same B
    gemm_method method;          // complex products: m1, m4, m3, direct or native, never automatic
    gemm_workspace* workspace;
    bool blas;                   // run the products on the BLAS (REALIFY_SIMD_HAVE_BLAS only)
};

/// A complex operand as a complex GEMM reads it: interleaved pairs in rows
/// of `ld` elements (op none), or transposed storage read as its transpose
/// or its conjugate transpose (gemm_kernels.hpp: the native method).
enum class complex_op { none, transpose, adjoint };
template <class T>
struct complex_view {
    const T* data;
    std::ptrdiff_t ld;
    complex_op op;
};

/// C (rows × n, contiguous pairs) = op(A)·op(B) on Eigen's complex product
/// built for AVX-512 with fused multiply-adds (src/gemm/gemm_native_avx512.cpp):
/// Eigen's complex kernel leaves its multiply-adds to contraction, which the
/// other units switch off — at n = 256 it ran at 82 GFLOP/s without, 165 with.
void native_gemm_avx512(std::ptrdiff_t rows, std::ptrdiff_t n, std::ptrdiff_t k, const complex_view<float>& a,
                        const complex_view<float>& b, float* c);
void native_gemm_avx512(std::ptrdiff_t rows, std::ptrdiff_t n, std::ptrdiff_t k, const complex_view<double>& a,
                        const complex_view<double>& b, double* c);

/// The products of one instruction set (gemm.cpp picks the active one).
template <class T>
using gemm_kernel = void (*)(const gemm_call<T>& call);

void gemm_sse2(const gemm_call<float>& call);
void gemm_sse2(const gemm_call<double>& call);
void gemm_avx2(const gemm_call<float>& call);
void gemm_avx2(const gemm_call<double>& call);
void gemm_avx512(const gemm_call<float>& call);
void gemm_avx512(const gemm_call<double>& call);

}  // namespace realify::simd::detail
