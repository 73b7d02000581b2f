// Element kernels of the activation functions models apply to real tensors:
// sigmoid, silu, erf and gelu (approximate='none' and 'tanh'). Real operands
// only here (PyTorch refuses complex erf and gelu; its complex sigmoid and
// silu are not lowered). See kernels/element.hpp for the contract.
//
// Formulas (PyTorch's, docs/numerics.md):
//   sigmoid(x)   1 / (1 + e^−x)
//   silu(x)      x / (1 + e^−x)
//   erf(x)       std::erf
//   gelu(x)      x·½·erfc(−x/√2)            = x·½·(1 + erf(x/√2)), PyTorch's
//                                             'none', without its cancellation
//                                             for negative x
//   gelu_tanh    x / (1 + e^(−2u)), u = √(2/π)·(x + 0.044715·x³)
//                                           = x·½·(1 + tanh u), PyTorch's
//                                             'tanh', likewise
// The quotient x / (1 + e^−t) is evaluated without overflow where e^−t
// overflows (detail::over_one_plus_exp): silu(−89.f) is −1.98e−37, not 0.
// Special values follow the formulas as PyTorch's do: silu(−inf) and
// gelu(−inf) are NaN (−inf·0), sigmoid(−inf) = 0, gelu(−0) = silu(−0) = −0.
#pragma once

#include <cmath>
#include <concepts>
#include <string_view>

#include "realify/kernels/element.hpp"

namespace realify::kernels {

namespace detail {

/// |x| at and above which erf(x) rounds to ±1 and erfc(−|x|) to 2.
template <class T>
inline constexpr T erf_saturated = sizeof(T) == sizeof(float) ? T(4) : T(6);
/// Above this erfc(x) needs e^(−x²) below the smallest normal: the scalar form.
template <class T>
inline constexpr T erfc_limit = sizeof(T) == sizeof(float) ? T(9) : T(26);

/// x / (1 + e^−t), the scalar form (t = x: silu; x = 1: sigmoid; t = 2u:
/// gelu('tanh'); |x| ≤ max(1, |t|) in each). Where e^−t is finite, that
/// quotient; beyond (t < −exp_high: e^−t overflows, 1 + e^−t is e^−t to
/// rounding) the quotient is x·e^t, evaluated as (x·h)·h with h = e^(t/2),
/// a normal number wherever the result is not 0 — no overflow, and no digits
/// lost to a subnormal e^t (silu(−710) in double is x·e^x = −3.18e−306).
/// Float evaluates it in double and rounds once: e^t of a float t is never
/// subnormal there, and the result is within half an ulp or so.
template <std::floating_point T>
T over_one_plus_exp(T x, T t) noexcept {
    if constexpr (sizeof(T) == sizeof(float)) {
        return static_cast<T>(over_one_plus_exp<double>(x, t));
    } else {
        if (!(t < -exp_high<T>)) return x / (T(1) + std::exp(-t));  // NaN included
        const T h = std::exp(t / T(2));
        return (x * h) * h;
    }
}

/// x / (1 + e^−t), lanes by lanes: for −t below exp_low, e^−t vanishes next
/// to 1 and the quotient is the numerator; above exp_high (e^−t huge or inf,
/// the quotient tiny, 0 or NaN) and for NaN the scalar form redoes the lane.
template <class V>
[[gnu::always_inline]] inline typename V::batch over_one_plus_exp(typename V::batch numerator, typename V::batch t,
                                                                  typename V::mask& redo) noexcept {
    using B = typename V::batch;
    using T = typename V::value_type;
    const B minus_t = negate(t);
    const auto vanishes = minus_t < B(exp_low<T>);
    const auto wild = ~(minus_t <= B(exp_high<T>)) | V::isnan(t);  // NaN compares false
    redo = redo | wild;
    const B e = V::exp(V::select(vanishes | wild, B(T(0)), minus_t));
    return V::select(vanishes, numerator, numerator / (B(T(1)) + e));
}

}  // namespace detail

template <>
struct element<op::sigmoid> {
    static constexpr std::string_view real_formula = "1 / (1 + e^−x)";
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return detail::over_one_plus_exp(T(1), x);
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using T = typename V::value_type;
        return detail::over_one_plus_exp<V>(typename V::batch(T(1)), x, redo);
    }
};

template <>
struct element<op::silu> {
    static constexpr std::string_view real_formula = "x / (1 + e^−x)";
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return detail::over_one_plus_exp(x, x);
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        return detail::over_one_plus_exp<V>(x, x, redo);
    }
};

template <>
struct element<op::erf> {
    static constexpr std::string_view real_formula = "erf x";
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return std::erf(x);
    }
    /// ±1 at and beyond erf_saturated (inf included), NaN kept. Float only:
    /// xsimd's double erf and erfc are accurate to about 1e-11 (1e-9 far in
    /// erfc's tail), short of double's tolerance — double runs the scalar form.
    template <class V>
        requires(sizeof(typename V::value_type) == sizeof(float))
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const auto saturated = ~(V::abs(x) < B(detail::erf_saturated<T>));
        const B r = V::erf(V::select(saturated, B(T(0)), x));
        return V::select(V::isnan(x), x, V::select(saturated, V::copysign(B(T(1)), x), r));
    }
};

template <>
struct element<op::gelu> {
    /// approximate='tanh' when params[0] ≠ 0 (nullptr: 'none').
    template <class T>
    struct parameters {
        bool tanh;
        explicit parameters(const T* params) noexcept : tanh(params[0] != T(0)) {}
    };
    static constexpr double sqrt1_2 = 0.70710678118654752440;  // M_SQRT1_2, PyTorch's
    static constexpr double beta = 0.79788456080286535588;     // √(2/π) = M_SQRT2·M_2_SQRTPI·½
    static constexpr double kappa = 0.044715;

    /// 'none': x·½·erfc(−x/√2).
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return x * T(0.5) * std::erfc(-(x * T(sqrt1_2)));
    }
    template <std::floating_point T>
    T operator()(T x, const parameters<T>& p) const noexcept {
        if (!p.tanh) return (*this)(x);
        return detail::over_one_plus_exp(x, T(2) * tanh_argument<T>(x));
    }
    /// u = √(2/π)·(x + 0.044715·x³), PyTorch's order (X: T or a batch of T).
    template <class T, class X>
    static X tanh_argument(X x) noexcept {
        return X(T(beta)) * (x + X(T(kappa)) * (x * x * x));
    }

    /// 'none': x where erfc(−x/√2) rounds to 2; the scalar form where it
    /// would take e^(−x²) below the smallest normal, and for NaN. Float only
    /// (see element<op::erf>): double's lanes are the scalar form's.
    template <class V>
        requires(sizeof(typename V::value_type) == sizeof(float))
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        const B a = negate(x * B(T(sqrt1_2)));
        const auto two = a <= B(-detail::erf_saturated<T>);
        const auto wild = ~(a <= B(detail::erfc_limit<T>));  // NaN included
        redo = redo | wild;
        const B r = x * B(T(0.5)) * V::erfc(V::select(two | wild, B(T(0)), a));
        return V::select(two, x, r);
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, const parameters<typename V::value_type>& p,
                                                         typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        if (!p.tanh) {
            if constexpr (sizeof(T) == sizeof(float)) {
                return simd<V>(x, redo);
            } else {
                redo = ~V::none();  // every lane by the scalar form
                return x;
            }
        }
        return detail::over_one_plus_exp<V>(x, B(T(2)) * tanh_argument<T>(x), redo);
    }
};

}  // namespace realify::kernels
