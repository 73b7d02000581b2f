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

#include <cmath>
#include <cstddef>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "primitives.hpp"
#include "realify/kernels/element.hpp"

namespace realify::simd::isa {
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
    /// x·y + z, fused where the instruction set has FMA (AVX-512F included:
    /// the primitive, not xsimd 8.1's, which rounds twice there).
    static batch fma(const batch& x, const batch& y, const batch& z) noexcept { return isa::fma(x, y, z, A{}); }
    /// x·y − z
    static batch fms(const batch& x, const batch& y, const batch& z) noexcept { return isa::fms(x, y, z, A{}); }
    /// z − x·y
    static batch fnma(const batch& x, const batch& y, const batch& z) noexcept { return isa::fnma(x, y, z, A{}); }
    static batch sqrt(const batch& x) noexcept { return xsimd::sqrt(x); }

    // ---- transcendental (xsimd's, accurate to a few ulp) ----
    // Flattened and always inlined: xsimd's functions are several calls
    // deep, and with hundreds of kernels per translation unit GCC's inliner
    // would leave them as calls with their registers passed through memory.
    //
    // xsimd 8.1's exponentials, trigonometric functions and pow convert a
    // multiple of the argument to an integer; where the instruction set has no
    // packed double → int64 conversion (SSE2, AVX2) that is a scalar cast,
    // undefined behaviour for a NaN, infinite or huge lane. Such lanes (rare;
    // the kernels redo most of them anyway) are computed by the std::
    // function instead (std_lanes), every other lane by xsimd's as before.
    /// Beyond it exp and the hyperbolic functions have overflowed or settled.
    static constexpr T exp_domain = T(1000);
    [[gnu::always_inline, gnu::flatten]] static batch exp(const batch& x) noexcept {
        return bounded(x, exp_domain, [](const batch& v) { return xsimd::exp(v); }, [](T v) { return std::exp(v); });
    }
    [[gnu::always_inline, gnu::flatten]] static batch expm1(const batch& x) noexcept {
        return bounded(x, exp_domain, [](const batch& v) { return xsimd::expm1(v); }, [](T v) { return std::expm1(v); });
    }
    [[gnu::always_inline, gnu::flatten]] static batch log(const batch& x) noexcept { return xsimd::log(x); }
    [[gnu::always_inline, gnu::flatten]] static batch log1p(const batch& x) noexcept { return xsimd::log1p(x); }
    [[gnu::always_inline, gnu::flatten]] static batch log2(const batch& x) noexcept { return xsimd::log2(x); }
    [[gnu::always_inline, gnu::flatten]] static batch log10(const batch& x) noexcept { return xsimd::log10(x); }
    /// e^(ix) = {cos x, sin x}. Callers keep finite |x| ≤ detail::trig_limit:
    /// beyond it xsimd reduces the argument with a non-template inline
    /// function, a symbol the per-instruction-set TUs would share.
    [[gnu::always_inline, gnu::flatten]] static cpair<batch> cis(const batch& x) noexcept {
        const mask wild = !(xsimd::abs(x) <= batch(::realify::kernels::detail::trig_limit<T>));
        auto sincos = [](const batch& v) { return xsimd::sincos(v); };
        if (!xsimd::any(wild)) [[likely]] {
            const auto sc = sincos(x);
            return {sc.second, sc.first};
        }
        return {std_lanes(wild, x, [&](const batch& v) { return sincos(v).second; }, [](T v) { return std::cos(v); }),
                std_lanes(wild, x, [&](const batch& v) { return sincos(v).first; }, [](T v) { return std::sin(v); })};
    }
    [[gnu::always_inline, gnu::flatten]] static batch sin(const batch& x) noexcept {
        return bounded(x, ::realify::kernels::detail::trig_limit<T>, [](const batch& v) { return xsimd::sin(v); }, [](T v) { return std::sin(v); });
    }
    [[gnu::always_inline, gnu::flatten]] static batch cos(const batch& x) noexcept {
        return bounded(x, ::realify::kernels::detail::trig_limit<T>, [](const batch& v) { return xsimd::cos(v); }, [](T v) { return std::cos(v); });
    }
    [[gnu::always_inline, gnu::flatten]] static batch tan(const batch& x) noexcept {
        return bounded(x, ::realify::kernels::detail::trig_limit<T>, [](const batch& v) { return xsimd::tan(v); }, [](T v) { return std::tan(v); });
    }
    [[gnu::always_inline, gnu::flatten]] static batch sinh(const batch& x) noexcept {
        return bounded(x, exp_domain, [](const batch& v) { return xsimd::sinh(v); }, [](T v) { return std::sinh(v); });
    }
    [[gnu::always_inline, gnu::flatten]] static batch cosh(const batch& x) noexcept {
        return bounded(x, exp_domain, [](const batch& v) { return xsimd::cosh(v); }, [](T v) { return std::cosh(v); });
    }
    [[gnu::always_inline, gnu::flatten]] static batch tanh(const batch& x) noexcept {
        return bounded(x, exp_domain, [](const batch& v) { return xsimd::tanh(v); }, [](T v) { return std::tanh(v); });
    }
    [[gnu::always_inline, gnu::flatten]] static batch asin(const batch& x) noexcept { return xsimd::asin(x); }
    [[gnu::always_inline, gnu::flatten]] static batch acos(const batch& x) noexcept { return xsimd::acos(x); }
    [[gnu::always_inline, gnu::flatten]] static batch atan(const batch& x) noexcept { return xsimd::atan(x); }
    [[gnu::always_inline, gnu::flatten]] static batch atan2(const batch& y, const batch& x) noexcept { return xsimd::atan2(y, x); }
    /// erf and erfc; callers keep |x| within detail::erf_limit (xsimd's
    /// erfc takes e^(−x²), whose huge arguments meet the integer conversion).
    [[gnu::always_inline, gnu::flatten]] static batch erf(const batch& x) noexcept { return xsimd::erf(x); }
    [[gnu::always_inline, gnu::flatten]] static batch erfc(const batch& x) noexcept { return xsimd::erfc(x); }
    [[gnu::always_inline, gnu::flatten]] static batch asinh(const batch& x) noexcept { return xsimd::asinh(x); }
    [[gnu::always_inline, gnu::flatten]] static batch acosh(const batch& x) noexcept { return xsimd::acosh(x); }
    [[gnu::always_inline, gnu::flatten]] static batch atanh(const batch& x) noexcept { return xsimd::atanh(x); }
    /// x^y = exp(y·log|x|) in xsimd, which also tests y for an integer by
    /// truncation: lanes with a non-finite x or |y| > 1e15 take std::pow.
    [[gnu::always_inline, gnu::flatten]] static batch pow(const batch& x, const batch& y) noexcept {
        const mask wild = ~(xsimd::abs(x) <= batch(std::numeric_limits<T>::max())) | ~(xsimd::abs(y) <= batch(T(1e15)));
        if (!xsimd::any(wild)) [[likely]] return xsimd::pow(x, y);
        alignas(64) T ys[width];
        y.store_aligned(ys);
        const batch safe_y = xsimd::select(wild, batch(T(1)), y);
        std::size_t lane = 0;  // std_lanes visits the wild lanes in order
        return std_lanes(wild, x, [&](const batch& v) { return xsimd::pow(v, safe_y); },
                         [&](T v) { return std::pow(v, ys[lane]); }, [&](std::size_t i) { lane = i; });
    }

    /// f(x), with the lanes outside [−bound, bound] (and NaN) by the scalar std:: form.
    template <class Simd, class Scalar>
    [[gnu::always_inline]] static batch bounded(const batch& x, T bound, Simd simd, Scalar scalar) noexcept {
        const mask wild = !(xsimd::abs(x) <= batch(bound));
        if (!xsimd::any(wild)) [[likely]] return simd(x);
        return std_lanes(wild, x, simd, scalar);
    }
    /// simd on x with the wild lanes replaced by 1, then scalar on the wild
    /// lanes of x (visit(i) is told each such lane first).
    template <class Simd, class Scalar, class Visit = void (*)(std::size_t)>
    [[gnu::noinline, gnu::cold]] static batch std_lanes(const mask& wild, const batch& x, Simd simd, Scalar scalar,
                                                        Visit visit = [](std::size_t) {}) noexcept {
        alignas(64) T in[width];
        alignas(64) T out[width];
        alignas(64) T flagged[width];
        x.store_aligned(in);
        simd(xsimd::select(wild, batch(T(1)), x)).store_aligned(out);
        xsimd::select(wild, batch(T(1)), batch(T(0))).store_aligned(flagged);
        for (std::size_t i = 0; i < width; ++i) {
            if (flagged[i] == T(0)) continue;
            visit(i);
            out[i] = scalar(in[i]);
        }
        return batch::load_aligned(out);
    }

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

    // ---- interleaved pairs (primitives.hpp) ----
    static batch dup_real(const batch& x) noexcept { return isa::dup_real(x, A{}); }
    static batch dup_imag(const batch& x) noexcept { return isa::dup_imag(x, A{}); }
    static batch swap_pairs(const batch& x) noexcept { return isa::swap_pairs(x, A{}); }
    static batch fmaddsub(const batch& x, const batch& y, const batch& z) noexcept {
        return isa::fmaddsub(x, y, z, A{});
    }
    static batch fmsubadd(const batch& x, const batch& y, const batch& z) noexcept {
        return isa::fmsubadd(x, y, z, A{});
    }
    /// −imaginary parts: conj of a register of pairs.
    static batch negate_imag(const batch& x) noexcept { return x ^ bit_mask<sign_odd_bits<T>, T, A>(); }
    /// The real lanes of x, v in the imaginary ones.
    static batch with_imag(const batch& x, T v) noexcept {
        return xsimd::select(xsimd::make_batch_bool_constant<batch, even_lanes>(), x, batch(v));
    }
};

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::isa
