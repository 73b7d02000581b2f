// The memory roofline: a float stream add c = a + b over exactly the bytes
// of the complex product (2N floats per array), so any complex kernel that
// matches it is limited by memory, not arithmetic.
#include <vector>

#include "bench_complex_mul_common.hpp"

namespace {

void BM_stream_add_roofline(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto a0 = realify_bench::make_complex(n, 1);
    const auto b0 = realify_bench::make_complex(n, 2);
    const realify_bench::aligned_vector<float> a(reinterpret_cast<const float*>(a0.data()), reinterpret_cast<const float*>(a0.data()) + 2 * n);
    const realify_bench::aligned_vector<float> b(reinterpret_cast<const float*>(b0.data()), reinterpret_cast<const float*>(b0.data()) + 2 * n);
    realify_bench::aligned_vector<float> c(2 * n);
    for (auto _ : state) {
        for (std::size_t i = 0; i < 2 * n; ++i) c[i] = a[i] + b[i];
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_complex_mul_counters(state, n);
}
BENCHMARK(BM_stream_add_roofline)->Apply(realify_bench::complex_mul_sizes);

}  // namespace
