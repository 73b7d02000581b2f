// realify::rope::precompute_freqs_cis — the per-position rotation table of
// rotary position embeddings: freqs_cis[pos, j] = polar(1, pos · θ^(−2j/D)).
//
// By default the table is the one the published models were trained and are
// evaluated with: Meta's Llama reference (and Hugging Face, ggml) computes
// the frequencies and the angles pos · freq_j in float32,
//
//     freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
//     t = torch.arange(end, dtype=torch.float32)
//     freqs_cis = torch.polar(torch.ones_like(freqs), torch.outer(t, freqs).float())
//
// and realify reproduces those float32 angles operation by operation
// (angle_precision::reference_float32). At large positions they differ from
// the exact angles by up to ~6e-4 rad (position 8183, θ = 5e5), which moves
// RoPE outputs by ~1e-3 relative; angle_precision::float64 computes the
// frequencies and angles in double instead (closer to the exact rotation,
// not what the models saw). docs/rope.md gives the measured differences.
#pragma once

#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "realify/checked_size.hpp"
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

/// How the frequencies and the angles pos · freq_j are computed.
enum class angle_precision {
    /// float32, exactly as Meta's reference (and Hugging Face, ggml) computes
    /// them: the table the models were trained with. The default.
    reference_float32,
    /// double, rounded once to the stored type: closer to the exact rotation.
    float64,
};

inline constexpr const char* to_string(angle_precision precision) noexcept {
    return precision == angle_precision::reference_float32 ? "reference_float32" : "float64";
}

namespace detail {

inline constexpr double pi = 3.14159265358979323846;

[[noreturn]] inline void invalid_parameter(const char* name, double value, const char* requirement) {
    std::ostringstream message;
    message << "realify::rope::precompute_freqs_cis: " << name << " must be " << requirement << ", got " << value;
    throw error(message.str());
}

/// theta and the scaling parameters, checked: each is finite and positive,
/// and the two wavelength bounds differ (Meta's apply_scaling asserts it).
inline void validate_frequency_parameters(double theta, const std::optional<llama3_scaling>& scaling) {
    auto positive = [](const char* name, double value) {
        if (!(std::isfinite(value) && value > 0)) invalid_parameter(name, value, "finite and positive");
    };
    positive("theta", theta);
    if (!scaling) return;
    positive("llama3_scaling::factor", scaling->factor);
    positive("llama3_scaling::low_freq_factor", scaling->low_freq_factor);
    positive("llama3_scaling::high_freq_factor", scaling->high_freq_factor);
    positive("llama3_scaling::original_context", scaling->original_context);
    if (scaling->original_context / scaling->low_freq_factor == scaling->original_context / scaling->high_freq_factor) {
        invalid_parameter("llama3_scaling::high_freq_factor", scaling->high_freq_factor,
                          "different from low_freq_factor (the smooth band would be empty)");
    }
}

/// x as a value the compiler cannot fuse into the next addition: under the
/// user's -ffp-contract=fast, a·b + c may become fma(a, b, c), whose single
/// rounding is not the reference's two.
template <class F>
F rounded(F x) noexcept {
    volatile F value = x;
    return value;
}

/// Meta's apply_scaling on one frequency. In float it follows PyTorch's
/// evaluation of the reference step by step (Python numbers become float32,
/// and `number / tensor` is reciprocal(tensor) · number); in double it is the
/// formula as written.
template <class F>
F scale_frequency(F freq, const llama3_scaling& s) noexcept {
    const auto f = [](double v) { return static_cast<F>(v); };
    constexpr bool reference = std::is_same_v<F, float>;
    const F wavelen = reference ? rounded(F(1) / freq) * f(2.0 * pi) : f(2.0 * pi) / freq;
    if (wavelen < f(s.original_context / s.high_freq_factor)) return freq;  // high frequencies: unchanged
    if (wavelen > f(s.original_context / s.low_freq_factor)) return freq / f(s.factor);
    const F context_ratio = reference ? rounded(rounded(F(1) / wavelen) * f(s.original_context))
                                      : rounded(f(s.original_context) / wavelen);
    const F smooth = (context_ratio - f(s.low_freq_factor)) / f(s.high_freq_factor - s.low_freq_factor);
    return rounded((F(1) - smooth) * freq / f(s.factor)) + rounded(smooth * freq);
}

/// The dim/2 frequencies in the arithmetic type F (float: the reference's
/// float32 values, θ^e correctly rounded to float, which is what torch's
/// float32 pow gives for the dims and θ the models use — see docs/rope.md).
template <class F>
std::vector<F> frequencies(std::size_t dim, double theta, const std::optional<llama3_scaling>& scaling) {
    std::vector<F> freqs(dim / 2);
    for (std::size_t j = 0; j < dim / 2; ++j) {
        F exponent;
        F power;
        if constexpr (std::is_same_v<F, float>) {
            exponent = static_cast<float>(2 * j) / static_cast<float>(dim);
            power = static_cast<float>(std::pow(static_cast<double>(static_cast<float>(theta)), exponent));
        } else {
            exponent = static_cast<double>(2 * j) / static_cast<double>(dim);
            power = std::pow(theta, exponent);
        }
        const F freq = F(1) / power;
        freqs[j] = scaling ? scale_frequency(freq, *scaling) : freq;
    }
    return freqs;
}

inline std::size_t checked_dim(std::ptrdiff_t dim) {
    const std::size_t d = realify::detail::to_size("rope::precompute_freqs_cis", "dim", dim);
    if (d % 2 != 0) {
        throw shape_error("realify::rope::precompute_freqs_cis: dim must be even (pairs of components), got " +
                          std::to_string(d));
    }
    return d;
}

}  // namespace detail

/// The D/2 rotation frequencies θ^(−2j/D), j = 0 … D/2−1, optionally scaled,
/// as the table computes them (float32 values for reference_float32).
inline std::vector<double> rope_frequencies(std::ptrdiff_t dim, double theta = 10000.0,
                                            std::optional<llama3_scaling> scaling = std::nullopt,
                                            angle_precision precision = angle_precision::reference_float32) {
    const std::size_t d = detail::checked_dim(dim);
    detail::validate_frequency_parameters(theta, scaling);
    if (precision == angle_precision::float64) return detail::frequencies<double>(d, theta, scaling);
    const std::vector<float> freqs = detail::frequencies<float>(d, theta, scaling);
    return std::vector<double>(freqs.begin(), freqs.end());
}

/// end × dim/2 complex table, freqs_cis[pos, j] = polar(1, pos · freq_j).
/// T is the stored component type (float for complex64, double for
/// complex128); cos and sin of each angle are rounded once to T.
template <real_scalar T = float>
xt::xtensor<std::complex<T>, 2> precompute_freqs_cis(std::ptrdiff_t dim, std::ptrdiff_t end, double theta = 10000.0,
                                                     std::optional<llama3_scaling> scaling = std::nullopt,
                                                     angle_precision precision = angle_precision::reference_float32) {
    const std::size_t d = detail::checked_dim(dim);
    const std::size_t rows = realify::detail::to_size("rope::precompute_freqs_cis", "end", end);
    detail::validate_frequency_parameters(theta, scaling);
    const std::array<std::size_t, 2> shape{rows, d / 2};
    realify::detail::checked_element_count("rope::precompute_freqs_cis", "table (end, dim/2)", shape,
                                           sizeof(std::complex<T>));
    xt::xtensor<std::complex<T>, 2> table(shape);
    std::complex<T>* out = table.data();
    auto store = [&out](double angle) {
        *out++ = std::complex<T>(static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle)));
    };
    if (precision == angle_precision::float64) {
        const std::vector<double> freqs = detail::frequencies<double>(d, theta, scaling);
        for (std::size_t pos = 0; pos < rows; ++pos)
            for (double freq : freqs) store(static_cast<double>(pos) * freq);
    } else {
        // torch.outer(t, freqs) in float32: one rounded product per entry
        // (t = arange(end) as float32: positions above 2^24 round, as there).
        const std::vector<float> freqs = detail::frequencies<float>(d, theta, scaling);
        for (std::size_t pos = 0; pos < rows; ++pos) {
            const auto t = static_cast<float>(pos);
            for (float freq : freqs) store(static_cast<double>(t * freq));
        }
    }
    return table;
}

}  // namespace realify::rope
