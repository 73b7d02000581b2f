// The flat description of one RoPE application that every kernel (portable
// and per-arch SIMD) consumes: contiguous row-major buffers, no xtensor, no
// xsimd, so the compiled kernels and the header front-end share only this.
#pragma once

#include <cstddef>

#include "realify/rope/pair_layout.hpp"

namespace realify::rope::detail {

/// q: (batch, seq, q_heads, head_dim), k: (batch, seq, k_heads, head_dim),
/// both contiguous row-major; out_q/out_k the same shapes and may be equal to
/// xq/xk (in-place) but must not partially overlap them. freqs points at the
/// first row of a contiguous (end, head_dim/2) complex table seen as
/// interleaved reals; row start_pos + s rotates sequence position s.
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
};

}  // namespace realify::rope::detail
