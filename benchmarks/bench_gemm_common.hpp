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
#pragma once

#include <benchmark/benchmark.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace realify_bench {

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

}  // namespace realify_bench
