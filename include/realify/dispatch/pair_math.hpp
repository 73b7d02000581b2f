// Complex math on interleaved (re, im) pairs in real arithmetic: the formulas
// the lowerings evaluate, one element at a time, inside contiguous loops (the
// elementwise engine). No std::complex arithmetic on the finite path.
//
// Numerics follow PyTorch 1.13 / C99 where it matters:
//   - mul is the plain formula (PyTorch's c10::complex and its vector kernels
//     do no Annex G NaN recovery either), div scales the divisor by max(|c|, |d|)
//     (c² + d² cannot overflow; branch-free), abs is hypot (no overflow at 3e30+4e30i
//     in float), log uses log1p near |z| = 1, log1p/expm1 stay accurate near
//     0, tanh uses Kahan's algorithm, the inverse functions use
//     cancellation-free forms (acosh = log1p((z-1) + sqrt(z+1)·sqrt(z-1)),
//     which is right for Re z < 0 where the seed system's formula was not).
//   - For NON-FINITE inputs the transcendental functions take the C99 Annex G
//     special-value table, evaluated by the C library (a cold branch): those
//     tables are dozens of cases per function and are what std::complex and
//     PyTorch's scalar kernels return.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

#include "realify/version.hpp"

namespace realify::kernel {

/// One complex number as two reals; the unit the kernels compute on.
template <class T>
struct cpair {
    T re;
    T im;
};

namespace detail {
template <class T, class F>
[[gnu::cold]] inline cpair<T> annex_g(cpair<T> z, F f) {
    const std::complex<T> r = f(std::complex<T>(z.re, z.im));
    return {r.real(), r.imag()};
}
/// Above this |x|, e^x overflows.
template <class T>
inline const T exp_limit = std::log(std::numeric_limits<T>::max());
template <class T>
inline bool finite(cpair<T> z) {
    return std::isfinite(z.re) && std::isfinite(z.im);
}
}  // namespace detail

// ---- arithmetic --------------------------------------------------------------
template <class T> inline cpair<T> add(cpair<T> a, cpair<T> b) { return {a.re + b.re, a.im + b.im}; }
template <class T> inline cpair<T> sub(cpair<T> a, cpair<T> b) { return {a.re - b.re, a.im - b.im}; }
template <class T> inline cpair<T> mul(cpair<T> a, cpair<T> b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
/// Complex times real: scale both parts.
template <class T> inline cpair<T> scale(cpair<T> a, T s) { return {a.re * s, a.im * s}; }
/// Complex divided by real; a zero divisor gives NaN + NaN·i as PyTorch 1.13.
template <class T> inline cpair<T> div_real(cpair<T> a, T s) {
    if (s == T(0)) return {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN()};
    return {a.re / s, a.im / s};
}

/// The divisor is scaled by 1/max(|c|, |d|) first (the idea of Smith's
/// algorithm, without its branch): c² + d² cannot overflow or underflow, and
/// the loop stays branch-free so it vectorises. PyTorch 1.13's naive formula
/// gives NaN once c² + d² overflows; realify returns the finite quotient.
/// A zero divisor gives 0/0 = NaN + NaN·i, as PyTorch 1.13 (C99 would give an
/// infinity); so does an infinite one (as PyTorch; C99 gives 0).
template <class T> inline cpair<T> div(cpair<T> a, cpair<T> b) {
    const T abs_c = std::abs(b.re), abs_d = std::abs(b.im);
    const T m = abs_c > abs_d ? abs_c : abs_d;
    const T c = b.re / m, d = b.im / m;  // in [-1, 1]
    const T inv = T(1) / (b.re * c + b.im * d);  // 1 / ((c² + d²)/m)
    return {(a.re * c + a.im * d) * inv, (a.im * c - a.re * d) * inv};
}
template <class T> inline cpair<T> reciprocal(cpair<T> a) { return div(cpair<T>{T(1), T(0)}, a); }

/// div for the elements where the branch-free div gave a non-finite value:
/// a zero divisor of finite operands gives NaN + NaN·i (PyTorch 1.13); any
/// non-finite operand takes C99 Annex G (std::complex division); the rest
/// are genuine overflows of div.
template <class T> inline cpair<T> div_careful(cpair<T> a, cpair<T> b) {
    if (detail::finite(a) && detail::finite(b)) {
        if (b.re == T(0) && b.im == T(0)) return {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN()};
        return div(a, b);
    }
    const std::complex<T> r = std::complex<T>(a.re, a.im) / std::complex<T>(b.re, b.im);
    return {r.real(), r.imag()};
}
template <class T> inline cpair<T> neg(cpair<T> a) { return {-a.re, -a.im}; }
template <class T> inline cpair<T> conj(cpair<T> a) { return {a.re, -a.im}; }
template <class T> inline cpair<T> square(cpair<T> a) { return mul(a, a); }

// ---- real output -----------------------------------------------------------------
/// hypot scales internally: |3e30 + 4e30i| = 5e30 in float, not inf.
template <class T> inline T abs(cpair<T> a) { return std::hypot(a.re, a.im); }
/// atan2 propagates NaN (the seed system's angle did not).
template <class T> inline T angle(cpair<T> a) { return std::atan2(a.im, a.re); }

// ---- exponentials and logarithms ------------------------------------------------
template <class T> inline cpair<T> exp(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::exp(w); });
    if (z.im == T(0)) return {std::exp(z.re), z.im};  // keeps exp(x ± 0i) exact and its zero's sign
    const T e = std::exp(z.re);
    return {e * std::cos(z.im), e * std::sin(z.im)};
}

/// exp(z) - 1 without cancellation: Re = expm1(x)·cos y − 2·sin²(y/2).
template <class T> inline cpair<T> expm1(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::exp(w) - decltype(w)(1); });
    if (z.im == T(0)) return {std::expm1(z.re), z.im};
    const T half_sin = std::sin(z.im / T(2));
    return {std::expm1(z.re) * std::cos(z.im) - T(2) * half_sin * half_sin, std::exp(z.re) * std::sin(z.im)};
}

/// log|z| + i·arg z. Near |z| = 1, log|z| = ½·log1p((m−1)(m+1) + n²) with m, n
/// the larger and smaller magnitude: no cancellation.
template <class T> inline cpair<T> log(cpair<T> z) {
    const T im = std::atan2(z.im, z.re);
    const T m = std::fmax(std::abs(z.re), std::abs(z.im));
    const T n = std::fmin(std::abs(z.re), std::abs(z.im));
    if (m > T(0.5) && m < T(2) && n < T(1)) return {T(0.5) * std::log1p((m - T(1)) * (m + T(1)) + n * n), im};
    return {std::log(std::hypot(z.re, z.im)), im};
}
template <class T> inline cpair<T> log2(cpair<T> z) {
    const cpair<T> l = log(z);
    return {l.re / std::numbers::ln2_v<T>, l.im / std::numbers::ln2_v<T>};
}
template <class T> inline cpair<T> log10(cpair<T> z) {
    const cpair<T> l = log(z);
    return {l.re / std::numbers::ln10_v<T>, l.im / std::numbers::ln10_v<T>};
}

/// log(1 + z): ½·log1p(x(x+2) + y²) + i·atan2(y, 1+x) for small |z|, log|1+z| otherwise.
template <class T> inline cpair<T> log1p(cpair<T> z) {
    const T theta = std::atan2(z.im, z.re + T(1));
    if (std::hypot(z.re, z.im) < T(0.5)) {
        const T r = z.re * (T(2) + z.re) + z.im * z.im;
        if (r == T(0)) return {z.re, theta};  // underflow: log1p(z) ≈ z
        return {T(0.5) * std::log1p(r), theta};
    }
    return {std::log(std::hypot(z.re + T(1), z.im)), theta};
}

/// Principal square root: t = sqrt((|x| + |z|)/2), the other part y/(2t).
template <class T> inline cpair<T> sqrt(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::sqrt(w); });
    if (z.re == T(0) && z.im == T(0)) return {T(0), z.im};
    // Halve before adding so |x| + |z| cannot overflow near the top of the range.
    const T t = std::sqrt(std::abs(z.re) / T(2) + std::hypot(z.re, z.im) / T(2));
    if (z.re >= T(0)) return {t, z.im / (T(2) * t)};
    return {std::abs(z.im) / (T(2) * t), std::copysign(t, z.im)};
}
/// 1/sqrt(z); 0 gives NaN + NaN·i (PyTorch 1.13), non-finite z takes Annex G.
template <class T> inline cpair<T> rsqrt(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]]
        return detail::annex_g(z, [](auto w) { return decltype(w)(1) / std::sqrt(w); });
    return div_careful(cpair<T>{T(1), T(0)}, sqrt(z));
}

/// z / |z|, 0 at 0.
template <class T> inline cpair<T> sgn(cpair<T> z) {
    const T r = abs(z);
    if (r == T(0)) return {T(0), T(0)};
    return {z.re / r, z.im / r};
}

namespace detail {
/// std::pow on the C library's complex functions (cexp(w·clog z)): the
/// values for zero bases (0^0 = NaN), non-finite operands and overflow.
template <class T>
[[gnu::cold]] inline cpair<T> pow_annex_g(cpair<T> z, cpair<T> w) {
    const std::complex<T> r = std::pow(std::complex<T>(z.re, z.im), std::complex<T>(w.re, w.im));
    return {r.real(), r.imag()};
}
template <class T>
inline bool needs_pow_annex_g(cpair<T> z, cpair<T> w, cpair<T> r) {
    return (z.re == T(0) && z.im == T(0)) || !finite(z) || !finite(w) || !finite(r);
}
}  // namespace detail

/// z^w = exp(w·log z). Zero bases, non-finite operands and overflowing
/// results take std::pow's (C99) values.
template <class T> inline cpair<T> pow(cpair<T> z, cpair<T> w) {
    const cpair<T> r = exp(mul(w, log(z)));
    if (detail::needs_pow_annex_g(z, w, r)) [[unlikely]] return detail::pow_annex_g(z, w);
    return r;
}
/// z^n for a small integer n by repeated squaring (exact for small n, as
/// PyTorch's special cases z·z, z·z·z, 1/z); same fallback as pow.
template <class T> inline cpair<T> pow_integer(cpair<T> z, long n) {
    cpair<T> result{T(1), T(0)}, base = z;
    unsigned long k = n < 0 ? static_cast<unsigned long>(-n) : static_cast<unsigned long>(n);
    while (k != 0) {
        if (k & 1u) result = mul(result, base);
        k >>= 1u;
        if (k != 0) base = mul(base, base);
    }
    if (n < 0) result = reciprocal(result);
    const cpair<T> w{static_cast<T>(n), T(0)};
    if (detail::needs_pow_annex_g(z, w, result)) [[unlikely]] return detail::pow_annex_g(z, w);
    return result;
}

// ---- trigonometric and hyperbolic ------------------------------------------------
template <class T> inline cpair<T> sinh(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::sinh(w); });
    if (z.im == T(0)) return {std::sinh(z.re), z.im};
    if (std::abs(z.re) > detail::exp_limit<T>) {
        // cosh x ≈ |sinh x| ≈ e^|x|/2 overflows although the product with cos/sin may not.
        const T e = std::exp(std::abs(z.re) / T(2));
        return {std::copysign(T(1), z.re) * (e * (std::cos(z.im) / T(2))) * e, (e * (std::sin(z.im) / T(2))) * e};
    }
    return {std::sinh(z.re) * std::cos(z.im), std::cosh(z.re) * std::sin(z.im)};
}
template <class T> inline cpair<T> cosh(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::cosh(w); });
    if (z.im == T(0)) return {std::cosh(z.re), std::copysign(T(0), z.re) * z.im};
    if (std::abs(z.re) > detail::exp_limit<T>) {
        const T e = std::exp(std::abs(z.re) / T(2));
        return {(e * (std::cos(z.im) / T(2))) * e, std::copysign(T(1), z.re) * (e * (std::sin(z.im) / T(2))) * e};
    }
    return {std::cosh(z.re) * std::cos(z.im), std::sinh(z.re) * std::sin(z.im)};
}
/// Kahan's tanh: exact limits for large |Re z|, no inf/inf.
template <class T> inline cpair<T> tanh(cpair<T> z) {
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
/// sin z = −i·sinh(iz), cos z = cosh(iz), tan z = −i·tanh(iz).
template <class T> inline cpair<T> sin(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::sin(w); });
    const cpair<T> r = sinh(cpair<T>{-z.im, z.re});
    return {r.im, -r.re};
}
template <class T> inline cpair<T> cos(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::cos(w); });
    return cosh(cpair<T>{-z.im, z.re});
}
template <class T> inline cpair<T> tan(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::tan(w); });
    const cpair<T> r = tanh(cpair<T>{-z.im, z.re});
    return {r.im, -r.re};
}

// The inverse functions use Kahan's forms ("Branch cuts for complex
// elementary functions", 1987): products of the principal roots sqrt(1 ± z),
// sqrt(z ± 1), then real atan2/asinh. They have no cancellation near the
// branch points or the real axis, respect signed zeros on the cuts, and
// acosh is right for Re z < 0 (the seed system's defect).
namespace detail {
template <class T> inline cpair<T> one_minus(cpair<T> z) { return {T(1) - z.re, -z.im}; }  // keeps the sign of a zero imag
template <class T> inline cpair<T> one_plus(cpair<T> z) { return {T(1) + z.re, z.im}; }
}  // namespace detail

/// asin z = atan2(x, Re(√(1−z)·√(1+z))) + i·asinh(Im(conj(√(1−z))·√(1+z))).
template <class T> inline cpair<T> asin(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::asin(w); });
    const cpair<T> a = sqrt(detail::one_minus(z)), b = sqrt(detail::one_plus(z));
    return {std::atan2(z.re, a.re * b.re - a.im * b.im), std::asinh(a.re * b.im - a.im * b.re)};
}
/// acos z = 2·atan2(Re √(1−z), Re √(1+z)) + i·asinh(Im(conj(√(1+z))·√(1−z))).
template <class T> inline cpair<T> acos(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::acos(w); });
    const cpair<T> a = sqrt(detail::one_minus(z)), b = sqrt(detail::one_plus(z));
    return {T(2) * std::atan2(a.re, b.re), std::asinh(b.re * a.im - b.im * a.re)};
}
/// asinh z = −i·asin(iz).
template <class T> inline cpair<T> asinh(cpair<T> z) {
    const cpair<T> r = asin(cpair<T>{-z.im, z.re});
    return {r.im, -r.re};
}
/// acosh z = asinh(Re(conj(√(z−1))·√(z+1))) + 2i·atan2(Im √(z−1), Re √(z+1)) —
/// the same principal roots as log(z + √(z+1)·√(z−1)), without its cancellation.
template <class T> inline cpair<T> acosh(cpair<T> z) {
    if (!detail::finite(z)) [[unlikely]] return detail::annex_g(z, [](auto w) { return std::acosh(w); });
    const cpair<T> a = sqrt(cpair<T>{z.re - T(1), z.im}), b = sqrt(detail::one_plus(z));
    return {std::asinh(a.re * b.re + a.im * b.im), T(2) * std::atan2(a.im, b.re)};
}
/// atanh z = ¼·log1p(4x / ((1−x)² + y²)) + ½·i·atan2(2y, (1−x)(1+x) − y²);
/// for huge |z|, Re = x/|z|² (scaled) and Im = ±π/2.
template <class T> inline cpair<T> atanh(cpair<T> z) {
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
    // Where 4x/d is small the log1p form avoids cancellation; elsewhere (near
    // ±1, where d may underflow or 1 + 4x/d cancels) the difference of two
    // logs of well-separated magnitudes has none to fear.
    const T re = (std::abs(T(4) * x) < T(0.5) * d) ? T(0.25) * std::log1p(T(4) * x / d)
                                           : T(0.5) * (std::log(std::hypot(T(1) + x, y)) - std::log(std::hypot(one_minus, y)));
    const T im = T(0.5) * std::atan2(T(2) * y, one_minus * (T(1) + x) - y * y);
    return {re, im};
}
/// atan z = −i·atanh(iz).
template <class T> inline cpair<T> atan(cpair<T> z) {
    const cpair<T> r = atanh(cpair<T>{-z.im, z.re});
    return {r.im, -r.re};
}

}  // namespace realify::kernel
