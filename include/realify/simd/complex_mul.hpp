// Elementwise complex multiply kernels on contiguous interleaved data
// (std::complex<T> is T[2], so a span of complex numbers IS the (…,2) layout).
// Non-template overloads for float and double, so a lowering can call them
// with any contiguous buffer; implemented in the compiled realify_simd library
// with a run-time choice of instruction set (realify/simd/arch.hpp). This header does not include
// xsimd: cheap headers may include it.
//
// Aliasing: `out` may be the very same range as an input (in-place), or
// disjoint from it. A partial overlap (out shifted against an input) would read
// already-written results and is refused with realify::layout_error.
// Sizes are checked: realify::shape_error names the function and the sizes.
//
// Special values: with nan_policy::fast (the default) the kernels compute the
// plain formula (ar·br − ai·bi, ar·bi + ai·br), like Eigen and like GCC with
// -fcx-limited-range: no C99 Annex G recovery, so e.g. (inf, 0)·(inf, 0) gives
// (nan, nan) where std::complex gives (inf, nan). nan_policy::strict returns
// what std::complex's operators return for inf/NaN inputs too (the kernel
// recomputes, with std::complex, the rare lanes whose result is NaN in both
// parts — exactly the lanes std::complex itself recovers). Finite results of
// both policies agree with std::complex to rounding (the kernels use FMA).
#pragma once

#include <complex>
#include <cstddef>
#include <span>

#include "realify/version.hpp"

namespace realify::simd {

/// How inf/NaN inputs are treated; see the header comment.
enum class nan_policy { fast, strict };

// out[i] = a[i] · b[i]
void mul(std::span<const std::complex<float>> a, std::span<const std::complex<float>> b,
         std::span<std::complex<float>> out, nan_policy policy = nan_policy::fast);
void mul(std::span<const std::complex<double>> a, std::span<const std::complex<double>> b,
         std::span<std::complex<double>> out, nan_policy policy = nan_policy::fast);

// out[i] = a[i] · conj(b[i])
void mul_conj(std::span<const std::complex<float>> a, std::span<const std::complex<float>> b,
              std::span<std::complex<float>> out, nan_policy policy = nan_policy::fast);
void mul_conj(std::span<const std::complex<double>> a, std::span<const std::complex<double>> b,
              std::span<std::complex<double>> out, nan_policy policy = nan_policy::fast);

// out[i] = a[i] · r[i], r real. Complex times real is computed componentwise,
// which is also what std::complex does, so there is no strict variant.
void mul_real(std::span<const std::complex<float>> a, std::span<const float> r,
              std::span<std::complex<float>> out);
void mul_real(std::span<const std::complex<double>> a, std::span<const double> r,
              std::span<std::complex<double>> out);

// out[i] = a[i] · s
void mul_scalar(std::span<const std::complex<float>> a, std::complex<float> s,
                std::span<std::complex<float>> out, nan_policy policy = nan_policy::fast);
void mul_scalar(std::span<const std::complex<double>> a, std::complex<double> s,
                std::span<std::complex<double>> out, nan_policy policy = nan_policy::fast);

// out[i] = a[i] · b[i] + c[i]  (out may alias a, b or c exactly)
void mul_add(std::span<const std::complex<float>> a, std::span<const std::complex<float>> b,
             std::span<const std::complex<float>> c, std::span<std::complex<float>> out,
             nan_policy policy = nan_policy::fast);
void mul_add(std::span<const std::complex<double>> a, std::span<const std::complex<double>> b,
             std::span<const std::complex<double>> c, std::span<std::complex<double>> out,
             nan_policy policy = nan_policy::fast);

// Row broadcast (the RoPE shape): a and out are row-major (rows × n) with
// n = row.size(); out[r·n + j] = a[r·n + j] · row[j]. a.size() must be a
// multiple of row.size() (an empty row needs an empty a). out may alias a
// exactly; it may alias row only when there is a single row.
void mul_rows(std::span<const std::complex<float>> a, std::span<const std::complex<float>> row,
              std::span<std::complex<float>> out, nan_policy policy = nan_policy::fast);
void mul_rows(std::span<const std::complex<double>> a, std::span<const std::complex<double>> row,
              std::span<std::complex<double>> out, nan_policy policy = nan_policy::fast);

// Blocked row broadcast (RoPE with one row of frequencies per position): a and
// out are row-major (blocks × repeats × n), rows is (blocks × n) with
// n = rows.size() / blocks; out[b, r, j] = a[b, r, j] · rows[b, j]. mul_rows
// is blocks = 1. blocks must divide rows.size() and blocks·n must divide
// a.size(). out may alias a exactly; it may alias rows only when repeats = 1.
// Streaming stores are chosen on the whole output's size.
void mul_block_rows(std::span<const std::complex<float>> a, std::span<const std::complex<float>> rows,
                    std::size_t blocks, std::span<std::complex<float>> out, nan_policy policy = nan_policy::fast);
void mul_block_rows(std::span<const std::complex<double>> a, std::span<const std::complex<double>> rows,
                    std::size_t blocks, std::span<std::complex<double>> out, nan_policy policy = nan_policy::fast);

}  // namespace realify::simd
