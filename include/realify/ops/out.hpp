// realify::out(buffer): the `out=` argument of every eager op.
//
//   realify::exp(a, realify::out(b));             // b = exp(a), returns b
//   realify::add(a, b, alpha, realify::out(c));
//   realify::sum(a, {0}, false, realify::out(s));
//
// The buffer is a complex_layout, an xtensor container, adaptor or strided
// view of std::complex<T> (complex results), or of a real type (real
// results), or a std::vector / std::span of std::complex<T> or of T (a 1-D
// tensor, realify/ops/plain_container.hpp). An lvalue buffer is written through and returned by reference;
// a temporary one (a view, complex_layout_of(x)) is kept by value, written
// through and returned. See docs/ops.md for the checks made before writing.
#pragma once

#include <type_traits>
#include <utility>

#include "realify/layout/complex_layout.hpp"
#include "realify/layout/memory_access.hpp"
#include "realify/ops/plain_container.hpp"

namespace realify {

/// The out= argument: the caller's buffer, by reference (lvalue) or by value.
template <class B>
struct out_arg {
    B buffer;
    using buffer_type = std::remove_cvref_t<B>;
};

template <class T>
inline constexpr bool is_out_arg_v = false;
template <class B>
inline constexpr bool is_out_arg_v<out_arg<B>> = true;

/// An out= argument (any cv/ref qualification).
template <class T>
concept output_argument = is_out_arg_v<std::remove_cvref_t<T>>;

namespace detail {
/// Nothing, or one out= argument: the tail of every eager op's arguments.
template <class... O>
concept optional_out = sizeof...(O) <= 1 && (output_argument<O> && ...);

template <class B>
constexpr bool writable_buffer() {
    using D = std::remove_cvref_t<B>;
    if constexpr (plain_container_operand<D>) return true;
    else if constexpr (is_complex_layout_v<D>) return strided_in_memory<typename D::expression_type&>;
    else return strided_in_memory<D&>;
}
}  // namespace detail

namespace detail {
/// A const buffer: a const container, or a view of const elements (a
/// std::span<const T>; a const std::span<T> still writes its elements).
template <class B>
constexpr bool const_buffer() {
    if constexpr (plain_container_operand<B>) return std::is_const_v<std::remove_reference_t<decltype(*std::declval<B>().data())>>;
    else return std::is_const_v<std::remove_reference_t<B>>;
}

struct out_function {
    template <class B>
    out_arg<B> operator()(B&& buffer) const {
        static_assert(!const_buffer<B>(), "realify::out: the buffer is const");
        static_assert(writable_buffer<B>(),
                      "realify::out: the buffer must live in memory: a complex_layout of a real (…, 2) container or "
                      "view, or an xtensor container, adaptor or strided view (not a lazy expression)");
        return out_arg<B>{std::forward<B>(buffer)};
    }
};
}  // namespace detail

/// Wraps the buffer an op writes its result into. A function object, so an
/// unqualified call `out(x)` in user code never finds it by argument-dependent
/// lookup.
inline constexpr detail::out_function out{};

/// The buffer an out= call returns: B& for an lvalue, B (moved) for a temporary.
template <class B>
B take_buffer(out_arg<B>& o) {
    return static_cast<B&&>(o.buffer);
}

/// An out= call into a plain container: f(out= an adaptor of its memory),
/// then the container itself is returned.
template <class B, class F>
    requires plain_container_operand<B>
B into_plain_buffer(out_arg<B>& o, F&& f) {
    out_arg<decltype(adapt_plain(o.buffer))> adapted{adapt_plain(o.buffer)};
    std::forward<F>(f)(adapted);
    return take_buffer(o);
}

}  // namespace realify
