// Compile-time facts about an xtensor expression's shape: is its rank static,
// is its whole shape static, and what a shape one axis longer or shorter looks
// like. view_as_real / view_as_complex use these so that static shapes stay
// static (xtensor_fixed -> fixed, xtensor<T,N> -> rank N±1) and dynamic shapes
// stay dynamic.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <tuple>
#include <type_traits>

#include <xtensor/xshape.hpp>
#include <xtensor/xstorage.hpp>
#include <xtensor/xtensor_forward.hpp>

#include "realify/version.hpp"

namespace realify {

/// Marks a rank only known at run time.
inline constexpr std::size_t dynamic_rank = std::numeric_limits<std::size_t>::max();

namespace detail {

template <class S>
struct shape_rank {
    static constexpr std::size_t value = dynamic_rank;
};
template <std::size_t N>
struct shape_rank<std::array<std::size_t, N>> {
    static constexpr std::size_t value = N;
};
template <std::size_t N>
struct shape_rank<xt::const_array<std::size_t, N>> {
    static constexpr std::size_t value = N;
};
template <std::size_t... I>
struct shape_rank<xt::fixed_shape<I...>> {
    static constexpr std::size_t value = sizeof...(I);
};

template <class S>
struct is_fixed_shape : std::false_type {};
template <std::size_t... I>
struct is_fixed_shape<xt::fixed_shape<I...>> : std::true_type {};

/// fixed_shape<I..., 2>
template <class S>
struct append_two;
template <std::size_t... I>
struct append_two<xt::fixed_shape<I...>> {
    using type = xt::fixed_shape<I..., 2>;
};

/// fixed_shape<I...> without its last extent (which the caller checked is 2).
template <class Kept, class Rest>
struct drop_last_impl;
template <std::size_t... K, std::size_t Last>
struct drop_last_impl<xt::fixed_shape<K...>, xt::fixed_shape<Last>> {
    using type = xt::fixed_shape<K...>;
};
template <std::size_t... K, std::size_t Head, std::size_t Next, std::size_t... Tail>
struct drop_last_impl<xt::fixed_shape<K...>, xt::fixed_shape<Head, Next, Tail...>>
    : drop_last_impl<xt::fixed_shape<K..., Head>, xt::fixed_shape<Next, Tail...>> {};

template <class S>
struct last_extent;
template <std::size_t... I>
struct last_extent<xt::fixed_shape<I...>> {
    static constexpr std::size_t value = std::get<sizeof...(I) - 1>(std::array<std::size_t, sizeof...(I)>{I...});
};

}  // namespace detail

/// Rank of E known at compile time, or realify::dynamic_rank.
template <class E>
inline constexpr std::size_t static_rank_v = detail::shape_rank<typename std::decay_t<E>::shape_type>::value;

/// True when E's whole shape is a compile-time xt::fixed_shape.
template <class E>
inline constexpr bool has_fixed_shape_v = detail::is_fixed_shape<typename std::decay_t<E>::shape_type>::value;

/// A runtime shape container of `Rank` extents (std::array), or a small
/// vector when the rank is dynamic.
template <std::size_t Rank>
using shape_for_rank_t = std::conditional_t<Rank == dynamic_rank, xt::svector<std::size_t, 4>, std::array<std::size_t, Rank>>;

namespace detail {
/// An owning container of element type V and rank Rank (xt::xarray when dynamic).
template <class V, std::size_t Rank>
using owning_tensor_t = std::conditional_t<Rank == dynamic_rank, xt::xarray<V>, xt::xtensor<V, Rank == dynamic_rank ? 0 : Rank>>;
}  // namespace detail

/// Rank one larger / one smaller, dynamic staying dynamic.
inline constexpr std::size_t rank_plus_one(std::size_t rank) { return rank == dynamic_rank ? rank : rank + 1; }
inline constexpr std::size_t rank_minus_one(std::size_t rank) { return rank == dynamic_rank ? rank : rank - 1; }

namespace detail {
/// A shape container sized `size`, ready to be filled (std::array ignores the size).
template <class Shape>
Shape make_shape(std::size_t size) {
    if constexpr (requires(Shape s) { s.resize(size); }) {
        Shape s;
        s.resize(size);
        return s;
    } else {
        return Shape{};
    }
}
}  // namespace detail

}  // namespace realify
