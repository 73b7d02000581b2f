// Shared by bench_kernels.cpp (realify's compiled elementwise kernels through
// the span API), bench_ops.cpp (the eager API) and their competitors compiled
// for the host: bench_kernels_eigen.cpp (Eigen 3.4 ArrayXcf/ArrayXcd) and
// bench_ops_std.cpp (std::complex loops): the ops compared and their inputs.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace realify_bench_kernels {

// X(name): the ops both sides run, with realify's elementwise_op of the same
// name, except the tensor-scalar forms (mul_real_scalar: x · 2.5,
// add_scalar: x + (0.5 − 1.5i)), pow_scalar (x^2.5) and pow_tensor (x^y).
#define REALIFY_BENCH_KERNEL_OPS(X) \
    X(add) X(sub) X(mul) X(div) X(mul_real_scalar) X(add_scalar) X(conj) X(neg) X(square) X(reciprocal) \
    X(exp) X(log) X(sqrt) X(abs) X(angle) X(sin) X(cos) X(tanh) X(expm1) X(log1p) X(log2) X(log10) X(rsqrt) \
    X(tan) X(sinh) X(cosh) X(asin) X(acos) X(atan) X(asinh) X(acosh) X(atanh) X(pow_scalar) X(pow_tensor) \
    X(sgn) X(real) X(imag)

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

/// True for the ops with a real result (abs, angle, real, imag).
constexpr bool real_result(op_id op) {
    return op == op_id::abs || op == op_id::angle || op == op_id::real || op == op_id::imag;
}

/// out = op(x[, y]) with Eigen: complex results into out, real ones into rout.
void eigen_run(op_id op, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out,
               float* rout, std::size_t n);
void eigen_run(op_id op, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
               double* rout, std::size_t n);
/// The same with a std::complex loop.
void std_run(op_id op, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out,
             float* rout, std::size_t n);
void std_run(op_id op, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
             double* rout, std::size_t n);

/// The graph chains of bench_ops, each a fused loop in a realify graph:
///   exp_mul_add  exp(x)·y + x
///   chain5       (exp(x)·y + x)·conj(y): five ops
#define REALIFY_BENCH_CHAINS(X) X(exp_mul_add) X(chain5)

enum class chain_id {
#define REALIFY_BENCH_ENUM(name) name,
    REALIFY_BENCH_CHAINS(REALIFY_BENCH_ENUM)
#undef REALIFY_BENCH_ENUM
};

inline constexpr std::string_view chain_names[] = {
#define REALIFY_BENCH_NAME(name) #name,
    REALIFY_BENCH_CHAINS(REALIFY_BENCH_NAME)
#undef REALIFY_BENCH_NAME
};

/// out = chain(x, y) as one Eigen expression, and as a std::complex loop.
void eigen_chain(chain_id chain, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out,
                 std::size_t n);
void eigen_chain(chain_id chain, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
                 std::size_t n);
void std_chain(chain_id chain, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out,
               std::size_t n);
void std_chain(chain_id chain, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
               std::size_t n);

}  // namespace realify_bench_kernels
