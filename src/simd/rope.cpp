// The RoPE entry points (realify/rope/compiled.hpp): the RoPE kernel of the
// level a call runs on (arch.cpp's timed_level), so REALIFY_SIMD_ARCH,
// force_arch and scoped_arch govern RoPE exactly as every other kernel;
// unforced, the faster of AVX-512 and AVX2 on this CPU, measured on the
// first calls (they give the same bits).
//
// Large calls run on several threads (realify/threads.hpp): the (batch,
// position) rows are cut into pieces of about grain::rope reals (a count set
// by the sizes alone), which the threads claim in ranges, each a call of the
// kernel on its rows (one batch entry at a time). A row's rotation does not
// depend on the other rows of its call (the kernels compute a partial row on
// a padded copy with the same instructions), so any cut gives the same
// results. Pieces are at least grain::rope reals, more than the kernels'
// blocking limit: a piece takes the same path through the kernel as the
// whole call.
#include "realify/rope/compiled.hpp"
#include "realify/rope/scalar.hpp"

#include <algorithm>
#include <cstddef>

#include "kernel_table.hpp"
#include "parallel.hpp"
#include "realify/simd/arch.hpp"
#include "realify/threads.hpp"

namespace realify::rope {

std::string_view active_arch() { return simd::active_arch(simd::kernel_family::rope); }

namespace detail {

namespace {

template <class T>
void run_split(const rope_call<T>& call, void (*kernel)(const rope_call<T>&)) {
    const std::size_t rows = call.batch * call.seq;
    const std::size_t q_row = call.q_heads * call.head_dim, k_row = call.k_heads * call.head_dim;
    const std::size_t reals = rows * (q_row + k_row);
    const std::size_t threads = parallel::threads_for(reals, grain::rope);
    if (threads == 1 || rows < 2) return kernel(call);
    const std::size_t pieces = std::min(rows, reals / grain::rope);  // by the sizes alone
    parallel::for_ranges(pieces, threads, [&](std::size_t a, std::size_t b) {
        const std::size_t last = rows * b / pieces;
        for (std::size_t row = rows * a / pieces; row < last;) {
            const std::size_t s = row % call.seq, n = std::min(call.seq - s, last - row);
            const std::size_t batch = row / call.seq;
            rope_call<T> part = call;
            part.batch = 1;
            part.seq = n;
            part.start_pos = call.start_pos + s;
            part.xq = rope_row(call.xq, call.xq_strides, batch, s);
            part.out_q = rope_row(call.out_q, call.out_q_strides, batch, s);
            part.xk = rope_row(call.xk, call.xk_strides, batch, s);
            part.out_k = rope_row(call.out_k, call.out_k_strides, batch, s);
            kernel(part);
            row += n;
        }
    });
}

/// The bytes a call reads and writes (q and k, in and out): what its level
/// is measured by (arch.cpp).
template <class T>
std::size_t bytes_of(const rope_call<T>& call) noexcept {
    return 2 * sizeof(T) * call.batch * call.seq * (call.q_heads + call.k_heads) * call.head_dim;
}

}  // namespace

// A call the level's trial times runs on the calling thread alone.
void rope_compiled(const rope_call<float>& call) {
    const simd::detail::timed_level level(simd::kernel_family::rope, bytes_of(call));
    if (level.timed()) return level.table().f32.rope(call);
    run_split(call, level.table().f32.rope);
}
void rope_compiled(const rope_call<double>& call) {
    const simd::detail::timed_level level(simd::kernel_family::rope, bytes_of(call));
    if (level.timed()) return level.table().f64.rope(call);
    run_split(call, level.table().f64.rope);
}

}  // namespace detail
}  // namespace realify::rope
