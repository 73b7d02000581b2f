// Element kernels of the arithmetic ops: add, sub (with α), mul, div, neg,
// conj, reciprocal, square, and the tags that reuse them (add_scalar,
// sub_scalar, mul_scalar, div_scalar). See kernels/element.hpp for the
// contract.
//
// Semantics (docs/numerics.md):
//   - mul is the plain formula (ac − bd) + i(ad + bc), as PyTorch's c10::complex
//     and its vector kernels: no C99 Annex G recovery (realify::simd::mul's
//     nan_policy::strict adds it);
//   - a real operand moves only the real part in add/sub, and scales both
//     parts in mul/div (never a complex multiply by x + 0i, which would turn
//     inf·0 into NaN);
//   - division by a complex zero, or by a real zero, gives NaN + NaN·i as
//     PyTorch 1.13 (C99 gives an infinity); non-finite operands of a complex
//     division take std::complex's (C99 Annex G) value.
#pragma once

#include <cmath>
#include <complex>
#include <concepts>
#include <limits>
#include <string_view>

#include "realify/kernels/complex_product.hpp"
#include "realify/kernels/element.hpp"

namespace realify::kernels {

namespace detail {

/// p − q for two products of the plain complex formulas. Where one is
/// infinite the result is chosen without arithmetic (inf − q = inf,
/// p − inf = −inf, inf − inf = NaN), so p and q each have a use no compiler
/// can fuse with the subtraction: contracting p − q into fma(a, b, −q) would
/// turn an overflowed p or a (1e30 + inf·i)² into a different infinity.
template <class T>
T difference_of_products(T p, T q) noexcept {
    const bool inf_p = std::isinf(p), inf_q = std::isinf(q);
    if (inf_p || inf_q) [[unlikely]] {
        if (p != p || q != q) return quiet_nan<T>;
        if (inf_p && inf_q) return (p > T(0)) == (q > T(0)) ? quiet_nan<T> : p;
        return inf_p ? p : -q;
    }
    return p - q;
}

/// add (Sign = 1) and sub (Sign = −1).
template <int Sign>
struct additive {
    /// α: params = {Re α, Im α}. With α the result is x ± α·y, the product
    /// by element<op::mul>'s formula with real operands lifted to x + 0i
    /// (PyTorch's a + alpha·b); without it the parts are added
    /// componentwise, so a NaN in one part of y stays in that part.
    template <class T>
    struct parameters {
        cpair<T> signed_alpha;  // ±α
        explicit parameters(const T* params) noexcept : signed_alpha{T(Sign) * params[0], T(Sign) * params[1]} {}
    };

    template <class T>
    cpair<T> operator()(cpair<T> x, cpair<T> y) const noexcept {
        return {x.re + T(Sign) * y.re, x.im + T(Sign) * y.im};
    }
    template <std::floating_point T>
    cpair<T> operator()(cpair<T> x, T y) const noexcept {
        return {x.re + T(Sign) * y, x.im};
    }
    template <std::floating_point T>
    cpair<T> operator()(T x, cpair<T> y) const noexcept {
        return {x + T(Sign) * y.re, T(Sign) * y.im};
    }
    template <std::floating_point T>
    T operator()(T x, T y) const noexcept {
        return x + T(Sign) * y;
    }
    template <class X, class Y, class T>
        requires(!std::floating_point<X> || !std::floating_point<Y>)
    cpair<T> operator()(X x, Y y, const parameters<T>& p) const noexcept;
    /// real ± α·real uses Re α (a real op's α is real).
    template <std::floating_point T>
    T operator()(T x, T y, const parameters<T>& p) const noexcept {
        return x + p.signed_alpha.re * y;
    }

    // ---- batch forms ----
    // Interleaved. A real operand is lifted with the imaginary part that
    // leaves the other operand's imaginary part bit for bit unchanged:
    // x.im + (−0) and x.im − (+0) are x.im, −0 + y.im is y.im and −0 − y.im is
    // −y.im, for every value including signed zeros and NaN.
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(pairs<typename V::batch> x, pairs<typename V::batch> y) noexcept {
        if constexpr (Sign > 0) return {x.v + y.v};
        else return {x.v - y.v};
    }
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(pairs<typename V::batch> x, paired_real<typename V::batch> y) noexcept {
        using T = typename V::value_type;
        if constexpr (Sign > 0) return {x.v + V::with_imag(y.v, T(-0.0))};
        else return {x.v - V::with_imag(y.v, T(0))};
    }
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(paired_real<typename V::batch> x, pairs<typename V::batch> y) noexcept {
        using T = typename V::value_type;
        if constexpr (Sign > 0) return {V::with_imag(x.v, T(-0.0)) + y.v};
        else return {V::with_imag(x.v, T(-0.0)) - y.v};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::batch y) noexcept {
        if constexpr (Sign > 0) return x + y;
        else return x - y;
    }
    // With α: x + (±α)·y, the product by element<op::mul>'s batch form, a real
    // operand lifted to r + 0i; the lanes whose result is not finite go to
    // the scalar form (the plain formula's special values).
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(pairs<typename V::batch> x,
                                                                       pairs<typename V::batch> y,
                                                                       const parameters<typename V::value_type>& p,
                                                                       typename V::mask& redo) noexcept {
        return with_alpha<V>(x.v, y.v, p, redo);
    }
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(pairs<typename V::batch> x,
                                                                       paired_real<typename V::batch> y,
                                                                       const parameters<typename V::value_type>& p,
                                                                       typename V::mask& redo) noexcept {
        return with_alpha<V>(x.v, V::with_imag(y.v, typename V::value_type(0)), p, redo);
    }
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(paired_real<typename V::batch> x,
                                                                       pairs<typename V::batch> y,
                                                                       const parameters<typename V::value_type>& p,
                                                                       typename V::mask& redo) noexcept {
        return with_alpha<V>(V::with_imag(x.v, typename V::value_type(0)), y.v, p, redo);
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::batch y,
                                                         const parameters<typename V::value_type>& p) noexcept {
        // not fused: α·y rounds (and overflows) as in the scalar form
        return x + typename V::batch(p.signed_alpha.re) * y;
    }

private:
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> with_alpha(const typename V::batch& x,
                                                                      const typename V::batch& y,
                                                                      const parameters<typename V::value_type>& p,
                                                                      typename V::mask& redo) noexcept;
};

}  // namespace detail

template <>
struct element<op::add> : detail::additive<1> {};
template <>
struct element<op::sub> : detail::additive<-1> {};
/// add.Scalar / sub.Scalar: the lowering folds α and the sign into the
/// shift, then adds it.
template <>
struct element<op::add_scalar> : element<op::add> {};
template <>
struct element<op::sub_scalar> : element<op::add> {};

template <>
struct element<op::mul> {
    /// (ac − bd) + i(ad + bc). A product that is infinite decides its part
    /// without arithmetic, and every product is also used by that test, so
    /// no compiler contracts a·b ± c·d into a fused multiply-add (which would
    /// change inf − inf = NaN into an infinity, as it did for square).
    template <class T>
    cpair<T> operator()(cpair<T> a, cpair<T> b) const noexcept {
        return {detail::difference_of_products(a.re * b.re, a.im * b.im),
                detail::difference_of_products(a.re * b.im, -(a.im * b.re))};
    }
    /// complex × real scales both parts (as std::complex's operator*).
    template <std::floating_point T>
    cpair<T> operator()(cpair<T> a, T s) const noexcept {
        return {a.re * s, a.im * s};
    }
    template <std::floating_point T>
    cpair<T> operator()(T s, cpair<T> a) const noexcept {
        return {s * a.re, s * a.im};
    }
    template <std::floating_point T>
    T operator()(T x, T y) const noexcept {
        return x * y;
    }

    // ---- batch forms ----
    /// interleaved_product of a's duplicated parts and b (complex_product.hpp):
    /// three in-lane shuffles, a multiply and a fused multiply-add/sub. On FMA
    /// machines finite results are the fused ones.
    template <class V>
    [[gnu::always_inline]] static typename V::batch product(typename V::batch a, typename V::batch b) noexcept {
        return interleaved_product<V>(V::dup_real(a), V::dup_imag(a), b);
    }
    /// The lanes of a product r = fmaddsub(x, y, t) that the scalar form must
    /// redo: r not finite, or the fused product x·y overflowing on its own.
    /// The plain formula rounds x·y to an infinity before the subtraction;
    /// fused, x·y − t may stay finite ((1.03² − 0.42²)·max is), so without the
    /// second test FMA machines would give a finite part where the plain
    /// formula, std::complex and the other instruction sets give an infinity.
    template <class V>
    [[gnu::always_inline]] static typename V::mask redo_lanes(typename V::batch r, typename V::batch x,
                                                              typename V::batch y) noexcept {
        return V::not_finite(r) | V::not_finite(x * y);
    }
    /// The screen of a block of products (one test per block instead of
    /// redo_lanes per register): e + r·r. If every lane of the sum over the
    /// block is finite, redo_lanes is empty for every register r =
    /// fmaddsub(x, y, t) of the block (t a rounded product, as in every
    /// multiply kernel; fmsubadd alike). Why: r·r finite means r finite, and
    /// |r| < 2^64 (float) / 2^512 (double). If x·y overflowed alone, its
    /// exact value would be a multiple of ulp(x)·ulp(y) ≥ 2^80 (2^918), as
    /// would t if |t| ≥ 2^104 (2^970), so the nonzero x·y ∓ t — whose
    /// rounding is r — would be at least 2^80 (2^918) in magnitude; and if t
    /// were smaller, r would be nearly the overflowing x·y itself. Either way
    /// r·r would overflow. Without FMA an overflowing x·y is rounded to an
    /// infinity first, so r is not finite. The converse does not hold (a
    /// block of finite products above 2^64 fails the screen): a failed
    /// screen sends the block to the per-register test, which decides.
    template <class V>
    [[gnu::always_inline]] static typename V::batch screen(typename V::batch r, typename V::batch e) noexcept {
        return V::fma(r, r, e);
    }
    /// The product, with the lanes redo_lanes names redone by the scalar
    /// form: special values are the plain formula's on every instruction set,
    /// fused or not.
    template <class V>
    [[gnu::always_inline]] static typename V::batch product(typename V::batch a, typename V::batch b,
                                                            typename V::mask& redo) noexcept {
        const auto r = product<V>(a, b);
        redo = redo | redo_lanes<V>(r, V::dup_real(a), b);
        return r;
    }
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(pairs<typename V::batch> a, pairs<typename V::batch> b,
                                                typename V::mask& redo) noexcept {
        return {product<V>(a.v, b.v, redo)};
    }
    /// The screened form of the above (the compiled kernels' hot loop): the
    /// product, its screen added to e.
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved_screened(pairs<typename V::batch> a,
                                                                                pairs<typename V::batch> b,
                                                                                typename V::batch& e) noexcept {
        const auto r = product<V>(a.v, b.v);
        e = screen<V>(r, e);
        return {r};
    }
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(pairs<typename V::batch> a, paired_real<typename V::batch> s) noexcept {
        return {a.v * s.v};
    }
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(paired_real<typename V::batch> s, pairs<typename V::batch> a) noexcept {
        return {s.v * a.v};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::batch y) noexcept {
        return x * y;
    }
};
/// mul.Scalar: complex × real number.
template <>
struct element<op::mul_scalar> : element<op::mul> {};

template <int Sign>
template <class V>
[[gnu::always_inline]] inline pairs<typename V::batch> detail::additive<Sign>::with_alpha(
    const typename V::batch& x, const typename V::batch& y, const parameters<typename V::value_type>& p,
    typename V::mask& redo) noexcept {
    using B = typename V::batch;
    const B alpha = V::with_imag(B(p.signed_alpha.re), p.signed_alpha.im);
    const B r = x + element<op::mul>::product<V>(alpha, y, redo);
    redo = redo | V::not_finite(r);
    return {r};
}

template <int Sign>
template <class X, class Y, class T>
    requires(!std::floating_point<X> || !std::floating_point<Y>)
cpair<T> detail::additive<Sign>::operator()(X x, Y y, const parameters<T>& p) const noexcept {
    const cpair<T> product = element<op::mul>{}(p.signed_alpha, to_pair(y));
    const cpair<T> lifted = to_pair(x);
    return {lifted.re + product.re, lifted.im + product.im};
}

namespace detail {

/// a / b for finite operands inside the batch range (div_in_range): the
/// plain formula a·conj(b)/|b|², no square or product of which overflows or
/// underflows there.
template <class T>
cpair<T> div_plain(cpair<T> a, cpair<T> b) noexcept {
    const T inv = T(1) / (b.re * b.re + b.im * b.im);
    return {(a.re * b.re + a.im * b.im) * inv, (a.im * b.re - a.re * b.im) * inv};
}

/// a / b for any finite operands and b ≠ 0, outside the batch range: the
/// plain formula in a type with twice the exponent range (double for float,
/// the x87 long double for double), where no square or product of finite
/// parts overflows or underflows, rounded once more at the end
/// (1e-39f / 1e-39f is 1, (−1e-30 − 1e30i) / (−1e-30) is 1 + inf·i). Where
/// long double has no more range than double, std::complex's division
/// (libgcc's scaled algorithm).
template <class T>
cpair<T> div_wide(cpair<T> a, cpair<T> b) noexcept {
    using W = std::conditional_t<sizeof(T) == sizeof(float), double, long double>;
    if constexpr (std::numeric_limits<W>::max_exponent >= 2 * std::numeric_limits<T>::max_exponent + 2) {
        const W c = b.re, d = b.im;
        const W inv = W(1) / (c * c + d * d);
        return {static_cast<T>((a.re * c + a.im * d) * inv), static_cast<T>((a.im * c - a.re * d) * inv)};
    } else {
        const std::complex<T> r = std::complex<T>(a.re, a.im) / std::complex<T>(b.re, b.im);
        return {r.real(), r.imag()};
    }
}

/// The operands div_plain computes as div_wide would: the divisor's
/// magnitude |c| + |d| in [safe_small, safe_big], the dividend's at most
/// safe_big and zero or at least safe_small. False for non-finite operands
/// (the sums propagate NaN) and zero divisors.
template <class T>
bool div_in_range(cpair<T> a, cpair<T> b) noexcept {
    const T mb = l1(b), ma = l1(a);
    return mb >= safe_small<T> && mb <= safe_big<T> && ma <= safe_big<T> && (ma >= safe_small<T> || ma == T(0));
}

/// The batch form of div_plain with its range (redo outside it): the
/// divisor's by |b|² (computed anyway; NaN fails the test), the dividend's by
/// |re| + |im|. `one_numerator`: a is 1 (reciprocal), no test on it.
template <class V, bool one_numerator = false>
[[gnu::always_inline]] inline cpair<typename V::batch> div_batch(cpair<typename V::batch> a, cpair<typename V::batch> b,
                                                                 typename V::mask& redo) noexcept {
    using B = typename V::batch;
    using T = typename V::value_type;
    const B den = V::fma(b.re, b.re, b.im * b.im);
    auto bad = ~((den >= B(safe_small<T> * safe_small<T>)) & (den <= B(safe_big<T> * safe_big<T>)));
    if constexpr (!one_numerator) {
        const B ma = l1<V>(a);
        bad = bad | ~((ma <= B(safe_big<T>)) & ((ma >= B(safe_small<T>)) | (ma == B(T(0)))));
    }
    redo = redo | bad;
    const B inv = B(T(1)) / den;
    if constexpr (one_numerator) {
        return {b.re * inv, negate(b.im) * inv};
    } else {
        const cpair<B> numerator = split_product_conj<V>(a, b);
        return {numerator.re * inv, numerator.im * inv};
    }
}

}  // namespace detail

template <>
struct element<op::div> {
    /// A zero divisor of finite operands gives NaN + NaN·i (PyTorch 1.13); a
    /// non-finite operand takes C99 Annex G (std::complex's division).
    /// Otherwise a·conj(b)/|b|², in a wider type when the parts are tiny or
    /// huge.
    template <class T>
    cpair<T> operator()(cpair<T> a, cpair<T> b) const noexcept {
        if (detail::div_in_range(a, b)) [[likely]]
            return detail::div_plain(a, b);
        if (detail::finite(a) && detail::finite(b)) {
            if (b.re == T(0) && b.im == T(0)) return {detail::quiet_nan<T>, detail::quiet_nan<T>};
            return detail::div_wide(a, b);
        }
        const std::complex<T> r = std::complex<T>(a.re, a.im) / std::complex<T>(b.re, b.im);
        return {r.real(), r.imag()};
    }
    /// Complex ÷ real divides both parts; a zero divisor gives NaN + NaN·i
    /// (PyTorch 1.13). Branch-free.
    template <std::floating_point T>
    cpair<T> operator()(cpair<T> a, T s) const noexcept {
        const cpair<T> q{a.re / s, a.im / s};
        return s == T(0) ? cpair<T>{detail::quiet_nan<T>, detail::quiet_nan<T>} : q;
    }
    /// Real ÷ complex: x + 0i ÷ b.
    template <std::floating_point T>
    cpair<T> operator()(T x, cpair<T> b) const noexcept {
        return (*this)(to_pair(x), b);
    }
    template <std::floating_point T>
    T operator()(T x, T y) const noexcept {
        return x / y;
    }

    // ---- batch forms ----
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> a, cpair<typename V::batch> b,
                                         typename V::mask& redo) noexcept {
        return detail::div_batch<V>(a, b, redo);
    }
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(typename V::batch x, cpair<typename V::batch> b,
                                         typename V::mask& redo) noexcept {
        using B = typename V::batch;
        return detail::div_batch<V>({x, B(typename V::value_type(0))}, b, redo);
    }
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(pairs<typename V::batch> a, paired_real<typename V::batch> s) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        return {V::select(s.v == B(T(0)), B(detail::quiet_nan<T>), a.v / s.v)};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::batch y) noexcept {
        return x / y;
    }
};
/// div.Scalar: complex ÷ real number.
template <>
struct element<op::div_scalar> : element<op::div> {};

template <>
struct element<op::reciprocal> {
    static constexpr std::string_view formula = "1/z by the scaled division (zero: NaN as PyTorch)";
    static constexpr std::string_view real_formula = "1 / x on real tensors";
    /// 1 ÷ z by element<op::div> (zero: NaN + NaN·i as PyTorch).
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        return element<op::div>{}(cpair<T>{T(1), T(0)}, z);
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return T(1) / x;
    }
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z, typename V::mask& redo) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        return detail::div_batch<V, true>({B(T(1)), B(T(0))}, z, redo);
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        return typename V::batch(typename V::value_type(1)) / x;
    }
};

template <>
struct element<op::neg> {
    static constexpr std::string_view formula = "−layout (both components)";
    static constexpr std::string_view real_formula = "−x on real tensors";
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        return {-z.re, -z.im};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return -x;
    }
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(pairs<typename V::batch> z) noexcept {
        return {negate(z.v)};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        return negate(x);
    }
};

template <>
struct element<op::conj> {
    static constexpr std::string_view formula = "a − i·b";
    static constexpr std::string_view real_formula = "x: a real tensor is its own conjugate (PyTorch returns the "
                                                     "tensor)";
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        return {z.re, -z.im};
    }
    /// A real number is its own conjugate.
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return x;
    }
    template <class V>
    [[gnu::always_inline]] static pairs<typename V::batch> interleaved(pairs<typename V::batch> z) noexcept {
        return {V::negate_imag(z.v)};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        return x;
    }
};

template <>
struct element<op::square> {
    static constexpr std::string_view formula = "(a − b)(a + b) + i·2ab (the special values of z·z)";
    static constexpr std::string_view real_formula = "x · x on real tensors";
    /// z·z by the plain formula (a² − b²) + i·2ab, what std::complex and
    /// PyTorch compute, with element<op::mul>'s protection from contraction:
    /// square(1e30 + inf·i) is NaN + inf·i and (a + ai)² has a real part of
    /// exactly 0 whatever the user's -ffp-contract or -march.
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        return {detail::difference_of_products(z.re * z.re, z.im * z.im), (z.re * z.im) * T(2)};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return x * x;
    }
    /// a·a − b·b, not fused (its special values are the plain formula's);
    /// the kernels' translation units do not contract.
    template <class V>
    [[gnu::always_inline]] static cpair<typename V::batch> simd(cpair<typename V::batch> z) noexcept {
        using B = typename V::batch;
        using T = typename V::value_type;
        return {z.re * z.re - z.im * z.im, (z.re * z.im) * B(T(2))};
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept {
        return x * x;
    }
};

}  // namespace realify::kernels
