// realify's compiled elementwise kernels against Eigen 3.4 (ArrayXcf /
// ArrayXcd into preallocated storage), per op, at 64K elements (in cache)
// and 4M elements (memory bound), float and double. realify runs through
// its checked span API (realify/simd/elementwise.hpp) on the instruction set
// it dispatches to; Eigen is compiled for the host (bench_kernels_eigen.cpp).
// Every benchmark is named op/type/n/implementation; tools/ops_bench_report.py
// turns the JSON into ratios realify ÷ Eigen (docs/benchmarks.md gives the
// command).
#include <benchmark/benchmark.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench_kernels_common.hpp"
#include "realify/simd/elementwise.hpp"

namespace {

using namespace realify_bench_kernels;
namespace rs = realify::simd;

template <class T>
struct inputs {
    std::vector<std::complex<T>> x, y, out;
    std::vector<T> real_out;
    explicit inputs(std::size_t n) : x(n), y(n), out(n), real_out(n) {
        std::mt19937 rng(42);
        std::uniform_real_distribution<T> u(T(-2), T(2));
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = {u(rng), u(rng)};
            y[i] = std::complex<T>(u(rng), u(rng)) + std::complex<T>(T(0.1), T(0.1));
        }
    }
};

template <class T>
inputs<T>& shared(std::size_t n) {
    static std::optional<inputs<T>> small, large;
    auto& slot = n <= (std::size_t{1} << 16) ? small : large;
    if (!slot || slot->x.size() != n) slot.emplace(n);
    return *slot;
}

/// The same op through realify's span API.
template <class T>
void realify_run(op_id op, inputs<T>& d) {
    using Z = std::complex<T>;
    const std::span<const Z> x(d.x), y(d.y);
    switch (op) {
        case op_id::mul_real_scalar: {
            const T s[1] = {T(2.5)};
            rs::elementwise(rs::elementwise_op::mul, x, std::span<const T>(s), std::span<Z>(d.out));
            return;
        }
        case op_id::add_scalar: {
            const Z s[1] = {Z(T(0.5), T(-1.5))};
            rs::elementwise(rs::elementwise_op::add, x, std::span<const Z>(s), std::span<Z>(d.out));
            return;
        }
        case op_id::pow_scalar:
            rs::elementwise(rs::elementwise_op::pow_scalar, x, std::span<Z>(d.out), Z(T(2.5), T(0)));
            return;
        default: break;
    }
    const rs::elementwise_op eop = compiled_op(op).value_or(rs::elementwise_op::exp);  // the op of the same name
    if (rs::arity(eop) == 2)
        rs::elementwise(eop, x, y, std::span<Z>(d.out));
    else if (real_result(op))
        rs::elementwise(eop, x, std::span<T>(d.real_out));
    else
        rs::elementwise(eop, x, std::span<Z>(d.out));
}

template <class T>
void bench(benchmark::State& state, op_id op, std::size_t n, bool eigen) {
    auto& d = shared<T>(n);
    for (auto _ : state) {
        if (eigen)
            eigen_run(op, d.x.data(), d.y.data(), d.out.data(), d.real_out.data(), n);
        else
            realify_run(op, d);
        benchmark::DoNotOptimize(d.out.data());
        benchmark::DoNotOptimize(d.real_out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

}  // namespace

int main(int argc, char** argv) {
    for (std::size_t n : {std::size_t{1} << 16, std::size_t{1} << 22})
        for (std::size_t k = 0; k < std::size(op_names); ++k)
            for (bool eigen : {false, true}) {
                const auto op = static_cast<op_id>(k);
                if (!takes_complex(op)) continue;
                if (eigen && !eigen_run(op, nullptr, nullptr, static_cast<std::complex<float>*>(nullptr), nullptr, 0)) continue;
                auto name = [&](const char* type) {
                    return std::string(op_names[k]) + "/" + type + "/" + std::to_string(n) + "/" +
                           (eigen ? "eigen" : "realify");
                };
                benchmark::RegisterBenchmark(name("float").c_str(),
                                             [=](benchmark::State& s) { bench<float>(s, op, n, eigen); })
                    ->Unit(benchmark::kMicrosecond);
                benchmark::RegisterBenchmark(name("double").c_str(),
                                             [=](benchmark::State& s) { bench<double>(s, op, n, eigen); })
                    ->Unit(benchmark::kMicrosecond);
            }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
