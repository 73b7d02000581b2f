// The eager matrix products: realify::mm, bmm, matmul, mv, dot and vdot on
// complex layouts (or on two real float/double tensors), and the views
// conj_view, transpose_view and mH they read without copies. Each takes an
// optional realify::gemm_method for complex operands (default: the thread's,
// see scoped_gemm_method); docs/numerics.md says what each method gives.
#pragma once

#include "realify/dispatch.hpp"
#include "realify/ops/matrix_view.hpp"
#include "realify/simd/gemm.hpp"

namespace realify {

namespace detail {
template <class Tag, class A, class B>
auto matrix_product(gemm_method method, const A& a, const B& b) {
    const scoped_gemm_method scope(method);
    return dispatch::call<Tag>(a, b);
}
}  // namespace detail

/// a @ b for 2-D a, b.
template <class A, class B>
auto mm(const A& a, const B& b, gemm_method method = current_gemm_method()) {
    return detail::matrix_product<op::mm>(method, a, b);
}
/// Batched a @ b for 3-D a, b of one batch extent.
template <class A, class B>
auto bmm(const A& a, const B& b, gemm_method method = current_gemm_method()) {
    return detail::matrix_product<op::bmm>(method, a, b);
}
/// torch.matmul: 1-D operands promoted (and the added dim removed), batch dims broadcast.
template <class A, class B>
auto matmul(const A& a, const B& b, gemm_method method = current_gemm_method()) {
    return detail::matrix_product<op::matmul>(method, a, b);
}
/// torch.mv: a 2-D a times a 1-D x (computed by matmul).
template <class A, class X>
auto mv(const A& a, const X& x, gemm_method method = current_gemm_method()) {
    const auto sa = dispatch::lowering::linalg_detail::argument_shape(a);
    const auto sx = dispatch::lowering::linalg_detail::argument_shape(x);
    if (sa.size() != 2 || sx.size() != 1 || sa[1] != sx[0]) dispatch::lowering::linalg_detail::mismatch("mv", sa, sx);
    return detail::matrix_product<op::matmul>(method, a, x);
}
/// Σ a_i·b_i for 1-D a, b of one length.
template <class A, class B>
auto dot(const A& a, const B& b, gemm_method method = current_gemm_method()) {
    return detail::matrix_product<op::dot>(method, a, b);
}
/// Σ conj(a_i)·b_i for 1-D a, b of one length.
template <class A, class B>
auto vdot(const A& a, const B& b, gemm_method method = current_gemm_method()) {
    return detail::matrix_product<op::vdot>(method, a, b);
}

}  // namespace realify
