// realify::reference — the oracle. Scalar reference implementations of every
// elementwise op on std::complex, written with <complex> and <cmath>
// functions, deliberately NOT with the real-arithmetic formulas of the
// lowerings, so a test comparing the two compares independent computations
// (as PyTorch's Python references, torch._refs, check its kernels). Where <complex> has no function (expm1,
// log1p, sgn, …) the reference is the textbook definition evaluated with
// std::complex, with a short Taylor series where the definition cancels.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

#include "realify/layout/scalar_traits.hpp"

namespace realify::reference {

template <class T> using cplx = std::complex<T>;

// ---- arithmetic --------------------------------------------------------
template <class T> cplx<T> add(cplx<T> a, cplx<T> b, T alpha = T(1)) { return a + alpha * b; }
template <class T> cplx<T> sub(cplx<T> a, cplx<T> b, T alpha = T(1)) { return a - alpha * b; }
template <class T> cplx<T> mul(cplx<T> a, cplx<T> b) { return a * b; }
template <class T> cplx<T> div(cplx<T> a, cplx<T> b) { return a / b; }
/// add.Scalar: only the real part moves for a real scalar.
template <class T> cplx<T> add_scalar(cplx<T> a, cplx<T> s, T alpha = T(1)) { return a + alpha * s; }
template <class T> cplx<T> sub_scalar(cplx<T> a, cplx<T> s, T alpha = T(1)) { return a - alpha * s; }
template <class T> cplx<T> mul_scalar(cplx<T> a, T s) { return a * s; }
template <class T> cplx<T> div_scalar(cplx<T> a, T s) { return a / s; }
template <class T> cplx<T> neg(cplx<T> a) { return -a; }
template <class T> cplx<T> conj(cplx<T> a) { return std::conj(a); }
template <class T> cplx<T> reciprocal(cplx<T> a) { return cplx<T>(1) / a; }
template <class T> cplx<T> square(cplx<T> a) { return a * a; }

// ---- exponentials and logarithms ---------------------------------------
template <class T> cplx<T> exp(cplx<T> a) { return std::exp(a); }
template <class T> cplx<T> log(cplx<T> a) { return std::log(a); }
template <class T> cplx<T> log2(cplx<T> a) { return std::log(a) / std::log(T(2)); }
template <class T> cplx<T> log10(cplx<T> a) { return std::log10(a); }

/// exp(z) - 1: near 0 the definition cancels, so a Taylor series there
/// (truncation error below |z|^7/5040, far under double precision).
template <class T> cplx<T> expm1(cplx<T> z) {
    using W = long double;
    const std::complex<W> w(z.real(), z.imag());
    if (std::abs(w) < W(1e-3)) {
        std::complex<W> term = w, sum = w;
        for (int k = 2; k <= 7; ++k) { term *= w / W(k); sum += term; }
        return {static_cast<T>(sum.real()), static_cast<T>(sum.imag())};
    }
    const std::complex<W> r = std::exp(w) - W(1);
    return {static_cast<T>(r.real()), static_cast<T>(r.imag())};
}

/// log(1 + z): Taylor series near 0, std::log(1 + z) (in long double) elsewhere.
template <class T> cplx<T> log1p(cplx<T> z) {
    using W = long double;
    const std::complex<W> w(z.real(), z.imag());
    if (std::abs(w) < W(1e-3)) {
        std::complex<W> power = w, sum = 0;
        for (int k = 1; k <= 8; ++k) { sum += (k % 2 ? W(1) : W(-1)) * power / W(k); power *= w; }
        return {static_cast<T>(sum.real()), static_cast<T>(sum.imag())};
    }
    const std::complex<W> r = std::log(W(1) + w);
    return {static_cast<T>(r.real()), static_cast<T>(r.imag())};
}

template <class T> cplx<T> sqrt(cplx<T> a) { return std::sqrt(a); }
template <class T> cplx<T> rsqrt(cplx<T> a) { return cplx<T>(1) / std::sqrt(a); }
template <class T> cplx<T> pow_scalar(cplx<T> a, cplx<T> exponent) { return std::pow(a, exponent); }
template <class T> cplx<T> pow_tensor(cplx<T> a, cplx<T> exponent) { return std::pow(a, exponent); }
/// z / |z|, and 0 at 0 (torch.sgn).
template <class T> cplx<T> sgn(cplx<T> a) { return a == cplx<T>(0) ? cplx<T>(0) : a / std::abs(a); }

// ---- trigonometric and hyperbolic ---------------------------------------
template <class T> cplx<T> sin(cplx<T> a) { return std::sin(a); }
template <class T> cplx<T> cos(cplx<T> a) { return std::cos(a); }
template <class T> cplx<T> tan(cplx<T> a) { return std::tan(a); }
template <class T> cplx<T> sinh(cplx<T> a) { return std::sinh(a); }
template <class T> cplx<T> cosh(cplx<T> a) { return std::cosh(a); }
template <class T> cplx<T> tanh(cplx<T> a) { return std::tanh(a); }
template <class T> cplx<T> asin(cplx<T> a) { return std::asin(a); }
template <class T> cplx<T> acos(cplx<T> a) { return std::acos(a); }
template <class T> cplx<T> atan(cplx<T> a) { return std::atan(a); }
template <class T> cplx<T> asinh(cplx<T> a) { return std::asinh(a); }
template <class T> cplx<T> acosh(cplx<T> a) { return std::acosh(a); }
template <class T> cplx<T> atanh(cplx<T> a) { return std::atanh(a); }

// ---- real output ----------------------------------------------------------
template <class T> T abs(cplx<T> a) { return std::abs(a); }
template <class T> T angle(cplx<T> a) { return std::arg(a); }
template <class T> T real(cplx<T> a) { return a.real(); }
template <class T> T imag(cplx<T> a) { return a.imag(); }
template <class T> bool isnan(cplx<T> a) { return std::isnan(a.real()) || std::isnan(a.imag()); }
template <class T> bool isinf(cplx<T> a) { return std::isinf(a.real()) || std::isinf(a.imag()); }

// ---- construction -----------------------------------------------------------
template <class T> cplx<T> polar(T abs, T angle) { return std::polar(abs, angle); }

// ---- componentwise (elementwise-safe; PyTorch rejects these for complex,
// realify applies them to each component as Torch-TensorRT does) ----------
template <class T> cplx<T> ceil(cplx<T> a) { return {std::ceil(a.real()), std::ceil(a.imag())}; }
template <class T> cplx<T> floor(cplx<T> a) { return {std::floor(a.real()), std::floor(a.imag())}; }
/// Half to even, like torch.round.
template <class T> cplx<T> round(cplx<T> a) { return {std::nearbyint(a.real()), std::nearbyint(a.imag())}; }
template <class T> cplx<T> trunc(cplx<T> a) { return {std::trunc(a.real()), std::trunc(a.imag())}; }

}  // namespace realify::reference
