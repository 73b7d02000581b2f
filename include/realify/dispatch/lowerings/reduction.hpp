// Lowerings of the reductions: sum and mean (all dims or over dims) act per
// component on the layout with dims shifted as the seed does; prod over a dim
// is a TRUE complex product of pairs (the seed multiplied the components
// separately, which is not a complex product); cumsum is per component.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string_view>
#include <vector>

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "realify/dispatch/lowerings/shape.hpp"

namespace realify::dispatch {
namespace lowering {

namespace reduction_detail {
/// The layout axes of `dims` (all complex dims when empty), sorted and unique.
template <class A>
std::vector<std::size_t> axes_of(std::string_view op, const A& a, const dim_list& dims) {
    std::vector<std::size_t> axes;
    if (dims.empty()) {
        for (std::size_t i = 0; i < a.dimension(); ++i) axes.push_back(i);
    } else {
        for (std::ptrdiff_t d : dims) axes.push_back(shape_detail::layout_axis(op, d, a.dimension()));
    }
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    return axes;
}

/// The complex shape after reducing `axes` (kept as 1 with keepdim).
template <class A>
std::vector<std::size_t> reduced_shape(const A& a, const std::vector<std::size_t>& axes, bool keepdim) {
    const auto shape = shape_detail::shape_of(a);
    std::vector<std::size_t> result;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
        if (!reduced) result.push_back(shape[i]);
        else if (keepdim) result.push_back(1);
    }
    return result;
}

template <bool Mean, class A>
auto sum_or_mean(std::string_view op, const A& a, const dim_list& dims, bool keepdim) {
    using T = typename A::real_type;
    const auto axes = axes_of(op, a, dims);
    if (a.size() == 0) {
        // xtensor's reducers do pointer arithmetic on the null data of an empty
        // tensor (UB); the answer is known: 0 for sum, NaN (0/0) for mean.
        auto target = reduced_shape(a, axes, keepdim);
        std::vector<std::size_t> real_shape(target.begin(), target.end());
        real_shape.push_back(2);
        xt::xarray<T> filled = xt::xarray<T>::from_shape(real_shape);
        filled.fill(Mean ? std::numeric_limits<T>::quiet_NaN() : T(0));
        return shape_detail::reshaped(std::move(filled), target);
    }
    const xt::xarray<T> real = shape_detail::evaluate(a);
    xt::xarray<T> reduced;
    if (axes.empty()) reduced = real;  // rank 0: nothing to reduce
    else if constexpr (Mean) reduced = xt::mean(real, axes);
    else reduced = xt::sum(real, axes);
    return shape_detail::reshaped(std::move(reduced), reduced_shape(a, axes, keepdim));
}
}  // namespace reduction_detail

template <class Tag, bool Mean>
struct sum_mean_components {
    using op = Tag;
    static constexpr std::string_view name = Mean ? "mean_per_component" : "sum_per_component";
    static constexpr std::string_view formula = Mean ? "mean(layout, [d'…]) on each component" : "sum(layout, [d'…]) on each component";
    static constexpr std::string_view tolerance = "f32 rtol 1e-5 atol 1e-6; f64 rtol 1e-12 (summation order differs from PyTorch)";
    template <class A, class... P>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static auto apply(const A& a) {
        using T = typename A::real_type;
        const auto result = reduction_detail::sum_or_mean<Mean>(Tag::name, a, {}, false);
        xt::xtensor<T, 1> pair = result.real_layout();
        return complex_layout<xt::xtensor<T, 1>>(std::move(pair));
    }
    template <class A>
    static auto apply(const A& a, const dim_list& dims, bool keepdim = false) {
        return reduction_detail::sum_or_mean<Mean>(Tag::name, a, dims, keepdim);
    }
};
using sum_all = sum_mean_components<op::sum, false>;
using sum_dim_components = sum_mean_components<op::sum_dim, false>;
using mean_all = sum_mean_components<op::mean, true>;
using mean_dim_components = sum_mean_components<op::mean_dim, true>;

struct prod_dim_pairs {
    using op = ::realify::op::prod_dim;
    static constexpr std::string_view name = "prod_complex_pairs";
    static constexpr std::string_view formula = "Π z_k by the pair product (ac − bd) + i(ad + bc), not per component";
    template <class A, class... P>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim, bool keepdim = false) {
        using T = typename A::real_type;
        const auto shape = shape_detail::shape_of(a);
        const xt::xarray<T> real = shape_detail::evaluate(a);
        std::size_t axis = 0, outer = 1, extent = 1, inner = 1;
        if (!shape.empty()) {
            axis = shape_detail::layout_axis("prod_dim", dim, shape.size());
            for (std::size_t i = 0; i < axis; ++i) outer *= shape[i];
            extent = shape[axis];
            for (std::size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
        } else if (dim != 0 && dim != -1) {
            shape_detail::layout_axis("prod_dim", dim, 0);  // throws: rank 0 has only dim 0/-1
        }
        std::vector<std::size_t> out_shape =
            shape.empty() ? std::vector<std::size_t>{} : reduction_detail::reduced_shape(a, {axis}, keepdim);
        out_shape.push_back(2);
        xt::xarray<T> out = xt::xarray<T>::from_shape(out_shape);
        const T* src = real.data();
        T* dst = out.data();
        for (std::size_t o = 0; o < outer; ++o) {
            for (std::size_t i = 0; i < inner; ++i) {
                kernel::cpair<T> acc{T(1), T(0)};
                for (std::size_t k = 0; k < extent; ++k) {
                    const T* p = src + 2 * ((o * extent + k) * inner + i);
                    acc = kernel::element<::realify::op::mul>{}(acc, kernel::cpair<T>{p[0], p[1]});
                }
                dst[2 * (o * inner + i)] = acc.re;
                dst[2 * (o * inner + i) + 1] = acc.im;
            }
        }
        return complex_layout<xt::xarray<T>>(std::move(out));
    }
};

struct cumsum_components {
    using op = ::realify::op::cumsum;
    static constexpr std::string_view name = "cumsum_per_component";
    static constexpr std::string_view formula = "cumsum(layout, d') on each component";
    static constexpr std::string_view tolerance = "f32 rtol 1e-5 atol 1e-6; f64 rtol 1e-12 (summation order differs from PyTorch)";
    template <class A, class... P>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim) {
        if (a.dimension() == 0) return shape_detail::make_layout<A::rank>(shape_detail::evaluate(a));
        const std::size_t axis = shape_detail::layout_axis("cumsum", dim, a.dimension());
        if (a.size() == 0) return shape_detail::make_layout<A::rank>(shape_detail::evaluate(a));
        return shape_detail::make_layout<A::rank>(xt::cumsum(shape_detail::evaluate(a), static_cast<std::ptrdiff_t>(axis)));
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(sum, lowering::sum_all)
REALIFY_BUILTIN_CANDIDATES(sum_dim, lowering::sum_dim_components)
REALIFY_BUILTIN_CANDIDATES(mean, lowering::mean_all)
REALIFY_BUILTIN_CANDIDATES(mean_dim, lowering::mean_dim_components)
REALIFY_BUILTIN_CANDIDATES(prod_dim, lowering::prod_dim_pairs)
REALIFY_BUILTIN_CANDIDATES(cumsum, lowering::cumsum_components)

}  // namespace realify::dispatch
