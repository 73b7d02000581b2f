// The eager softmax and normalisations, PyTorch's names and argument order:
// realify::softmax(a, dim), realify::log_softmax(a, dim),
// realify::layer_norm(a, normalized_shape[, weight[, bias[, eps]]]) (F.layer_norm;
// eps 1e-5), realify::rms_norm(a, normalized_shape[, weight[, eps]])
// (F.rms_norm, Llama's RMSNorm; eps by default the element type's machine
// epsilon, as PyTorch). A weight or bias may be std::nullopt (none). Real
// float or double tensors, any layout; each takes an optional
// realify::out(buffer) last (the input itself is allowed: in place).
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "realify/dispatch/lowerings.hpp"
#include "realify/eager/elementwise.hpp"

namespace realify {

/// F.softmax(a, dim) / F.log_softmax(a, dim).
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) softmax(const A& a, std::ptrdiff_t dim, O&&... o) {
    return dispatch::call<op::softmax>(a, dim, std::forward<O>(o)...);
}
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) log_softmax(const A& a, std::ptrdiff_t dim, O&&... o) {
    return dispatch::call<op::log_softmax>(a, dim, std::forward<O>(o)...);
}

namespace detail {
template <class W>
inline constexpr bool norm_operand = !output_argument<W>;
/// PyTorch's default eps of rms_norm: the machine epsilon of the element type.
template <class A>
inline constexpr double epsilon_of = std::numeric_limits<operand_component_t<A>>::epsilon();
}  // namespace detail

/// F.layer_norm(a, normalized_shape, weight, bias, eps = 1e-5).
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) layer_norm(const A& a, const std::vector<std::ptrdiff_t>& normalized_shape, O&&... o) {
    return dispatch::call<op::layer_norm>(a, normalized_shape, 1e-5, std::forward<O>(o)...);
}
template <class A, class W, class... O>
    requires(detail::norm_operand<W> && detail::optional_out<O...>)
decltype(auto) layer_norm(const A& a, const std::vector<std::ptrdiff_t>& normalized_shape, const W& weight, O&&... o) {
    return dispatch::call<op::layer_norm>(a, weight, normalized_shape, 1e-5, std::forward<O>(o)...);
}
template <class A, class W, class B, class... O>
    requires(detail::norm_operand<W> && detail::norm_operand<B> && detail::optional_out<O...>)
decltype(auto) layer_norm(const A& a, const std::vector<std::ptrdiff_t>& normalized_shape, const W& weight, const B& bias,
                          O&&... o) {
    return dispatch::call<op::layer_norm>(a, weight, bias, normalized_shape, 1e-5, std::forward<O>(o)...);
}
template <class A, class W, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) layer_norm(const A& a, const std::vector<std::ptrdiff_t>& normalized_shape, const W& weight, const B& bias,
                          double eps, O&&... o) {
    return dispatch::call<op::layer_norm>(a, weight, bias, normalized_shape, eps, std::forward<O>(o)...);
}

/// F.rms_norm(a, normalized_shape, weight, eps): Llama's RMSNorm is
/// rms_norm(x, {dim}, weight, norm_eps).
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) rms_norm(const A& a, const std::vector<std::ptrdiff_t>& normalized_shape, O&&... o) {
    return dispatch::call<op::rms_norm>(a, normalized_shape, detail::epsilon_of<A>, std::forward<O>(o)...);
}
template <class A, class W, class... O>
    requires(detail::norm_operand<W> && detail::optional_out<O...>)
decltype(auto) rms_norm(const A& a, const std::vector<std::ptrdiff_t>& normalized_shape, const W& weight, O&&... o) {
    return dispatch::call<op::rms_norm>(a, weight, normalized_shape, detail::epsilon_of<A>, std::forward<O>(o)...);
}
template <class A, class W, class... O>
    requires detail::optional_out<O...>
decltype(auto) rms_norm(const A& a, const std::vector<std::ptrdiff_t>& normalized_shape, const W& weight, double eps,
                        O&&... o) {
    return dispatch::call<op::rms_norm>(a, weight, normalized_shape, eps, std::forward<O>(o)...);
}

}  // namespace realify
