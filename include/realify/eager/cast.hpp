// realify::to<T>(a): PyTorch's tensor.to(dtype) for complex and real tensors.
//
//   to<std::complex<float|double>>(a)   complex: the components converted;
//                                       real: x + 0i
//   to<float|double>(a)                 real: converted; complex: the real
//                                       part (PyTorch discards the imaginary part)
//   to<bool>(a)                         x ≠ 0 (complex: either part; NaN is true)
//
// The result is allocated as realify/dispatch/results.hpp says (a
// complex_layout stays one), or written into realify::out(buffer).
#pragma once

#include <array>
#include <complex>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "realify/dispatch/lowerings/common.hpp"
#include "realify/eager/elementwise.hpp"

namespace realify {

namespace detail {

template <class To, class A>
engine::block_kernel cast_kernel() {
    using S = operand_component_t<A>;
    constexpr bool from_complex = complex_tensor_operand<A>;
    const std::array<bool, 1> kinds{from_complex};
    // the type blocks compute in: the source's floating type, or double for integers
    using F = std::conditional_t<std::is_floating_point_v<S>, S, double>;
    if constexpr (std::is_same_v<To, bool>) {
        return engine::builtin_kernel(engine::builtin::nonzero, engine::component_of<F>(), kinds);
    } else if constexpr (complex_scalar<To>) {
        using D = typename To::value_type;
        return engine::builtin_kernel(from_complex ? engine::builtin::copy : engine::builtin::to_complex,
                                      engine::component_of<D>(), kinds);
    } else if constexpr (from_complex) {
        return engine::kernel_of(simd::elementwise_op::real, engine::component_of<S>(), kinds);
    } else {
        return engine::builtin_kernel(engine::builtin::copy, engine::component_of<To>(), kinds);
    }
}

}  // namespace detail

/// a converted to element type To (float, double, bool, std::complex<float|double>).
template <class To, class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) to(const A& a, O&&... o) {
    static_assert(std::is_same_v<To, bool> || std::is_same_v<To, float> || std::is_same_v<To, double> ||
                      std::is_same_v<To, std::complex<float>> || std::is_same_v<To, std::complex<double>>,
                  "realify::to<T>: T must be bool, float, double, std::complex<float> or std::complex<double>");
    constexpr std::string_view name = "to";
    if constexpr (plain_container_operand<A> || detail::is_unreadable_container_v<A>) {
        return to<To>(tensor_argument(a), std::forward<O>(o)...);
    } else if constexpr ((plain_container_operand<typename std::remove_cvref_t<O>::buffer_type> || ...)) {
        return into_plain_buffer((o, ...), [&](auto& adapted) { to<To>(a, adapted); });
    } else if constexpr (!tensor_operand<A>) {
        static_assert(tensor_operand<A>,
                      "realify::to: the operand must be a tensor (complex_layout, std::complex or real xtensor)");
        if constexpr (sizeof...(O) == 1) return take_buffer((o, ...));
        else return dispatch::detail::refused_result_t<A>{};
    } else if constexpr (sizeof...(O) == 1) {
        auto& out_argument = (o, ...);
        dispatch::evaluate_into<To>(name, detail::cast_kernel<To, A>(), out_argument, a);
        return take_buffer(out_argument);
    } else {
        using R = dispatch::result_t<To, operand_rank_v<A>, A>;
        return dispatch::lowering::allocate_and_evaluate<R>(name, detail::cast_kernel<To, A>(), a);
    }
}

}  // namespace realify
