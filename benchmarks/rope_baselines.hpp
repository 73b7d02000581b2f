// The RoPE implementations realify is compared against, shared by
// benchmarks/bench_rope.cpp and examples/rope_llama3.cpp. All work on
// contiguous (batch, seq, heads, head_dim) float buffers, interleaved pairs,
// rotating position s by row start_pos + s of a (end, head_dim/2) table.
#pragma once

#include <complex>
#include <cstddef>
#include <cstring>
#include <vector>

#include <Eigen/Core>

namespace rope_baselines {

struct dims {
    std::size_t batch, seq, q_heads, k_heads, head_dim, start_pos;
    std::size_t q_size() const { return batch * seq * q_heads * head_dim; }
    std::size_t k_size() const { return batch * seq * k_heads * head_dim; }
};

/// The seed's formula, view_as_complex(x) * freqs_cis, on std::complex<float>
/// (GCC's operator* with its NaN-recovery branch, default flags).
inline void std_complex(const dims& d, const float* xq, const float* xk, float* oq, float* ok,
                        const std::complex<float>* freqs) {
    const std::size_t half = d.head_dim / 2;
    auto rotate = [&](const float* x, float* o, std::size_t heads) {
        const auto* xc = reinterpret_cast<const std::complex<float>*>(x);
        auto* oc = reinterpret_cast<std::complex<float>*>(o);
        for (std::size_t b = 0; b < d.batch; ++b)
            for (std::size_t s = 0; s < d.seq; ++s) {
                const std::complex<float>* f = freqs + (d.start_pos + s) * half;
                const std::size_t row = (b * d.seq + s) * heads * half;
                for (std::size_t h = 0; h < heads; ++h)
                    for (std::size_t j = 0; j < half; ++j) oc[row + h * half + j] = xc[row + h * half + j] * f[j];
            }
    };
    rotate(xq, oq, d.q_heads);
    rotate(xk, ok, d.k_heads);
}

/// ggml's CPU form: a per-position cos/sin cache (here precomputed, split into
/// cos and sin tables of (end, head_dim/2)) and a scalar rotate-pairs loop.
inline void ggml_style(const dims& d, const float* xq, const float* xk, float* oq, float* ok, const float* cos_cache,
                       const float* sin_cache) {
    const std::size_t half = d.head_dim / 2;
    auto rotate = [&](const float* x, float* o, std::size_t heads) {
        for (std::size_t b = 0; b < d.batch; ++b)
            for (std::size_t s = 0; s < d.seq; ++s) {
                const float* c = cos_cache + (d.start_pos + s) * half;
                const float* sn = sin_cache + (d.start_pos + s) * half;
                for (std::size_t h = 0; h < heads; ++h) {
                    const std::size_t base = ((b * d.seq + s) * heads + h) * d.head_dim;
                    for (std::size_t j = 0; j < half; ++j) {
                        const float x0 = x[base + 2 * j];
                        const float x1 = x[base + 2 * j + 1];
                        o[base + 2 * j] = x0 * c[j] - x1 * sn[j];
                        o[base + 2 * j + 1] = x0 * sn[j] + x1 * c[j];
                    }
                }
            }
    };
    rotate(xq, oq, d.q_heads);
    rotate(xk, ok, d.k_heads);
}

/// Eigen, one head row at a time: Map<ArrayXcf>(out) = Map(x) * Map(freq row)
/// (Eigen's vectorised interleaved complex multiply).
inline void eigen_rows(const dims& d, const float* xq, const float* xk, float* oq, float* ok,
                       const std::complex<float>* freqs) {
    using array = Eigen::Array<std::complex<float>, Eigen::Dynamic, 1>;
    const auto half = static_cast<Eigen::Index>(d.head_dim / 2);
    auto rotate = [&](const float* x, float* o, std::size_t heads) {
        const auto* xc = reinterpret_cast<const std::complex<float>*>(x);
        auto* oc = reinterpret_cast<std::complex<float>*>(o);
        for (std::size_t b = 0; b < d.batch; ++b)
            for (std::size_t s = 0; s < d.seq; ++s) {
                const Eigen::Map<const array> f(freqs + (d.start_pos + s) * d.head_dim / 2, half);
                for (std::size_t h = 0; h < heads; ++h) {
                    const std::size_t offset = ((b * d.seq + s) * heads + h) * d.head_dim / 2;
                    Eigen::Map<array>(oc + offset, half) = Eigen::Map<const array>(xc + offset, half) * f;
                }
            }
    };
    rotate(xq, oq, d.q_heads);
    rotate(xk, ok, d.k_heads);
}

/// The roofline: copying the same bytes (read q and k, write outputs).
inline void copy_bytes(const dims& d, const float* xq, const float* xk, float* oq, float* ok) {
    std::memcpy(oq, xq, d.q_size() * sizeof(float));
    std::memcpy(ok, xk, d.k_size() * sizeof(float));
}

/// Split cos/sin tables of a (end, head_dim/2) complex table, for ggml_style.
inline void split_cos_sin(const std::complex<float>* freqs, std::size_t count, std::vector<float>& cos_cache,
                          std::vector<float>& sin_cache) {
    cos_cache.resize(count);
    sin_cache.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        cos_cache[i] = freqs[i].real();
        sin_cache[i] = freqs[i].imag();
    }
}

}  // namespace rope_baselines
