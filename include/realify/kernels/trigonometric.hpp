// Element kernels of the trigonometric and hyperbolic functions and their
// inverses: sin, cos, tan, sinh, cosh, tanh, asin, acos, atan, asinh, acosh,
// atanh. See kernels/element.hpp for the contract.
//
// Non-finite inputs take the C99 Annex G special-value tables, evaluated by
// the C library (a cold branch). sin, cos and tan are the hyperbolic
// functions of i·z: sin z = −i·sinh(iz), cos z = cosh(iz), tan z = −i·tanh(iz).
// The inverse functions use Kahan's forms ("Branch cuts for complex
// elementary functions", 1987): products of the principal roots sqrt(1 ± z),
// sqrt(z ± 1), then real atan2/asinh. They have no cancellation near the
// branch points or the real axis, respect signed zeros on the cuts, and acosh
// is right for Re z < 0.
#pragma once

#include <cmath>
#include <complex>
#include <concepts>
#include <limits>
#include <numbers>
#include <string_view>

#include "realify/kernels/power.hpp"

namespace realify::kernels {

namespace detail {
/// i·z and −i·z.
template <class T>
constexpr cpair<T> times_i(cpair<T> z) noexcept {
    return {negate(z.im), z.re};
}
template <class T>
constexpr cpair<T> times_minus_i(cpair<T> z) noexcept {
    return {z.im, negate(z.re)};
}
template <class T>
constexpr cpair<T> one_minus(cpair<T> z) noexcept {  // keeps the sign of a zero imaginary part
    return {T(1) - z.re, negate(z.im)};
}
template <class T>
constexpr cpair<T> one_plus(cpair<T> z) noexcept {
    return {T(1) + z.re, z.im};
}

/// Beyond this |Re z| or |Im z| the inverse functions take their asymptotic
/// forms: asinh w = ±(log(±w) + ln 2) + O(1/w²), below rounding there
/// (Kahan's products of square roots would overflow near the top of the range).
template <class T>
inline constexpr T inverse_large = sizeof(T) == sizeof(float) ? T(0x1p14) : T(0x1p29);
template <class T>
bool inverse_is_large(cpair<T> z) noexcept {
    return std::abs(z.re) > inverse_large<T> || std::abs(z.im) > inverse_large<T>;
}
/// The lanes of a batch the inverse functions' Kahan forms leave to the
/// scalar form: |Re z| or |Im z| beyond inverse_large (the asymptotic form),
/// and non-finite z.
template <class V>
[[gnu::always_inline]] inline typename V::mask inverse_outside(const cpair<typename V::batch>& z) noexcept {
    using B = typename V::batch;
    using T = typename V::value_type;
    return ~((V::abs(z.re) <= B(inverse_large<T>)) & (V::abs(z.im) <= B(inverse_large<T>)));
}

/// log(z) + ln 2 by element<op::log> (no overflow in 2z).
template <class T>
cpair<T> log_twice(cpair<T> z) noexcept;
/// asinh w for large |w|: odd in w, the sign of Re w (of a zero too) picking
/// the branch, as C99's casinh.
template <class T>
cpair<T> asinh_large(cpair<T> w) noexcept {
    const bool negative = std::signbit(w.re);
    const cpair<T> r = log_twice(negative ? cpair<T>{-w.re, -w.im} : w);
    return negative ? cpair<T>{-r.re, -r.im} : r;
}

/// {sinh x, cosh x} of a batch from one expm1: with t = e^|x| − 1,
/// sinh|x| = t(t + 2)/(2(t + 1)) (no cancellation near 0) and
/// cosh x = ((t + 1) + 1/(t + 1))/2. Lanes with |x| > exp_high or non-finite
/// x are set in `redo`.
template <class V>
[[gnu::always_inline]] inline cpair<typename V::batch> sinh_cosh(const typename V::batch& x, typename V::mask& redo) noexcept {
    using B = typename V::batch;
    using T = typename V::value_type;
    const auto out = outside<V>(V::abs(x), T(0), exp_high<T>);
    redo = redo | out;
    const B t = V::expm1(V::select(out, B(T(0)), V::abs(x)));
    const B inv = B(T(1)) / (t + B(T(1)));
    const B half(T(0.5));
    return {V::copysign(half * V::fma(t, inv, t), x), half * (t + B(T(1)) + inv)};
}
/// e^(iy) of a batch, lanes with |y| beyond trig_limit (or non-finite) set
/// in `redo`.
template <class V>
[[gnu::always_inline]] inline cpair<typename V::batch> cis_checked(const typename V::batch& y, typename V::mask& redo) noexcept {
    using B = typename V::batch;
    using T = typename V::value_type;
    const auto out = outside<V>(V::abs(y), T(0), trig_limit<T>);
    redo = redo | out;
    return V::cis(V::select(out, B(T(0)), y));
}

/// The real batch form of f for |x| in [lo, hi] or x = 0 (signed zeros kept
/// by f); the other lanes (NaN included) go to the scalar form.
template <class V, class F>
[[gnu::always_inline]] inline typename V::batch real_batch_around_zero(typename V::batch x, typename V::value_type lo, typename V::value_type hi,
                                         typename V::mask& redo, F f) noexcept {
    using B = typename V::batch;
    using T = typename V::value_type;
    const auto out = outside<V>(V::abs(x), lo, hi) & ~(x == B(T(0)));
    redo = redo | out;
    return f(V::select(out, B(T(0)), x));
}
}  // namespace detail

template <class T>
cpair<T> detail::log_twice(cpair<T> z) noexcept {
    const cpair<T> l = element<op::log>{}(z);
    return {l.re + std::numbers::ln2_v<T>, l.im};
}

template <>
struct element<op::sinh> {
    static constexpr std::string_view formula = "sinh a·cos b + i·cosh a·sin b (scaled beyond e^a overflow)";
    static constexpr std::string_view real_formula = "sinh x on real tensors";
    /// sinh x·cos y + i·cosh x·sin y. Beyond e^|x| overflow cosh x ≈ |sinh x|
    /// ≈ e^|x|/2 is infinite although its product with cos y or sin y may not
    /// be: e^|x|·(cos y, sin y)/2 without overflow or underflow in between
    /// (sinh(100 + 1.4e-45i) has imaginary part 0.0188 in float).
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::sinh(w); });
        if (z.im == T(0)) return {std::sinh(z.re), z.im};
        const T ax = std::abs(z.re);
        if (ax > detail::exp_high<T>)
            return {std::copysign(T(1), z.re) * detail::exp_times(ax, std::cos(z.im), true),
                    detail::exp_times(ax, std::sin(z.im), true)};
        return {std::sinh(z.re) * std::cos(z.im), std::cosh(z.re) * std::sin(z.im)};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::sinh(x);
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        const auto h = detail::sinh_cosh<V>(z.re, redo);
        const auto c = detail::cis_checked<V>(z.im, redo);
        return {h.re * c.re, h.im * c.im};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        return detail::sinh_cosh<V>(x, redo).re;
    }
};

template <>
struct element<op::cosh> {
    static constexpr std::string_view formula = "cosh a·cos b + i·sinh a·sin b (scaled beyond e^a overflow)";
    static constexpr std::string_view real_formula = "cosh x on real tensors";
    /// cosh x·cos y + i·sinh x·sin y; beyond e^|x| overflow as sinh.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::cosh(w); });
        if (z.im == T(0)) return {std::cosh(z.re), std::copysign(T(0), z.re) * z.im};
        const T ax = std::abs(z.re);
        if (ax > detail::exp_high<T>)
            return {detail::exp_times(ax, std::cos(z.im), true),
                    std::copysign(T(1), z.re) * detail::exp_times(ax, std::sin(z.im), true)};
        return {std::cosh(z.re) * std::cos(z.im), std::sinh(z.re) * std::sin(z.im)};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::cosh(x);
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        const auto h = detail::sinh_cosh<V>(z.re, redo);
        const auto c = detail::cis_checked<V>(z.im, redo);
        return {h.im * c.re, h.re * c.im};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        return detail::sinh_cosh<V>(x, redo).im;
    }
};

template <>
struct element<op::tanh> {
    static constexpr std::string_view formula = "Kahan: t = tan b, s = sinh a, β = 1 + t²: (β·√(1+s²)·s + i·t)/(1 + "
                                                "β·s²)";
    static constexpr std::string_view real_formula = "tanh x on real tensors";
    /// Kahan's tanh: t = tan y, s = sinh x, β = 1 + t²:
    /// (β·√(1+s²)·s + i·t) / (1 + β·s²); exact limits for large |x|, no inf/inf.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::tanh(w); });
        // Beyond this |x|, tanh(x) rounds to ±1 and the imaginary part is 4·sin y·cos y·e^(−2|x|).
        constexpr T limit = T(std::numeric_limits<T>::digits) * std::numbers::ln2_v<T> / T(2) + T(1);
        if (std::abs(z.re) > limit) {
            const T e = std::exp(T(-2) * std::abs(z.re));
            return {std::copysign(T(1), z.re), T(4) * std::sin(z.im) * std::cos(z.im) * e};
        }
        const T t = std::tan(z.im);
        const T beta = T(1) + t * t;
        const T s = std::sinh(z.re);
        const T rho = std::sqrt(T(1) + s * s);
        const T den = T(1) + beta * s * s;
        return {beta * rho * s / den, t / den};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::tanh(x);
    }

    /// Kahan's formula with tan y = sin y / cos y; the large-|x| limit as in
    /// the scalar form (computed only when a register has such a lane).
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        constexpr T limit = T(std::numeric_limits<T>::digits) * std::numbers::ln2_v<T> / T(2) + T(1);
        const auto c = detail::cis_checked<V>(z.im, redo);
        const B ax = V::abs(z.re);
        const auto large = ax > B(limit);
        redo = redo | V::not_finite(z.re);
        const B x = V::select(large, B(T(0)), z.re);
        // sinh x = t(t + 2)/(2(t + 1)), t = e^|x| − 1
        const B t = V::expm1(V::abs(x));
        const B s = V::copysign(B(T(0.5)) * t * (t + B(T(2))) / (t + B(T(1))), x);
        const B tan_y = c.im / c.re;
        const B beta = V::fma(tan_y, tan_y, B(T(1)));
        const B s2 = s * s;
        const B rho = V::sqrt(s2 + B(T(1)));
        const B inv_den = B(T(1)) / V::fma(beta, s2, B(T(1)));
        B re = beta * rho * s * inv_den, im = tan_y * inv_den;
        if (V::any(large)) {
            const B e = V::exp(B(T(-2)) * V::select(large, ax, B(T(0))));
            re = V::select(large, V::copysign(B(T(1)), z.re), re);
            im = V::select(large, B(T(4)) * c.im * c.re * e, im);
        }
        return {re, im};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::real_batch_around_zero<V>(x, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), redo,
                                                 [](const auto& v) { return V::tanh(v); });
    }
};

template <>
struct element<op::sin> {
    static constexpr std::string_view formula = "sin a·cosh b + i·cos a·sinh b";
    static constexpr std::string_view real_formula = "sin x on real tensors";
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::sin(w); });
        return detail::times_minus_i(element<op::sinh>{}(detail::times_i(z)));
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::sin(x);
    }

    /// sin x·cosh y + i·cos x·sinh y
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        const auto c = detail::cis_checked<V>(z.re, redo);
        const auto h = detail::sinh_cosh<V>(z.im, redo);
        return {c.im * h.im, c.re * h.re};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::real_batch_around_zero<V>(x, std::numeric_limits<T>::min(), detail::trig_limit<T>, redo,
                                                 [](const auto& v) { return V::sin(v); });
    }
};

template <>
struct element<op::cos> {
    static constexpr std::string_view formula = "cos a·cosh b − i·sin a·sinh b";
    static constexpr std::string_view real_formula = "cos x on real tensors";
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::cos(w); });
        return element<op::cosh>{}(detail::times_i(z));
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::cos(x);
    }

    /// cos x·cosh y − i·sin x·sinh y
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        const auto c = detail::cis_checked<V>(z.re, redo);
        const auto h = detail::sinh_cosh<V>(z.im, redo);
        return {c.re * h.im, negate(c.im * h.re)};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::real_batch_around_zero<V>(x, std::numeric_limits<T>::min(), detail::trig_limit<T>, redo,
                                                 [](const auto& v) { return V::cos(v); });
    }
};

template <>
struct element<op::tan> {
    static constexpr std::string_view formula = "−i·tanh(i·z)";
    static constexpr std::string_view real_formula = "tan x on real tensors";
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::tan(w); });
        return detail::times_minus_i(element<op::tanh>{}(detail::times_i(z)));
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::tan(x);
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        return detail::times_minus_i(element<op::tanh>::simd<V>(detail::times_i(z), redo));
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::real_batch_around_zero<V>(x, std::numeric_limits<T>::min(), detail::trig_limit<T>, redo,
                                                 [](const auto& v) { return V::tan(v); });
    }
};

template <>
struct element<op::asin> {
    static constexpr std::string_view formula = "atan2(a, Re(√(1−z)·√(1+z))) + i·asinh(Im(conj(√(1−z))·√(1+z)))";
    static constexpr std::string_view real_formula = "asin x on real tensors";
    /// atan2(x, Re(√(1−z)·√(1+z))) + i·asinh(Im(conj(√(1−z))·√(1+z))); for
    /// large |z| −i·asinh(iz) by the asymptotic form.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::asin(w); });
        if (detail::inverse_is_large(z)) return detail::times_minus_i(detail::asinh_large(detail::times_i(z)));
        const element<op::sqrt> sqrt;
        const cpair<T> a = sqrt(detail::one_minus(z)), b = sqrt(detail::one_plus(z));
        return {std::atan2(z.re, a.re * b.re - a.im * b.im), std::asinh(a.re * b.im - a.im * b.re)};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::asin(x);
    }

    /// Kahan's form on the batch square roots; large |z| and the square
    /// roots' own out-of-range lanes to the scalar form.
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z,
                                                                typename V::mask& redo) noexcept {
        redo = redo | detail::inverse_outside<V>(z);
        const auto a = element<op::sqrt>::simd<V>(detail::one_minus(z), redo);
        const auto b = element<op::sqrt>::simd<V>(detail::one_plus(z), redo);
        return {V::atan2(z.re, V::fms(a.re, b.re, a.im * b.im)), V::asinh(V::fms(a.re, b.im, a.im * b.re))};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::real_batch_around_zero<V>(x, std::numeric_limits<T>::min(), T(1), redo,
                                                 [](const auto& v) { return V::asin(v); });
    }
};

template <>
struct element<op::acos> {
    static constexpr std::string_view formula = "2·atan2(Re √(1−z), Re √(1+z)) + i·asinh(Im(conj(√(1+z))·√(1−z)))";
    static constexpr std::string_view real_formula = "acos x on real tensors";
    /// 2·atan2(Re √(1−z), Re √(1+z)) + i·asinh(Im(conj(√(1+z))·√(1−z))); for
    /// large |z| π/2 − asin z.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::acos(w); });
        if (detail::inverse_is_large(z)) {
            const cpair<T> a = element<op::asin>{}(z);
            return {std::numbers::pi_v<T> / T(2) - a.re, -a.im};
        }
        const element<op::sqrt> sqrt;
        const cpair<T> a = sqrt(detail::one_minus(z)), b = sqrt(detail::one_plus(z));
        return {T(2) * std::atan2(a.re, b.re), std::asinh(b.re * a.im - b.im * a.re)};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::acos(x);
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z,
                                                                typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        redo = redo | detail::inverse_outside<V>(z);
        const auto a = element<op::sqrt>::simd<V>(detail::one_minus(z), redo);
        const auto b = element<op::sqrt>::simd<V>(detail::one_plus(z), redo);
        return {B(T(2)) * V::atan2(a.re, b.re), V::asinh(V::fms(b.re, a.im, b.im * a.re))};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const auto out = detail::outside<V>(V::abs(x), T(0), T(1));
        redo = redo | out;
        return V::acos(V::select(out, B(T(0)), x));
    }
};

template <>
struct element<op::asinh> {
    static constexpr std::string_view formula = "−i·asin(i·z)";
    static constexpr std::string_view real_formula = "asinh x on real tensors";
    /// −i·asin(iz).
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        return detail::times_minus_i(element<op::asin>{}(detail::times_i(z)));
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::asinh(x);
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z,
                                                                typename V::mask& redo) noexcept {
        return detail::times_minus_i(element<op::asin>::simd<V>(detail::times_i(z), redo));
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::real_batch_around_zero<V>(x, std::numeric_limits<T>::min(), detail::safe_big<T>, redo,
                                                 [](const auto& v) { return V::asinh(v); });
    }
};

template <>
struct element<op::acosh> {
    static constexpr std::string_view formula = "asinh(Re(conj(√(z−1))·√(z+1))) + 2i·atan2(Im √(z−1), Re √(z+1)) (= "
                                                "log(z + √(z+1)·√(z−1)))";
    static constexpr std::string_view real_formula = "acosh x on real tensors";
    /// asinh(Re(conj(√(z−1))·√(z+1))) + 2i·atan2(Im √(z−1), Re √(z+1)): the
    /// principal roots of log(z + √(z+1)·√(z−1)), without its cancellation;
    /// for large |z| log(z) + ln 2.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::acosh(w); });
        if (detail::inverse_is_large(z)) return detail::log_twice(z);
        const element<op::sqrt> sqrt;
        const cpair<T> a = sqrt(cpair<T>{z.re - T(1), z.im}), b = sqrt(detail::one_plus(z));
        return {std::asinh(a.re * b.re + a.im * b.im), T(2) * std::atan2(a.im, b.re)};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::acosh(x);
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z,
                                                                typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        redo = redo | detail::inverse_outside<V>(z);
        const auto a = element<op::sqrt>::simd<V>({z.re - B(T(1)), z.im}, redo);
        const auto b = element<op::sqrt>::simd<V>(detail::one_plus(z), redo);
        return {V::asinh(V::fma(a.re, b.re, a.im * b.im)), B(T(2)) * V::atan2(a.im, b.re)};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const auto out = detail::outside<V>(x, T(1), detail::safe_big<T>);
        redo = redo | out;
        return V::acosh(V::select(out, B(T(1)), x));
    }
};

template <>
struct element<op::atanh> {
    static constexpr std::string_view formula = "¼·log1p(4a/((1−a)² + b²)) + ½i·atan2(2b, (1−a)(1+a) − b²)";
    static constexpr std::string_view real_formula = "atanh x on real tensors";
    /// ¼·log1p(4x / ((1−x)² + y²)) + ½·i·atan2(2y, (1−x)(1+x) − y²); for huge
    /// |z|, Re = x/|z|² (scaled) and Im = ±π/2.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::atanh(w); });
        const T x = z.re, y = z.im;
        // Beyond sqrt(max)/4, d below would overflow; there Re = x/|z|² to within 1/|z|.
        const T big = std::sqrt(std::numeric_limits<T>::max()) / T(4);
        if (std::abs(x) > big || std::abs(y) > big) {
            const T h = std::hypot(x, y);
            return {(x / h) / h, std::copysign(std::numbers::pi_v<T> / T(2), y)};
        }
        const T one_minus = T(1) - x;
        const T d = one_minus * one_minus + y * y;
        // Where 4x/d is small the log1p form avoids cancellation; elsewhere
        // (near ±1, where d may underflow or 1 + 4x/d cancels) the difference
        // of two logs of well-separated magnitudes has none to fear.
        const T re = (std::abs(T(4) * x) < T(0.5) * d)
                         ? T(0.25) * std::log1p(T(4) * x / d)
                         : T(0.5) * (std::log(std::hypot(T(1) + x, y)) - std::log(std::hypot(one_minus, y)));
        const T im = T(0.5) * std::atan2(T(2) * y, one_minus * (T(1) + x) - y * y);
        return {re, im};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::atanh(x);
    }

    /// The scalar form's formulas for |x|, |y| ≤ safe_big and z away from
    /// ±1 (where (1 ∓ x)² + y² underflows); the log-difference form computed
    /// only when a register has a lane that needs it.
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z,
                                                                typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const B x = z.re, y = z.im;
        const B one(T(1)), one_minus = one - x, one_plus = one + x;
        const B yy = y * y;
        const B d = V::fma(one_minus, one_minus, yy), e = V::fma(one_plus, one_plus, yy);
        constexpr T tiny = detail::safe_small<T> * detail::safe_small<T>;
        redo = redo | ~((V::abs(x) <= B(detail::safe_big<T>)) & (V::abs(y) <= B(detail::safe_big<T>))) |
               (d < B(tiny)) | (e < B(tiny));
        const B four_x = B(T(4)) * x;
        const auto small = V::abs(four_x) < B(T(0.5)) * d;
        B re = B(T(0.25)) * V::log1p(four_x / d);
        if (V::any(~small)) re = V::select(small, re, B(T(0.25)) * (V::log(e) - V::log(d)));
        // Re atanh z has the sign of x, a zero's included (xsimd's log1p(−0) is +0)
        return {V::copysign(re, x), B(T(0.5)) * V::atan2(B(T(2)) * y, V::fms(one_minus, one_plus, yy))};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::real_batch_around_zero<V>(x, std::numeric_limits<T>::min(),
                                                 T(1) - std::numeric_limits<T>::epsilon(), redo,
                                                 [](const auto& v) { return V::atanh(v); });
    }
};

template <>
struct element<op::atan> {
    static constexpr std::string_view formula = "−i·atanh(i·z)";
    static constexpr std::string_view real_formula = "atan x on real tensors";
    /// −i·atanh(iz).
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        return detail::times_minus_i(element<op::atanh>{}(detail::times_i(z)));
    }
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z,
                                                                typename V::mask& redo) noexcept {
        return detail::times_minus_i(element<op::atanh>::simd<V>(detail::times_i(z), redo));
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::real_batch_around_zero<V>(x, std::numeric_limits<T>::min(), detail::safe_big<T>, redo,
                                                 [](const auto& v) { return V::atan(v); });
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::atan(x);
    }
};

}  // namespace realify::kernels
