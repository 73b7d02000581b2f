// Which elements of a head vector form the (real, imag) pairs that RoPE rotates.
#pragma once

#include "realify/version.hpp"

namespace realify::rope {

/// interleaved: pairs (x[2j], x[2j+1]) — Llama/Meta, the complex form
///              (view_as_complex of the head vector).
/// half_split:  pairs (x[j], x[j + D/2]) — GPT-NeoX / Hugging Face rotate_half.
/// Pair j is rotated by freqs_cis[pos, j] in both layouts.
enum class pair_layout { interleaved, half_split };

inline constexpr const char* to_string(pair_layout layout) noexcept {
    return layout == pair_layout::interleaved ? "interleaved" : "half_split";
}

}  // namespace realify::rope
