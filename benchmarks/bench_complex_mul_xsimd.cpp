// xsimd 8.1's batch<std::complex<float>>: loads deinterleave into separate
// re/im registers, stores interleave again.
// xsimd 8.1's complex load (deinterleave into uninitialised registers) trips
// GCC 12's -Wmaybe-uninitialized once inlined: third-party code, silenced here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <vector>

#include <xsimd/xsimd.hpp>

#include "bench_complex_mul_common.hpp"

namespace {

void BM_xsimd_batch_complex(benchmark::State& state) {
    using batch = xsimd::batch<std::complex<float>>;
    constexpr std::size_t width = batch::size;
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto a = realify_bench::make_complex(n, 1);
    const auto b = realify_bench::make_complex(n, 2);
    realify_bench::complex_vector c(n);
    for (auto _ : state) {
        std::size_t i = 0;
        for (; i + width <= n; i += width) {
            const batch x = batch::load_unaligned(a.data() + i);
            const batch y = batch::load_unaligned(b.data() + i);
            (x * y).store_unaligned(c.data() + i);
        }
        for (; i < n; ++i) c[i] = a[i] * b[i];
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_complex_mul_counters(state, n);
}
BENCHMARK(BM_xsimd_batch_complex)->Apply(realify_bench::complex_mul_sizes);

}  // namespace
