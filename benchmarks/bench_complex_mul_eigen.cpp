// Eigen 3.4 ArrayXcf: c = a * b, evaluated with Eigen's interleaved packet
// complex multiply (the bar realify's kernel is measured against).
#include <Eigen/Core>

#include "bench_complex_mul_common.hpp"

namespace {

void BM_eigen(benchmark::State& state) {
    const auto n = static_cast<Eigen::Index>(state.range(0));
    const auto a0 = realify_bench::make_complex(static_cast<std::size_t>(n), 1);
    const auto b0 = realify_bench::make_complex(static_cast<std::size_t>(n), 2);
    const Eigen::ArrayXcf a = Eigen::Map<const Eigen::ArrayXcf>(a0.data(), n);
    const Eigen::ArrayXcf b = Eigen::Map<const Eigen::ArrayXcf>(b0.data(), n);
    Eigen::ArrayXcf c = Eigen::ArrayXcf::Zero(n);  // touched once, like the others' outputs
    for (auto _ : state) {
        c = a * b;
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_complex_mul_counters(state, static_cast<std::size_t>(n));
}
BENCHMARK(BM_eigen)->Apply(realify_bench::complex_mul_sizes);

}  // namespace
