// The eager elementwise API: realify::mul(a, b), realify::exp(a), … named
// and ordered like PyTorch's. Operands are complex_layout<E> (complex), real
// xtensor expressions, std::complex numbers and C++ numbers, broadcast the
// NumPy way; the component type follows PyTorch's promotion
// (realify/ops/promotion.hpp). Each call goes through the dispatch table, so
// a user's lowering (dispatch::user_lowerings) takes effect here too.
//
// Results: complex ops return an owning complex_layout<xt::xtensor<T, N+1>>
// (xt::xarray<T> when the rank is dynamic); real-output ops return
// xt::xtensor<T, N> (bool for isnan/isinf).
#pragma once

#include "realify/dispatch.hpp"

namespace realify {

// ---- binary arithmetic ------------------------------------------------------------

/// a · b. A real number goes to mul.Scalar (both components scaled).
template <elementwise_operand A, elementwise_operand B>
auto mul(const A& a, const B& b) {
    if constexpr (complex_tensor_operand<A> && real_number_operand<B>) return dispatch::call<op::mul_scalar>(a, b);
    else if constexpr (real_number_operand<A> && complex_tensor_operand<B>) return dispatch::call<op::mul_scalar>(b, a);
    else return dispatch::call<op::mul>(a, b);
}
/// a / b. A real number divisor goes to div.Scalar.
template <elementwise_operand A, elementwise_operand B>
auto div(const A& a, const B& b) {
    if constexpr (complex_tensor_operand<A> && real_number_operand<B>) return dispatch::call<op::div_scalar>(a, b);
    else return dispatch::call<op::div>(a, b);
}
/// a + alpha·b (alpha optional). A number b goes to add.Scalar (a real one moves only the real part).
template <elementwise_operand A, elementwise_operand B, number_operand... Alpha>
    requires(sizeof...(Alpha) <= 1)
auto add(const A& a, const B& b, const Alpha&... alpha) {
    if constexpr (complex_tensor_operand<A> && number_operand<B>) return dispatch::call<op::add_scalar>(a, b, alpha...);
    else return dispatch::call<op::add>(a, b, alpha...);
}
/// a − alpha·b (alpha optional).
template <elementwise_operand A, elementwise_operand B, number_operand... Alpha>
    requires(sizeof...(Alpha) <= 1)
auto sub(const A& a, const B& b, const Alpha&... alpha) {
    if constexpr (complex_tensor_operand<A> && number_operand<B>) return dispatch::call<op::sub_scalar>(a, b, alpha...);
    else return dispatch::call<op::sub>(a, b, alpha...);
}
/// Explicit overload names (aten's add.Scalar, mul.Scalar, …).
template <class A, class S, class... Alpha>
auto add_scalar(const A& a, const S& s, const Alpha&... alpha) { return dispatch::call<op::add_scalar>(a, s, alpha...); }
template <class A, class S, class... Alpha>
auto sub_scalar(const A& a, const S& s, const Alpha&... alpha) { return dispatch::call<op::sub_scalar>(a, s, alpha...); }
template <class A, class S>
auto mul_scalar(const A& a, const S& s) { return dispatch::call<op::mul_scalar>(a, s); }
template <class A, class S>
auto div_scalar(const A& a, const S& s) { return dispatch::call<op::div_scalar>(a, s); }

/// a ** exponent: a number exponent is pow.Tensor_Scalar, a tensor pow.Tensor_Tensor.
template <elementwise_operand A, elementwise_operand B>
auto pow(const A& a, const B& exponent) {
    if constexpr (complex_tensor_operand<A> && number_operand<B>) return dispatch::call<op::pow_scalar>(a, exponent);
    else return dispatch::call<op::pow_tensor>(a, exponent);
}
template <class A, class S>
auto pow_scalar(const A& a, const S& exponent) { return dispatch::call<op::pow_scalar>(a, exponent); }
template <class A, class B>
auto pow_tensor(const A& a, const B& exponent) { return dispatch::call<op::pow_tensor>(a, exponent); }

// ---- unary ---------------------------------------------------------------------------
#define REALIFY_EAGER_UNARY(NAME)                          \
    template <class A>                                     \
    auto NAME(const A& a) {                                \
        return dispatch::call<op::NAME>(a);                \
    }
REALIFY_EAGER_UNARY(neg)
REALIFY_EAGER_UNARY(conj)
REALIFY_EAGER_UNARY(reciprocal)
REALIFY_EAGER_UNARY(square)
REALIFY_EAGER_UNARY(exp)
REALIFY_EAGER_UNARY(expm1)
REALIFY_EAGER_UNARY(log)
REALIFY_EAGER_UNARY(log2)
REALIFY_EAGER_UNARY(log10)
REALIFY_EAGER_UNARY(log1p)
REALIFY_EAGER_UNARY(sqrt)
REALIFY_EAGER_UNARY(rsqrt)
REALIFY_EAGER_UNARY(sgn)
REALIFY_EAGER_UNARY(sin)
REALIFY_EAGER_UNARY(cos)
REALIFY_EAGER_UNARY(tan)
REALIFY_EAGER_UNARY(sinh)
REALIFY_EAGER_UNARY(cosh)
REALIFY_EAGER_UNARY(tanh)
REALIFY_EAGER_UNARY(asin)
REALIFY_EAGER_UNARY(acos)
REALIFY_EAGER_UNARY(atan)
REALIFY_EAGER_UNARY(asinh)
REALIFY_EAGER_UNARY(acosh)
REALIFY_EAGER_UNARY(atanh)
REALIFY_EAGER_UNARY(abs)
REALIFY_EAGER_UNARY(angle)
REALIFY_EAGER_UNARY(real)
REALIFY_EAGER_UNARY(imag)
REALIFY_EAGER_UNARY(isnan)
REALIFY_EAGER_UNARY(isinf)
REALIFY_EAGER_UNARY(ceil)
REALIFY_EAGER_UNARY(floor)
REALIFY_EAGER_UNARY(round)
REALIFY_EAGER_UNARY(trunc)
REALIFY_EAGER_UNARY(clone)
REALIFY_EAGER_UNARY(detach)
#undef REALIFY_EAGER_UNARY

}  // namespace realify
