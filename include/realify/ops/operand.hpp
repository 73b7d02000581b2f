// What an argument of an eager op is, decided at compile time: a complex
// tensor (complex_layout<E>, or an xtensor expression of std::complex
// elements), a real tensor (a real xtensor expression), a complex scalar
// (std::complex) or a real number. The dispatch table's
// capability validators and the elementwise engine are written on these
// traits.
#pragma once

#include <complex>
#include <cstddef>
#include <type_traits>

#include <xtensor/xexpression.hpp>

#include "realify/layout/complex_layout.hpp"
#include "realify/layout/scalar_traits.hpp"
#include "realify/layout/shape_traits.hpp"

namespace realify {

namespace detail {
template <class T>
struct is_std_complex : std::false_type {};
template <class T>
struct is_std_complex<std::complex<T>> : std::true_type {};
}  // namespace detail

/// A complex_layout<E>: a real (…, 2) expression marked complex.
template <class A>
concept complex_layout_operand = is_complex_layout_v<A>;

/// An xtensor expression of std::complex<float|double> elements: a
/// container, an adaptor of a std::complex buffer, a view, or a lazy
/// expression (evaluated once when it has no memory).
template <class A>
concept complex_container_operand = !is_complex_layout_v<A> && xt::is_xexpression<std::remove_cvref_t<A>>::value &&
                                    complex_scalar<typename std::remove_cvref_t<A>::value_type>;

/// A complex tensor: either of the two.
template <class A>
concept complex_tensor_operand = complex_layout_operand<A> || complex_container_operand<A>;

/// A real (or bool/integer) xtensor expression that is not a complex layout.
template <class A>
concept real_tensor_operand = !is_complex_layout_v<A> && xt::is_xexpression<std::remove_cvref_t<A>>::value &&
                              std::is_arithmetic_v<typename std::remove_cvref_t<A>::value_type>;

/// std::complex<float|double> (or any std::complex of an arithmetic type).
template <class A>
concept complex_number_operand = detail::is_std_complex<std::remove_cvref_t<A>>::value;

/// A C++ number: int, float, double, bool …
template <class A>
concept real_number_operand = std::is_arithmetic_v<std::remove_cvref_t<A>>;

template <class A>
concept complex_operand = complex_tensor_operand<A> || complex_number_operand<A>;
template <class A>
concept real_operand = real_tensor_operand<A> || real_number_operand<A>;
template <class A>
concept number_operand = complex_number_operand<A> || real_number_operand<A>;
template <class A>
concept tensor_operand = complex_tensor_operand<A> || real_tensor_operand<A>;
template <class A>
concept elementwise_operand = complex_operand<A> || real_operand<A>;

namespace detail {
template <class A>
struct operand_traits;
template <class A>
    requires complex_layout_operand<A>
struct operand_traits<A> {
    using value_type = typename std::remove_cvref_t<A>::real_type;
    static constexpr std::size_t rank = std::remove_cvref_t<A>::rank;
};
template <class A>
    requires complex_container_operand<A>
struct operand_traits<A> {
    using value_type = typename std::remove_cvref_t<A>::value_type::value_type;
    static constexpr std::size_t rank = static_rank_v<std::remove_cvref_t<A>>;
};
template <class A>
    requires real_tensor_operand<A>
struct operand_traits<A> {
    using value_type = typename std::remove_cvref_t<A>::value_type;
    static constexpr std::size_t rank = static_rank_v<std::remove_cvref_t<A>>;
};
template <class A>
    requires complex_number_operand<A>
struct operand_traits<A> {
    using value_type = typename std::remove_cvref_t<A>::value_type;
    static constexpr std::size_t rank = 0;
};
template <class A>
    requires real_number_operand<A>
struct operand_traits<A> {
    using value_type = std::remove_cvref_t<A>;
    static constexpr std::size_t rank = 0;
};

constexpr std::size_t max_rank(std::initializer_list<std::size_t> ranks) {
    std::size_t result = 0;
    for (std::size_t r : ranks) {
        if (r == dynamic_rank) return dynamic_rank;
        if (r > result) result = r;
    }
    return result;
}
}  // namespace detail

/// Complex rank of an operand (0 for numbers), or realify::dynamic_rank.
template <class A>
inline constexpr std::size_t operand_rank_v = detail::operand_traits<A>::rank;

/// The component type of an operand: float for a complex_layout of floats or
/// std::complex<float> elements, the value type of a real tensor or number.
template <class A>
using operand_component_t = std::remove_cv_t<typename detail::operand_traits<A>::value_type>;

/// Rank of the broadcast of several operands, known at compile time when all are.
template <class... A>
inline constexpr std::size_t broadcast_rank_v = detail::max_rank({operand_rank_v<A>...});

}  // namespace realify
