// Eigen's complex and real products built for AVX2 + FMA only (what a machine
// without AVX-512 runs), registered as eigen_complex_avx2 and
// eigen_real_ceiling_avx2 next to bench_gemm's realify_avx2 (realify forced
// to its AVX2 kernels): the comparison the AVX2 targets are stated for.
// Eigen's namespace is renamed in this unit so its AVX2 copy and the host
// copy of bench_gemm_competitors.cpp stay apart at link time (the reason is
// explained in src/gemm/gemm_kernels.hpp); the standard headers come first.
#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <cfloat>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <immintrin.h>
#include <iosfwd>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <benchmark/benchmark.h>

#define Eigen eigen_avx2_competitor
#include <Eigen/Core>

#include "bench_gemm_eigen.hpp"

namespace {

const bool registered = [] {
    register_eigen<float>("_avx2", false);
    register_eigen<double>("_avx2", false);
    return true;
}();

}  // namespace
