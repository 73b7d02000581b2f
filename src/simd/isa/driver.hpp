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
// A screened op (Op::screened) finds the elements its batch form must hand to
// the scalar form with one test per block, or per chunk of blocks, instead of
// a test per register:
//   registers      result registers per block (step = registers · width)
//   op.compute(i, o, e)
//                  the block's result registers o[], without fix-ups, and
//                  e[r] += a screen of o[r]: when every lane of every e[r] is
//                  finite, no element of the block needs a fix-up
//   Op::exact(op, i, store)
//                  computes the block with its fix-ups and stores it: cold
//                  and out of line, taking its arguments by value, so that
//                  the hot loop's registers never need an address
// The screen is a sufficient condition only (a block it flags may need no
// fix-up: exact() then computes what compute() did), so results are those of
// the per-register tests. When out aliases no input (`disjoint`), blocks are
// stored as computed and the screen is tested once per chunk, whose blocks
// exact() recomputes from the untouched inputs if it fails; in place every
// block is tested before it is stored.
//
// Include only from the per-instruction-set translation units (src/simd).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <xsimd/xsimd.hpp>

#include "primitives.hpp"

namespace realify::simd::isa {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

template <class Op>
concept screened = Op::screened;

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
        block(local, 0, store);
        std::memcpy(out + i, result, count * sizeof(T));
    }

    /// All lanes of e[0], …, e[R − 1] finite.
    template <std::size_t R>
    [[gnu::always_inline]] static bool finite(const batch (&e)[R]) noexcept {
        batch sum = e[0];
        for (std::size_t r = 1; r < R; ++r) sum = sum + e[r];
        return !xsimd::any(xsimd::isnan(sum - sum));  // inf − inf and NaN are NaN
    }

    /// The block at i, stored: a screened op tests its screen before the
    /// store (safe in place), any other op is called.
    template <class Op, class Store>
    [[gnu::always_inline]] static void block(const Op& op, std::size_t i, Store& store) noexcept {
        if constexpr (screened<Op>) {
            batch o[Op::registers];
            batch e[Op::registers];
            for (std::size_t r = 0; r < Op::registers; ++r) e[r] = batch(T(0));
            op.compute(i, o, e);
            if (!finite(e)) [[unlikely]] {
                Op::exact(op, i, store);
                return;
            }
            for (std::size_t r = 0; r < Op::registers; ++r) store(i + r * width, o[r]);
        } else {
            op(i, store);
        }
    }

    /// Blocks per screened chunk of a disjoint run: what exact() recomputes
    /// when the chunk holds a special value.
    static constexpr std::size_t chunk_blocks = 16;

    /// Whole blocks of a screened op from i while i + step ≤ n, stored as
    /// computed, the screen tested per chunk.
    template <class Op, class Store>
    [[gnu::always_inline]] static void screened_chunks(const Op& op, std::size_t& i, std::size_t n,
                                                       const Store& store) noexcept {
        constexpr std::size_t step = Op::step;
        while (i + step <= n) {
            const std::size_t start = i;
            const std::size_t blocks = (n - i) / step < chunk_blocks ? (n - i) / step : chunk_blocks;
            const std::size_t end = i + blocks * step;
            batch e[Op::registers];
            for (std::size_t r = 0; r < Op::registers; ++r) e[r] = batch(T(0));
            for (; i < end; i += step) {
                batch o[Op::registers];
                op.compute(i, o, e);
                for (std::size_t r = 0; r < Op::registers; ++r) store(i + r * width, o[r]);
            }
            if (!finite(e)) [[unlikely]]
                for (std::size_t j = start; j < end; j += step) Op::exact(op, j, store);
        }
    }

    /// Runs op over n reals of output. `fence`: end a streaming run with its
    /// store fence (callers that run many rows fence once, after the last).
    /// `disjoint`: out aliases no input (a screened op then tests per chunk).
    /// `op` is taken by value: a local copy whose address is never taken
    /// stays in registers across the stores to out (which could alias a
    /// referenced one).
    template <class Op>
    static void run(const Op op, T* out, std::size_t n, bool stream, bool fence = true,
                    bool disjoint = false) noexcept {
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
        if constexpr (screened<Op>) {
            const output_store plain{out, false}, streaming{out, true};
            if (disjoint) {
                if (stream) screened_chunks(op, i, n, streaming);
                else screened_chunks(op, i, n, plain);
            } else {
                for (; i + step <= n; i += step) block(op, i, store);
            }
        } else if constexpr (Op::unroll == 2) {
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
}  // namespace realify::simd::isa
