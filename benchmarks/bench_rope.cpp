// RoPE at the Llama-3-8B shapes (32 q heads, 8 kv heads, head_dim 128, float,
// theta 500000): prefill (seq 2048, start_pos 0) and decode (seq 1,
// start_pos 4095). realify out-of-place and in-place against Meta Llama's
// formula on std::complex, a ggml-style scalar loop over a cos/sin cache,
// Eigen row by row, and memcpy of the same bytes (the roofline).
//
//   bench_rope --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// realify_*_threads/seq/start_pos/threads: the same on 1, 2, 4, … threads
// (up to OMP_NUM_THREADS or the cores), in real time, at the prefill, at
// prefill chunks of 512, 128, 64 and 16 positions and at the decode; every
// other case runs on one thread.
//
// eager/<case>/seq: Meta's eager spelling on the query tensor alone, start_pos
// 0, seq 64 … 2048, one thread, against the RoPE kernel on the same tensor:
//   kernel          realify::rope::apply_rotary_emb(xq, freqs_cis, 0, out_q)
//   meta_out        realify::mul(view_as_complex(xq as (…, 64, 2)), freqs_cis
//                   as (1, seq, 1, 64), out=view_as_complex(out_q …)): the
//                   eager engine's broadcast path (freqs_cis stride 0 over heads)
//   meta_alloc      the same allocating its result, then view_as_real
//   materialised    the same multiply with freqs_cis copied out to xq's shape
//                   (no stride 0): what the broadcast path is measured against
//   add_broadcast, add_materialised   realify::add on the same operands
//
// Every case reports bytes_per_second for the bytes it must move (read q and
// k, write the outputs), so rows compare directly with memcpy. realify runs on
// the level chosen at run time and on every level the machine has (bench_isa.hpp:
// realify_in_place@avx2, …).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xtensor.hpp>

#include "bench_isa.hpp"
#include "realify/eager.hpp"
#include "realify/layout.hpp"
#include "realify/rope.hpp"
#include "realify/threads.hpp"
#include "rope_baselines.hpp"

namespace {

constexpr std::size_t q_heads = 32, k_heads = 8, head_dim = 128;

using shape4 = std::array<std::size_t, 4>;

inline auto adapt4(float* p, const shape4& shape) {
    return xt::adapt(p, shape[0] * shape[1] * shape[2] * shape[3], xt::no_ownership(), shape);
}
using buffer4 = decltype(adapt4(nullptr, shape4{}));

/// Inputs, outputs and tables of one shape, built once and shared by all cases.
///
/// The four buffers live in one arena, each starting 4096-aligned plus
/// 0, 1, 2, 3 KiB: their page offsets are fixed and far apart. With heap
/// placement the decode buffers' offsets depended on allocation order, and
/// when out_q sat 16 bytes past xq modulo 4096 glibc's memcpy of them ran 15×
/// slower (4K aliasing), which made the decode roofline meaningless.
struct workload {
    rope_baselines::dims d;
    std::vector<float> arena;
    buffer4 xq, xk, out_q, out_k;
    xt::xtensor<std::complex<float>, 2> freqs;
    std::vector<float> cos_cache, sin_cache;

    static std::size_t floats(const shape4& s) { return s[0] * s[1] * s[2] * s[3]; }

    /// Start of buffer `index` (0..3) in the arena, after `used` floats.
    float* place(std::size_t& used, std::size_t count, std::size_t index) {
        const auto base = reinterpret_cast<std::uintptr_t>(arena.data());
        std::uintptr_t at = base + used * sizeof(float);
        at = (at + 4095) / 4096 * 4096 + index * 1024;
        used = (at - base) / sizeof(float) + count;
        return reinterpret_cast<float*>(at);
    }

    workload(std::size_t seq, std::size_t start_pos)
        : d{1, seq, q_heads, k_heads, head_dim, start_pos},
          arena(2 * floats({1, seq, q_heads, head_dim}) + 2 * floats({1, seq, k_heads, head_dim}) + 4 * 2048),
          xq(adapt4(nullptr, shape4{})),
          xk(adapt4(nullptr, shape4{})),
          out_q(adapt4(nullptr, shape4{})),
          out_k(adapt4(nullptr, shape4{})),
          freqs(realify::rope::precompute_freqs_cis(head_dim, start_pos + seq, 500000.0)) {
        const shape4 q_shape{1, seq, q_heads, head_dim};
        const shape4 k_shape{1, seq, k_heads, head_dim};
        std::size_t used = 0;
        // Re-seat the adaptors on the arena (xtensor's adaptor assignment
        // would copy elements, so construct new ones in place).
        float* pq = place(used, floats(q_shape), 0);
        float* pk = place(used, floats(k_shape), 1);
        float* poq = place(used, floats(q_shape), 2);
        float* pok = place(used, floats(k_shape), 3);
        xq.reset_buffer(pq, floats(q_shape));
        xk.reset_buffer(pk, floats(k_shape));
        out_q.reset_buffer(poq, floats(q_shape));
        out_k.reset_buffer(pok, floats(k_shape));
        xq.resize(q_shape);
        xk.resize(k_shape);
        out_q.resize(q_shape);
        out_k.resize(k_shape);
        std::mt19937 gen(7);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        for (auto& v : xq) v = dist(gen);
        for (auto& v : xk) v = dist(gen);
        std::fill(out_q.begin(), out_q.end(), 0.0f);  // fault the pages in before timing
        std::fill(out_k.begin(), out_k.end(), 0.0f);
        rope_baselines::split_cos_sin(freqs.data(), freqs.size(), cos_cache, sin_cache);
    }
};

workload& get(std::size_t seq, std::size_t start_pos) {
    static std::map<std::pair<std::size_t, std::size_t>, std::unique_ptr<workload>> cache;
    auto& slot = cache[{seq, start_pos}];
    if (!slot) slot = std::make_unique<workload>(seq, start_pos);
    return *slot;
}

// state.range(0): seq, state.range(1): start_pos.
workload& setup(benchmark::State& state) {
    return get(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
}

void finish(benchmark::State& state, const workload& w) {
    // Bytes moved: q and k read once, outputs written once.
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(2 * (w.xq.size() + w.xk.size()) * sizeof(float)));
}

/// The label of a realify case run on the level chosen at run time: the
/// level its calls settled on (RoPE measures AVX-512 against AVX2 on its
/// first calls of each size class: realify/simd/arch.hpp).
void label_level(benchmark::State& state, const workload& w, std::optional<realify::simd::arch> level) {
    namespace rs = realify::simd;
    if (level) return;
    const std::size_t bytes = 2 * (w.xq.size() + w.xk.size()) * sizeof(float);
    const bool environment = std::getenv("REALIFY_SIMD_ARCH") != nullptr;  // forces every call
    state.SetLabel(std::string(rs::arch_name(environment ? rs::active_arch_id(rs::kernel_family::rope)
                                                         : rs::preferred_arch(rs::kernel_family::rope, bytes))));
}

void realify_out_of_place(benchmark::State& state, std::optional<realify::simd::arch> level) {
    const realify_bench::arch_scope forced(level);
    auto& w = setup(state);
    for (auto _ : state) {
        realify::rope::apply_rotary_emb(w.xq, w.xk, w.freqs, static_cast<std::ptrdiff_t>(w.d.start_pos), w.out_q, w.out_k);
        benchmark::ClobberMemory();
    }
    finish(state, w);
    label_level(state, w, level);
}

void realify_in_place(benchmark::State& state, std::optional<realify::simd::arch> level) {
    const realify_bench::arch_scope forced(level);
    auto& w = setup(state);
    // Rotating the outputs in place over and over: same bytes, no second stream.
    std::copy(w.xq.begin(), w.xq.end(), w.out_q.begin());
    std::copy(w.xk.begin(), w.xk.end(), w.out_k.begin());
    for (auto _ : state) {
        realify::rope::apply_rotary_emb(w.out_q, w.out_k, w.freqs, static_cast<std::ptrdiff_t>(w.d.start_pos), w.out_q, w.out_k);
        benchmark::ClobberMemory();
    }
    finish(state, w);
    label_level(state, w, level);
}

void std_complex(benchmark::State& state) {
    auto& w = setup(state);
    for (auto _ : state) {
        rope_baselines::std_complex(w.d, w.xq.data(), w.xk.data(), w.out_q.data(), w.out_k.data(), w.freqs.data());
        benchmark::ClobberMemory();
    }
    finish(state, w);
}

void ggml_style(benchmark::State& state) {
    auto& w = setup(state);
    for (auto _ : state) {
        rope_baselines::ggml_style(w.d, w.xq.data(), w.xk.data(), w.out_q.data(), w.out_k.data(),
                                   w.cos_cache.data(), w.sin_cache.data());
        benchmark::ClobberMemory();
    }
    finish(state, w);
}

void eigen_rows(benchmark::State& state) {
    auto& w = setup(state);
    for (auto _ : state) {
        rope_baselines::eigen_rows(w.d, w.xq.data(), w.xk.data(), w.out_q.data(), w.out_k.data(), w.freqs.data());
        benchmark::ClobberMemory();
    }
    finish(state, w);
}

void memcpy_same_bytes(benchmark::State& state) {
    auto& w = setup(state);
    for (auto _ : state) {
        rope_baselines::copy_bytes(w.d, w.xq.data(), w.xk.data(), w.out_q.data(), w.out_k.data());
        benchmark::ClobberMemory();
    }
    finish(state, w);
}

// ---- Meta's eager spelling against the kernel (query tensor only) ----

/// The query tensor and freqs_cis of one seq as the eager ops see them: the
/// complex views of xq and out_q, freqs_cis as (1, seq, 1, head_dim/2)
/// (stride 0 over the heads when broadcast), and freqs_cis copied out to
/// xq's complex shape.
struct eager_views {
    using cshape = std::array<std::size_t, 4>;
    using complex_adaptor = decltype(xt::adapt(static_cast<std::complex<float>*>(nullptr), std::size_t{0},
                                               xt::no_ownership(), cshape{}));
    workload& w;
    cshape shape, freq_shape;
    complex_adaptor x, out, freqs;
    xt::xtensor<std::complex<float>, 4> materialised;

    static std::complex<float>* as_complex(float* p) { return reinterpret_cast<std::complex<float>*>(p); }

    explicit eager_views(workload& work)
        : w(work),
          shape{1, w.d.seq, q_heads, head_dim / 2},
          freq_shape{1, w.d.seq, 1, head_dim / 2},
          x(xt::adapt(as_complex(w.xq.data()), w.xq.size() / 2, xt::no_ownership(), shape)),
          out(xt::adapt(as_complex(w.out_q.data()), w.out_q.size() / 2, xt::no_ownership(), shape)),
          freqs(xt::adapt(w.freqs.data(), w.d.seq * head_dim / 2, xt::no_ownership(), freq_shape)),
          materialised(xt::broadcast(freqs, shape)) {}
};

eager_views& eager_setup(benchmark::State& state) {
    static std::map<std::size_t, std::unique_ptr<eager_views>> cache;
    auto& slot = cache[static_cast<std::size_t>(state.range(0))];
    if (!slot) slot = std::make_unique<eager_views>(get(static_cast<std::size_t>(state.range(0)), 0));
    return *slot;
}

void eager_finish(benchmark::State& state, const workload& w) {
    // xq read, out_q written (freqs_cis: 1/32 of that, not counted)
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(2 * w.xq.size() * sizeof(float)));
}

enum class eager_case { kernel, meta_out, meta_alloc, materialised, add_broadcast, add_materialised };

void eager_rope(benchmark::State& state, eager_case which) {
    eager_views& v = eager_setup(state);
    workload& w = v.w;
    for (auto _ : state) {
        switch (which) {
            case eager_case::kernel: realify::rope::apply_rotary_emb(w.xq, w.freqs, 0, w.out_q); break;
            case eager_case::meta_out: {
                // xq_ = view_as_complex(xq.reshape(…, -1, 2)); view_as_real(xq_ * freqs_cis) into out_q
                auto pairs = xt::adapt(w.xq.data(), w.xq.size(), xt::no_ownership(),
                                       std::array<std::size_t, 5>{1, w.d.seq, q_heads, head_dim / 2, 2});
                auto out_pairs = xt::adapt(w.out_q.data(), w.out_q.size(), xt::no_ownership(),
                                           std::array<std::size_t, 5>{1, w.d.seq, q_heads, head_dim / 2, 2});
                auto out = realify::view_as_complex(out_pairs);
                realify::mul(realify::view_as_complex(pairs), v.freqs, realify::out(out));
                break;
            }
            case eager_case::meta_alloc: {
                auto pairs = xt::adapt(w.xq.data(), w.xq.size(), xt::no_ownership(),
                                       std::array<std::size_t, 5>{1, w.d.seq, q_heads, head_dim / 2, 2});
                auto r = realify::mul(realify::view_as_complex(pairs), v.freqs);
                benchmark::DoNotOptimize(realify::view_as_real(r).data());
                break;
            }
            case eager_case::materialised: realify::mul(v.x, v.materialised, realify::out(v.out)); break;
            case eager_case::add_broadcast: realify::add(v.x, v.freqs, realify::out(v.out)); break;
            case eager_case::add_materialised: realify::add(v.x, v.materialised, realify::out(v.out)); break;
        }
        benchmark::ClobberMemory();
    }
    eager_finish(state, w);
}

void eager_shapes(benchmark::internal::Benchmark* b) {
    b->ArgNames({"seq"});
    for (int seq : {64, 256, 1024, 2048}) b->Arg(seq);
    b->Unit(benchmark::kMicrosecond);
}

// The thread-count axis: realify on state.range(2) threads, in real time
// (CPU time counts the calling thread only). Every other case runs on one
// thread (main sets realify::set_num_threads(1)).
void realify_out_of_place_threads(benchmark::State& state) {
    const realify::scoped_num_threads threads(static_cast<int>(state.range(2)));
    realify_out_of_place(state, std::nullopt);
}
void realify_in_place_threads(benchmark::State& state) {
    const realify::scoped_num_threads threads(static_cast<int>(state.range(2)));
    realify_in_place(state, std::nullopt);
}
void shapes_and_threads(benchmark::internal::Benchmark* b) {
    b->ArgNames({"seq", "start_pos", "threads"});
    for (int t = 1;; t *= 2) {
        const int n = std::min(t, realify::get_num_threads());
        for (int seq : {2048, 512, 128, 64, 16}) b->Args({seq, 0, n});  // prefill, and chunks of it
        b->Args({1, 4095, n});
        if (n == realify::get_num_threads()) break;
    }
    b->Unit(benchmark::kMicrosecond)->UseRealTime();
}

void shapes(benchmark::internal::Benchmark* b) {
    b->ArgNames({"seq", "start_pos"});
    b->Args({2048, 0});  // prefill
    b->Args({1, 4095});  // decode
    b->Unit(benchmark::kMicrosecond);
}

}  // namespace

// realify on the level chosen at run time, and on every level (name@level).
const bool realify_registered = [] {
    for (const auto& column : realify_bench::isas()) {
        const auto level = column.level;
        std::string out_of_place = "realify_out_of_place", in_place = "realify_in_place";
        benchmark::RegisterBenchmark(out_of_place.append(column.suffix).c_str(),
                                     [level](benchmark::State& s) { realify_out_of_place(s, level); })
            ->Apply(shapes);
        benchmark::RegisterBenchmark(in_place.append(column.suffix).c_str(),
                                     [level](benchmark::State& s) { realify_in_place(s, level); })
            ->Apply(shapes);
    }
    return true;
}();

const bool eager_registered = [] {
    const std::pair<const char*, eager_case> cases[] = {
        {"eager/kernel", eager_case::kernel},           {"eager/meta_out", eager_case::meta_out},
        {"eager/meta_alloc", eager_case::meta_alloc},   {"eager/materialised", eager_case::materialised},
        {"eager/add_broadcast", eager_case::add_broadcast}, {"eager/add_materialised", eager_case::add_materialised}};
    for (const auto& [name, which] : cases)
        benchmark::RegisterBenchmark(name, [which](benchmark::State& s) { eager_rope(s, which); })->Apply(eager_shapes);
    return true;
}();

BENCHMARK(std_complex)->Apply(shapes);
BENCHMARK(ggml_style)->Apply(shapes);
BENCHMARK(eigen_rows)->Apply(shapes);
BENCHMARK(memcpy_same_bytes)->Apply(shapes);
BENCHMARK(realify_out_of_place_threads)->Apply(shapes_and_threads);
BENCHMARK(realify_in_place_threads)->Apply(shapes_and_threads);

int main(int argc, char** argv) {
    // Recorded in the JSON context for tools/rope_bench_report.py.
    benchmark::AddCustomContext("realify_arch", std::string(realify::rope::active_arch()));
    realify_bench::record_levels();
    // registered before main: the thread axis is already taken from the default count
    realify::set_num_threads(1);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
