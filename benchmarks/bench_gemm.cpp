// Matrix products: realify::mm / bmm / mv / dot with each method, writing a
// preallocated result, against Eigen's complex product, Eigen's real product
// of the same flop count (the ceiling an induced method can reach), the
// BLAS's complex GEMM when realify_simd was built with one (cblas_cgemm /
// zgemm, one thread: bench_gemm_blas.cpp) and a std::complex triple loop —
// all in this one executable (the competitors compiled for the host; realify
// is the realify_simd library built without -march, choosing its instruction set at run time,
// and forced onto every level: name@level, bench_isa.hpp).
// tools/gemm_bench_report.py turns its JSON into the "Matrix products"
// section of docs/benchmarks.md. threads/… (mm n = 1024, bmm 32 × 128³ on
// 1, 2, 4, … threads, real time) feed tools/torch_threads_bench.py; everything
// else runs on one thread. linear/… (a decoder layer's x·Wᵀ, real float)
// runs on 1 and all threads against the libraries called directly
// (bench_gemm_libraries.cpp) and Eigen (bench_gemm_competitors.cpp).
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "bench_gemm_common.hpp"
#include "bench_isa.hpp"
#include "realify/eager.hpp"
#include "realify/layout.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/gemm.hpp"
#include "realify/threads.hpp"

namespace {

using realify::gemm_method;

template <class T, std::size_t N>
xt::xtensor<std::complex<T>, N> random_tensor(const std::array<std::size_t, N>& shape, std::uint32_t seed) {
    xt::xtensor<std::complex<T>, N> result = xt::xtensor<std::complex<T>, N>::from_shape(shape);
    const auto values = realify_bench::random_complex<T>(result.size(), seed);
    std::copy(values.begin(), values.end(), result.begin());
    return result;
}

using realify_bench::arch_scope;

/// C = A·B into a preallocated C (as Eigen's C.noalias() = A * B).
template <class T>
void square(benchmark::State& state, std::int64_t n, gemm_method method,
            std::optional<realify::simd::arch> arch = std::nullopt) {
    const arch_scope forced(arch);
    const auto size = static_cast<std::size_t>(n);
    const auto a = random_tensor<T, 2>({size, size}, 1), b = random_tensor<T, 2>({size, size}, 2);
    xt::xtensor<std::complex<T>, 2> c = xt::zeros<std::complex<T>>({size, size});
    for (auto _ : state) {
        realify::mm(a, b, method, realify::out(c));
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_flops(state, 1, double(n), double(n), double(n));
}

/// realify's real GEMM (realify::mm of two real tensors) on (n × 2n)·(2n × 2n):
/// the product 1m makes of an n × n complex one, without the expansion of B.
template <class T>
void real_same_flops(benchmark::State& state, std::int64_t n, std::int64_t count) {
    const auto size = static_cast<std::size_t>(n), batches = static_cast<std::size_t>(count);
    xt::xtensor<T, 3> a = xt::xtensor<T, 3>::from_shape({batches, size, 2 * size});
    xt::xtensor<T, 3> b = xt::xtensor<T, 3>::from_shape({batches, 2 * size, 2 * size});
    std::uint32_t seed = 3;
    for (auto& x : a) x = static_cast<T>(realify_bench::pseudo_random(seed));
    for (auto& x : b) x = static_cast<T>(realify_bench::pseudo_random(seed));
    for (auto _ : state) {
        auto c = realify::bmm(a, b);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_flops(state, double(count), double(n), double(n), double(n));
}

template <class T>
void batched(benchmark::State& state, std::int64_t n, gemm_method method,
             std::optional<realify::simd::arch> arch = std::nullopt) {
    const arch_scope forced(arch);
    const auto size = static_cast<std::size_t>(n), count = static_cast<std::size_t>(realify_bench::batch_count);
    const auto a = random_tensor<T, 3>({count, size, size}, 1), b = random_tensor<T, 3>({count, size, size}, 2);
    xt::xtensor<std::complex<T>, 3> c = xt::zeros<std::complex<T>>({count, size, size});
    for (auto _ : state) {
        realify::bmm(a, b, method, realify::out(c));
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_flops(state, double(count), double(n), double(n), double(n));
}

template <class T>
void matrix_vector(benchmark::State& state, std::int64_t n, gemm_method method) {
    const auto size = static_cast<std::size_t>(n);
    const auto a = random_tensor<T, 2>({size, size}, 1);
    const auto x = random_tensor<T, 1>({size}, 2);
    for (auto _ : state) {
        auto c = realify::mv(realify::complex_layout_of(a), realify::complex_layout_of(x), method);
        benchmark::DoNotOptimize(c.real_layout().data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_flops(state, 1, double(n), 1, double(n));
}

template <class T>
void vector_dot(benchmark::State& state, std::int64_t n, gemm_method method) {
    const auto size = static_cast<std::size_t>(n);
    const auto x = random_tensor<T, 1>({size}, 1), y = random_tensor<T, 1>({size}, 2);
    for (auto _ : state) {
        auto c = realify::dot(realify::complex_layout_of(x), realify::complex_layout_of(y), method);
        benchmark::DoNotOptimize(c.real_layout().data());
        benchmark::ClobberMemory();
    }
    realify_bench::set_flops(state, 1, 1, 1, double(n));
}

template <class T>
void register_realify() {
    const char* dtype = realify_bench::dtype_name<T>();
    struct named {
        std::string name;
        gemm_method method;
    };
    // The default and 3m on the level chosen at run time (which may be the BLAS:
    // realify::simd::gemm_backend()) and forced onto every level (name@level:
    // Eigen's GEMM built for it); 1m and 4m on the level chosen at run time.
    for (const auto& column : realify_bench::isas()) {
        std::vector<named> methods{{"realify", gemm_method::automatic}, {"realify_3m", gemm_method::m3}};
        if (!column.level) methods.insert(methods.end(), {{"realify_1m", gemm_method::m1}, {"realify_4m", gemm_method::m4}});
        const auto level = column.level;
        for (const named& m : methods) {
            const gemm_method method = m.method;
            realify_bench::register_sizes(
                "square", m.name + column.suffix, dtype, realify_bench::square_sizes(),
                [method, level](benchmark::State& s, std::int64_t n) { square<T>(s, n, method, level); });
            realify_bench::register_sizes(
                "batch32", m.name + column.suffix, dtype, {realify_bench::batch_size},
                [method, level](benchmark::State& s, std::int64_t n) { batched<T>(s, n, method, level); });
        }
    }
    realify_bench::register_sizes("square", "realify_real_same_flops", dtype, realify_bench::square_sizes(),
                                  [](benchmark::State& s, std::int64_t n) { real_same_flops<T>(s, n, 1); });
    realify_bench::register_sizes(
        "batch32", "realify_real_same_flops", dtype, {realify_bench::batch_size},
        [](benchmark::State& s, std::int64_t n) { real_same_flops<T>(s, n, realify_bench::batch_count); });
    for (const named& m : {named{"realify", gemm_method::automatic}, named{"realify_direct", gemm_method::direct},
                           named{"realify_1m", gemm_method::m1}, named{"realify_4m", gemm_method::m4}}) {
        const gemm_method method = m.method;
        realify_bench::register_sizes("small", m.name, dtype, realify_bench::small_sizes(),
                                      [method](benchmark::State& s, std::int64_t n) { square<T>(s, n, method); });
        realify_bench::register_sizes(
            "mv", m.name, dtype, realify_bench::vector_sizes(),
            [method](benchmark::State& s, std::int64_t n) { matrix_vector<T>(s, n, method); });
        realify_bench::register_sizes("dot", m.name, dtype, realify_bench::vector_sizes(),
                                      [method](benchmark::State& s, std::int64_t n) { vector_dot<T>(s, n, method); });
    }
}

/// linear/realify/<m>x<n>x<k>/<t>: x·Wᵀ of real float tensors, as a model's
/// linear layer calls it — realify::mm(x, transpose_view(W), out(C)), W read
/// in place — on t threads.
void linear(benchmark::State& state, const realify_bench::linear_shape& shape, int threads) {
    const realify::scoped_num_threads scope(threads);
    const auto m = static_cast<std::size_t>(shape.m), n = static_cast<std::size_t>(shape.n),
               k = static_cast<std::size_t>(shape.k);
    xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({m, k}), w = xt::xtensor<float, 2>::from_shape({n, k});
    const auto xv = realify_bench::linear_values(m * k, 1), wv = realify_bench::linear_values(n * k, 2);
    std::copy(xv.begin(), xv.end(), x.begin());
    std::copy(wv.begin(), wv.end(), w.begin());
    xt::xtensor<float, 2> c = xt::zeros<float>({m, n});
    for (auto _ : state) {
        realify::mm(x, realify::transpose_view(w), realify::out(c));
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
}

/// threads/mm/1024/<t> and threads/bmm/32x128/<t>: complex<float>, the
/// automatic method, on t threads (1, 2, 4, … up to the default count), in
/// real time (CPU time counts the calling thread only). Every other benchmark
/// here runs on one thread (set at registration, before any runs).
void register_threads() {
    const int all = realify::get_num_threads();
    for (int t = 1;; t *= 2) {
        const int threads = std::min(t, all);
        benchmark::RegisterBenchmark(("threads/mm/1024/" + std::to_string(threads)).c_str(), [threads](benchmark::State& s) {
            const realify::scoped_num_threads scope(threads);
            square<float>(s, 1024, gemm_method::automatic);
        })->UseRealTime()->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("threads/bmm/32x128/" + std::to_string(threads)).c_str(), [threads](benchmark::State& s) {
            const realify::scoped_num_threads scope(threads);
            batched<float>(s, 128, gemm_method::automatic);
        })->UseRealTime()->Unit(benchmark::kMillisecond);
        if (threads == all) break;
    }
    realify::set_num_threads(1);
}

const bool registered = [] {
    register_realify<float>();
    register_realify<double>();
    register_threads();
    realify_bench::register_linear("realify", 1 << 20, [](const realify_bench::linear_shape&) { return true; }, linear);
    return true;
}();

}  // namespace

int main(int argc, char** argv) {
    // Recorded in the JSON context for tools/gemm_bench_report.py.
    realify_bench::record_levels();
    benchmark::AddCustomContext("realify_gemm_backend", std::string(realify::simd::gemm_backend()));
    for (const realify_bench::linear_shape& s : realify_bench::linear_shapes()) {
        const realify::simd::gemm_dims dims{1, std::size_t(s.m), std::size_t(s.n), std::size_t(s.k)};
        benchmark::AddCustomContext(
            "realify_linear_" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k),
            realify::simd::gemm_description(dims, realify::simd::gemm_type::float32));
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
