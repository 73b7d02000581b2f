// The seeded fuzzer (tests/fuzz/fuzz_case.hpp) as a test, and the
// instruction-set dispatch's first call from many threads.
//
//   REALIFY_FUZZ_SEED   the run's seed (default 20261123)
//   REALIFY_FUZZ_CASES  how many cases (default 3000)
//   REALIFY_FUZZ_FIRST  the first case's index (default 0): a failing case i
//                       reruns alone with REALIFY_FUZZ_FIRST=i REALIFY_FUZZ_CASES=1
//   REALIFY_FUZZ_LOAD_CASES  how many mutated saved programs are loaded (default 20000)
//
// Case i draws from std::mt19937_64 seeded with mix(seed, i), so it does not
// depend on the cases before it.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz_case.hpp"
#include "load_case.hpp"

namespace {

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

/// SplitMix64's finaliser: nearby (seed, index) pairs give unrelated streams.
std::uint64_t mix(std::uint64_t seed, std::uint64_t index) {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

TEST(Fuzz, SeededCasesMatchTheLongDoubleReference) {
    const std::uint64_t seed = env_number("REALIFY_FUZZ_SEED", 20261123);
    const std::uint64_t cases = env_number("REALIFY_FUZZ_CASES", 3000);
    const std::uint64_t first = env_number("REALIFY_FUZZ_FIRST", 0);
    std::map<std::string, std::size_t> per_family;
    std::size_t elements = 0, own_type = 0, failures = 0;
    std::ostringstream failing;  // every failing case, one line each
    for (std::uint64_t i = first; i < first + cases; ++i) {
        realify::fuzz::source src(mix(seed, i));
        const realify::fuzz::outcome out = realify::fuzz::run_case(src);
        ++per_family[out.family.substr(0, out.family.find(' '))];
        elements += out.elements;
        own_type += out.own_type;
        if (!out.failure.empty()) failing << "\n  case " << i << ": " << out.family;
        if (!out.failure.empty() && failures++ < 5)
            ADD_FAILURE() << "fuzz case " << i << " (" << out.family << "), rerun with REALIFY_FUZZ_SEED=" << seed
                          << " REALIFY_FUZZ_FIRST=" << i << " REALIFY_FUZZ_CASES=1\n"
                          << out.failure;
    }
    EXPECT_EQ(failures, 0u) << failures << " of " << cases << " cases failed (seed " << seed << "):" << failing.str();
    std::cout << "[ fuzz ] seed " << seed << ", cases " << first << ".." << first + cases - 1 << ":";
    for (const auto& [family, n] : per_family) std::cout << " " << family << " " << n;
    std::cout << "; " << elements << " elements compared, " << own_type
              << " matched only the computation in their own type or the documented PyTorch value\n";
}

// Saved graph programs with 1 to 4 bytes overwritten, or cut (load_case.hpp):
// each loads or is refused with a realify::error, never crashes.
TEST(FuzzLoad, MutatedSavedProgramsLoadOrAreRefused) {
    const std::uint64_t seed = env_number("REALIFY_FUZZ_SEED", 20261123);
    const std::uint64_t cases = env_number("REALIFY_FUZZ_LOAD_CASES", 20000);
    const std::uint64_t first = env_number("REALIFY_FUZZ_FIRST", 0);
    std::uint64_t failures = 0;
    std::ostringstream failing;
    for (std::uint64_t i = first; i < first + cases; ++i) {
        std::mt19937_64 gen(mix(seed, i));
        std::vector<std::uint8_t> bytes(2 + 3 * (1 + gen() % 4));  // the program, the cut, 1 to 4 bytes overwritten
        for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(gen());
        const std::string failure = realify::fuzz::run_load_case(bytes.data(), bytes.size());
        if (!failure.empty() && ++failures <= 5) failing << "\n  case " << i << ": " << failure;
    }
    EXPECT_EQ(failures, 0u) << failures << " of " << cases << " cases failed (seed " << seed << "):" << failing.str();
}

// The first kernel call of a process picks the instruction set (the
// environment, the CPU); every thread here makes its first call at once.
// ctest runs each test in a process of its own, so these calls are the
// process's first. Run under ThreadSanitizer by the REALIFY_TSAN build.
TEST(FuzzThreads, FirstCallsFromManyThreadsAgree) {
    using C = std::complex<double>;
    realify::fuzz::source src(7);
    const xt::xarray<C> a = realify::fuzz::random_complex<double>(src, {3, 37}, false, 1.0);
    const xt::xarray<double> xq = xt::real(realify::fuzz::random_complex<double>(src, {1, 3, 2, 16}, false, 1.0));
    const xt::xarray<double> xk = xt::real(realify::fuzz::random_complex<double>(src, {1, 3, 1, 16}, false, 1.0));
    const auto freqs = realify::rope::precompute_freqs_cis<double>(16, 3);
    constexpr int threads = 4;
    std::atomic<int> ready{0};
    std::vector<xt::xarray<C>> products(threads);
    std::vector<xt::xarray<double>> rotated(threads);
    std::vector<std::string> archs(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            ready.fetch_add(1);
            while (ready.load() < threads) {}  // start together
            const auto la = realify::complex_layout_of(a);
            if (t % 2) products[t] = realify::to_complex_tensor(realify::mul(la, la));
            else products[t] = realify::to_complex_tensor(realify::exp(la));
            rotated[t] = realify::rope::apply_rotary_emb(xq, xk, freqs).first;
            archs[t] = std::string(realify::simd::active_arch());
        });
    for (auto& th : pool) th.join();
    for (int t = 2; t < threads; ++t) {
        EXPECT_EQ(products[t], products[t - 2]) << "thread " << t;
        EXPECT_EQ(rotated[t], rotated[0]) << "thread " << t;
        EXPECT_EQ(archs[t], archs[0]) << "thread " << t;
    }
}

}  // namespace
