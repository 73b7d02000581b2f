// realify::view_as_complex — a real tensor of shape S+[2] seen as a
// std::complex<T> tensor of shape S over the same memory; the inverse of
// view_as_real.
//
// Preconditions are those of torch.view_as_complex, checked at run time and
// reported as realify::layout_error naming the shape, strides and offset:
//   - rank >= 1 and the last extent is 2;
//   - the last stride is 1 (re and im adjacent);
//   - every other stride is even (each element starts on a pair);
//   - the first element sits at an even offset in its storage.
// A statically rank-0 input is a compile error instead.
#pragma once

#include <complex>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include <xtensor/xadapt.hpp>
#include <xtensor/xstrided_view.hpp>

#include "realify/errors.hpp"
#include "realify/layout/memory_access.hpp"
#include "realify/layout/pointer_cast.hpp"
#include "realify/layout/scalar_traits.hpp"
#include "realify/layout/shape_traits.hpp"

namespace realify {

namespace detail {

/// layout_error unless a real layout of this shape, these strides and this
/// offset can be viewed as complex (the conditions above), its message naming
/// `where`, the layout and what fails. Compiled once (realify_simd).
void check_complex_viewable(const char* where, std::span<const std::size_t> shape,
                            std::span<const std::ptrdiff_t> strides, std::size_t offset);

/// A shape or strides sequence as contiguous T, for the compiled checks: the
/// sequence itself when it is (std::array, xtensor's svector), else a copy.
/// (Asked of data() rather than of std::span's converting constructor, whose
/// range concepts cost more to compile than the rest of the function.)
template <class T, class Sequence>
decltype(auto) contiguous_sequence(const Sequence& s) {
    if constexpr (requires { requires std::is_same_v<decltype(s.data()), const T*>; }) return (s);
    else return xt::svector<T, 6>(s.begin(), s.end());
}

/// The same for any shape and strides sequence.
template <class Shape, class Strides>
void check_complex_viewable(const char* where, const Shape& shape, const Strides& strides, std::size_t offset) {
    const auto& s = contiguous_sequence<std::size_t>(shape);
    const auto& t = contiguous_sequence<std::ptrdiff_t>(strides);
    check_complex_viewable(where, std::span<const std::size_t>(s.data(), s.size()),
                           std::span<const std::ptrdiff_t>(t.data(), t.size()), offset);
}

/// layout_error: a complex layout needs a trailing axis of extent 2, naming
/// the real shape it got. Compiled once (realify_simd).
[[noreturn]] void throw_not_complex_layout(std::span<const std::size_t> real_shape);

template <class E>
auto view_as_complex_impl(E& e) {
    using expression = std::decay_t<E>;
    const auto& shape = e.shape();
    check_complex_viewable("realify::view_as_complex", shape, e.strides(), static_cast<std::size_t>(e.data_offset()));

    constexpr std::size_t complex_rank = rank_minus_one(static_rank_v<expression>);
    using complex_shape = shape_for_rank_t<complex_rank>;

    if constexpr (has_fixed_shape_v<expression> && is_row_major_contiguous_v<expression>) {
        using fixed = typename drop_last_impl<xt::fixed_shape<>, typename expression::shape_type>::type;
        return xt::adapt(as_complex_pointer(first_element(e)), fixed{});
    } else {
        complex_shape out_shape = make_shape<complex_shape>(shape.size() - 1);
        // A rank-0 result has an empty std::array: nothing to copy (and GCC
        // warns -Wnonnull about copying into its null begin()).
        if constexpr (complex_rank != 0) std::copy(shape.begin(), shape.end() - 1, out_shape.begin());

        if constexpr (is_row_major_contiguous_v<expression>) {
            const std::size_t n_complex = static_cast<std::size_t>(e.size()) / 2;
            return xt::adapt(as_complex_pointer(first_element(e)), n_complex, xt::no_ownership(), out_shape);
        } else {
            using complex_strides = xt::get_strides_t<complex_shape>;
            complex_strides out_strides = make_shape<complex_strides>(shape.size() - 1);
            const auto& strides = e.strides();
            for (std::size_t axis = 0; axis + 1 < shape.size(); ++axis) {
                out_strides[axis] = static_cast<std::ptrdiff_t>(strides[axis]) / 2;
            }
            // Whole pairs of the underlying storage; the view never reaches a
            // trailing odd real because its offset and strides are even.
            const std::size_t storage_pairs = static_cast<std::size_t>(e.storage().size()) / 2;
            auto whole_storage = xt::adapt(as_complex_pointer(e.data()), storage_pairs, xt::no_ownership(),
                                           std::array<std::size_t, 1>{storage_pairs});
            return xt::strided_view(std::move(whole_storage), std::move(out_shape), std::move(out_strides),
                                    static_cast<std::size_t>(e.data_offset()) / 2, xt::layout_type::dynamic);
        }
    }
}

}  // namespace detail

/// View a real float|double xtensor container, adaptor or strided view of
/// shape S+[2] as a std::complex tensor of shape S sharing its memory.
/// Throws realify::layout_error when the memory layout does not allow it.
template <class E>
    requires xt::is_xexpression<std::decay_t<E>>::value
auto view_as_complex(E&& e) {
    using expression = std::decay_t<E>;
    static_assert(real_scalar<typename expression::value_type>,
                  "realify::view_as_complex: the expression's value_type must be float or double.");
    static_assert(static_rank_v<expression> != 0,
                  "realify::view_as_complex: a rank-0 tensor has no trailing axis of extent 2 to view as complex.");
    static_assert(detail::strided_in_memory<E>,
                  "realify::view_as_complex: the expression has no memory to view (it is lazy, e.g. `a + b`); "
                  "evaluate it into a container first, or view a container, adaptor or strided view.");
    static_assert(!detail::is_expiring_container_v<E&&>,
                  "realify::view_as_complex: the argument is a temporary container; its view would dangle. "
                  "Keep the container in a variable and view that.");
    if constexpr (has_fixed_shape_v<expression>) {
        static_assert(detail::last_extent<typename expression::shape_type>::value == 2,
                      "realify::view_as_complex: the fixed shape's last extent must be 2.");
    }
    // Only instantiate the implementation when the checks above hold, so a
    // misuse reports the one static_assert and nothing else.
    if constexpr (real_scalar<typename expression::value_type> && static_rank_v<expression> != 0 &&
                  detail::strided_in_memory<E>) {
        return detail::view_as_complex_impl(e);
    }
}

}  // namespace realify
