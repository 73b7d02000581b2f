// Splitting a loop of the compiled library over threads (realify/threads.hpp).
// The loop is cut by its caller into `pieces` that depend on the sizes only
// (or, where a result does not depend on the cut, on the thread count);
// threads run ranges of pieces, so a result computed piece by piece and
// combined in piece order is the same for any thread count.
// OpenMP is used in parallel.cpp alone (compiled with -fopenmp): every other
// translation unit only calls for_ranges.
#pragma once

#include <cstddef>
#include <type_traits>

namespace realify::parallel {

namespace detail {
using range_function = void (*)(const void* body, std::size_t first, std::size_t last);
/// Runs body(first, last) over [0, pieces) on up to `threads` threads (see for_ranges).
void run(std::size_t pieces, std::size_t threads, range_function function, const void* body);
}  // namespace detail

/// The threads worth using for `work` units of a loop whose grain is `grain`
/// (realify::grain): 1 below 2 · grain, else up to one per grain, at most
/// realify::get_num_threads(), and 1 inside a parallel region.
std::size_t threads_for(std::size_t work, std::size_t grain) noexcept;

/// Runs body(first, last) for contiguous ranges that cover [0, pieces) once,
/// on up to `threads` threads (fewer when other calls keep workers busy, or
/// inside a parallel region). The threads claim the ranges in order as they
/// become free, so cut the work into several pieces per thread. With one
/// thread, body(0, pieces) runs on the calling thread without OpenMP. The
/// first exception a range throws is rethrown once every range has finished.
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

}  // namespace realify::parallel
