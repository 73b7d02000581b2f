// The eager constructors: ones_like, zeros_like, full_like (real or complex
// value, kept) of complex and real tensors, scalar_tensor (0-d complex
// layout), polar(abs, angle); each with an optional realify::out(buffer) last.
#pragma once

#include <utility>

#include "realify/dispatch/lowerings.hpp"
#include "realify/eager/elementwise.hpp"

namespace realify {

template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) ones_like(const A& a, O&&... o) {
    return dispatch::call<op::ones_like>(tensor_argument(a), std::forward<O>(o)...);
}
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) zeros_like(const A& a, O&&... o) {
    return dispatch::call<op::zeros_like>(tensor_argument(a), std::forward<O>(o)...);
}
template <class A, class V, class... O>
    requires detail::optional_out<O...>
decltype(auto) full_like(const A& a, const V& value, O&&... o) {
    return dispatch::call<op::full_like>(tensor_argument(a), value, std::forward<O>(o)...);
}
template <class V, class... O>
    requires detail::optional_out<O...>
decltype(auto) scalar_tensor(const V& value, O&&... o) {
    return dispatch::call<op::scalar_tensor>(value, std::forward<O>(o)...);
}
/// abs·(cos angle + i·sin angle) from real tensors (or a tensor and a number).
template <class R, class Theta, class... O>
    requires detail::optional_out<O...>
decltype(auto) polar(const R& abs, const Theta& angle, O&&... o) {
    return dispatch::call<op::polar>(tensor_argument(abs), tensor_argument(angle), std::forward<O>(o)...);
}

}  // namespace realify
