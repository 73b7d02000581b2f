// Splitting a loop of the compiled library over threads (realify/threads.hpp).
// The loop is cut by its caller into `pieces` that depend on the sizes only
// (or, where a result does not depend on the cut, on the thread count);
// threads run ranges of pieces, so a result computed piece by piece and
// combined in piece order is the same for any thread count.
// The threads are realify's own pool (parallel.cpp): the calling thread
// claims pieces like its workers and returns as soon as every claimed piece
// is done, so a worker the scheduler runs late never delays a call.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace realify::parallel {

namespace detail {
using range_function = void (*)(const void* body, std::size_t first, std::size_t last);
/// Runs body(first, last) over [0, pieces) on up to `threads` threads (see for_ranges).
void run(std::size_t pieces, std::size_t threads, range_function function, const void* body);

/// For tests: every worker sleeps `delay` after joining a job, before it
/// claims a piece (0: no delay) — a worker the scheduler runs late.
void set_worker_delay_for_tests(std::chrono::microseconds delay) noexcept;
/// For tests: how many times a worker joined a job whose pieces were all
/// claimed already (it ran none, and left the job untouched).
std::size_t late_arrivals_for_tests() noexcept;
/// For tests: whether split calls back off on a busy machine (parallel.cpp;
/// on by default): off, they always split, as a test that counts threads
/// needs on a loaded machine. Either way the back-off so far is forgotten.
void set_backoff_for_tests(bool enabled) noexcept;
/// For tests: whether a busy sign has split calls running alone now.
bool backing_off_for_tests() noexcept;
}  // namespace detail

/// The threads worth using for `work` units of a loop whose grain is `grain`
/// (realify::grain): 1 below 2 · grain, else up to one per grain, at most
/// realify::get_num_threads(), and 1 inside a parallel region (the program's
/// OpenMP region, or a piece of a split loop).
std::size_t threads_for(std::size_t work, std::size_t grain) noexcept;

/// Runs body(first, last) for contiguous ranges that cover [0, pieces) once,
/// on up to `threads` threads (fewer when other calls keep workers busy, or
/// inside a parallel region). The calling thread and the workers claim
/// ranges in order as they become free, so cut the work into several pieces
/// per thread; a worker that starts late takes fewer, or none. With one
/// thread, body(0, pieces) runs on the calling thread. The first exception a
/// range throws is rethrown once every claimed range has finished.
template <class F>
void for_ranges(std::size_t pieces, std::size_t threads, const F& body) {
    if (pieces == 0) return;
    if (threads <= 1 || pieces == 1) {
        body(std::size_t{0}, pieces);
        return;
    }
    detail::run(pieces, threads, [](const void* b, std::size_t first, std::size_t last) {
        (*static_cast<const F*>(b))(first, last);
    }, &body);
}

/// The pieces of a loop of `count` units cut into pieces of `piece` units
/// (the last one shorter).
constexpr std::size_t pieces_of(std::size_t count, std::size_t piece) noexcept {
    return piece == 0 ? 0 : (count + piece - 1) / piece;
}

/// The work of `count` elements that cost `cost` units each (src/engine/op_cost.hpp):
/// count · cost, saturated; what threads_for compares with a grain.
constexpr std::size_t weighted(std::size_t count, std::size_t cost) noexcept {
    if (cost <= 1) return count;
    return count > SIZE_MAX / cost ? SIZE_MAX : count * cost;
}

/// The elements of a piece of a loop whose elements cost `cost` units, for
/// the grain `grain`: a quarter of a grain's work (a thread's share stays
/// within a quarter grain of the others'), a multiple of 64 elements (whole
/// cache lines of a contiguous output), at least 64. Sizes alone fix it.
constexpr std::size_t piece_elements(std::size_t grain, std::size_t cost) noexcept {
    const std::size_t elements = grain / 4 / (cost == 0 ? 1 : cost);
    return elements < 64 ? 64 : elements / 64 * 64;
}

}  // namespace realify::parallel
