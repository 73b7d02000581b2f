// The libraries realify_gemm may run on, called directly as competitors of
// bench_gemm (built with what cmake/RealifyBlas.cmake found):
//   - the CBLAS's complex GEMM (cblas_cgemm / zgemm on row-major operands
//     into a preallocated C, one thread): square/… and batch32/…;
//   - the decoder layer's x·Wᵀ (linear/…, bench_gemm_common.hpp): the
//     CBLAS's sgemm (sgemv for one row) and oneDNN's dnnl_sgemm, on t threads
//     of their own (OpenBLAS's and OpenMP's settings; other CBLAS on one
//     thread), and memcpy of W over t OpenMP threads — the copy bandwidth
//     the matrix-vector product is held to.
// This unit is compiled with OpenMP (benchmarks/CMakeLists.txt).
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <omp.h>

#ifdef REALIFY_SIMD_HAVE_BLAS
#include REALIFY_CBLAS_HEADER
#endif
#ifdef REALIFY_SIMD_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

#include "bench_gemm_common.hpp"

namespace {

using realify_bench::linear_shape;

/// x (m × k), W (n × k) and C (m × n) of a shape.
struct linear_operands {
    std::vector<float> x, w, c;
    explicit linear_operands(const linear_shape& s)
        : x(realify_bench::linear_values(std::size_t(s.m * s.k), 1)),
          w(realify_bench::linear_values(std::size_t(s.n * s.k), 2)),
          c(std::size_t(s.m * s.n)) {}
};

/// W copied to another buffer, its rows split evenly over `threads` threads.
void copy_of_w(benchmark::State& state, const linear_shape& s, int threads) {
    const std::vector<float> w = realify_bench::linear_values(std::size_t(s.n * s.k), 2);
    std::vector<float> to(w.size());
    const std::size_t rows = std::size_t(s.n), row = std::size_t(s.k);
    for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int t = 0; t < threads; ++t) {
            const std::size_t first = rows * std::size_t(t) / std::size_t(threads);
            const std::size_t last = rows * std::size_t(t + 1) / std::size_t(threads);
            std::memcpy(to.data() + first * row, w.data() + first * row, (last - first) * row * sizeof(float));
        }
        benchmark::DoNotOptimize(to.data());
        benchmark::ClobberMemory();
    }
}

#ifdef REALIFY_SIMD_HAVE_BLAS
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

/// The CBLAS on `threads` threads (OpenBLAS; the others run as they are built).
void blas_threads(int threads) {
#ifdef REALIFY_BLAS_OPENBLAS
    openblas_set_num_threads(threads);
#else
    (void)threads;
#endif
}

template <class T>
void blas_complex(benchmark::State& state, std::int64_t n, std::int64_t count) {
    blas_threads(1);  // single thread, as every other candidate
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

/// x·Wᵀ: cblas_sgemm, or cblas_sgemv for one row (the library's own
/// matrix-vector kernel).
void blas_linear(benchmark::State& state, const linear_shape& s, int threads) {
    blas_threads(threads);
    linear_operands o(s);
    const int m = int(s.m), n = int(s.n), k = int(s.k);
    for (auto _ : state) {
        if (m == 1)
            cblas_sgemv(CblasRowMajor, CblasNoTrans, n, k, 1.0f, o.w.data(), k, o.x.data(), 1, 0.0f, o.c.data(), 1);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, o.x.data(), k, o.w.data(), k, 0.0f,
                        o.c.data(), n);
        benchmark::DoNotOptimize(o.c.data());
        benchmark::ClobberMemory();
    }
    blas_threads(1);
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
#endif

#ifdef REALIFY_SIMD_HAVE_ONEDNN
/// x·Wᵀ on dnnl_sgemm with OpenMP's thread count set to `threads`.
void onednn_linear(benchmark::State& state, const linear_shape& s, int threads) {
    const int previous = omp_get_max_threads();
    omp_set_num_threads(threads);
    linear_operands o(s);
    for (auto _ : state) {
        dnnl_sgemm('N', 'T', s.m, s.n, s.k, 1.0f, o.x.data(), s.k, o.w.data(), s.k, 0.0f, o.c.data(), s.n);
        benchmark::DoNotOptimize(o.c.data());
        benchmark::ClobberMemory();
    }
    omp_set_num_threads(previous);
}
#endif

const bool registered = [] {
    const auto every = [](const linear_shape&) { return true; };
    const auto one_row = [](const linear_shape& s) { return s.m == 1; };
    realify_bench::register_linear("copy", 1 << 20, one_row, copy_of_w);
#ifdef REALIFY_SIMD_HAVE_BLAS
    register_blas<float>();
    register_blas<double>();
    benchmark::AddCustomContext("blas_name", REALIFY_BLAS_NAME);
#ifdef REALIFY_BLAS_OPENBLAS
    benchmark::AddCustomContext("blas_core", openblas_get_corename());
    realify_bench::register_linear(REALIFY_BLAS_NAME, 1 << 20, every, blas_linear);
#else
    realify_bench::register_linear(REALIFY_BLAS_NAME, 1, every, blas_linear);
#endif
#endif
#ifdef REALIFY_SIMD_HAVE_ONEDNN
    realify_bench::register_linear("onednn", 1 << 20, every, onednn_linear);
    const dnnl_version_t* v = dnnl_version();
    benchmark::AddCustomContext("onednn_version", std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                                                      std::to_string(v->patch));
#endif
    (void)every;
    return true;
}();

}  // namespace
