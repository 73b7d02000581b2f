// Element kernels of the componentwise rounding ops: ceil, floor, round (half
// to even), trunc. PyTorch rejects them for complex tensors; realify applies
// the real function to each component, so the complex form is the real form
// on both parts (and the compiled kernels run the real kernel over 2n
// components). See kernels/element.hpp for the contract.
#pragma once

#include <cmath>
#include <concepts>
#include <string_view>

#include "realify/kernels/element.hpp"

namespace realify::kernels {

namespace detail {
/// The complex form of a componentwise op F: F on each part.
template <class F>
struct on_both_parts {
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        const F f;
        return {f(z.re), f(z.im)};
    }
};
struct ceil_real {
    template <std::floating_point T>
    T operator()(T x) const noexcept { return std::ceil(x); }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept { return V::ceil(x); }
};
struct floor_real {
    template <std::floating_point T>
    T operator()(T x) const noexcept { return std::floor(x); }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept { return V::floor(x); }
};
/// Half to even, like torch.round (nearbyint in the default rounding mode).
struct round_real {
    template <std::floating_point T>
    T operator()(T x) const noexcept { return std::nearbyint(x); }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept { return V::nearbyint(x); }
};
struct trunc_real {
    template <std::floating_point T>
    T operator()(T x) const noexcept { return std::trunc(x); }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x) noexcept { return V::trunc(x); }
};
template <class F>
struct rounding : F, on_both_parts<F> {
    /// The compiled kernels run the real kernel over both parts.
    static constexpr bool componentwise = true;
    using F::operator();
    using on_both_parts<F>::operator();
};
}  // namespace detail

template <>
struct element<op::ceil> : detail::rounding<detail::ceil_real> {
    static constexpr std::string_view formula = "ceil on both components";
    static constexpr std::string_view real_formula = "ceil x on real tensors";
};
template <>
struct element<op::floor> : detail::rounding<detail::floor_real> {
    static constexpr std::string_view formula = "floor on both components";
    static constexpr std::string_view real_formula = "floor x on real tensors";
};
template <>
struct element<op::round> : detail::rounding<detail::round_real> {
    static constexpr std::string_view formula = "round half to even on both components";
    static constexpr std::string_view real_formula = "round half to even on real tensors";
};
template <>
struct element<op::trunc> : detail::rounding<detail::trunc_real> {
    static constexpr std::string_view formula = "trunc on both components";
    static constexpr std::string_view real_formula = "trunc x on real tensors";
};

}  // namespace realify::kernels
