// Lowerings of the arithmetic ops with operands of several kinds or a
// constant — mul, div, add, sub (tensor and scalar forms), pow,
// conj_physical — and the pieces every compiled lowering uses
// (REALIFY_COMPILED_LOWERING, compiled_call, the operand-kind validators; the
// unary ops neg, conj, reciprocal and square are lowered as every op with
// one-tensor kernels, realify/dispatch/lowerings/unary.hpp). Each runs its
// op's compiled kernel
// (realify/simd/elementwise.hpp, the formulas of realify/kernels) through
// the elementwise engine; the candidates differ only in the operand kinds
// they take (compile-time validators): a complex operand is a complex
// tensor (complex_layout or std::complex container) or a std::complex
// number, a real one a real tensor or a C++ number. Real tensors with real
// operands compute in float or double (PyTorch's promotion to a floating
// type; integer arithmetic is not lowered).
#pragma once

#include <complex>
#include <optional>
#include <string_view>

#include "realify/dispatch/lowerings/common.hpp"

namespace realify::dispatch {
namespace lowering {

template <class A, class B>
inline constexpr bool some_tensor = tensor_operand<A> || tensor_operand<B>;

// The operand patterns of the binary candidates, as variable templates on
// the whole argument list (so a validator can name them).
template <class... A>
inline constexpr bool complex_and_complex = false;
template <class A, class B>
inline constexpr bool complex_and_complex<A, B> = complex_operand<A> && complex_operand<B> && some_tensor<A, B>;

template <class... A>
inline constexpr bool complex_and_real = false;  // either order
template <class A, class B>
inline constexpr bool complex_and_real<A, B> =
    ((complex_operand<A> && real_operand<B>) || (real_operand<A> && complex_operand<B>)) && some_tensor<A, B>;

template <class... A>
inline constexpr bool complex_by_real = false;  // a real right operand
template <class A, class B>
inline constexpr bool complex_by_real<A, B> = complex_operand<A> && real_operand<B> && some_tensor<A, B>;

template <class... A>
inline constexpr bool by_complex = false;  // a complex right operand
template <class A, class B>
inline constexpr bool by_complex<A, B> = elementwise_operand<A> && complex_operand<B> && some_tensor<A, B>;

template <class... A>
inline constexpr bool some_complex = false;  // either complex, α optional
template <class A, class B, class... Alpha>
inline constexpr bool some_complex<A, B, Alpha...> = (complex_operand<A> || complex_operand<B>) && elementwise_operand<A> &&
                                                     elementwise_operand<B> && some_tensor<A, B> &&
                                                     (number_operand<Alpha> && ...) && sizeof...(Alpha) <= 1;

/// Two real operands, one a tensor, whose promoted type is floating.
template <class... A>
inline constexpr bool real_and_real = false;
template <class A, class B, class... Alpha>
inline constexpr bool real_and_real<A, B, Alpha...> = real_operand<A> && real_operand<B> && some_tensor<A, B> &&
                                                      (real_number_operand<Alpha> && ...) && sizeof...(Alpha) <= 1 &&
                                                      promotion::is_floating(result_dtype_v<A, B>);

template <class... A>
inline constexpr bool one_complex_tensor = false;
template <class A>
inline constexpr bool one_complex_tensor<A> = complex_tensor_operand<A>;

/// One float or double real tensor (the real forms of the unary ops;
/// integer tensors would need PyTorch's promotion to float, not lowered).
template <class... A>
inline constexpr bool one_real_tensor = false;
template <class A>
inline constexpr bool one_real_tensor<A> = real_tensor_operand<A> && std::is_floating_point_v<operand_component_t<A>>;

/// An optional α as the kernels' constant.
template <class... Alpha>
std::optional<std::complex<double>> alpha_of(const Alpha&... alpha) {
    if constexpr (sizeof...(Alpha) == 0) return std::nullopt;
    else return constant_of(alpha...);
}

/// A lowering NAME of op::OP: the compiled kernel SIMD_OP on operands
/// accepted by PATTERN<A...>; trailing numbers (α) become the kernel's constant.
#define REALIFY_COMPILED_LOWERING(OP, NAME, SIMD_OP, PATTERN, FORMULA)                                     \
    struct NAME {                                                                                          \
        using op = ::realify::op::OP;                                                                      \
        static constexpr std::string_view name = #NAME;                                                    \
        static constexpr std::string_view formula = FORMULA;                                               \
        template <class... A>                                                                              \
        static constexpr bool accepts = PATTERN<A...>;                                                     \
        using call = compiled_call<::realify::simd::elementwise_op::SIMD_OP>;                              \
        template <class A>                                                                                 \
        static auto apply(const A& a) {                                                                    \
            return call::run(op::name, std::nullopt, a);                                                   \
        }                                                                                                  \
        template <class O, class A>                                                                        \
        static void apply_into(out_arg<O>& o, const A& a) {                                                \
            call::into(op::name, o, std::nullopt, a);                                                      \
        }                                                                                                  \
        template <class A, class B, class... Alpha>                                                        \
        static auto apply(const A& a, const B& b, const Alpha&... alpha) {                                 \
            return call::run(op::name, alpha_of(alpha...), a, b);                                          \
        }                                                                                                  \
        template <class O, class A, class B, class... Alpha>                                               \
        static void apply_into(out_arg<O>& o, const A& a, const B& b, const Alpha&... alpha) {             \
            call::into(op::name, o, alpha_of(alpha...), a, b);                                             \
        }                                                                                                  \
    };

// ---- mul, div, add, sub ------------------------------------------------------------------
REALIFY_COMPILED_LOWERING(mul, mul_pairs, mul, complex_and_complex, "(ac − bd) + i(ad + bc)")
REALIFY_COMPILED_LOWERING(mul, mul_by_real, mul, complex_and_real, "(a·s) + i(b·s): complex × real scales both parts")
REALIFY_COMPILED_LOWERING(mul, mul_reals, mul, real_and_real, "x·y on real tensors")
REALIFY_COMPILED_LOWERING(div, div_scaled, div, by_complex,
                          "((a·c + b·d) + i(b·c − a·d)) / (c² + d²), in a wider type when the parts are tiny or huge (no "
                          "overflow or underflow); zero divisor: NaN (as PyTorch); non-finite operands: C99 Annex G")
REALIFY_COMPILED_LOWERING(div, div_by_real, div, complex_by_real, "a/s + i·b/s (s = 0: NaN + NaN·i as PyTorch)")
REALIFY_COMPILED_LOWERING(div, div_reals, div, real_and_real, "x / y on real tensors")
REALIFY_COMPILED_LOWERING(add, add_pairs, add, some_complex,
                          "(a + α·c) + i(b + α·d); a real operand moves only the real part (broadcast over complex "
                          "elements, never over the [re, im] axis)")
REALIFY_COMPILED_LOWERING(add, add_reals, add, real_and_real, "x + α·y on real tensors")
REALIFY_COMPILED_LOWERING(sub, sub_pairs, sub, some_complex, "(a − α·c) + i(b − α·d); a real operand moves only the real part")
REALIFY_COMPILED_LOWERING(sub, sub_reals, sub, real_and_real, "x − α·y on real tensors")

// ---- the scalar forms ----------------------------------------------------------------------
template <class... A>
inline constexpr bool tensor_and_number = false;  // α optional
template <class A, class S, class... Alpha>
inline constexpr bool tensor_and_number<A, S, Alpha...> = complex_tensor_operand<A> && number_operand<S> &&
                                                          (number_operand<Alpha> && ...) && sizeof...(Alpha) <= 1;
template <class... A>
inline constexpr bool tensor_and_real_number = false;
template <class A, class S>
inline constexpr bool tensor_and_real_number<A, S> = complex_tensor_operand<A> && real_number_operand<S>;

/// add.Scalar / sub.Scalar (the add / sub kernel with a broadcast number and α).
REALIFY_COMPILED_LOWERING(add_scalar, add_scalar_real_part, add, tensor_and_number,
                          "(a + α·s) + i·b for real s; (a + α·Re s) + i(b + α·Im s) for complex s")
REALIFY_COMPILED_LOWERING(sub_scalar, sub_scalar_real_part, sub, tensor_and_number,
                          "(a − α·s) + i·b for real s; (a − α·Re s) + i(b − α·Im s) for complex s")
/// mul.Scalar / div.Scalar: a real number scales every component alike.
REALIFY_COMPILED_LOWERING(mul_scalar, mul_scalar_passthrough, mul, tensor_and_real_number, "layout · s (both components)")
REALIFY_COMPILED_LOWERING(div_scalar, div_scalar_passthrough, div, tensor_and_real_number, "layout / s (both components)")

// ---- pow -------------------------------------------------------------------------------------
template <class... A>
inline constexpr bool tensor_to_number = false;
template <class A, class S>
inline constexpr bool tensor_to_number<A, S> = complex_tensor_operand<A> && number_operand<S>;
template <class... A>
inline constexpr bool real_tensor_to_real_number = false;
template <class A, class S>
inline constexpr bool real_tensor_to_real_number<A, S> = one_real_tensor<A> && real_number_operand<S>;

/// pow.Tensor_Scalar: the unary kernel with the exponent as its constant.
struct pow_scalar_polar {
    using op = ::realify::op::pow_scalar;
    static constexpr std::string_view name = "pow_scalar_polar";
    static constexpr std::string_view formula =
        "integer n (|n| ≤ 64): repeated squaring; 0.5: sqrt; −0.5: rsqrt; else exp(w·log z); in the squaring and "
        "exp·log forms a zero base, non-finite operands or an overflow take std::pow's (C99) value";
    template <class... A>
    static constexpr bool accepts = tensor_to_number<A...>;
    template <class A, class S>
    static auto apply(const A& a, const S& exponent) {
        return compiled_call<simd::elementwise_op::pow_scalar>::run(op::name, constant_of(exponent), a);
    }
    template <class O, class A, class S>
    static void apply_into(out_arg<O>& o, const A& a, const S& exponent) {
        compiled_call<simd::elementwise_op::pow_scalar>::into(op::name, o, constant_of(exponent), a);
    }
};
/// pow.Tensor_Scalar of a real tensor by a real number: the real kernel, std::pow's values.
struct pow_scalar_reals : pow_scalar_polar {
    static constexpr std::string_view name = "pow_scalar_reals";
    static constexpr std::string_view formula = "std::pow(x, w) on real tensors";
    template <class... A>
    static constexpr bool accepts = real_tensor_to_real_number<A...>;
};
template <class... A>
inline constexpr bool some_complex_pair = false;
template <class A, class B>
inline constexpr bool some_complex_pair<A, B> = some_complex<A, B>;
REALIFY_COMPILED_LOWERING(pow_tensor, pow_tensor_exp_log, pow_tensor, some_complex_pair,
                          "exp(w·log z); a zero base, non-finite operands or an overflow: std::pow's (C99) value")
template <class... A>
inline constexpr bool real_pair = false;
template <class A, class B>
inline constexpr bool real_pair<A, B> = real_and_real<A, B>;
REALIFY_COMPILED_LOWERING(pow_tensor, pow_reals, pow_tensor, real_pair, "std::pow(x, y) on real tensors")

// ---- conj_physical: conj's kernel (neg, conj, reciprocal, square: realify/dispatch/lowerings/unary.hpp) ----
REALIFY_COMPILED_LOWERING(conj_physical, conj_physical_pairs, conj, one_complex_tensor,
                          "a − i·b, written out (realify has no lazy conjugate bit)")
REALIFY_COMPILED_LOWERING(conj_physical, conj_physical_reals, conj, one_real_tensor, "x on real tensors")

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(mul, lowering::mul_pairs, lowering::mul_by_real, lowering::mul_reals)
REALIFY_BUILTIN_CANDIDATES(div, lowering::div_scaled, lowering::div_by_real, lowering::div_reals)
REALIFY_BUILTIN_CANDIDATES(add, lowering::add_pairs, lowering::add_reals)
REALIFY_BUILTIN_CANDIDATES(sub, lowering::sub_pairs, lowering::sub_reals)
REALIFY_BUILTIN_CANDIDATES(add_scalar, lowering::add_scalar_real_part)
REALIFY_BUILTIN_CANDIDATES(sub_scalar, lowering::sub_scalar_real_part)
REALIFY_BUILTIN_CANDIDATES(mul_scalar, lowering::mul_scalar_passthrough)
REALIFY_BUILTIN_CANDIDATES(div_scalar, lowering::div_scalar_passthrough)
REALIFY_BUILTIN_CANDIDATES(conj_physical, lowering::conj_physical_pairs, lowering::conj_physical_reals)
REALIFY_BUILTIN_CANDIDATES(pow_scalar, lowering::pow_scalar_polar, lowering::pow_scalar_reals)
REALIFY_BUILTIN_CANDIDATES(pow_tensor, lowering::pow_tensor_exp_log, lowering::pow_reals)

}  // namespace realify::dispatch
