// What view_as_real / view_as_complex need from an expression: that it lives
// in memory (a container, an adaptor or a strided view), where its first
// element is, and its strides. Lazy expressions such as `a + b` have no memory
// to reinterpret; they get one readable static_assert.
#pragma once

#include <cstddef>
#include <type_traits>

#include <xtensor/xarray.hpp>
#include <xtensor/xexpression.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xutils.hpp>

#include "realify/version.hpp"

namespace realify::detail {

template <class E>
concept strided_in_memory = xt::is_xexpression<std::decay_t<E>>::value &&
                            xt::has_data_interface<std::decay_t<E>>::value &&
                            xt::has_strides<std::decay_t<E>>::value;

/// Where the first element of an expression in memory is: data() +
/// data_offset(), or data() itself when it has no elements — an empty view's
/// offset may be non-zero (a flipped axis of extent 0 points one stride
/// back) while data() is null, and forming that pointer is undefined.
template <class E>
auto first_element(E& e) noexcept(noexcept(e.data())) -> decltype(e.data()) {
    return e.size() == 0 ? e.data() : e.data() + e.data_offset();
}

/// True for the containers that own their storage (xtensor, xarray,
/// xtensor_fixed): a view of such a temporary would dangle.
template <class E>
struct is_owning_container : std::false_type {};
template <class EC, std::size_t N, xt::layout_type L, class Tag>
struct is_owning_container<xt::xtensor_container<EC, N, L, Tag>> : std::true_type {};
template <class EC, xt::layout_type L, class SC, class Tag>
struct is_owning_container<xt::xarray_container<EC, L, SC, Tag>> : std::true_type {};
template <class ET, class S, xt::layout_type L, bool SH, class Tag>
struct is_owning_container<xt::xfixed_container<ET, S, L, SH, Tag>> : std::true_type {};

/// An rvalue owning container: viewing it would hand out a dangling view.
template <class E>
inline constexpr bool is_expiring_container_v = !std::is_lvalue_reference_v<E> && is_owning_container<std::decay_t<E>>::value;

/// Static layout of E is row-major: contiguous and in C order, so a view can be a
/// plain contiguous adaptor rather than a strided view.
template <class E>
inline constexpr bool is_row_major_contiguous_v = std::decay_t<E>::static_layout == xt::layout_type::row_major;

}  // namespace realify::detail
