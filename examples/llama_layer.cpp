// One Llama decoder layer as one realify::graph program — the structure of
// Meta's open Llama model.py (RMSNorm, attention with a KV cache, rotary
// embeddings in the complex form, grouped-query heads, SwiGLU feed-forward,
// the causal mask of Transformer.forward) written with realify's graph ops:
// graph::linear reads each weight where it lies (never a copy per call),
// graph::rope runs realify's RoPE kernel, Meta's mask is built inside the
// program from graph::full / triu / zeros / hstack at the run-time sizes, and
// scaled_dot_product_attention is one fused pass (online softmax: no
// sequence × sequence scores in memory).
//
//   llama_layer [golden_dir]
//       runs a small layer (dim 64, 4 query heads, 2 key/value heads, batch 2)
//       as a prefill of 7 tokens and a decode step of one token against the
//       cache it filled, and checks both against PyTorch's outputs of the same
//       layer (tests/golden/llama, tools/gen_llama_golden.py); exits non-zero
//       on a mismatch. ctest runs it.
//   llama_layer --bench [--threads T] [--repetitions R]
//       times TinyLlama-1.1B's layer (dim 2048, 32 heads, 4 key/value heads,
//       SwiGLU 5632): a prefill of 256 tokens and a decode step against a
//       256-token cache, in alternating rounds; prints "prefill <seconds>" and
//       "decode <seconds>" (medians). tools/llama_bench.py runs it beside
//       PyTorch on the same threads.
//
// The KV cache: the program takes the cached keys and values of the earlier
// positions (past_k, past_v: (batch, start_pos, kv_heads, head_dim); zero
// positions at the prefill) and returns the new tokens' keys and values
// beside the layer's output; the caller appends them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "realify/graph.hpp"
#include "realify/realify.hpp"
#include "realify/rope/freqs_cis.hpp"
#include "realify/threads.hpp"

namespace graph = realify::graph;

namespace {

struct config {
    std::ptrdiff_t dim, n_heads, n_kv_heads, hidden_dim, max_seq_len;
    double norm_eps = 1e-5, rope_theta = 10000.0;
    std::ptrdiff_t head_dim() const { return dim / n_heads; }
};

constexpr config small_layer{64, 4, 2, 176, 16};             // the goldens' (tools/llama_reference.py: SMALL)
constexpr config tinyllama_layer{2048, 32, 4, 5632, 512};    // TinyLlama-1.1B's (TINYLLAMA)

using matrix = xt::xtensor<float, 2>;
using vector = xt::xtensor<float, 1>;
using tensor3 = xt::xtensor<float, 3>;
using tensor4 = xt::xtensor<float, 4>;

/// nn.Linear weights, (out_features, in_features): the layer computes x · Wᵀ.
struct weights {
    matrix wq, wk, wv, wo, w1, w2, w3;
    vector attention_norm, ffn_norm;
};

/// The layer's program: inputs x (batch, seq, dim), past_k, past_v, freqs_cis
/// (positions, head_dim / 2), the weights, start_pos; outputs the layer's
/// output (batch, seq, dim) and the new tokens' keys and values (batch, seq,
/// kv_heads, head_dim), the keys rotated.
auto lower_layer(const config& c) {
    const auto minus_inf = -std::numeric_limits<double>::infinity();
    auto x = graph::input<float>("x");
    auto past_k = graph::input<float>("past_k");
    auto past_v = graph::input<float>("past_v");
    auto freqs_cis = graph::input<std::complex<float>>("freqs_cis");
    auto wq = graph::input<float>("wq"), wk = graph::input<float>("wk"), wv = graph::input<float>("wv");
    auto wo = graph::input<float>("wo");
    auto w1 = graph::input<float>("w1"), w2 = graph::input<float>("w2"), w3 = graph::input<float>("w3");
    auto attention_norm = graph::input<float>("attention_norm"), ffn_norm = graph::input<float>("ffn_norm");
    auto start_pos = graph::int_input("start_pos");
    auto seqlen = graph::size(x, 1);
    // (batch, seq, heads · head_dim) → (batch, seq, heads, head_dim): a view
    auto split_heads = [](auto t, std::ptrdiff_t heads) {
        return graph::reshape(std::move(t), {graph::same(0), graph::same(1), heads, -1});
    };

    // attention (Meta's Attention.forward)
    auto xn = graph::rms_norm(x, {c.dim}, attention_norm, c.norm_eps);
    auto xq = graph::rope(split_heads(graph::linear(xn, wq), c.n_heads), freqs_cis, start_pos);
    auto xk = graph::rope(split_heads(graph::linear(xn, wk), c.n_kv_heads), freqs_cis, start_pos);
    auto xv = split_heads(graph::linear(xn, wv), c.n_kv_heads);
    auto keys = graph::cat(1, past_k, xk);
    auto values = graph::cat(1, past_v, xv);
    // Transformer.forward's mask: -inf above the diagonal of the new tokens, the cached positions open
    auto mask = graph::hstack(graph::zeros({seqlen, start_pos}), graph::triu(graph::full({seqlen, seqlen}, minus_inf), 1));
    // repeat_kv's grouped-query heads are read in place (enable_gqa), never copied
    auto attention = graph::scaled_dot_product_attention(graph::transpose(xq, 1, 2), graph::transpose(keys, 1, 2),
                                                         graph::transpose(values, 1, 2), mask, 0.0, false, std::nullopt,
                                                         true);
    auto h = x + graph::linear(graph::reshape(graph::transpose(attention, 1, 2), {graph::same(0), graph::same(1), -1}), wo);

    // feed-forward (SwiGLU)
    auto hn = graph::rms_norm(h, {c.dim}, ffn_norm, c.norm_eps);
    auto out = h + graph::linear(graph::silu(graph::linear(hn, w1)) * graph::linear(hn, w3), w2);
    return graph::lower(out, xk, xv);
}

using layer_program = decltype(lower_layer(small_layer));

/// A layer with its cache: the program, the weights, the rotation table, the
/// keys and values of the positions seen so far.
struct layer {
    config c;
    weights w;
    layer_program program = lower_layer(c);
    xt::xtensor<std::complex<float>, 2> freqs_cis =
        realify::rope::precompute_freqs_cis<float>(c.head_dim(), 2 * c.max_seq_len, c.rope_theta);
    tensor4 cache_k = tensor4(), cache_v = tensor4();

    void reset(std::size_t batch) {
        const std::array<std::size_t, 4> empty{batch, 0, std::size_t(c.n_kv_heads), std::size_t(c.head_dim())};
        cache_k = tensor4::from_shape(empty);
        cache_v = tensor4::from_shape(empty);
    }

    /// The layer on x (batch, seq, dim) at position start_pos = the cache's length; extends the cache.
    tensor3 forward(const tensor3& x) {
        const int start_pos = static_cast<int>(cache_k.shape(1));
        auto [out, xk, xv] = program(x, cache_k, cache_v, freqs_cis, w.wq, w.wk, w.wv, w.wo, w.w1, w.w2, w.w3,
                                     w.attention_norm, w.ffn_norm, start_pos);
        cache_k = realify::cat(std::vector<xt::xarray<float>>{cache_k, xk}, 1);
        cache_v = realify::cat(std::vector<xt::xarray<float>>{cache_v, xv}, 1);
        return out;
    }
};

template <std::size_t N>
xt::xtensor<float, N> read_f32(const std::string& path, const std::array<std::size_t, N>& shape) {
    xt::xtensor<float, N> t = xt::xtensor<float, N>::from_shape(shape);
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(t.data()), static_cast<std::streamsize>(t.size() * sizeof(float)));
    if (!in) throw std::runtime_error("llama_layer: cannot read " + path);
    return t;
}

/// max |got − want| ÷ max |want|.
double relative_error(const tensor3& got, const tensor3& want) {
    if (got.shape() != want.shape()) return INFINITY;
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        worst = std::max(worst, std::abs(double(got.data()[i]) - double(want.data()[i])));
        scale = std::max(scale, std::abs(double(want.data()[i])));
    }
    return worst / scale;
}

int check_against_pytorch(const std::string& dir) {
    const config& c = small_layer;
    const auto d = std::size_t(c.dim), q = std::size_t(c.n_heads * c.head_dim()), kv = std::size_t(c.n_kv_heads * c.head_dim()),
               hidden = std::size_t(c.hidden_dim);
    auto matrix_of = [&](const char* name, std::size_t rows, std::size_t cols) {
        return read_f32<2>(dir + "/" + name + ".f32", {rows, cols});
    };
    layer l{c, {matrix_of("wq", q, d), matrix_of("wk", kv, d), matrix_of("wv", kv, d), matrix_of("wo", d, q),
                matrix_of("w1", hidden, d), matrix_of("w2", d, hidden), matrix_of("w3", hidden, d),
                read_f32<1>(dir + "/attention_norm.f32", {d}), read_f32<1>(dir + "/ffn_norm.f32", {d})}};
    const std::size_t batch = 2, prompt = 7;
    l.reset(batch);
    std::cout << graph::explain(l.program) << '\n';

    // float32 throughout, as PyTorch's layer: the sums of 64–176 products and
    // the softmax differ in their order of additions, a few ulp of the outputs
    const double tolerance = 1e-5;
    const double prefill = relative_error(l.forward(read_f32<3>(dir + "/x_prefill.f32", {batch, prompt, d})),
                                          read_f32<3>(dir + "/out_prefill.f32", {batch, prompt, d}));
    const double decode = relative_error(l.forward(read_f32<3>(dir + "/x_decode.f32", {batch, 1, d})),
                                         read_f32<3>(dir + "/out_decode.f32", {batch, 1, d}));
    std::printf("max |Δ| ÷ max |PyTorch|: prefill of %zu tokens %.3g, decode at position %zu %.3g\n", prompt, prefill,
                prompt, decode);
    const bool ok = prefill <= tolerance && decode <= tolerance;
    std::cout << (ok ? "llama_layer: OK\n" : "llama_layer: MISMATCH\n");
    return ok ? 0 : 1;
}

/// Seconds per call of f: at least 0.2 s and 2 calls.
template <class F>
double time_per_call(F f) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    for (int calls = 1;; ++calls) {
        f();
        const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
        if (elapsed > 0.2 && calls >= 2) return elapsed / calls;
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

int bench(int threads, int repetitions) {
    if (threads > 0) realify::set_num_threads(threads);
    const config& c = tinyllama_layer;
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    auto random = [&](auto t, double scale) {
        for (float& v : t) v = static_cast<float>(normal(rng) * scale);
        return t;
    };
    auto weight = [&](std::ptrdiff_t out_features, std::ptrdiff_t in_features) {
        return random(matrix::from_shape({std::size_t(out_features), std::size_t(in_features)}), 1.0 / std::sqrt(double(in_features)));
    };
    const std::ptrdiff_t q = c.n_heads * c.head_dim(), kv = c.n_kv_heads * c.head_dim();
    layer l{c, {weight(q, c.dim), weight(kv, c.dim), weight(kv, c.dim), weight(c.dim, q), weight(c.hidden_dim, c.dim),
                weight(c.dim, c.hidden_dim), weight(c.hidden_dim, c.dim), vector(xt::ones<float>({std::size_t(c.dim)})),
                vector(xt::ones<float>({std::size_t(c.dim)}))}};
    const std::size_t prompt = 256;
    const tensor3 x_prompt = random(tensor3::from_shape({1, prompt, std::size_t(c.dim)}), 1.0);
    const tensor3 x_token = random(tensor3::from_shape({1, 1, std::size_t(c.dim)}), 1.0);
    l.reset(1);
    l.forward(x_prompt);  // the cache of positions 0 … 255 the decode step reads
    const tensor4 cached_k = l.cache_k, cached_v = l.cache_v;
    auto prefill = [&] {
        l.reset(1);
        l.forward(x_prompt);
    };
    auto decode = [&] {
        l.cache_k = cached_k;
        l.cache_v = cached_v;
        l.forward(x_token);
    };
    prefill();
    decode();
    std::vector<double> prefill_times, decode_times;
    for (int r = 0; r < repetitions; ++r) {  // alternating rounds, as tools/llama_bench.py times PyTorch
        prefill_times.push_back(time_per_call(prefill));
        decode_times.push_back(time_per_call(decode));
    }
    std::printf("threads %d\nprefill %.9g\ndecode %.9g\n", realify::get_num_threads(), median(prefill_times),
                median(decode_times));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        bool bench_mode = false;
        int threads = 0, repetitions = 5;
        std::string dir = REALIFY_LLAMA_GOLDEN_DIR;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--bench") bench_mode = true;
            else if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
            else if (a == "--repetitions" && i + 1 < argc) repetitions = std::max(1, std::atoi(argv[++i]));
            else dir = a;
        }
        return bench_mode ? bench(threads, repetitions) : check_against_pytorch(dir);
    } catch (const std::exception& e) {
        std::cerr << e.what() << '\n';
        return 2;
    }
}
