// Type promotion as PyTorch does it (c10 ResultTypeState, torch._refs), computed
// at compile time from the C++ operand types.
//
// Operands fall into three priority classes: n-d tensors (complex_layout or
// real xtensor of rank >= 1, or of a rank unknown at compile time), 0-d tensors,
// and numbers (C++ scalars, PyTorch's "wrapped numbers"). Each class promotes
// within itself; then a lower class only matters when it is of a higher
// category (bool < integral < floating < complex) than the higher class. A
// number's dtype is the DEFAULT dtype of its category (float32 for any
// floating number, complex64 for any complex number), which is why
// complex64 × double-number stays complex64 while complex64 × float64 n-d
// tensor is complex128.
#pragma once

#include <complex>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include "realify/ops/operand.hpp"

namespace realify {

enum class dtype { undefined, bool_, int64, float32, float64, complex64, complex128 };

constexpr std::string_view to_string(dtype t) noexcept {
    switch (t) {
        case dtype::undefined: return "undefined";
        case dtype::bool_: return "bool";
        case dtype::int64: return "int64";
        case dtype::float32: return "float32";
        case dtype::float64: return "float64";
        case dtype::complex64: return "complex64";
        case dtype::complex128: return "complex128";
    }
    return "unknown";
}

namespace promotion {

constexpr bool is_complex(dtype t) { return t == dtype::complex64 || t == dtype::complex128; }
constexpr bool is_floating(dtype t) { return t == dtype::float32 || t == dtype::float64; }
constexpr int width(dtype t) {
    return (t == dtype::float32 || t == dtype::complex64) ? 32 : (t == dtype::float64 || t == dtype::complex128) ? 64 : 0;
}
constexpr dtype to_complex(dtype t) {
    return t == dtype::float64 ? dtype::complex128 : t == dtype::float32 ? dtype::complex64 : t;
}

/// torch.promote_types on realify's dtypes.
constexpr dtype promote_types(dtype a, dtype b) {
    if (a == dtype::undefined) return b;
    if (b == dtype::undefined) return a;
    if (a == b) return a;
    if (is_complex(a) || is_complex(b) || is_floating(a) || is_floating(b)) {
        const int w = width(a) > width(b) ? width(a) : width(b);
        if (is_complex(a) || is_complex(b)) return w == 64 ? dtype::complex128 : dtype::complex64;
        return w == 64 ? dtype::float64 : dtype::float32;
    }
    if (a == dtype::int64 || b == dtype::int64) return dtype::int64;
    return dtype::bool_;
}

/// c10's combine_categories(higher, lower).
constexpr dtype combine_categories(dtype higher, dtype lower) {
    if (is_complex(higher)) return higher;
    if (is_complex(lower)) {
        if (is_floating(higher)) return to_complex(higher);  // keeps the higher class's precision
        return lower;
    }
    if (is_floating(higher)) return higher;
    if (higher == dtype::bool_ || is_floating(lower)) return promote_types(higher, lower);
    if (higher != dtype::undefined) return higher;
    return lower;
}

enum class priority_class { number, zero_dim, dim };

template <class T>
constexpr dtype dtype_of_scalar() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>) return dtype::bool_;
    else if constexpr (std::is_integral_v<U>) return dtype::int64;
    else if constexpr (std::is_same_v<U, float>) return dtype::float32;
    else if constexpr (std::is_floating_point_v<U>) return dtype::float64;
    else if constexpr (std::is_same_v<U, std::complex<float>>) return dtype::complex64;
    else if constexpr (detail::is_std_complex<U>::value) return dtype::complex128;
    else return dtype::undefined;
}

/// dtype and priority class of one operand type.
template <class A>
struct operand_dtype {
    using U = std::remove_cvref_t<A>;
    static constexpr priority_class cls = number_operand<U> ? priority_class::number
                                          : operand_rank_v<U> == 0 ? priority_class::zero_dim
                                                                   : priority_class::dim;
    static constexpr dtype value = [] {
        if constexpr (complex_tensor_operand<U>) {
            return std::is_same_v<operand_component_t<U>, float> ? dtype::complex64 : dtype::complex128;
        } else if constexpr (real_tensor_operand<U>) {
            return dtype_of_scalar<typename U::value_type>();
        } else if constexpr (complex_number_operand<U>) {
            return dtype::complex64;  // the default complex dtype
        } else {
            constexpr dtype d = dtype_of_scalar<U>();
            return is_floating(d) ? dtype::float32 : d;  // the default dtype
        }
    }();
};

/// torch.result_type of the operand types.
template <class... A>
constexpr dtype result_type() {
    dtype dim = dtype::undefined, zero = dtype::undefined, number = dtype::undefined;
    ((operand_dtype<A>::cls == priority_class::dim        ? (dim = promote_types(dim, operand_dtype<A>::value))
      : operand_dtype<A>::cls == priority_class::zero_dim ? (zero = promote_types(zero, operand_dtype<A>::value))
                                                          : (number = promote_types(number, operand_dtype<A>::value))),
     ...);
    return combine_categories(dim, combine_categories(zero, number));
}

template <dtype D>
struct cpp_type;
template <> struct cpp_type<dtype::bool_> { using type = bool; };
template <> struct cpp_type<dtype::int64> { using type = long long; };
template <> struct cpp_type<dtype::float32> { using type = float; };
template <> struct cpp_type<dtype::float64> { using type = double; };
template <> struct cpp_type<dtype::complex64> { using type = std::complex<float>; };
template <> struct cpp_type<dtype::complex128> { using type = std::complex<double>; };

/// float/double component type of a dtype (integral and bool compute in float, as torch.polar etc. require floats).
constexpr dtype component_dtype(dtype t) {
    return (t == dtype::float64 || t == dtype::complex128) ? dtype::float64 : dtype::float32;
}

}  // namespace promotion

/// The dtype PyTorch gives an op on these operand types.
template <class... A>
inline constexpr dtype result_dtype_v = promotion::result_type<A...>();

/// The C++ element type of that dtype: float, double, std::complex<float>, …
template <class... A>
using promote_t = typename promotion::cpp_type<result_dtype_v<A...>>::type;

/// The real component type the (…,2) result is computed in: float or double.
template <class... A>
using promoted_real_t = typename promotion::cpp_type<promotion::component_dtype(result_dtype_v<A...>)>::type;

}  // namespace realify
