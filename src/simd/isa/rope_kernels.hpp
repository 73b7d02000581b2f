// RoPE kernels written once over xsimd, instantiated per instruction set in
// src/simd/isa_kernels.cpp (one unit per level, each compiled with that level's flags) into the
// one kernel table. Include this only from those translation units: it pulls
// in xsimd.
//
// Interleaved layout: the data stays interleaved. Per position the frequency
// row is expanded once into two patterns of head_dim (+ one vector of
// wrap-around) reals,
//     cos_dup = [c0, c0, c1, c1, …]     sin_dup = [s0, s0, s1, s1, …]
// and every vector of every head of q and k is then the complex product of
// the two patterns with x (kernels/complex_product.hpp)
//     out = fmaddsub(cos_dup, x, sin_dup · swap_pairs(x))
// — one in-lane permute, one multiply, one fused multiply-add/sub (the
// Eigen/VOLK sequence with the moveldup/movehdup done once per row instead of
// once per vector). The heads
// of one position are contiguous, so a row of heads·head_dim reals is one
// flat stream; when head_dim is not a multiple of the vector width the pattern
// offset wraps at head_dim, which makes head_dim 2 or 6 run at full width with
// no per-head tail. When it is (128, 64, …) heads are walked one by one and
// the patterns indexed directly, keeping the wrap arithmetic (a loop-carried
// add + cmov, ~2 cycles) off the critical path.
//
// Half-split layout: per head, vectors of the low half and of the high half
// are combined with contiguous cos/sin rows: lo = a·c − b·s, hi = a·s + b·c,
// the product's split form.
//
// The pair shuffles, the fused multiply-adds (xsimd 8.1's are not fused on
// AVX-512F) and the streaming stores are the shared primitives
// (src/simd/isa/primitives.hpp); a streaming store falls back to an
// ordinary one where the address does not allow it, so misaligned buffers
// are still correct. The last partial vector of a row goes through the same
// instructions on a zero-padded copy, so an element's result does not depend
// on where it sits.
#pragma once

#include <cstddef>
#include <cstdint>

#include <xsimd/xsimd.hpp>

#include "primitives.hpp"
#include "vocabulary.hpp"
#include "realify/kernels/complex_product.hpp"
#include "realify/rope/call.hpp"

// Everything below sits in an inline namespace named after the instruction
// set of the including TU (src/simd/isa/arch_namespace.hpp).

namespace realify::rope::isa {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

template <class T, class A>
struct rope_simd {
    using batch = xsimd::batch<T, A>;
    static constexpr std::size_t width = batch::size;
    static constexpr std::size_t blocking_limit_bytes = std::size_t{256} << 10;

    using V = simd::isa::vec<T, A>;
    /// The rotation of a vector of pairs: (c + i·s)·x, c = cos_dup, s = sin_dup.
    [[gnu::always_inline]] static batch rotate(const batch& x, const batch& c, const batch& s) noexcept {
        return realify::kernels::interleaved_product<V>(c, s, x);
    }
    /// The half-split rotation of a vector of low halves a and high halves b:
    /// {lo, hi} = (a + i·b)·(c + i·s).
    [[gnu::always_inline]] static realify::kernels::cpair<batch> rotate_halves(const batch& a, const batch& b, const batch& c,
                                                                     const batch& s) noexcept {
        return realify::kernels::split_product<V>({a, b}, {c, s});
    }
    /// `count` < width reals at p as a zero-padded vector, and back.
    static batch load_partial(const T* p, std::size_t count) noexcept {
        alignas(64) T padded[width] = {};
        for (std::size_t i = 0; i < count; ++i) padded[i] = p[i];
        return batch::load_aligned(padded);
    }
    static void store_partial(T* p, const batch& v, std::size_t count) noexcept {
        alignas(64) T values[width];
        v.store_aligned(values);
        for (std::size_t i = 0; i < count; ++i) p[i] = values[i];
    }

    /// Stores v at p, non-temporally when asked and the address allows it.
    static void stream_or_store(T* p, const batch& v, bool stream) noexcept {
        simd::isa::stream_or_store<A>(p, v, stream);
    }

    /// `B` consecutive vectors of columns, for every head of a flat row of `n`
    /// reals: the 2·B pattern vectors are loaded once.
    template <std::size_t B>
    static void rotate_columns(const T* x, T* out, std::size_t n, std::size_t head_dim, const T* cos_dup,
                               const T* sin_dup) noexcept {
        batch c[B];
        batch s[B];
        for (std::size_t b = 0; b < B; ++b) {
            c[b] = batch::load_unaligned(cos_dup + b * width);
            s[b] = batch::load_unaligned(sin_dup + b * width);
        }
        for (std::size_t head = 0; head < n; head += head_dim) {
#pragma GCC unroll 4
            for (std::size_t b = 0; b < B; ++b) {
                const batch v = batch::load_unaligned(x + head + b * width);
                rotate(v, c[b], s[b]).store_unaligned(out + head + b * width);
            }
        }
    }

    /// One flat row of `n` reals (whole heads, interleaved pairs).
    static void interleaved_row(const T* x, T* out, std::size_t n, const T* cos_dup, const T* sin_dup,
                                std::size_t head_dim, bool stream, bool blocked) noexcept {
        // An empty row may come with null pointers: form no address from them.
        if (n == 0) return;
        if (head_dim % width == 0 && blocked) {
            // Whole vectors per head, data in cache: column blocks of `block`
            // vectors keep their patterns in registers while every head of
            // the row passes through, so each vector costs one load, one
            // store and three arithmetic instructions. Only for data already
            // in cache: from memory the strided walk defeats the prefetcher
            // (measured 1.4× slower than head by head at seq 512).
            constexpr std::size_t block = 4;
            std::size_t j = 0;
            for (; j + block * width <= head_dim; j += block * width) {
                rotate_columns<block>(x + j, out + j, n, head_dim, cos_dup + j, sin_dup + j);
            }
            for (; j < head_dim; j += width) {
                rotate_columns<1>(x + j, out + j, n, head_dim, cos_dup + j, sin_dup + j);
            }
            return;
        }
        if (head_dim % width == 0) {
            // Whole vectors per head (head_dim 128, 64, …): index the patterns
            // directly; no wrap-around arithmetic on the critical path.
            for (std::size_t head = 0; head < n; head += head_dim) {
                const T* xh = x + head;
                T* oh = out + head;
                for (std::size_t j = 0; j < head_dim; j += width) {
                    const batch v = batch::load_unaligned(xh + j);
                    const batch c = batch::load_unaligned(cos_dup + j);
                    const batch s = batch::load_unaligned(sin_dup + j);
                    stream_or_store(oh + j, rotate(v, c, s), stream);
                }
            }
            return;
        }
        const std::size_t step = width % head_dim;
        std::size_t i = 0;
        std::size_t off = 0;
        for (; i + width <= n; i += width) {
            const batch v = batch::load_unaligned(x + i);
            const batch c = batch::load_unaligned(cos_dup + off);
            const batch s = batch::load_unaligned(sin_dup + off);
            stream_or_store(out + i, rotate(v, c, s), stream);
            off += step;
            if (off >= head_dim) off -= head_dim;
        }
        if (i < n) {  // tail: fewer than `width` reals, whole pairs; the patterns hold a vector from off
            const std::size_t rest = n - i;
            store_partial(out + i,
                          rotate(load_partial(x + i, rest), batch::load_unaligned(cos_dup + off),
                                 batch::load_unaligned(sin_dup + off)),
                          rest);
        }
    }

    /// `heads` heads of the half-split layout, x_head and out_head reals apart.
    static void half_split_rows(const T* x, std::ptrdiff_t x_head, T* out, std::ptrdiff_t out_head, std::size_t heads,
                                std::size_t head_dim, const T* cos_row, const T* sin_row, bool stream) noexcept {
        const std::size_t half = head_dim / 2;
        for (std::size_t h = 0; h < heads; ++h) {
            const T* lo_in = x + static_cast<std::ptrdiff_t>(h) * x_head;
            const T* hi_in = lo_in + half;
            T* lo_out = out + static_cast<std::ptrdiff_t>(h) * out_head;
            T* hi_out = lo_out + half;
            std::size_t j = 0;
            for (; j + width <= half; j += width) {
                const batch a = batch::load_unaligned(lo_in + j);
                const batch b = batch::load_unaligned(hi_in + j);
                const batch c = batch::load_unaligned(cos_row + j);
                const batch s = batch::load_unaligned(sin_row + j);
                const realify::kernels::cpair<batch> r = rotate_halves(a, b, c, s);
                stream_or_store(lo_out + j, r.re, stream);
                stream_or_store(hi_out + j, r.im, stream);
            }
            if (j < half) {  // tail: the patterns hold half + width reals
                const std::size_t rest = half - j;
                const batch a = load_partial(lo_in + j, rest);
                const batch b = load_partial(hi_in + j, rest);
                const batch c = batch::load_unaligned(cos_row + j);
                const batch s = batch::load_unaligned(sin_row + j);
                // both results are computed before either is stored: in place,
                // the high half's store may not reach the low half's inputs.
                const realify::kernels::cpair<batch> r = rotate_halves(a, b, c, s);
                store_partial(lo_out + j, r.re, rest);
                store_partial(hi_out + j, r.im, rest);
            }
        }
    }

    /// Owns a heap array. Deliberately not std::vector: a std template
    /// instantiated here would be a symbol shared with the other arch TUs
    /// (the linker might keep the AVX-512 copy for everyone); this type is
    /// nested in the arch template, so its symbols are per arch.
    struct heap_reals {
        T* data = nullptr;
        heap_reals() = default;
        heap_reals(const heap_reals&) = delete;
        heap_reals& operator=(const heap_reals&) = delete;
        ~heap_reals() { delete[] data; }
    };

    /// The row (b, s) of a tensor at these strides.
    template <class P>
    static P* row(P* base, const rope::detail::rope_strides& strides, std::size_t b, std::size_t s) noexcept {
        return base + static_cast<std::ptrdiff_t>(b) * strides.batch + static_cast<std::ptrdiff_t>(s) * strides.seq;
    }

    /// The heads of one position of q or of k. Heads side by side in both
    /// tensors are one flat row; heads apart (a strided tensor) are rows of
    /// their own.
    static void side(const T* x, std::ptrdiff_t x_head, T* out, std::ptrdiff_t out_head, std::size_t heads,
                     std::size_t head_dim, bool interleaved, const T* first, const T* second, bool stream,
                     bool blocked) noexcept {
        if (heads == 0) return;
        if (!interleaved) return half_split_rows(x, x_head, out, out_head, heads, head_dim, first, second, stream);
        const auto flat = static_cast<std::ptrdiff_t>(head_dim);
        if (heads == 1 || (x_head == flat && out_head == flat))
            return interleaved_row(x, out, heads * head_dim, first, second, head_dim, stream, blocked);
        for (std::size_t h = 0; h < heads; ++h)
            interleaved_row(x + static_cast<std::ptrdiff_t>(h) * x_head, out + static_cast<std::ptrdiff_t>(h) * out_head,
                            head_dim, first, second, head_dim, stream, blocked);
    }

    static void run(const detail::rope_call<T>& call) {
        const std::size_t head_dim = call.head_dim;
        const std::size_t half = head_dim / 2;
        if (half == 0 || call.seq == 0 || call.batch == 0) return;
        const std::size_t q_row = call.q_heads * head_dim;
        const std::size_t k_row = call.k_heads * head_dim;
        // Patterns: head_dim reals plus one vector of wrap-around for the
        // interleaved layout; cos and sin rows of head_dim/2 for half-split.
        const std::size_t pattern = head_dim + width;
        constexpr std::size_t stack_reals = 2 * (512 + 64);
        alignas(64) T stack_buffer[stack_reals];
        heap_reals heap_buffer;
        T* buffer = stack_buffer;
        if (2 * pattern > stack_reals) {
            heap_buffer.data = new T[2 * pattern];
            buffer = heap_buffer.data;
        }
        T* first = buffer;
        T* second = buffer + pattern;
        const bool interleaved = call.layout == pair_layout::interleaved;
        // Register blocking pays while the inputs fit in L2 (decode, short
        // prefill chunks); larger calls stream from memory head by head.
        const bool blocked =
            !call.stream && call.batch * call.seq * (q_row + k_row) * sizeof(T) <= blocking_limit_bytes;

        for (std::size_t s = 0; s < call.seq; ++s) {
            const T* freq = call.freqs + (call.start_pos + s) * head_dim;
            if (interleaved) {
                std::size_t j = 0;
                for (; 2 * j + width <= head_dim; j += width / 2) {
                    const batch f = batch::load_unaligned(freq + 2 * j);
                    simd::isa::dup_real(f, A{}).store_unaligned(first + 2 * j);
                    simd::isa::dup_imag(f, A{}).store_unaligned(second + 2 * j);
                }
                for (; j < half; ++j) {
                    first[2 * j] = first[2 * j + 1] = freq[2 * j];
                    second[2 * j] = second[2 * j + 1] = freq[2 * j + 1];
                }
                if (head_dim % width != 0) {  // wrap-around for the flat-stream walk
                    for (std::size_t i = head_dim, from = 0; i < pattern; ++i, ++from) {
                        if (from == head_dim) from = 0;
                        first[i] = first[from];
                        second[i] = second[from];
                    }
                }
            } else {
                for (std::size_t j = 0; j < half; ++j) {
                    first[j] = freq[2 * j];
                    second[j] = freq[2 * j + 1];
                }
                for (std::size_t j = half; j < half + width; ++j) first[j] = second[j] = T(0);  // a tail's lanes
            }
            for (std::size_t b = 0; b < call.batch; ++b) {
                side(row(call.xq, call.xq_strides, b, s), call.xq_strides.head,
                     row(call.out_q, call.out_q_strides, b, s), call.out_q_strides.head, call.q_heads,
                     head_dim, interleaved, first, second, call.stream, blocked);
                side(row(call.xk, call.xk_strides, b, s), call.xk_strides.head,
                     row(call.out_k, call.out_k_strides, b, s), call.out_k_strides.head, call.k_heads,
                     head_dim, interleaved, first, second, call.stream, blocked);
            }
        }
        if (call.stream) simd::isa::stream_fence();
    }
};

}  // namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::rope::isa
