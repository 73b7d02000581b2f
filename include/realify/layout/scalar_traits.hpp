// Which scalar types realify decomposes: std::complex<float|double> on the
// complex side, float|double on the real side. Concepts rather than
// enable_if so a misuse reads as one sentence in the compiler output.
#pragma once

#include <complex>
#include <concepts>
#include <type_traits>

#include "realify/version.hpp"

namespace realify {

/// float or double: the component type of a (…,2) layout.
template <class T>
concept real_scalar = std::same_as<std::remove_cv_t<T>, float> || std::same_as<std::remove_cv_t<T>, double>;

namespace detail {
template <class T>
struct complex_parts {
    static constexpr bool is_complex = false;
};
template <class T>
struct complex_parts<std::complex<T>> {
    static constexpr bool is_complex = true;
    using real_type = T;
};
}  // namespace detail

/// std::complex<float> or std::complex<double>.
template <class T>
concept complex_scalar = detail::complex_parts<std::remove_cv_t<T>>::is_complex &&
                         real_scalar<typename detail::complex_parts<std::remove_cv_t<T>>::real_type>;

/// The component type of a complex scalar: float for std::complex<float>.
template <complex_scalar C>
using real_part_t = typename detail::complex_parts<std::remove_cv_t<C>>::real_type;

}  // namespace realify
