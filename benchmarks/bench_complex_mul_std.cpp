// std::complex<float> product with GCC's default flags: the compiler must
// check the naive result for NaN and call __mulsc3 (C99 Annex G), a branch
// that blocks vectorisation.
#include <vector>

#include "bench_complex_mul_common.hpp"

namespace {

void BM_std_complex(benchmark::State& state) {
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
BENCHMARK(BM_std_complex)->Apply(realify_bench::complex_mul_sizes);

}  // namespace
