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

/// The library a GEMM call runs on (src/gemm/libraries.cpp): Eigen's GEMM
/// built into each ISA unit, the CBLAS realify_gemm was built with, oneDNN.
enum class gemm_library : unsigned char { eigen, blas, onednn };

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
    gemm_library real_library;     // the real GEMM of real products and of 1m, 4m, 3m
    gemm_library complex_library;  // the native method's complex GEMM: eigen or blas
};

/// One tile of a call's C: rows [row0, row0 + rows) and columns
/// [col0, col0 + cols) of group `group` — a batch, or, when the batches
/// share B, the one product whose rows are every batch's rows stacked.
/// The tile is a product of its own, written in place into C.
struct gemm_tile {
    std::size_t group, row0, rows, col0, cols;
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

/// C (rows × n pairs, rows `ldc` pairs apart) = op(A)·op(B) on Eigen's complex
/// product built for AVX-512 with fused multiply-adds (src/gemm/gemm_native_avx512.cpp):
/// Eigen's complex kernel leaves its multiply-adds to contraction, which the
/// other units switch off — at n = 256 it ran at 82 GFLOP/s without, 165 with.
void native_gemm_avx512(std::ptrdiff_t rows, std::ptrdiff_t n, std::ptrdiff_t k, const complex_view<float>& a,
                        const complex_view<float>& b, float* c, std::ptrdiff_t ldc);
void native_gemm_avx512(std::ptrdiff_t rows, std::ptrdiff_t n, std::ptrdiff_t k, const complex_view<double>& a,
                        const complex_view<double>& b, double* c, std::ptrdiff_t ldc);

/// The products of one instruction set (gemm.cpp picks the active one): one
/// tile of the call, with the running thread's scratch.
template <class T>
using gemm_kernel = void (*)(const gemm_call<T>& call, const gemm_tile& tile, gemm_workspace& workspace);

void gemm_sse2(const gemm_call<float>& call, const gemm_tile& tile, gemm_workspace& workspace);
void gemm_sse2(const gemm_call<double>& call, const gemm_tile& tile, gemm_workspace& workspace);
void gemm_avx2(const gemm_call<float>& call, const gemm_tile& tile, gemm_workspace& workspace);
void gemm_avx2(const gemm_call<double>& call, const gemm_tile& tile, gemm_workspace& workspace);
void gemm_avx512(const gemm_call<float>& call, const gemm_tile& tile, gemm_workspace& workspace);
void gemm_avx512(const gemm_call<double>& call, const gemm_tile& tile, gemm_workspace& workspace);

/// A skinny real product (src/gemm/skinny.hpp): out(r, j) = Σ_p x_r[p]·w(p, j)
/// for r < rows (at most skinny_rows), j < outputs — the matrix-vector
/// product and its few-row kin, one pass over the weight w:
///   dot form   w(p, j) = w[j·ldw + p]: output j is the dot product of each
///              x row with the contiguous row j of w (x·Wᵀ, W row-major);
///   axpy form  w(p, j) = w[p·ldw + j]: the rows of w are added up, scaled
///              (x·W, W row-major).
/// x rows are contiguous (k elements each). Output (r, j) is written to
/// out[r·out_row_stride + j·out_col_stride].
inline constexpr std::size_t skinny_rows = 16;
template <class T>
struct skinny_call {
    std::size_t rows, k, outputs;
    const T* x[skinny_rows];
    const T* w;
    std::ptrdiff_t ldw;
    bool dot_form;
    T* out;
    std::ptrdiff_t out_row_stride, out_col_stride;
};

/// Outputs [first, last) of a skinny product.
template <class T>
using skinny_kernel = void (*)(const skinny_call<T>& call, std::size_t first, std::size_t last);

void skinny_sse2(const skinny_call<float>& call, std::size_t first, std::size_t last);
void skinny_sse2(const skinny_call<double>& call, std::size_t first, std::size_t last);
void skinny_avx2(const skinny_call<float>& call, std::size_t first, std::size_t last);
void skinny_avx2(const skinny_call<double>& call, std::size_t first, std::size_t last);
void skinny_avx512(const skinny_call<float>& call, std::size_t first, std::size_t last);
void skinny_avx512(const skinny_call<double>& call, std::size_t first, std::size_t last);

}  // namespace realify::simd::detail
