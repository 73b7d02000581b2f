// realify::reference — the oracle. Scalar reference implementations of every
// elementwise op on std::complex, written with <complex> and <cmath>
// functions, deliberately NOT with the real-arithmetic formulas of the
// lowerings, so a test comparing the two compares independent computations
// (as PyTorch's Python references, torch._refs, check its kernels). Where <complex> has no function (expm1,
// log1p, sgn, …) the reference is the textbook definition evaluated with
// std::complex, with a short Taylor series where the definition cancels.
//
// Every op with unary or binary kernels and every tensor-number op
// (REALIFY_UNARY_KERNEL_OPS, REALIFY_BINARY_KERNEL_OPS, REALIFY_SCALAR_OPS)
// has its reference here under its own name: on std::complex<T> where the op has a complex form,
// and on a real T (float, double, long double) where it has a real one — PyTorch's real
// function, which is std::'s except where PyTorch defines it otherwise (sgn,
// angle, round). The suites find them by the op's name, so a missing one is a
// compile error in the suites.
#pragma once

#include <cmath>
#include <complex>
#include <concepts>
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
// The tensor-number ops (aten's .Scalar overloads), each of a complex and of
// a real number s: a real one is no complex number with a zero imaginary part
// (add.Scalar moves only the real part, mul.Scalar scales both parts).
template <class T> cplx<T> add_scalar(cplx<T> a, cplx<T> s, T alpha = T(1)) { return a + alpha * s; }
template <class T> cplx<T> add_scalar(cplx<T> a, T s, T alpha = T(1)) { return {a.real() + alpha * s, a.imag()}; }
template <class T> cplx<T> sub_scalar(cplx<T> a, cplx<T> s, T alpha = T(1)) { return a - alpha * s; }
template <class T> cplx<T> sub_scalar(cplx<T> a, T s, T alpha = T(1)) { return {a.real() - alpha * s, a.imag()}; }
template <class T> cplx<T> mul_scalar(cplx<T> a, T s) { return a * s; }
template <class T> cplx<T> mul_scalar(cplx<T> a, cplx<T> s) { return a * s; }
template <class T> cplx<T> div_scalar(cplx<T> a, T s) { return a / s; }
template <class T> cplx<T> div_scalar(cplx<T> a, cplx<T> s) { return a / s; }
template <class T> cplx<T> neg(cplx<T> a) { return -a; }
template <class T> cplx<T> conj(cplx<T> a) { return std::conj(a); }
template <class T> cplx<T> reciprocal(cplx<T> a) { return cplx<T>(1) / a; }
/// z·z by the plain formula (a² − b²) + i·2ab, as PyTorch computes it: no C99
/// Annex G recovery of a NaN result (square(−inf + NaN·i) is NaN + NaN·i where
/// std::complex's z·z gives inf + NaN·i). The products are rounded one by one
/// (volatile), so no contraction into a multiply-add changes them.
template <class T> cplx<T> square(cplx<T> a) {
    volatile T aa = a.real() * a.real(), bb = a.imag() * a.imag(), ab = a.real() * a.imag();
    return {aa - bb, ab * T(2)};
}

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
/// pow.Tensor_Scalar: exponent 0 gives 1 for every base in PyTorch (std::pow(0, 0) is NaN).
template <class T> cplx<T> pow_scalar(cplx<T> a, cplx<T> exponent) {
    return exponent == cplx<T>(0) ? cplx<T>(1) : std::pow(a, exponent);
}
template <class T> cplx<T> pow_scalar(cplx<T> a, T exponent) { return pow_scalar(a, cplx<T>(exponent)); }
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

// ---- ordering: real values only (PyTorch orders no complex values) --------
/// torch.maximum / torch.minimum: NaN if either operand is, +0 above −0.
template <std::floating_point T> T maximum(T a, T b) {
    if (a != a || b != b) return a + b;
    if (a == b) return std::signbit(a) ? b : a;
    return a < b ? b : a;
}
template <std::floating_point T> T minimum(T a, T b) {
    if (a != a || b != b) return a + b;
    if (a == b) return std::signbit(a) ? a : b;
    return a < b ? a : b;
}
/// torch.clamp_min(x, lo) / clamp_max(x, hi): NaN if x or the bound is, x
/// where it equals the bound (−0 kept).
template <std::floating_point T> T clamp_min(T x, T lo) { return x != x || lo != lo ? x + lo : (x < lo ? lo : x); }
template <std::floating_point T> T clamp_max(T x, T hi) { return x != x || hi != hi ? x + hi : (hi < x ? hi : x); }

// ---- construction -----------------------------------------------------------
template <class T> cplx<T> polar(T abs, T angle) { return std::polar(abs, angle); }

// ---- componentwise (elementwise-safe; PyTorch rejects these for complex,
// realify applies them to each component as Torch-TensorRT does) ----------
template <class T> cplx<T> ceil(cplx<T> a) { return {std::ceil(a.real()), std::ceil(a.imag())}; }
template <class T> cplx<T> floor(cplx<T> a) { return {std::floor(a.real()), std::floor(a.imag())}; }
/// Half to even, like torch.round.
template <class T> cplx<T> round(cplx<T> a) { return {std::nearbyint(a.real()), std::nearbyint(a.imag())}; }
template <class T> cplx<T> trunc(cplx<T> a) { return {std::trunc(a.real()), std::trunc(a.imag())}; }

// ---- the real forms (PyTorch's ops on real tensors) --------------------------
template <std::floating_point T> T neg(T x) { return -x; }
template <std::floating_point T> T conj(T x) { return x; }
template <std::floating_point T> T reciprocal(T x) { return T(1) / x; }
template <std::floating_point T> T square(T x) { return x * x; }
template <std::floating_point T> T exp(T x) { return std::exp(x); }
template <std::floating_point T> T expm1(T x) { return std::expm1(x); }
template <std::floating_point T> T log(T x) { return std::log(x); }
template <std::floating_point T> T log2(T x) { return std::log2(x); }
template <std::floating_point T> T log10(T x) { return std::log10(x); }
template <std::floating_point T> T log1p(T x) { return std::log1p(x); }
template <std::floating_point T> T sqrt(T x) { return std::sqrt(x); }
template <std::floating_point T> T rsqrt(T x) { return T(1) / std::sqrt(x); }
/// torch.sgn of a real tensor is torch.sign: NaN gives 0.
template <std::floating_point T> T sgn(T x) { return T((T(0) < x) - (x < T(0))); }
template <std::floating_point T> T sin(T x) { return std::sin(x); }
template <std::floating_point T> T cos(T x) { return std::cos(x); }
template <std::floating_point T> T tan(T x) { return std::tan(x); }
template <std::floating_point T> T sinh(T x) { return std::sinh(x); }
template <std::floating_point T> T cosh(T x) { return std::cosh(x); }
template <std::floating_point T> T tanh(T x) { return std::tanh(x); }
template <std::floating_point T> T asin(T x) { return std::asin(x); }
template <std::floating_point T> T acos(T x) { return std::acos(x); }
template <std::floating_point T> T atan(T x) { return std::atan(x); }
template <std::floating_point T> T asinh(T x) { return std::asinh(x); }
template <std::floating_point T> T acosh(T x) { return std::acosh(x); }
template <std::floating_point T> T atanh(T x) { return std::atanh(x); }
template <std::floating_point T> T ceil(T x) { return std::ceil(x); }
template <std::floating_point T> T floor(T x) { return std::floor(x); }
/// Half to even, like torch.round.
template <std::floating_point T> T round(T x) { return std::nearbyint(x); }
template <std::floating_point T> T trunc(T x) { return std::trunc(x); }
template <std::floating_point T> T abs(T x) { return std::abs(x); }
/// torch.angle of a real tensor: π below 0, NaN stays NaN.
template <std::floating_point T> T angle(T x) { return std::isnan(x) ? x : (x < 0 ? std::numbers::pi_v<T> : T(0)); }
template <std::floating_point T> T real(T x) { return x; }
template <std::floating_point T> T imag(T x) { return T(0); }
template <std::floating_point T> T sigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }
template <std::floating_point T> T silu(T x) { return x / (T(1) + std::exp(-x)); }
template <std::floating_point T> T erf(T x) { return std::erf(x); }
template <std::floating_point T> bool isnan(T x) { return std::isnan(x); }
template <std::floating_point T> bool isinf(T x) { return std::isinf(x); }

}  // namespace realify::reference
