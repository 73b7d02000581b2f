// realify on several threads (realify/threads.hpp): the controls; results
// identical to the bit on 1 and on N threads for every op family that is
// split (the elementwise engine eager and out=, the graph's fused loops and
// its SIMD row route, the reductions and the scan, the matrix products,
// RoPE), on odd sizes around the grain sizes and on strided, broadcast and
// reversed layouts; that large calls do use several threads and small ones
// do not; programs mixing them and einsum; calls from several threads of
// the program at once (the row ops, products and RoPE among them), and from
// inside the program's own OpenMP parallel region (no nested teams, no more
// workers than the process-wide count); the pool itself: every piece once,
// exceptions, a worker that starts late, fork(). This executable is also the
// ThreadSanitizer job of CI (docs/testing.md).
#include <gtest/gtest.h>

#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <complex>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "engine/op_cost.hpp"
#include "realify/realify.hpp"
#include "realify/threads.hpp"
#include "simd/kernel_table.hpp"
#include "simd/parallel.hpp"

#include "../support/arch_levels.hpp"

namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;
namespace graph = realify::graph;
namespace engine = realify::engine;

constexpr std::size_t g_elementwise = realify::grain::elementwise;
constexpr std::size_t g_reduction = realify::grain::reduction;

/// ThreadSanitizer runs every access some ten times slower: fewer sizes and
/// counts there (the races it looks for do not need them).
#if defined(__SANITIZE_THREAD__)
constexpr bool under_tsan = true;
#else
constexpr bool under_tsan = false;
#endif

/// The thread counts compared with one thread (more than the cores: the
/// split must not depend on them either).
const std::vector<int> thread_counts = under_tsan ? std::vector<int>{3} : std::vector<int>{2, 3, 4};

template <class C>
xt::xarray<C> random_tensor(const std::vector<std::size_t>& shape, unsigned seed, double low = -2, double high = 2) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> u(low, high);
    xt::xarray<C> x = xt::xarray<C>::from_shape(shape);
    for (auto& v : x) {
        if constexpr (std::is_floating_point_v<C>) v = static_cast<C>(u(engine));
        else v = C(static_cast<typename C::value_type>(u(engine)), static_cast<typename C::value_type>(u(engine)));
    }
    return x;
}

/// Unit-modulus values: a long product stays finite.
template <class T>
xt::xarray<std::complex<T>> unit_phases(const std::vector<std::size_t>& shape, unsigned seed) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> u(-3.14, 3.14);
    xt::xarray<std::complex<T>> x = xt::xarray<std::complex<T>>::from_shape(shape);
    for (auto& v : x) v = std::polar(T(1), static_cast<T>(u(engine)));
    return x;
}

/// Bitwise equality of two tensors' elements (NaNs of equal bits compare equal).
template <class A, class B>
void expect_same_bits(const A& a, const B& b, const std::string& what) {
    ASSERT_EQ(a.dimension(), b.dimension()) << what;
    ASSERT_TRUE(std::equal(a.shape().begin(), a.shape().end(), b.shape().begin())) << what;
    using V = typename A::value_type;
    const xt::xarray<V> x = a, y = b;  // contiguous copies (the results may be views)
    std::size_t differing = 0, first = x.size();
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::memcmp(&x.data()[i], &y.data()[i], sizeof(V)) == 0) continue;
        if (differing++ == 0) first = i;
    }
    EXPECT_EQ(differing, 0u) << what << ": " << differing << " of " << x.size() << " elements differ, the first at " << first;
}

/// f() on one thread and on each of thread_counts: identical bits.
template <class F>
void expect_thread_count_invariant(const std::string& what, F f) {
    const auto reference = [&] {
        const realify::scoped_num_threads one(1);
        return f();
    }();
    for (int n : thread_counts) {
        const realify::scoped_num_threads many(n);
        expect_same_bits(f(), reference, what + " (" + std::to_string(n) + " threads)");
    }
}

/// The grain of an op in elements: grain::elementwise units of work, each
/// element costing the op's cost (src/engine/op_cost.hpp).
std::size_t grain_of(realify::op_id op) { return g_elementwise / realify::engine::op_cost(op); }

/// Sizes around a grain: just below two grains (one thread), just above,
/// and odd sizes further up.
std::vector<std::size_t> sizes_around(std::size_t grain) {
    if (under_tsan) return {3 * grain + 17};
    return {2 * grain - 1, 2 * grain + 1, 3 * grain + 17, 5 * grain + 3};
}

// ---- the controls ---------------------------------------------------------------------------------

TEST(Threads, SetGetAndScopes) {
    const int process = realify::get_num_threads();
    EXPECT_GE(process, 1);
    realify::set_num_threads(3);
    EXPECT_EQ(realify::get_num_threads(), 3);
    {
        const realify::scoped_num_threads outer(1);
        EXPECT_EQ(realify::get_num_threads(), 1);
        {
            const realify::scoped_num_threads inner(5);
            EXPECT_EQ(realify::get_num_threads(), 5);
            // another thread sees the process-wide count, not this thread's scope
            int seen = 0;
            std::thread([&] { seen = realify::get_num_threads(); }).join();
            EXPECT_EQ(seen, 3);
        }
        EXPECT_EQ(realify::get_num_threads(), 1);
    }
    EXPECT_EQ(realify::get_num_threads(), 3);
    realify::set_num_threads(process);
}

// Scopes held in std::optional (or on the heap) may end in another order
// than they began: each removes only itself, as simd::scoped_arch does.
TEST(Threads, ScopesEndedOutOfOrder) {
    const int process = realify::get_num_threads();
    std::optional<realify::scoped_num_threads> first, second, third;
    first.emplace(2);
    second.emplace(3);
    third.emplace(5);
    EXPECT_EQ(realify::get_num_threads(), 5);
    second.reset();  // a middle scope ends: the newest still rules
    EXPECT_EQ(realify::get_num_threads(), 5);
    first.reset();
    EXPECT_EQ(realify::get_num_threads(), 5);
    third.reset();
    EXPECT_EQ(realify::get_num_threads(), process) << "every scope ended: the process-wide count";
    first.emplace(2);
    second.emplace(3);
    first.reset();  // the older ends first: the newer's count stays
    EXPECT_EQ(realify::get_num_threads(), 3);
    second.reset();
    EXPECT_EQ(realify::get_num_threads(), process);
    // a scope ended on another thread changes nothing there, nor here
    auto moved = std::make_unique<realify::scoped_num_threads>(4);
    std::thread([&] {
        moved.reset();
        EXPECT_EQ(realify::get_num_threads(), process);
    }).join();
    EXPECT_EQ(realify::get_num_threads(), 4) << "the scope is still this thread's";
}

TEST(Threads, RefusesCountsBelowOne) {
    EXPECT_THROW(realify::set_num_threads(0), realify::error);
    EXPECT_THROW(realify::set_num_threads(-2), realify::error);
    EXPECT_THROW(realify::scoped_num_threads(0), realify::error);
    try {
        realify::set_num_threads(0);
    } catch (const realify::error& e) {
        EXPECT_NE(std::string(e.what()).find("realify::set_num_threads"), std::string::npos) << e.what();
    }
}

// Run by ctest with OMP_NUM_THREADS set (threads_environment): the default count is its first value.
TEST(ThreadsEnvironment, DefaultIsOmpNumThreads) {
    const char* value = std::getenv("OMP_NUM_THREADS");
    if (value == nullptr) GTEST_SKIP() << "OMP_NUM_THREADS is not set";
    EXPECT_EQ(realify::get_num_threads(), std::atoi(value));
}

// ---- the pool: pieces claimed by the caller and the workers ----------------------------------------

namespace parallel = realify::parallel;

/// Split calls always split while it lives: on a loaded machine (CI runs
/// tests side by side) the pool backs off, and a test that counts threads
/// would count one.
struct always_split {
    always_split() { parallel::detail::set_backoff_for_tests(false); }
    ~always_split() { parallel::detail::set_backoff_for_tests(true); }
    always_split(const always_split&) = delete;
    always_split& operator=(const always_split&) = delete;
};

/// Per piece: how many times it ran, and whether it ran after its call returned.
struct piece_log {
    explicit piece_log(std::size_t pieces) : runs(pieces) {}
    std::vector<std::atomic<int>> runs;
    std::atomic<bool> call_returned{false};
    std::atomic<int> after_return{0};
    void run(std::size_t first, std::size_t last) {
        if (call_returned.load()) ++after_return;
        for (std::size_t i = first; i < last; ++i) ++runs[i];
    }
    bool each_once() const {
        return std::all_of(runs.begin(), runs.end(), [](const std::atomic<int>& r) { return r.load() == 1; });
    }
};

TEST(ThreadsPool, EveryPieceRunsOnceOnAnyNumberOfThreads) {
    for (int threads : {1, 2, 3, 4, 8}) {
        const realify::scoped_num_threads scope(threads);
        for (std::size_t pieces : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, std::size_t{1000}}) {
            piece_log log(pieces);
            parallel::for_ranges(pieces, static_cast<std::size_t>(threads), [&](std::size_t a, std::size_t b) {
                ASSERT_LT(a, b);
                ASSERT_LE(b, pieces);
                log.run(a, b);
            });
            EXPECT_TRUE(log.each_once()) << pieces << " pieces on " << threads << " threads";
        }
    }
}

TEST(ThreadsPool, ThePiecesOfACallRunNoSplitOfTheirOwn) {
    const realify::scoped_num_threads four(4);
    std::atomic<int> nested_threads{0}, pieces_run{0};
    parallel::for_ranges(16, 4, [&](std::size_t a, std::size_t b) {
        nested_threads += static_cast<int>(parallel::threads_for(std::size_t{1} << 40, 1)) - 1;
        pieces_run += static_cast<int>(b - a);
    });
    EXPECT_EQ(pieces_run.load(), 16);
    EXPECT_EQ(nested_threads.load(), 0) << "a call made by a piece runs on its thread alone";
    EXPECT_EQ(parallel::threads_for(std::size_t{1} << 40, 1), 4u) << "outside a piece the count is back";
}

TEST(ThreadsPool, AnExceptionFromAPieceIsRethrownOnce) {
    for (int threads : {1, 2, 4}) {
        const realify::scoped_num_threads scope(threads);
        for (std::size_t throwing : {std::size_t{0}, std::size_t{37}, std::size_t{99}}) {
            std::atomic<int> running{0};
            std::atomic<bool> returned{false};
            int caught = 0;
            try {
                parallel::for_ranges(100, static_cast<std::size_t>(threads), [&](std::size_t a, std::size_t b) {
                    ++running;
                    if (returned.load()) ADD_FAILURE() << "a piece ran after the call returned";
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                    --running;
                    if (a <= throwing && throwing < b) throw std::runtime_error("piece " + std::to_string(throwing));
                    if (a <= 50 && 50 < b) throw std::runtime_error("piece 50");  // a second failure: still one exception
                });
            } catch (const std::runtime_error& e) {
                ++caught;
                EXPECT_EQ(running.load(), 0) << "rethrown only once no piece runs";
                const std::string what = e.what();
                EXPECT_TRUE(what == "piece " + std::to_string(throwing) || what == "piece 50") << what;
            }
            returned = true;
            EXPECT_EQ(caught, 1) << threads << " threads";
        }
    }
    // the pool keeps working
    const realify::scoped_num_threads two(2);
    piece_log log(64);
    parallel::for_ranges(64, 2, [&](std::size_t a, std::size_t b) { log.run(a, b); });
    EXPECT_TRUE(log.each_once());
}

// A worker the scheduler runs late (here: a worker that sleeps after joining
// a job) finds the pieces claimed by the caller, which has returned; it must
// not call the body, whose captures are gone, nor disturb the next calls.
TEST(ThreadsPool, ALateWorkerNeverTouchesAFinishedJob) {
    const realify::scoped_num_threads four(4);
    const auto delay = std::chrono::milliseconds(under_tsan ? 100 : 30);
    const std::size_t late_before = parallel::detail::late_arrivals_for_tests();
    parallel::detail::set_worker_delay_for_tests(delay);
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<piece_log>> logs;
    for (int call = 0; call < 6; ++call) {
        logs.push_back(std::make_unique<piece_log>(256));
        piece_log& log = *logs.back();
        {
            std::vector<int> caller_state(256, 0);  // gone when the call's scope ends
            parallel::for_ranges(256, 4, [&](std::size_t a, std::size_t b) {
                log.run(a, b);
                for (std::size_t i = a; i < b; ++i) ++caller_state[i];
            });
            EXPECT_TRUE(std::all_of(caller_state.begin(), caller_state.end(), [](int v) { return v == 1; }));
        }
        log.call_returned = true;
    }
    const auto calls_took = std::chrono::steady_clock::now() - start;
    parallel::detail::set_worker_delay_for_tests(std::chrono::microseconds(0));
    // the six calls did not wait for the sleeping workers
    EXPECT_LT(calls_took, delay) << "a call waited for a worker that had not started";
    // let the late workers wake, find nothing and leave
    for (int i = 0; i < 200 && parallel::detail::late_arrivals_for_tests() == late_before; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(delay * 2);
    EXPECT_GT(parallel::detail::late_arrivals_for_tests(), late_before) << "no worker arrived late: the test tested nothing";
    for (const auto& log : logs) {
        EXPECT_TRUE(log->each_once());
        EXPECT_EQ(log->after_return.load(), 0) << "a piece ran after its call returned";
    }
    // the pool serves the next calls, workers included
    const always_split split;
    std::size_t most = 0;
    for (int i = 0; i < 50 && most < 2; ++i) {
        std::mutex m;
        std::set<std::thread::id> ids;
        parallel::for_ranges(64, 2, [&](std::size_t, std::size_t) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            const std::lock_guard lock(m);
            ids.insert(std::this_thread::get_id());
        });
        most = std::max(most, ids.size());
    }
    EXPECT_EQ(most, 2u);
}

// fork(): the child has the calling thread only; its split calls must not
// wait for the parent's workers (pthread_atfork gives it a pool of its own).
// A worker that comes late is a sign of a busy machine: for a while split
// calls run on their calling thread alone (src/simd/parallel.cpp).
TEST(ThreadsPool, AfterALateWorkerSplitCallsRunAloneForAWhile) {
    const realify::scoped_num_threads two(2);
    parallel::detail::set_backoff_for_tests(true);
    ASSERT_FALSE(parallel::detail::backing_off_for_tests());
    const std::size_t late_before = parallel::detail::late_arrivals_for_tests();
    parallel::detail::set_worker_delay_for_tests(std::chrono::milliseconds(2));
    piece_log log(64);
    parallel::for_ranges(64, 2, [&](std::size_t a, std::size_t b) { log.run(a, b); });
    for (int i = 0; i < 400 && parallel::detail::late_arrivals_for_tests() == late_before; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    parallel::detail::set_worker_delay_for_tests(std::chrono::microseconds(0));
    ASSERT_GT(parallel::detail::late_arrivals_for_tests(), late_before);
    EXPECT_TRUE(log.each_once());
    EXPECT_TRUE(parallel::detail::backing_off_for_tests()) << "a worker 2 ms late is a sign of a busy machine";
    std::mutex m;
    std::set<std::thread::id> ids;
    std::size_t nested = 0;
    parallel::for_ranges(64, 2, [&](std::size_t, std::size_t) {
        const std::lock_guard lock(m);
        ids.insert(std::this_thread::get_id());
        nested = std::max(nested, parallel::threads_for(std::size_t{1} << 40, 1));
    });
    EXPECT_EQ(ids.size(), 1u) << "backing off: the calling thread alone";
    EXPECT_EQ(nested, 1u) << "a piece run alone is still a piece: a call it makes does not split";
    EXPECT_EQ(*ids.begin(), std::this_thread::get_id());
    parallel::detail::set_backoff_for_tests(true);  // forgets it
    EXPECT_FALSE(parallel::detail::backing_off_for_tests());
}

TEST(ThreadsPool, AChildAfterForkRunsSplitCalls) {
    if (under_tsan) GTEST_SKIP() << "ThreadSanitizer does not support fork() of a threaded process well";
    const realify::scoped_num_threads two(2);
    piece_log warm(64);
    parallel::for_ranges(64, 2, [&](std::size_t a, std::size_t b) { warm.run(a, b); });  // the pool exists
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        const realify::scoped_num_threads in_child(2);
        std::atomic<std::size_t> sum{0};
        for (int call = 0; call < 20; ++call)
            parallel::for_ranges(1000, 2, [&](std::size_t a, std::size_t b) {
                for (std::size_t i = a; i < b; ++i) sum += i;
            });
        _exit(sum.load() == 20 * 999 * 1000 / 2 ? 0 : 1);
    }
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 2000 && done == 0; ++i) {  // 20 s at most
        done = waitpid(child, &status, WNOHANG);
        if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (done == 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        FAIL() << "the child's split calls hung";
    }
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

// ---- who runs a call: a user kernel of the engine records its threads -------------------------------

/// A block kernel that copies its complex<float> input and records the threads that run it.
struct recorder {
    std::thread::id caller;
    std::mutex mutex;
    std::set<std::thread::id> threads;
    std::atomic<int>* active_workers = nullptr;  // blocks run by threads other than the caller, now
    std::atomic<int>* most_active = nullptr;
    std::chrono::microseconds pause{0};

    static void run(const engine::block_kernel& self, const void* const* in, const bool*, void* out, std::size_t n, bool) {
        auto& r = *const_cast<recorder*>(static_cast<const recorder*>(self.object));
        const bool worker = std::this_thread::get_id() != r.caller;
        if (worker && r.active_workers != nullptr) {
            const int now = r.active_workers->fetch_add(1) + 1;
            int most = r.most_active->load();
            while (now > most && !r.most_active->compare_exchange_weak(most, now)) {
            }
        }
        {
            const std::lock_guard lock(r.mutex);
            r.threads.insert(std::this_thread::get_id());
        }
        if (r.pause.count() > 0) std::this_thread::sleep_for(r.pause);
        std::memcpy(out, in[0], 2 * n * sizeof(float));
        if (worker && r.active_workers != nullptr) r.active_workers->fetch_sub(1);
    }
};

engine::tensor_ref ref_of(std::vector<cf>& v) {
    engine::tensor_ref t;
    t.data = v.data();
    t.type = engine::component::float32;
    t.complex = true;
    t.shape = engine::make_dims("test", std::array<std::size_t, 1>{v.size()});
    t.strides[0] = 2;
    return t;
}

/// The threads that ran one engine call over n elements (of `cost` each).
std::size_t threads_of_call(std::size_t n, recorder& r, std::size_t cost = 1) {
    std::vector<cf> x(n, cf(1, 2)), y(n);
    engine::block_kernel k;
    k.run = &recorder::run;
    k.compute = engine::component::float32;
    k.complex_inputs = {true};
    k.complex_output = true;
    k.object = &r;
    k.cost = cost;
    r.caller = std::this_thread::get_id();
    r.threads.clear();
    const engine::tensor_ref in = ref_of(x), out = ref_of(y);
    engine::evaluate("recorder", std::span(&in, 1), out, k);
    EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](cf v) { return v == cf(1, 2); }));
    return r.threads.size();
}

TEST(ThreadsEngine, LargeCallsUseSeveralThreadsSmallOnesOne) {
    const always_split split;
    recorder r;
    r.pause = std::chrono::microseconds(100);  // a worker that starts late still finds pieces left
    {
        const realify::scoped_num_threads two(2);
        EXPECT_EQ(threads_of_call(2 * g_elementwise - 1, r), 1u) << "below two grains: the calling thread alone";
        // the pieces go to whichever thread is free: on a busy machine a
        // call may finish before its worker starts, but not every call
        std::size_t most = 0;
        for (int i = 0; i < 20 && most < 2; ++i) most = std::max(most, threads_of_call(4 * g_elementwise, r));
        EXPECT_EQ(most, 2u);
    }
    const realify::scoped_num_threads one(1);
    EXPECT_EQ(threads_of_call(4 * g_elementwise, r), 1u);
}

/// The program's own parallel region (OpenMP outlines it): TSan is told
/// where the team starts and ends — libgomp is not instrumented. (realify's
/// own threads are a pool of std::threads, which TSan sees.)
#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
#define TEST_NOT_TSAN_INSTRUMENTED __attribute__((no_sanitize_thread))
#else
#define TEST_NOT_TSAN_INSTRUMENTED
inline void __tsan_acquire(void*) {}
inline void __tsan_release(void*) {}
#endif
TEST_NOT_TSAN_INSTRUMENTED void user_parallel_region(int threads, const std::function<void(int)>& body) {
    char fork_edge = 0, join_edge = 0;
    __tsan_release(&fork_edge);
#pragma omp parallel num_threads(threads)
    {
        __tsan_acquire(&fork_edge);
        body(omp_get_thread_num());
        __tsan_release(&join_edge);
    }
    __tsan_acquire(&join_edge);
}

TEST(ThreadsEngine, CallsInsideAParallelRegionRunOnTheirThread) {
    const realify::scoped_num_threads two(2);
    std::array<std::size_t, 2> used{};
    std::array<recorder, 2> recorders;
    std::array<int, 2> team{};
    user_parallel_region(2, [&](int t) {
        team[static_cast<std::size_t>(t)] = omp_get_num_threads();
        used[static_cast<std::size_t>(t)] = threads_of_call(4 * g_elementwise, recorders[static_cast<std::size_t>(t)]);
    });
    if (team[0] < 2) GTEST_SKIP() << "the region got one thread";
    EXPECT_EQ(used[0], 1u);
    EXPECT_EQ(used[1], 1u);
}

TEST(ThreadsEngine, ConcurrentCallsShareTheWorkerBudget) {
    const always_split split;
    realify::set_num_threads(2);  // one worker thread for the whole process
    std::atomic<int> active{0}, most{0};
    std::vector<std::thread> users;
    std::atomic<std::size_t> parallel_calls{0};
    for (int u = 0; u < 4; ++u) {
        users.emplace_back([&] {
            recorder r;
            r.active_workers = &active;
            r.most_active = &most;
            r.pause = std::chrono::microseconds(200);
            for (int i = 0; i < 6; ++i)
                if (threads_of_call(4 * g_elementwise, r) > 1) ++parallel_calls;
        });
    }
    for (auto& t : users) t.join();
    EXPECT_LE(most.load(), 1) << "more workers ran at once than set_num_threads(2) allows";
    EXPECT_GT(parallel_calls.load(), 0u);
}

// ---- the elementwise engine ----------------------------------------------------------------------

template <class C>
void check_elementwise() {
    for (std::size_t n : sizes_around(g_elementwise)) {
        const std::string size = " n=" + std::to_string(n);
        const xt::xarray<C> x = random_tensor<C>({n}, 1), y = random_tensor<C>({n}, 2);
        expect_thread_count_invariant("exp" + size, [&] { return xt::xarray<C>(realify::exp(x)); });
        expect_thread_count_invariant("add" + size, [&] { return xt::xarray<C>(realify::add(x, y)); });
        expect_thread_count_invariant("abs" + size, [&] { return realify::abs(x); });
        if (!under_tsan) {
            expect_thread_count_invariant("log" + size, [&] { return xt::xarray<C>(realify::log(x)); });
            expect_thread_count_invariant("sin" + size, [&] { return xt::xarray<C>(realify::sin(x)); });
            expect_thread_count_invariant("tanh" + size, [&] { return xt::xarray<C>(realify::tanh(x)); });
            expect_thread_count_invariant("conj" + size, [&] { return xt::xarray<C>(realify::conj(x)); });
            expect_thread_count_invariant("div" + size, [&] { return xt::xarray<C>(realify::div(x, y)); });
        }
        expect_thread_count_invariant("mul out=" + size, [&] {
            xt::xarray<C> o = xt::zeros<C>({n});
            realify::mul(x, y, realify::out(o));
            return o;
        });
        expect_thread_count_invariant("exp in place" + size, [&] {
            xt::xarray<C> o = x;
            realify::exp(o, realify::out(o));
            return o;
        });
        expect_thread_count_invariant("mul by a number" + size, [&] { return xt::xarray<C>(realify::mul(x, C(0.5, -2))); });
        // reversed and stepped inputs (negative and non-unit strides), a strided output
        const auto reversed = xt::view(x, xt::range(xt::placeholders::_, xt::placeholders::_, -1));
        const auto stepped = xt::view(y, xt::range(0, n, 2));
        expect_thread_count_invariant("mul reversed · stepped" + size, [&] {
            xt::xarray<C> o = xt::zeros<C>({2 * stepped.size()});
            auto every_other = xt::view(o, xt::range(1, 2 * stepped.size(), 2));
            realify::mul(xt::view(reversed, xt::range(0, stepped.size())), stepped, realify::out(every_other));
            return o;
        });
        // a real int tensor converted block by block (the gather path)
        const xt::xarray<int> k = xt::cast<int>(random_tensor<double>({n}, 3, -100, 100));
        expect_thread_count_invariant("add int + complex" + size, [&] { return xt::xarray<C>(realify::add(k, x)); });
    }
    // broadcast (m, 1) · (1, n) and a transposed operand: many rows
    const xt::xarray<C> col = random_tensor<C>({301, 1}, 4), row = random_tensor<C>({1, 769}, 5);
    const xt::xarray<C> square = random_tensor<C>({769, 301}, 6);
    expect_thread_count_invariant("broadcast mul", [&] { return xt::xarray<C>(realify::mul(col, row)); });
    expect_thread_count_invariant("transposed add", [&] {
        return xt::xarray<C>(realify::add(xt::transpose(square), realify::mul(col, row)));
    });
    // short rows repeated along the axis outside them (RoPE's freqs_cis over
    // the heads, a bias): tiles of rows, cut anywhere by the pieces
    const xt::xarray<C> heads = random_tensor<C>({3, 67, 29, 24}, 7), freqs = random_tensor<C>({1, 67, 1, 24}, 8);
    const xt::xarray<C> bias = random_tensor<C>({24}, 9);
    expect_thread_count_invariant("mul by rows repeated over heads", [&] { return xt::xarray<C>(realify::mul(heads, freqs)); });
    expect_thread_count_invariant("add a bias", [&] { return xt::xarray<C>(realify::add(heads, bias)); });
}

TEST(ThreadsElementwise, OneAndManyThreadsAgreeFloat) { check_elementwise<cf>(); }
TEST(ThreadsElementwise, OneAndManyThreadsAgreeDouble) { check_elementwise<cd>(); }

// Each op splits from its own grain (2 · grain::elementwise / cost
// elements): the costly ones at a few thousand elements.
template <class C>
void check_each_ops_grain() {
    using T = typename C::value_type;
    using realify::op_id;
    static_assert(realify::engine::op_cost(op_id::exp) > 1 && realify::engine::op_cost(op_id::add) == 1);
    auto around = [](op_id op) { return sizes_around(grain_of(op)); };
    for (std::size_t n : around(op_id::exp)) {
        const xt::xarray<C> x = random_tensor<C>({n}, 60);
        expect_thread_count_invariant("exp n=" + std::to_string(n), [&] { return xt::xarray<C>(realify::exp(x)); });
    }
    for (std::size_t n : around(op_id::pow_scalar)) {
        const xt::xarray<C> x = random_tensor<C>({n}, 61);
        expect_thread_count_invariant("pow n=" + std::to_string(n), [&] { return xt::xarray<C>(realify::pow(x, T(2.5))); });
    }
    if (under_tsan) return;
    for (std::size_t n : around(op_id::sin)) {
        const xt::xarray<C> x = random_tensor<C>({n}, 62);
        expect_thread_count_invariant("sin n=" + std::to_string(n), [&] { return xt::xarray<C>(realify::sin(x)); });
        expect_thread_count_invariant("asinh out= n=" + std::to_string(n), [&] {
            xt::xarray<C> o = xt::zeros<C>({n});
            realify::asinh(x, realify::out(o));
            return o;
        });
    }
    for (std::size_t n : around(op_id::log)) {
        const xt::xarray<C> x = random_tensor<C>({n}, 63);
        expect_thread_count_invariant("log n=" + std::to_string(n), [&] { return xt::xarray<C>(realify::log(x)); });
        expect_thread_count_invariant("angle n=" + std::to_string(n), [&] { return realify::angle(x); });
    }
    for (std::size_t n : around(op_id::div)) {
        const xt::xarray<C> x = random_tensor<C>({n}, 64), y = random_tensor<C>({n}, 65);
        expect_thread_count_invariant("div n=" + std::to_string(n), [&] { return xt::xarray<C>(realify::div(x, y)); });
        expect_thread_count_invariant("sqrt n=" + std::to_string(n), [&] { return xt::xarray<C>(realify::sqrt(x)); });
    }
    // PyTorch's real-tensor activations
    for (std::size_t n : around(op_id::gelu)) {
        const xt::xarray<T> r = random_tensor<T>({n}, 66);
        expect_thread_count_invariant("gelu n=" + std::to_string(n), [&] { return xt::xarray<T>(realify::gelu(r)); });
        expect_thread_count_invariant("erf n=" + std::to_string(n), [&] { return xt::xarray<T>(realify::erf(r)); });
    }
    for (std::size_t n : around(op_id::sigmoid)) {
        const xt::xarray<T> r = random_tensor<T>({n}, 67);
        expect_thread_count_invariant("sigmoid n=" + std::to_string(n), [&] { return xt::xarray<T>(realify::sigmoid(r)); });
    }
}

TEST(ThreadsElementwise, AroundEachOpsGrainFloat) { check_each_ops_grain<cf>(); }
TEST(ThreadsElementwise, AroundEachOpsGrainDouble) { check_each_ops_grain<cd>(); }

TEST(ThreadsElementwise, CostlyOpsSplitBelowTheCopyGrain) {
    const always_split split;
    using realify::op_id;
    recorder r;
    r.pause = std::chrono::microseconds(100);
    const realify::scoped_num_threads two(2);
    // a kernel of the user's own that says it costs as much as exp
    auto threads_at_cost = [&](std::size_t n, std::size_t cost) {
        std::size_t most = 0;
        for (int i = 0; i < 20 && most < 2; ++i) most = std::max(most, threads_of_call(n, r, cost));
        return most;
    };
    const std::size_t n = 4 * grain_of(op_id::exp);
    ASSERT_LT(n, 2 * g_elementwise);
    EXPECT_EQ(threads_at_cost(n, 1), 1u) << "a copy's cost: one thread below two copy grains";
    EXPECT_EQ(threads_at_cost(n, realify::engine::op_cost(op_id::exp)), 2u) << "exp's cost: split";
    EXPECT_EQ(threads_at_cost(2 * grain_of(op_id::exp) - 64, realify::engine::op_cost(op_id::exp)), 1u);
}

TEST(ThreadsElementwise, EveryInstructionSet) {
    const xt::xarray<cf> x = random_tensor<cf>({3 * g_elementwise + 5}, 7);
    for (auto a : {realify::simd::arch::sse2, realify::simd::arch::avx2, realify::simd::arch::avx512}) {
        if (!realify::simd::is_supported(a)) continue;
        const realify::simd::scoped_arch at(a);
        expect_thread_count_invariant(std::string("exp at ") + std::string(realify::simd::arch_name(a)),
                                      [&] { return xt::xarray<cf>(realify::exp(x)); });
    }
}

// ---- the graph: fused loops and the SIMD row route -----------------------------------------------

TEST(ThreadsGraph, FusedChainAndRowRoute) {
    auto x = graph::input<cf>("x");
    auto y = graph::input<cf>("y");
    auto chain = graph::lower(graph::exp(x) * y + x);
    auto lone = graph::lower(x * y);
    // the chain's element costs exp's, mul's and add's costs: it splits near there
    using realify::op_id;
    const std::size_t chain_grain =
        g_elementwise / (realify::engine::op_cost(op_id::exp) + realify::engine::op_cost(op_id::mul) + realify::engine::op_cost(op_id::add));
    for (std::size_t n : sizes_around(chain_grain)) {
        const xt::xarray<cf> a = random_tensor<cf>({n}, 7), b = random_tensor<cf>({n}, 6);
        expect_thread_count_invariant("exp(x)·y + x near its grain, n=" + std::to_string(n), [&] { return xt::xarray<cf>(chain(a, b)); });
    }
    for (std::size_t n : sizes_around(g_elementwise)) {
        const xt::xarray<cf> a = random_tensor<cf>({n}, 8), b = random_tensor<cf>({n}, 9);
        expect_thread_count_invariant("exp(x)·y + x, n=" + std::to_string(n), [&] { return xt::xarray<cf>(chain(a, b)); });
        expect_thread_count_invariant("exp(x)·y + x out=, n=" + std::to_string(n), [&] {
            xt::xarray<cf> o = xt::zeros<cf>({n});
            chain(graph::out(o), a, b);
            return o;
        });
        expect_thread_count_invariant("x·y (one row), n=" + std::to_string(n), [&] { return xt::xarray<cf>(lone(a, b)); });
    }
    // RoPE's xq_ · freqs_cis: blocks of rows, repeated per head, per batch; odd head counts
    for (std::size_t heads : {3, 7}) {
        const xt::xarray<cf> q = random_tensor<cf>({2, 613, heads, 64}, 10), f = random_tensor<cf>({1, 613, 1, 64}, 11);
        expect_thread_count_invariant("rope rows, heads=" + std::to_string(heads), [&] { return xt::xarray<cf>(lone(q, f)); });
        expect_thread_count_invariant("rope rows in place, heads=" + std::to_string(heads), [&] {
            xt::xarray<cf> o = q;
            lone(graph::out(o), o, f);
            return o;
        });
    }
}

// A program whose nodes run on every parallel path of the engine at once:
// fused loops, a reduction, the rows of softmax and layer_norm, a product,
// the scan — each above its grain, the same bits on 1 and N threads, into new
// tensors and into caller buffers.
TEST(ThreadsGraph, ProgramsOfEveryParallelPath) {
    const std::size_t rows = 3 * g_elementwise / 256 + 5, cols = 256;  // rows · cols > 2 grains
    auto x = graph::input<float>("x");
    auto w = graph::input<float>("w");
    auto fused = graph::exp(x * 0.25f) - x;                             // a fused loop
    auto normed = graph::layer_norm(fused, {static_cast<std::ptrdiff_t>(cols)}, w);  // rows
    auto attention = graph::softmax(graph::mm(normed, graph::transpose(normed, 0, 1)), -1);  // a product, rows
    auto program = graph::lower(graph::sum(normed, {1}, false), attention, graph::cumsum(fused, 0));
    const xt::xarray<float> a = random_tensor<float>({rows, cols}, 60), weight = random_tensor<float>({cols}, 61);
    ASSERT_GT(rows * rows * cols, 2 * realify::grain::gemm) << "the product must be split";
    expect_thread_count_invariant("program: sum, softmax(mm), cumsum", [&] {
        const auto [sums, scores, scan] = program(a, weight);
        return xt::xarray<float>(xt::concatenate(xt::xtuple(sums, xt::flatten(scores), xt::flatten(scan))));
    });
    expect_thread_count_invariant("program into caller buffers", [&] {
        xt::xarray<float> sums = xt::zeros<float>({rows}), scores = xt::zeros<float>({rows, rows});
        xt::xarray<float> scan = xt::zeros<float>({rows, cols});
        program(graph::out(sums, scores, scan), a, weight);
        return xt::xarray<float>(xt::concatenate(xt::xtuple(sums, xt::flatten(scores), xt::flatten(scan))));
    });
}

// ---- reductions and the scan ---------------------------------------------------------------------

template <class C>
void check_reductions() {
    using T = typename C::value_type;
    for (std::size_t n : sizes_around(g_reduction)) {
        const std::string size = " n=" + std::to_string(n);
        const xt::xarray<C> x = random_tensor<C>({n}, 12);
        expect_thread_count_invariant("sum" + size, [&] { return xt::xarray<C>(realify::sum(x)); });
        expect_thread_count_invariant("mean" + size, [&] { return xt::xarray<C>(realify::mean(x)); });
        const xt::xarray<C> phases = unit_phases<T>({n}, 13);
        expect_thread_count_invariant("prod" + size, [&] { return xt::xarray<C>(realify::prod(phases, 0)); });
        const xt::xarray<T> r = random_tensor<T>({n}, 14);
        expect_thread_count_invariant("real sum" + size, [&] { return xt::xarray<T>(realify::sum(r)); });
    }
    // few long runs, many short runs, windows of runs, across (a kept axis innermost), the scan
    const xt::xarray<C> wide = random_tensor<C>({3, 2 * g_reduction + 7}, 15);
    expect_thread_count_invariant("sum of long rows", [&] { return xt::xarray<C>(realify::sum(wide, {1})); });
    expect_thread_count_invariant("sum of long columns (transposed)", [&] {
        return xt::xarray<C>(realify::sum(xt::transpose(wide), {0}));
    });
    const xt::xarray<C> cube = random_tensor<C>({37, 61, 151}, 16);
    expect_thread_count_invariant("sum over the last dim", [&] { return xt::xarray<C>(realify::sum(cube, {2})); });
    expect_thread_count_invariant("sum over dims 0, 2", [&] { return xt::xarray<C>(realify::sum(cube, {0, 2})); });
    expect_thread_count_invariant("mean over dim 0 (across)", [&] { return xt::xarray<C>(realify::mean(cube, {0})); });
    expect_thread_count_invariant("sum over dims 0, 1 (across)", [&] { return xt::xarray<C>(realify::sum(cube, {0, 1})); });
    expect_thread_count_invariant("sum of a transposed cube: one output, windows of short runs", [&] {
        return xt::xarray<C>(realify::sum(xt::transpose(cube)));
    });
    expect_thread_count_invariant("sum of a reversed cube", [&] {
        return xt::xarray<C>(realify::sum(xt::view(cube, xt::range(xt::placeholders::_, xt::placeholders::_, -1)), {0, 2}));
    });
    const xt::xarray<C> cube_phases = unit_phases<T>({37, 61, 151}, 17);
    expect_thread_count_invariant("prod over dim 1", [&] { return xt::xarray<C>(realify::prod(cube_phases, 1)); });
    const xt::xarray<C> tall = random_tensor<C>({2 * g_reduction + 3, 2}, 18);
    expect_thread_count_invariant("sum of a tall matrix over dim 0", [&] { return xt::xarray<C>(realify::sum(tall, {0})); });
    const xt::xarray<C> long_phases = unit_phases<T>({1, 3 * g_reduction + 1}, 19);
    expect_thread_count_invariant("prod of a long row", [&] { return xt::xarray<C>(realify::prod(long_phases, 1)); });
    expect_thread_count_invariant("cumsum dim 1", [&] { return xt::xarray<C>(realify::cumsum(cube, 1)); });
    expect_thread_count_invariant("cumsum dim 2", [&] { return xt::xarray<C>(realify::cumsum(cube, 2)); });
    // PyTorch's real-tensor reductions and row ops: extrema, moments, softmax and the norms
    const xt::xarray<T> rcube = random_tensor<T>({37, 61, 151}, 20);
    const xt::xarray<T> rlong = random_tensor<T>({2, 2 * g_reduction + 9}, 21);
    expect_thread_count_invariant("amax over dims 0, 2", [&] { return xt::xarray<T>(realify::amax(rcube, {0, 2})); });
    expect_thread_count_invariant("amin of a long row", [&] { return xt::xarray<T>(realify::amin(rlong, {1})); });
    expect_thread_count_invariant("var over dim 0 (across)", [&] { return xt::xarray<T>(realify::var(rcube, {0})); });
    expect_thread_count_invariant("var of a long row", [&] { return xt::xarray<T>(realify::var(rlong, {1})); });
    expect_thread_count_invariant("std_dev of complex over the last dim", [&] { return xt::xarray<T>(realify::std_dev(cube, {2})); });
    expect_thread_count_invariant("softmax over the last dim", [&] { return xt::xarray<T>(realify::softmax(rcube, -1)); });
    // rows around softmax's grain (its cost per element: op_cost.hpp)
    for (std::size_t rows : sizes_around(g_elementwise / realify::engine::op_cost(realify::op_id::softmax) / 97)) {
        const xt::xarray<T> m = random_tensor<T>({rows, 97}, 22);
        expect_thread_count_invariant("softmax of " + std::to_string(rows) + " rows", [&] { return xt::xarray<T>(realify::softmax(m, 1)); });
        expect_thread_count_invariant("log_softmax of " + std::to_string(rows) + " rows",
                                      [&] { return xt::xarray<T>(realify::log_softmax(m, 1)); });
    }
    expect_thread_count_invariant("log_softmax over dim 0 (strided rows)", [&] { return xt::xarray<T>(realify::log_softmax(rcube, 0)); });
    expect_thread_count_invariant("layer_norm over the last dim", [&] { return xt::xarray<T>(realify::layer_norm(rcube, {151})); });
    expect_thread_count_invariant("rms_norm of a transposed cube", [&] {
        return xt::xarray<T>(realify::rms_norm(xt::transpose(rcube), {37}));
    });
}

TEST(ThreadsReductions, OneAndManyThreadsAgreeFloat) { check_reductions<cf>(); }
TEST(ThreadsReductions, OneAndManyThreadsAgreeDouble) { check_reductions<cd>(); }

/// The pieces of a split reduction are aligned groups of blocks (src/engine/reduce.cpp): sizes
/// around whole groups (64K elements of a real sequence, 32K of a complex one; 2048-real blocks;
/// 32-row blocks across), on every instruction set — one thread and many, each level, the same bits.
template <class C>
void check_reduction_blocks() {
    using T = typename C::value_type;
    const std::vector<std::size_t> lengths =
        under_tsan ? std::vector<std::size_t>{3 * g_reduction + 1025}
                   : std::vector<std::size_t>{2 * g_reduction - 1, 2 * g_reduction + 1, 3 * g_reduction - 1024,
                                              3 * g_reduction + 1025, 4 * g_reduction + 2048 + 1, 7 * g_reduction + 33};
    for (std::size_t n : lengths) {
        const std::string size = " n=" + std::to_string(n);
        const xt::xarray<C> x = random_tensor<C>({n}, 50);
        const xt::xarray<T> r = random_tensor<T>({n}, 51);
        const xt::xarray<C> phases = unit_phases<T>({n}, 52);
        const xt::xarray<C> rows = random_tensor<C>({n / 2, 2}, 53);  // across: 2 outputs, n/2 rows
        const xt::xarray<T> real_rows = random_tensor<T>({n / 3, 3}, 54);
        const xt::xarray<C> phase_rows = unit_phases<T>({n / 2, 2}, 55);
        auto all = [&] {
            return std::make_tuple(xt::xarray<C>(realify::sum(x)), xt::xarray<T>(realify::sum(r)),
                                   xt::xarray<C>(realify::mean(x)), xt::xarray<C>(realify::prod(phases, 0)),
                                   xt::xarray<T>(realify::var(x)), xt::xarray<T>(realify::std_dev(r)),
                                   xt::xarray<T>(realify::amax(r)), xt::xarray<T>(realify::amin(r)),
                                   xt::xarray<C>(realify::sum(rows, {0})), xt::xarray<T>(realify::var(real_rows, {0})),
                                   xt::xarray<C>(realify::prod(phase_rows, 0)),
                                   xt::xarray<T>(realify::amax(real_rows, {0})), xt::xarray<C>(realify::cumsum(x, 0)),
                                   xt::xarray<C>(realify::cumsum(rows, 0)));
        };
        const auto reference = [&] {
            const realify::scoped_num_threads one(1);
            const realify::simd::scoped_arch lowest(realify::test::lowest_supported_level());
            return all();
        }();
        for (auto level : realify::test::supported_levels()) {
            const realify::simd::scoped_arch at(level);
            for (int threads : thread_counts) {
                const realify::scoped_num_threads many(threads);
                const auto got = all();
                const std::string what = size + " at " + std::string(realify::simd::arch_name(level)) + " on " +
                                         std::to_string(threads) + " threads";
                std::apply([&](const auto&... g) {
                    std::apply([&](const auto&... want) {
                        std::size_t i = 0;
                        (expect_same_bits(g, want, "reduction " + std::to_string(i++) + what), ...);
                    }, reference);
                }, got);
            }
        }
    }
}

TEST(ThreadsReductions, BlocksAndGroupsOnEveryLevelFloat) { check_reduction_blocks<cf>(); }
TEST(ThreadsReductions, BlocksAndGroupsOnEveryLevelDouble) { check_reduction_blocks<cd>(); }

// ---- matrix products -----------------------------------------------------------------------------

template <class C>
void check_products() {
    using T = typename C::value_type;
    // complex madds = 4 · m · n · k: around 2 · grain::gemm (8M), with odd sizes; tiles are
    // about 128 columns wide, so the larger product (263 columns) is cut in two
    static_assert(4 * 95 * 103 * 101 < 2 * realify::grain::gemm && 4 * 75 * 109 * 263 > 2 * realify::grain::gemm);
    using mkn = std::array<std::size_t, 3>;
    for (const mkn& sizes : under_tsan ? std::vector<mkn>{{75, 109, 263}} : std::vector<mkn>{{95, 103, 101}, {75, 109, 263}}) {
        const std::size_t m = sizes[0], k = sizes[1], n = sizes[2];
        const xt::xarray<C> a = random_tensor<C>({m, k}, 40), b = random_tensor<C>({k, n}, 41);
        const std::string size = " " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
        for (realify::gemm_method method : {realify::gemm_method::automatic, realify::gemm_method::m4, realify::gemm_method::m3}) {
            if (under_tsan && method != realify::gemm_method::automatic) continue;
            const std::string how = std::string(" ") + std::string(realify::to_string(method)) + size;
            expect_thread_count_invariant("mm" + how, [&] { return xt::xarray<C>(realify::mm(a, b, method)); });
        }
        expect_thread_count_invariant("mm of a transposed, conjugated b" + size, [&] {
            const xt::xarray<C> bt = xt::transpose(b);
            return xt::xarray<C>(realify::mm(a, realify::mH(bt)));
        });
        const xt::xarray<T> ra = random_tensor<T>({m, 2 * k}, 42), rb = random_tensor<T>({2 * k, 2 * n}, 43);
        expect_thread_count_invariant("real mm" + size, [&] { return xt::xarray<T>(realify::mm(ra, rb)); });
        expect_thread_count_invariant("mm out=" + size, [&] {
            xt::xarray<C> o = xt::zeros<C>({m, n});
            realify::mm(a, b, realify::out(o));
            return o;
        });
    }
    // batches: one piece each (bmm); batches on a shared B (matmul broadcast): 4 · 5 · m · n · k > 8M,
    // two column blocks
    static_assert(4 * 5 * 67 * 71 * 103 > 2 * realify::grain::gemm && 4 * 5 * 67 * 71 * 257 > 2 * realify::grain::gemm);
    const xt::xarray<C> ba = random_tensor<C>({5, 67, 71}, 44), bb = random_tensor<C>({5, 71, 103}, 45);
    expect_thread_count_invariant("bmm 5 × 67×71×103", [&] { return xt::xarray<C>(realify::bmm(ba, bb)); });
    const xt::xarray<C> shared = random_tensor<C>({71, 257}, 46);
    expect_thread_count_invariant("matmul on a shared b", [&] { return xt::xarray<C>(realify::matmul(ba, shared)); });
    // real products in 2-D tiles: two row blocks (208 + 192) × two column blocks (160 + 140), x·Wᵀ
    // with W read in place; rows of batches on a shared b stacked and cut across the batches
    const xt::xarray<T> ta = random_tensor<T>({400, 70}, 51), tw = random_tensor<T>({300, 70}, 52);
    const xt::xarray<T> tb = xt::transpose(tw);
    expect_thread_count_invariant("real mm in 2-D tiles", [&] { return xt::xarray<T>(realify::mm(ta, tb)); });
    expect_thread_count_invariant("real x·Wᵀ in 2-D tiles", [&] {
        return xt::xarray<T>(realify::mm(ta, realify::transpose_view(tw)));
    });
    const xt::xarray<T> stacked = random_tensor<T>({4, 100, 70}, 53);
    expect_thread_count_invariant("real matmul on a shared b, tiles across batches", [&] {
        return xt::xarray<T>(realify::matmul(stacked, tb));
    });
    // skinny products: pieces of the outputs by bytes of the weight read (x·Wᵀ, W·x, x·W, few rows)
    const xt::xarray<T> w = random_tensor<T>({3000, 300}, 54), v = random_tensor<T>({300}, 55);
    const xt::xarray<T> rows = random_tensor<T>({5, 300}, 56), wt = xt::transpose(w);
    expect_thread_count_invariant("matrix-vector x·Wᵀ", [&] { return xt::xarray<T>(realify::matmul(v, realify::transpose_view(w))); });
    expect_thread_count_invariant("matrix-vector W·x", [&] { return xt::xarray<T>(realify::mv(w, v)); });
    expect_thread_count_invariant("vector-matrix x·W", [&] { return xt::xarray<T>(realify::matmul(v, wt)); });
    expect_thread_count_invariant("five rows times Wᵀ", [&] { return xt::xarray<T>(realify::mm(rows, realify::transpose_view(w))); });
    const xt::xarray<C> cw = random_tensor<C>({2500, 1000}, 57), cx = random_tensor<C>({1000}, 58);  // 10M madds: 10 row tiles
    expect_thread_count_invariant("complex matrix-vector", [&] { return xt::xarray<C>(realify::mv(cw, cx)); });
    // dot, vdot: chunks of k (a reduction: 2k elements read against grain::reduction)
    for (std::size_t n : sizes_around(g_reduction / 2)) {
        const xt::xarray<C> x = random_tensor<C>({n}, 47), y = random_tensor<C>({n}, 48);
        expect_thread_count_invariant("dot n=" + std::to_string(n), [&] { return xt::xarray<C>(realify::dot(x, y)); });
        expect_thread_count_invariant("vdot n=" + std::to_string(n), [&] { return xt::xarray<C>(realify::vdot(x, y)); });
        const xt::xarray<T> rx = random_tensor<T>({n}, 49), ry = random_tensor<T>({n}, 50);
        expect_thread_count_invariant("real dot n=" + std::to_string(n), [&] { return xt::xarray<T>(realify::dot(rx, ry)); });
    }
}

// einsum: its contractions (batched products) and its sums over labels no
// other operand has (reductions), each above its grain.
TEST(ThreadsProducts, EinsumContractionsAndSums) {
    const xt::xarray<float> q = random_tensor<float>({2, 4, 131, 64}, 51), k = random_tensor<float>({2, 4, 137, 64}, 52);
    static_assert(2 * 4 * 131 * 137 * 64 > 2 * realify::grain::gemm);
    expect_thread_count_invariant("einsum bhqd,bhkd->bhqk", [&] { return xt::xarray<float>(realify::einsum("bhqd,bhkd->bhqk", q, k)); });
    const xt::xarray<cf> z = random_tensor<cf>({5, 2 * g_reduction / 5 + 7}, 53);
    expect_thread_count_invariant("einsum ij->j (a sum)", [&] { return xt::xarray<cf>(realify::einsum("ij->j", z)); });
    expect_thread_count_invariant("einsum ij->i (a sum of long rows)", [&] { return xt::xarray<cf>(realify::einsum("ij->i", z)); });
}

TEST(ThreadsProducts, OneAndManyThreadsAgreeFloat) { check_products<cf>(); }
TEST(ThreadsProducts, OneAndManyThreadsAgreeDouble) { check_products<cd>(); }

// ---- RoPE ---------------------------------------------------------------------------------------

template <class T>
void check_rope(realify::rope::pair_layout layout) {
    using realify::rope::apply_rotary_emb;
    // (batch, seq, heads, head_dim): rows of q and k around the grain, odd positions and heads
    const std::size_t head_dim = 64;
    for (std::size_t seq : {std::size_t{97}, std::size_t{331}}) {
        const xt::xarray<T> q = random_tensor<T>({2, seq, 7, head_dim}, 30), k = random_tensor<T>({2, seq, 3, head_dim}, 31);
        const auto freqs = realify::rope::precompute_freqs_cis<T>(head_dim, 5 + seq, 10000.0);
        const std::string where = " seq=" + std::to_string(seq);
        expect_thread_count_invariant("rope q, new tensors" + where, [&] { return xt::xarray<T>(apply_rotary_emb(q, k, freqs, 5, layout).first); });
        expect_thread_count_invariant("rope k, new tensors" + where, [&] { return xt::xarray<T>(apply_rotary_emb(q, k, freqs, 5, layout).second); });
        expect_thread_count_invariant("rope in place" + where, [&] {
            xt::xarray<T> qq = q, kk = k;
            apply_rotary_emb(qq, kk, freqs, 5, qq, kk, layout);
            return xt::xarray<T>(xt::concatenate(xt::xtuple(xt::flatten(qq), xt::flatten(kk))));
        });
    }
}

TEST(ThreadsRope, InterleavedAndHalfSplit) {
    // reals of q and k: batch 2 × seq × (7 + 3) heads × 64
    static_assert(2 * 97 * 10 * 64 < 2 * realify::grain::rope && 2 * 331 * 10 * 64 > 2 * realify::grain::rope,
                  "one shape below the split, one above");
    check_rope<float>(realify::rope::pair_layout::interleaved);
    check_rope<float>(realify::rope::pair_layout::half_split);
    check_rope<double>(realify::rope::pair_layout::interleaved);
}

// ---- the level of the families measured at run time ----------------------------------------------
// RoPE and the multiply family take AVX-512 or AVX2, whichever runs their
// first calls faster (src/simd/arch.cpp): that is only sound because both
// levels give the same bits, which the first test checks.

namespace rs = realify::simd;

bool both_candidates() { return rs::is_supported(rs::arch::avx2) && rs::is_supported(rs::arch::avx512); }

/// f() at AVX2 and at AVX-512: identical bits.
template <class F>
void expect_same_bits_at_both_levels(const std::string& what, F f) {
    const auto at = [&](rs::arch level) {
        const rs::scoped_arch forced(level);
        return f();
    };
    expect_same_bits(at(rs::arch::avx2), at(rs::arch::avx512), what);
}

template <class T>
void check_rope_levels() {
    using realify::rope::apply_rotary_emb;
    for (std::size_t head_dim : {std::size_t{128}, std::size_t{130}, std::size_t{6}}) {
        for (auto layout : {realify::rope::pair_layout::interleaved, realify::rope::pair_layout::half_split}) {
            const xt::xarray<T> q = random_tensor<T>({2, 37, 5, head_dim}, 70), k = random_tensor<T>({2, 37, 3, head_dim}, 71);
            const auto freqs = realify::rope::precompute_freqs_cis<T>(head_dim, 50, 500000.0);
            const std::string what = "rope head_dim " + std::to_string(head_dim) + (layout == realify::rope::pair_layout::interleaved ? " interleaved" : " half-split");
            expect_same_bits_at_both_levels(what + " q", [&] { return xt::xarray<T>(apply_rotary_emb(q, k, freqs, 9, layout).first); });
            expect_same_bits_at_both_levels(what + " k", [&] { return xt::xarray<T>(apply_rotary_emb(q, k, freqs, 9, layout).second); });
            expect_same_bits_at_both_levels(what + " in place", [&] {
                xt::xarray<T> qq = q, kk = k;
                apply_rotary_emb(qq, kk, freqs, 9, qq, kk, layout);
                return xt::xarray<T>(xt::concatenate(xt::xtuple(xt::flatten(qq), xt::flatten(kk))));
            });
        }
    }
}

template <class T>
void check_multiply_levels() {
    using C = std::complex<T>;
    const std::size_t n = 4099;
    std::vector<C> a(n), b(n), c(n);
    std::mt19937_64 engine(72);
    std::uniform_real_distribution<T> u(-3, 3);
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const T specials[] = {0, -0.0, inf, -inf, nan, std::numeric_limits<T>::max(), std::numeric_limits<T>::denorm_min()};
    for (std::size_t i = 0; i < n; ++i) {
        auto value = [&] { return i % 13 == 0 ? specials[(i / 13) % std::size(specials)] : u(engine); };
        a[i] = {value(), u(engine)};
        b[i] = {u(engine), value()};
        c[i] = {u(engine), u(engine)};
    }
    std::vector<T> r(n);
    for (auto& v : r) v = u(engine);
    using span = std::span<const C>;
    for (rs::nan_policy policy : {rs::nan_policy::fast, rs::nan_policy::strict}) {
        const std::string how = policy == rs::nan_policy::fast ? " (fast)" : " (strict)";
        auto result = [&](auto kernel) {
            return [&, kernel] {
                std::vector<C> out(n);
                kernel(out);
                return xt::xarray<C>(xt::adapt(out, std::vector<std::size_t>{n}));
            };
        };
        expect_same_bits_at_both_levels("mul" + how, result([&](std::vector<C>& o) { rs::mul(span(a), span(b), std::span<C>(o), policy); }));
        expect_same_bits_at_both_levels("mul_conj" + how,
                                        result([&](std::vector<C>& o) { rs::mul_conj(span(a), span(b), std::span<C>(o), policy); }));
        expect_same_bits_at_both_levels("mul_scalar" + how,
                                        result([&](std::vector<C>& o) { rs::mul_scalar(span(a), C(T(1.5), T(-0.25)), std::span<C>(o), policy); }));
        expect_same_bits_at_both_levels("mul_add" + how,
                                        result([&](std::vector<C>& o) { rs::mul_add(span(a), span(b), span(c), std::span<C>(o), policy); }));
        expect_same_bits_at_both_levels("mul_rows (one row)" + how,
                                        result([&](std::vector<C>& o) { rs::mul_rows(span(a), span(b), std::span<C>(o), policy); }));
    }
    expect_same_bits_at_both_levels("mul_real", [&] {
        std::vector<C> out(n);
        rs::mul_real(span(a), std::span<const T>(r), std::span<C>(out));
        return xt::xarray<C>(xt::adapt(out, std::vector<std::size_t>{n}));
    });
    expect_same_bits_at_both_levels("mul_block_rows (3 blocks × 5 repeats of 67)", [&] {
        std::vector<C> out(3 * 5 * 67);
        rs::mul_block_rows(span(a.data(), out.size()), span(b.data(), 3 * 67), 3, std::span<C>(out));
        return xt::xarray<C>(xt::adapt(out, std::vector<std::size_t>{out.size()}));
    });
}

TEST(ThreadsKernelLevels, MeasuredFamiliesGiveTheSameBitsAtAVX2AndAVX512) {
    if (!both_candidates()) GTEST_SKIP() << "needs AVX2 and AVX-512 kernels on this CPU (REALIFY_SIMD_ARCHS=all)";
    check_rope_levels<float>();
    check_rope_levels<double>();
    check_multiply_levels<float>();
    check_multiply_levels<double>();
    // the streaming stores of a large out-of-place call
    const std::size_t threshold = rs::streaming_threshold();
    rs::set_streaming_threshold(0);
    check_rope_levels<float>();
    check_multiply_levels<float>();
    rs::set_streaming_threshold(threshold);
}

TEST(ThreadsKernelLevels, AVX2IsKeptOnlyWhenMeasurablyFaster) {
    EXPECT_EQ(rs::detail::faster_level(1.0, 0.9), rs::arch::avx2);
    EXPECT_EQ(rs::detail::faster_level(1.0, 0.97), rs::arch::avx2);
    EXPECT_EQ(rs::detail::faster_level(1.0, 0.99), rs::arch::avx512) << "a tie keeps the wider level";
    EXPECT_EQ(rs::detail::faster_level(1.0, 1.5), rs::arch::avx512);
}

// The first calls of each size class are the trial, from any thread; then the
// level stays, and every call gave the same bits.
TEST(ThreadsKernelLevels, TheFirstCallsSettleEachSizeClass) {
    if (!both_candidates() || std::getenv("REALIFY_SIMD_ARCH") != nullptr) GTEST_SKIP() << "one level only";
    using realify::rope::apply_rotary_emb;
    const auto freqs = realify::rope::precompute_freqs_cis<float>(128, 200, 500000.0);
    // q and k of 40 and of 120 positions × (8 + 8) heads × 128 reals: 0.6 MiB and 1.9 MiB read and written
    const xt::xarray<float> small_q = random_tensor<float>({1, 40, 8, 128}, 73), small_k = random_tensor<float>({1, 40, 8, 128}, 74);
    const xt::xarray<float> large_q = random_tensor<float>({1, 120, 8, 128}, 75), large_k = random_tensor<float>({1, 120, 8, 128}, 76);
    auto small = [&] { return xt::xarray<float>(apply_rotary_emb(small_q, small_k, freqs, 3).first); };
    auto large = [&] { return xt::xarray<float>(apply_rotary_emb(large_q, large_k, freqs, 3).first); };
    rs::detail::reset_level_trials_for_tests();
    {
        const rs::scoped_arch forced(rs::arch::avx2);  // a forced level is no sample
        small();
        large();
    }
    EXPECT_EQ(rs::detail::level_trial_samples_for_tests(rs::kernel_family::rope, false), 0);
    const xt::xarray<float> small_expected = small(), large_expected = large();
    std::vector<std::thread> users;
    std::atomic<int> differing{0};
    for (int u = 0; u < 3; ++u)
        users.emplace_back([&] {
            for (int i = 0; i < 6; ++i) {
                differing += small() != small_expected;
                differing += large() != large_expected;
            }
        });
    for (auto& t : users) t.join();
    EXPECT_EQ(differing.load(), 0);
    EXPECT_EQ(rs::detail::level_trial_samples_for_tests(rs::kernel_family::rope, false), 8) << "4 samples of each level";
    EXPECT_EQ(rs::detail::level_trial_samples_for_tests(rs::kernel_family::rope, true), 8);
    const rs::arch settled = rs::preferred_arch(rs::kernel_family::rope);
    EXPECT_TRUE(settled == rs::arch::avx2 || settled == rs::arch::avx512);
    for (int i = 0; i < 4; ++i) large();
    EXPECT_EQ(rs::preferred_arch(rs::kernel_family::rope), settled) << "the level stays";
    EXPECT_EQ(rs::detail::level_trial_samples_for_tests(rs::kernel_family::rope, true), 8);
}


// ---- attention, linear, RoPE on one tensor ------------------------------------------------------

template <class T>
void check_attention() {
    // multiply-adds L · S · (E + Ev) per (batch, head): above 2 · grain::gemm with 32 heads at L = S = 97,
    // pieces of 64 query rows, key blocks of 64; grouped-query heads, a mask, decoding (L = 1)
    static_assert(32 * 97 * 97 * 64 > 2 * realify::grain::gemm);
    const std::size_t S = under_tsan ? 70 : 97;
    const xt::xarray<T> q = random_tensor<T>({1, 32, S, 32}, 60), k = random_tensor<T>({1, 32, S, 32}, 61),
                        v = random_tensor<T>({1, 32, S, 32}, 62), k8 = random_tensor<T>({1, 8, S, 32}, 63),
                        v8 = random_tensor<T>({1, 8, S, 32}, 64), bias = random_tensor<T>({S, S}, 65);
    expect_thread_count_invariant("attention, causal", [&] {
        return xt::xarray<T>(realify::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, true));
    });
    expect_thread_count_invariant("attention, grouped-query heads", [&] {
        return xt::xarray<T>(realify::scaled_dot_product_attention(q, k8, v8, std::nullopt, 0.0, false, std::nullopt, true));
    });
    expect_thread_count_invariant("attention, additive mask", [&] {
        return xt::xarray<T>(realify::scaled_dot_product_attention(q, k, v, bias));
    });
    // decoding: one query per head against 1100 keys, 4 · 32 · 1100 · 64 multiply-adds
    static_assert(4 * 32 * 1100 * 64 > 2 * realify::grain::gemm);
    const xt::xarray<T> kl = random_tensor<T>({4, 32, 1100, 32}, 66), vl = random_tensor<T>({4, 32, 1100, 32}, 67);
    const xt::xarray<T> ql = random_tensor<T>({4, 32, 1, 32}, 68);
    expect_thread_count_invariant("attention, decoding", [&] {
        return xt::xarray<T>(realify::scaled_dot_product_attention(ql, kl, vl));
    });
}
TEST(ThreadsAttention, OneAndManyThreadsAgree) {
    check_attention<float>();
    if (!under_tsan) check_attention<double>();
}

TEST(ThreadsLayers, LinearAndRopeOfOneTensor) {
    const xt::xarray<float> x = random_tensor<float>({3, 97, 256}, 70), w = random_tensor<float>({257, 256}, 71),
                            b = random_tensor<float>({257}, 72);
    expect_thread_count_invariant("linear", [&] { return xt::xarray<float>(realify::linear(x, w, b)); });
    const xt::xarray<float> xq = random_tensor<float>({2, 331, 7, 64}, 73);
    const auto freqs = realify::rope::precompute_freqs_cis<float>(64, 400, 10000.0);
    expect_thread_count_invariant("rope of one tensor", [&] {
        return xt::xarray<float>(realify::rope::apply_rotary_emb(xq, freqs, 5));
    });
}

// ---- from several threads of the program at once, and from its own parallel region ---------------

TEST(ThreadsConcurrency, SeveralUserThreadsGetTheSerialResults) {
    const xt::xarray<cf> x = random_tensor<cf>({3 * g_elementwise + 11}, 20), y = random_tensor<cf>({3 * g_elementwise + 11}, 21);
    auto gx = graph::input<cf>("x");
    auto gy = graph::input<cf>("y");
    auto chain = graph::lower(graph::exp(gx) * gy + gx);
    // and the row ops, a product and RoPE: their scratch (gemm workspaces, rows gathered) is per call
    const xt::xarray<float> r = random_tensor<float>({2 * g_elementwise / 128 + 3, 128}, 23);
    const xt::xarray<cf> m = random_tensor<cf>({103, 97}, 24);
    const xt::xarray<float> q = random_tensor<float>({1, 331, 7, 64}, 25), k = random_tensor<float>({1, 331, 3, 64}, 26);
    const auto freqs = realify::rope::precompute_freqs_cis<float>(64, 331, 10000.0);
    auto compute = [&] {
        return std::array<xt::xarray<cf>, 7>{
            xt::xarray<cf>(realify::exp(x)),
            xt::xarray<cf>(realify::sum(x)),
            xt::xarray<cf>(chain(x, y)),
            xt::xarray<cf>(realify::to<cf>(realify::softmax(r, -1))),
            xt::xarray<cf>(realify::to<cf>(realify::layer_norm(r, {128}))),
            xt::xarray<cf>(realify::mm(m, xt::xarray<cf>(xt::transpose(m)))),
            xt::xarray<cf>(realify::to<cf>(xt::xarray<float>(realify::rope::apply_rotary_emb(q, k, freqs, 0).first)))};
    };
    const auto expected = [&] {
        const realify::scoped_num_threads one(1);
        return compute();
    }();
    std::vector<std::thread> users;
    std::vector<std::array<xt::xarray<cf>, 7>> got(4);
    for (std::size_t u = 0; u < got.size(); ++u)
        users.emplace_back([&, u] {
            for (int i = 0; i < (under_tsan ? 1 : 3); ++i) got[u] = compute();
        });
    for (auto& t : users) t.join();
    for (const auto& g : got)
        for (std::size_t i = 0; i < expected.size(); ++i) expect_same_bits(g[i], expected[i], "result " + std::to_string(i));
}

TEST(ThreadsConcurrency, InsideTheProgramsParallelRegion) {
    const xt::xarray<cd> x = random_tensor<cd>({3 * g_reduction + 11}, 22);
    const xt::xarray<cd> expected_exp = realify::exp(x), expected_sum = realify::sum(x);
    std::array<xt::xarray<cd>, 2> exps, sums;
    user_parallel_region(2, [&](int t) {
        exps[static_cast<std::size_t>(t)] = realify::exp(x);
        sums[static_cast<std::size_t>(t)] = realify::sum(x);
    });
    for (std::size_t t = 0; t < 2; ++t) {
        if (exps[t].size() == 0) continue;  // the region got fewer threads
        expect_same_bits(exps[t], expected_exp, "exp");
        expect_same_bits(sums[t], expected_sum, "sum");
    }
}

}  // namespace
