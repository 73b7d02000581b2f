// Lowerings of the arithmetic ops: mul, div, add, sub (tensor and scalar
// forms), neg, conj, reciprocal, square, pow. Each candidate states which
// operand types it handles (compile-time validator); a complex operand is a
// complex_layout or a std::complex number, a real one a real tensor or a
// C++ number.
#pragma once

#include <cmath>
#include <complex>
#include <string_view>

#include "realify/dispatch/lowerings/common.hpp"
#include "realify/dispatch/lowerings/simd_mul.hpp"

namespace realify::dispatch {
namespace lowering {

template <class A, class B>
inline constexpr bool one_complex_one_real =
    (complex_operand<A> && real_operand<B>) || (real_operand<A> && complex_operand<B>);
template <class A, class B>
inline constexpr bool complex_and_complex = complex_operand<A> && complex_operand<B>;
template <class A, class B>
inline constexpr bool some_tensor = tensor_operand<A> || tensor_operand<B>;

// ---- mul -------------------------------------------------------------------------
struct mul_by_real {
    using op = op::mul;
    static constexpr std::string_view name = "mul_by_real";
    static constexpr std::string_view formula = "(a·s) + i(b·s): complex × real scales both parts";
    template <class A, class B>
    static constexpr bool accepts = one_complex_one_real<A, B> && some_tensor<A, B>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        return elementwise<op>(
            []<class X, class Y>(X x, Y y) {
                if constexpr (std::is_arithmetic_v<X>) return kernel::scale(y, x);
                else return kernel::scale(x, y);
            },
            a, b);
    }
};
struct mul_pairs {
    using op = op::mul;
    static constexpr std::string_view name = "mul_pairs";
    static constexpr std::string_view formula = "(ac − bd) + i(ad + bc)";
    template <class A, class B>
    static constexpr bool accepts = complex_and_complex<A, B> && some_tensor<A, B>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        return elementwise<op>([](auto x, auto y) { return kernel::mul(x, y); }, a, b);
    }
};

// ---- div -------------------------------------------------------------------------
struct div_by_real {
    using op = op::div;
    static constexpr std::string_view name = "div_by_real";
    static constexpr std::string_view formula = "a/s + i·b/s (s = 0: NaN + NaN·i as PyTorch)";
    template <class A, class B>
    static constexpr bool accepts = complex_operand<A> && real_operand<B> && some_tensor<A, B>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        // A zero divisor makes the plain quotient inf or NaN, so the rerun
        // with div_real (NaN + NaN·i there) covers every zero divisor.
        return elementwise_with_fixup<op>([](auto x, auto s) { return decltype(x){x.re / s, x.im / s}; },
                                          [](auto x, auto s) { return kernel::div_real(x, s); }, a, b);
    }
};
struct div_pairs {
    using op = op::div;
    static constexpr std::string_view name = "div_scaled";
    static constexpr std::string_view formula =
        "m = max(|c|,|d|), c' = c/m, d' = d/m: ((a·c' + b·d') + i(b·c' − a·d')) / (c·c' + d·d') — no overflow in c²+d², "
        "branch-free; zero divisor: NaN (as PyTorch)";
    template <class A, class B>
    static constexpr bool accepts = complex_operand<B> && elementwise_operand<A> && some_tensor<A, B>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        return elementwise_with_fixup<op>([](auto x, auto y) { return kernel::div(to_pair(x), y); },
                                          [](auto x, auto y) { return kernel::div_careful(to_pair(x), y); }, a, b);
    }
};

// ---- add / sub -------------------------------------------------------------------
template <class Tag, int Sign>
struct add_sub_pairs {
    using op = Tag;
    static constexpr std::string_view name = Sign > 0 ? "add_pairs" : "sub_pairs";
    static constexpr std::string_view formula =
        Sign > 0 ? "(a + α·c) + i(b + α·d); a real operand moves only the real part (broadcast over complex "
                   "elements, never over the [re, im] axis)"
                 : "(a − α·c) + i(b − α·d); a real operand moves only the real part";
    template <class A, class B, class... Alpha>
    static constexpr bool accepts = (complex_operand<A> || complex_operand<B>) && elementwise_operand<A> &&
                                    elementwise_operand<B> && some_tensor<A, B> && (number_operand<Alpha> && ...) &&
                                    sizeof...(Alpha) <= 1;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        return elementwise<op>(
            []<class X, class Y>(X x, Y y) {
                if constexpr (std::is_arithmetic_v<Y>) return decltype(x){x.re + Sign * y, x.im};
                else if constexpr (std::is_arithmetic_v<X>) return decltype(y){x + Sign * y.re, Sign * y.im};
                else return decltype(x){x.re + Sign * y.re, x.im + Sign * y.im};
            },
            a, b);
    }
    template <class A, class B, class Alpha>
    static auto apply(const A& a, const B& b, const Alpha& alpha) {
        using T = promoted_real_t<A, B>;
        const std::complex<T> w(alpha);
        const cpair<T> s{Sign * w.real(), Sign * w.imag()};
        return elementwise<op>([s](auto x, auto y) { return kernel::add(to_pair(x), kernel::mul(s, to_pair(y))); }, a,
                               b);
    }
};
using add_pairs = add_sub_pairs<op::add, 1>;
using sub_pairs = add_sub_pairs<op::sub, -1>;

/// add.Scalar / sub.Scalar: a real scalar moves only the real part.
template <class Tag, int Sign>
struct scalar_shift {
    using op = Tag;
    static constexpr std::string_view name = Sign > 0 ? "add_scalar_real_part" : "sub_scalar_real_part";
    static constexpr std::string_view formula =
        Sign > 0 ? "(a + α·s) + i·b for real s; (a + α·Re s) + i(b + α·Im s) for complex s"
                 : "(a − α·s) + i·b for real s; (a − α·Re s) + i(b − α·Im s) for complex s";
    template <class A, class S, class... Alpha>
    static constexpr bool accepts = complex_tensor_operand<A> && number_operand<S> && (number_operand<Alpha> && ...) &&
                                    sizeof...(Alpha) <= 1;
    template <class A, class S, class... Alpha>
    static auto apply(const A& a, const S& s, const Alpha&... alpha) {
        using T = promoted_real_t<A, S, Alpha...>;
        std::complex<T> shift{};
        if constexpr (complex_number_operand<S>) shift = std::complex<T>(T(s.real()), T(s.imag()));
        else shift = std::complex<T>(static_cast<T>(s), T(0));
        ((shift *= std::complex<T>(alpha)), ...);
        const cpair<T> d{Sign * shift.real(), Sign * shift.imag()};
        return elementwise<op>([d](auto x) { return kernel::add(x, d); }, a);
    }
};
using add_scalar_real_part = scalar_shift<op::add_scalar, 1>;
using sub_scalar_real_part = scalar_shift<op::sub_scalar, -1>;

/// Elementwise-safe: a real scalar scales every component of the layout alike.
template <class Tag, bool Divide>
struct scale_layout {
    using op = Tag;
    static constexpr std::string_view name = Divide ? "div_scalar_passthrough" : "mul_scalar_passthrough";
    static constexpr std::string_view formula = Divide ? "layout / s (both components)" : "layout · s (both components)";
    template <class A, class S>
    static constexpr bool accepts = complex_tensor_operand<A> && real_number_operand<S>;
    template <class A, class S>
    static auto apply(const A& a, const S& s) {
        using T = promoted_real_t<A, S>;
        const T v = static_cast<T>(s);
        if constexpr (Divide) {
            // One divisor: its zero check stays out of the loop.
            if (v == T(0)) [[unlikely]]
                return elementwise<op>([v](auto x) { return kernel::div_real(x, v); }, a);
            return elementwise<op>([v](auto x) { return decltype(x){x.re / v, x.im / v}; }, a);
        } else {
            return elementwise<op>([v](auto x) { return kernel::scale(x, v); }, a);
        }
    }
};
using mul_scalar_passthrough = scale_layout<op::mul_scalar, false>;
using div_scalar_passthrough = scale_layout<op::div_scalar, true>;

// ---- unary arithmetic ---------------------------------------------------------------
#define REALIFY_UNARY_PAIR_LOWERING(OP, NAME, FORMULA, EXPR)                                       \
    struct NAME {                                                                                \
        using op = ::realify::op::OP;                                                            \
        static constexpr std::string_view name = #NAME;                                          \
        static constexpr std::string_view formula = FORMULA;                                     \
        template <class A>                                                                       \
        static constexpr bool accepts = complex_tensor_operand<A>;                               \
        template <class A>                                                                       \
        static auto apply(const A& a) {                                                          \
            return elementwise<op>([](auto z) { return EXPR; }, a);                              \
        }                                                                                        \
    };

REALIFY_UNARY_PAIR_LOWERING(neg, neg_passthrough, "−layout (both components)", kernel::neg(z))
REALIFY_UNARY_PAIR_LOWERING(conj, conj_pairs, "a − i·b", kernel::conj(z))
struct reciprocal_scaled {
    using op = ::realify::op::reciprocal;
    static constexpr std::string_view name = "reciprocal_scaled";
    static constexpr std::string_view formula = "1/z by the scaled division (zero: NaN as PyTorch)";
    template <class A>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static auto apply(const A& a) {
        return elementwise_with_fixup<op>([](auto z) { return kernel::reciprocal(z); },
                                          [](auto z) { return kernel::div_careful(decltype(z){1, 0}, z); }, a);
    }
};
REALIFY_UNARY_PAIR_LOWERING(square, square_pairs, "(a² − b²) + i·2ab (as z·z)", kernel::square(z))

// ---- pow ------------------------------------------------------------------------------
struct pow_scalar_pairs {
    using op = op::pow_scalar;
    static constexpr std::string_view name = "pow_scalar_polar";
    static constexpr std::string_view formula =
        "integer n (|n| ≤ 64): repeated squaring; 0.5: sqrt; −0.5: rsqrt; else exp(w·log z); in the squaring and "
        "exp·log forms a zero base, non-finite operands or an overflow take std::pow's (C99) value";
    template <class A, class S>
    static constexpr bool accepts = complex_tensor_operand<A> && number_operand<S>;
    template <class A, class S>
    static auto apply(const A& a, const S& s) {
        using T = promoted_real_t<A, S>;
        std::complex<T> w{};
        if constexpr (complex_number_operand<S>) w = std::complex<T>(T(s.real()), T(s.imag()));
        else w = std::complex<T>(static_cast<T>(s), T(0));
        if (w.imag() == T(0)) {
            const T e = w.real();
            if (e == std::trunc(e) && std::abs(e) <= T(64)) {
                const long n = static_cast<long>(e);
                return elementwise<op>([n](auto z) { return kernel::pow_integer(z, n); }, a);
            }
            if (e == T(0.5)) return elementwise<op>([](auto z) { return kernel::sqrt(z); }, a);
            if (e == T(-0.5)) return elementwise<op>([](auto z) { return kernel::rsqrt(z); }, a);
        }
        const cpair<T> wp{w.real(), w.imag()};
        return elementwise<op>([wp](auto z) { return kernel::pow(z, wp); }, a);
    }
};
struct pow_tensor_pairs {
    using op = op::pow_tensor;
    static constexpr std::string_view name = "pow_tensor_exp_log";
    static constexpr std::string_view formula =
        "exp(w·log z); a zero base, non-finite operands or an overflow: std::pow's (C99) value";
    template <class A, class B>
    static constexpr bool accepts = (complex_operand<A> || complex_operand<B>) && elementwise_operand<A> &&
                                    elementwise_operand<B> && some_tensor<A, B>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        return elementwise<op>([](auto z, auto w) { return kernel::pow(to_pair(z), to_pair(w)); }, a, b);
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(mul, lowering::mul_contiguous_simd, lowering::mul_real_contiguous_simd,
                           lowering::mul_complex_scalar_simd, lowering::mul_by_real, lowering::mul_pairs)
REALIFY_BUILTIN_CANDIDATES(div, lowering::div_by_real, lowering::div_pairs)
REALIFY_BUILTIN_CANDIDATES(add, lowering::add_pairs)
REALIFY_BUILTIN_CANDIDATES(sub, lowering::sub_pairs)
REALIFY_BUILTIN_CANDIDATES(add_scalar, lowering::add_scalar_real_part)
REALIFY_BUILTIN_CANDIDATES(sub_scalar, lowering::sub_scalar_real_part)
REALIFY_BUILTIN_CANDIDATES(mul_scalar, lowering::mul_scalar_passthrough)
REALIFY_BUILTIN_CANDIDATES(div_scalar, lowering::div_scalar_passthrough)
REALIFY_BUILTIN_CANDIDATES(neg, lowering::neg_passthrough)
REALIFY_BUILTIN_CANDIDATES(conj, lowering::conj_pairs)
REALIFY_BUILTIN_CANDIDATES(reciprocal, lowering::reciprocal_scaled)
REALIFY_BUILTIN_CANDIDATES(square, lowering::square_pairs)
REALIFY_BUILTIN_CANDIDATES(pow_scalar, lowering::pow_scalar_pairs)
REALIFY_BUILTIN_CANDIDATES(pow_tensor, lowering::pow_tensor_pairs)

}  // namespace realify::dispatch
