// softmax, log_softmax, layer_norm and rms_norm over the last dim of a
// (rows, 4096) float tensor, and the activations gelu / sigmoid on it, in one
// run. Every benchmark is named rows/<op>/<rows>x<cols>/<implementation>:
//
//   realify_out   the eager op into a preallocated buffer (rows in L1, the row
//                 kernels of the machine's instruction set)
//   graph_out     the same op as a graph node, lowered once, called with out=
//   xtensor       the composite a user wrote as a graph::tensor_op before these
//                 were graph ops (examples/attention_block.cpp): xtensor's amax,
//                 exp, sum and division (softmax), mean of squares (RMSNorm);
//                 evaluated into fresh xarrays
//
// PyTorch's CPU kernels, measured against realify_out in one process, are in
// tools/rows_vs_torch.py (PyTorch is not a C++ dependency).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <string>

#include <xtensor/xarray.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xsort.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/eager.hpp"
#include "realify/graph.hpp"

namespace {

namespace graph = realify::graph;

constexpr std::size_t cols = 4096;

struct data {
    xt::xtensor<float, 2> x, out;
    xt::xtensor<float, 1> w, b;
    explicit data(std::size_t rows) {
        std::mt19937 rng(7);
        std::normal_distribution<float> n(0.0f, 2.0f);
        x = xt::xtensor<float, 2>::from_shape({rows, cols});
        for (float& v : x) v = n(rng);
        out = x;
        w = xt::xtensor<float, 1>::from_shape({cols});
        b = w;
        for (std::size_t i = 0; i < cols; ++i) {
            w(i) = 1.0f + 0.01f * float(i % 7);
            b(i) = 0.001f * float(i % 5);
        }
    }
};

void set_counters(benchmark::State& state, std::size_t rows) {
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows * cols));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * rows * cols * 2 * sizeof(float)));
}

template <class F>
void run(benchmark::State& state, std::size_t rows, F f) {
    data d(rows);
    for (auto _ : state) {
        f(d);
        benchmark::DoNotOptimize(d.out.data());
        benchmark::ClobberMemory();
    }
    set_counters(state, rows);
}

auto xtensor_softmax(const xt::xtensor<float, 2>& x) {
    const xt::xarray<float> max = xt::amax(x, {1});
    const xt::xarray<float> e = xt::exp(x - xt::expand_dims(max, 1));
    const xt::xarray<float> sum = xt::sum(e, {1});
    return xt::xarray<float>(e / xt::expand_dims(sum, 1));
}
auto xtensor_rms_norm(const xt::xtensor<float, 2>& x, const xt::xtensor<float, 1>& w) {
    const xt::xarray<float> mean_square = xt::mean(xt::square(x), {1});
    return xt::xarray<float>(x / xt::sqrt(xt::expand_dims(mean_square, 1) + 1e-6f) * w);
}

void register_all() {
    for (std::size_t rows : {std::size_t(8), std::size_t(64)}) {
        const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
        auto add = [&](const std::string& name, auto f) {
            benchmark::RegisterBenchmark(("rows/" + name + "/" + shape).c_str(), [rows, f](benchmark::State& s) { run(s, rows, f); })
                ->Unit(benchmark::kMicrosecond);
        };
        add("softmax/realify_out", [](data& d) { realify::softmax(d.x, -1, realify::out(d.out)); });
        add("softmax/graph_out", [](data& d) {
            static auto program = [] {
                auto x = graph::input<float>("x");
                return graph::lower(graph::softmax(x, -1));
            }();
            program(graph::out(d.out), d.x);
        });
        add("softmax/xtensor", [](data& d) { d.out = xtensor_softmax(d.x); });
        add("log_softmax/realify_out", [](data& d) { realify::log_softmax(d.x, -1, realify::out(d.out)); });
        add("layer_norm/realify_out", [](data& d) { realify::layer_norm(d.x, {std::ptrdiff_t(cols)}, d.w, d.b, 1e-5, realify::out(d.out)); });
        add("rms_norm/realify_out", [](data& d) { realify::rms_norm(d.x, {std::ptrdiff_t(cols)}, d.w, 1e-6, realify::out(d.out)); });
        add("rms_norm/xtensor", [](data& d) { d.out = xtensor_rms_norm(d.x, d.w); });
        add("gelu/realify_out", [](data& d) { realify::gelu(d.x, realify::out(d.out)); });
        add("gelu_tanh/realify_out", [](data& d) { realify::gelu(d.x, "tanh", realify::out(d.out)); });
        add("sigmoid/realify_out", [](data& d) { realify::sigmoid(d.x, realify::out(d.out)); });
        add("exp/realify_out", [](data& d) { realify::exp(d.x, realify::out(d.out)); });
    }
}

}  // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
