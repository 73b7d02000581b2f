// The dispatch table between the public span API (dispatch.cpp) and the
// per-architecture translation units. Deliberately free of xsimd: dispatch.cpp
// is compiled for the baseline ISA and must not see any arch's kernels.
#pragma once

#include <complex>
#include <cstddef>

namespace realify::simd::detail {

// Pointers to interleaved reals; n counts reals.
template <class T>
struct kernel_set {
    void (*mul)(const T* a, const T* b, T* out, std::size_t n, bool stream, bool strict) noexcept;
    void (*mul_conj)(const T* a, const T* b, T* out, std::size_t n, bool stream, bool strict) noexcept;
    // blocks × repeats rows of n reals; the rows of block b times row b of `rows`
    void (*mul_rows)(const T* a, const T* rows, T* out, std::size_t n, std::size_t repeats, std::size_t blocks,
                     bool stream, bool strict) noexcept;
    void (*mul_real)(const T* a, const T* r, T* out, std::size_t n, bool stream) noexcept;
    void (*mul_scalar)(const T* a, std::complex<T> s, T* out, std::size_t n, bool stream, bool strict) noexcept;
    void (*mul_add)(const T* a, const T* b, const T* c, T* out, std::size_t n, bool stream, bool strict) noexcept;
};

struct kernel_table {
    kernel_set<float> f32;
    kernel_set<double> f64;
};

// One per architecture TU; only those compiled in are defined
// (REALIFY_SIMD_HAVE_AVX2 / REALIFY_SIMD_HAVE_AVX512 tell dispatch.cpp).
const kernel_table& sse2_kernels() noexcept;
const kernel_table& avx2_kernels() noexcept;
const kernel_table& avx512_kernels() noexcept;

}  // namespace realify::simd::detail
