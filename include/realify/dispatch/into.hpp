// Writing an op's result into an out= buffer: the element type check (one
// static_assert at the line the user wrote), the engine call with the
// operands and the buffer as tensor_refs, and the copy of a lowering's
// allocated result into the buffer (a user lowering without apply_into).
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

#include "realify/engine/elementwise.hpp"
#include "realify/engine/xtensor_refs.hpp"
#include "realify/ops/operand.hpp"
#include "realify/ops/out.hpp"

namespace realify::dispatch {

/// The element type of a buffer: std::complex<T> for a complex layout or
/// container, the value type of a real one.
template <class B>
struct buffer_element {
    using type = std::remove_cv_t<typename std::remove_cvref_t<B>::value_type>;
};
template <class B>
    requires complex_layout_operand<B>
struct buffer_element<B> {
    using type = std::complex<operand_component_t<B>>;
};
template <class B>
using buffer_element_t = typename buffer_element<B>::type;

/// Can a result of element type V be written into a buffer of element type
/// E? PyTorch's can_cast within realify's types: a complex result into a
/// complex buffer, a floating one into a floating one (either precision),
/// a bool one into any real buffer.
template <class V, class E>
inline constexpr bool writable_as_v = complex_scalar<V>                ? complex_scalar<E>
                                      : std::is_floating_point_v<V>    ? std::is_floating_point_v<E>
                                      : std::is_same_v<V, bool>        ? std::is_arithmetic_v<E>
                                                                       : std::is_same_v<V, E>;

template <class...>
inline constexpr bool always_false = false;

/// The static check of an out= buffer for a result of element type V: one
/// static_assert saying what does not fit.
template <class V, class B>
constexpr void check_out_type() {
    using E = buffer_element_t<B>;
    if constexpr (complex_scalar<V> && !complex_scalar<E>)
        static_assert(always_false<V, B>, "realify: this op's result is complex: out= needs a complex buffer (a "
                                          "complex_layout or an xtensor of std::complex<float|double>)");
    else if constexpr (!complex_scalar<V> && complex_scalar<E>)
        static_assert(always_false<V, B>, "realify: this op's result is real: out= needs a real buffer (an xtensor of "
                                          "float or double)");
    else if constexpr (std::is_floating_point_v<V> && !std::is_floating_point_v<E>)
        static_assert(always_false<V, B>, "realify: this op's result is float or double: out= cannot be an integer or bool buffer");
    else
        static_assert(writable_as_v<V, E>, "realify: out='s element type cannot hold this op's result");
}

/// The tensor_ref of an out= buffer.
template <class B>
engine::tensor_ref out_ref(std::string_view op, out_arg<B>& o) {
    return engine::output_ref(op, o.buffer);
}

/// Runs `kernel` over the operands into o's buffer, for a result of element
/// type V (checked against the buffer's type at compile time).
template <class V, class B, class... A>
void evaluate_into(std::string_view op, const engine::block_kernel& kernel, out_arg<B>& o, const A&... operands) {
    check_out_type<V, B>();
    const engine::operand_list in(op, engine::operands_of(operands...));
    engine::evaluate(op, in.refs(), out_ref(op, o), kernel);
}

/// The component type (float32/float64) kernels of element type V compute in.
template <class V>
constexpr engine::component compute_of() {
    if constexpr (complex_scalar<V>) return engine::component_of<typename V::value_type>();
    else if constexpr (std::is_same_v<V, double>) return engine::component::float64;
    else return engine::component::float32;
}

/// Copies an allocated result (a complex_layout or an xtensor) into o's buffer.
template <class R, class B>
void copy_into(std::string_view op, const R& result, out_arg<B>& o) {
    using V = std::conditional_t<complex_tensor_operand<R>, std::complex<operand_component_t<R>>, operand_component_t<R>>;
    check_out_type<V, B>();
    const engine::input<R> in(op, result);
    const std::array<engine::tensor_ref, 1> refs{in.ref()};
    const std::array<bool, 1> kinds{complex_tensor_operand<R>};
    constexpr engine::component compute =
        compute_of<std::conditional_t<std::is_floating_point_v<V> || complex_scalar<V>, V, double>>();
    engine::evaluate(op, refs, out_ref(op, o), engine::builtin_kernel(engine::builtin::copy, compute, kinds));
}

}  // namespace realify::dispatch
