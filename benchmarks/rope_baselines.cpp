// The competitors of realify's RoPE (declared in rope_baselines.hpp). This TU
// is compiled with -march=native when the compiler accepts it.
#include "rope_baselines.hpp"

#include <Eigen/Core>

namespace rope_baselines {

/// Meta Llama's formula, view_as_complex(x) * freqs_cis, on std::complex<float>
/// (GCC's operator* with its NaN-recovery branch, default flags).
void std_complex(const dims& d, const float* xq, const float* xk, float* oq, float* ok,
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
void ggml_style(const dims& d, const float* xq, const float* xk, float* oq, float* ok, const float* cos_cache,
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
void eigen_rows(const dims& d, const float* xq, const float* xk, float* oq, float* ok,
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

}  // namespace rope_baselines
