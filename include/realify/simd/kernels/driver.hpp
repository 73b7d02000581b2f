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
//   unroll         1, or 2 to run two blocks per loop iteration (cheap blocks)
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

    /// Stores registers to out: non-temporally when `stream` is set (then
    /// out + i is register-aligned for every i the driver passes),
    /// else with ordinary unaligned stores. One store type, so each op's
    /// block is instantiated once for the loop (a predicted branch per store
    /// instead of a second copy of the block).
    struct output_store {
        T* out;
        bool stream;
        [[gnu::always_inline]] void operator()(std::size_t i, const batch& r) const noexcept {
            if (stream) stream_store(out + i, r, A{});
            else r.store_unaligned(out + i);
        }
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
        output_store store{result, false};
        local(0, store);
        std::memcpy(out + i, result, count * sizeof(T));
    }

    /// Runs op over n reals of output. `fence`: end a streaming run with its
    /// store fence (callers that run many rows fence once, after the last).
    /// `op` is taken by value: a local copy whose address is never taken
    /// stays in registers across the stores to out (which could alias a
    /// referenced one).
    template <class Op>
    static void run(const Op op, T* out, std::size_t n, bool stream, bool fence = true) noexcept {
        constexpr std::size_t step = Op::step;
        std::size_t i = 0;
        const auto address = reinterpret_cast<std::uintptr_t>(out);
        // Reach register alignment of out with a partial block of whole
        // elements first (as Eigen's assignment loop does): a store that
        // straddles two cache lines costs twice, every store of a 64-byte
        // register at a 16-byte aligned address does; and streaming stores
        // need the alignment. An array not even aligned to its elements can
        // never get there: it keeps ordinary unaligned stores.
        if (address % (Op::element_reals * sizeof(T)) == 0 && n > 2 * step) {
            constexpr std::size_t alignment = sizeof(batch);
            const std::size_t head = ((alignment - address % alignment) % alignment) / sizeof(T);
            if (head != 0) partial(op, 0, head, out);
            i = head;
        } else {
            stream = false;
        }
        output_store store{out, stream};
        if constexpr (Op::unroll == 2) {
            // Cheap blocks: two per iteration, and a loop per store path (a
            // test per store would be a fifth of the work).
            const output_store plain{out, false}, streaming{out, true};
            auto loop = [&](const output_store& s) __attribute__((always_inline)) {
                for (; i + 2 * step <= n; i += 2 * step) {
                    op(i, s);
                    op(i + step, s);
                }
                for (; i + step <= n; i += step) op(i, s);
            };
            if (stream) loop(streaming);
            else loop(plain);
        } else {
            for (; i + step <= n; i += step) op(i, store);
        }
        if (stream && fence) stream_fence();
        if (i < n) partial(op, i, n - i, out);
    }
};

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::kernels
