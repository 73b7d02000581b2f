// Where the compile cost of a lowered graph goes, for tools/compile_cost.py
// --stages: Llama's apply_rotary_emb (as examples/graph_rope.cpp writes it)
// taken one stage further by each value of REALIFY_STAGE, so the difference
// of two stages' counts is what that stage costs:
//   0  realify/graph.hpp included, nothing used
//   1  the graph built (its nodes)
//   2  … and lowered (graph::lower)
//   3  … and run: new tensors, out= buffers, explain()
//   4  … and a second graph of other node types (freqs_cis as a constant)
#include <complex>
#include <cstddef>
#include <iostream>
#include <utility>

#include <xtensor/xtensor.hpp>

#include "realify/graph.hpp"

#ifndef REALIFY_STAGE
#define REALIFY_STAGE 4
#endif

namespace graph = realify::graph;

template <class Q, class K, class F>
auto apply_rotary_emb(const Q& xq, const K& xk, const F& freqs_cis) {
    const graph::dim_list pairs = {graph::same(0), graph::same(1), graph::same(2), -1, 2};
    auto xq_ = graph::view_as_complex(graph::reshape(graph::to_float(xq), pairs));
    auto xk_ = graph::view_as_complex(graph::reshape(graph::to_float(xk), pairs));
    auto freqs = graph::view(freqs_cis, {1, graph::same(0), 1, graph::same(1)});
    auto xq_out = graph::flatten(graph::view_as_real(xq_ * freqs), 3);
    auto xk_out = graph::flatten(graph::view_as_real(xk_ * freqs), 3);
    return std::make_pair(graph::type_as(xq_out, xq), graph::type_as(xk_out, xk));
}

/// One graph through the stages; freqs_cis a run-time input, or a constant.
template <bool Constant>
std::size_t stage(const xt::xtensor<std::complex<float>, 2>& freqs_cis) {
    std::size_t total = 0;
    auto q = graph::input<xt::xtensor<float, 4>>("xq");
    auto k = graph::input<xt::xtensor<float, 4>>("xk");
    auto freqs = [&] {
        if constexpr (Constant) return graph::constant(freqs_cis);
        else return graph::input<xt::xtensor<std::complex<float>, 2>>("freqs_cis");
    }();
    auto [q_out, k_out] = apply_rotary_emb(q, k, freqs);
    total += q_out.id + k_out.id;
#if REALIFY_STAGE >= 2
    auto program = graph::lower(q_out, k_out);
    total += program.ir().nodes.size();
#endif
#if REALIFY_STAGE >= 3
    xt::xtensor<float, 4> xq = xt::ones<float>({1, 4, 2, 8}), xk = xt::ones<float>({1, 4, 1, 8});
    const auto run = [&](auto&&... buffers) {
        if constexpr (Constant) return program(buffers..., xq, xk);
        else return program(buffers..., xq, xk, freqs_cis);
    };
    auto [got_q, got_k] = run();
    run(graph::out(xq, xk));
    std::cout << graph::explain(program);
    total += got_q.size() + got_k.size();
#endif
    return total;
}

int main() {
    std::size_t total = 0;
#if REALIFY_STAGE >= 1
    const xt::xtensor<std::complex<float>, 2> freqs_cis = xt::ones<std::complex<float>>({4, 4});
    total += stage<false>(freqs_cis);
#endif
#if REALIFY_STAGE >= 4
    total += stage<true>(freqs_cis);
#endif
    return total > 0 ? 0 : 1;
}
