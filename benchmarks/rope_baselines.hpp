// The RoPE implementations realify is compared against, shared by
// benchmarks/bench_rope.cpp and examples/rope_llama3.cpp. All work on
// contiguous (batch, seq, heads, head_dim) float buffers, interleaved pairs,
// rotating position s by row start_pos + s of a (end, head_dim/2) table.
// The competitors live in rope_baselines.cpp, compiled for the host
// (-march=native) so each gets its best code; realify itself is built without
// -march and dispatches at run time.
#pragma once

#include <complex>
#include <cstddef>
#include <cstring>
#include <vector>

namespace rope_baselines {

struct dims {
    std::size_t batch, seq, q_heads, k_heads, head_dim, start_pos;
    std::size_t q_size() const { return batch * seq * q_heads * head_dim; }
    std::size_t k_size() const { return batch * seq * k_heads * head_dim; }
};

/// Meta Llama's formula, view_as_complex(x) * freqs_cis, on std::complex<float>
/// (GCC's operator* with its NaN-recovery branch, no -fcx-limited-range).
void std_complex(const dims& d, const float* xq, const float* xk, float* oq, float* ok,
                 const std::complex<float>* freqs);

/// ggml's CPU form: a per-position cos/sin cache (here precomputed, split into
/// cos and sin tables of (end, head_dim/2)) and a scalar rotate-pairs loop.
void ggml_style(const dims& d, const float* xq, const float* xk, float* oq, float* ok, const float* cos_cache,
                const float* sin_cache);

/// Eigen, one head row at a time: Map<ArrayXcf>(out) = Map(x) * Map(freq row)
/// (Eigen's vectorised interleaved complex multiply).
void eigen_rows(const dims& d, const float* xq, const float* xk, float* oq, float* ok,
                const std::complex<float>* freqs);

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
