// Private: Eigen's complex product on complex_view operands (the native
// method), shared by src/gemm/gemm_kernels.hpp and gemm_native_avx512.cpp.
// Included after the unit has renamed Eigen's namespace and included
// Eigen/Core; internal linkage, as everything of these units.
#pragma once

#include <complex>

#include "gemm_arch.hpp"

namespace realify::simd::detail {
namespace {

/// C (rows × n pairs, rows ldc pairs apart) = op(A)·op(B) on Eigen's complex product.
template <class T>
void eigen_complex_gemm(Eigen::Index rows, Eigen::Index n, Eigen::Index k, const complex_view<T>& a,
                        const complex_view<T>& b, T* c, Eigen::Index ldc) {
    using C = std::complex<T>;
    using row_major_c = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using col_major_c = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
    using in_rows = Eigen::Map<const row_major_c, Eigen::Unaligned, Eigen::OuterStride<>>;
    using in_cols = Eigen::Map<const col_major_c, Eigen::Unaligned, Eigen::OuterStride<>>;
    Eigen::Map<row_major_c, Eigen::Unaligned, Eigen::OuterStride<>> out(reinterpret_cast<C*>(c), rows, n,
                                                                        Eigen::OuterStride<>(ldc));
    const auto times = [&](const auto& lhs) {
        const C* data = reinterpret_cast<const C*>(b.data);
        switch (b.op) {
            case complex_op::none: out.noalias() = lhs * in_rows(data, k, n, Eigen::OuterStride<>(b.ld)); break;
            case complex_op::transpose: out.noalias() = lhs * in_cols(data, k, n, Eigen::OuterStride<>(b.ld)); break;
            case complex_op::adjoint:
                out.noalias() = lhs * in_cols(data, k, n, Eigen::OuterStride<>(b.ld)).conjugate();
                break;
        }
    };
    const C* data = reinterpret_cast<const C*>(a.data);
    switch (a.op) {
        case complex_op::none: times(in_rows(data, rows, k, Eigen::OuterStride<>(a.ld))); break;
        case complex_op::transpose: times(in_cols(data, rows, k, Eigen::OuterStride<>(a.ld))); break;
        case complex_op::adjoint: times(in_cols(data, rows, k, Eigen::OuterStride<>(a.ld)).conjugate()); break;
    }
}

}  // namespace
}  // namespace realify::simd::detail
