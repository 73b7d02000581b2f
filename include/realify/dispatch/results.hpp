// What the allocating form of an eager op returns — what a user of its
// operand types expects — and how it is allocated (then filled by the op's
// out= form: no second copy).
//
//   complex result, some operand a complex_layout   owning complex_layout<xt::xtensor<T, N + 1>>
//   complex result, otherwise                       xt::xtensor<std::complex<T>, N>
//   real result                                     xt::xtensor<T, N> (bool for isnan/isinf)
//
// with xt::xarray in place of xt::xtensor when the rank is only known at run
// time.
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <type_traits>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/engine/runtime_rank.hpp"
#include "realify/engine/tensor_ref.hpp"
#include "realify/layout/complex_layout.hpp"
#include "realify/layout/shape_traits.hpp"
#include "realify/ops/operand.hpp"

namespace realify {

namespace dispatch {

/// True when some operand is a complex_layout (or a vector of them: cat, stack).
template <class A>
inline constexpr bool is_layout_argument_v = complex_layout_operand<A>;
template <class A, class Alloc>
inline constexpr bool is_layout_argument_v<std::vector<A, Alloc>> = complex_layout_operand<A>;
template <class... A>
inline constexpr bool any_layout_v = (is_layout_argument_v<std::remove_cvref_t<A>> || ...);

namespace detail {
template <class V, std::size_t Rank, bool Layout>
struct result_of {
    using type = realify::detail::owning_tensor_t<V, Rank>;
};
template <class T, std::size_t Rank>
struct result_of<std::complex<T>, Rank, true> {
    using type = complex_layout<realify::detail::owning_tensor_t<T, rank_plus_one(Rank)>>;
};
}  // namespace detail

/// The owning result of an op with element type V (float, double, bool, or
/// std::complex<T> for a complex result) and rank Rank on operands A….
template <class V, std::size_t Rank, class... A>
using result_t = typename detail::result_of<V, Rank, any_layout_v<A...>>::type;

/// An uninitialised result of the given (complex, for complex results) shape.
template <class R>
R allocate_result(const engine::dims& shape) {
    if constexpr (is_complex_layout_v<R>) {
        using C = typename R::expression_type;
        typename C::shape_type s = realify::detail::make_shape<typename C::shape_type>(shape.rank + 1);
        for (std::size_t a = 0; a < shape.rank; ++a) s[a] = shape[a];
        s[shape.rank] = 2;
        return R(C::from_shape(s));
    } else {
        // an index loop: std::copy into a rank-0 std::array warns -Wnonnull once inlined
        typename R::shape_type s = realify::detail::make_shape<typename R::shape_type>(shape.rank);
        for (std::size_t a = 0; a < shape.rank; ++a) s[a] = shape[a];
        return R::from_shape(s);
    }
}

// The results of run-time rank are allocated once, in realify_simd
// (realify/engine/runtime_rank.hpp).
#define REALIFY_DECLARE_ALLOCATE_RESULT(R) extern template R allocate_result<R>(const engine::dims&);
REALIFY_RUNTIME_RANK_TENSORS(REALIFY_DECLARE_ALLOCATE_RESULT)
#undef REALIFY_DECLARE_ALLOCATE_RESULT

}  // namespace dispatch
}  // namespace realify
