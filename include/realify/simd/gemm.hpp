// Matrix products on the (…, 2) layout, computed by real matrix-multiply
// kernels only: the "induced methods" of Van Zee & Smith (ACM TOMS 2017) and
// Van Zee (SIAM SISC 2020). The products run in the compiled realify_gemm
// library, which realify::realify links and realify::core does not: Eigen's
// GEMM (one copy per instruction set, chosen at run time like the other
// kernels: realify/simd/arch.hpp) or a library built in beside it (a CBLAS,
// oneDNN), whichever measured fastest on this CPU (gemm_backend()), cut into
// tiles of C fixed by the sizes for the threads (realify/threads.hpp); real
// products of a few rows run realify's own one-pass kernel. This header is
// cheap — it includes neither Eigen nor xsimd — so the dispatch lowerings
// call it.
//
// Methods (docs/numerics.md gives their error bounds and inf/NaN behaviour):
//
//   m1      one real product on the interleaved data itself: A's rows read as
//           a real m × 2k matrix, B expanded to the real 2k × 2n matrix whose
//           2 × 2 blocks are [[bᵣ, bᵢ], [−bᵢ, bᵣ]], C comes out interleaved.
//           No repacking of A or C.
//   m4      four real products, Cᵣ = AᵣBᵣ − AᵢBᵢ, Cᵢ = AᵣBᵢ + AᵢBᵣ, on
//           deinterleaved copies.
//   m3      three real products (Karatsuba): T₁ = AᵣBᵣ, T₂ = AᵢBᵢ,
//           T₃ = (Aᵣ + Aᵢ)(Bᵣ + Bᵢ), Cᵣ = T₁ − T₂, Cᵢ = T₃ − T₁ − T₂. A quarter
//           fewer flops, a weaker bound on the imaginary part (Higham, SIAM
//           J. Matrix Anal. Appl. 1992): used only when asked for.
//   direct  a loop over entries, (aᵣbᵣ − aᵢbᵢ, aᵣbᵢ + aᵢbᵣ) accumulated in k
//           order; the fastest for small products.
//   native  a complex GEMM: Eigen's complex product, or the CBLAS's
//           cgemm / zgemm (realify::simd::gemm_backend()); operands with an
//           inf or NaN run 1m instead, whose special values are the
//           documented ones.
//   automatic  direct up to gemm_direct_threshold multiply-adds, 1m for a
//           matrix-vector product, else native or 1m, whichever measured
//           faster on this CPU (docs/numerics.md, "Which method runs").
// The induced methods (1m, 4m, 3m) run on the backend's real GEMM.
//
// Operands are described by strides, so transposed (column-major) and
// conjugated operands need no copy: a transposed matrix is its strides
// swapped, a conjugate is a flag the methods fold into the data they prepare
// anyway (m1's expanded B, m4's and m3's deinterleaved parts). What the real
// GEMM cannot read as it is — negative or zero strides, rows not contiguous —
// is copied once into contiguous scratch.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "realify/version.hpp"

namespace realify {

/// How a complex matrix product is computed.
enum class gemm_method { automatic, m1, m4, m3, direct, native };

/// "automatic", "1m", "4m", "3m", "direct", "native".
constexpr std::string_view to_string(gemm_method method) noexcept {
    switch (method) {
        case gemm_method::automatic: return "automatic";
        case gemm_method::m1: return "1m";
        case gemm_method::m4: return "4m";
        case gemm_method::m3: return "3m";
        case gemm_method::direct: return "direct";
        case gemm_method::native: return "native";
    }
    return "unknown";
}

/// The method complex products on this thread use when the call names none:
/// that of the innermost live scoped_gemm_method, else automatic.
gemm_method current_gemm_method() noexcept;

/// Sets the method of every complex product on this thread (eager calls and
/// graph evaluation alike) for its lifetime; restores the previous one after.
class scoped_gemm_method {
public:
    explicit scoped_gemm_method(gemm_method method) noexcept;
    ~scoped_gemm_method();
    scoped_gemm_method(const scoped_gemm_method&) = delete;
    scoped_gemm_method& operator=(const scoped_gemm_method&) = delete;

private:
    gemm_method previous_;
};

namespace simd {

/// `batch` products of (m × k) · (k × n).
struct gemm_dims {
    std::size_t batch = 1;
    std::size_t m = 0;
    std::size_t n = 0;
    std::size_t k = 0;
};

/// One operand of a (batched) product, in units of the component type T:
/// element (i, j) of batch b starts at data + batch_offsets[b] + i·row_stride
/// + j·col_stride; for a complex operand that is its real part and the
/// imaginary part follows it. batch_offsets holds one offset per batch (it may
/// be empty when there is one batch); broadcasting repeats an offset. Strides
/// may be anything (negative, zero where the extent is 1): the product copies
/// what the real GEMM cannot read directly. `conjugate` reads conj(element)
/// (complex products only).
template <class T>
struct gemm_operand {
    const T* data = nullptr;
    std::ptrdiff_t row_stride = 0;
    std::ptrdiff_t col_stride = 0;
    std::span<const std::ptrdiff_t> batch_offsets{};
    bool conjugate = false;
};

/// Complex products: out is contiguous, batch × m × n complex elements,
/// interleaved (batch·m·n·2 components), and is overwritten (k = 0 gives
/// zeros). `automatic` is resolved by resolve_gemm_method. Throws
/// realify::shape_error when batch_offsets does not have one entry per batch.
void complex_gemm(const gemm_dims& dims, const gemm_operand<float>& a, const gemm_operand<float>& b, float* out,
                  gemm_method method = current_gemm_method());
void complex_gemm(const gemm_dims& dims, const gemm_operand<double>& a, const gemm_operand<double>& b, double* out,
                  gemm_method method = current_gemm_method());

/// Real products: out is contiguous, batch × m × n, overwritten.
void real_gemm(const gemm_dims& dims, const gemm_operand<float>& a, const gemm_operand<float>& b, float* out);
void real_gemm(const gemm_dims& dims, const gemm_operand<double>& a, const gemm_operand<double>& b, double* out);

/// The element type of a product, for the functions that describe one.
enum class gemm_type { float32, float64, complex64, complex128 };

/// The library large float products run on: "eigen" (Eigen's GEMM, compiled
/// per instruction set), the CBLAS realify_gemm was built with ("openblas",
/// "blis", "mkl") or "onednn" — gemm_backend({1, 256, 256, 256},
/// gemm_type::float32). Without REALIFY_GEMM_BACKEND the first product that
/// needs the choice (or this call) times each library built in once on this
/// CPU, on one thread, and the process keeps the fastest (docs/numerics.md,
/// "Which backend runs"); under realify::simd::scoped_arch or
/// REALIFY_SIMD_ARCH the products run on Eigen built for that level.
/// REALIFY_GEMM_BACKEND=eigen|blas|openblas|blis|mkl|onednn forces one
/// (blas: the CBLAS built in). Throws realify::error if REALIFY_GEMM_BACKEND
/// cannot be honoured.
std::string_view gemm_backend();

/// What runs a product of these dimensions: "realify" (its own kernels: the
/// skinny real products — at most 16 rows or columns — the direct loop, 1m's
/// matrix-vector kernel), else the library, as gemm_backend(). `shared_b`:
/// every batch reads the same B. For a complex type, that of `method` as
/// automatic resolves it.
std::string_view gemm_backend(const gemm_dims& dims, gemm_type type, bool shared_b = false,
                              gemm_method method = current_gemm_method());

/// One line saying how such a product runs — kernel or library (with its
/// version), method, the tiles it is cut into, and why (measured: each
/// candidate's time ÷ the fastest's; forced; small) — for graph::explain.
/// Skinny products are described for operands whose weight has contiguous
/// rows or columns (others run the GEMM).
std::string gemm_description(const gemm_dims& dims, gemm_type type, bool shared_b = false,
                             gemm_method method = current_gemm_method());

/// Products of at most this many multiply-adds (m·n·k, with m counting every
/// batch when all batches share B, since they then run as one product) use
/// the direct loop under `automatic`; matrix-vector products (n = 1) never
/// do. Measured with bench_gemm (the "small" family): the direct loop ties 1m
/// up to 4 × 4 × 4 and is 10–40 % slower from 8 × 8 × 8 on.
inline constexpr std::size_t gemm_direct_threshold = 64;

/// The method a complex product of these dimensions runs with: `method`
/// itself unless it is automatic, else direct, 1m (matrix-vector) or native
/// by size. (Where native measured slower than 1m — Eigen below AVX-512, say
/// — automatic then runs 1m: gemm_description says which.) `shared_b` says
/// every batch reads the same B.
gemm_method resolve_gemm_method(const gemm_dims& dims, bool shared_b, gemm_method method) noexcept;

}  // namespace simd
}  // namespace realify
