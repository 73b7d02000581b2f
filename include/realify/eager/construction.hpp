// The eager constructors: ones_like, zeros_like, full_like (real or complex
// value, kept), empty_like of complex and real tensors, scalar_tensor (0-d
// complex layout), polar(abs, angle), and PyTorch's creation ops
//
//   full(shape, value)          xt::xarray of the value's dtype as PyTorch
//                               infers it (float for a floating value — the
//                               default dtype —, int64, bool, complex<float>),
//                               or of E: full<double>(shape, value)
//   zeros / ones / empty(shape)  float, or E: zeros<double>(shape)
//   arange(end), arange(start, end[, step])
//                               xt::xtensor<E, 1>: int64 when every bound is
//                               an integer, else float (PyTorch's dtypes), or
//                               E; ceil((end − start) / step) values, step 0 or
//                               of the wrong sign refused as PyTorch does
//
// each with an optional realify::out(buffer) last. A shape is a list of
// extents, {S, S}; a negative extent is a shape_error.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

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
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) empty_like(const A& a, O&&... o) {
    return dispatch::call<op::empty_like>(tensor_argument(a), std::forward<O>(o)...);
}

namespace detail {
/// The element type of a creation op: E when given, else PyTorch's for the value.
template <class E, class V>
using fill_element_t = std::conditional_t<
    !std::is_void_v<E>, E,
    std::conditional_t<complex_number_operand<V>, std::complex<float>,
                       std::conditional_t<std::is_same_v<V, bool>, bool,
                                          std::conditional_t<std::is_integral_v<V>, std::int64_t, float>>>>;
template <class E, class... B>
using arange_element_t = std::conditional_t<!std::is_void_v<E>, E,
                                            std::conditional_t<(std::is_integral_v<B> && ...), std::int64_t, float>>;
template <class B>
inline constexpr bool arange_bound = std::is_arithmetic_v<B> && !std::is_same_v<B, bool>;
}  // namespace detail

/// torch.full(size, fill_value).
template <class E = void, class V, class... O>
    requires(number_operand<V> && detail::optional_out<O...>)
decltype(auto) full(const std::vector<std::ptrdiff_t>& shape, const V& fill_value, O&&... o) {
    return dispatch::call<op::full>(std::type_identity<detail::fill_element_t<E, V>>{}, shape, fill_value, std::forward<O>(o)...);
}
/// torch.zeros(size) / torch.ones(size) / torch.empty(size) (empty: not filled).
template <class E = float, class... O>
    requires detail::optional_out<O...>
decltype(auto) zeros(const std::vector<std::ptrdiff_t>& shape, O&&... o) {
    return dispatch::call<op::zeros>(std::type_identity<E>{}, shape, std::forward<O>(o)...);
}
template <class E = float, class... O>
    requires detail::optional_out<O...>
decltype(auto) ones(const std::vector<std::ptrdiff_t>& shape, O&&... o) {
    return dispatch::call<op::ones>(std::type_identity<E>{}, shape, std::forward<O>(o)...);
}
template <class E = float, class... O>
    requires detail::optional_out<O...>
decltype(auto) empty(const std::vector<std::ptrdiff_t>& shape, O&&... o) {
    return dispatch::call<op::empty>(std::type_identity<E>{}, shape, std::forward<O>(o)...);
}

/// torch.arange(end) / arange(start, end) / arange(start, end, step).
template <class E = void, class End, class... O>
    requires(detail::arange_bound<End> && detail::optional_out<O...>)
decltype(auto) arange(const End& end, O&&... o) {
    return dispatch::call<op::arange>(std::type_identity<detail::arange_element_t<E, End>>{}, End(0), end, End(1),
                                      std::forward<O>(o)...);
}
template <class E = void, class Start, class End, class... O>
    requires(detail::arange_bound<Start> && detail::arange_bound<End> && detail::optional_out<O...>)
decltype(auto) arange(const Start& start, const End& end, O&&... o) {
    return dispatch::call<op::arange>(std::type_identity<detail::arange_element_t<E, Start, End>>{}, start, end, 1,
                                      std::forward<O>(o)...);
}
template <class E = void, class Start, class End, class Step, class... O>
    requires(detail::arange_bound<Start> && detail::arange_bound<End> && detail::arange_bound<Step> &&
             detail::optional_out<O...>)
decltype(auto) arange(const Start& start, const End& end, const Step& step, O&&... o) {
    return dispatch::call<op::arange>(std::type_identity<detail::arange_element_t<E, Start, End, Step>>{}, start, end,
                                      step, std::forward<O>(o)...);
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
