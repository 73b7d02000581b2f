// Shared by bench_kernels.cpp (realify's compiled elementwise kernels through
// the span API) and bench_kernels_eigen.cpp (Eigen 3.4 ArrayXcf/ArrayXcd, the
// competitor, compiled for the host): the ops compared and their inputs.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace realify_bench_kernels {

// X(name): the ops both sides run, with realify's elementwise_op of the same
// name, except the tensor-scalar forms (mul_real_scalar: x · 2.5,
// add_scalar: x + (0.5 − 1.5i)) and pow_scalar (x^2.5).
#define REALIFY_BENCH_KERNEL_OPS(X) \
    X(add) X(sub) X(mul) X(div) X(mul_real_scalar) X(add_scalar) X(conj) X(neg) X(square) X(reciprocal) \
    X(exp) X(log) X(sqrt) X(abs) X(angle) X(sin) X(cos) X(tanh) X(expm1) X(log1p) X(log2) X(log10) X(rsqrt) \
    X(tan) X(sinh) X(cosh) X(asin) X(acos) X(atan) X(asinh) X(acosh) X(atanh) X(pow_scalar)

enum class op_id {
#define REALIFY_BENCH_ENUM(name) name,
    REALIFY_BENCH_KERNEL_OPS(REALIFY_BENCH_ENUM)
#undef REALIFY_BENCH_ENUM
};

inline constexpr std::string_view op_names[] = {
#define REALIFY_BENCH_NAME(name) #name,
    REALIFY_BENCH_KERNEL_OPS(REALIFY_BENCH_NAME)
#undef REALIFY_BENCH_NAME
};

/// True for the ops with a real result (abs, angle).
constexpr bool real_result(op_id op) { return op == op_id::abs || op == op_id::angle; }

/// out = op(x[, y]) with Eigen: complex results into out, real ones into rout.
void eigen_run(op_id op, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out,
               float* rout, std::size_t n);
void eigen_run(op_id op, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
               double* rout, std::size_t n);

}  // namespace realify_bench_kernels
