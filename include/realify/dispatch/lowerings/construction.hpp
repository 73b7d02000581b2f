// Lowerings of the construction ops (ones_like, zeros_like, full_like,
// empty_like on complex and real tensors, scalar_tensor, polar; PyTorch's
// creation ops full, zeros, ones, empty and arange) and of the erased ops
// (view_as_complex, view_as_real). The fills are the engine's copy of one
// number broadcast over the tensor's shape; arange's values and length rule
// are realify/engine/construction.hpp's. A complex constant keeps its
// value: full_like / scalar_tensor with a complex value write (re, im)
// (Torch-TensorRT's lowering replaced it by 0.0). The creation ops take
// their element type as their first argument, std::type_identity<E>.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/dispatch/lowerings/builtin.hpp"
#include "realify/dispatch/lowerings/shape.hpp"
#include "realify/engine/construction.hpp"

namespace realify::dispatch {
namespace lowering {

namespace construction_detail {

/// Writes `value` (a number of the result's kind) into every element of o, shaped like `like`.
template <class B, class V>
void fill_into(std::string_view op, out_arg<B>& o, const engine::tensor_ref& like, const V& value) {
    const engine::input<V> number(op, value);
    const engine::tensor_ref everywhere = engine::broadcast_to(number.ref(), like.shape);
    const engine::tensor_ref target = out_ref(op, o);
    const std::array<bool, 1> kinds{everywhere.complex};
    // copied in out's own type: the number is converted once per row, then replicated
    engine::evaluate(op, std::span(&everywhere, 1), target, engine::builtin_kernel(engine::builtin::copy, target.type, kinds));
}

/// The value a fill of a tensor A writes: complex for a complex tensor.
template <class A, class V>
auto fill_value(const V& value) {
    using T = operand_component_t<A>;
    if constexpr (complex_tensor_operand<A>) {
        if constexpr (complex_number_operand<V>) return std::complex<T>(T(value.real()), T(value.imag()));
        else return std::complex<T>(static_cast<T>(value), T(0));
    } else {
        return static_cast<T>(value);
    }
}

/// ones_like / zeros_like / full_like: a's shape filled with fill_value<A>(value).
template <class Tag, class A, class V>
auto filled_like(const A& a, const V& value) {
    using R = result_t<element_t<A>, operand_rank_v<A>, A>;
    const engine::input<A> in(Tag::name, a);
    R result = allocate_result<R>(in.ref().shape);
    auto o = out(result);
    fill_into(Tag::name, o, in.ref(), fill_value<A>(value));
    return result;
}
template <class Tag, class B, class A, class V>
void filled_like_into(out_arg<B>& o, const A& a, const V& value) {
    check_out_type<element_t<A>, B>();
    const engine::input<A> in(Tag::name, a);
    fill_into(Tag::name, o, in.ref(), fill_value<A>(value));
}

}  // namespace construction_detail

template <class... A>
inline constexpr bool one_tensor_and_fill = false;
template <class A, class V>
inline constexpr bool one_tensor_and_fill<A, V> =
    tensor_operand<A> && number_operand<V> && (complex_tensor_operand<A> || real_number_operand<V>);

/// A fill NAME of op::OP with the value VALUE (an expression of T).
#define REALIFY_FILL_LOWERING(OP, NAME, VALUE, FORMULA)                                            \
    struct NAME {                                                                                  \
        using op = ::realify::op::OP;                                                              \
        static constexpr std::string_view name = #NAME;                                            \
        static constexpr std::string_view formula = FORMULA;                                       \
        template <class... A>                                                                      \
        static constexpr bool accepts = one_tensor<A...>;                                          \
        template <class A>                                                                         \
        static auto apply(const A& a) {                                                            \
            return construction_detail::filled_like<op>(a, VALUE);                                 \
        }                                                                                          \
        template <class O, class A>                                                                \
        static void apply_into(out_arg<O>& o, const A& a) {                                        \
            construction_detail::filled_like_into<op>(o, a, VALUE);                                \
        }                                                                                          \
    };
REALIFY_FILL_LOWERING(ones_like, ones_like_unit_pairs, 1, "(1, 0) in every pair; 1 in a real tensor")
REALIFY_FILL_LOWERING(zeros_like, zeros_like_passthrough, 0, "zeros of the tensor's shape")
#undef REALIFY_FILL_LOWERING

struct empty_like_uninitialised {
    using op = ::realify::op::empty_like;
    static constexpr std::string_view name = "empty_like_uninitialised";
    static constexpr std::string_view tolerance = "exact";
    static constexpr std::string_view formula = "a tensor of the operand's shape and element type, not filled";
    template <class... A>
    static constexpr bool accepts = one_tensor<A...>;
    template <class A>
    static auto apply(const A& a) {
        const engine::input<A> in(op::name, a);
        return allocate_result<result_t<element_t<A>, operand_rank_v<A>, A>>(in.ref().shape);
    }
    template <class O, class A>
    static void apply_into(out_arg<O>& o, const A& a) {  // the buffer's shape checked, its values left
        check_out_type<element_t<A>, O>();
        const engine::input<A> in(op::name, a);
        engine::check_out_shape(op::name, out_ref(op::name, o), in.ref().shape);
    }
};

struct full_like_value_pairs {
    using op = ::realify::op::full_like;
    static constexpr std::string_view name = "full_like_value_pairs";
    static constexpr std::string_view formula = "(Re v, Im v) in every pair (the complex value is kept); v in a real tensor";
    template <class... A>
    static constexpr bool accepts = one_tensor_and_fill<A...>;
    template <class A, class V>
    static auto apply(const A& a, const V& value) {
        return construction_detail::filled_like<op>(a, value);
    }
    template <class O, class A, class V>
    static void apply_into(out_arg<O>& o, const A& a, const V& value) {
        construction_detail::filled_like_into<op>(o, a, value);
    }
};

struct scalar_tensor_value_pair {
    using op = ::realify::op::scalar_tensor;
    static constexpr std::string_view name = "scalar_tensor_value_pair";
    static constexpr std::string_view formula = "[Re v, Im v] (0-d complex; the value is kept)";
    template <class... A>
    static constexpr bool accepts = (sizeof...(A) == 1) && (number_operand<A> && ...);
    template <class V>
    using component = std::conditional_t<std::is_same_v<operand_component_t<V>, float>, float, double>;
    template <class V>
    static auto apply(const V& value) {
        using T = component<V>;
        auto result = allocate_result<complex_layout<xt::xtensor<T, 1>>>(engine::dims{});
        auto o = out(result);
        apply_into(o, value);
        return result;
    }
    template <class O, class V>
    static void apply_into(out_arg<O>& o, const V& value) {
        using T = component<V>;
        check_out_type<std::complex<T>, O>();
        std::complex<T> z;
        if constexpr (complex_number_operand<V>) z = {T(value.real()), T(value.imag())};
        else z = {static_cast<T>(value), T(0)};
        construction_detail::fill_into(op::name, o, engine::tensor_ref{}, z);
    }
};

// ---- full, zeros, ones, empty, arange: PyTorch's creation ops -----------------------------------

namespace construction_detail {

/// The shape a creation op is asked for: shape_error naming the op for a
/// negative extent (PyTorch's "negative dimension").
inline engine::dims creation_shape(std::string_view op, const std::vector<std::ptrdiff_t>& shape) {
    for (std::ptrdiff_t e : shape)
        if (e < 0)
            engine::throw_shape_error(op, "trying to create a tensor with negative dimension " + std::to_string(e) + ": " +
                                              realify::detail::format_sequence(shape));
    return engine::make_dims(op, shape);
}

/// A ref carrying a shape alone (what fill_into broadcasts over).
inline engine::tensor_ref shape_only(const engine::dims& shape) {
    engine::tensor_ref r;
    r.shape = shape;
    return r;
}

template <class E>
inline constexpr bool creation_element = std::is_same_v<E, float> || std::is_same_v<E, double> ||
                                         std::is_same_v<E, std::complex<float>> || std::is_same_v<E, std::complex<double>> ||
                                         std::is_same_v<E, std::int64_t> || std::is_same_v<E, std::int32_t> ||
                                         std::is_same_v<E, bool>;

/// The number a fill writes, as element type E.
template <class E, class V>
auto as_element(const V& v) {
    if constexpr (complex_scalar<E>) {
        using T = typename E::value_type;
        if constexpr (complex_number_operand<V>) return std::complex<T>(T(v.real()), T(v.imag()));
        else return std::complex<T>(static_cast<T>(v), T(0));
    } else {
        return static_cast<E>(v);
    }
}

}  // namespace construction_detail

template <class T>
inline constexpr bool element_tag = false;
template <class E>
inline constexpr bool element_tag<std::type_identity<E>> = construction_detail::creation_element<E>;

template <class... A>
inline constexpr bool element_and_shape = false;  // zeros, ones, empty: (type_identity<E>, shape)
template <class E, class S>
inline constexpr bool element_and_shape<E, S> = element_tag<E> && std::is_same_v<S, dim_list>;
template <class... A>
inline constexpr bool element_shape_value = false;  // full: (type_identity<E>, shape, value)
template <class E, class S, class V>
inline constexpr bool element_shape_value<E, S, V> =
    element_and_shape<E, S> && number_operand<V> && (complex_scalar<typename E::type> || real_number_operand<V>);

/// A creation op OP filling its shape with VALUE (a number) or, empty, not at all.
template <class Tag, int Value>
struct filled_lowering {
    template <class E>
    static auto apply(std::type_identity<E> type, const dim_list& shape) {
        auto result = xt::xarray<E>::from_shape(construction_detail::creation_shape(Tag::name, shape));
        if constexpr (Value >= 0) {
            auto o = out(result);
            apply_into(o, type, shape);
        }
        return result;
    }
    template <class O, class E>
    static void apply_into(out_arg<O>& o, std::type_identity<E>, const dim_list& shape) {
        check_out_type<E, O>();
        const engine::tensor_ref like = construction_detail::shape_only(construction_detail::creation_shape(Tag::name, shape));
        if constexpr (Value >= 0) {
            construction_detail::fill_into(Tag::name, o, like, construction_detail::as_element<E>(Value));
        } else {
            engine::check_out_shape(Tag::name, out_ref(Tag::name, o), like.shape);
        }
    }
};
struct zeros_filled : filled_lowering<::realify::op::zeros, 0> {
    using op = ::realify::op::zeros;
    static constexpr std::string_view name = "zeros_filled";
    static constexpr std::string_view tolerance = "exact";
    static constexpr std::string_view formula = "0 in every element of the shape ((0, 0) in a complex one)";
    template <class... A>
    static constexpr bool accepts = element_and_shape<A...>;
};
struct ones_filled : filled_lowering<::realify::op::ones, 1> {
    using op = ::realify::op::ones;
    static constexpr std::string_view name = "ones_filled";
    static constexpr std::string_view tolerance = "exact";
    static constexpr std::string_view formula = "1 in every element of the shape ((1, 0) in a complex one)";
    template <class... A>
    static constexpr bool accepts = element_and_shape<A...>;
};
struct empty_uninitialised : filled_lowering<::realify::op::empty, -1> {
    using op = ::realify::op::empty;
    static constexpr std::string_view name = "empty_uninitialised";
    static constexpr std::string_view tolerance = "exact";
    static constexpr std::string_view formula = "memory of the shape, not filled";
    template <class... A>
    static constexpr bool accepts = element_and_shape<A...>;
};
struct full_value {
    using op = ::realify::op::full;
    static constexpr std::string_view name = "full_value";
    static constexpr std::string_view tolerance = "exact";
    static constexpr std::string_view formula = "the value in every element of the shape (a complex value kept)";
    template <class... A>
    static constexpr bool accepts = element_shape_value<A...>;
    template <class E, class V>
    static auto apply(std::type_identity<E> type, const dim_list& shape, const V& value) {
        auto result = xt::xarray<E>::from_shape(construction_detail::creation_shape(op::name, shape));
        auto o = out(result);
        apply_into(o, type, shape, value);
        return result;
    }
    template <class O, class E, class V>
    static void apply_into(out_arg<O>& o, std::type_identity<E>, const dim_list& shape, const V& value) {
        check_out_type<E, O>();
        const engine::tensor_ref like = construction_detail::shape_only(construction_detail::creation_shape(op::name, shape));
        construction_detail::fill_into(op::name, o, like, construction_detail::as_element<E>(value));
    }
};

template <class... A>
inline constexpr bool arange_arguments = false;  // (type_identity<E>, start, end, step)
template <class E, class S, class F, class P>
inline constexpr bool arange_arguments<E, S, F, P> = element_tag<E> && !complex_scalar<typename E::type> &&
                                                     !std::is_same_v<typename E::type, bool> && real_number_operand<S> &&
                                                     real_number_operand<F> && real_number_operand<P>;
struct arange_values {
    using op = ::realify::op::arange;
    static constexpr std::string_view name = "arange_values";
    static constexpr std::string_view tolerance = "exact";
    static constexpr std::string_view formula =
        "start + i·step for i < ceil((end − start) / step), in double (int64 arithmetic for integral bounds)";
    template <class... A>
    static constexpr bool accepts = arange_arguments<A...>;
    template <class S, class F, class P>
    static constexpr bool integral = std::is_integral_v<S> && std::is_integral_v<F> && std::is_integral_v<P>;
    template <class E, class S, class F, class P>
    static auto apply(std::type_identity<E> type, const S& start, const F& end, const P& step) {
        const std::size_t n = engine::arange_length(op::name, double(start), double(end), double(step), integral<S, F, P>);
        auto result = xt::xtensor<E, 1>::from_shape({n});
        auto o = out(result);
        apply_into(o, type, start, end, step);
        return result;
    }
    template <class O, class E, class S, class F, class P>
    static void apply_into(out_arg<O>& o, std::type_identity<E>, const S& start, const F& end, const P& step) {
        static_assert(std::is_arithmetic_v<buffer_element_t<O>> && !std::is_same_v<buffer_element_t<O>, bool>,
                      "realify::arange: out= must be a real float, double or integer buffer");
        const std::size_t n = engine::arange_length(op::name, double(start), double(end), double(step), integral<S, F, P>);
        const engine::tensor_ref target = out_ref(op::name, o);
        engine::dims shape;
        shape.rank = 1;
        shape.extent[0] = n;
        engine::check_out_shape(op::name, target, shape);
        engine::arange(op::name, double(start), double(step), integral<S, F, P>, target);
    }
};

template <class... A>
inline constexpr bool real_and_real_tensor = false;
template <class R, class Theta>
inline constexpr bool real_and_real_tensor<R, Theta> =
    real_operand<R> && real_operand<Theta> && (real_tensor_operand<R> || real_tensor_operand<Theta>);
REALIFY_COMPILED_LOWERING(polar, polar_cos_sin, polar, real_and_real_tensor, "r·cos θ + i·r·sin θ")

struct view_as_complex_erased {
    using op = ::realify::op::view_as_complex;
    static constexpr std::string_view name = "view_as_complex_erased";
    static constexpr std::string_view formula = "erased: the real (…,2) tensor is marked complex_layout (no copy)";
    template <class E>
    static constexpr bool accepts = real_tensor_operand<E>;
    template <class E>
    static auto apply(const E& real) {
        return as_complex_layout(real);
    }
};
struct view_as_real_erased {
    using op = ::realify::op::view_as_real;
    static constexpr std::string_view name = "view_as_real_erased";
    static constexpr std::string_view formula = "erased: the layout's real (…,2) expression (no copy)";
    template <class A>
    static constexpr bool accepts = complex_layout_operand<A>;
    template <class A>
    static const auto& apply(const A& a) {
        return a.real_layout();
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(ones_like, lowering::ones_like_unit_pairs)
REALIFY_BUILTIN_CANDIDATES(zeros_like, lowering::zeros_like_passthrough)
REALIFY_BUILTIN_CANDIDATES(full_like, lowering::full_like_value_pairs)
REALIFY_BUILTIN_CANDIDATES(empty_like, lowering::empty_like_uninitialised)
REALIFY_BUILTIN_CANDIDATES(full, lowering::full_value)
REALIFY_BUILTIN_CANDIDATES(zeros, lowering::zeros_filled)
REALIFY_BUILTIN_CANDIDATES(ones, lowering::ones_filled)
REALIFY_BUILTIN_CANDIDATES(empty, lowering::empty_uninitialised)
REALIFY_BUILTIN_CANDIDATES(arange, lowering::arange_values)
REALIFY_BUILTIN_CANDIDATES(scalar_tensor, lowering::scalar_tensor_value_pair)
REALIFY_BUILTIN_CANDIDATES(polar, lowering::polar_cos_sin)
REALIFY_BUILTIN_CANDIDATES(view_as_complex, lowering::view_as_complex_erased)
REALIFY_BUILTIN_CANDIDATES(view_as_real, lowering::view_as_real_erased)

}  // namespace realify::dispatch
