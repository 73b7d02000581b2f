// The portable RoPE kernel: plain loops, one pair at a time. It is the
// reference the SIMD kernels are tested against, and the path taken when no
// compiled kernel fits. The compiler may auto-vectorise it; nothing relies on
// that.
#pragma once

#include <cstddef>

#include "realify/rope/call.hpp"

namespace realify::rope::detail {

template <class T>
void rotate_rows_scalar(const T* x, std::ptrdiff_t x_head, T* out, std::ptrdiff_t out_head, std::size_t heads,
                        std::size_t head_dim, const T* freq_row, pair_layout layout) {
    const std::size_t half = head_dim / 2;
    for (std::size_t h = 0; h < heads; ++h) {
        const T* xh = x + static_cast<std::ptrdiff_t>(h) * x_head;
        T* oh = out + static_cast<std::ptrdiff_t>(h) * out_head;
        for (std::size_t j = 0; j < half; ++j) {
            const T c = freq_row[2 * j];
            const T s = freq_row[2 * j + 1];
            // Which two components form pair j depends on the layout; the
            // rotation is the complex product (a + ib)(c + is).
            const std::size_t re = layout == pair_layout::interleaved ? 2 * j : j;
            const std::size_t im = layout == pair_layout::interleaved ? 2 * j + 1 : j + half;
            const T a = xh[re];
            const T b = xh[im];
            oh[re] = a * c - b * s;
            oh[im] = a * s + b * c;
        }
    }
}

/// The row (b, s) of a tensor at these strides.
template <class T>
T* rope_row(T* base, const rope_strides& strides, std::size_t b, std::size_t s) noexcept {
    return base + static_cast<std::ptrdiff_t>(b) * strides.batch + static_cast<std::ptrdiff_t>(s) * strides.seq;
}

/// Applies the rotation described by `call` with the portable loops. q and k
/// of one position are rotated back to back so the frequency row is read once.
template <class T>
void rope_scalar(const rope_call<T>& call) {
    for (std::size_t s = 0; s < call.seq; ++s) {
        const T* freq_row = call.freqs + (call.start_pos + s) * call.head_dim;
        for (std::size_t b = 0; b < call.batch; ++b) {
            if (call.q_heads > 0)
                rotate_rows_scalar(rope_row(call.xq, call.xq_strides, b, s), call.xq_strides.head,
                                   rope_row(call.out_q, call.out_q_strides, b, s), call.out_q_strides.head, call.q_heads,
                                   call.head_dim, freq_row, call.layout);
            if (call.k_heads > 0)
                rotate_rows_scalar(rope_row(call.xk, call.xk_strides, b, s), call.xk_strides.head,
                                   rope_row(call.out_k, call.out_k_strides, b, s), call.out_k_strides.head, call.k_heads,
                                   call.head_dim, freq_row, call.layout);
        }
    }
}

}  // namespace realify::rope::detail
