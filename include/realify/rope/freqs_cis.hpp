// realify::rope::precompute_freqs_cis — the per-position rotation table of
// rotary position embeddings: freqs_cis[pos, j] = polar(1, pos · θ^(−2j/D)).
//
// Angles are computed in double whatever the stored type: at pos ≈ 4096 a
// float angle is off by ~5e-4 rad, which is larger than the float rounding of
// cos/sin themselves (Meta's reference computes the outer product in float32;
// realify is deliberately more accurate, and the goldens are made in float64).
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <optional>
#include <sstream>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "realify/errors.hpp"
#include "realify/layout/scalar_traits.hpp"

namespace realify::rope {

/// Llama 3.1's frequency scaling (Meta's `apply_scaling`): wavelengths shorter
/// than original_context / high_freq_factor keep their frequency, longer than
/// original_context / low_freq_factor are divided by `factor`, and the band in
/// between is interpolated smoothly. Defaults are Llama 3.1's values.
struct llama3_scaling {
    double factor = 8.0;
    double low_freq_factor = 1.0;
    double high_freq_factor = 4.0;
    double original_context = 8192.0;
};

/// The D/2 rotation frequencies θ^(−2j/D), j = 0 … D/2−1, optionally scaled.
inline std::vector<double> rope_frequencies(std::size_t dim, double theta = 10000.0,
                                            std::optional<llama3_scaling> scaling = std::nullopt) {
    if (dim % 2 != 0) {
        std::ostringstream message;
        message << "realify::rope::precompute_freqs_cis: dim must be even (pairs of components), got " << dim;
        throw shape_error(message.str());
    }
    const double pi = 3.14159265358979323846;
    std::vector<double> freqs(dim / 2);
    for (std::size_t j = 0; j < dim / 2; ++j) {
        double freq = 1.0 / std::pow(theta, static_cast<double>(2 * j) / static_cast<double>(dim));
        if (scaling) {
            const llama3_scaling& s = *scaling;
            const double wavelen = 2.0 * pi / freq;
            const double high_freq_wavelen = s.original_context / s.high_freq_factor;
            const double low_freq_wavelen = s.original_context / s.low_freq_factor;
            if (wavelen < high_freq_wavelen) {
                // high frequencies: unchanged
            } else if (wavelen > low_freq_wavelen) {
                freq /= s.factor;
            } else {
                const double smooth = (s.original_context / wavelen - s.low_freq_factor) /
                                      (s.high_freq_factor - s.low_freq_factor);
                freq = (1.0 - smooth) * freq / s.factor + smooth * freq;
            }
        }
        freqs[j] = freq;
    }
    return freqs;
}

/// end × dim/2 complex table, freqs_cis[pos, j] = polar(1, pos · freq_j).
/// T is the stored component type (float for complex64, double for complex128).
template <real_scalar T = float>
xt::xtensor<std::complex<T>, 2> precompute_freqs_cis(std::size_t dim, std::size_t end, double theta = 10000.0,
                                                     std::optional<llama3_scaling> scaling = std::nullopt) {
    const std::vector<double> freqs = rope_frequencies(dim, theta, scaling);
    xt::xtensor<std::complex<T>, 2> table(std::array<std::size_t, 2>{end, dim / 2});
    std::complex<T>* out = table.data();
    for (std::size_t pos = 0; pos < end; ++pos) {
        for (std::size_t j = 0; j < freqs.size(); ++j) {
            const double angle = static_cast<double>(pos) * freqs[j];
            *out++ = std::complex<T>(static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle)));
        }
    }
    return table;
}

}  // namespace realify::rope
