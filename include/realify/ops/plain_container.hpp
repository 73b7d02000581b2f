// Plain containers as eager operands and out= buffers: a std::vector or a
// std::span of float, double, std::complex<float> or std::complex<double> is
// the 1-D contiguous tensor it holds. The eager API reads (and writes) it
// through a non-owning xtensor adaptor of its memory — no copy — so every op
// sees an ordinary xtensor operand, and an allocating call returns an
// xt::xtensor. Any other argument that is a container but not a tensor
// realify reads (std::list, std::deque, std::array, a vector of ints, …) gets
// ONE static_assert at the call, saying how to adapt its memory (xt::adapt).
#pragma once

#include <complex>
#include <cstddef>
#include <iterator>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xadapt.hpp>

#include "realify/layout/complex_layout.hpp"
#include "realify/ops/operand.hpp"

namespace realify {

namespace detail {
template <class C>
struct plain_container_of {
    using element = void;
};
template <class V, class Alloc>
struct plain_container_of<std::vector<V, Alloc>> {
    using element = V;
};
template <class V, std::size_t N>
struct plain_container_of<std::span<V, N>> {
    using element = V;
};

/// The element types a plain container may hold: the ones realify computes in.
template <class V>
inline constexpr bool plain_element_v = std::is_same_v<V, float> || std::is_same_v<V, double> ||
                                        std::is_same_v<V, std::complex<float>> ||
                                        std::is_same_v<V, std::complex<double>>;
}  // namespace detail

/// A std::vector or std::span of float, double or std::complex<float|double>.
template <class A>
concept plain_container_operand =
    detail::plain_element_v<std::remove_cv_t<typename detail::plain_container_of<std::remove_cvref_t<A>>::element>>;

/// The 1-D xtensor adaptor of a plain container's memory (no copy; the
/// container must outlive it). Const when the container's elements are.
template <plain_container_operand C>
auto adapt_plain(C& c) {
    return xt::adapt(c.data(), c.size(), xt::no_ownership());
}

namespace detail {
template <class A>
inline constexpr bool is_list_of_plain_v = false;  // cat / stack of plain containers
template <class V, class Alloc>
inline constexpr bool is_list_of_plain_v<std::vector<V, Alloc>> = plain_container_operand<V>;
}  // namespace detail

/// An argument the eager API adapts: a plain container, or a list of them.
template <class A>
concept adapted_argument = plain_container_operand<A> || detail::is_list_of_plain_v<std::remove_cvref_t<A>>;

/// An eager op's argument as the dispatch table reads it: a plain container
/// (or a list of them) adapted, anything else as it is.
template <class A>
decltype(auto) as_operand(A&& a) {
    if constexpr (plain_container_operand<A>) {
        return adapt_plain(a);
    } else if constexpr (adapted_argument<A>) {
        std::vector<decltype(adapt_plain(a.front()))> adapted;
        adapted.reserve(a.size());
        for (auto& c : a) adapted.push_back(adapt_plain(c));
        return adapted;
    } else {
        return std::forward<A>(a);
    }
}

/// The type an eager op's argument of type A is read as.
template <class A>
using operand_t = std::remove_cvref_t<decltype(as_operand(std::declval<const A&>()))>;

namespace detail {
/// A range as std::begin and std::end see one (<ranges>, included for
/// std::ranges::range alone, would add about 4 % to the compilation of
/// every unit that includes realify).
template <class A>
concept iterable = requires(A& a) {
    std::begin(a);
    std::end(a);
};
/// A container (iterable, or a pointer) that is not a tensor realify reads:
/// neither an xtensor expression, nor a complex_layout, nor a plain
/// container, nor a string. Refused where a tensor is expected.
template <class A>
inline constexpr bool is_unreadable_container_v =
    (iterable<A> || std::is_pointer_v<A>) && !xt::is_xexpression<A>::value && !is_complex_layout_v<A> &&
    !plain_container_operand<A> && !std::is_convertible_v<A, std::string_view>;

template <class A>
inline constexpr bool is_argument_list_v = false;  // dims, sizes; the tensors of cat / stack
template <class V, class Alloc>
inline constexpr bool is_argument_list_v<std::vector<V, Alloc>> =
    std::is_integral_v<V> || tensor_operand<V> || plain_container_operand<V>;

/// An argument of any position (dispatch::call does not know which are
/// tensors) that is an unreadable container and no list of dims or tensors.
template <class A>
inline constexpr bool is_unreadable_argument_v = is_unreadable_container_v<A> && !is_argument_list_v<A>;

/// The one error of an unreadable container of type A.
template <class A>
struct unreadable_operand {
    static_assert(!is_unreadable_container_v<A>,
                  "realify: an argument of the type in unreadable_operand<…> above is not a tensor realify reads. "
                  "Operands are xtensor containers, adaptors and views, complex_layouts, std::vector or std::span "
                  "of float, double or std::complex<float|double> (1-D), and numbers: adapt other memory with "
                  "xt::adapt(pointer, size, xt::no_ownership(), shape) from <xtensor/xadapt.hpp>.");
    static constexpr bool value = !is_unreadable_container_v<A>;
};

template <class... A>
struct first_unreadable {
    using type = void;
};
template <class A, class... Rest>
struct first_unreadable<A, Rest...> {
    using type = std::conditional_t<is_unreadable_argument_v<A>, A, typename first_unreadable<Rest...>::type>;
};

/// What stands in for a refused tensor so that the code after the refusal
/// compiles: an empty xt::xarray of its value type (of double without one).
template <class A>
struct stand_in {
    using type = xt::xarray<double>;
};
template <class A>
    requires requires { typename A::value_type; } &&
             (complex_scalar<typename A::value_type> || std::is_arithmetic_v<typename A::value_type>)
struct stand_in<A> {
    using type = xt::xarray<typename A::value_type>;
};
}  // namespace detail

/// What the eager ops take as an operand: an elementwise operand, a plain
/// container, or a container they refuse with one static_assert.
template <class A>
concept eager_argument = elementwise_operand<A> || plain_container_operand<A> ||
                         detail::is_unreadable_container_v<std::remove_cvref_t<A>>;

/// True when no argument is an unreadable container (lists of dims and of
/// tensors are arguments too); else false, after ONE static_assert naming
/// the first such argument's type.
template <class... A>
constexpr bool readable_arguments() {
    if constexpr ((!detail::is_unreadable_argument_v<std::remove_cvref_t<A>> && ...))
        return true;
    else
        return detail::unreadable_operand<typename detail::first_unreadable<std::remove_cvref_t<A>...>::type>::value;
}

/// An argument in a tensor's position as the dispatch table reads it: a
/// plain container adapted; an unreadable container refused by its one
/// static_assert and replaced by an empty stand-in (so no second error
/// follows); anything else as it is.
template <class A>
decltype(auto) tensor_argument(A&& a) {
    using D = std::remove_cvref_t<A>;
    if constexpr (detail::is_unreadable_container_v<D>) {
        static_cast<void>(detail::unreadable_operand<D>::value);  // its static_assert: the one error
        return typename detail::stand_in<D>::type{};
    } else {
        return as_operand(std::forward<A>(a));
    }
}

}  // namespace realify
