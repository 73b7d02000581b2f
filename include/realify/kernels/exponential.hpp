// Element kernels of the exponentials and logarithms: exp, expm1, log, log2,
// log10, log1p. See kernels/element.hpp for the contract.
//
// Non-finite inputs take the C99 Annex G special-value tables, evaluated by
// the C library (a cold branch): what std::complex and PyTorch's scalar
// kernels return. log1p/expm1 stay accurate near 0, log near z = 1; exp's
// parts stay finite where e^x overflows but e^x·cos y or e^x·sin y does not;
// log of subnormal and near-overflow z scales z by a power of two first.
#pragma once

#include <cmath>
#include <complex>
#include <concepts>
#include <limits>
#include <numbers>
#include <string_view>

#include "realify/kernels/element.hpp"

namespace realify::kernels {

namespace detail {

/// The real batch form of a real function f, redoing the lanes outside
/// [lo, hi] (NaN included) with the scalar form.
template <class V, class F>
[[gnu::always_inline]] inline typename V::batch real_batch(typename V::batch x, typename V::value_type lo, typename V::value_type hi,
                             typename V::mask& redo, F f) noexcept {
    using B = typename V::batch;
    const auto out = outside<V>(x, lo, hi);
    redo = redo | out;
    return f(V::select(out, B(typename V::value_type(1)), x));
}

}  // namespace detail

template <>
struct element<op::exp> {
    static constexpr std::string_view formula = "e^a·cos b + i·e^a·sin b";
    static constexpr std::string_view real_formula = "e^x on real tensors";
    /// e^x·cos y + i·e^x·sin y.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::exp(w); });
        if (z.im == T(0)) return {std::exp(z.re), z.im};  // exp(x ± 0i) is e^x ± 0i
        if (z.re > detail::exp_high<T>)
            return {detail::exp_times(z.re, std::cos(z.im), false), detail::exp_times(z.re, std::sin(z.im), false)};
        const T e = std::exp(z.re);
        return {e * std::cos(z.im), e * std::sin(z.im)};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::exp(x);
    }

    /// Lanes with e^x normal and y within the accurate sine/cosine range.
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const auto out = detail::outside<V>(z.re, detail::exp_low<T>, detail::exp_high<T>) |
                         detail::outside<V>(V::abs(z.im), T(0), detail::trig_limit<T>);
        redo = redo | out;
        const B e = V::exp(V::select(out, B(T(0)), z.re));
        const cpair<B> c = V::cis(V::select(out, B(T(0)), z.im));
        return {e * c.re, e * c.im};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::real_batch<V>(x, detail::exp_low<T>, detail::exp_high<T>, redo,
                                     [](const auto& v) { return V::exp(v); });
    }
};

template <>
struct element<op::expm1> {
    static constexpr std::string_view formula = "(expm1(a)·cos b − 2·sin²(b/2)) + i·e^a·sin b";
    static constexpr std::string_view real_formula = "e^x − 1 on real tensors";
    /// exp(z) − 1 without cancellation: Re = expm1(x)·cos y − 2·sin²(y/2).
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]]
            return detail::annex_g(z, [](auto w) { return std::exp(w) - decltype(w)(1); });
        if (z.im == T(0)) return {std::expm1(z.re), z.im};
        if (z.re > detail::exp_high<T>)  // the −1 vanishes next to e^x
            return {detail::exp_times(z.re, std::cos(z.im), false) - T(1),
                    detail::exp_times(z.re, std::sin(z.im), false)};
        const T half_sin = std::sin(z.im / T(2));
        return {std::expm1(z.re) * std::cos(z.im) - T(2) * half_sin * half_sin, std::exp(z.re) * std::sin(z.im)};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::expm1(x);
    }

    /// With s, c = sin(y/2), cos(y/2): sin y = 2sc, cos y = 1 − 2s², so one
    /// sine/cosine and one expm1 per lane. Below twice the smallest normal,
    /// y/2 is a subnormal that may round (323 units halve to 162), so there
    /// sin y is y itself (exact: sin y rounds to y far above that).
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const auto out = detail::outside<V>(z.re, detail::exp_low<T>, detail::exp_high<T>) |
                         detail::outside<V>(V::abs(z.im), T(0), detail::trig_limit<T>);
        redo = redo | out;
        const B em1 = V::expm1(V::select(out, B(T(0)), z.re));
        const B y = V::select(out, B(T(0)), z.im);
        const cpair<B> h = V::cis(y * B(T(0.5)));
        const B two_s2 = B(T(2)) * h.im * h.im;
        const B cos_y = B(T(1)) - two_s2;
        const B sin_y = V::select(V::abs(y) < B(T(2) * std::numeric_limits<T>::min()), y, B(T(2)) * h.im * h.re);
        return {V::fms(em1, cos_y, two_s2), (em1 + B(T(1))) * sin_y};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const B r = detail::real_batch<V>(x, detail::exp_low<T>, detail::exp_high<T>, redo,
                                          [](const auto& v) { return V::expm1(v); });
        return V::select(x == B(T(0)), x, r);  // expm1(±0) is ±0; xsimd's batch gives +0 for −0
    }
};

template <>
struct element<op::log> {
    static constexpr std::string_view formula = "log|z| + i·atan2(b, a); ½·log1p((m−1)(m+1) + n²) near |z| = 1";
    static constexpr std::string_view real_formula = "ln x on real tensors";
    /// log|z| + i·arg z. Near |z| = 1, log|z| = ½·log1p((m−1)(m+1) + n²) with
    /// m, n the larger and smaller magnitude: no cancellation. Tiny and huge z
    /// are scaled by 2^k first: log|z| = log|2^k·z| − k·ln 2.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        const T im = std::atan2(z.im, z.re);
        cpair<T> w = z;
        const int k = detail::finite(z) ? detail::normalize(w) : 0;
        const T m = std::fmax(std::abs(w.re), std::abs(w.im));
        const T n = std::fmin(std::abs(w.re), std::abs(w.im));
        if (detail::finite(z) && k == 0 && m > T(0.5) && m < T(2) && n < T(1))
            return {T(0.5) * std::log1p((m - T(1)) * (m + T(1)) + n * n), im};
        return {std::log(std::hypot(w.re, w.im)) - T(k) * std::numbers::ln2_v<T>, im};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::log(x);
    }

    /// ½·log(x² + y²) for |x| + |y| in the safe range; lanes within 1/32
    /// (float) or 1/1024 (double) of z = 1, where that loses accuracy next
    /// to the small result, use the log1p form (computed only when a
    /// register has such a lane).
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const B ax = V::abs(z.re), ay = V::abs(z.im);
        redo = redo | detail::outside<V>(ax + ay, detail::safe_small<T>, detail::safe_big<T>);
        B re = B(T(0.5)) * V::log(V::fma(z.re, z.re, z.im * z.im));
        constexpr T near = sizeof(T) == sizeof(float) ? T(0x1p-5) : T(0x1p-10);
        const auto near_one = (V::abs(z.re - B(T(1))) + ay) < B(near);
        if (V::any(near_one)) {
            const B m = V::max(ax, ay), n = V::min(ax, ay);
            const B u = V::fma(m - B(T(1)), m + B(T(1)), n * n);
            re = V::select(near_one, B(T(0.5)) * V::log1p(u), re);
        }
        return {re, V::atan2(z.im, z.re)};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::real_batch<V>(x, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), redo,
                                     [](const auto& v) { return V::log(v); });
    }
};

namespace detail {
/// log(z) / ln b, for log2 (b = 2) and log10 (b = 10).
template <class Base>
struct log_base {
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        const cpair<T> l = element<op::log>{}(z);
        return {l.re / Base::template ln<T>, l.im / Base::template ln<T>};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return Base::real(x);
    }
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const cpair<B> l = element<op::log>::simd<V>(z, redo);
        return {l.re / B(Base::template ln<T>), l.im / B(Base::template ln<T>)};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return real_batch<V>(x, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), redo,
                             [](const auto& v) { return Base::template real_batch<V>(v); });
    }
};
struct base2 {
    template <class T>
    static constexpr T ln = std::numbers::ln2_v<T>;
    template <class T>
    static T real(T x) noexcept { return std::log2(x); }
    template <class V>
    [[gnu::always_inline]] static typename V::batch real_batch(const typename V::batch& x) noexcept { return V::log2(x); }
};
struct base10 {
    template <class T>
    static constexpr T ln = std::numbers::ln10_v<T>;
    template <class T>
    static T real(T x) noexcept { return std::log10(x); }
    template <class V>
    [[gnu::always_inline]] static typename V::batch real_batch(const typename V::batch& x) noexcept { return V::log10(x); }
};
}  // namespace detail

template <>
struct element<op::log2> : detail::log_base<detail::base2> {
    static constexpr std::string_view formula = "log(z) / ln 2";
    static constexpr std::string_view real_formula = "log₂ x on real tensors";
};
template <>
struct element<op::log10> : detail::log_base<detail::base10> {
    static constexpr std::string_view formula = "log(z) / ln 10";
    static constexpr std::string_view real_formula = "log₁₀ x on real tensors";
};

template <>
struct element<op::log1p> {
    static constexpr std::string_view formula = "½·log1p(a(a+2) + b²) + i·atan2(b, 1 + a) for |z| < ½, else log(1 + z)";
    static constexpr std::string_view real_formula = "ln(1 + x) on real tensors";
    /// log(1 + z): ½·log1p(x(x+2) + y²) + i·atan2(y, 1+x) for small |z|,
    /// element<op::log>(1 + z) otherwise.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        const T theta = std::atan2(z.im, z.re + T(1));
        if (std::hypot(z.re, z.im) < T(0.5)) {
            const T r = z.re * (T(2) + z.re) + z.im * z.im;
            if (r == T(0)) return {z.re, theta};  // underflow: log1p(z) ≈ z
            return {T(0.5) * std::log1p(r), theta};
        }
        return {element<op::log>{}(cpair<T>{z.re + T(1), z.im}).re, theta};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::log1p(x);
    }

    /// ½·log1p(x(x+2) + y²) everywhere in the safe range, except within ½ of
    /// z = −1, where that sum cancels: ½·log((1+x)² + y²) there (computed
    /// only when a register has such a lane).
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const B one_plus = z.re + B(T(1));
        // |z| and |1 + z| in the safe range: no underflow in the sums of
        // squares, and no atan2(0, 0) (z = −1).
        redo = redo | detail::outside<V>(V::abs(z.re) + V::abs(z.im), detail::safe_small<T>, detail::safe_big<T>) |
               (V::abs(one_plus) + V::abs(z.im) < B(detail::safe_small<T>));
        const B u = V::fma(z.re, z.re + B(T(2)), z.im * z.im);
        B re = B(T(0.5)) * V::log1p(u);
        const B r2 = V::fma(one_plus, one_plus, z.im * z.im);
        const auto near = r2 < B(T(0.25));
        if (V::any(near)) re = V::select(near, B(T(0.5)) * V::log(r2), re);
        return {re, V::atan2(z.im, one_plus)};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        // x > −1, not subnormal (x = 0 goes through the scalar form: its sign)
        const auto out = (x <= typename V::batch(T(-1))) |
                         detail::outside<V>(V::abs(x), std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
        redo = redo | out;
        return V::log1p(V::select(out, typename V::batch(T(1)), x));
    }
};

}  // namespace realify::kernels
