// Shared by bench_kernels.cpp (realify's compiled elementwise kernels through
// the span API), bench_ops.cpp (the eager API) and their competitors compiled
// for the host: bench_kernels_eigen.cpp (Eigen 3.4 ArrayXcf/ArrayXcd) and
// bench_ops_std.cpp (std::complex loops): the ops compared and their inputs.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "realify/simd/elementwise.hpp"

namespace realify_bench_kernels {

// X(name): the ops timed — every op with binary kernels and every op with
// unary kernels, from the op list (REALIFY_BINARY_KERNEL_OPS,
// REALIFY_UNARY_KERNEL_OPS), each with realify's elementwise_op of the same
// name, and three tensor-number forms (mul_real_scalar: x · 2.5, add_scalar:
// x + (0.5 − 1.5i), pow_scalar: x^2.5). An op without a complex form
// (maximum, sigmoid, …: the inputs are complex) is not registered; one
// without a competitor's form (eigen_run / std_run return false) is timed for
// realify alone.
#define REALIFY_BENCH_KERNEL_OPS(X) \
    REALIFY_BINARY_KERNEL_OPS(X) X(mul_real_scalar) X(add_scalar) X(pow_scalar) REALIFY_UNARY_KERNEL_OPS(X)

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

/// What the benchmarks ask of an op, found once at compile time (a table
/// lookup in the timed loops).
struct op_facts {
    std::optional<realify::simd::elementwise_op> compiled;  // the op of the same name
    bool real_result;     // a real result from complex operands (abs, angle, real, imag)
    bool complex_result;  // a complex result from complex operands
};

inline constexpr auto op_facts_table = [] {
    namespace rs = realify::simd;
    std::array<op_facts, std::size(op_names)> table{};
    for (std::size_t k = 0; k < table.size(); ++k) {
        for (const rs::elementwise_op op : rs::elementwise_ops)
            if (rs::name(op) == op_names[k]) table[k].compiled = op;
        const auto e = table[k].compiled;  // nullopt: a tensor-scalar form, complex → complex
        const auto r = !e                   ? std::optional(rs::operand_kind::complex)
                       : rs::arity(*e) == 1 ? rs::result_kind(*e, rs::operand_kind::complex)
                                            : rs::result_kind(*e, rs::operand_kind::complex, rs::operand_kind::complex);
        table[k].real_result = r == rs::operand_kind::real;
        table[k].complex_result = r == rs::operand_kind::complex;
    }
    return table;
}();

/// realify's compiled op of the same name; nullopt for the tensor-scalar forms.
constexpr std::optional<realify::simd::elementwise_op> compiled_op(op_id op) {
    return op_facts_table[static_cast<std::size_t>(op)].compiled;
}
/// True for the ops with a real result (abs, angle, real, imag).
constexpr bool real_result(op_id op) { return op_facts_table[static_cast<std::size_t>(op)].real_result; }
/// True for the ops with a complex result from complex operands.
constexpr bool complex_result(op_id op) { return op_facts_table[static_cast<std::size_t>(op)].complex_result; }
/// True for the ops timed: those that take complex operands (not sigmoid, …).
constexpr bool takes_complex(op_id op) { return real_result(op) || complex_result(op); }

/// out = op(x[, y]) with Eigen: complex results into out, real ones into rout;
/// false (and nothing done) when Eigen has no form of the op.
bool eigen_run(op_id op, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out,
               float* rout, std::size_t n);
bool eigen_run(op_id op, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
               double* rout, std::size_t n);
/// The same with a std::complex loop.
bool std_run(op_id op, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out,
             float* rout, std::size_t n);
bool std_run(op_id op, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
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
