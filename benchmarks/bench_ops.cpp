// realify's eager elementwise ops (mul, div, exp, abs, add) on 64K complex<float>
// against a std::complex loop and Eigen's ArrayXcf, all in this one TU with the
// project's default flags (no -march): what a user gets by including the headers.
// realify allocates its result on every call (the eager API returns an owning
// tensor); the baselines write into a preallocated output, so the ratios are
// slightly in the baselines' favour.
#include <complex>
#include <cstddef>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <Eigen/Core>
#include <xtensor/xtensor.hpp>

#include "realify/eager.hpp"

namespace {

constexpr std::size_t n = 64 * 1024;
using C = std::complex<float>;

struct data {
    xt::xtensor<C, 1> a = xt::xtensor<C, 1>::from_shape({n});
    xt::xtensor<C, 1> b = xt::xtensor<C, 1>::from_shape({n});
    std::vector<C> out = std::vector<C>(n);
    Eigen::ArrayXcf ea = Eigen::ArrayXcf(static_cast<Eigen::Index>(n));
    Eigen::ArrayXcf eb = Eigen::ArrayXcf(static_cast<Eigen::Index>(n));
    Eigen::ArrayXcf ec = Eigen::ArrayXcf(static_cast<Eigen::Index>(n));
    Eigen::ArrayXf er = Eigen::ArrayXf(static_cast<Eigen::Index>(n));
    std::vector<float> rout = std::vector<float>(n);
    data() {
        std::mt19937 gen(42);
        std::uniform_real_distribution<float> u(-2.0f, 2.0f);
        for (std::size_t i = 0; i < n; ++i) {
            a(i) = C(u(gen), u(gen));
            b(i) = C(u(gen), u(gen)) + C(0.1f, 0.1f);
            ea(static_cast<Eigen::Index>(i)) = a(i);
            eb(static_cast<Eigen::Index>(i)) = b(i);
        }
    }
};
data& shared() {
    static data d;
    return d;
}

void set_items(benchmark::State& state) { state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n)); }

// ---- realify --------------------------------------------------------------------------
#define REALIFY_BINARY(NAME)                                                       \
    void realify_##NAME(benchmark::State& state) {                                 \
        auto& d = shared();                                                        \
        const auto la = realify::complex_layout_of(d.a);                           \
        const auto lb = realify::complex_layout_of(d.b);                           \
        for (auto _ : state) {                                                     \
            auto c = realify::NAME(la, lb);                                        \
            benchmark::DoNotOptimize(c.real_layout().data());                      \
        }                                                                          \
        set_items(state);                                                          \
    }                                                                              \
    BENCHMARK(realify_##NAME);
#define REALIFY_UNARY(NAME)                                                        \
    void realify_##NAME(benchmark::State& state) {                                 \
        auto& d = shared();                                                        \
        const auto la = realify::complex_layout_of(d.a);                           \
        for (auto _ : state) {                                                     \
            auto c = realify::NAME(la);                                            \
            benchmark::DoNotOptimize(c.data());                                    \
        }                                                                          \
        set_items(state);                                                          \
    }                                                                              \
    BENCHMARK(realify_##NAME);
REALIFY_BINARY(mul)
REALIFY_BINARY(div)
REALIFY_BINARY(add)

void realify_exp(benchmark::State& state) {
    auto& d = shared();
    const auto la = realify::complex_layout_of(d.a);
    for (auto _ : state) {
        auto c = realify::exp(la);
        benchmark::DoNotOptimize(c.real_layout().data());
    }
    set_items(state);
}
BENCHMARK(realify_exp);
REALIFY_UNARY(abs)

// ---- std::complex loops ------------------------------------------------------------------
#define STD_BINARY(NAME, OP)                                                       \
    void std_complex_##NAME(benchmark::State& state) {                             \
        auto& d = shared();                                                        \
        for (auto _ : state) {                                                     \
            for (std::size_t i = 0; i < n; ++i) d.out[i] = d.a(i) OP d.b(i);       \
            benchmark::DoNotOptimize(d.out.data());                                \
            benchmark::ClobberMemory();                                            \
        }                                                                          \
        set_items(state);                                                          \
    }                                                                              \
    BENCHMARK(std_complex_##NAME);
STD_BINARY(mul, *)
STD_BINARY(div, /)
STD_BINARY(add, +)
void std_complex_exp(benchmark::State& state) {
    auto& d = shared();
    for (auto _ : state) {
        for (std::size_t i = 0; i < n; ++i) d.out[i] = std::exp(d.a(i));
        benchmark::DoNotOptimize(d.out.data());
        benchmark::ClobberMemory();
    }
    set_items(state);
}
BENCHMARK(std_complex_exp);
void std_complex_abs(benchmark::State& state) {
    auto& d = shared();
    for (auto _ : state) {
        for (std::size_t i = 0; i < n; ++i) d.rout[i] = std::abs(d.a(i));
        benchmark::DoNotOptimize(d.rout.data());
        benchmark::ClobberMemory();
    }
    set_items(state);
}
BENCHMARK(std_complex_abs);

// ---- Eigen ArrayXcf --------------------------------------------------------------------------
#define EIGEN_OP(NAME, EXPR, OUT)                                                  \
    void eigen_##NAME(benchmark::State& state) {                                   \
        auto& d = shared();                                                        \
        for (auto _ : state) {                                                     \
            d.OUT = EXPR;                                                          \
            benchmark::DoNotOptimize(d.OUT.data());                                \
            benchmark::ClobberMemory();                                            \
        }                                                                          \
        set_items(state);                                                          \
    }                                                                              \
    BENCHMARK(eigen_##NAME);
EIGEN_OP(mul, d.ea * d.eb, ec)
EIGEN_OP(div, d.ea / d.eb, ec)
EIGEN_OP(add, d.ea + d.eb, ec)
EIGEN_OP(exp, d.ea.exp(), ec)
EIGEN_OP(abs, d.ea.abs(), er)

}  // namespace

BENCHMARK_MAIN();
