// Lowerings of the construction ops (ones_like, zeros_like, full_like,
// scalar_tensor, polar) and of the erased ops (view_as_complex, view_as_real).
// A complex constant keeps its value: full_like / scalar_tensor with a complex
// value write (re, im) — the seed system replaced it by 0.0.
#pragma once

#include <complex>
#include <string_view>

#include "realify/dispatch/lowerings/shape.hpp"

namespace realify::dispatch {
namespace lowering {

namespace construction_detail {
/// An owning layout of a's shape filled with (re, im).
template <class A, class T>
auto filled_like(const A& a, T re, T im) {
    using container = realify::detail::owning_tensor_t<T, rank_plus_one(A::rank)>;
    const auto shape = shape_detail::shape_of(a);
    auto result = realify::detail::make_container<container>(shape, 2);
    T* p = result.data();
    for (std::size_t i = 0; i < a.size(); ++i) {
        p[2 * i] = re;
        p[2 * i + 1] = im;
    }
    return complex_layout<container>(std::move(result));
}
}  // namespace construction_detail

struct ones_like_pairs {
    using op = ::realify::op::ones_like;
    static constexpr std::string_view name = "ones_like_unit_pairs";
    static constexpr std::string_view formula = "(1, 0) in every pair";
    template <class A>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static auto apply(const A& a) {
        using T = typename A::real_type;
        return construction_detail::filled_like(a, T(1), T(0));
    }
};
struct zeros_like_pairs {
    using op = ::realify::op::zeros_like;
    static constexpr std::string_view name = "zeros_like_passthrough";
    static constexpr std::string_view formula = "zeros of the layout's shape";
    template <class A>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static auto apply(const A& a) {
        using T = typename A::real_type;
        return construction_detail::filled_like(a, T(0), T(0));
    }
};
struct full_like_pairs {
    using op = ::realify::op::full_like;
    static constexpr std::string_view name = "full_like_value_pairs";
    static constexpr std::string_view formula = "(Re v, Im v) in every pair (the complex value is kept)";
    template <class A, class V>
    static constexpr bool accepts = complex_tensor_operand<A> && number_operand<V>;
    template <class A, class V>
    static auto apply(const A& a, const V& value) {
        using T = typename A::real_type;
        if constexpr (complex_number_operand<V>) return construction_detail::filled_like(a, T(value.real()), T(value.imag()));
        else return construction_detail::filled_like(a, static_cast<T>(value), T(0));
    }
};
struct scalar_tensor_pair {
    using op = ::realify::op::scalar_tensor;
    static constexpr std::string_view name = "scalar_tensor_value_pair";
    static constexpr std::string_view formula = "[Re v, Im v] (0-d complex; the value is kept)";
    template <class V>
    static constexpr bool accepts = number_operand<V>;
    template <class V>
    static auto apply(const V& value) {
        if constexpr (complex_number_operand<V>) {
            using T = std::conditional_t<std::is_same_v<typename V::value_type, float>, float, double>;
            xt::xtensor<T, 1> pair = {T(value.real()), T(value.imag())};
            return complex_layout<xt::xtensor<T, 1>>(std::move(pair));
        } else {
            using T = std::conditional_t<std::is_same_v<V, float>, float, double>;
            xt::xtensor<T, 1> pair = {static_cast<T>(value), T(0)};
            return complex_layout<xt::xtensor<T, 1>>(std::move(pair));
        }
    }
};
struct polar_pairs {
    using op = ::realify::op::polar;
    static constexpr std::string_view name = "polar_cos_sin";
    static constexpr std::string_view formula = "r·cos θ + i·r·sin θ";
    template <class R, class Theta>
    static constexpr bool accepts = real_operand<R> && real_operand<Theta> && (real_tensor_operand<R> || real_tensor_operand<Theta>);
    template <class R, class Theta>
    static auto apply(const R& abs, const Theta& angle) {
        return elementwise<op>(element<op>{}, abs, angle);
    }
};

struct view_as_complex_erased {
    using op = ::realify::op::view_as_complex;
    static constexpr std::string_view name = "view_as_complex_erased";
    static constexpr std::string_view formula = "erased: the real (…,2) tensor is marked complex_layout (no copy)";
    template <class E>
    static constexpr bool accepts = real_tensor_operand<E>;
    template <class E>
    static auto apply(const E& real) {
        return as_complex_layout(real);
    }
};
struct view_as_real_erased {
    using op = ::realify::op::view_as_real;
    static constexpr std::string_view name = "view_as_real_erased";
    static constexpr std::string_view formula = "erased: the layout's real (…,2) expression (no copy)";
    template <class A>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static const auto& apply(const A& a) {
        return a.real_layout();
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(ones_like, lowering::ones_like_pairs)
REALIFY_BUILTIN_CANDIDATES(zeros_like, lowering::zeros_like_pairs)
REALIFY_BUILTIN_CANDIDATES(full_like, lowering::full_like_pairs)
REALIFY_BUILTIN_CANDIDATES(scalar_tensor, lowering::scalar_tensor_pair)
REALIFY_BUILTIN_CANDIDATES(polar, lowering::polar_pairs)
REALIFY_BUILTIN_CANDIDATES(view_as_complex, lowering::view_as_complex_erased)
REALIFY_BUILTIN_CANDIDATES(view_as_real, lowering::view_as_real_erased)

}  // namespace realify::dispatch
