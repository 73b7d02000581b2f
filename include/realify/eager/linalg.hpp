// The eager matrix products: realify::mm, bmm, matmul, mv, dot and vdot on
// complex tensors (or on two real float/double tensors), and the views
// conj_view, transpose_view and mH they read without copies. Each takes an
// optional realify::gemm_method for complex operands (default: the thread's,
// see scoped_gemm_method); docs/numerics.md says what each method gives.
// Then an optional realify::out(buffer), last: the product is written there
// (straight from the GEMM when the buffer is row-major contiguous and shares
// no memory with an operand) and the buffer is returned.
#pragma once

#include <cstddef>
#include <string_view>
#include <tuple>
#include <utility>

#include "realify/dispatch/lowerings.hpp"
#include "realify/ops/matrix_view.hpp"
#include "realify/ops/out.hpp"
#include "realify/simd/gemm.hpp"

namespace realify {

namespace detail {
template <class Tag, class A, class B, class... O>
decltype(auto) matrix_product(gemm_method method, const A& a, const B& b, O&&... o) {
    const scoped_gemm_method scope(method);
    return dispatch::call<Tag>(tensor_argument(a), tensor_argument(b), std::forward<O>(o)...);
}
}  // namespace detail

/// a @ b for 2-D a, b.
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) mm(const A& a, const B& b, gemm_method method, O&&... o) {
    return detail::matrix_product<op::mm>(method, a, b, std::forward<O>(o)...);
}
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) mm(const A& a, const B& b, O&&... o) {
    return mm(a, b, current_gemm_method(), std::forward<O>(o)...);
}

/// Batched a @ b for 3-D a, b of one batch extent.
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) bmm(const A& a, const B& b, gemm_method method, O&&... o) {
    return detail::matrix_product<op::bmm>(method, a, b, std::forward<O>(o)...);
}
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) bmm(const A& a, const B& b, O&&... o) {
    return bmm(a, b, current_gemm_method(), std::forward<O>(o)...);
}

/// torch.matmul: 1-D operands promoted (and the added dim removed), batch dims broadcast.
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) matmul(const A& a, const B& b, gemm_method method, O&&... o) {
    return detail::matrix_product<op::matmul>(method, a, b, std::forward<O>(o)...);
}
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) matmul(const A& a, const B& b, O&&... o) {
    return matmul(a, b, current_gemm_method(), std::forward<O>(o)...);
}

/// torch.mv: a 2-D a times a 1-D x (computed by matmul).
template <class A, class X, class... O>
    requires detail::optional_out<O...>
decltype(auto) mv(const A& a, const X& x, gemm_method method, O&&... o) {
    if constexpr (plain_container_operand<A> || plain_container_operand<X>) {
        return mv(as_operand(a), as_operand(x), method, std::forward<O>(o)...);
    } else {
        if constexpr (!detail::is_unreadable_container_v<A> && !detail::is_unreadable_container_v<X>) {  // else refused, once
            const auto sa = dispatch::lowering::linalg_detail::argument_shape("mv", a);
            const auto sx = dispatch::lowering::linalg_detail::argument_shape("mv", x);
            if (sa.rank != 2 || sx.rank != 1 || sa[1] != sx[0])
                dispatch::lowering::linalg_detail::mismatch("mv", sa, sx);
        }
        return detail::matrix_product<op::matmul>(method, a, x, std::forward<O>(o)...);
    }
}
template <class A, class X, class... O>
    requires detail::optional_out<O...>
decltype(auto) mv(const A& a, const X& x, O&&... o) {
    return mv(a, x, current_gemm_method(), std::forward<O>(o)...);
}

/// Σ a_i·b_i for 1-D a, b of one length.
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) dot(const A& a, const B& b, gemm_method method, O&&... o) {
    return detail::matrix_product<op::dot>(method, a, b, std::forward<O>(o)...);
}
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) dot(const A& a, const B& b, O&&... o) {
    return dot(a, b, current_gemm_method(), std::forward<O>(o)...);
}

/// Σ conj(a_i)·b_i for 1-D a, b of one length.
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) vdot(const A& a, const B& b, gemm_method method, O&&... o) {
    return detail::matrix_product<op::vdot>(method, a, b, std::forward<O>(o)...);
}
template <class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) vdot(const A& a, const B& b, O&&... o) {
    return vdot(a, b, current_gemm_method(), std::forward<O>(o)...);
}

/// torch.einsum(equation, operands…[, out]): "bhqd,bhkd->bhqk" (q·kᵀ per
/// batch and head), "bhqk,bhkd->bhqd", "bqhd,bkhd->bhqk" … — the equation is
/// parsed at run time (realify/engine/einsum.hpp): diagonals, permutations,
/// sums, broadcasting and ellipses as PyTorch; each pair of operands one
/// batched product of the GEMM. Operands: real tensors, or complex ones, of
/// one dtype.
template <class... A>
decltype(auto) einsum(std::string_view equation, A&&... args) {
    static_assert(sizeof...(A) > 0, "realify::einsum: give at least one operand");
    if constexpr (output_argument<std::tuple_element_t<sizeof...(A) - 1, std::tuple<A...>>>) {
        auto all = std::forward_as_tuple(std::forward<A>(args)...);
        return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
            return dispatch::call<op::einsum>(std::get<I>(all)..., equation, std::get<sizeof...(A) - 1>(all));
        }(std::make_index_sequence<sizeof...(A) - 1>{});
    } else {
        return dispatch::call<op::einsum>(args..., equation);
    }
}

}  // namespace realify
