// Shared by the complex-multiply benchmark TUs: c = a · b on complex<float>,
// at N = 1K, 16K, 64K (cache resident) and 16M (memory bound: 3 × 128 MiB).
// Every implementation reports bytes processed = 3 · N · 8 (two reads, one
// write), so Google Benchmark's bytes_per_second is comparable across them.
#pragma once

#include <benchmark/benchmark.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace realify_bench {

// Every implementation gets 64-byte aligned buffers, as Eigen's own
// allocations are: otherwise half of the 32-byte loads of the others would
// split cache lines and the comparison would measure malloc, not the kernels.
template <class T>
struct aligned_allocator {
    using value_type = T;
    aligned_allocator() = default;
    template <class U>
    aligned_allocator(const aligned_allocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{64}); }
    template <class U>
    bool operator==(const aligned_allocator<U>&) const noexcept { return true; }
};

template <class T>
using aligned_vector = std::vector<T, aligned_allocator<T>>;
using complex_vector = aligned_vector<std::complex<float>>;

inline void complex_mul_sizes(benchmark::internal::Benchmark* b) {
    for (std::int64_t n : {std::int64_t{1} << 10, std::int64_t{1} << 14, std::int64_t{1} << 16, std::int64_t{1} << 24})
        b->Arg(n);
    b->Unit(benchmark::kMicrosecond);
}

// Deterministic, cheap to generate at 16M, values in [-1, 1).
inline float pseudo_random(std::uint32_t& state) {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

inline complex_vector make_complex(std::size_t n, std::uint32_t seed) {
    complex_vector v(n);
    for (auto& z : v) {
        const float re = pseudo_random(seed);
        z = {re, pseudo_random(seed)};
    }
    return v;
}

inline void set_complex_mul_counters(benchmark::State& state, std::size_t n) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n) * 3 *
                            static_cast<std::int64_t>(sizeof(std::complex<float>)));
    state.counters["N"] = static_cast<double>(n);
}

}  // namespace realify_bench
