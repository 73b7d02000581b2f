// The vector vocabulary the batch forms of the element kernels are written in
// (realify/kernels/*.hpp): vec<T, A> names the batch and mask types of one
// element type and instruction set, and every operation a batch form may
// call — xsimd's math and the interleaved-pair primitives. The element-kernel
// headers never include xsimd: they only call V::…, so their batch forms are
// instantiated here, in the per-instruction-set translation units.
//
// Operators on batches (+ − · ÷, unary −, comparisons) and on masks (& | ~)
// are xsimd's and used directly.
#pragma once

#include <cstddef>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "realify/simd/kernels/primitives.hpp"

namespace realify::simd::kernels {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

template <class T, class A>
struct vec {
    using value_type = T;
    using arch = A;
    using batch = xsimd::batch<T, A>;
    using mask = xsimd::batch_bool<T, A>;
    /// Lanes per register.
    static constexpr std::size_t width = batch::size;

    static batch splat(T v) noexcept { return batch(v); }
    static mask none() noexcept { return mask(false); }
    static bool any(const mask& m) noexcept { return xsimd::any(m); }
    static batch select(const mask& m, const batch& a, const batch& b) noexcept { return xsimd::select(m, a, b); }

    // ---- classification ----
    static mask isnan(const batch& x) noexcept { return xsimd::isnan(x); }
    /// x − x is 0 exactly for finite x, NaN for inf and NaN.
    static mask isfinite(const batch& x) noexcept { return (x - x) == batch(T(0)); }
    static mask not_finite(const batch& x) noexcept { return xsimd::isnan(x - x); }
    static mask isinf(const batch& x) noexcept { return xsimd::abs(x) == batch(std::numeric_limits<T>::infinity()); }

    // ---- arithmetic ----
    static batch abs(const batch& x) noexcept { return xsimd::abs(x); }
    static batch min(const batch& x, const batch& y) noexcept { return xsimd::min(x, y); }
    static batch max(const batch& x, const batch& y) noexcept { return xsimd::max(x, y); }
    static batch copysign(const batch& x, const batch& y) noexcept { return xsimd::copysign(x, y); }
    /// x·y + z, fused where the instruction set has FMA.
    static batch fma(const batch& x, const batch& y, const batch& z) noexcept { return xsimd::fma(x, y, z); }
    /// x·y − z
    static batch fms(const batch& x, const batch& y, const batch& z) noexcept { return xsimd::fms(x, y, z); }
    /// z − x·y
    static batch fnma(const batch& x, const batch& y, const batch& z) noexcept { return xsimd::fnma(x, y, z); }
    static batch sqrt(const batch& x) noexcept { return xsimd::sqrt(x); }

    // ---- transcendental (xsimd's, accurate to a few ulp) ----
    // Flattened and always inlined: xsimd's functions are several calls
    // deep, and with hundreds of kernels per translation unit GCC's inliner
    // would leave them as calls with their registers passed through memory.
    [[gnu::always_inline, gnu::flatten]] static batch exp(const batch& x) noexcept { return xsimd::exp(x); }
    [[gnu::always_inline, gnu::flatten]] static batch expm1(const batch& x) noexcept { return xsimd::expm1(x); }
    [[gnu::always_inline, gnu::flatten]] static batch log(const batch& x) noexcept { return xsimd::log(x); }
    [[gnu::always_inline, gnu::flatten]] static batch log1p(const batch& x) noexcept { return xsimd::log1p(x); }
    [[gnu::always_inline, gnu::flatten]] static batch log2(const batch& x) noexcept { return xsimd::log2(x); }
    [[gnu::always_inline, gnu::flatten]] static batch log10(const batch& x) noexcept { return xsimd::log10(x); }
    /// e^(ix) = {cos x, sin x}. Callers keep |x| ≤ detail::trig_limit: beyond
    /// it xsimd reduces the argument with a non-template inline function,
    /// a symbol the per-instruction-set TUs would share.
    [[gnu::always_inline, gnu::flatten]] static cpair<batch> cis(const batch& x) noexcept {
        const auto sc = xsimd::sincos(x);
        return {sc.second, sc.first};
    }
    [[gnu::always_inline, gnu::flatten]] static batch sin(const batch& x) noexcept { return xsimd::sin(x); }
    [[gnu::always_inline, gnu::flatten]] static batch cos(const batch& x) noexcept { return xsimd::cos(x); }
    [[gnu::always_inline, gnu::flatten]] static batch tan(const batch& x) noexcept { return xsimd::tan(x); }
    [[gnu::always_inline, gnu::flatten]] static batch sinh(const batch& x) noexcept { return xsimd::sinh(x); }
    [[gnu::always_inline, gnu::flatten]] static batch cosh(const batch& x) noexcept { return xsimd::cosh(x); }
    [[gnu::always_inline, gnu::flatten]] static batch tanh(const batch& x) noexcept { return xsimd::tanh(x); }
    [[gnu::always_inline, gnu::flatten]] static batch asin(const batch& x) noexcept { return xsimd::asin(x); }
    [[gnu::always_inline, gnu::flatten]] static batch acos(const batch& x) noexcept { return xsimd::acos(x); }
    [[gnu::always_inline, gnu::flatten]] static batch atan(const batch& x) noexcept { return xsimd::atan(x); }
    [[gnu::always_inline, gnu::flatten]] static batch atan2(const batch& y, const batch& x) noexcept { return xsimd::atan2(y, x); }
    [[gnu::always_inline, gnu::flatten]] static batch asinh(const batch& x) noexcept { return xsimd::asinh(x); }
    [[gnu::always_inline, gnu::flatten]] static batch acosh(const batch& x) noexcept { return xsimd::acosh(x); }
    [[gnu::always_inline, gnu::flatten]] static batch atanh(const batch& x) noexcept { return xsimd::atanh(x); }
    [[gnu::always_inline, gnu::flatten]] static batch pow(const batch& x, const batch& y) noexcept { return xsimd::pow(x, y); }

    // ---- rounding ----
    // xsimd 8.1 rounds through a conversion to integers that, where the
    // instruction set has no packed double → int64 conversion (SSE2, AVX2),
    // is a scalar cast: undefined behaviour for a lane out of the integer
    // range (inf, NaN, 1e300). Such lanes — |x| ≥ 1/ε, already integers, or
    // not finite — round to themselves, so they are kept out of it.
    template <class Round>
    [[gnu::always_inline]] static batch integral_lanes_kept(const batch& x, Round round) noexcept {
        const mask integral = !(xsimd::abs(x) < batch(T(1) / std::numeric_limits<T>::epsilon()));
        return xsimd::select(integral, x, round(xsimd::select(integral, batch(T(0)), x)));
    }
    static batch ceil(const batch& x) noexcept {
        return integral_lanes_kept(x, [](const batch& v) { return xsimd::ceil(v); });
    }
    static batch floor(const batch& x) noexcept {
        return integral_lanes_kept(x, [](const batch& v) { return xsimd::floor(v); });
    }
    static batch trunc(const batch& x) noexcept {
        return integral_lanes_kept(x, [](const batch& v) { return xsimd::trunc(v); });
    }
    static batch nearbyint(const batch& x) noexcept { return xsimd::nearbyint(x); }

    // ---- interleaved pairs (realify/simd/kernels/primitives.hpp) ----
    static batch dup_real(const batch& x) noexcept { return kernels::dup_real(x, A{}); }
    static batch dup_imag(const batch& x) noexcept { return kernels::dup_imag(x, A{}); }
    static batch swap_pairs(const batch& x) noexcept { return kernels::swap_pairs(x, A{}); }
    static batch fmaddsub(const batch& x, const batch& y, const batch& z) noexcept {
        return kernels::fmaddsub(x, y, z, A{});
    }
    static batch fmsubadd(const batch& x, const batch& y, const batch& z) noexcept {
        return kernels::fmsubadd(x, y, z, A{});
    }
    /// −imaginary parts: conj of a register of pairs.
    static batch negate_imag(const batch& x) noexcept { return x ^ bit_mask<sign_odd_bits<T>, T, A>(); }
    /// The real lanes of x, v in the imaginary ones.
    static batch with_imag(const batch& x, T v) noexcept {
        return xsimd::select(xsimd::make_batch_bool_constant<batch, even_lanes>(), x, batch(v));
    }
};

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::kernels
