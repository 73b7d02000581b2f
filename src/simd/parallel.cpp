// realify/threads.hpp and parallel.hpp: the thread counts, the budget of
// worker threads shared by concurrent calls, and the pool of worker threads
// that runs the pieces of a split loop.
//
// Why a pool of our own rather than an OpenMP team: an OpenMP parallel region
// ends with a barrier that waits for every thread of the team to arrive, so a
// call cannot return before the scheduler has run each of its workers. On a
// machine whose cores are busy with other programs (a library inside its
// users' servers) a worker waits a time slice or more for a core, and a call
// worth 50 µs took milliseconds. Here the caller publishes a job, claims its
// pieces itself like any worker, and returns once every piece it or a worker
// has CLAIMED is done: a worker the scheduler runs late finds nothing left
// and never delays the call.
//
// OpenMP is still read for two facts of the program's own: OMP_NUM_THREADS
// (the default count, as libgomp reads it) and whether the calling thread is
// inside an OpenMP parallel region (then a call runs on that thread alone).
// Everything else is std::thread, std::mutex, std::condition_variable and
// std::atomic, all of which ThreadSanitizer sees (docs/testing.md).
#include "parallel.hpp"

#include <omp.h>
#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "realify/errors.hpp"
#include "realify/threads.hpp"

namespace realify {

namespace {

std::atomic<int> process_count{0};  // set_num_threads; 0: the default
std::atomic<int> busy_workers{0};   // worker threads (callers not counted) reserved by all calls now

/// The live scoped_num_threads of this thread, oldest first: (token, count).
/// A scope that ends removes exactly its own entry (as scoped_arch does), so
/// scopes ended out of order — held in std::optional or on the heap — leave
/// the count of the newest scope still alive, and none once all have ended.
thread_local std::vector<std::pair<unsigned long long, int>> live_scopes;
std::atomic<unsigned long long> next_scope_token{1};  // unique across threads

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

int get_num_threads() noexcept { return live_scopes.empty() ? process_threads() : live_scopes.back().second; }

void set_num_threads(int n) {
    check_count("set_num_threads", n);
    process_count.store(n, std::memory_order_relaxed);
}

scoped_num_threads::scoped_num_threads(int n) : token_(next_scope_token.fetch_add(1, std::memory_order_relaxed)) {
    check_count("scoped_num_threads", n);
    live_scopes.emplace_back(token_, n);
}

// A scope destroyed on another thread than its own finds nothing to remove
// here (tokens are unique): it cannot disturb that thread's counts.
scoped_num_threads::~scoped_num_threads() {
    std::erase_if(live_scopes, [this](const auto& scope) { return scope.first == token_; });
}

namespace parallel {

namespace detail {

namespace {

/// True while this thread runs pieces of a split loop: a call made by a piece
/// runs on its thread alone (no nested split).
thread_local bool in_piece = false;

/// This thread runs pieces while it lives (nested scopes restore the outer state).
struct piece_scope {
    bool outer = std::exchange(in_piece, true);
    piece_scope() = default;
    piece_scope(const piece_scope&) = delete;
    piece_scope& operator=(const piece_scope&) = delete;
    ~piece_scope() { in_piece = outer; }
};

std::atomic<int> worker_delay_us{0};           // set_worker_delay_for_tests
std::atomic<std::size_t> late_arrivals{0};     // workers that joined a job with nothing left to claim

std::int64_t now_ns() noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Backing off on a busy machine. When other programs keep the cores busy, a
// split call can lose to the same call on one thread: a worker is given a
// core late, or is preempted in the middle of a piece and holds it for
// another program's time slice (milliseconds) while the caller waits — and
// the threads of one process share its scheduling weight (a cgroup, Linux's
// autogroup), so two of them each run less often than one alone would.
// Two signs of it, each 250 µs beyond what a quiet machine shows:
//   * a worker takes its seat in a job more than 250 µs after the job was
//     published and finds every piece claimed (the caller ran the call alone
//     and paid for the wake). A worker that is late but still finds pieces is
//     no sign: a virtual machine may take that long to wake an idle core
//     (hundreds of microseconds here and there on the 2-core VM this was
//     measured on) while its cores are free — counting it made a 40 ms
//     product run alone for a second after each slow wake;
//   * a split call that took more than 250 µs longer than the caller alone
//     would have at its own pace (its time per piece, times the pieces): a
//     worker preempted in a piece, the caller waiting for it. Workers that are
//     merely slower than the caller — touching fresh pages (a fault costs
//     10-20 µs on a VM), their caches cold — still shorten the call and are
//     no sign: comparing each side's pace instead (the caller's wait against
//     twice its time per piece, its pieces against twice its fastest) made a
//     decoder layer's products run alone after such calls, and 2 threads
//     gave it nothing.
// After one, split calls run on their calling thread alone for a while: 32
// times the call that saw it (at least 5 ms), doubled at each further sign up
// to a second, so that a call that tries the threads again — and pays a time
// slice if the machine is still busy — is one call in dozens. A split call
// whose workers took pieces with no sign halves that again. On a quiet
// machine no sign appears, and every call that can split does.
constexpr std::int64_t busy_sign_ns = 250'000;
std::atomic<std::int64_t> serial_until_ns{0};
std::atomic<unsigned> busy_signs{0};  // signs seen, ever
std::atomic<int> doublings{0};        // of the time alone, 0 … 8

std::atomic<bool> backoff_enabled{true};  // set_backoff_for_tests

bool backing_off() noexcept {
    return now_ns() < serial_until_ns.load(std::memory_order_relaxed) && backoff_enabled.load(std::memory_order_relaxed);
}

/// Split calls run alone from now on for 32 × `call_ns` (≥ 5 ms), doubled by the signs before.
void back_off(std::int64_t call_ns) noexcept {
    const int twice = std::min(doublings.load(std::memory_order_relaxed), 8);
    const std::int64_t alone = std::min<std::int64_t>(std::max<std::int64_t>(32 * call_ns, 5'000'000) << twice, 1'000'000'000);
    const std::int64_t until = now_ns() + alone;
    std::int64_t current = serial_until_ns.load(std::memory_order_relaxed);
    while (current < until && !serial_until_ns.compare_exchange_weak(current, until, std::memory_order_relaxed)) {
    }
    if (twice < 8) doublings.store(twice + 1, std::memory_order_relaxed);
}

/// A sign seen outside a call's end (a worker late to its seat): the caller
/// backs off at its end; meanwhile the calls starting now run alone too.
void busy_sign(std::int64_t late_ns) noexcept {
    busy_signs.fetch_add(1, std::memory_order_relaxed);
    back_off(late_ns);
}

/// One split loop. A job object belongs to the pool, never to the caller's
/// stack, and is reused only once no thread holds it — see "Lifetime" below.
struct job {
    // Set by the caller before it publishes the job (under the pool's mutex),
    // read-only until every holder has left.
    std::size_t pieces = 0;
    std::size_t claim = 1;  // pieces per claim
    std::int64_t published_at = 0;  // now_ns()
    range_function function = nullptr;
    const void* body = nullptr;
    // The pieces: claimed in order, counted once run.
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> finished{0};
    std::atomic<int> complete{0};  // 1 once finished == pieces (what a waiting caller sleeps on)
    // The first exception a piece threw (written under failure_mutex, read by
    // the caller after `finished` says every piece is done).
    std::mutex failure_mutex;
    std::exception_ptr failure;
    // Who may still join, and who holds it:
    int seats = 0;                   // workers that may still join (under the pool's mutex)
    std::atomic<bool> closed{true};  // set by the caller as it lets go (a worker joining later finds nothing to claim)
    std::atomic<int> holders{0};     // the caller until it returns, each worker that joined until it leaves
};

// Lifetime. The caller waits for its job's pieces, not for its workers: it
// returns once `finished` equals `pieces`. The pieces are the only thing that
// reads the caller's `body`, a piece is run only by the thread that claimed it
// (next.fetch_add below `pieces`), and it counts in `finished` only when it
// has returned — so once the caller returns, no thread will ever call `body`
// again. A worker may still be about to look at the job (it joined, then was
// not run for a while): that is why the job is the pool's object and stays
// valid while any thread holds it (`holders`). The late worker claims, finds
// `next` past `pieces`, and leaves. A job is reused for another call only
// when it is closed and nobody holds it, both read under the pool's mutex,
// under which alone a worker joins (so none joins between that check and the
// reuse); the caller closes it before it lets go.
//
// The caller's own path never waits for the pool's mutex (a worker preempted
// while holding it would make the caller wait a time slice): it publishes
// only if it gets the mutex within a few tries — else it runs the loop alone — and it
// closes and leaves its job with atomics.

/// The threads waiting for pieces to run, and the published jobs.
class pool {
public:
    /// Publishes a job of `pieces` for the caller and `workers` workers, or
    /// returns nullptr when the pool's mutex is held by another thread.
    job* publish(std::size_t pieces, std::size_t claim, range_function function, const void* body, int workers,
                 int cap) {
        job* j = nullptr;
        {
            // A worker that has just run the previous call's last piece holds
            // the mutex for a moment to look for the next job — exactly when
            // back-to-back calls publish: a few tries (well under a
            // microsecond) before running alone.
            std::unique_lock lock(m_mutex, std::try_to_lock);
            for (int attempt = 0; !lock.owns_lock() && attempt < publish_attempts; ++attempt) {
                __builtin_ia32_pause();
                static_cast<void>(lock.try_lock());
            }
            if (!lock.owns_lock()) return nullptr;
            grow(cap);
            // a job closed and held by nobody (`holders`, acquire: its last
            // holder's reads happen before the writes below); its unused
            // seats are given up
            const auto free = std::find_if(m_jobs.begin(), m_jobs.end(), [](const std::unique_ptr<job>& candidate) {
                return candidate->closed.load(std::memory_order_relaxed) &&
                       candidate->holders.load(std::memory_order_acquire) == 0;
            });
            if (free == m_jobs.end()) {
                m_jobs.push_back(std::make_unique<job>());
                j = m_jobs.back().get();
            } else {
                j = free->get();
                std::erase(m_open, j);
            }
            j->pieces = pieces;
            j->claim = claim;
            j->published_at = now_ns();
            j->function = function;
            j->body = body;
            j->next.store(0, std::memory_order_relaxed);
            j->finished.store(0, std::memory_order_relaxed);
            j->complete.store(0, std::memory_order_relaxed);
            j->failure = nullptr;
            j->seats = workers;
            j->holders.store(1, std::memory_order_relaxed);
            j->closed.store(false, std::memory_order_relaxed);
            m_open.push_back(j);
            m_published.fetch_add(1, std::memory_order_release);
        }
        for (int w = 0; w < workers; ++w) m_wake.notify_one();
        return j;
    }

    /// The caller's end of a job: every piece has been claimed; waits until
    /// they are all done, then lets go of the job. Returns its first exception.
    static std::exception_ptr finish(job& j) {
        wait_until_complete(j);
        std::exception_ptr failure = std::move(j.failure);  // `finished` (acquire) orders its write before this
        j.closed.store(true, std::memory_order_relaxed);
        j.holders.fetch_sub(1, std::memory_order_release);
        return failure;
    }

private:
    void grow(int cap) {  // under m_mutex
        while (m_threads < cap) {
            try {
                std::thread(&pool::work, this).detach();
            } catch (const std::system_error&) {
                return;  // no more threads: the callers claim the pieces themselves
            }
            ++m_threads;
        }
    }

    /// A published job with a free seat, taken (under m_mutex), or nullptr.
    /// The job may be closed already: a worker woken for it that comes late
    /// still takes its seat, finds nothing to claim — and reports how late it
    /// came (busy_sign).
    job* take_seat() {
        const auto open = std::find_if(m_open.begin(), m_open.end(), [](const job* j) { return j->seats > 0; });
        if (open == m_open.end()) return nullptr;
        job* const j = *open;
        j->holders.fetch_add(1, std::memory_order_relaxed);
        if (--j->seats == 0) m_open.erase(open);
        return j;
    }

    /// A worker thread: takes seats of jobs and runs pieces until the process ends.
    void work() {
        pthread_setname_np(pthread_self(), "realify");
        std::unique_lock lock(m_mutex);
        for (;;) {
            job* j = take_seat();
            if (j == nullptr) {
                // Calls often come back to back: watch for the next one for a
                // moment before sleeping (a futex wake costs the caller a few
                // microseconds and the woken thread several more) — unless the
                // scheduler has taken the core from this thread since it last
                // looked: then other programs want the cores, and a spin would
                // only spend this thread's share.
                if (!preempted_since_last_asked()) {
                    const unsigned seen = m_published.load(std::memory_order_relaxed);
                    lock.unlock();
                    spin_while([&] { return m_published.load(std::memory_order_relaxed) == seen; }, worker_spin);
                    lock.lock();
                    j = take_seat();
                }
                if (j == nullptr) {
                    m_wake.wait(lock);
                    continue;
                }
            }
            lock.unlock();
            if (const int delay = worker_delay_us.load(std::memory_order_relaxed); delay > 0)
                std::this_thread::sleep_for(std::chrono::microseconds(delay));  // as if the scheduler ran it late
            const std::int64_t late = now_ns() - j->published_at;
            if (run_pieces(*j) == 0 && j->next.load(std::memory_order_relaxed) >= j->pieces) {
                late_arrivals.fetch_add(1, std::memory_order_relaxed);
                if (late > busy_sign_ns) busy_sign(late);  // given a core after the call was done
            }
            j->holders.fetch_sub(1, std::memory_order_release);
            lock.lock();
        }
    }

    /// Whether the scheduler preempted this thread (an involuntary context
    /// switch) since the last call of this function on it.
    static bool preempted_since_last_asked() noexcept {
        thread_local long last = -1;
        rusage usage{};
        if (getrusage(RUSAGE_THREAD, &usage) != 0) return true;
        const bool preempted = usage.ru_nivcsw != last;
        last = usage.ru_nivcsw;
        return preempted;
    }

    /// Spins (pausing) while keep_spinning() holds, for at most `limit`.
    template <class Predicate>
    static void spin_while(Predicate keep_spinning, std::chrono::nanoseconds limit) {
        const auto end = std::chrono::steady_clock::now() + limit;
        for (unsigned i = 1; keep_spinning(); ++i) {
            __builtin_ia32_pause();
            if (i % 64 == 0 && std::chrono::steady_clock::now() >= end) return;
        }
    }

    /// The caller's wait for the pieces workers still run: a spin (they are
    /// running, most end within microseconds), then a sleep on `complete`
    /// (a worker the scheduler took the core from may need a time slice).
    static void wait_until_complete(job& j) {
        spin_while([&] { return j.finished.load(std::memory_order_acquire) != j.pieces; }, caller_spin);
        while (j.finished.load(std::memory_order_acquire) != j.pieces) j.complete.wait(0, std::memory_order_acquire);
    }

public:
    /// Claims and runs pieces of `j` until none is left; returns how many this thread ran.
    static std::size_t run_pieces(job& j) noexcept {
        const piece_scope scope;
        std::size_t ran = 0;
        // `next` may pass `pieces` by a claim per thread: pieces ≤ SIZE_MAX / 2 in practice
        while (j.next.load(std::memory_order_relaxed) < j.pieces) {
            const std::size_t first = j.next.fetch_add(j.claim, std::memory_order_relaxed);
            if (first >= j.pieces) break;
            const std::size_t last = std::min(j.pieces, first + j.claim);
            try {
                j.function(j.body, first, last);
            } catch (...) {
                const std::lock_guard lock(j.failure_mutex);
                if (!j.failure) j.failure = std::current_exception();
            }
            ran += last - first;
            if (j.finished.fetch_add(last - first, std::memory_order_acq_rel) + (last - first) == j.pieces) {
                j.complete.store(1, std::memory_order_release);
                j.complete.notify_one();
            }
        }
        return ran;
    }

private:
    static constexpr int publish_attempts = 64;
    static constexpr std::chrono::nanoseconds worker_spin = std::chrono::microseconds(50);
    static constexpr std::chrono::nanoseconds caller_spin = std::chrono::microseconds(100);

    std::mutex m_mutex;
    std::condition_variable m_wake;  // a job was published
    std::atomic<unsigned> m_published{0};
    std::vector<job*> m_open;  // published jobs with seats left, oldest first (closed ones too, until reused)
    std::vector<std::unique_ptr<job>> m_jobs;
    int m_threads = 0;
};

// The pool is created on first use and never destroyed: its threads sleep in
// it until the process ends (a static destructor would have to join threads
// that other static destructors may still be using).
//
// fork(): the child has only the forking thread, not the pool's threads, and
// the pool's mutex may have been held by one of them. The child therefore
// forgets the pool (a new one is made on its first split call) and the budget
// reserved by calls of the parent's other threads.
std::atomic<pool*> current_pool{nullptr};
std::mutex pool_creation;

void before_fork() { pool_creation.lock(); }
void after_fork_in_parent() { pool_creation.unlock(); }
void after_fork_in_child() {
    current_pool.store(nullptr, std::memory_order_relaxed);
    busy_workers.store(0, std::memory_order_relaxed);
    pool_creation.unlock();
}

pool& the_pool() {
    if (pool* p = current_pool.load(std::memory_order_acquire)) return *p;
    const std::lock_guard lock(pool_creation);
    pool* p = current_pool.load(std::memory_order_relaxed);
    if (p == nullptr) {
        static const bool registered = pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child) == 0;
        static_cast<void>(registered);
        p = new pool;  // never deleted (see above)
        current_pool.store(p, std::memory_order_release);
    }
    return *p;
}

bool serial_here() noexcept { return in_piece || omp_in_parallel() != 0; }

}  // namespace

void run(std::size_t pieces, std::size_t threads, range_function function, const void* body) {
    const std::size_t wanted = std::min({threads, pieces, static_cast<std::size_t>(INT_MAX)});
    const int cap = std::max(process_threads(), get_num_threads()) - 1;
    const int workers =
        wanted < 2 || serial_here() || backing_off() ? 0 : reserve_workers(static_cast<int>(wanted) - 1, cap);
    job* published = nullptr;
    const std::size_t claim = std::max<std::size_t>(1, pieces / (8 * static_cast<std::size_t>(workers + 1)));
    if (workers > 0) {
        try {
            published = the_pool().publish(pieces, claim, function, body, workers, cap);
        } catch (const std::exception&) {  // no memory for the pool's books: the caller runs the loop alone
        }
    }
    if (published == nullptr) {
        if (workers > 0) busy_workers.fetch_sub(workers, std::memory_order_relaxed);
        // pieces still, though on this thread alone (backing off, or the
        // budget spent): a call a piece makes does not split either
        const piece_scope scope;
        function(body, 0, pieces);
        return;
    }
    const unsigned signs_before = busy_signs.load(std::memory_order_relaxed);
    const std::int64_t start = now_ns();
    const std::size_t mine = pool::run_pieces(*published);
    const std::int64_t claimed_all = now_ns();
    const std::exception_ptr failure = pool::finish(*published);
    busy_workers.fetch_sub(workers, std::memory_order_relaxed);
    const std::int64_t took = now_ns() - start;
    // the whole call at the caller's own pace (none when the workers took every piece)
    const std::int64_t alone = mine == 0 ? took : (claimed_all - start) / static_cast<std::int64_t>(mine) *
                                                          static_cast<std::int64_t>(pieces);
    if (took > alone + busy_sign_ns || busy_signs.load(std::memory_order_relaxed) != signs_before) {
        back_off(took);  // waited for a preempted worker, or a worker came late
    } else if (mine < pieces) {  // workers took pieces in time
        if (const int twice = doublings.load(std::memory_order_relaxed); twice > 0)
            doublings.store(twice - 1, std::memory_order_relaxed);
    }
    if (failure) std::rethrow_exception(failure);
}

void set_worker_delay_for_tests(std::chrono::microseconds delay) noexcept {
    worker_delay_us.store(static_cast<int>(delay.count()), std::memory_order_relaxed);
}

std::size_t late_arrivals_for_tests() noexcept { return late_arrivals.load(std::memory_order_relaxed); }

void set_backoff_for_tests(bool enabled) noexcept {
    serial_until_ns.store(0, std::memory_order_relaxed);
    doublings.store(0, std::memory_order_relaxed);
    backoff_enabled.store(enabled, std::memory_order_relaxed);
}

bool backing_off_for_tests() noexcept { return now_ns() < serial_until_ns.load(std::memory_order_relaxed); }

}  // namespace detail

std::size_t threads_for(std::size_t work, std::size_t grain) noexcept {
    if (grain == 0 || work / grain < 2 || detail::serial_here()) return 1;
    return std::min(work / grain, static_cast<std::size_t>(get_num_threads()));
}

}  // namespace parallel
}  // namespace realify
