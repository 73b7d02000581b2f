// Element kernels: the one place each elementwise op's formula lives.
//
// realify::kernels::element<op::X> is specialised for every elementwise op tag
// (kernels/arithmetic.hpp, exponential.hpp, power.hpp, trigonometric.hpp,
// real_output.hpp, rounding.hpp). A specialisation holds
//
//   the scalar forms   operator() overloads, one per operand-kind combination
//                      the op has: cpair<T> for a complex operand, T for a
//                      real one (T = float or double). They are correct for
//                      EVERY input: special values follow C99 Annex G (glibc's
//                      std::complex) or the documented deliberate semantics
//                      (docs/numerics.md), subnormal and near-overflow inputs
//                      give what std::complex gives. They are what the header
//                      paths compute (the lowerings of the dispatch table and
//                      the graph's fused loops), the fix-up path of the
//                      compiled kernels, and the reference those kernels are
//                      tested against.
//
//   the batch forms    static member templates on a vector vocabulary V (the
//                      xsimd wrapper of src/simd/isa/vocabulary.hpp,
//                      included only by the compiled kernels in src/):
//                        simd<V>(operands...[, redo])
//                            one lane per element: a complex operand is
//                            cpair<typename V::batch> (re and im registers), a
//                            real one typename V::batch;
//                        interleaved<V>(operands...[, redo])
//                            interleaved registers [re0, im0, re1, im1, …]:
//                            a complex operand is pairs<B>, a real one
//                            paired_real<B> ([r0, r0, r1, r1, …]).
//                      A form that can hand lanes back takes the mask `redo`
//                      (typename V::mask) and sets it on the lanes it cannot
//                      compute as the scalar form would — non-finite inputs
//                      or results, inputs outside its accurate range (the
//                      ranges below) — and the driver recomputes exactly those
//                      lanes with the scalar form; a form without `redo` is
//                      exact on every lane. An op without a batch form for
//                      some operand kinds runs its scalar form in the compiled
//                      kernels. Batch forms and their helpers are
//                      always_inline: the per-instruction-set units hold
//                      hundreds of kernels, and GCC's inliner would otherwise
//                      leave them as calls.
//
//   the formulas       formula and real_formula (std::string_view): what
//                      docs/ops.md and dispatch::print_table show for the
//                      op on complex and on real tensors. For an op whose
//                      kernels take one tensor and nothing else (unary_math,
//                      real_output, complex_part, real_unary in the op list)
//                      they are documented for exactly the forms the op list
//                      makes ops — the dispatch table's <op>_pairs and
//                      <op>_reals lowerings (realify/dispatch/lowerings/
//                      unary.hpp); tests/ops/test_dispatch.cpp checks it.
//
//   parameters         ops with constants (add/sub's α, pow_scalar's
//                      exponent) declare `template <class T> struct
//                      parameters`, built from the compiled kernels' params
//                      array (realify/simd/elementwise.hpp documents its
//                      layout), and take it as their last argument.
//
// These headers are cheap (no xtensor, no xsimd): the batch forms are
// templates whose every call goes through V, so they are instantiated only in
// the compiled kernels' translation units, which include xsimd. The scalar
// forms are compiled with the user's flags too, so they are written so that
// contracting a·b + c into an FMA (-ffp-contract=fast, -march=native) cannot
// change a special value: a product that can be infinite is never the
// multiplicand of a contracted difference with an equal product (see
// element<op::square>).
#pragma once

#include <cmath>
#include <complex>
#include <concepts>
#include <limits>
#include <type_traits>

#include "realify/ops/tags.hpp"

namespace realify::kernels {

/// One complex number as two reals; the unit the scalar forms compute on.
/// The batch forms use cpair<batch> for a register of real parts and one of
/// imaginary parts.
template <class T>
struct cpair {
    T re;
    T im;
};

/// A register of interleaved complex numbers [re0, im0, re1, im1, …] (the
/// batch forms of the interleaved arithmetic ops).
template <class B>
struct pairs {
    B v;
};

/// A register of reals, each repeated for both parts of a pair:
/// [r0, r0, r1, r1, …] (a real operand next to interleaved complex ones).
template <class B>
struct paired_real {
    B v;
};

/// The element kernel of an op tag; specialised in the family headers.
template <class Tag>
struct element;

/// −x for a real or a batch: the sign bit flipped, so −(+0) is −0 on every
/// instruction set (xsimd's unary minus is 0 − x on AVX-512F, which gives +0).
template <class T>
constexpr T negate(const T& x) noexcept {
    if constexpr (std::is_floating_point_v<T>) return -x;
    else return x ^ T(typename T::value_type(-0.0));
}

/// A real value as a complex pair (x + 0i); pairs unchanged.
template <class T>
constexpr cpair<T> to_pair(cpair<T> z) noexcept {
    return z;
}
template <std::floating_point T>
constexpr cpair<T> to_pair(T x) noexcept {
    return {x, T(0)};
}

namespace detail {

template <class T>
inline constexpr T quiet_nan = std::numeric_limits<T>::quiet_NaN();

template <class T>
inline bool finite(cpair<T> z) noexcept {
    return std::isfinite(z.re) && std::isfinite(z.im);
}

/// The C library's complex function on a pair: the C99 Annex G special-value
/// tables (dozens of cases per function), for non-finite inputs.
template <class T, class F>
[[gnu::cold]] inline cpair<T> annex_g(cpair<T> z, F f) noexcept {
    const std::complex<T> r = f(std::complex<T>(z.re, z.im));
    return {r.real(), r.imag()};
}

/// Above this, e^x overflows: log(max) (88.72 for float, 709.78 for double).
template <class T>
inline constexpr T exp_limit = sizeof(T) == sizeof(float) ? T(88.72283905206835) : T(709.782712893384);

/// e^x · f, and e^x · f / 2 with `half`, for x beyond exp_limit where e^x
/// overflows although the product may not (e^89·sin 0.001 in float,
/// cosh(100)·sin(1e-45)): computed in a wider type when it has the range,
/// else as a product of equal factors e^(x/k), largest first, so no
/// intermediate overflows before the result does or underflows at all.
template <class T>
T exp_times(T x, T f, bool half) noexcept {
    using wide = std::conditional_t<sizeof(T) == sizeof(float), double, long double>;
    if constexpr (std::numeric_limits<wide>::max_exponent >= 4 * std::numeric_limits<T>::max_exponent) {
        const wide r = std::exp(static_cast<wide>(x)) * static_cast<wide>(f);
        return static_cast<T>(half ? r / 2 : r);
    } else {
        // Two factors reach 2·exp_limit; beyond three any |f| ≥ the smallest
        // subnormal overflows anyway.
        const int k = x <= T(2) * exp_limit<T> ? 2 : 3;
        const T e = std::exp(x / T(k));
        T r = e * f;
        for (int i = 1; i + 1 < k; ++i) r *= e;
        return r * (half ? e / T(2) : e);
    }
}

/// Scales a finite z by an exact power of two 2^k when its parts are all tiny
/// (subnormal or nearly: |z| would lose precision) or one is near overflow
/// (|z| would overflow); returns k, even so a square root halves it exactly,
/// and 0 when z needs no scaling.
template <class T>
int normalize(cpair<T>& z) noexcept {
    constexpr T tiny = std::numeric_limits<T>::min() * T(std::numeric_limits<T>::digits);
    constexpr T huge = std::numeric_limits<T>::max() / T(4);
    const T m = std::fmax(std::abs(z.re), std::abs(z.im));
    const int k = m < tiny ? 2 * std::numeric_limits<T>::digits : (m > huge ? -4 : 0);
    if (k != 0) z = {std::scalbn(z.re, k), std::scalbn(z.im, k)};
    return k;
}

// ---- the ranges of the batch forms ----------------------------------------------
// A batch form computes the lanes inside its range with plain formulas and
// hands the rest to the scalar form (`redo`). The ranges keep squares,
// products and quotients of the parts away from overflow and from the
// subnormal range, where they lose accuracy.

/// Parts of magnitude in [safe_small, safe_big] square and multiply without
/// overflow or underflow (2^±60 for float, 2^±500 for double).
template <class T>
inline constexpr T safe_small = sizeof(T) == sizeof(float) ? T(0x1p-60) : T(0x1p-500);
template <class T>
inline constexpr T safe_big = sizeof(T) == sizeof(float) ? T(0x1p60) : T(0x1p500);
/// e^x is a normal number for x in [exp_low, exp_high].
template <class T>
inline constexpr T exp_low = sizeof(T) == sizeof(float) ? T(-87) : T(-707);
template <class T>
inline constexpr T exp_high = sizeof(T) == sizeof(float) ? T(88) : T(709);
/// The batch sine and cosine reduce |x| up to this accurately (Cody–Waite).
template <class T>
inline constexpr T trig_limit = sizeof(T) == sizeof(float) ? T(128) : T(0x1p19);

/// |re| + |im|: within a factor 2 of max(|re|, |im|), and NaN or inf when a
/// part is (a max would drop a NaN).
template <class T>
T l1(cpair<T> z) noexcept {
    return std::abs(z.re) + std::abs(z.im);
}
template <class V>
[[gnu::always_inline]] inline typename V::batch l1(const cpair<typename V::batch>& z) noexcept {
    return V::abs(z.re) + V::abs(z.im);
}

/// The lanes of a batch whose magnitude is outside [lo, hi] (NaN included):
/// `~(lo <= |x| <= hi)`. (Lane tests are written with ordered comparisons
/// under a negation, never with `!=`: xsimd's != is unordered on SSE2 but
/// ordered on AVX, so NaN != 0 differs between instruction sets. And the
/// negation is `~`, a bitwise not: xsimd's `!` compares with false, five
/// instructions on AVX2.)
template <class V>
[[gnu::always_inline]] inline typename V::mask outside(const typename V::batch& magnitude, typename V::value_type lo, typename V::value_type hi) noexcept {
    return ~((magnitude >= typename V::batch(lo)) & (magnitude <= typename V::batch(hi)));
}

}  // namespace detail
}  // namespace realify::kernels
