// Eigen competitors of bench_gemm, included by a translation unit compiled for
// the host (bench_gemm_competitors.cpp) and by one compiled for AVX2 + FMA
// (bench_gemm_competitors_avx2.cpp, which renames Eigen's namespace first so
// the two copies of Eigen do not meet at link time). Each registers them with
// its own name suffix.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_gemm_common.hpp"

namespace {

template <class T>
using complex_matrix = Eigen::Matrix<std::complex<T>, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using real_matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

template <class T>
complex_matrix<T> random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint32_t seed) {
    const auto values = realify_bench::random_complex<T>(static_cast<std::size_t>(rows * cols), seed);
    return Eigen::Map<const complex_matrix<T>>(values.data(), rows, cols);
}

/// The real view of a complex matrix's values, reshaped (rows × cols reals).
template <class T>
real_matrix<T> random_real(Eigen::Index rows, Eigen::Index cols, std::uint32_t seed) {
    const auto values = realify_bench::random_complex<T>(static_cast<std::size_t>(rows * cols + 1) / 2, seed);
    return Eigen::Map<const real_matrix<T>>(reinterpret_cast<const T*>(values.data()), rows, cols);
}

/// `count` products c[i] = a[i]·b[i] (noalias, c preallocated) per iteration;
/// make(rows, cols, seed) makes the operands. GFLOP/s of count n × n complex products.
template <class Matrix, class Make>
void eigen_products(benchmark::State& state, std::int64_t n, std::int64_t count, Eigen::Index a_rows,
                    Eigen::Index a_cols, Eigen::Index b_cols, const Make& make) {
    std::vector<Matrix> a, b, c;
    for (std::int64_t i = 0; i < count; ++i) {
        a.push_back(make(a_rows, a_cols, 1 + 2 * std::uint32_t(i)));
        b.push_back(make(a_cols, b_cols, 2 + 2 * std::uint32_t(i)));
        c.push_back(Matrix::Zero(a_rows, b_cols));
    }
    for (auto _ : state) {
        for (std::size_t i = 0; i < c.size(); ++i) c[i].noalias() = a[i] * b[i];
        benchmark::DoNotOptimize(c.back().data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_flops(state, double(count), double(n), double(n), double(n));
}

/// Eigen's complex product of n × n matrices.
template <class T>
void eigen_complex(benchmark::State& state, std::int64_t n, std::int64_t count) {
    eigen_products<complex_matrix<T>>(state, n, count, n, n, n, random_matrix<T>);
}

/// Eigen's real product (n × 2n)·(2n × 2n): 1m's real product of an n × n complex one.
template <class T>
void eigen_real_ceiling(benchmark::State& state, std::int64_t n, std::int64_t count) {
    eigen_products<real_matrix<T>>(state, n, count, n, 2 * n, 2 * n, random_real<T>);
}

template <class T>
void eigen_mv(benchmark::State& state, std::int64_t n) {
    const complex_matrix<T> a = random_matrix<T>(n, n, 1);
    const complex_matrix<T> x = random_matrix<T>(n, 1, 2);
    complex_matrix<T> y = complex_matrix<T>::Zero(n, 1);
    for (auto _ : state) {
        y.noalias() = a * x;
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_flops(state, 1, double(n), 1, double(n));
}

template <class T>
void eigen_dot(benchmark::State& state, std::int64_t n) {
    const complex_matrix<T> x = random_matrix<T>(n, 1, 1), y = random_matrix<T>(n, 1, 2);
    for (auto _ : state) {
        std::complex<T> d = x.col(0).transpose() * y.col(0);
        benchmark::DoNotOptimize(d);
    }
    realify_bench::set_flops(state, 1, 1, 1, double(n));
}

/// Registers the Eigen products as <family>/eigen_complex<suffix>/… and
/// <family>/eigen_real_ceiling<suffix>/…; `vectors` adds mv and dot.
template <class T>
void register_eigen(const std::string& suffix, bool vectors) {
    using realify_bench::register_sizes;
    const char* dtype = realify_bench::dtype_name<T>();
    const auto square = realify_bench::square_sizes();
    const std::vector<std::int64_t> batch = {realify_bench::batch_size};
    constexpr std::int64_t count = realify_bench::batch_count;
    register_sizes("square", "eigen_complex" + suffix, dtype, square,
                   [](benchmark::State& s, std::int64_t n) { eigen_complex<T>(s, n, 1); });
    register_sizes("square", "eigen_real_ceiling" + suffix, dtype, square,
                   [](benchmark::State& s, std::int64_t n) { eigen_real_ceiling<T>(s, n, 1); });
    register_sizes("batch32", "eigen_complex" + suffix, dtype, batch,
                   [](benchmark::State& s, std::int64_t n) { eigen_complex<T>(s, n, count); });
    register_sizes("batch32", "eigen_real_ceiling" + suffix, dtype, batch,
                   [](benchmark::State& s, std::int64_t n) { eigen_real_ceiling<T>(s, n, count); });
    if (!vectors) return;
    register_sizes("small", "eigen_complex" + suffix, dtype, realify_bench::small_sizes(),
                   [](benchmark::State& s, std::int64_t n) { eigen_complex<T>(s, n, 1); });
    register_sizes("mv", "eigen_complex" + suffix, dtype, realify_bench::vector_sizes(),
                   [](benchmark::State& s, std::int64_t n) { eigen_mv<T>(s, n); });
    register_sizes("dot", "eigen_complex" + suffix, dtype, realify_bench::vector_sizes(),
                   [](benchmark::State& s, std::int64_t n) { eigen_dot<T>(s, n); });
}

}  // namespace
