// Element kernels of the powers and roots: sqrt, rsqrt, pow_scalar (a number
// exponent) and pow_tensor (an elementwise exponent). See kernels/element.hpp
// for the contract.
#pragma once

#include <cmath>
#include <complex>
#include <concepts>
#include <string_view>

#include "realify/kernels/arithmetic.hpp"
#include "realify/kernels/exponential.hpp"

namespace realify::kernels {

template <>
struct element<op::sqrt> {
    static constexpr std::string_view formula = "t = √((|a| + |z|)/2); a ≥ 0: t + i·b/(2t), else |b|/(2t) + "
                                                "i·sign(b)·t";
    static constexpr std::string_view real_formula = "√x on real tensors";
    /// Principal square root: t = sqrt((|x| + |z|)/2), the other part y/(2t).
    /// z with all parts tiny (subnormal) or one near overflow is scaled by an
    /// even power of two 2^k first and the root by 2^(−k/2): sqrt(1.4e-45i)
    /// is 2.6e-23·(1 + i), not (0, inf).
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::sqrt(w); });
        if (z.re == T(0) && z.im == T(0)) return {T(0), z.im};
        cpair<T> w = z;
        const int k = detail::normalize(w);
        // Halve before adding so |x| + |z| cannot overflow near the top of the range.
        const T t = std::sqrt(std::abs(w.re) / T(2) + std::hypot(w.re, w.im) / T(2));
        const cpair<T> r = w.re >= T(0) ? cpair<T>{t, w.im / (T(2) * t)}
                                        : cpair<T>{std::abs(w.im) / (T(2) * t), std::copysign(t, w.im)};
        if (k == 0) return r;
        return {std::scalbn(r.re, -k / 2), std::scalbn(r.im, -k / 2)};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::sqrt(x);
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const B ax = V::abs(z.re);
        redo = redo | detail::outside<V>(ax + V::abs(z.im), detail::safe_small<T>, detail::safe_big<T>);
        const B t = V::sqrt((ax + V::sqrt(V::fma(z.re, z.re, z.im * z.im))) * B(T(0.5)));
        const B half_over_t = B(T(0.5)) / t;
        const auto right = z.re >= B(T(0));
        return {V::select(right, t, V::abs(z.im) * half_over_t), V::select(right, z.im * half_over_t, V::copysign(t, z.im))};
    }
    /// IEEE sqrt: exact for every input.
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        return V::sqrt(x);
    }
};

template <>
struct element<op::rsqrt> {
    static constexpr std::string_view formula = "1 / sqrt(z)";
    static constexpr std::string_view real_formula = "1 / √x on real tensors";
    /// 1/sqrt(z); 0 gives NaN + NaN·i (PyTorch 1.13), non-finite z takes Annex G.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        if (!detail::finite(z)) [[unlikely]]
            return detail::annex_g(z, [](auto w) { return decltype(w)(1) / std::sqrt(w); });
        return element<op::div>{}(cpair<T>{T(1), T(0)}, element<op::sqrt>{}(z));
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return T(1) / std::sqrt(x);
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        return detail::div_batch<V, true>({B(T(1)), B(T(0))}, element<op::sqrt>::simd<V>(z, redo), redo);
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        return typename V::batch(typename V::value_type(1)) / V::sqrt(x);
    }
};

namespace detail {

/// std::pow on the C library's complex functions (cexp(w·clog z)): the
/// values for zero bases (0^0 = NaN), non-finite operands and overflow.
template <class T>
[[gnu::cold]] inline cpair<T> pow_annex_g(cpair<T> z, cpair<T> w) noexcept {
    const std::complex<T> r = std::pow(std::complex<T>(z.re, z.im), std::complex<T>(w.re, w.im));
    return {r.real(), r.imag()};
}
template <class T>
inline bool needs_pow_annex_g(cpair<T> z, cpair<T> w, cpair<T> r) noexcept {
    return (z.re == T(0) && z.im == T(0)) || !finite(z) || !finite(w) || !finite(r);
}

/// z^w = exp(w·log z). Zero bases, non-finite operands and overflowing
/// results take std::pow's (C99) values.
template <class T>
cpair<T> pow_general(cpair<T> z, cpair<T> w) noexcept {
    const cpair<T> r = element<op::exp>{}(element<op::mul>{}(w, element<op::log>{}(z)));
    if (needs_pow_annex_g(z, w, r)) [[unlikely]] return pow_annex_g(z, w);
    return r;
}

/// z^n for a small integer n by repeated squaring (exact for small n, as
/// PyTorch's special cases z·z, z·z·z, 1/z); same fallback as pow_general.
template <class T>
cpair<T> pow_integer(cpair<T> z, long n) noexcept {
    const element<op::mul> mul;
    cpair<T> result{T(1), T(0)}, base = z;
    unsigned long k = n < 0 ? static_cast<unsigned long>(-n) : static_cast<unsigned long>(n);
    while (k != 0) {
        if (k & 1u) result = mul(result, base);
        k >>= 1u;
        if (k != 0) base = mul(base, base);
    }
    if (n < 0) result = element<op::reciprocal>{}(result);
    const cpair<T> w{static_cast<T>(n), T(0)};
    if (needs_pow_annex_g(z, w, result)) [[unlikely]] return pow_annex_g(z, w);
    return result;
}

/// x^y of reals: exp(y·log x) for a positive normal x and a finite result;
/// the other lanes (negative or zero bases, whose results depend on y being
/// an integer) by std::pow.
template <class V>
[[gnu::always_inline]] inline typename V::batch real_pow_batch(const typename V::batch& x, const typename V::batch& y,
                                 typename V::mask& redo) noexcept {
    using B = typename V::batch;
    using T = typename V::value_type;
    const auto out = outside<V>(x, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()) |
                     V::not_finite(y);
    const B r = V::pow(V::select(out, B(T(1)), x), V::select(out, B(T(1)), y));
    // xsimd flushes subnormal results to 0: those lanes too
    redo = redo | out | outside<V>(r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    return r;
}

// The batch forms of pow: the powers by squaring and exp(w·log z), on the
// complex product (kernels/complex_product.hpp).
/// The lanes the scalar form hands to std::pow (zero or non-finite base or
/// exponent, non-finite result), on top of `redo`.
template <class V>
[[gnu::always_inline]] inline void pow_redo(const cpair<typename V::batch>& z, const cpair<typename V::batch>& w, const cpair<typename V::batch>& r,
              typename V::mask& redo) noexcept {
    using B = typename V::batch;
    using T = typename V::value_type;
    redo = redo | ((z.re == B(T(0))) & (z.im == B(T(0)))) | V::not_finite(z.re + z.im) | V::not_finite(w.re + w.im) |
           V::not_finite(r.re) | V::not_finite(r.im);
}
template <class V>
[[gnu::always_inline]] inline cpair<typename V::batch> pow_integer_batch(const cpair<typename V::batch>& z, long n, typename V::mask& redo) noexcept {
    using B = typename V::batch;
    using T = typename V::value_type;
    cpair<B> result{B(T(1)), B(T(0))}, base = z;
    unsigned long k = n < 0 ? static_cast<unsigned long>(-n) : static_cast<unsigned long>(n);
    while (k != 0) {
        if (k & 1u) result = split_product<V>(result, base);
        k >>= 1u;
        if (k != 0) base = split_product<V>(base, base);
    }
    // An overflow before the reciprocal goes to the scalar form too.
    redo = redo | V::not_finite(result.re) | V::not_finite(result.im);
    if (n < 0) result = div_batch<V, true>({B(T(1)), B(T(0))}, result, redo);
    pow_redo<V>(z, {B(T(n)), B(T(0))}, result, redo);
    return result;
}
template <class V>
[[gnu::always_inline]] inline cpair<typename V::batch> pow_general_batch(const cpair<typename V::batch>& z, const cpair<typename V::batch>& w,
                                           typename V::mask& redo) noexcept;

}  // namespace detail

template <>
struct element<op::pow_scalar> {
    /// The exponent w: params = {Re w, Im w}. It picks the formula once per
    /// call: a real integer |n| ≤ 64 squares repeatedly, 0.5 is sqrt, −0.5 is
    /// rsqrt, anything else exp(w·log z).
    template <class T>
    struct parameters {
        enum class formula { integer, sqrt, rsqrt, general };
        cpair<T> w;
        formula kind = formula::general;
        long n = 0;
        explicit parameters(const T* params) noexcept : w{params[0], params[1]} {
            if (w.im != T(0)) return;
            if (w.re == std::trunc(w.re) && std::abs(w.re) <= T(64)) {
                kind = formula::integer;
                n = static_cast<long>(w.re);
            } else if (w.re == T(0.5)) {
                kind = formula::sqrt;
            } else if (w.re == T(-0.5)) {
                kind = formula::rsqrt;
            }
        }
    };
    template <class T>
    cpair<T> operator()(cpair<T> z, const parameters<T>& p) const noexcept {
        using formula = typename parameters<T>::formula;
        switch (p.kind) {
            case formula::integer: return detail::pow_integer(z, p.n);
            case formula::sqrt: return element<op::sqrt>{}(z);
            case formula::rsqrt: return element<op::rsqrt>{}(z);
            case formula::general: break;
        }
        return detail::pow_general(z, p.w);
    }
    /// A real base to a real exponent (Re w): std::pow.
    template <std::floating_point T>
    T operator()(T x, const parameters<T>& p) const noexcept {
        return std::pow(x, p.w.re);
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, const parameters<typename V::value_type>& p,
                                         typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using formula = typename parameters<typename V::value_type>::formula;
        switch (p.kind) {
            case formula::integer: return detail::pow_integer_batch<V>(z, p.n, redo);
            case formula::sqrt: return element<op::sqrt>::simd<V>(z, redo);
            case formula::rsqrt: return element<op::rsqrt>::simd<V>(z, redo);
            case formula::general: break;
        }
        return detail::pow_general_batch<V>(z, {B(p.w.re), B(p.w.im)}, redo);
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, const parameters<typename V::value_type>& p,
                                  typename V::mask& redo) noexcept {
        return detail::real_pow_batch<V>(x, typename V::batch(p.w.re), redo);
    }
};

template <>
struct element<op::pow_tensor> {
    /// exp(w·log z) (real operands lifted to x + 0i); zero bases, non-finite
    /// operands or an overflow take std::pow's (C99) value.
    template <class X, class W>
        requires(!std::floating_point<X> || !std::floating_point<W>)
    auto operator()(X z, W w) const noexcept {
        return detail::pow_general(to_pair(z), to_pair(w));
    }
    template <std::floating_point T>
    T operator()(T x, T y) const noexcept {
        return std::pow(x, y);
    }

    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, cpair<typename V::batch> w,
                                         typename V::mask& redo) noexcept {
        return detail::pow_general_batch<V>(z, w, redo);
    }
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::batch w,
                                         typename V::mask& redo) noexcept {
        return detail::pow_general_batch<V>(z, {w, typename V::batch(typename V::value_type(0))}, redo);
    }
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(typename V::batch x, cpair<typename V::batch> w,
                                         typename V::mask& redo) noexcept {
        return detail::pow_general_batch<V>({x, typename V::batch(typename V::value_type(0))}, w, redo);
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::batch y, typename V::mask& redo) noexcept {
        return detail::real_pow_batch<V>(x, y, redo);
    }
};

template <class V>
[[gnu::always_inline]] inline cpair<typename V::batch> detail::pow_general_batch(const cpair<typename V::batch>& z, const cpair<typename V::batch>& w,
                                                   typename V::mask& redo) noexcept {
    const auto r = element<op::exp>::simd<V>(split_product<V>(w, element<op::log>::simd<V>(z, redo)), redo);
    pow_redo<V>(z, w, r, redo);
    return r;
}

}  // namespace realify::kernels
