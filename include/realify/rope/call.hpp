// The flat description of one RoPE application that every kernel (portable
// and per-arch SIMD) consumes: contiguous row-major buffers, no xtensor, no
// xsimd, so the compiled kernels and the header front-end share only this.
#pragma once

#include <cstddef>

#include "realify/rope/pair_layout.hpp"

namespace realify::rope::detail {

/// Where the rows of a (batch, seq, heads, head_dim) tensor lie: the strides,
/// in reals, of its batch, seq and head axes (any sign); its head_dim axis is
/// contiguous.
struct rope_strides {
    std::ptrdiff_t batch = 0;
    std::ptrdiff_t seq = 0;
    std::ptrdiff_t head = 0;
};

/// The strides of a row-major (batch, seq, heads, head_dim) tensor.
constexpr rope_strides packed_rope_strides(std::size_t seq, std::size_t heads, std::size_t head_dim) noexcept {
    const auto head = static_cast<std::ptrdiff_t>(head_dim);
    const auto row = head * static_cast<std::ptrdiff_t>(heads);
    return {row * static_cast<std::ptrdiff_t>(seq), row, head};
}

/// q: (batch, seq, q_heads, head_dim), k: (batch, seq, k_heads, head_dim),
/// at the strides given (packed(): row-major); out_q/out_k the same shapes
/// and may be equal to xq/xk (in-place, the same strides) but must not
/// partially overlap them. freqs points at the first row of a contiguous
/// (end, head_dim/2) complex table seen as interleaved reals; row
/// start_pos + s rotates sequence position s.
template <class T>
struct rope_call {
    const T* xq = nullptr;
    const T* xk = nullptr;
    T* out_q = nullptr;
    T* out_k = nullptr;
    const T* freqs = nullptr;
    std::size_t batch = 0;
    std::size_t seq = 0;
    std::size_t q_heads = 0;
    std::size_t k_heads = 0;
    std::size_t head_dim = 0;
    std::size_t start_pos = 0;
    pair_layout layout = pair_layout::interleaved;
    /// Use non-temporal stores for the outputs (large out-of-place calls
    /// only; on the bytes touched, see realify/simd/streaming.hpp).
    bool stream = false;
    rope_strides xq_strides, xk_strides, out_q_strides, out_k_strides;

    /// Row-major strides for the four tensors (of the call's shape).
    rope_call& packed() noexcept {
        xq_strides = out_q_strides = packed_rope_strides(seq, q_heads, head_dim);
        xk_strides = out_k_strides = packed_rope_strides(seq, k_heads, head_dim);
        return *this;
    }
};

}  // namespace realify::rope::detail
