// Lowerings of the reductions, for complex and real (float, double) tensors:
// sum and mean (all dims or over dims, with keepdim) act per component, prod
// over a dim is the complex product of the pairs (Torch-TensorRT's lowering
// multiplied the components separately, which is not a complex product),
// cumsum is per component; amax and amin order real tensors (complex ones
// have no ordering); var and std_dev (PyTorch's var / std, with its
// `correction`) take both, a complex tensor's deviations |z − mean|. The
// loops are the compiled ones of realify/engine/reduce.hpp, reading any
// layout.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <vector>

#include "realify/dispatch/lowerings/shape.hpp"
#include "realify/engine/reduce.hpp"
#include "realify/ops/shape_inference.hpp"

namespace realify::dispatch {
namespace lowering {

/// A float or double tensor (the reductions' operands; integer tensors
/// would need PyTorch's int64 accumulation, which is not lowered).
template <class A, class... P>
inline constexpr bool floating_tensor = tensor_operand<A> && std::is_floating_point_v<operand_component_t<A>>;
/// A float or double real tensor.
template <class A, class... P>
inline constexpr bool floating_real_tensor = real_tensor_operand<A> && std::is_floating_point_v<operand_component_t<A>>;

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

/// amax / amin over dims (all when empty), keepdim: PyTorch's amax / amin.
template <class Tag, engine::reduction R>
struct extremum_of {
    using op = Tag;
    static constexpr std::string_view formula =
        R == engine::reduction::amax ? "maximum over [d…] (NaN propagates, +0 above −0); real tensors"
                                     : "minimum over [d…] (NaN propagates, −0 below +0); real tensors";
    static constexpr std::string_view tolerance = "exact";
    template <class... A>
    static constexpr bool accepts = floating_real_tensor<A...>;
    template <class A>
    static auto apply(const A& a, const dim_list& dims = {}, bool keepdim = false) {
        return reduction_detail::reduced<dynamic_rank>(Tag::name, R, a, dims, keepdim);
    }
    template <class B, class A>
    static void apply_into(out_arg<B>& o, const A& a, const dim_list& dims = {}, bool keepdim = false) {
        reduction_detail::reduced_into(Tag::name, R, o, a, dims, keepdim);
    }
};
struct amax_reals : extremum_of<::realify::op::amax, engine::reduction::amax> {
    static constexpr std::string_view name = "amax_reals";
};
struct amin_reals : extremum_of<::realify::op::amin, engine::reduction::amin> {
    static constexpr std::string_view name = "amin_reals";
};

/// var / std_dev over dims (all when empty) with PyTorch's correction
/// (1: Bessel's), keepdim; a real result for real and complex tensors.
template <class Tag, bool Root>
struct variance_of {
    using op = Tag;
    static constexpr std::string_view formula =
        Root ? "√(Σ|x − mean|² / max(0, N − correction)): two passes in double per block, blocks combined by Chan's formula"
             : "Σ|x − mean|² / max(0, N − correction): two passes in double per block, blocks combined by Chan's formula";
    static constexpr std::string_view tolerance = "f32 rtol 1e-5 atol 1e-6; f64 rtol 1e-12 (summation order differs from PyTorch)";
    template <class... A>
    static constexpr bool accepts = floating_tensor<A...>;
    template <class A>
    using result = result_t<operand_component_t<A>, dynamic_rank, A>;
    template <class A>
    static auto apply(const A& a, const dim_list& dims = {}, double correction = 1, bool keepdim = false) {
        const engine::input<A> in(Tag::name, a);
        const auto axes = reduction_detail::axes_of(Tag::name, in.ref(), dims);
        return shape_detail::allocated<result<A>>(
            Tag::name, engine::reduced_shape(in.ref().shape, axes, keepdim), [&](const engine::tensor_ref& to) {
                engine::variance(Tag::name, in.ref(), axes, correction, keepdim, Root, to);
            });
    }
    template <class B, class A>
    static void apply_into(out_arg<B>& o, const A& a, const dim_list& dims = {}, double correction = 1,
                           bool keepdim = false) {
        check_out_type<operand_component_t<A>, B>();
        const engine::input<A> in(Tag::name, a);
        engine::variance(Tag::name, in.ref(), reduction_detail::axes_of(Tag::name, in.ref(), dims), correction, keepdim,
                         Root, out_ref(Tag::name, o));
    }
};
struct var_two_pass : variance_of<::realify::op::var, false> {
    static constexpr std::string_view name = "var_two_pass";
};
struct std_dev_two_pass : variance_of<::realify::op::std_dev, true> {
    static constexpr std::string_view name = "std_dev_two_pass";
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
REALIFY_BUILTIN_CANDIDATES(amax, lowering::amax_reals)
REALIFY_BUILTIN_CANDIDATES(amin, lowering::amin_reals)
REALIFY_BUILTIN_CANDIDATES(var, lowering::var_two_pass)
REALIFY_BUILTIN_CANDIDATES(std_dev, lowering::std_dev_two_pass)

}  // namespace realify::dispatch
