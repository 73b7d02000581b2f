// The instruction-set levels a test may force: those realify_simd was built
// with (the CMake option REALIFY_SIMD_ARCHS) that this CPU runs, lowest first.
#pragma once

#include <vector>

#include "realify/simd/arch.hpp"

namespace realify::test {

inline std::vector<realify::simd::arch> supported_levels() {
    std::vector<realify::simd::arch> levels;
    for (auto a : {realify::simd::arch::sse2, realify::simd::arch::avx2, realify::simd::arch::avx512})
        if (realify::simd::is_supported(a)) levels.push_back(a);
    return levels;
}

/// The lowest level that runs here (sse2 in a build of every level).
inline realify::simd::arch lowest_supported_level() { return supported_levels().front(); }

}  // namespace realify::test
