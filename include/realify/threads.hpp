// How many threads realify's compiled loops use (docs/parallel.md). Large
// calls — the elementwise engine (eager ops, out=, the graph's fused loops),
// the reductions, RoPE and the matrix products — are split over a pool of
// worker threads inside the compiled library realify_simd; the calling
// thread takes pieces too and never waits for a worker that has not
// started. This header has no OpenMP in it, and a program links nothing for
// it but realify itself.
//
//   * Results are identical to the bit for every thread count: work is cut
//     into pieces that depend on the sizes only (never on the number of
//     threads), and partial results are combined in a fixed order.
//   * Calls below the grain sizes below run on the calling thread.
//   * A call made inside the program's own OpenMP parallel region, or from
//     a piece of a realify call being split, runs on the calling thread: no
//     nested splits, no oversubscription.
//   * Calls made at once from several threads of the program share the
//     process-wide count: together they never run more worker threads than
//     get_num_threads() − 1 of the process (a call that finds them busy runs
//     with fewer threads, down to its own thread alone).
#pragma once

#include <cstddef>

#include "realify/version.hpp"

namespace realify {

/// The threads a call made by the calling thread may use (≥ 1): the count
/// of the innermost live scoped_num_threads of this thread, else the
/// process-wide count — set by set_num_threads, else OMP_NUM_THREADS (its
/// first value), else the number of processors.
int get_num_threads() noexcept;

/// Sets the process-wide count (n ≥ 1; realify::error otherwise): the count
/// of every thread without a scoped_num_threads, and the ceiling of the worker
/// threads all concurrent calls use together. Thread-safe.
void set_num_threads(int n);

/// The calling thread's calls use `n` threads (n ≥ 1; realify::error
/// otherwise) until the scope ends; scopes nest. Other threads are not
/// affected. A count above the process-wide one lets this thread's calls use
/// that many threads when no other call is running. Scopes may end in any
/// order (held in std::optional or on the heap): the newest live scope's
/// count is in force, and once all have ended the process-wide count. A
/// scope ends on the thread that began it (ending it on another thread
/// changes nothing there).
class scoped_num_threads {
public:
    explicit scoped_num_threads(int n);
    ~scoped_num_threads();
    scoped_num_threads(const scoped_num_threads&) = delete;
    scoped_num_threads& operator=(const scoped_num_threads&) = delete;

private:
    unsigned long long token_;  // identifies this scope among the thread's live ones
};

/// The work per thread from which a call is split (a call of at least twice
/// the grain), measured on a 2-core machine (docs/parallel.md): below it the
/// cost of waking a second thread (a few microseconds) is not repaid.
/// Counted in elements of the output for the elementwise engine, elements
/// read for the reductions, reals of q and k for RoPE, and real
/// multiply-adds (m · n · k, × 4 for complex) for the matrix products.
namespace grain {
inline constexpr std::size_t elementwise = std::size_t{1} << 16;
inline constexpr std::size_t reduction = std::size_t{1} << 16;
inline constexpr std::size_t rope = std::size_t{1} << 17;
inline constexpr std::size_t gemm = std::size_t{1} << 22;
}  // namespace grain

}  // namespace realify
