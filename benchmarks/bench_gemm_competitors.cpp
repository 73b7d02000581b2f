// The competitors of bench_gemm compiled for the host (-march=native), so
// each gets its best code: Eigen 3.4's complex product (MatrixXcf /
// MatrixXcd, noalias), Eigen's real product of the same flop count —
// (m × 2k)·(2k × 2n), the product the 1m method hands to the real GEMM, so
// the ceiling of an induced method — and a std::complex triple loop.
#include <Eigen/Core>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bench_gemm_common.hpp"
#include "bench_gemm_eigen.hpp"

namespace {

/// c += a·b, row-major, i-p-j order (unit stride in the inner loop).
template <class T>
void std_complex_loop(benchmark::State& state, std::int64_t n, std::int64_t count) {
    const auto size = static_cast<std::size_t>(n);
    std::vector<std::vector<std::complex<T>>> a, b;
    for (std::int64_t i = 0; i < count; ++i) {
        a.push_back(realify_bench::random_complex<T>(size * size, 1 + 2 * std::uint32_t(i)));
        b.push_back(realify_bench::random_complex<T>(size * size, 2 + 2 * std::uint32_t(i)));
    }
    std::vector<std::complex<T>> c(size * size);
    for (auto _ : state) {
        for (std::size_t batch = 0; batch < a.size(); ++batch) {
            std::fill(c.begin(), c.end(), std::complex<T>());
            for (std::size_t i = 0; i < size; ++i)
                for (std::size_t p = 0; p < size; ++p) {
                    const std::complex<T> x = a[batch][i * size + p];
                    for (std::size_t j = 0; j < size; ++j) c[i * size + j] += x * b[batch][p * size + j];
                }
            benchmark::DoNotOptimize(c.data());
            benchmark::ClobberMemory();
        }
    }
    realify_bench::set_flops(state, double(count), double(n), double(n), double(n));
}

/// x·Wᵀ (linear/eigen/…): x and W row-major, W read in place as the
/// column-major Wᵀ, C preallocated; one thread.
void eigen_linear(benchmark::State& state, const realify_bench::linear_shape& s, int) {
    using row_major = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const auto xv = realify_bench::linear_values(std::size_t(s.m * s.k), 1);
    const auto wv = realify_bench::linear_values(std::size_t(s.n * s.k), 2);
    const row_major x = Eigen::Map<const row_major>(xv.data(), s.m, s.k);
    const row_major w = Eigen::Map<const row_major>(wv.data(), s.n, s.k);
    row_major c = row_major::Zero(s.m, s.n);
    for (auto _ : state) {
        c.noalias() = x * w.transpose();
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
}

template <class T>
void register_competitors() {
    register_eigen<T>("", true);
    const char* dtype = realify_bench::dtype_name<T>();
    // n = 1024 would take seconds per iteration
    realify_bench::register_sizes("square", "std_complex_loop", dtype, {64, 128, 256, 512},
                                  [](benchmark::State& s, std::int64_t n) { std_complex_loop<T>(s, n, 1); });
    realify_bench::register_sizes("batch32", "std_complex_loop", dtype, {realify_bench::batch_size},
                                  [](benchmark::State& s, std::int64_t n) {
                                      std_complex_loop<T>(s, n, realify_bench::batch_count);
                                  });
    realify_bench::register_sizes("small", "std_complex_loop", dtype, realify_bench::small_sizes(),
                                  [](benchmark::State& s, std::int64_t n) { std_complex_loop<T>(s, n, 1); });
}

const bool registered = [] {
    realify_bench::register_linear("eigen", 1, [](const realify_bench::linear_shape&) { return true; }, eigen_linear);
    register_competitors<float>();
    register_competitors<double>();
    return true;
}();

}  // namespace
