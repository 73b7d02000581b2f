// The loop every contiguous compiled kernel runs (the multiply family and the
// elementwise kernels): full blocks of registers, ordinary or streaming
// stores, and partial blocks (the tail, or the head peeled for streaming-store
// alignment) computed on zero-padded copies of the inputs with the same
// instructions as full blocks — so a result never depends on where in the
// array, or at which alignment, an element sits, nor on the store path.
//
// An Op describes one block:
//   step           reals of output per block
//   element_reals  reals per output element (2 for complex, 1 for real)
//   inputs         number of input arrays
//   scratch_reals  reals one input needs for a block (its zero-padded copy)
//   op(i, store)   computes the block whose output starts at real i and
//                  hands each register to store(offset, batch)
//   op.rebase(i, count, scratch)
//                  the same op reading zero-padded copies of its inputs for a
//                  partial block of `count` output reals at i, to be run at 0
//
// Include only from the per-instruction-set translation units (src/simd).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <xsimd/xsimd.hpp>

#include "realify/simd/kernels/primitives.hpp"

namespace realify::simd::kernels {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

template <class T, class A>
struct driver {
    using batch = xsimd::batch<T, A>;
    static constexpr std::size_t width = batch::size;  // reals per register

    struct unaligned_store {
        T* out;
        void operator()(std::size_t i, const batch& r) const noexcept { r.store_unaligned(out + i); }
    };
    struct streaming_store {
        T* out;  // out + i is stream_alignment-aligned for every i the driver passes
        void operator()(std::size_t i, const batch& r) const noexcept { stream_store(out + i, r, A{}); }
    };
    struct scratch_store {
        T* out;
        void operator()(std::size_t i, const batch& r) const noexcept { r.store_aligned(out + i); }
    };

    /// Copies count reals to a zero-padded scratch row; returns the row.
    static const T* pad(const T* src, std::size_t count, T* scratch) noexcept {
        std::memcpy(scratch, src, count * sizeof(T));
        return scratch;
    }

    /// A partial block [i, i + count) of output reals.
    template <class Op>
    static void partial(const Op& op, std::size_t i, std::size_t count, T* out) noexcept {
        alignas(64) T scratch[Op::inputs][Op::scratch_reals] = {};
        alignas(64) T result[Op::step];
        const Op local = op.rebase(i, count, scratch);
        scratch_store store{result};
        local(0, store);
        std::memcpy(out + i, result, count * sizeof(T));
    }

    /// Runs op over n reals of output. `fence`: end a streaming run with its
    /// store fence (callers that run many rows fence once, after the last).
    template <class Op>
    static void run(const Op& op, T* out, std::size_t n, bool stream, bool fence = true) noexcept {
        constexpr std::size_t step = Op::step;
        std::size_t i = 0;
        const auto address = reinterpret_cast<std::uintptr_t>(out);
        // Streaming stores need aligned destinations; reach alignment with a
        // partial block of whole elements first. An array not even aligned to
        // its elements can never get there: it keeps ordinary stores.
        if (stream && address % (Op::element_reals * sizeof(T)) == 0) {
            constexpr std::size_t alignment = stream_alignment<T, A>;
            std::size_t head = ((alignment - address % alignment) % alignment) / sizeof(T);
            head = head < n ? head : n;
            if (head != 0) partial(op, 0, head, out);
            i = head;
            streaming_store store{out};
            for (; i + step <= n; i += step) op(i, store);
            if (fence) stream_fence();
        }
        unaligned_store store{out};
        for (; i + 2 * step <= n; i += 2 * step) {
            op(i, store);
            op(i + step, store);
        }
        for (; i + step <= n; i += step) op(i, store);
        if (i < n) partial(op, i, n - i, out);
    }
};

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::kernels
