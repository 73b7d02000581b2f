// c = a · b on complex<float>: realify::simd::mul (run-time choice of instruction set, library
// built without -march; and forced onto every level the machine has,
// BM_realify@<level>, bench_isa.hpp) against the same product written with std::complex
// (default flags and -fcx-limited-range), Eigen ArrayXcf, xsimd's
// batch<std::complex<float>>, and a float stream add over the same bytes (the
// memory roofline). Each competitor lives in its own TU compiled with
// -march=native (see benchmarks/CMakeLists.txt); xtensor, which needs
// XTENSOR_USE_XSIMD, is a separate executable (bench_complex_mul_xtensor).
// tools/bench_report.py turns the JSON output into docs/benchmarks.md.
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "bench_complex_mul_common.hpp"
#include "bench_isa.hpp"
#include "realify/simd.hpp"

namespace {

using realify_bench::complex_mul_sizes;

// BM_realify: the level chosen at run time; BM_realify@<level>: forced onto a level.
void BM_realify(benchmark::State& state, std::optional<realify::simd::arch> level) {
    const realify_bench::arch_scope forced(level);
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto a = realify_bench::make_complex(n, 1);
    const auto b = realify_bench::make_complex(n, 2);
    realify_bench::complex_vector c(n);
    state.SetLabel(std::string(realify::simd::active_arch(realify::simd::kernel_family::multiply)));
    for (auto _ : state) {
        realify::simd::mul(a, b, c);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_complex_mul_counters(state, n);
}
const bool realify_registered = [] {
    for (const auto& column : realify_bench::isas()) {
        std::string name = "BM_realify";
        const auto level = column.level;
        benchmark::RegisterBenchmark(name.append(column.suffix).c_str(),
                                     [level](benchmark::State& s) { BM_realify(s, level); })
            ->Apply(complex_mul_sizes);
    }
    return true;
}();

// The store-path sweep behind the default streaming threshold (docs/simd.md):
// the same product with ordinary stores (arg 0) and streaming stores (arg 1).
void BM_realify_store_path(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const bool stream = state.range(1) != 0;
    const auto a = realify_bench::make_complex(n, 1);
    const auto b = realify_bench::make_complex(n, 2);
    realify_bench::complex_vector c(n);
    const std::size_t saved = realify::simd::streaming_threshold();
    realify::simd::set_streaming_threshold(stream ? 0 : std::numeric_limits<std::size_t>::max());
    for (auto _ : state) {
        realify::simd::mul(a, b, c);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify::simd::set_streaming_threshold(saved);
    state.SetLabel(stream ? "streaming" : "ordinary");
    realify_bench::set_complex_mul_counters(state, n);
}
BENCHMARK(BM_realify_store_path)
    ->ArgsProduct({{1 << 14, 1 << 16, 1 << 18, 1 << 19, 1 << 20, 1 << 21, 1 << 22, 1 << 24}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
    realify_bench::record_levels();  // for tools/bench_report.py
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
