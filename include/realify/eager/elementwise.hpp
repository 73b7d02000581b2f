// The eager elementwise API: realify::mul(a, b), realify::exp(a), … named
// and ordered like PyTorch's. Operands are complex tensors (complex_layout<E>,
// or xtensor containers, adaptors and views of std::complex<T>), real
// tensors, std::complex numbers and C++ numbers, broadcast the NumPy way; the
// component type follows PyTorch's promotion (realify/ops/promotion.hpp).
// Each call goes through the dispatch table, so a user's lowering
// (dispatch::user_lowerings) takes effect here too.
//
// Every function takes an optional realify::out(buffer) last: the result is
// written into the buffer (checked, never allocated) and the buffer returned.
// Without it the result is allocated as realify/dispatch/results.hpp says: an
// owning complex_layout when an operand is one, an xt::xtensor of
// std::complex<T> for std::complex operands, an xt::xtensor<T, N> for real
// results (bool for isnan/isinf); xt::xarray when the rank is dynamic.
#pragma once

#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "realify/dispatch/lowerings.hpp"
#include "realify/ops/out.hpp"

namespace realify {

namespace detail {
/// A complex tensor / a number, as the dispatch table reads the argument.
template <class A>
inline constexpr bool complex_tensor_v = complex_tensor_operand<operand_t<A>>;

/// The arguments after add's / sub's operands: (), (alpha), (out) or (alpha, out).
template <class... R>
inline constexpr bool alpha_then_out = optional_out<R...>;
template <class Alpha, class O>
inline constexpr bool alpha_then_out<Alpha, O> = number_operand<Alpha> && output_argument<O>;
template <class Alpha>
    requires(!output_argument<Alpha>)
inline constexpr bool alpha_then_out<Alpha> = number_operand<Alpha>;
}  // namespace detail

// ---- binary arithmetic ------------------------------------------------------------

/// a · b. A real number goes to mul.Scalar (both components scaled).
template <eager_argument A, eager_argument B, class... O>
    requires detail::optional_out<O...>
decltype(auto) mul(const A& a, const B& b, O&&... o) {
    if constexpr (detail::complex_tensor_v<A> && real_number_operand<B>)
        return dispatch::call<op::mul_scalar>(tensor_argument(a), tensor_argument(b), std::forward<O>(o)...);
    else if constexpr (real_number_operand<A> && detail::complex_tensor_v<B>)
        return dispatch::call<op::mul_scalar>(tensor_argument(b), a, std::forward<O>(o)...);
    else
        return dispatch::call<op::mul>(tensor_argument(a), tensor_argument(b), std::forward<O>(o)...);
}
/// a / b. A real number divisor goes to div.Scalar.
template <eager_argument A, eager_argument B, class... O>
    requires detail::optional_out<O...>
decltype(auto) div(const A& a, const B& b, O&&... o) {
    if constexpr (detail::complex_tensor_v<A> && real_number_operand<B>)
        return dispatch::call<op::div_scalar>(tensor_argument(a), tensor_argument(b), std::forward<O>(o)...);
    else
        return dispatch::call<op::div>(tensor_argument(a), tensor_argument(b), std::forward<O>(o)...);
}
/// a + alpha·b (alpha optional, then out optional). A number b goes to
/// add.Scalar (a real one moves only the real part).
template <eager_argument A, eager_argument B, class... R>
    requires detail::alpha_then_out<R...>
decltype(auto) add(const A& a, const B& b, R&&... rest) {
    if constexpr (detail::complex_tensor_v<A> && number_operand<B>)
        return dispatch::call<op::add_scalar>(tensor_argument(a), tensor_argument(b), std::forward<R>(rest)...);
    else
        return dispatch::call<op::add>(tensor_argument(a), tensor_argument(b), std::forward<R>(rest)...);
}
/// a − alpha·b (alpha optional, then out optional).
template <eager_argument A, eager_argument B, class... R>
    requires detail::alpha_then_out<R...>
decltype(auto) sub(const A& a, const B& b, R&&... rest) {
    if constexpr (detail::complex_tensor_v<A> && number_operand<B>)
        return dispatch::call<op::sub_scalar>(tensor_argument(a), tensor_argument(b), std::forward<R>(rest)...);
    else
        return dispatch::call<op::sub>(tensor_argument(a), tensor_argument(b), std::forward<R>(rest)...);
}
/// Explicit overload names (aten's add.Scalar, mul.Scalar, …).
template <class A, class S, class... R>
decltype(auto) add_scalar(const A& a, const S& s, R&&... rest) {
    return dispatch::call<op::add_scalar>(a, s, std::forward<R>(rest)...);
}
template <class A, class S, class... R>
decltype(auto) sub_scalar(const A& a, const S& s, R&&... rest) {
    return dispatch::call<op::sub_scalar>(a, s, std::forward<R>(rest)...);
}
/// mul.Scalar / div.Scalar: a real number scales both components; a complex
/// number is mul / div with the number broadcast (as realify::mul(a, s)).
template <class A, class S, class... O>
    requires detail::optional_out<O...>
decltype(auto) mul_scalar(const A& a, const S& s, O&&... o) {
    if constexpr (complex_number_operand<S>)
        return dispatch::call<op::mul>(tensor_argument(a), s, std::forward<O>(o)...);
    else
        return dispatch::call<op::mul_scalar>(a, s, std::forward<O>(o)...);
}
template <class A, class S, class... O>
    requires detail::optional_out<O...>
decltype(auto) div_scalar(const A& a, const S& s, O&&... o) {
    if constexpr (complex_number_operand<S>)
        return dispatch::call<op::div>(tensor_argument(a), s, std::forward<O>(o)...);
    else
        return dispatch::call<op::div_scalar>(a, s, std::forward<O>(o)...);
}

/// a ** exponent: a number exponent of a complex tensor is pow.Tensor_Scalar,
/// anything else pow.Tensor_Tensor.
template <eager_argument A, eager_argument B, class... O>
    requires detail::optional_out<O...>
decltype(auto) pow(const A& a, const B& exponent, O&&... o) {
    if constexpr (detail::complex_tensor_v<A> && number_operand<B>)
        return dispatch::call<op::pow_scalar>(tensor_argument(a), exponent, std::forward<O>(o)...);
    else
        return dispatch::call<op::pow_tensor>(tensor_argument(a), tensor_argument(exponent), std::forward<O>(o)...);
}
template <class A, class S, class... O>
    requires detail::optional_out<O...>
decltype(auto) pow_scalar(const A& a, const S& exponent, O&&... o) {
    return dispatch::call<op::pow_scalar>(a, exponent, std::forward<O>(o)...);
}
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) pow_tensor(const A& a, const B& exponent, O&&... o) {
    return dispatch::call<op::pow_tensor>(a, exponent, std::forward<O>(o)...);
}

// ---- unary ---------------------------------------------------------------------------
// realify::NAME(x[, out(buffer)]): every op of the list whose compiled
// kernels take one tensor (REALIFY_UNARY_KERNEL_OPS: exp, abs, sigmoid, …),
// and the unary ops without kernels after it.
#define REALIFY_EAGER_UNARY(NAME)                                  \
    template <class A, class... O>                                 \
        requires detail::optional_out<O...>                        \
    decltype(auto) NAME(const A& a, O&&... o) {                    \
        return dispatch::call<op::NAME>(tensor_argument(a), std::forward<O>(o)...); \
    }
REALIFY_UNARY_KERNEL_OPS(REALIFY_EAGER_UNARY)
REALIFY_EAGER_UNARY(isnan)
REALIFY_EAGER_UNARY(isinf)
REALIFY_EAGER_UNARY(clone)
REALIFY_EAGER_UNARY(detach)
REALIFY_EAGER_UNARY(conj_physical)
REALIFY_EAGER_UNARY(resolve_conj)
#undef REALIFY_EAGER_UNARY

/// F.gelu(a, approximate): "none" (the default) or "tanh"; another string
/// is a realify::error.
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) gelu(const A& a, O&&... o) {
    return dispatch::call<op::gelu>(a, std::forward<O>(o)...);
}
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) gelu(const A& a, std::string_view approximate, O&&... o) {
    return dispatch::call<op::gelu>(a, gelu_approximate_of(approximate), std::forward<O>(o)...);
}

// ---- ordering: real operands only ------------------------------------------------------
// Complex values have no ordering: a complex operand is refused by one
// static_assert naming the op, as PyTorch refuses it.

namespace detail {
/// Whether an argument is complex as the dispatch table reads it (a
/// std::vector or std::span of std::complex adapted first).
template <class... A>
inline constexpr bool any_complex_v = (complex_operand<operand_t<A>> || ...);
}  // namespace detail

#define REALIFY_EAGER_ORDERING(NAME)                                                                     \
    template <eager_argument A, eager_argument B, class... O>                                            \
        requires detail::optional_out<O...>                                                              \
    decltype(auto) NAME(const A& a, const B& b, O&&... o) {                                              \
        if constexpr (detail::any_complex_v<A, B>) {                                                     \
            static_assert(!detail::any_complex_v<A, B>,                                                  \
                          "realify::" #NAME ": complex values have no ordering (PyTorch refuses them too)"); \
            return 0;                                                                                    \
        } else {                                                                                         \
            return dispatch::call<op::NAME>(tensor_argument(a), tensor_argument(b), std::forward<O>(o)...); \
        }                                                                                                \
    }
/// torch.maximum / torch.minimum: NaN propagates, +0 above −0 (symmetric).
REALIFY_EAGER_ORDERING(maximum)
REALIFY_EAGER_ORDERING(minimum)
/// torch.clamp_min(a, lo) / clamp_max(a, hi): a bound number or tensor; a NaN bound gives NaN.
REALIFY_EAGER_ORDERING(clamp_min)
REALIFY_EAGER_ORDERING(clamp_max)
#undef REALIFY_EAGER_ORDERING

/// torch.clamp(a, min, max): each bound a number, a tensor or std::nullopt
/// (at least one given); hi where lo > hi, NaN where a or a bound is NaN.
template <class A, class L, class H, class... O>
    requires detail::optional_out<O...>
decltype(auto) clamp(const A& a, const L& lo, const H& hi, O&&... o) {
    if constexpr (detail::any_complex_v<A, L, H>) {
        static_assert(dispatch::always_false<A, L, H>,
                      "realify::clamp: complex values have no ordering (PyTorch refuses them too)");
        return 0;
    } else {
        return dispatch::call<op::clamp>(tensor_argument(a), tensor_argument(lo), tensor_argument(hi), std::forward<O>(o)...);
    }
}

}  // namespace realify
