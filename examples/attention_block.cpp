// The attention half of a Llama transformer block (Meta's model.py:
// TransformerBlock's `h = x + attention(attention_norm(x), freqs_cis, mask)`)
// written against realify's graph builder, lowered once, and checked against
// a reference written with double loops and std::complex for RoPE.
//
//   RMSNorm                  graph::rms_norm(x, {dim}, weight, eps): Llama's RMSNorm, a row at a time
//   q, k, v projections      nn.Linear: graph::matmul(h, graph::t(w)) of real tensors (the table's real GEMM
//                            reads w through its strides: t is a view, no weight is copied)
//   RoPE                     Meta's complex form: view_as_complex · freqs_cis, view_as_real
//   GQA head repeat          Meta's repeat_kv: x[:, :, :, None, :].expand(…, n_rep, …).reshape(…)
//                            (unsqueeze and expand are views, the reshape one copy, as in PyTorch)
//   head moves               .transpose(1, 2) of the real heads: views, read in place by einsum and matmul
//   scores                   graph::einsum("bhqd,bhkd->bhqk", q, k) / sqrt(head_dim) + causal mask (one fused loop)
//   softmax                  graph::softmax(scores, -1): numerically stable, a row at a time
//   attention · v, wo        graph::matmul; the heads merged by .transpose(1, 2).reshape(…); the residual add
//
// Every step is a graph op — no graph break (explain() lists none). Small
// shapes: batch 1, seq 8, dim 64, 4 query heads, 2 key/value heads,
// head_dim 16. Prints explain(); exits non-zero on a mismatch.
#include <cmath>
#include <complex>
#include <cstdio>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xbuilder.hpp>

#include "realify/graph.hpp"

namespace graph = realify::graph;

namespace {

constexpr std::size_t seq = 8, dim = 64, n_heads = 4, n_kv_heads = 2, head_dim = dim / n_heads, n_rep = n_heads / n_kv_heads;
constexpr float norm_eps = 1e-5f;

// Meta's repeat_kv: (1, seq, kv_heads, head_dim) -> (1, seq, heads, head_dim),
// query head h reading key/value head h / n_rep.
template <class T>
auto repeat_kv(const T& t) {
    constexpr auto rep = static_cast<std::ptrdiff_t>(n_rep);
    auto expanded = graph::expand(graph::unsqueeze(t, 3), {-1, -1, -1, rep, -1});
    return graph::reshape(expanded, {graph::same(0), graph::same(1), std::ptrdiff_t(n_heads), std::ptrdiff_t(head_dim)});
}

// The block as a graph: inputs x (1, seq, dim), the norm weight (dim), the
// projections as nn.Linear weights (out, in), freqs_cis (seq, head_dim/2)
// complex, the causal mask (seq, seq).
template <class X, class N, class W, class F, class M>
auto attention_block(const X& x, const N& norm_weight, const W& wq, const W& wk, const W& wv, const W& wo,
                     const F& freqs_cis, const M& mask) {
    auto linear = [](const auto& in, const W& weight) { return graph::matmul(in, graph::t(weight)); };
    auto h = graph::rms_norm(x, {std::ptrdiff_t(dim)}, norm_weight, norm_eps);  // RMSNorm.forward
    auto xq = graph::view(linear(h, wq), {1, graph::same(1), std::ptrdiff_t(n_heads), std::ptrdiff_t(head_dim)});
    auto xk = graph::view(linear(h, wk), {1, graph::same(1), std::ptrdiff_t(n_kv_heads), std::ptrdiff_t(head_dim)});
    auto xv = graph::view(linear(h, wv), {1, graph::same(1), std::ptrdiff_t(n_kv_heads), std::ptrdiff_t(head_dim)});

    // apply_rotary_emb, Meta's complex form
    const graph::dim_list pairs = {graph::same(0), graph::same(1), graph::same(2), -1, 2};
    auto freqs = graph::view(freqs_cis, {1, graph::same(0), 1, graph::same(1)});
    auto q_rot = graph::flatten(graph::view_as_real(graph::view_as_complex(graph::reshape(xq, pairs)) * freqs), 3);
    auto k_rot = graph::flatten(graph::view_as_real(graph::view_as_complex(graph::reshape(xk, pairs)) * freqs), 3);

    auto q = graph::transpose(q_rot, 1, 2);                // (1, heads, seq, head_dim)
    auto keys = graph::transpose(repeat_kv(k_rot), 1, 2);  // (1, heads, seq, head_dim)
    auto values = graph::transpose(repeat_kv(xv), 1, 2);   // (1, heads, seq, head_dim)

    // torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(head_dim) + mask
    auto scores = graph::einsum("bhqd,bhkd->bhqk", q, keys) * (1.0f / std::sqrt(float(head_dim))) + mask;
    auto attention = graph::softmax(scores, -1);
    // output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
    auto output = graph::reshape(graph::transpose(graph::matmul(attention, values), 1, 2), {1, graph::same(1), -1});
    return x + linear(output, wo);
}

// ---- the reference: double loops, std::complex for RoPE --------------------------------

using matrix = std::vector<double>;  // row-major

matrix linear(const matrix& in, std::size_t rows, std::size_t in_features, const xt::xarray<float>& weight) {
    const std::size_t out_features = weight.shape()[0];
    matrix out(rows * out_features, 0.0);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t o = 0; o < out_features; ++o) {
            double s = 0;
            for (std::size_t i = 0; i < in_features; ++i) s += in[r * in_features + i] * double(weight(o, i));
            out[r * out_features + o] = s;
        }
    return out;
}

void rope(matrix& t, std::size_t heads, const xt::xarray<std::complex<float>>& freqs_cis) {
    for (std::size_t s = 0; s < seq; ++s)
        for (std::size_t h = 0; h < heads; ++h)
            for (std::size_t p = 0; p < head_dim / 2; ++p) {
                double* pair = &t[(s * heads + h) * head_dim + 2 * p];
                const std::complex<double> z = std::complex<double>(pair[0], pair[1]) * std::complex<double>(freqs_cis(s, p));
                pair[0] = z.real();
                pair[1] = z.imag();
            }
}

xt::xarray<double> reference(const xt::xarray<float>& x, const xt::xarray<float>& norm_weight, const xt::xarray<float>& wq,
                             const xt::xarray<float>& wk, const xt::xarray<float>& wv, const xt::xarray<float>& wo,
                             const xt::xarray<std::complex<float>>& freqs_cis, const xt::xarray<float>& mask) {
    matrix h(seq * dim);
    for (std::size_t s = 0; s < seq; ++s) {
        double ms = 0;
        for (std::size_t i = 0; i < dim; ++i) ms += double(x(0, s, i)) * double(x(0, s, i));
        ms /= double(dim);
        for (std::size_t i = 0; i < dim; ++i) h[s * dim + i] = double(x(0, s, i)) / std::sqrt(ms + norm_eps) * double(norm_weight(i));
    }
    matrix q = linear(h, seq, dim, wq), k = linear(h, seq, dim, wk), v = linear(h, seq, dim, wv);
    rope(q, n_heads, freqs_cis);
    rope(k, n_kv_heads, freqs_cis);
    matrix attended(seq * dim, 0.0);  // (seq, heads, head_dim)
    for (std::size_t hd = 0; hd < n_heads; ++hd) {
        const std::size_t kv = hd / n_rep;  // repeat_kv: query head hd reads key/value head hd / n_rep
        for (std::size_t i = 0; i < seq; ++i) {
            std::vector<double> p(seq);
            double max = -std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < seq; ++j) {
                double s = 0;
                for (std::size_t d = 0; d < head_dim; ++d)
                    s += q[(i * n_heads + hd) * head_dim + d] * k[(j * n_kv_heads + kv) * head_dim + d];
                p[j] = s / std::sqrt(double(head_dim)) + double(mask(i, j));
                max = std::max(max, p[j]);
            }
            double sum = 0;
            for (double& e : p) sum += (e = std::exp(e - max));
            for (std::size_t d = 0; d < head_dim; ++d) {
                double o = 0;
                for (std::size_t j = 0; j < seq; ++j) o += p[j] / sum * v[(j * n_kv_heads + kv) * head_dim + d];
                attended[(i * n_heads + hd) * head_dim + d] = o;
            }
        }
    }
    const matrix projected = linear(attended, seq, dim, wo);
    xt::xarray<double> out = xt::zeros<double>({std::size_t(1), seq, dim});
    for (std::size_t s = 0; s < seq; ++s)
        for (std::size_t i = 0; i < dim; ++i) out(0, s, i) = double(x(0, s, i)) + projected[s * dim + i];
    return out;
}

xt::xarray<float> random(std::vector<std::size_t> shape, std::mt19937& rng, float scale) {
    std::normal_distribution<float> d(0.0f, scale);
    xt::xarray<float> a = xt::zeros<float>(shape);
    for (float& e : a) e = d(rng);
    return a;
}

}  // namespace

int main() {
    std::mt19937 rng(2024);
    const xt::xarray<float> x = random({1, seq, dim}, rng, 1.0f);
    const xt::xarray<float> norm_weight = 1.0f + random({dim}, rng, 0.1f);
    const float w_scale = 1.0f / std::sqrt(float(dim));
    const xt::xarray<float> wq = random({n_heads * head_dim, dim}, rng, w_scale);
    const xt::xarray<float> wk = random({n_kv_heads * head_dim, dim}, rng, w_scale);
    const xt::xarray<float> wv = random({n_kv_heads * head_dim, dim}, rng, w_scale);
    const xt::xarray<float> wo = random({dim, n_heads * head_dim}, rng, w_scale);
    // precompute_freqs_cis(head_dim, seq, theta = 10000): polar(1, t · θ^(−2i/head_dim))
    xt::xarray<std::complex<float>> freqs_cis = xt::zeros<std::complex<float>>({seq, head_dim / 2});
    for (std::size_t t = 0; t < seq; ++t)
        for (std::size_t i = 0; i < head_dim / 2; ++i)
            freqs_cis(t, i) = std::polar(1.0f, float(t) * std::pow(10000.0f, -float(2 * i) / float(head_dim)));
    // the causal mask: −inf above the diagonal
    xt::xarray<float> mask = xt::zeros<float>({seq, seq});
    for (std::size_t i = 0; i < seq; ++i)
        for (std::size_t j = i + 1; j < seq; ++j) mask(i, j) = -std::numeric_limits<float>::infinity();

    // inputs are passed to the program in creation order: one statement each
    auto in_x = graph::input<float>("x");
    auto in_norm = graph::input<float>("attention_norm.weight");
    auto in_wq = graph::input<float>("wq");
    auto in_wk = graph::input<float>("wk");
    auto in_wv = graph::input<float>("wv");
    auto in_wo = graph::input<float>("wo");
    auto in_freqs = graph::input<std::complex<float>>("freqs_cis");
    auto in_mask = graph::input<float>("mask");
    auto block = attention_block(in_x, in_norm, in_wq, in_wk, in_wv, in_wo, in_freqs, in_mask);
    auto program = graph::lower(block);
    std::cout << graph::explain(program);
    const bool no_break = graph::coverage(program).n_tensor_ops == 0;

    const xt::xarray<double> want = reference(x, norm_weight, wq, wk, wv, wo, freqs_cis, mask);
    const auto got = program(x, norm_weight, wq, wk, wv, wo, freqs_cis, mask);
    double worst = want.size() == got.size() ? 0.0 : INFINITY;
    for (std::size_t i = 0; i < got.size() && i < want.size(); ++i)
        worst = std::max(worst, std::abs(double(got.data()[i]) - want.data()[i]) / (1.0 + std::abs(want.data()[i])));
    // float32 through norm, three products of length 64 and 16, a softmax: ~1e-6 relative
    const bool ok = worst <= 1e-5;
    std::printf("max relative |Δ| vs the double reference: %.3g\n", worst);

    // out= in place over x, as an inference engine updates its residual stream
    xt::xarray<float> residual = x;
    program(graph::out(residual), residual, norm_weight, wq, wk, wv, wo, freqs_cis, mask);
    double worst_in_place = 0;
    for (std::size_t i = 0; i < residual.size(); ++i)
        worst_in_place = std::max(worst_in_place, std::abs(double(residual.data()[i]) - want.data()[i]) / (1.0 + std::abs(want.data()[i])));
    std::printf("in place over x: max relative |Δ| %.3g\n", worst_in_place);
    const bool all = ok && worst_in_place <= 1e-5 && no_break;
    std::cout << (all ? "attention_block: OK\n" : "attention_block: MISMATCH\n");
    return all ? 0 : 1;
}
