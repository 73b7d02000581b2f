// realify::view_as_real — a std::complex<T> tensor of shape S seen as a real
// tensor of shape S+[2] (last axis = [real, imag]) over the same memory.
//
// The standard guarantees std::complex<T> is laid out as T[2]
// ([complex.numbers.general]/4), so the reinterpretation is zero-copy and
// well-defined. Writes through the view change the complex tensor.
//
// The returned type keeps what is static static:
//   xtensor_fixed<complex<T>, fixed_shape<I...>>  -> fixed adaptor, fixed_shape<I..., 2>
//   xtensor<complex<T>, N> (and views of rank N)  -> rank N+1
//   xarray<complex<T>>                             -> dynamic rank
// A contiguous row-major source gives a contiguous adaptor (fast linear
// assignment); anything else (transposes, stepped or reversed slices,
// column-major storage) gives a strided view with doubled strides and a
// trailing stride of 1.
#pragma once

#include <complex>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <xtensor/xadapt.hpp>
#include <xtensor/xstrided_view.hpp>

#include "realify/layout/memory_access.hpp"
#include "realify/layout/pointer_cast.hpp"
#include "realify/layout/scalar_traits.hpp"
#include "realify/layout/shape_traits.hpp"

namespace realify {

namespace detail {

template <class E>
auto view_as_real_impl(E&& e) {
    using expression = std::decay_t<E>;
    constexpr std::size_t real_rank = rank_plus_one(static_rank_v<expression>);
    using real_shape = shape_for_rank_t<real_rank>;

    if constexpr (has_fixed_shape_v<expression> && is_row_major_contiguous_v<expression>) {
        using fixed = typename append_two<typename expression::shape_type>::type;
        return xt::adapt(as_real_pointer(first_element(e)), fixed{});
    } else {
        const auto& shape = e.shape();
        real_shape out_shape = make_shape<real_shape>(shape.size() + 1);
        std::copy(shape.begin(), shape.end(), out_shape.begin());
        out_shape.back() = 2;

        if constexpr (is_row_major_contiguous_v<expression>) {
            const std::size_t n_real = 2 * static_cast<std::size_t>(e.size());
            return xt::adapt(as_real_pointer(first_element(e)), n_real, xt::no_ownership(), out_shape);
        } else {
            // A strided view over the whole underlying storage: it handles
            // negative strides (reversed slices) through its offset, which an
            // adaptor with explicit strides cannot.
            using real_strides = xt::get_strides_t<real_shape>;
            real_strides out_strides = make_shape<real_strides>(shape.size() + 1);
            const auto& strides = e.strides();
            for (std::size_t axis = 0; axis < shape.size(); ++axis) {
                out_strides[axis] = 2 * static_cast<std::ptrdiff_t>(strides[axis]);
            }
            out_strides.back() = 1;

            const std::size_t storage_reals = 2 * static_cast<std::size_t>(e.storage().size());
            auto whole_storage = xt::adapt(as_real_pointer(e.data()), storage_reals, xt::no_ownership(),
                                           std::array<std::size_t, 1>{storage_reals});
            return xt::strided_view(std::move(whole_storage), std::move(out_shape), std::move(out_strides),
                                    2 * static_cast<std::size_t>(e.data_offset()), xt::layout_type::dynamic);
        }
    }
}

}  // namespace detail

/// View a std::complex<float|double> xtensor container, adaptor or strided view
/// of shape S as a real tensor of shape S+[2] sharing its memory.
template <class E>
    requires xt::is_xexpression<std::decay_t<E>>::value
auto view_as_real(E&& e) {
    using expression = std::decay_t<E>;
    static_assert(complex_scalar<typename expression::value_type>,
                  "realify::view_as_real: the expression's value_type must be std::complex<float> or "
                  "std::complex<double>.");
    static_assert(detail::strided_in_memory<E>,
                  "realify::view_as_real: the expression has no memory to view (it is lazy, e.g. `a + b`); "
                  "evaluate it into a container first, or view a container, adaptor or strided view.");
    static_assert(!detail::is_expiring_container_v<E&&>,
                  "realify::view_as_real: the argument is a temporary container; its view would dangle. "
                  "Keep the container in a variable and view that.");
    // Only instantiate the implementation when the checks above hold, so a
    // misuse reports the one static_assert and nothing else.
    if constexpr (complex_scalar<typename expression::value_type> && detail::strided_in_memory<E>) {
        return detail::view_as_real_impl(e);
    }
}

}  // namespace realify
