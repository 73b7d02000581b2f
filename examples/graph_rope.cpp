// Meta's Llama apply_rotary_emb (the "Rotary Embedding Pattern"
// of Torch-TensorRT's complex lowering) written against realify's graph
// builder, lowered with realify::graph::lower, and checked against PyTorch's
// output (tests/golden/graph, made by tools/gen_graph_golden.py) at a
// Llama-like shape: batch 1, seq 16, 8 query heads, 2 key heads, head_dim 128.
//
// Two forms, as Torch-TensorRT's lowering meets them: freqs_cis as a
// run-time input (the distributed case, where torch.compile hoists it to a
// graph input) and as a constant buffer (get_attr, unpacked to (…,2) once at
// lower time); plus the in-place form.
//
// Usage: graph_rope [golden_dir]. Prints explain() for both programs; exits
// non-zero on any mismatch.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "realify/graph.hpp"

namespace graph = realify::graph;

namespace {

constexpr std::size_t batch = 1, seq = 16, q_heads = 8, k_heads = 2, head_dim = 128;

template <std::size_t N>
xt::xtensor<float, N> read_f32(const std::string& path, const std::array<std::size_t, N>& shape) {
    xt::xtensor<float, N> t = xt::xtensor<float, N>::from_shape(shape);
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(t.data()), static_cast<std::streamsize>(t.size() * sizeof(float)));
    if (!in) throw std::runtime_error("cannot read " + path);
    return t;
}

// Meta's reshape_for_broadcast: freqs_cis (seq, head_dim/2) viewed as
// [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)].
template <class F>
auto reshape_for_broadcast(F freqs_cis) {
    return graph::view(std::move(freqs_cis), {1, graph::same(0), 1, graph::same(1)});
}

// def apply_rotary_emb(xq, xk, freqs_cis):
//     xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
//     xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
//     freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
//     xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
//     xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
//     return xq_out.type_as(xq), xk_out.type_as(xk)
template <class Q, class K, class F>
auto apply_rotary_emb(const Q& xq, const K& xk, const F& freqs_cis) {
    const graph::dim_list pairs = {graph::same(0), graph::same(1), graph::same(2), -1, 2};
    auto xq_ = graph::view_as_complex(graph::reshape(graph::to_float(xq), pairs));
    auto xk_ = graph::view_as_complex(graph::reshape(graph::to_float(xk), pairs));
    auto freqs = reshape_for_broadcast(freqs_cis);
    auto xq_out = graph::flatten(graph::view_as_real(xq_ * freqs), 3);
    auto xk_out = graph::flatten(graph::view_as_real(xk_ * freqs), 3);
    return std::make_pair(graph::type_as(xq_out, xq), graph::type_as(xk_out, xk));
}

template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
    if (a.size() != b.size()) return INFINITY;
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a.data()[i]) - double(b.data()[i])));
    return worst;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : REALIFY_GRAPH_GOLDEN_DIR;
    const auto xq = read_f32<4>(dir + "/rope_xq.f32", {batch, seq, q_heads, head_dim});
    const auto xk = read_f32<4>(dir + "/rope_xk.f32", {batch, seq, k_heads, head_dim});
    const auto freqs_pairs = read_f32<3>(dir + "/rope_freqs.f32", {seq, head_dim / 2, 2});
    const auto want_q = read_f32<4>(dir + "/rope_out_q.f32", {batch, seq, q_heads, head_dim});
    const auto want_k = read_f32<4>(dir + "/rope_out_k.f32", {batch, seq, k_heads, head_dim});
    xt::xtensor<std::complex<float>, 2> freqs_cis = realify::view_as_complex(freqs_pairs);

    // Tolerance: one complex multiply in float32 (PyTorch's and realify's may
    // differ by an FMA), on values of magnitude ~4.
    const double tolerance = 2e-6;
    bool ok = true;

    {  // freqs_cis as a run-time input
        auto q = graph::input<xt::xtensor<float, 4>>("xq");
        auto k = graph::input<xt::xtensor<float, 4>>("xk");
        auto f = graph::input<xt::xtensor<std::complex<float>, 2>>("freqs_cis");
        auto [q_out, k_out] = apply_rotary_emb(q, k, f);
        auto program = graph::lower(q_out, k_out);
        std::cout << "== freqs_cis as a run-time input ==\n" << graph::explain(program);
        auto [got_q, got_k] = program(xq, xk, freqs_cis);
        const double dq = max_abs_diff(got_q, want_q), dk = max_abs_diff(got_k, want_k);
        std::printf("max |Δ| vs PyTorch: xq_out %.3g, xk_out %.3g\n", dq, dk);
        ok = ok && dq <= tolerance && dk <= tolerance;

        // in place, as an inference engine would: outputs written over the inputs
        xt::xtensor<float, 4> q_buf = xq, k_buf = xk;
        program(graph::out(q_buf, k_buf), q_buf, k_buf, freqs_cis);
        const double iq = max_abs_diff(q_buf, want_q), ik = max_abs_diff(k_buf, want_k);
        std::printf("in place: max |Δ| xq_out %.3g, xk_out %.3g\n", iq, ik);
        ok = ok && iq <= tolerance && ik <= tolerance;
    }
    {  // freqs_cis as a constant buffer (an FX get_attr)
        auto q = graph::input<xt::xtensor<float, 4>>("xq");
        auto k = graph::input<xt::xtensor<float, 4>>("xk");
        auto f = graph::constant(freqs_cis);
        auto [q_out, k_out] = apply_rotary_emb(q, k, f);
        auto program = graph::lower(q_out, k_out);
        std::cout << "\n== freqs_cis as a constant ==\n" << graph::explain(program);
        auto [got_q, got_k] = program(xq, xk);
        const double dq = max_abs_diff(got_q, want_q), dk = max_abs_diff(got_k, want_k);
        std::printf("max |Δ| vs PyTorch: xq_out %.3g, xk_out %.3g\n", dq, dk);
        ok = ok && dq <= tolerance && dk <= tolerance;
    }
    std::cout << (ok ? "graph_rope: OK\n" : "graph_rope: MISMATCH\n");
    return ok ? 0 : 1;
}
