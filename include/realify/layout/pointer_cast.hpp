// The two pointer reinterpretations the layout layer is built on. They are
// well-defined because the standard lays std::complex<T> out as T[2]
// ([complex.numbers.general]/4); constness is carried across.
#pragma once

#include <complex>
#include <type_traits>

#include "realify/layout/scalar_traits.hpp"

namespace realify::detail {

/// std::complex<T>* -> T* to the real part (const preserved).
template <class C>
    requires complex_scalar<C>
auto as_real_pointer(C* p) noexcept {
    using real = real_part_t<C>;
    using result = std::conditional_t<std::is_const_v<C>, const real, real>;
    return reinterpret_cast<result*>(p);
}

/// T* to a real part -> std::complex<T>* (const preserved). The caller has
/// checked that the pointer is the real part of a pair.
template <class T>
    requires real_scalar<T>
auto as_complex_pointer(T* p) noexcept {
    using complex = std::complex<std::remove_const_t<T>>;
    using result = std::conditional_t<std::is_const_v<T>, const complex, complex>;
    return reinterpret_cast<result*>(p);
}

}  // namespace realify::detail
