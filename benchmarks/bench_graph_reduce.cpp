// A reduction fed by a fused elementwise region: sum(|a·b|·exp(p)), a and b
// complex<float>, p float, 2^20 elements, one thread.
//
//   graph_fused     graph::lower(graph::sum(graph::abs(a * b) * graph::exp(p))):
//                   the loop's blocks reduced as they are made, no temporary
//   graph_unfused   the same program with the loop's result also an output
//                   (fusion prevented): the result made, then summed
//   eager           the four eager calls and the sum, each allocating its result
//   eager_out       the same calls into buffers allocated once (out=)
//
// Goal: graph_fused ≤ 0.8 × eager. Run with
// --benchmark_enable_random_interleaving=true --benchmark_repetitions=N and
// compare medians within one run.
#include <complex>
#include <cstddef>
#include <random>

#include <benchmark/benchmark.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/eager.hpp"
#include "realify/graph.hpp"
#include "realify/threads.hpp"

namespace graph = realify::graph;

namespace {

using C = std::complex<float>;
constexpr std::size_t n = std::size_t{1} << 20;

struct operands {
    xt::xtensor<C, 1> a, b, ab;
    xt::xtensor<float, 1> p, magnitude, e, terms;
    operands()
        : a(xt::xtensor<C, 1>::from_shape({n})), b(xt::xtensor<C, 1>::from_shape({n})), ab(xt::xtensor<C, 1>::from_shape({n})),
          p(xt::xtensor<float, 1>::from_shape({n})), magnitude(xt::xtensor<float, 1>::from_shape({n})),
          e(xt::xtensor<float, 1>::from_shape({n})), terms(xt::xtensor<float, 1>::from_shape({n})) {
        std::mt19937 gen(7);
        std::uniform_real_distribution<float> u(-1, 1);
        for (auto& v : a) v = C(u(gen), u(gen));
        for (auto& v : b) v = C(u(gen), u(gen));
        for (auto& v : p) v = u(gen);
    }
};

operands& shared() {
    static operands d;
    return d;
}

auto expression() {
    auto a = graph::input<C>("a");
    auto b = graph::input<C>("b");
    auto p = graph::input<float>("p");
    return graph::abs(a * b) * graph::exp(p);
}

void graph_fused(benchmark::State& state) {
    realify::set_num_threads(1);
    auto& d = shared();
    const auto program = graph::lower(graph::sum(expression()));
    for (auto _ : state) benchmark::DoNotOptimize(program(d.a, d.b, d.p)());
}

void graph_unfused(benchmark::State& state) {
    realify::set_num_threads(1);
    auto& d = shared();
    const auto e = expression();
    const auto program = graph::lower(graph::sum(e), e);
    for (auto _ : state) benchmark::DoNotOptimize(std::get<0>(program(d.a, d.b, d.p))());
}

void eager(benchmark::State& state) {
    realify::set_num_threads(1);
    auto& d = shared();
    for (auto _ : state) {
        const auto terms = realify::mul(realify::abs(realify::mul(d.a, d.b)), realify::exp(d.p));
        benchmark::DoNotOptimize(realify::sum(terms)());
    }
}

void eager_out(benchmark::State& state) {
    realify::set_num_threads(1);
    auto& d = shared();
    for (auto _ : state) {
        realify::mul(d.a, d.b, realify::out(d.ab));
        realify::abs(d.ab, realify::out(d.magnitude));
        realify::exp(d.p, realify::out(d.e));
        realify::mul(d.magnitude, d.e, realify::out(d.terms));
        benchmark::DoNotOptimize(realify::sum(d.terms)());
    }
}

}  // namespace

BENCHMARK(graph_fused)->Unit(benchmark::kMicrosecond);
BENCHMARK(graph_unfused)->Unit(benchmark::kMicrosecond);
BENCHMARK(eager)->Unit(benchmark::kMicrosecond);
BENCHMARK(eager_out)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
