// nn.Linear as docs/graph.md and examples/attention_block.cpp write it,
// graph::matmul(x, graph::t(w)) with w of shape (out, in), against the same
// program on the weight transposed beforehand, graph::matmul(x, wt) with wt
// of shape (in, out). graph::t is a strided view: the product reads the
// weight through its strides (realify::simd::real_gemm's column-major
// operand), never a copy of it.
//
// eager_mm_transpose_view is the eager realify::mm on the same strides (the
// GEMM's own cost of a column-major weight, without the graph).
//
// Goal: the view form within 5 % of the pre-transposed one, on one thread,
// float, at 64 × 2048 × 5632 (a Llama MLP projection of 64 tokens) and
// 256 × 2048 × 2048. Both write into a caller buffer (out=); run with
// --benchmark_enable_random_interleaving=true --benchmark_repetitions=N and
// compare medians within one run.
#include <cstddef>
#include <random>
#include <string>

#include <benchmark/benchmark.h>
#include <xtensor/xtensor.hpp>

#include "realify/eager.hpp"
#include "realify/graph.hpp"
#include "realify/simd/gemm.hpp"
#include "realify/threads.hpp"

namespace graph = realify::graph;

namespace {

struct operands {
    xt::xtensor<float, 2> x, w, wt, out;
    operands(std::size_t m, std::size_t k, std::size_t n)
        : x(xt::xtensor<float, 2>::from_shape({m, k})), w(xt::xtensor<float, 2>::from_shape({n, k})),
          wt(xt::xtensor<float, 2>::from_shape({k, n})), out(xt::xtensor<float, 2>::from_shape({m, n})) {
        std::mt19937 gen(11);
        std::uniform_real_distribution<float> u(-1, 1);
        for (auto& v : x) v = u(gen);
        for (auto& v : w) v = u(gen);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < k; ++j) wt(j, i) = w(i, j);
    }
};

operands& shared(std::size_t m) {
    static operands big(64, 2048, 5632), square(256, 2048, 2048);
    return m == 64 ? big : square;
}

/// Times program(out(d.out), d.x, weight) at the sizes of state's arguments, on one thread.
template <class Program>
void run(benchmark::State& state, const Program& program, const xt::xtensor<float, 2> operands::*weight) {
    const auto m = std::size_t(state.range(0)), k = std::size_t(state.range(1)), n = std::size_t(state.range(2));
    realify::set_num_threads(1);
    auto& d = shared(m);
    for (auto _ : state) {
        program(graph::out(d.out), d.x, d.*weight);
        benchmark::DoNotOptimize(d.out.data());
    }
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(m) * double(k) * double(n) * double(state.iterations()) / 1e9,
                                                   benchmark::Counter::kIsRate);
}

/// x · t(w): the weight as nn.Linear holds it, transposed by a view.
void linear_t_view(benchmark::State& state) {
    auto x = graph::input<xt::xtensor<float, 2>>("x");
    auto w = graph::input<xt::xtensor<float, 2>>("w");
    run(state, graph::lower(graph::matmul(x, graph::t(w))), &operands::w);
}
BENCHMARK(linear_t_view)->Args({64, 2048, 5632})->Args({256, 2048, 2048})->Unit(benchmark::kMillisecond);

/// x · wt: the same product on the weight transposed beforehand.
void linear_pre_transposed(benchmark::State& state) {
    auto x = graph::input<xt::xtensor<float, 2>>("x");
    auto wt = graph::input<xt::xtensor<float, 2>>("wt");
    run(state, graph::lower(graph::matmul(x, wt)), &operands::wt);
}
BENCHMARK(linear_pre_transposed)->Args({64, 2048, 5632})->Args({256, 2048, 2048})->Unit(benchmark::kMillisecond);

/// The eager product on the same strides, realify::mm(x, realify::transpose_view(w)):
/// what the GEMM itself costs on the transposed weight, without the graph.
void eager_mm_transpose_view(benchmark::State& state) {
    const auto m = std::size_t(state.range(0)), k = std::size_t(state.range(1)), n = std::size_t(state.range(2));
    realify::set_num_threads(1);
    auto& d = shared(m);
    for (auto _ : state) {
        realify::mm(d.x, realify::transpose_view(d.w), realify::out(d.out));
        benchmark::DoNotOptimize(d.out.data());
    }
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(m) * double(k) * double(n) * double(state.iterations()) / 1e9,
                                                   benchmark::Counter::kIsRate);
}
BENCHMARK(eager_mm_transpose_view)->Args({64, 2048, 5632})->Args({256, 2048, 2048})->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
    benchmark::AddCustomContext("gemm_backend", std::string(realify::simd::gemm_backend()));
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
