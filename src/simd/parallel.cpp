// realify/threads.hpp and parallel.hpp: the thread counts, the budget of
// worker threads shared by concurrent calls, and the one OpenMP parallel
// region of the library. The only translation unit compiled with -fopenmp.
//
// ThreadSanitizer: GCC's libgomp is not instrumented, so TSan cannot see
// that the threads of a team start after the caller has written what they
// read, nor that the caller resumes after they have written their results.
// In a TSan build (__SANITIZE_THREAD__) the region states both edges itself
// (__tsan_release / __tsan_acquire on a per-call address), and the function
// holding the region is not instrumented — OpenMP outlines the region into a
// function that reads the captured variables before any statement of ours
// runs. Everything the threads run (the loops of the library) stays
// instrumented, so races between the ranges of one call, or between calls,
// are reported (docs/testing.md).
#include "parallel.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>

#include "realify/errors.hpp"
#include "realify/threads.hpp"

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
#define REALIFY_TSAN_ACQUIRE(address) __tsan_acquire(address)
#define REALIFY_TSAN_RELEASE(address) __tsan_release(address)
#define REALIFY_NOT_TSAN_INSTRUMENTED __attribute__((no_sanitize_thread))
#else
#define REALIFY_TSAN_ACQUIRE(address) static_cast<void>(address)
#define REALIFY_TSAN_RELEASE(address) static_cast<void>(address)
#define REALIFY_NOT_TSAN_INSTRUMENTED
#endif

namespace realify {

namespace {

std::atomic<int> process_count{0};  // set_num_threads; 0: the default
thread_local int scoped_count = 0;  // the innermost scoped_num_threads of this thread; 0: none
std::atomic<int> busy_workers{0};   // worker threads (callers not counted) in use by all calls

/// OMP_NUM_THREADS (its first value) or the processors, as libgomp reads them.
int default_count() noexcept {
    static const int count = std::max(1, omp_get_max_threads());
    return count;
}

int process_threads() noexcept {
    const int n = process_count.load(std::memory_order_relaxed);
    return n > 0 ? n : default_count();
}

void check_count(const char* function, int n) {
    if (n < 1) throw error(std::string("realify::") + function + ": the thread count must be at least 1, got " + std::to_string(n));
}

/// Takes up to `wanted` workers from the budget (`cap` in use at most); returns how many.
int reserve_workers(int wanted, int cap) noexcept {
    int busy = busy_workers.load(std::memory_order_relaxed);
    for (;;) {
        const int taken = std::min(wanted, cap - busy);
        if (taken <= 0) return 0;
        if (busy_workers.compare_exchange_weak(busy, busy + taken, std::memory_order_relaxed)) return taken;
    }
}

}  // namespace

int get_num_threads() noexcept { return scoped_count > 0 ? scoped_count : process_threads(); }

void set_num_threads(int n) {
    check_count("set_num_threads", n);
    process_count.store(n, std::memory_order_relaxed);
}

scoped_num_threads::scoped_num_threads(int n) : previous_(scoped_count) {
    check_count("scoped_num_threads", n);
    scoped_count = n;
}

scoped_num_threads::~scoped_num_threads() { scoped_count = previous_; }

namespace parallel {

std::size_t threads_for(std::size_t work, std::size_t grain) noexcept {
    if (grain == 0 || work / grain < 2 || omp_in_parallel()) return 1;
    return std::min(work / grain, static_cast<std::size_t>(get_num_threads()));
}

namespace detail {

namespace {

/// The team: its threads claim ranges of `claim` pieces in order until none
/// is left (a thread that starts late, or shares its core, takes fewer);
/// the first exception is kept.
REALIFY_NOT_TSAN_INSTRUMENTED void fork(std::size_t pieces, int threads, range_function function, const void* body,
                                        std::exception_ptr& failure, std::mutex& failure_mutex) {
    const std::size_t claim = std::max<std::size_t>(1, pieces / (8 * static_cast<std::size_t>(threads)));
    std::atomic<std::size_t> next{0};
    char fork_edge = 0, join_edge = 0;
    REALIFY_TSAN_RELEASE(&fork_edge);
#pragma omp parallel num_threads(threads)
    {
        REALIFY_TSAN_ACQUIRE(&fork_edge);
        for (;;) {
            const std::size_t first = next.fetch_add(claim, std::memory_order_relaxed);
            if (first >= pieces) break;
            try {
                function(body, first, std::min(pieces, first + claim));
            } catch (...) {
                const std::lock_guard lock(failure_mutex);
                if (!failure) failure = std::current_exception();
            }
        }
        REALIFY_TSAN_RELEASE(&join_edge);
    }
    REALIFY_TSAN_ACQUIRE(&join_edge);
}

}  // namespace

void run(std::size_t pieces, std::size_t threads, range_function function, const void* body) {
    const std::size_t wanted = std::min({threads, pieces, static_cast<std::size_t>(INT_MAX)});
    const int cap = std::max(process_threads(), get_num_threads()) - 1;
    const int workers = wanted < 2 || omp_in_parallel() ? 0 : reserve_workers(static_cast<int>(wanted) - 1, cap);
    if (workers == 0) {
        function(body, 0, pieces);
        return;
    }
    std::exception_ptr failure;
    std::mutex failure_mutex;
    fork(pieces, workers + 1, function, body, failure, failure_mutex);
    busy_workers.fetch_sub(workers, std::memory_order_relaxed);
    if (failure) std::rethrow_exception(failure);
}

}  // namespace detail
}  // namespace parallel
}  // namespace realify
