// The eager elementwise ops against Eigen 3.4 and std::complex loops, per op,
// at 64K elements (in cache) and 4M elements (memory bound), complex<float>
// and complex<double>, in one run. Every benchmark is named
// ops/<op>/<type>/<n>/<implementation>:
//
//   realify_out           realify::exp(x, realify::out(o)): the eager API writing into
//                         a preallocated buffer (operands and buffer: xtensor
//                         adaptors of std::complex memory), on the level chosen
//                         at run time; realify_out@<level>: forced onto each level
//                         the machine has (bench_isa.hpp)
//   realify_alloc         auto r = realify::exp(x): the allocating form, an
//                         xt::xtensor<std::complex<T>, 1> (xtensor constructs, i.e.
//                         zeroes, its std::complex elements)
//   realify_alloc_layout  the allocating form on complex_layout operands: an owning
//                         complex_layout<xt::xtensor<T, 2>> (no zeroing)
//   eigen                 Eigen ArrayXcf / ArrayXcd expressions into preallocated
//                         storage (bench_kernels_eigen.cpp, compiled for the host)
//   std                   a std::complex loop (bench_ops_std.cpp, compiled for the host)
//
// the graph chains ops/<chain>/<type>/<n>/<implementation> (exp_mul_add:
// exp(x)·y + x; chain5: (exp(x)·y + x)·conj(y)) as a lowered realify graph
// called with out= (realify_out: one fused loop of compiled
// kernels), one Eigen expression, and a std::complex loop;
//
// threads/<op or chain>/<type>/<n>/<t>: realify_out (the op, or the chain's
// lowered graph, with out=) on t threads (realify::scoped_num_threads) — the
// thread-count axis (threads/copy/…: the engine's copy kernel, the machine's
// copy bandwidth, bytes read + written per second), timed in REAL time (CPU time would count the calling
// thread only); t runs over 1, 2, 4, … up to realify::get_num_threads() at
// start (OMP_NUM_THREADS or the cores); add, conj and exp (float) also at
// 1K, 4K, 16K, 256K and 1M elements. Every other benchmark here runs on
// one thread (realify::set_num_threads(1) before they run), so they compare
// single-core code;
//
// cost/<op>: every compiled op through the engine (out=, complex<float>
// operands where the op takes them, else float; 64K elements, one thread),
// and the row ops softmax, log_softmax, layer_norm, rms_norm on (16, 4096)
// floats — the measured costs of the threads' grain (docs/parallel.md);
//
// reduce/<op>/<type>/<n>/<t>: the reductions of a 1-D tensor of n elements — sum, mean, prod,
// amax (real only), var, cumsum — into out= buffers, for type cfloat (complex<float>) and float, on
// t threads (timed in real time); reduce/memcpy/<type>/<n>/<t>: std::memcpy of the input's bytes,
// the copy bandwidth they are compared with (tools/torch_threads_bench.py, against PyTorch on the
// same threads). prod reads values of modulus near 1, so that the product stays a normal number;
//
// placement/<op>/<placement>/<implementation>: add, mul, div on 64K
// complex<float> (one thread, out=) with x, y and out placed in one arena at
// chosen byte offsets from a page boundary (buffers whole pages apart):
// their alignment mod 64 (split loads and stores) and their offsets mod 4096
// (4K aliasing: a load whose address matches an earlier, still buffered,
// store's in its low 12 bits waits for it). <placement> names the offsets
// of x, y and out; glibc gives a 64K complex<float> buffer (512 KiB, above
// its mmap threshold) 16 bytes past a page, and after a free has raised the
// threshold, heap blocks at any multiple of 16 (tools show x 352, y 368, out
// 464: out 96–112 bytes ahead of the inputs);
//
// and pagefault/<type>/<n>: a fresh buffer of n std::complex<T> allocated,
// zero-constructed (as xtensor constructs its std::complex elements) and
// freed — what the allocating form pays on top of the work; at 4M its pages
// are faulted in on every call (glibc maps allocations of that size afresh).
// This TU is built with the project's flags (no -march): what a user gets.
// tools/ops_bench_report.py turns the JSON into docs/benchmarks.md's table and plot.
#include <benchmark/benchmark.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xtensor.hpp>

#include "bench_isa.hpp"
#include "bench_kernels_common.hpp"
#include "realify/eager.hpp"
#include "realify/engine.hpp"
#include "realify/graph.hpp"
#include "realify/simd/elementwise.hpp"
#include "realify/threads.hpp"

namespace {

using namespace realify_bench_kernels;

template <class T>
struct inputs {
    std::vector<std::complex<T>> x, y, out;
    std::vector<T> real_out;
    explicit inputs(std::size_t n) : x(n), y(n), out(n), real_out(n) {
        std::mt19937 rng(42);
        std::uniform_real_distribution<T> u(T(-2), T(2));
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = {u(rng), u(rng)};
            y[i] = std::complex<T>(u(rng), u(rng)) + std::complex<T>(T(0.1), T(0.1));
        }
    }
};

template <class T>
inputs<T>& shared(std::size_t n) {
    static std::optional<inputs<T>> small, large;
    auto& slot = n <= (std::size_t{1} << 16) ? small : large;
    if (!slot || slot->x.size() != n) slot.emplace(n);
    return *slot;
}

template <class P>
auto adapt(P* p, std::size_t n) {
    return xt::adapt(p, n, xt::no_ownership(), std::array<std::size_t, 1>{n});
}

/// The op through the eager API on x (and y); `out…` empty: allocating.
template <class T, class X, class Y, class... O>
decltype(auto) eager(op_id op, const X& x, const Y& y, O&&... out) {
    using C = std::complex<T>;
    switch (op) {
        case op_id::mul_real_scalar: return realify::mul(x, T(2.5), out...);
        case op_id::add_scalar: return realify::add(x, C(T(0.5), T(-1.5)), out...);
        case op_id::pow_scalar: return realify::pow(x, T(2.5), out...);
        // every op with binary kernels and complex forms, from the op list
#define REALIFY_BENCH_EAGER(name)                                                             \
    case op_id::name:                                                                         \
        if constexpr (complex_result(op_id::name)) return realify::name(x, y, out...);        \
        else break;
        REALIFY_BINARY_KERNEL_OPS(REALIFY_BENCH_EAGER)
#undef REALIFY_BENCH_EAGER
        // every op with unary kernels and a complex result, from the op list
#define REALIFY_BENCH_EAGER(name)                                                             \
    case op_id::name:                                                                         \
        if constexpr (complex_result(op_id::name)) return realify::name(x, out...);           \
        else break;
        REALIFY_UNARY_KERNEL_OPS(REALIFY_BENCH_EAGER)
#undef REALIFY_BENCH_EAGER
        default: break;  // the real-output ops: see eager_real
    }
    return realify::exp(x, out...);
}
template <class X, class... O>
decltype(auto) eager_real(op_id op, const X& x, O&&... out) {
    switch (op) {
        // every op with unary kernels and a real result from a complex tensor, from the op list
#define REALIFY_BENCH_EAGER(name)                                                             \
    case op_id::name:                                                                         \
        if constexpr (real_result(op_id::name)) return realify::name(x, out...);              \
        else break;
        REALIFY_UNARY_KERNEL_OPS(REALIFY_BENCH_EAGER)
#undef REALIFY_BENCH_EAGER
        default: break;
    }
    return realify::imag(x, out...);
}

enum class impl { realify_out, realify_alloc, realify_alloc_layout, eigen, std_loop };
constexpr const char* impl_names[] = {"realify_out", "realify_alloc", "realify_alloc_layout", "eigen", "std"};

/// Whether `which` has a form of op: realify always; Eigen and the std::complex loop where
/// bench_kernels_eigen.cpp / bench_ops_std.cpp write one (asked with n = 0: nothing is done).
bool has_competitor(op_id op, impl which) {
    if (which == impl::eigen) return eigen_run(op, nullptr, nullptr, static_cast<std::complex<float>*>(nullptr), nullptr, 0);
    if (which == impl::std_loop) return std_run(op, nullptr, nullptr, static_cast<std::complex<float>*>(nullptr), nullptr, 0);
    return true;
}

template <class T>
void run_once(op_id op, impl which, inputs<T>& d) {
    const std::size_t n = d.x.size();
    const auto x = adapt(d.x.data(), n), y = adapt(d.y.data(), n);
    switch (which) {
        case impl::realify_out: {
            auto o = adapt(d.out.data(), n);
            auto r = adapt(d.real_out.data(), n);
            if (real_result(op)) eager_real(op, x, realify::out(r));
            else eager<T>(op, x, y, realify::out(o));
            return;
        }
        case impl::realify_alloc: {
            if (real_result(op)) benchmark::DoNotOptimize(eager_real(op, x).data());
            else benchmark::DoNotOptimize(eager<T>(op, x, y).data());
            return;
        }
        case impl::realify_alloc_layout: {
            const auto lx = realify::complex_layout_of(x), ly = realify::complex_layout_of(y);
            if (real_result(op)) benchmark::DoNotOptimize(eager_real(op, lx).data());
            else benchmark::DoNotOptimize(eager<T>(op, lx, ly).real_layout().data());
            return;
        }
        case impl::eigen: eigen_run(op, d.x.data(), d.y.data(), d.out.data(), d.real_out.data(), n); return;
        case impl::std_loop: std_run(op, d.x.data(), d.y.data(), d.out.data(), d.real_out.data(), n); return;
    }
}

template <class T>
void bench(benchmark::State& state, op_id op, std::size_t n, impl which,
           std::optional<realify::simd::arch> level = std::nullopt) {
    const realify_bench::arch_scope forced(level);
    auto& d = shared<T>(n);
    for (auto _ : state) {
        run_once<T>(op, which, d);
        benchmark::DoNotOptimize(d.out.data());
        benchmark::DoNotOptimize(d.real_out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

/// The graphs of the chains over inputs x, y of element type C, lowered.
template <class C>
auto lower_chains() {
    namespace graph = realify::graph;
    auto x = graph::input<xt::xtensor<C, 1>>("x");
    auto y = graph::input<xt::xtensor<C, 1>>("y");
    auto exp_mul_add = graph::exp(x) * y + x;
    return std::make_pair(graph::lower(exp_mul_add), graph::lower(exp_mul_add * graph::conj(y)));
}

template <class T>
void bench_chain(benchmark::State& state, chain_id id, std::size_t n, impl which) {
    using C = std::complex<T>;
    auto& d = shared<T>(n);
    // the graph's arguments: the same values, as the xt::xtensor its inputs declare
    const xt::xtensor<C, 1> x = adapt(d.x.data(), n), y = adapt(d.y.data(), n);
    xt::xtensor<C, 1> o = xt::xtensor<C, 1>::from_shape({n});
    auto programs = lower_chains<C>();
    for (auto _ : state) {
        switch (which) {
            case impl::realify_out:
                if (id == chain_id::exp_mul_add) programs.first(realify::graph::out(o), x, y);
                else programs.second(realify::graph::out(o), x, y);
                break;
            case impl::eigen: eigen_chain(id, d.x.data(), d.y.data(), d.out.data(), n); break;
            default: std_chain(id, d.x.data(), d.y.data(), d.out.data(), n); break;
        }
        benchmark::DoNotOptimize(o.data());
        benchmark::DoNotOptimize(d.out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

/// The copy of x into out by the engine's copy kernel on `threads` threads:
/// the machine's copy bandwidth, the limit of the memory-bound ops.
template <class T>
void bench_copy(benchmark::State& state, std::size_t n, int threads) {
    const realify::scoped_num_threads scope(threads);
    auto& d = shared<T>(n);
    auto ref = [&](std::complex<T>* p) {
        realify::engine::tensor_ref r;
        r.data = p;
        r.type = realify::engine::component_of<T>();
        r.complex = true;
        r.shape = realify::engine::make_dims("copy", std::array<std::size_t, 1>{n});
        r.strides[0] = 2;
        return r;
    };
    const realify::engine::tensor_ref in = ref(d.x.data()), out = ref(d.out.data());
    const std::array<bool, 1> kinds{true};
    const auto kernel = realify::engine::builtin_kernel(realify::engine::builtin::copy, in.type, kinds);
    for (auto _ : state) {
        realify::engine::evaluate("copy", std::span(&in, 1), out, kernel);
        benchmark::DoNotOptimize(d.out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(2 * n * sizeof(std::complex<T>)));
}

/// realify_out of an op or a chain on `threads` threads.
template <class T>
void bench_threads(benchmark::State& state, std::optional<op_id> op, chain_id chain, std::size_t n, int threads) {
    const realify::scoped_num_threads scope(threads);
    if (op) bench<T>(state, *op, n, impl::realify_out);
    else bench_chain<T>(state, chain, n, impl::realify_out);
}

/// cost/<op>: one call of a compiled op's kernel through the engine (what
/// every eager op and out= runs), complex<float> operands where the op takes
/// them, else float; 64K elements, one thread. docs/parallel.md turns these
/// times into the cost table of the grain (src/engine/op_cost.hpp), with
/// cost/conj (a copy through the same path) as the unit.
void bench_cost(benchmark::State& state, realify::simd::elementwise_op op) {
    namespace rs = realify::simd;
    namespace en = realify::engine;
    constexpr std::size_t n = std::size_t{1} << 16;
    auto& d = shared<float>(n);
    const auto complex = rs::operand_kind::complex, real = rs::operand_kind::real;
    // complex operands where the op has that form, else real
    std::vector<bool> kinds;
    std::optional<rs::operand_kind> result;
    if (rs::arity(op) == 1) {
        const bool c = rs::result_kind(op, complex).has_value();
        kinds = {c};
        result = rs::result_kind(op, c ? complex : real);
    } else {
        const bool c = rs::result_kind(op, complex, complex).has_value();
        kinds = {c, c};
        result = rs::result_kind(op, c ? complex : real, c ? complex : real);
    }
    auto ref = [&](void* p, bool is_complex) {
        en::tensor_ref r;
        r.data = p;
        r.type = en::component::float32;
        r.complex = is_complex;
        r.shape = en::make_dims("cost", std::array<std::size_t, 1>{n});
        r.strides[0] = is_complex ? 2 : 1;
        return r;
    };
    const std::array<en::tensor_ref, 2> in{ref(d.x.data(), kinds[0]), ref(d.y.data(), kinds.back())};
    const bool complex_out = result == complex;
    const en::tensor_ref out = ref(complex_out ? static_cast<void*>(d.out.data()) : d.real_out.data(), complex_out);
    const std::array<bool, 2> flags{kinds[0], kinds.back()};
    const std::optional<std::complex<double>> constant =
        op == rs::elementwise_op::pow_scalar ? std::optional<std::complex<double>>(2.5) : std::nullopt;
    const auto kernel = en::kernel_of(op, en::component::float32, std::span(flags.data(), kinds.size()), constant);
    for (auto _ : state) {
        en::evaluate(rs::name(op), std::span(in.data(), kinds.size()), out, kernel);
        benchmark::DoNotOptimize(d.out.data());
        benchmark::DoNotOptimize(d.real_out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

/// cost/<softmax, log_softmax, layer_norm, rms_norm>: the row ops on a
/// (16, 4096) float tensor (64K elements), out=, one thread.
void bench_row_cost(benchmark::State& state, std::string_view op) {
    constexpr std::size_t rows = 16, cols = 4096;
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({rows, cols});
    for (float& v : x) v = normal(rng);
    xt::xtensor<float, 2> o = x;
    const xt::xtensor<float, 1> w = xt::ones<float>({cols}), b = xt::zeros<float>({cols});
    for (auto _ : state) {
        if (op == "softmax") realify::softmax(x, -1, realify::out(o));
        else if (op == "log_softmax") realify::log_softmax(x, -1, realify::out(o));
        else if (op == "layer_norm") realify::layer_norm(x, {std::ptrdiff_t(cols)}, w, b, 1e-5, realify::out(o));
        else realify::rms_norm(x, {std::ptrdiff_t(cols)}, w, 1e-6, realify::out(o));
        benchmark::DoNotOptimize(o.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows * cols));
}

/// The reductions of bench_ops' reduce/… axis, in its order.
enum class reduction_id { memcpy, sum, mean, prod, amax, var, cumsum };
constexpr const char* reduction_names[] = {"memcpy", "sum", "mean", "prod", "amax", "var", "cumsum"};

/// The input of the reductions (C = complex<float> or float): uniform in [−2, 2); for prod,
/// values of modulus in [0.99, 1.01] (unit phases times a scale; real: a sign times a scale).
template <class C>
struct reduction_inputs {
    std::vector<C> x, product_x, out;
    explicit reduction_inputs(std::size_t n) : x(n), product_x(n), out(n) {
        std::mt19937 rng(43);
        std::uniform_real_distribution<float> u(-2, 2), scale(0.99f, 1.01f), phase(-3.14f, 3.14f);
        for (std::size_t i = 0; i < n; ++i) {
            if constexpr (std::is_same_v<C, float>) {
                x[i] = u(rng);
                product_x[i] = (i % 2 == 0 ? 1 : -1) * scale(rng);
            } else {
                x[i] = {u(rng), u(rng)};
                product_x[i] = std::polar(scale(rng), phase(rng));
            }
        }
    }
};

template <class C>
void bench_reduction(benchmark::State& state, reduction_id op, std::size_t n, int threads) {
    const realify::scoped_num_threads scope(threads);
    static std::optional<reduction_inputs<C>> held;
    if (!held || held->x.size() != n) held.emplace(n);
    auto& d = *held;
    const auto x = adapt(d.x.data(), n), px = adapt(d.product_x.data(), n);
    auto y = adapt(d.out.data(), n);
    std::array<C, 1> result{};
    std::array<float, 1> real_result{};
    auto scalar = xt::adapt(result.data(), 1, xt::no_ownership(), std::array<std::size_t, 0>{});
    auto real_scalar = xt::adapt(real_result.data(), 1, xt::no_ownership(), std::array<std::size_t, 0>{});
    for (auto _ : state) {
        switch (op) {
            case reduction_id::memcpy: std::memcpy(d.out.data(), d.x.data(), n * sizeof(C)); break;
            case reduction_id::sum: realify::sum(x, {0}, false, realify::out(scalar)); break;
            case reduction_id::mean: realify::mean(x, {0}, false, realify::out(scalar)); break;
            case reduction_id::prod: realify::prod(px, 0, false, realify::out(scalar)); break;
            case reduction_id::amax:
                if constexpr (std::is_same_v<C, float>) realify::amax(x, {0}, false, realify::out(real_scalar));
                break;
            case reduction_id::var: realify::var(x, {0}, 1.0, false, realify::out(real_scalar)); break;
            case reduction_id::cumsum: realify::cumsum(x, 0, realify::out(y)); break;
        }
        benchmark::DoNotOptimize(result.data());
        benchmark::DoNotOptimize(real_result.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n * sizeof(C)));
}

/// A fresh buffer of n complex elements, every page touched once, freed.
template <class T>
void page_faults(benchmark::State& state, std::size_t n) {
    for (auto _ : state) {
        std::unique_ptr<std::complex<T>[]> fresh(new std::complex<T>[n]);  // std::complex: zero-constructed
        benchmark::DoNotOptimize(fresh.get());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

/// x, y and out of n complex<float> at byte offsets (x, y, out) past page
/// boundaries, whole pages apart, in one arena.
struct placed_buffers {
    std::vector<std::byte> arena;
    std::complex<float>* x;
    std::complex<float>* y;
    std::complex<float>* out;
    placed_buffers(std::size_t n, std::array<std::size_t, 3> offsets) {
        const std::size_t pages = (n * sizeof(std::complex<float>) + 4095) / 4096 + 2;  // a page of room after each
        arena.resize((3 * pages + 1) * 4096);
        const auto base = (reinterpret_cast<std::uintptr_t>(arena.data()) + 4095) / 4096 * 4096;
        auto at = [&](std::size_t k) {
            return reinterpret_cast<std::complex<float>*>(base + k * pages * 4096 + offsets[k]);
        };
        x = at(0);
        y = at(1);
        out = at(2);
        const auto& d = shared<float>(n);
        std::copy(d.x.begin(), d.x.end(), x);
        std::copy(d.y.begin(), d.y.end(), y);
        std::fill(out, out + n, std::complex<float>{});
    }
};

struct placement {
    const char* name;
    std::array<std::size_t, 3> offsets;  // x, y, out past a page boundary
};
constexpr placement placements[] = {
    {"page", {0, 0, 0}},              // all 64-aligned, one page offset
    {"mmap16", {16, 16, 16}},         // glibc's large blocks: all 16 past a page
    {"in16_out0", {16, 16, 0}},       // misaligned loads, aligned stores
    {"in0_out16", {0, 0, 16}},        // aligned loads, out 16 bytes ahead (mod 4096)
    {"heap", {352, 368, 464}},        // glibc heap blocks after a free (mixed mod 64, out ahead by 96–112)
    {"out_ahead64", {0, 0, 64}},      // 4K aliasing, everything 64-aligned
    {"out_ahead1024", {0, 0, 1024}},  // out far ahead: no aliasing within a block
    {"out_behind64", {64, 64, 0}},    // out behind the inputs: no aliasing
};

void bench_placed(benchmark::State& state, op_id op, const placement& where, impl which) {
    constexpr std::size_t n = std::size_t{1} << 16;
    static std::map<std::string, std::unique_ptr<placed_buffers>> held;  // one arena per placement
    auto& slot = held[where.name];
    if (!slot) slot = std::make_unique<placed_buffers>(n, where.offsets);
    placed_buffers& b = *slot;
    const auto x = adapt(b.x, n), y = adapt(b.y, n);
    auto o = adapt(b.out, n);
    for (auto _ : state) {
        if (which == impl::eigen) eigen_run(op, b.x, b.y, b.out, nullptr, n);
        else eager<float>(op, x, y, realify::out(o));
        benchmark::DoNotOptimize(b.out);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

}  // namespace

int main(int argc, char** argv) {
    const int all_threads = realify::get_num_threads();
    realify::set_num_threads(1);  // the single-core comparisons; threads/… scope their own count
    std::vector<int> thread_axis;
    for (int t = 1; t < all_threads; t *= 2) thread_axis.push_back(t);
    thread_axis.push_back(all_threads);
    for (std::size_t n : {std::size_t{1} << 16, std::size_t{1} << 22}) {
        for (int t : thread_axis) {
            auto name = [&](std::string_view what, const char* type) {
                return "threads/" + std::string(what) + "/" + type + "/" + std::to_string(n) + "/" + std::to_string(t);
            };
            for (std::size_t k = 0; k < std::size(op_names); ++k) {
                const auto op = static_cast<op_id>(k);
                if (!takes_complex(op)) continue;
                benchmark::RegisterBenchmark(name(op_names[k], "float").c_str(), [=](benchmark::State& s) {
                    bench_threads<float>(s, op, chain_id{}, n, t);
                })->UseRealTime();
                benchmark::RegisterBenchmark(name(op_names[k], "double").c_str(), [=](benchmark::State& s) {
                    bench_threads<double>(s, op, chain_id{}, n, t);
                })->UseRealTime();
            }
            benchmark::RegisterBenchmark(name("copy", "float").c_str(), [=](benchmark::State& s) {
                bench_copy<float>(s, n, t);
            })->UseRealTime();
            benchmark::RegisterBenchmark(name("copy", "double").c_str(), [=](benchmark::State& s) {
                bench_copy<double>(s, n, t);
            })->UseRealTime();
            for (std::size_t k = 0; k < std::size(chain_names); ++k) {
                const auto id = static_cast<chain_id>(k);
                benchmark::RegisterBenchmark(name(chain_names[k], "float").c_str(), [=](benchmark::State& s) {
                    bench_threads<float>(s, std::nullopt, id, n, t);
                })->UseRealTime();
                benchmark::RegisterBenchmark(name(chain_names[k], "double").c_str(), [=](benchmark::State& s) {
                    bench_threads<double>(s, std::nullopt, id, n, t);
                })->UseRealTime();
            }
        }
        for (int t : thread_axis)
            for (std::size_t k = 0; k < std::size(reduction_names); ++k) {
                const auto op = static_cast<reduction_id>(k);
                auto name = [&](const char* type) {
                    return "reduce/" + std::string(reduction_names[k]) + "/" + type + "/" + std::to_string(n) + "/" +
                           std::to_string(t);
                };
                if (op != reduction_id::amax)  // complex values have no ordering
                    benchmark::RegisterBenchmark(name("cfloat").c_str(), [=](benchmark::State& s) {
                        bench_reduction<std::complex<float>>(s, op, n, t);
                    })->UseRealTime();
                benchmark::RegisterBenchmark(name("float").c_str(), [=](benchmark::State& s) {
                    bench_reduction<float>(s, op, n, t);
                })->UseRealTime();
            }
        for (std::size_t k = 0; k < std::size(op_names); ++k) {
            if (!takes_complex(static_cast<op_id>(k))) continue;
            for (std::size_t i = 0; i < std::size(impl_names); ++i) {
                const auto op = static_cast<op_id>(k);
                const auto which = static_cast<impl>(i);
                if (!has_competitor(op, which)) continue;
                auto name = [&](const char* type) {
                    return "ops/" + std::string(op_names[k]) + "/" + type + "/" + std::to_string(n) + "/" + impl_names[i];
                };
                benchmark::RegisterBenchmark(name("float").c_str(),
                                             [=](benchmark::State& s) { bench<float>(s, op, n, which); });
                benchmark::RegisterBenchmark(name("double").c_str(),
                                             [=](benchmark::State& s) { bench<double>(s, op, n, which); });
            }
            // out= forced onto every level (realify_out@avx2, …; bench_isa.hpp)
            for (const auto& column : realify_bench::isas()) {
                if (!column.level) continue;
                const auto level = column.level;
                const auto op = static_cast<op_id>(k);
                auto name = [&](const char* type) {
                    std::string result = "ops/" + std::string(op_names[k]) + "/" + type + "/" + std::to_string(n) +
                                         "/realify_out";
                    return result.append(column.suffix);
                };
                benchmark::RegisterBenchmark(name("float").c_str(), [=](benchmark::State& s) {
                    bench<float>(s, op, n, impl::realify_out, level);
                });
                benchmark::RegisterBenchmark(name("double").c_str(), [=](benchmark::State& s) {
                    bench<double>(s, op, n, impl::realify_out, level);
                });
            }
        }
        for (std::size_t k = 0; k < std::size(chain_names); ++k) {
            for (impl which : {impl::realify_out, impl::eigen, impl::std_loop}) {
                const auto id = static_cast<chain_id>(k);
                auto name = [&](const char* type) {
                    return "ops/" + std::string(chain_names[k]) + "/" + type + "/" + std::to_string(n) + "/" +
                           impl_names[static_cast<std::size_t>(which)];
                };
                benchmark::RegisterBenchmark(name("float").c_str(),
                                             [=](benchmark::State& s) { bench_chain<float>(s, id, n, which); });
                benchmark::RegisterBenchmark(name("double").c_str(),
                                             [=](benchmark::State& s) { bench_chain<double>(s, id, n, which); });
            }
        }
        benchmark::RegisterBenchmark(("pagefault/float/" + std::to_string(n)).c_str(),
                                     [=](benchmark::State& s) { page_faults<float>(s, n); });
        benchmark::RegisterBenchmark(("pagefault/double/" + std::to_string(n)).c_str(),
                                     [=](benchmark::State& s) { page_faults<double>(s, n); });
    }
    // the thread-count axis at every size from 1K to 4M for a copy-like op
    // (add, conj) and a costly one (exp): where each starts to split
    for (std::size_t n = std::size_t{1} << 10; n <= (std::size_t{1} << 22); n <<= 2) {
        if (n == (std::size_t{1} << 16) || n == (std::size_t{1} << 22)) continue;  // registered above
        for (op_id op : {op_id::add, op_id::conj, op_id::exp})
            for (int t : thread_axis)
                benchmark::RegisterBenchmark(("threads/" + std::string(op_names[static_cast<std::size_t>(op)]) + "/float/" +
                                              std::to_string(n) + "/" + std::to_string(t))
                                                 .c_str(),
                                             [=](benchmark::State& s) { bench_threads<float>(s, op, chain_id{}, n, t); })
                    ->UseRealTime();
    }
    for (op_id op : {op_id::add, op_id::mul, op_id::div})
        for (const placement& where : placements)
            for (impl which : {impl::realify_out, impl::eigen})
                benchmark::RegisterBenchmark(("placement/" + std::string(op_names[static_cast<std::size_t>(op)]) + "/" +
                                              where.name + "/" + impl_names[static_cast<std::size_t>(which)])
                                                 .c_str(),
                                             [op, &where, which](benchmark::State& s) { bench_placed(s, op, where, which); });
    for (const realify::simd::elementwise_op op : realify::simd::elementwise_ops)
        benchmark::RegisterBenchmark(("cost/" + std::string(realify::simd::name(op))).c_str(),
                                     [op](benchmark::State& s) { bench_cost(s, op); });
    for (std::string_view op : {"softmax", "log_softmax", "layer_norm", "rms_norm"})
        benchmark::RegisterBenchmark(("cost/" + std::string(op)).c_str(),
                                     [op](benchmark::State& s) { bench_row_cost(s, op); });
    realify_bench::record_levels();  // for tools/ops_bench_report.py
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
