// The BLAS's complex GEMM as a competitor of bench_gemm (cblas_cgemm /
// cblas_zgemm on row-major operands into a preallocated C, one thread), built
// when realify_gemm has a BLAS (cmake/RealifyBlas.cmake): the library
// realify's products may run on, measured on its own.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#ifdef REALIFY_SIMD_HAVE_BLAS
#include REALIFY_CBLAS_HEADER
#endif

#include "bench_gemm_common.hpp"

#ifdef REALIFY_SIMD_HAVE_BLAS
namespace {

void gemm(std::size_t n, const std::complex<float>* a, const std::complex<float>* b, std::complex<float>* c) {
    const std::complex<float> one(1), zero(0);
    const int size = static_cast<int>(n);
    cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, size, size, size, &one, a, size, b, size, &zero, c, size);
}
void gemm(std::size_t n, const std::complex<double>* a, const std::complex<double>* b, std::complex<double>* c) {
    const std::complex<double> one(1), zero(0);
    const int size = static_cast<int>(n);
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, size, size, size, &one, a, size, b, size, &zero, c, size);
}

template <class T>
void blas_complex(benchmark::State& state, std::int64_t n, std::int64_t count) {
#ifdef REALIFY_BLAS_OPENBLAS
    openblas_set_num_threads(1);  // single thread, as every other candidate
#endif
    const auto size = static_cast<std::size_t>(n);
    std::vector<std::vector<std::complex<T>>> a, b;
    for (std::int64_t i = 0; i < count; ++i) {
        a.push_back(realify_bench::random_complex<T>(size * size, 1 + 2 * std::uint32_t(i)));
        b.push_back(realify_bench::random_complex<T>(size * size, 2 + 2 * std::uint32_t(i)));
    }
    std::vector<std::complex<T>> c(size * size * static_cast<std::size_t>(count));
    for (auto _ : state) {
        for (std::size_t batch = 0; batch < a.size(); ++batch)
            gemm(size, a[batch].data(), b[batch].data(), c.data() + batch * size * size);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_flops(state, double(count), double(n), double(n), double(n));
}

template <class T>
void register_blas() {
    const char* dtype = realify_bench::dtype_name<T>();
    realify_bench::register_sizes("square", "blas_complex", dtype, realify_bench::square_sizes(),
                                  [](benchmark::State& s, std::int64_t n) { blas_complex<T>(s, n, 1); });
    realify_bench::register_sizes(
        "batch32", "blas_complex", dtype, {realify_bench::batch_size},
        [](benchmark::State& s, std::int64_t n) { blas_complex<T>(s, n, realify_bench::batch_count); });
}

const bool registered = [] {
    register_blas<float>();
    register_blas<double>();
    benchmark::AddCustomContext("blas_name", REALIFY_BLAS_NAME);
#ifdef REALIFY_BLAS_OPENBLAS
    benchmark::AddCustomContext("blas_core", openblas_get_corename());
#endif
    return true;
}();

}  // namespace
#endif
