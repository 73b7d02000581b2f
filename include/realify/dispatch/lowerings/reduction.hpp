// Lowerings of the reductions, for complex and real (float, double) tensors:
// sum and mean (all dims or over dims, with keepdim) act per component, prod
// over a dim is the complex product of the pairs (Torch-TensorRT's lowering
// multiplied the components separately, which is not a complex product),
// cumsum is per component. The loops are the compiled ones of
// realify/engine/reduce.hpp, reading any layout.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <vector>

#include "realify/dispatch/lowerings/shape.hpp"
#include "realify/engine/reduce.hpp"

namespace realify::dispatch {
namespace lowering {

/// A float or double tensor (the reductions' operands; integer tensors
/// would need PyTorch's int64 accumulation, which is not lowered).
template <class A, class... P>
inline constexpr bool floating_tensor = tensor_operand<A> && std::is_floating_point_v<operand_component_t<A>>;

namespace reduction_detail {

/// The axes of `dims` (all axes when empty), ascending; a dim named twice is a shape_error.
inline std::vector<std::size_t> axes_of(std::string_view op, const engine::tensor_ref& t, const dim_list& dims) {
    return realify::detail::reduction_axes(op, dims, t.rank());
}

/// A reduction R over `axes`: allocating (Rank: the result's rank) and into a buffer.
template <std::size_t Rank, class A>
auto reduced(std::string_view op, engine::reduction r, const A& a, const dim_list& dims, bool keepdim) {
    const engine::input<A> in(op, a);
    const auto axes = axes_of(op, in.ref(), dims);
    return shape_detail::allocated<result_t<element_t<A>, Rank, A>>(
        op, engine::reduced_shape(in.ref().shape, axes, keepdim),
        [&](const engine::tensor_ref& to) { engine::reduce(op, r, in.ref(), axes, keepdim, to); });
}
template <class B, class A>
void reduced_into(std::string_view op, engine::reduction r, out_arg<B>& o, const A& a, const dim_list& dims, bool keepdim) {
    check_out_type<element_t<A>, B>();
    const engine::input<A> in(op, a);
    engine::reduce(op, r, in.ref(), axes_of(op, in.ref(), dims), keepdim, out_ref(op, o));
}

}  // namespace reduction_detail

/// sum / mean (Dims = false: all dims, a 0-d result; true: sum.dim_IntList with keepdim).
template <class Tag, engine::reduction R, bool Dims>
struct sum_mean_of {
    using op = Tag;
    static constexpr std::string_view formula =
        R == engine::reduction::mean ? "mean(layout, [d'…]) on each component" : "sum(layout, [d'…]) on each component";
    static constexpr std::string_view tolerance = "f32 rtol 1e-5 atol 1e-6; f64 rtol 1e-12 (summation order differs from PyTorch)";
    template <class... A>
    static constexpr bool accepts = floating_tensor<A...>;

    template <class A>
        requires(!Dims)
    static auto apply(const A& a) {
        return reduction_detail::reduced<0>(Tag::name, R, a, {}, false);
    }
    template <class B, class A>
        requires(!Dims)
    static void apply_into(out_arg<B>& o, const A& a) {
        reduction_detail::reduced_into(Tag::name, R, o, a, {}, false);
    }
    template <class A>
        requires Dims
    static auto apply(const A& a, const dim_list& dims, bool keepdim = false) {
        return reduction_detail::reduced<dynamic_rank>(Tag::name, R, a, dims, keepdim);
    }
    template <class B, class A>
        requires Dims
    static void apply_into(out_arg<B>& o, const A& a, const dim_list& dims, bool keepdim = false) {
        reduction_detail::reduced_into(Tag::name, R, o, a, dims, keepdim);
    }
};
struct sum_per_component : sum_mean_of<::realify::op::sum, engine::reduction::sum, false> {
    static constexpr std::string_view name = "sum_per_component";
};
struct sum_dim_per_component : sum_mean_of<::realify::op::sum_dim, engine::reduction::sum, true> {
    static constexpr std::string_view name = "sum_dim_per_component";
};
struct mean_per_component : sum_mean_of<::realify::op::mean, engine::reduction::mean, false> {
    static constexpr std::string_view name = "mean_per_component";
};
struct mean_dim_per_component : sum_mean_of<::realify::op::mean_dim, engine::reduction::mean, true> {
    static constexpr std::string_view name = "mean_dim_per_component";
};

struct prod_complex_pairs {
    using op = ::realify::op::prod_dim;
    static constexpr std::string_view name = "prod_complex_pairs";
    static constexpr std::string_view formula = "Π z_k by the pair product (ac − bd) + i(ad + bc), not per component";
    template <class... A>
    static constexpr bool accepts = floating_tensor<A...>;
    // one dim (a 0-d tensor takes 0 or −1 and is its own product: reduction_axes)
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim, bool keepdim = false) {
        return reduction_detail::reduced<dynamic_rank>(op::name, engine::reduction::prod, a, {dim}, keepdim);
    }
    template <class B, class A>
    static void apply_into(out_arg<B>& o, const A& a, std::ptrdiff_t dim, bool keepdim = false) {
        reduction_detail::reduced_into(op::name, engine::reduction::prod, o, a, {dim}, keepdim);
    }
};

struct cumsum_per_component {
    using op = ::realify::op::cumsum;
    static constexpr std::string_view name = "cumsum_per_component";
    static constexpr std::string_view formula = "cumsum(layout, d') on each component";
    static constexpr std::string_view tolerance = "f32 rtol 1e-5 atol 1e-6; f64 rtol 1e-12 (summation order differs from PyTorch)";
    template <class... A>
    static constexpr bool accepts = floating_tensor<A...>;
    /// A 0-d tensor takes dim 0 or −1, as PyTorch (which wraps it as rank 1).
    static std::size_t axis_of(const engine::tensor_ref& t, std::ptrdiff_t dim) {
        return shape_detail::axis_of(op::name, dim, t.rank() == 0 ? 1 : t.rank());
    }
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim) {
        const engine::input<A> in(op::name, a);
        const std::size_t axis = axis_of(in.ref(), dim);
        return shape_detail::allocated<shape_detail::shape_result_t<rank_rule::same, A>>(
            op::name, in.ref().shape, [&](const engine::tensor_ref& to) { engine::cumsum(op::name, in.ref(), axis, to); });
    }
    template <class B, class A>
    static void apply_into(out_arg<B>& o, const A& a, std::ptrdiff_t dim) {
        check_out_type<element_t<A>, B>();
        const engine::input<A> in(op::name, a);
        engine::cumsum(op::name, in.ref(), axis_of(in.ref(), dim), out_ref(op::name, o));
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(sum, lowering::sum_per_component)
REALIFY_BUILTIN_CANDIDATES(sum_dim, lowering::sum_dim_per_component)
REALIFY_BUILTIN_CANDIDATES(mean, lowering::mean_per_component)
REALIFY_BUILTIN_CANDIDATES(mean_dim, lowering::mean_dim_per_component)
REALIFY_BUILTIN_CANDIDATES(prod_dim, lowering::prod_complex_pairs)
REALIFY_BUILTIN_CANDIDATES(cumsum, lowering::cumsum_per_component)

}  // namespace realify::dispatch
