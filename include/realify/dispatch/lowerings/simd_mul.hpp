// High-priority lowerings of mul onto the SIMD kernels (realify/simd): when
// the operands are contiguous row-major (…,2) layouts of one shape — the hot
// path of RoPE and of most complex workloads — the interleaved kernels of the
// compiled realify_simd library run instead of the generic elementwise engine.
//
// Each carries a compile-time validator (operand kinds and one component type,
// so no promotion is needed) and a run-time validator (memory, contiguity,
// equal shapes); when the run-time check fails the dispatcher falls through
// to the standard lowering, which handles broadcasting and strides.
//
// Special values: the kernels run with nan_policy::fast, the plain formula —
// the same formula as the standard mul_pairs lowering and as PyTorch's complex
// mul, so the choice of lowering never changes inf/NaN results.
//
// This header includes only the span API of the kernels, not xsimd.
#pragma once

#include <complex>
#include <cstddef>
#include <span>
#include <string_view>
#include <type_traits>

#include "realify/dispatch/elementwise.hpp"
#include "realify/dispatch/lowerings/common.hpp"
#include "realify/layout/pointer_cast.hpp"
#include "realify/simd/complex_mul.hpp"

namespace realify::dispatch::lowering {

namespace simd_detail {

/// The real expression behind an operand: the (…,2) layout of a complex one.
template <class A>
const auto& real_expression(const A& operand) {
    if constexpr (complex_tensor_operand<A>) return operand.real_layout();
    else return operand;
}

/// Component type of a tensor operand, of a std::complex number, or void for
/// anything else (so validators stay well-formed for every operand kind).
template <class A>
struct component {
    using type = void;
};
template <class A>
    requires complex_tensor_operand<A>
struct component<A> {
    using type = typename A::real_type;
};
template <class A>
    requires real_tensor_operand<A>
struct component<A> {
    using type = std::remove_cv_t<typename A::value_type>;
};
template <class T>
struct component<std::complex<T>> {
    using type = T;
};
template <class A>
using component_t = typename component<std::remove_cvref_t<A>>::type;

/// Operands the kernels take: one component type, float or double, for both
/// (so no promotion is needed).
template <class A, class B>
inline constexpr bool one_kernel_component_v =
    real_scalar<component_t<A>> && std::is_same_v<component_t<A>, component_t<B>>;

/// Row-major contiguous memory, checked on the strides (xtensor gives
/// extent-1 axes stride 0).
template <class E>
bool is_packed(const E& expression) {
    if constexpr (!realify::detail::strided_in_memory<const E&>) {
        return false;
    } else {
        const auto& shape = expression.shape();
        const auto& strides = expression.strides();
        std::ptrdiff_t expected = 1;
        for (std::size_t axis = shape.size(); axis-- > 0;) {
            if (shape[axis] != 1 && strides[axis] != expected) return false;
            expected *= static_cast<std::ptrdiff_t>(shape[axis]);
        }
        return true;
    }
}

/// The complex (…) shape of the complex operand `a`; the real operand of
/// mul_real must have exactly this shape, the complex one S+[2].
template <class A, class B>
bool same_packed_shape(const A& a, const B& b) {
    const auto& ra = real_expression(a);
    const auto& rb = real_expression(b);
    if (!is_packed(ra) || !is_packed(rb)) return false;
    const auto& sa = ra.shape();
    const auto& sb = rb.shape();
    const std::size_t compared = complex_tensor_operand<B> ? sb.size() : sb.size() + 1;
    if (compared != sa.size()) return false;
    for (std::size_t axis = 0; axis < sb.size(); ++axis)
        if (sa[axis] != sb[axis]) return false;
    return true;
}

template <class T>
std::span<const std::complex<T>> complex_span(const T* first_real, std::size_t n) {
    return {realify::detail::as_complex_pointer(first_real), n};
}

template <class E>
auto first_component(const E& expression) {
    return expression.data() + expression.data_offset();
}

/// A fresh owning result with the complex shape of the complex operand `a`,
/// filled by `kernel(a_span, out_span)`, as a complex layout.
template <class T, std::size_t Rank, class A, class Kernel>
auto into_new_layout(const A& a, const Kernel& kernel) {
    const auto& real_shape = a.real_layout().shape();
    realify::detail::dim_vector shape(real_shape.begin(), real_shape.end() - 1);
    auto result = realify::detail::make_container<realify::detail::owning_tensor_t<T, rank_plus_one(Rank)>>(shape, 2);
    const std::size_t n = result.size() / 2;
    kernel(complex_span(first_component(a.real_layout()), n),
           std::span<std::complex<T>>(realify::detail::as_complex_pointer(result.data()), n));
    return complex_layout<decltype(result)>(std::move(result));
}

}  // namespace simd_detail

/// complex × complex, contiguous and of one shape: realify::simd::mul.
struct mul_contiguous_simd {
    using op = op::mul;
    static constexpr std::string_view name = "mul_contiguous_simd";
    static constexpr std::string_view formula =
        "(ac − bd) + i(ad + bc), interleaved SIMD kernel (dup re/im, swap pairs, fmaddsub)";
    static constexpr int priority = dispatch::priority::high;
    template <class A, class B>
    static constexpr bool accepts =
        complex_tensor_operand<A> && complex_tensor_operand<B> && simd_detail::one_kernel_component_v<A, B>;
    template <class A, class B>
    static bool supports(const A& a, const B& b) {
        return simd_detail::same_packed_shape(a, b);
    }
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        using T = simd_detail::component_t<A>;
        return simd_detail::into_new_layout<T, broadcast_rank_v<A, B>>(a, [&](auto in, auto out) {
            simd::mul(in, simd_detail::complex_span(simd_detail::first_component(b.real_layout()), in.size()), out);
        });
    }
};

/// complex × real tensor (either order), contiguous, the real tensor of the
/// complex shape: realify::simd::mul_real.
struct mul_real_contiguous_simd {
    using op = op::mul;
    static constexpr std::string_view name = "mul_real_contiguous_simd";
    static constexpr std::string_view formula = "(a·s) + i(b·s), interleaved SIMD kernel";
    static constexpr int priority = dispatch::priority::high;
    template <class A, class B>
    static constexpr bool accepts =
        ((complex_tensor_operand<A> && real_tensor_operand<B>) || (real_tensor_operand<A> && complex_tensor_operand<B>)) &&
        simd_detail::one_kernel_component_v<A, B>;
    template <class A, class B>
    static bool supports(const A& a, const B& b) {
        if constexpr (complex_tensor_operand<A>) return simd_detail::same_packed_shape(a, b);
        else return simd_detail::same_packed_shape(b, a);
    }
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        if constexpr (complex_tensor_operand<A>) {
            using T = simd_detail::component_t<A>;
            return simd_detail::into_new_layout<T, broadcast_rank_v<A, B>>(a, [&](auto in, auto out) {
                simd::mul_real(in, std::span<const T>(simd_detail::first_component(b), in.size()), out);
            });
        } else {
            return apply(b, a);  // multiplication commutes
        }
    }
};

/// complex tensor × complex number, contiguous: realify::simd::mul_scalar.
struct mul_complex_scalar_simd {
    using op = op::mul;
    static constexpr std::string_view name = "mul_complex_scalar_simd";
    static constexpr std::string_view formula = "(ac − bd) + i(ad + bc) with a broadcast scalar, SIMD kernel";
    static constexpr int priority = dispatch::priority::high;
    template <class A, class B>
    static constexpr bool accepts =
        complex_tensor_operand<A> && complex_number_operand<B> && simd_detail::one_kernel_component_v<A, B>;
    template <class A, class B>
    static bool supports(const A& a, const B&) {
        return simd_detail::is_packed(a.real_layout());
    }
    template <class A, class B>
    static auto apply(const A& a, const B& s) {
        using T = simd_detail::component_t<A>;
        return simd_detail::into_new_layout<T, broadcast_rank_v<A, B>>(
            a, [&](auto in, auto out) { simd::mul_scalar(in, s, out); });
    }
};

}  // namespace realify::dispatch::lowering
