// Lowerings of the construction ops (ones_like, zeros_like, full_like on
// complex and real tensors, scalar_tensor, polar) and of the erased ops
// (view_as_complex, view_as_real). The fills are the engine's copy of one
// number broadcast over the tensor's shape. A complex constant keeps its
// value: full_like / scalar_tensor with a complex value write (re, im)
// (Torch-TensorRT's lowering replaced it by 0.0).
#pragma once

#include <array>
#include <complex>
#include <string_view>
#include <type_traits>

#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/dispatch/lowerings/builtin.hpp"
#include "realify/dispatch/lowerings/shape.hpp"

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
REALIFY_BUILTIN_CANDIDATES(scalar_tensor, lowering::scalar_tensor_value_pair)
REALIFY_BUILTIN_CANDIDATES(polar, lowering::polar_cos_sin)
REALIFY_BUILTIN_CANDIDATES(view_as_complex, lowering::view_as_complex_erased)
REALIFY_BUILTIN_CANDIDATES(view_as_real, lowering::view_as_real_erased)

}  // namespace realify::dispatch
