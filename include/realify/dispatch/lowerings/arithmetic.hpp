// Lowerings of the arithmetic ops: mul, div, add, sub (tensor and scalar
// forms), neg, conj, reciprocal, square, pow, each running its op's element
// kernel (realify/kernels). Each candidate states which
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
        return elementwise<op>(element<op>{}, a, b);
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
        return elementwise<op>(element<op>{}, a, b);
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
        return elementwise<op>(element<op>{}, a, b);
    }
};
struct div_pairs {
    using op = op::div;
    static constexpr std::string_view name = "div_scaled";
    static constexpr std::string_view formula =
        "((a·c + b·d) + i(b·c − a·d)) / (c² + d²), in a wider type when the parts are tiny or huge (no overflow or "
        "underflow); zero divisor: NaN (as PyTorch); non-finite operands: C99 Annex G";
    template <class A, class B>
    static constexpr bool accepts = complex_operand<B> && elementwise_operand<A> && some_tensor<A, B>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        return elementwise<op>(element<op>{}, a, b);
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
        return elementwise<op>(element<op>{}, a, b);
    }
    template <class A, class B, class Alpha>
    static auto apply(const A& a, const B& b, const Alpha& alpha) {
        using T = promoted_real_t<A, B>;
        const std::complex<T> w(alpha);
        const T parts[2] = {w.real(), w.imag()};
        const typename element<op>::template parameters<T> p(parts);
        return elementwise<op>([p](auto x, auto y) { return element<op>{}(x, y, p); }, a, b);
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
        return elementwise<op>([d](auto x) { return element<op>{}(x, d); }, a);
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
        return elementwise<op>([v](auto x) { return element<op>{}(x, v); }, a);
    }
};
using mul_scalar_passthrough = scale_layout<op::mul_scalar, false>;
using div_scalar_passthrough = scale_layout<op::div_scalar, true>;

// ---- unary arithmetic ---------------------------------------------------------------
/// A lowering NAME of the unary op OP on complex tensors: its element kernel.
#define REALIFY_UNARY_PAIR_LOWERING(OP, NAME, FORMULA)                                           \
    struct NAME {                                                                                \
        using op = ::realify::op::OP;                                                            \
        static constexpr std::string_view name = #NAME;                                          \
        static constexpr std::string_view formula = FORMULA;                                     \
        template <class A>                                                                       \
        static constexpr bool accepts = complex_tensor_operand<A>;                               \
        template <class A>                                                                       \
        static auto apply(const A& a) {                                                          \
            return elementwise<op>(element<op>{}, a);                                            \
        }                                                                                        \
    };

REALIFY_UNARY_PAIR_LOWERING(neg, neg_passthrough, "−layout (both components)")
REALIFY_UNARY_PAIR_LOWERING(conj, conj_pairs, "a − i·b")
REALIFY_UNARY_PAIR_LOWERING(reciprocal, reciprocal_scaled, "1/z by the scaled division (zero: NaN as PyTorch)")
REALIFY_UNARY_PAIR_LOWERING(square, square_pairs, "(a − b)(a + b) + i·2ab (the special values of z·z)")

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
        T w[2] = {T(0), T(0)};
        if constexpr (complex_number_operand<S>) {
            w[0] = T(s.real());
            w[1] = T(s.imag());
        } else {
            w[0] = static_cast<T>(s);
        }
        const typename element<op>::template parameters<T> p(w);
        return elementwise<op>([p](auto z) { return element<op>{}(z, p); }, a);
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
        return elementwise<op>(element<op>{}, a, b);
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
