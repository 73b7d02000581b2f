// Lowerings of softmax, log_softmax, layer_norm and rms_norm on real
// (float, double) tensors: each row — along the softmax dim, or over the
// trailing normalised dims — computed in L1 by the compiled row kernels
// (realify/engine/rows.hpp, which documents the formulas), reading and
// writing any layout, in place included. Weight and bias are optional
// (std::nullopt): layer_norm(x, w, b, normalized_shape, eps).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/dispatch/lowerings/shape.hpp"
#include "realify/engine/rows.hpp"

namespace realify::dispatch {
namespace lowering {

/// A float or double real tensor, or std::nullopt (no weight, no bias).
template <class W>
inline constexpr bool optional_real_tensor = [] {
    if constexpr (std::is_same_v<std::remove_cvref_t<W>, std::nullopt_t>) return true;
    else return one_real_tensor<W>;
}();

namespace normalization_detail {

/// A weight or bias operand as the engine reads it: a tensor's input, or none.
template <class W>
struct optional_input {
    optional_input(std::string_view, const std::nullopt_t&) {}
    const engine::tensor_ref* ref() const noexcept { return nullptr; }
};
template <class W>
    requires tensor_operand<W>
struct optional_input<W> {
    engine::input<W> in;
    optional_input(std::string_view op, const W& w) : in(op, w) {}
    const engine::tensor_ref* ref() const noexcept { return &in.ref(); }
};

/// normalized_shape must name at least one dim (PyTorch: "Expected
/// normalized_shape to be at least 1-dimensional"); a shape_error naming `op`.
inline void check_normalized_shape(std::string_view op, const dim_list& shape) {
    if (shape.empty())
        engine::throw_shape_error(op, "normalized_shape is (): it must name at least one trailing dim of the input, "
                                      "as PyTorch requires");
}

/// The trailing dims normalized_shape names must be the input's.
inline std::size_t normalized_dims(std::string_view op, const engine::tensor_ref& in, const dim_list& shape) {
    check_normalized_shape(op, shape);
    bool ok = shape.size() <= in.rank();
    for (std::size_t i = 0; ok && i < shape.size(); ++i)
        ok = shape[i] >= 0 && static_cast<std::size_t>(shape[i]) == in.shape[in.rank() - shape.size() + i];
    if (!ok)
        engine::throw_shape_error(op, "normalized_shape " + realify::detail::format_sequence(shape) +
                                          " is not the trailing dims of the input of shape " +
                                          realify::detail::format_sequence(in.shape));
    return shape.size();
}

/// out = norm(a) with weight w and bias b (nullopt or tensors) through the engine.
template <class A, class W, class B>
void normalize_into(std::string_view op, engine::norm kind, const engine::tensor_ref& to, const A& a, const W& w,
                    const B& b, const dim_list& shape, double eps) {
    const engine::input<A> in(op, a);
    const optional_input<W> weight(op, w);
    const optional_input<B> bias(op, b);
    engine::normalize(op, kind, in.ref(), normalized_dims(op, in.ref(), shape), weight.ref(), bias.ref(), eps, to);
}

}  // namespace normalization_detail

/// softmax / log_softmax along dim (a rank-0 tensor: dim 0 or −1).
template <class Tag, bool Log>
struct softmax_of {
    using op = Tag;
    static constexpr std::string_view formula =
        Log ? "(x − max) − log Σ e^(x − max) along dim, a row at a time in L1"
            : "e^(x − max) · (1 / Σ e^(x − max)) along dim, a row at a time in L1";
    template <class A, class... D>
    static constexpr bool accepts = one_real_tensor<A> && sizeof...(D) == 1 && (std::is_integral_v<D> && ...);
    static std::size_t axis(const engine::tensor_ref& t, std::ptrdiff_t dim) {
        if (t.rank() == 0) {
            if (dim != 0 && dim != -1) shape_detail::axis_of(op::name, dim, 0);  // throws
            return 0;
        }
        return shape_detail::axis_of(op::name, dim, t.rank());
    }
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim) {
        const engine::input<A> in(op::name, a);
        return shape_detail::allocated<shape_detail::shape_result_t<shape_detail::rank_rule::same, A>>(
            op::name, in.ref().shape,
            [&](const engine::tensor_ref& to) { engine::softmax(op::name, in.ref(), axis(in.ref(), dim), Log, to); });
    }
    template <class O, class A>
    static void apply_into(out_arg<O>& o, const A& a, std::ptrdiff_t dim) {
        check_out_type<element_t<A>, O>();
        const engine::input<A> in(op::name, a);
        engine::softmax(op::name, in.ref(), axis(in.ref(), dim), Log, out_ref(op::name, o));
    }
};
struct softmax_rows : softmax_of<::realify::op::softmax, false> {
    static constexpr std::string_view name = "softmax_rows";
};
struct log_softmax_rows : softmax_of<::realify::op::log_softmax, true> {
    static constexpr std::string_view name = "log_softmax_rows";
};

template <class... A>
inline constexpr bool norm_arguments = false;  // x, [w, [b]], normalized_shape, eps
template <class X, class S, class E>
inline constexpr bool norm_arguments<X, S, E> =
    one_real_tensor<X> && std::is_same_v<S, dim_list> && std::is_floating_point_v<E>;
template <class X, class W, class S, class E>
inline constexpr bool norm_arguments<X, W, S, E> = norm_arguments<X, S, E> && optional_real_tensor<W>;
template <class X, class W, class B, class S, class E>
inline constexpr bool norm_arguments<X, W, B, S, E> = norm_arguments<X, W, S, E> && optional_real_tensor<B>;

/// layer_norm / rms_norm (Bias: it takes one).
template <class Tag, engine::norm Kind>
struct norm_of {
    using op = Tag;
    template <class... A>
    static constexpr bool accepts = norm_arguments<A...> && (Kind == engine::norm::layer || sizeof...(A) <= 4);

    template <class A>
    static auto apply(const A& a, const dim_list& shape, double eps) {
        return apply(a, std::nullopt, std::nullopt, shape, eps);
    }
    template <class A, class W>
    static auto apply(const A& a, const W& w, const dim_list& shape, double eps) {
        return apply(a, w, std::nullopt, shape, eps);
    }
    template <class A, class W, class B>
    static auto apply(const A& a, const W& w, const B& b, const dim_list& shape, double eps) {
        const engine::input<A> in(op::name, a);
        return shape_detail::allocated<shape_detail::shape_result_t<shape_detail::rank_rule::same, A>>(
            op::name, in.ref().shape, [&](const engine::tensor_ref& to) {
                normalization_detail::normalize_into(op::name, Kind, to, a, w, b, shape, eps);
            });
    }
    template <class O, class A>
    static void apply_into(out_arg<O>& o, const A& a, const dim_list& shape, double eps) {
        apply_into(o, a, std::nullopt, std::nullopt, shape, eps);
    }
    template <class O, class A, class W>
    static void apply_into(out_arg<O>& o, const A& a, const W& w, const dim_list& shape, double eps) {
        apply_into(o, a, w, std::nullopt, shape, eps);
    }
    template <class O, class A, class W, class B>
    static void apply_into(out_arg<O>& o, const A& a, const W& w, const B& b, const dim_list& shape, double eps) {
        check_out_type<element_t<A>, O>();
        normalization_detail::normalize_into(op::name, Kind, out_ref(op::name, o), a, w, b, shape, eps);
    }
};
struct layer_norm_rows : norm_of<::realify::op::layer_norm, engine::norm::layer> {
    static constexpr std::string_view name = "layer_norm_rows";
    static constexpr std::string_view formula =
        "((x − mean) / √(var + eps)) · w + b over the trailing normalized_shape dims: mean and the biased variance "
        "in double (two passes), a row at a time in L1";
};
struct rms_norm_rows : norm_of<::realify::op::rms_norm, engine::norm::rms> {
    static constexpr std::string_view name = "rms_norm_rows";
    static constexpr std::string_view formula =
        "(x · 1/√(mean(x²) + eps)) · w over the trailing normalized_shape dims (Llama's RMSNorm), a row at a time in L1";
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(softmax, lowering::softmax_rows)
REALIFY_BUILTIN_CANDIDATES(log_softmax, lowering::log_softmax_rows)
REALIFY_BUILTIN_CANDIDATES(layer_norm, lowering::layer_norm_rows)
REALIFY_BUILTIN_CANDIDATES(rms_norm, lowering::rms_norm_rows)

}  // namespace realify::dispatch
