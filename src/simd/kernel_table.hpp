// The one kernel table: every compiled kernel of realify_simd — the multiply
// family (realify/simd/complex_mul.hpp), RoPE (realify/rope), the
// elementwise kernels (realify/simd/elementwise.hpp), the row kernels of
// softmax and the normalisations (realify/engine/rows.hpp) and the fused
// attention (realify/engine/attention.hpp) — for one
// instruction set, as function pointers. (The matrix products are a library
// of their own, realify_gemm: src/gemm/gemm.cpp picks their level the same way.)
// Each per-instruction-set translation unit (isa_kernels.cpp, built once per
// level) fills one table; the public entry points (complex_mul.cpp,
// elementwise.cpp, rope.cpp) read the active one, which arch.cpp chooses.
// Deliberately free of xsimd: those entry points are compiled for the
// baseline and must not see any instruction set's kernels.
#pragma once

#include <array>
#include <complex>
#include <cstddef>

#include "attention_call.hpp"
#include "realify/rope/call.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::simd::detail {

/// The elementwise kernels of one element type; nullptr where a form does
/// not exist (result_kind is nullopt).
template <class T>
struct elementwise_set {
    std::array<std::array<unary_kernel<T>, 2>, elementwise_op_count> unary{};    // [op][x kind]
    std::array<std::array<binary_kernel<T>, 4>, elementwise_op_count> binary{};  // [op][2·x kind + y kind]
};

constexpr std::size_t binary_index(operand_kind x, operand_kind y) noexcept {
    return 2 * static_cast<std::size_t>(x) + static_cast<std::size_t>(y);
}

/// The row kernels of softmax and the normalisations (src/simd/isa/row_kernels.hpp).
template <class T>
struct row_set {
    T (*max)(const T* x, std::size_t n) noexcept;  // n ≥ 1
    double (*exp_sum)(const T* x, T shift, T* out, std::size_t n) noexcept;
    void (*moments)(const T* x, T center, std::size_t n, double* sums) noexcept;
    void (*normalize)(const T* x, T center, T center_low, T scale, const T* w, const T* b, T* out, std::size_t n) noexcept;
};

// Multiply family: pointers to interleaved reals; n counts reals.
template <class T>
struct multiply_set {
    void (*mul)(const T* a, const T* b, T* out, std::size_t n, bool stream, bool strict) noexcept;
    void (*mul_conj)(const T* a, const T* b, T* out, std::size_t n, bool stream, bool strict) noexcept;
    // blocks × repeats rows of n reals; the rows of block b times row b of `rows`
    void (*mul_rows)(const T* a, const T* rows, T* out, std::size_t n, std::size_t repeats, std::size_t blocks,
                     bool stream, bool strict) noexcept;
    void (*mul_real)(const T* a, const T* r, T* out, std::size_t n, bool stream) noexcept;
    void (*mul_scalar)(const T* a, std::complex<T> s, T* out, std::size_t n, bool stream, bool strict) noexcept;
    void (*mul_add)(const T* a, const T* b, const T* c, T* out, std::size_t n, bool stream, bool strict) noexcept;
};

/// One member per kernel family (realify::simd::kernel_family), so that the
/// level choice can take each family from another instruction set's table.
template <class T>
struct kernel_set {
    multiply_set<T> multiply;
    // RoPE (src/simd/isa/rope_kernels.hpp); may allocate its patterns
    void (*rope)(const rope::detail::rope_call<T>& call);
    elementwise_set<T> elementwise;
    row_set<T> rows;
    // scaled dot-product attention, one piece (src/simd/isa/attention_kernels.hpp)
    void (*attention)(const attention_piece<T>& piece) noexcept;
};

struct kernel_table {
    kernel_set<float> f32;
    kernel_set<double> f64;

    template <class T>
    const kernel_set<T>& of() const noexcept {
        if constexpr (sizeof(T) == sizeof(float)) return f32;
        else return f64;
    }
};

// One per instruction-set TU; only those compiled in are defined
// (REALIFY_SIMD_HAVE_AVX2 / REALIFY_SIMD_HAVE_AVX512 tell arch.cpp).
const kernel_table& sse2_kernels() noexcept;
const kernel_table& avx2_kernels() noexcept;
const kernel_table& avx512_kernels() noexcept;

/// The scalar kernels of every form (scalar.cpp, compiled for the baseline).
template <class T>
const elementwise_set<T>& scalar_kernels() noexcept;

/// The table calls use now (arch.cpp): the forced instruction set's, or
/// each family's preferred one's. Throws realify::error when
/// REALIFY_SIMD_ARCH names a level this machine lacks.
const kernel_table& active_table();

/// Whether a level is forced now (force_arch, scoped_arch, REALIFY_SIMD_ARCH).
bool level_forced();

}  // namespace realify::simd::detail
