// xtensor 0.24 with XTENSOR_USE_XSIMD: c = a * b on xtensor<complex<float>, 1>.
// Its own executable: XTENSOR_USE_XSIMD changes xtensor's inline code, and
// mixing TUs compiled with and without it in one binary breaks the ODR.
// xsimd 8.1's complex load (deinterleave into uninitialised registers) trips
// GCC 12's -Wmaybe-uninitialized once inlined: third-party code, silenced here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <xtensor/xtensor.hpp>
#include <xtensor/xnoalias.hpp>

#include "bench_complex_mul_common.hpp"

#ifndef XTENSOR_USE_XSIMD
#error "bench_complex_mul_xtensor.cpp must be compiled with XTENSOR_USE_XSIMD"
#endif

namespace {

void BM_xtensor_xsimd(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto a0 = realify_bench::make_complex(n, 1);
    const auto b0 = realify_bench::make_complex(n, 2);
    xt::xtensor<std::complex<float>, 1> a = xt::xtensor<std::complex<float>, 1>::from_shape({n});
    xt::xtensor<std::complex<float>, 1> b = xt::xtensor<std::complex<float>, 1>::from_shape({n});
    xt::xtensor<std::complex<float>, 1> c = xt::xtensor<std::complex<float>, 1>::from_shape({n});
    std::copy(a0.begin(), a0.end(), a.begin());
    std::copy(b0.begin(), b0.end(), b.begin());
    for (auto _ : state) {
        xt::noalias(c) = a * b;
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_complex_mul_counters(state, n);
}
BENCHMARK(BM_xtensor_xsimd)->Apply(realify_bench::complex_mul_sizes);

}  // namespace

BENCHMARK_MAIN();
