// Meta's Llama apply_rotary_emb lowered through realify::graph, against the
// direct RoPE kernel (realify::rope::apply_rotary_emb, xsimd, run-time
// dispatched) and a plain std::complex loop. Llama-3-8B prefill shape: batch
// 1, seq 512, 32 query heads, 8 key heads, head_dim 128, float.
//
// Goal: the graph within 1.10× of the direct kernel. All three
// write into caller buffers; the graph and the direct kernel also run in
// place (compare in place with in place).
#include <complex>
#include <random>

#include <benchmark/benchmark.h>
#include <xtensor/xtensor.hpp>

#include "realify/graph.hpp"
#include "realify/rope.hpp"

namespace graph = realify::graph;

namespace {

constexpr std::size_t batch = 1, seq = 512, q_heads = 32, k_heads = 8, head_dim = 128;

struct data {
    xt::xtensor<float, 4> xq = xt::xtensor<float, 4>::from_shape({batch, seq, q_heads, head_dim});
    xt::xtensor<float, 4> xk = xt::xtensor<float, 4>::from_shape({batch, seq, k_heads, head_dim});
    xt::xtensor<std::complex<float>, 2> freqs = xt::xtensor<std::complex<float>, 2>::from_shape({seq, head_dim / 2});
    xt::xtensor<float, 4> out_q = xt::xtensor<float, 4>::from_shape({batch, seq, q_heads, head_dim});
    xt::xtensor<float, 4> out_k = xt::xtensor<float, 4>::from_shape({batch, seq, k_heads, head_dim});
    data() {
        std::mt19937 gen(7);
        std::uniform_real_distribution<float> u(-1, 1);
        for (auto& x : xq) x = u(gen);
        for (auto& x : xk) x = u(gen);
        for (std::size_t p = 0; p < seq; ++p)
            for (std::size_t j = 0; j < head_dim / 2; ++j)
                freqs(p, j) = std::polar(1.0f, static_cast<float>(p) * std::pow(500000.0f, -2.0f * j / head_dim));
    }
};
data& shared() {
    static data d;
    return d;
}

// Meta's apply_rotary_emb against the builder (see examples/graph_rope.cpp)
auto rope_program() {
    auto q = graph::input<xt::xtensor<float, 4>>("xq");
    auto k = graph::input<xt::xtensor<float, 4>>("xk");
    auto f = graph::input<xt::xtensor<std::complex<float>, 2>>("freqs_cis");
    const graph::dim_list pairs{graph::same(0), graph::same(1), graph::same(2), -1, 2};
    auto fb = graph::view(f, {1, graph::same(0), 1, graph::same(1)});
    auto q_out = graph::type_as(graph::flatten(graph::view_as_real(graph::view_as_complex(graph::reshape(graph::to_float(q), pairs)) * fb), 3), q);
    auto k_out = graph::type_as(graph::flatten(graph::view_as_real(graph::view_as_complex(graph::reshape(graph::to_float(k), pairs)) * fb), 3), k);
    return graph::lower(q_out, k_out);
}

void set_bytes(benchmark::State& state) {
    // read xq, xk, freqs; write out_q, out_k
    const double bytes = 2.0 * (batch * seq * (q_heads + k_heads) * head_dim * sizeof(float)) +
                         static_cast<double>(seq * head_dim / 2 * sizeof(std::complex<float>));
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}

void graph_lowered(benchmark::State& state) {
    auto& d = shared();
    const auto program = rope_program();
    for (auto _ : state) {
        program(graph::out(d.out_q, d.out_k), d.xq, d.xk, d.freqs);
        benchmark::DoNotOptimize(d.out_q.data());
        benchmark::DoNotOptimize(d.out_k.data());
    }
    set_bytes(state);
}
BENCHMARK(graph_lowered)->Unit(benchmark::kMicrosecond);

void graph_lowered_new_tensors(benchmark::State& state) {
    auto& d = shared();
    const auto program = rope_program();
    for (auto _ : state) {
        auto [q, k] = program(d.xq, d.xk, d.freqs);  // allocates both results, as PyTorch does
        benchmark::DoNotOptimize(q.data());
        benchmark::DoNotOptimize(k.data());
    }
    set_bytes(state);
}
BENCHMARK(graph_lowered_new_tensors)->Unit(benchmark::kMicrosecond);

void graph_lowered_in_place(benchmark::State& state) {
    auto& d = shared();
    const auto program = rope_program();
    xt::xtensor<float, 4> q = d.xq, k = d.xk;
    for (auto _ : state) {
        program(graph::out(q, k), q, k, d.freqs);  // values drift (rotations compose): timing only
        benchmark::DoNotOptimize(q.data());
    }
    set_bytes(state);
}
BENCHMARK(graph_lowered_in_place)->Unit(benchmark::kMicrosecond);

void direct_rope_kernel(benchmark::State& state) {
    auto& d = shared();
    for (auto _ : state) {
        realify::rope::apply_rotary_emb(d.xq, d.xk, d.freqs, 0, d.out_q, d.out_k);
        benchmark::DoNotOptimize(d.out_q.data());
        benchmark::DoNotOptimize(d.out_k.data());
    }
    set_bytes(state);
}
BENCHMARK(direct_rope_kernel)->Unit(benchmark::kMicrosecond);

void direct_rope_kernel_in_place(benchmark::State& state) {
    auto& d = shared();
    xt::xtensor<float, 4> q = d.xq, k = d.xk;
    for (auto _ : state) {
        realify::rope::apply_rotary_emb(q, k, d.freqs, 0, q, k);  // values drift: timing only
        benchmark::DoNotOptimize(q.data());
    }
    set_bytes(state);
}
BENCHMARK(direct_rope_kernel_in_place)->Unit(benchmark::kMicrosecond);

void std_complex_loop(benchmark::State& state) {
    auto& d = shared();
    const std::size_t half = head_dim / 2;
    auto rotate = [&](const float* x, float* out, std::size_t heads) {
        const auto* xc = reinterpret_cast<const std::complex<float>*>(x);
        auto* oc = reinterpret_cast<std::complex<float>*>(out);
        for (std::size_t b = 0; b < batch; ++b)
            for (std::size_t s = 0; s < seq; ++s)
                for (std::size_t h = 0; h < heads; ++h) {
                    const std::size_t row = ((b * seq + s) * heads + h) * half;
                    for (std::size_t j = 0; j < half; ++j) oc[row + j] = xc[row + j] * d.freqs(s, j);
                }
    };
    for (auto _ : state) {
        rotate(d.xq.data(), d.out_q.data(), q_heads);
        rotate(d.xk.data(), d.out_k.data(), k_heads);
        benchmark::DoNotOptimize(d.out_q.data());
        benchmark::DoNotOptimize(d.out_k.data());
    }
    set_bytes(state);
}
BENCHMARK(std_complex_loop)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
