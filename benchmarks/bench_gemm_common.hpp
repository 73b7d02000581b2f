// Shared by the matrix-product benchmark TUs (bench_gemm.cpp: realify;
// bench_gemm_competitors.cpp: Eigen and std::complex, compiled for the host).
//
// Names are <family>/<implementation>/<dtype>/<size>, families:
//   square     n × n times n × n, n = 64 … 1024
//   batch32    32 × (n × n times n × n), n = 128
//   small      n × n, n = 2 … 48: where the direct loop stops paying (the
//              automatic method's threshold)
//   mv         n × n times a vector;  dot   two vectors of length n
// Every product reports GFLOP/s with 8·m·n·k flops per complex product (the
// real ceiling, Eigen's real product (m × 2k)·(2k × 2n), has exactly that
// count: it is the product 1m hands to the real GEMM).
//
// And the real float products of a Llama decoder layer (TinyLlama-1.1B:
// x·Wᵀ with W n × k row-major, as torch.nn.functional.linear), named
// linear/<implementation>/<m>x<n>x<k>/<threads>, in real time on 1 and all
// threads: realify (mm of x and transpose_view(W), out=), each library
// called directly (Eigen on one thread only), and a copy of W (memcpy, the
// rows split over the threads) for the matrix-vector shapes.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace realify_bench {

inline std::vector<int> linear_threads() {
    const int all = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return all == 1 ? std::vector<int>{1} : std::vector<int>{1, all};
}

inline constexpr std::int64_t batch_count = 32;
inline constexpr std::int64_t batch_size = 128;

inline std::vector<std::int64_t> square_sizes() { return {64, 128, 256, 512, 1024}; }
inline std::vector<std::int64_t> small_sizes() { return {2, 4, 8, 12, 16, 20, 24, 32, 48}; }
inline std::vector<std::int64_t> vector_sizes() { return {16, 64, 256, 1024, 4096}; }

template <class T>
const char* dtype_name() {
    return sizeof(T) == sizeof(float) ? "c64" : "c128";
}

/// Deterministic values in [-1, 1).
inline double pseudo_random(std::uint32_t& state) {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) * (2.0 / 16777216.0) - 1.0;
}

template <class T>
std::vector<std::complex<T>> random_complex(std::size_t count, std::uint32_t seed) {
    std::vector<std::complex<T>> values(count);
    for (auto& z : values) {
        const T re = static_cast<T>(pseudo_random(seed));
        z = {re, static_cast<T>(pseudo_random(seed))};
    }
    return values;
}

/// GFLOP/s of `products` complex products of m × k times k × n.
inline void set_flops(benchmark::State& state, double products, double m, double n, double k) {
    state.counters["GFLOP/s"] =
        benchmark::Counter(8.0 * m * n * k * products * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

/// Registers `body(state, n)` as <family>/<implementation>/<dtype>/<n> for each size.
template <class Body>
void register_sizes(const std::string& family, const std::string& implementation, const char* dtype,
                    const std::vector<std::int64_t>& sizes, Body body) {
    auto* b = benchmark::RegisterBenchmark((family + "/" + implementation + "/" + dtype).c_str(),
                                           [body](benchmark::State& state) { body(state, state.range(0)); });
    for (std::int64_t n : sizes) b->Arg(n);
    b->Unit(benchmark::kMicrosecond);
}

/// The decoder layer's shapes (m × n × k of x·Wᵀ): prefill (256 tokens) of
/// the attention's 3072-row W (q, k, v stacked) and the MLP's down
/// projection, and decode (one token) of the MLP's up and of a 2048² W.
struct linear_shape {
    std::int64_t m, n, k;
};
inline std::vector<linear_shape> linear_shapes() { return {{256, 3072, 2048}, {256, 2048, 5632}, {1, 5632, 2048}, {1, 2048, 2048}}; }

/// GFLOP/s (2·m·n·k) and the bytes of W read per second.
inline void set_linear_counters(benchmark::State& state, const linear_shape& s) {
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * double(s.m * s.n * s.k) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["W GB/s"] =
        benchmark::Counter(4.0 * double(s.n * s.k) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

/// Registers body(state, shape, threads) as linear/<implementation>/<m>x<n>x<k>/<threads>
/// for each shape (those `keep` accepts) and thread count (up to `max_threads`).
template <class Body, class Keep>
void register_linear(const std::string& implementation, int max_threads, Keep keep, Body body) {
    for (const linear_shape& s : linear_shapes()) {
        if (!keep(s)) continue;
        for (int threads : linear_threads()) {
            if (threads > max_threads) continue;
            const std::string name = "linear/" + implementation + "/" + std::to_string(s.m) + "x" +
                                     std::to_string(s.n) + "x" + std::to_string(s.k) + "/" + std::to_string(threads);
            benchmark::RegisterBenchmark(name.c_str(), [s, threads, body](benchmark::State& state) {
                body(state, s, threads);
                set_linear_counters(state, s);
            })->UseRealTime()->Unit(benchmark::kMillisecond);
        }
    }
}

/// x (m × k) and W (n × k) of a shape, deterministic values in [-1, 1).
inline std::vector<float> linear_values(std::size_t count, std::uint32_t seed) {
    std::vector<float> values(count);
    for (float& v : values) v = static_cast<float>(pseudo_random(seed));
    return values;
}

}  // namespace realify_bench
