// The same std::complex<float> loop in a TU compiled with -fcx-limited-range
// (what -ffast-math implies): plain formula, no NaN recovery, vectorisable.
#include <vector>

#include "bench_complex_mul_common.hpp"

namespace {

void BM_std_complex_limited_range(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto a = realify_bench::make_complex(n, 1);
    const auto b = realify_bench::make_complex(n, 2);
    realify_bench::complex_vector c(n);
    for (auto _ : state) {
        for (std::size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_complex_mul_counters(state, n);
}
BENCHMARK(BM_std_complex_limited_range)->Apply(realify_bench::complex_mul_sizes);

}  // namespace
