// Element kernels of |z| and of the ops with a real side: abs, angle, real,
// imag, isnan, isinf (complex in, real out), sgn (z/|z|) and polar (real
// magnitude and angle in, complex out). See kernels/element.hpp for the
// contract.
#pragma once

#include <cmath>
#include <concepts>
#include <numbers>
#include <string_view>

#include "realify/kernels/element.hpp"

namespace realify::kernels {

template <>
struct element<op::abs> {
    static constexpr std::string_view formula = "hypot(a, b) (scaled: no overflow above ~1.8e19 in float)";
    static constexpr std::string_view real_formula = "|x| on real tensors";
    /// hypot scales internally: |3e30 + 4e30i| = 5e30 in float, not inf.
    template <class T>
    T operator()(cpair<T> z) const noexcept {
        return std::hypot(z.re, z.im);
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::abs(x);
    }

    /// sqrt(x² + y²) for |x| + |y| in the safe range or 0.
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const B l1 = detail::l1<V>(z);
        redo = redo | (detail::outside<V>(l1, detail::safe_small<T>, detail::safe_big<T>) & ~(l1 == B(T(0))));
        return V::sqrt(V::fma(z.re, z.re, z.im * z.im));
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        return V::abs(x);
    }
};

template <>
struct element<op::angle> {
    static constexpr std::string_view formula = "atan2(b, a) (NaN propagates)";
    static constexpr std::string_view real_formula = "π for x < 0, else 0 (NaN propagates) on real tensors";
    /// atan2(y, x): NaN propagates, the signs of zeros pick the side of the cut.
    template <class T>
    T operator()(cpair<T> z) const noexcept {
        return std::atan2(z.im, z.re);
    }
    /// π for negative x, 0 for x ≥ 0 (−0 included), NaN for NaN (PyTorch's
    /// angle of a real tensor).
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return x < T(0) ? std::numbers::pi_v<T> : (x == x ? T(0) : x);
    }

    /// xsimd's atan2 for finite z ≠ 0 (it gives NaN for atan2(±0, ±0)).
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        redo = redo | V::not_finite(z.re + z.im) | ((z.re == B(T(0))) & (z.im == B(T(0))));
        return V::atan2(z.im, z.re);
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        return V::select(x < B(T(0)), B(std::numbers::pi_v<T>), V::select(x == x, B(T(0)), x));
    }
};

template <>
struct element<op::real> {
    static constexpr std::string_view formula = "a (layout[..., 0])";
    static constexpr std::string_view real_formula = "x: a real tensor is its own real part (PyTorch returns the "
                                                     "tensor)";
    template <class T>
    T operator()(cpair<T> z) const noexcept {
        return z.re;
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return x;
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(cpair<typename V::batch> z) noexcept {
        return z.re;
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        return x;
    }
};

template <>
struct element<op::imag> {
    static constexpr std::string_view formula = "b (layout[..., 1])";
    template <class T>
    T operator()(cpair<T> z) const noexcept {
        return z.im;
    }
    /// A real number's imaginary part is 0.
    template <std::floating_point T>
    T operator()(T) const noexcept {
        return T(0);
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(cpair<typename V::batch> z) noexcept {
        return z.im;
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch) noexcept {
        return typename V::batch(typename V::value_type(0));
    }
};

template <>
struct element<op::isnan> {
    template <class T>
    bool operator()(cpair<T> z) const noexcept {
        return std::isnan(z.re) || std::isnan(z.im);
    }
    template <std::floating_point T>
    bool operator()(T x) const noexcept {
        return std::isnan(x);
    }
};

template <>
struct element<op::isinf> {
    template <class T>
    bool operator()(cpair<T> z) const noexcept {
        return std::isinf(z.re) || std::isinf(z.im);
    }
    template <std::floating_point T>
    bool operator()(T x) const noexcept {
        return std::isinf(x);
    }
};

template <>
struct element<op::sgn> {
    static constexpr std::string_view formula = "z / |z| (hypot), 0 at 0";
    static constexpr std::string_view real_formula = "−1, 0 or 1 (NaN: 0) on real tensors";
    /// z / |z| (hypot), 0 at 0. Tiny and huge finite z are scaled by a power
    /// of two first (the quotient does not change), so |z| is exact enough.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (detail::finite(z)) detail::normalize(z);
        const T r = element<op::abs>{}(z);
        if (r == T(0)) return {T(0), T(0)};
        return {z.re / r, z.im / r};
    }
    /// −1, 0 or 1; NaN gives 0 (PyTorch 1.13's sgn of a real tensor).
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0));
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const B l1 = detail::l1<V>(z);
        const auto zero = l1 == B(T(0));
        redo = redo | (detail::outside<V>(l1, detail::safe_small<T>, detail::safe_big<T>) & ~zero);
        const B inv = B(T(1)) / V::sqrt(V::fma(z.re, z.re, z.im * z.im));
        return {V::select(zero, B(T(0)), z.re * inv), V::select(zero, B(T(0)), z.im * inv)};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        return V::select(x > B(T(0)), B(T(1)), V::select(x < B(T(0)), B(T(-1)), B(T(0))));
    }
};

template <>
struct element<op::polar> {
    /// r·cos θ + i·r·sin θ
    template <std::floating_point T>
    cpair<T> operator()(T r, T theta) const noexcept {
        return {r * std::cos(theta), r * std::sin(theta)};
    }
    /// θ within the accurate sine/cosine range (else the scalar form).
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(typename V::batch r, typename V::batch theta, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const auto out = detail::outside<V>(V::abs(theta), T(0), detail::trig_limit<T>);
        redo = redo | out;
        const cpair<B> c = V::cis(V::select(out, B(T(0)), theta));
        return {r * c.re, r * c.im};
    }
};

}  // namespace realify::kernels
