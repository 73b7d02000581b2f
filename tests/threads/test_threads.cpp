// realify on several threads (realify/threads.hpp): the controls; results
// identical to the bit on 1 and on N threads for every op family that is
// split (the elementwise engine eager and out=, the graph's fused loops and
// its SIMD row route, the reductions and the scan, the matrix products,
// RoPE), on odd sizes around the grain sizes and on strided, broadcast and
// reversed layouts; that large calls do use several threads and small ones
// do not; calls from several threads of the program at once, and from
// inside the program's own OpenMP parallel region (no nested teams, no more
// workers than the process-wide count). This executable is also the
// ThreadSanitizer job of CI (docs/testing.md).
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <complex>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "realify/realify.hpp"
#include "realify/threads.hpp"

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

/// The threads that ran one engine call over n elements.
std::size_t threads_of_call(std::size_t n, recorder& r) {
    std::vector<cf> x(n, cf(1, 2)), y(n);
    engine::block_kernel k;
    k.run = &recorder::run;
    k.compute = engine::component::float32;
    k.complex_inputs = {true};
    k.complex_output = true;
    k.object = &r;
    r.caller = std::this_thread::get_id();
    r.threads.clear();
    const engine::tensor_ref in = ref_of(x), out = ref_of(y);
    engine::evaluate("recorder", std::span(&in, 1), out, k);
    EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](cf v) { return v == cf(1, 2); }));
    return r.threads.size();
}

TEST(ThreadsEngine, LargeCallsUseSeveralThreadsSmallOnesOne) {
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
/// where the team starts and ends, as realify's own region does
/// (src/simd/parallel.cpp) — libgomp is not instrumented.
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
}

TEST(ThreadsElementwise, OneAndManyThreadsAgreeFloat) { check_elementwise<cf>(); }
TEST(ThreadsElementwise, OneAndManyThreadsAgreeDouble) { check_elementwise<cd>(); }

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
    expect_thread_count_invariant("log_softmax over dim 0 (strided rows)", [&] { return xt::xarray<T>(realify::log_softmax(rcube, 0)); });
    expect_thread_count_invariant("layer_norm over the last dim", [&] { return xt::xarray<T>(realify::layer_norm(rcube, {151})); });
    expect_thread_count_invariant("rms_norm of a transposed cube", [&] {
        return xt::xarray<T>(realify::rms_norm(xt::transpose(rcube), {37}));
    });
}

TEST(ThreadsReductions, OneAndManyThreadsAgreeFloat) { check_reductions<cf>(); }
TEST(ThreadsReductions, OneAndManyThreadsAgreeDouble) { check_reductions<cd>(); }

// ---- matrix products -----------------------------------------------------------------------------

template <class C>
void check_products() {
    using T = typename C::value_type;
    // complex madds = 4 · m · n · k: around 2 · grain::gemm (8M), with odd sizes; column panels
    // are at least 128 wide, so the larger product (263 columns) is cut in two
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
    // two column panels of at least 128
    static_assert(4 * 5 * 67 * 71 * 103 > 2 * realify::grain::gemm && 4 * 5 * 67 * 71 * 257 > 2 * realify::grain::gemm);
    const xt::xarray<C> ba = random_tensor<C>({5, 67, 71}, 44), bb = random_tensor<C>({5, 71, 103}, 45);
    expect_thread_count_invariant("bmm 5 × 67×71×103", [&] { return xt::xarray<C>(realify::bmm(ba, bb)); });
    const xt::xarray<C> shared = random_tensor<C>({71, 257}, 46);
    expect_thread_count_invariant("matmul on a shared b", [&] { return xt::xarray<C>(realify::matmul(ba, shared)); });
    // dot, vdot: ranges of k (a reduction: 2k elements read against grain::reduction)
    for (std::size_t n : sizes_around(g_reduction / 2)) {
        const xt::xarray<C> x = random_tensor<C>({n}, 47), y = random_tensor<C>({n}, 48);
        expect_thread_count_invariant("dot n=" + std::to_string(n), [&] { return xt::xarray<C>(realify::dot(x, y)); });
        expect_thread_count_invariant("vdot n=" + std::to_string(n), [&] { return xt::xarray<C>(realify::vdot(x, y)); });
        const xt::xarray<T> rx = random_tensor<T>({n}, 49), ry = random_tensor<T>({n}, 50);
        expect_thread_count_invariant("real dot n=" + std::to_string(n), [&] { return xt::xarray<T>(realify::dot(rx, ry)); });
    }
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
    auto compute = [&] {
        return std::array<xt::xarray<cf>, 3>{xt::xarray<cf>(realify::exp(x)), xt::xarray<cf>(realify::sum(x)),
                                             xt::xarray<cf>(chain(x, y))};
    };
    const auto expected = [&] {
        const realify::scoped_num_threads one(1);
        return compute();
    }();
    std::vector<std::thread> users;
    std::vector<std::array<xt::xarray<cf>, 3>> got(4);
    for (std::size_t u = 0; u < got.size(); ++u)
        users.emplace_back([&, u] {
            for (int i = 0; i < 3; ++i) got[u] = compute();
        });
    for (auto& t : users) t.join();
    for (const auto& g : got)
        for (std::size_t k = 0; k < 3; ++k) expect_same_bits(g[k], expected[k], "result " + std::to_string(k));
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
