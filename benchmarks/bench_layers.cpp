// The ops of a decoder layer at TinyLlama's shapes (32 heads of 64, dim 2048):
//
//   attention/<shape>/fused          realify::scaled_dot_product_attention into
//                                    a preallocated buffer (online softmax)
//   attention/<shape>/materialised   what realify had before: einsum q·kᵀ,
//                                    scale and mask, softmax, einsum with v,
//                                    into preallocated buffers (L×S scores in
//                                    memory)
//   attention/<shape>/graph          the fused op as a graph node, out=
//   linear/<shape>/linear            realify::linear(x, w) (w read through its strides)
//   linear/<shape>/matmul_pretransposed
//                                    realify::matmul(x, wᵀ held in memory as (in, out))
//   linear/<shape>/graph_linear, graph_matmul
//                                    the same two as graph programs, out=
//
// shapes: prefill (L = S = 256, causal) and decode (L = 1 against S = 256
// cached keys); linear: 256 tokens and 1 token through a (2048, 2048) weight.
// PyTorch 1.13's explicit formula at the same shapes: tools/attention_vs_torch.py.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <random>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "realify/eager.hpp"
#include "realify/graph.hpp"

namespace {

namespace graph = realify::graph;

constexpr std::size_t heads = 32, head_dim = 64, keys = 256, model_dim = 2048;

xt::xtensor<float, 4> random4(std::size_t a, std::size_t b, std::size_t c, std::size_t d, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 1.0f);
    xt::xtensor<float, 4> x = xt::xtensor<float, 4>::from_shape({a, b, c, d});
    for (float& v : x) v = n(rng);
    return x;
}

struct attention_data {
    xt::xtensor<float, 4> q, k, v, out, scores;
    xt::xtensor<float, 2> mask;
    bool causal;
    explicit attention_data(std::size_t L)
        : q(random4(1, heads, L, head_dim, 1)), k(random4(1, heads, keys, head_dim, 2)), v(random4(1, heads, keys, head_dim, 3)),
          out(xt::zeros<float>({std::size_t{1}, heads, L, head_dim})), scores(xt::zeros<float>({std::size_t{1}, heads, L, keys})),
          mask(xt::zeros<float>({L, keys})), causal(L > 1) {
        // the causal mask of the materialised form, upper-left aligned as is_causal
        for (std::size_t i = 0; i < L; ++i)
            for (std::size_t j = i + 1; causal && j < keys; ++j) mask(i, j) = -std::numeric_limits<float>::infinity();
    }
};

void set_flops(benchmark::State& state, std::size_t L) {
    // multiply-adds of q·kᵀ and p·v (all keys; the causal half is not discounted)
    state.counters["GFLOP/s"] = benchmark::Counter(double(state.iterations()) * 4.0 * heads * L * keys * head_dim,
                                                   benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

void attention_fused(benchmark::State& state) {
    const std::size_t L = static_cast<std::size_t>(state.range(0));
    attention_data d(L);
    for (auto _ : state) {
        realify::scaled_dot_product_attention(d.q, d.k, d.v, std::nullopt, 0.0, d.causal, std::nullopt, false,
                                              realify::out(d.out));
        benchmark::DoNotOptimize(d.out.data());
    }
    set_flops(state, L);
}

void attention_materialised(benchmark::State& state) {
    const std::size_t L = static_cast<std::size_t>(state.range(0));
    attention_data d(L);
    const float scale = 1.0f / std::sqrt(float(head_dim));
    for (auto _ : state) {
        realify::einsum("bhqd,bhkd->bhqk", d.q, d.k, realify::out(d.scores));
        realify::mul(d.scores, scale, realify::out(d.scores));
        realify::add(d.scores, d.mask, realify::out(d.scores));
        realify::softmax(d.scores, -1, realify::out(d.scores));
        realify::einsum("bhqk,bhkd->bhqd", d.scores, d.v, realify::out(d.out));
        benchmark::DoNotOptimize(d.out.data());
    }
    set_flops(state, L);
}

void attention_graph(benchmark::State& state) {
    const std::size_t L = static_cast<std::size_t>(state.range(0));
    attention_data d(L);
    auto q = graph::input<float>("q");
    auto k = graph::input<float>("k");
    auto v = graph::input<float>("v");
    auto prog = graph::lower(graph::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, d.causal));
    for (auto _ : state) {
        prog(graph::out(d.out), d.q, d.k, d.v);
        benchmark::DoNotOptimize(d.out.data());
    }
    set_flops(state, L);
}

struct linear_data {
    xt::xtensor<float, 3> x, out;
    xt::xtensor<float, 2> w, wt;
    explicit linear_data(std::size_t tokens)
        : x(xt::xtensor<float, 3>(xt::view(random4(1, 1, tokens, model_dim, 4), 0))),
          out(xt::zeros<float>({std::size_t{1}, tokens, model_dim})),
          w(xt::xtensor<float, 2>(xt::view(random4(1, 1, model_dim, model_dim, 5), 0, 0))), wt(xt::transpose(w)) {}
};

void set_linear_flops(benchmark::State& state, std::size_t tokens) {
    state.counters["GFLOP/s"] = benchmark::Counter(double(state.iterations()) * 2.0 * tokens * model_dim * model_dim,
                                                   benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

void linear_eager(benchmark::State& state) {
    const std::size_t n = static_cast<std::size_t>(state.range(0));
    linear_data d(n);
    for (auto _ : state) {
        realify::linear(d.x, d.w, std::nullopt, realify::out(d.out));
        benchmark::DoNotOptimize(d.out.data());
    }
    set_linear_flops(state, n);
}

void linear_matmul_pretransposed(benchmark::State& state) {
    const std::size_t n = static_cast<std::size_t>(state.range(0));
    linear_data d(n);
    for (auto _ : state) {
        realify::matmul(d.x, d.wt, realify::out(d.out));
        benchmark::DoNotOptimize(d.out.data());
    }
    set_linear_flops(state, n);
}

void linear_graph(benchmark::State& state) {
    const std::size_t n = static_cast<std::size_t>(state.range(0));
    linear_data d(n);
    auto x = graph::input<float>("x");
    auto w = graph::input<float>("w");
    auto prog = graph::lower(graph::linear(x, w));
    for (auto _ : state) {
        prog(graph::out(d.out), d.x, d.w);
        benchmark::DoNotOptimize(d.out.data());
    }
    set_linear_flops(state, n);
}

void linear_graph_matmul(benchmark::State& state) {
    const std::size_t n = static_cast<std::size_t>(state.range(0));
    linear_data d(n);
    auto x = graph::input<float>("x");
    auto wt = graph::input<float>("wt");
    auto prog = graph::lower(graph::matmul(x, wt));
    for (auto _ : state) {
        prog(graph::out(d.out), d.x, d.wt);
        benchmark::DoNotOptimize(d.out.data());
    }
    set_linear_flops(state, n);
}

}  // namespace

BENCHMARK(attention_fused)->Name("attention/prefill/fused")->Arg(256)->UseRealTime();
BENCHMARK(attention_materialised)->Name("attention/prefill/materialised")->Arg(256)->UseRealTime();
BENCHMARK(attention_graph)->Name("attention/prefill/graph")->Arg(256)->UseRealTime();
BENCHMARK(attention_fused)->Name("attention/decode/fused")->Arg(1)->UseRealTime();
BENCHMARK(attention_materialised)->Name("attention/decode/materialised")->Arg(1)->UseRealTime();
BENCHMARK(attention_graph)->Name("attention/decode/graph")->Arg(1)->UseRealTime();
BENCHMARK(linear_eager)->Name("linear/prefill/linear")->Arg(256)->UseRealTime();
BENCHMARK(linear_matmul_pretransposed)->Name("linear/prefill/matmul_pretransposed")->Arg(256)->UseRealTime();
BENCHMARK(linear_graph)->Name("linear/prefill/graph_linear")->Arg(256)->UseRealTime();
BENCHMARK(linear_graph_matmul)->Name("linear/prefill/graph_matmul")->Arg(256)->UseRealTime();
BENCHMARK(linear_eager)->Name("linear/decode/linear")->Arg(1)->UseRealTime();
BENCHMARK(linear_matmul_pretransposed)->Name("linear/decode/matmul_pretransposed")->Arg(1)->UseRealTime();
BENCHMARK(linear_graph)->Name("linear/decode/graph_linear")->Arg(1)->UseRealTime();
BENCHMARK(linear_graph_matmul)->Name("linear/decode/graph_matmul")->Arg(1)->UseRealTime();

BENCHMARK_MAIN();
