// Reductions fed by a fused loop (graph/fusion.hpp, evaluate_fused_reduction):
// the fuse_elementwise pass gives a reduction its operand's loop, and the
// reduction takes the loop's blocks as they are made (engine::loop_values,
// engine::reduce_produced) — an optimisation, never a change of results. Each
// program is checked, bit for bit, against the same reduction with fusion
// prevented (its operand also an output: the loop's result is made, then
// reduced by the table's entry) and, for sum, against the eager calls; at 1 to
// 4 threads, odd sizes, several blocks, broadcast and strided operands, full
// reductions and reductions over dims (keepdim too) — the trailing dims (fused)
// and leading ones (the result made, then reduced) — for sum, mean, amax, amin,
// var and std_dev, real and complex, float and double, and special values.
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "realify/eager.hpp"
#include "realify/graph.hpp"
#include "realify/simd/arch.hpp"
#include "realify/threads.hpp"

#include "../support/random_uniform.hpp"

namespace graph = realify::graph;

namespace {

using realify::testing::random_uniform;

template <class A, class B>
void expect_same_bits(const A& got, const B& want) {
    ASSERT_EQ(got.dimension(), want.dimension());
    ASSERT_TRUE(std::equal(got.shape().begin(), got.shape().end(), want.shape().begin()));
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::memcmp(got.data() + i, want.data() + i, sizeof(*got.data())) != 0) {
            ADD_FAILURE() << "element " << i << " of " << got.size() << ": " << got.data()[i] << " against " << want.data()[i];
            return;
        }
}

/// How many reductions of the program run their operand's loop.
template <class Program>
std::size_t reduced_nodes(const Program& p) {
    std::size_t n = 0;
    for (const auto& node : p.ir().nodes) n += node.fusion == graph::fusion_mode::reduced ? 1 : 0;
    return n;
}

struct shapes {
    std::vector<std::size_t> a, b, p;  // the operands' shapes (broadcast together)
};

/// For every case: `reduce(e)` of e = |a·b|·exp(p) lowered alone (fused) and
/// with e also an output (not fused), at 1–4 threads, the same bits.
template <class C, class Reduce>
void check_real_chain(const Reduce& reduce, const std::vector<shapes>& cases) {
    using R = typename C::value_type;
    auto a = graph::input<C>("a");
    auto b = graph::input<C>("b");
    auto p = graph::input<R>("p");
    auto e = graph::abs(a * b) * graph::exp(p);
    auto fused = graph::lower(reduce(e));
    auto unfused = graph::lower(reduce(e), e);
    EXPECT_EQ(reduced_nodes(fused), 1u) << graph::explain(fused);
    EXPECT_EQ(reduced_nodes(unfused), 0u);
    unsigned seed = 11;
    for (const shapes& s : cases) {
        const auto av = random_uniform<C>(s.a, seed++, 1.5), bv = random_uniform<C>(s.b, seed++, 1.5);
        const auto pv = random_uniform<R>(s.p, seed++, 1.5);
        for (int t = 1; t <= 4; ++t) {
            const realify::scoped_num_threads scope(t);
            SCOPED_TRACE(std::to_string(t) + " threads, a " + ::testing::PrintToString(s.a));
            const auto got = fused(av, bv, pv);
            const auto [want, value] = unfused(av, bv, pv);
            expect_same_bits(got, want);
        }
    }
}

const std::vector<shapes> full_cases = {
    {{1}, {1}, {1}},          {{7}, {7}, {7}},          {{2047}, {2047}, {2047}}, {{2048}, {1}, {2048}},
    {{2049}, {2049}, {1}},    {{5003}, {5003}, {5003}}, {{3, 1001}, {1001}, {3, 1}}, {{200003}, {200003}, {200003}},
    {{0}, {0}, {0}},
};
const std::vector<shapes> row_cases = {
    {{3, 7}, {7}, {3, 7}},          {{5, 2049}, {5, 2049}, {2049}}, {{130, 17}, {130, 17}, {130, 1}},
    {{2, 70001}, {70001}, {2, 70001}}, {{400, 333}, {400, 333}, {400, 333}}, {{4, 0}, {4, 0}, {4, 0}},
};
const std::vector<shapes> cube_cases = {
    {{2, 3, 5}, {2, 3, 5}, {5}}, {{3, 4, 1001}, {4, 1001}, {3, 4, 1001}}, {{2, 1, 9000}, {2, 1, 9000}, {9000}},
};

}  // namespace

TEST(GraphFusedReduction, FullReductionsGiveTheBitsOfTheUnfusedProgram) {
    check_real_chain<std::complex<float>>([](auto e) { return graph::sum(e); }, full_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::mean(e); }, full_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::var(e); }, full_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::std_dev(e, {}, 0); }, full_cases);
    std::vector<shapes> some(full_cases.begin(), full_cases.end() - 1);  // no elements: amax and amin refuse
    check_real_chain<std::complex<float>>([](auto e) { return graph::amax(e); }, some);
    check_real_chain<std::complex<float>>([](auto e) { return graph::amin(e); }, some);
    check_real_chain<std::complex<double>>([](auto e) { return graph::sum(e); }, full_cases);
    check_real_chain<std::complex<double>>([](auto e) { return graph::var(e, {}, 1, true); }, full_cases);
}

TEST(GraphFusedReduction, ReductionsOverDimsGiveTheBitsOfTheUnfusedProgram) {
    // the trailing dims: each output's elements one run of the loop's result (fused)
    check_real_chain<std::complex<float>>([](auto e) { return graph::sum(e, {-1}); }, row_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::sum(e, {1}, true); }, row_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::mean(e, {-1}, true); }, row_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::amax(e, {-1}, true); },
                                          {row_cases.begin(), row_cases.end() - 1});
    check_real_chain<std::complex<float>>([](auto e) { return graph::amin(e, {1}); }, {row_cases.begin(), row_cases.end() - 1});
    check_real_chain<std::complex<float>>([](auto e) { return graph::var(e, {-1}, 1, true); }, row_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::std_dev(e, {-1}); }, row_cases);
    check_real_chain<std::complex<double>>([](auto e) { return graph::mean(e, {-1}); }, row_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::sum(e, {1, 2}, true); }, cube_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::var(e, {-2, -1}, 0); }, cube_cases);
    // leading or inner dims: the loop's result made, then reduced — the same bits too
    check_real_chain<std::complex<float>>([](auto e) { return graph::sum(e, {0}); }, row_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::mean(e, {0}, true); }, row_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::std_dev(e, {0}); }, row_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::amax(e, {0, 2}); }, cube_cases);
    check_real_chain<std::complex<float>>([](auto e) { return graph::sum(e, {1}, true); }, cube_cases);
}

// Complex results: the sum and mean of a complex loop (per component), its
// variance (real); strided and reversed operands read in place by the loop.
TEST(GraphFusedReduction, ComplexLoopsAndStridedOperands) {
    using C = std::complex<float>;
    auto a = graph::input<C>("a");
    auto b = graph::input<C>("b");
    auto z = graph::exp(a) * b + a;
    auto fused = graph::lower(graph::sum(z, {-1}, true));
    auto unfused = graph::lower(graph::sum(z, {-1}, true), z);
    auto fused_var = graph::lower(graph::var(z));
    auto unfused_var = graph::lower(graph::var(z), z);
    auto fused_mean = graph::lower(graph::mean(z));
    auto unfused_mean = graph::lower(graph::mean(z), z);
    EXPECT_EQ(reduced_nodes(fused) + reduced_nodes(fused_var) + reduced_nodes(fused_mean), 3u);
    for (std::size_t n : {std::size_t{1}, std::size_t{1023}, std::size_t{1025}, std::size_t{3001}, std::size_t{70001}}) {
        const xt::xarray<C> big = random_uniform<C>({n, 3}, 5, 1.5);
        const auto at = xt::transpose(big);                    // (3, n), strided along n
        const xt::xarray<C> bv = random_uniform<C>({3, n}, 6, 1.5);
        const auto reversed = xt::flip(bv, 1);
        for (int t = 1; t <= 4; ++t) {
            const realify::scoped_num_threads scope(t);
            SCOPED_TRACE(std::to_string(t) + " threads, n = " + std::to_string(n));
            {
                const auto got = fused(at, reversed);
                const auto [want, value] = unfused(at, reversed);
                expect_same_bits(got, want);
            }
            {
                const auto got = fused_var(at, bv);
                const auto [want, value] = unfused_var(at, bv);
                expect_same_bits(got, want);
            }
            {
                const auto got = fused_mean(at, bv);
                const auto [want, value] = unfused_mean(at, bv);
                expect_same_bits(got, want);
            }
        }
    }
}

// ±0, subnormals, the smallest normal, near-overflow (exp overflows to inf),
// ±inf and NaN go through the loop into the reductions as they do unfused —
// NaNs of both signs (inf − inf gives x86's negative default NaN) included,
// whose order decides which one an extremum returns.
TEST(GraphFusedReduction, SpecialValuesGiveTheBitsOfTheUnfusedProgram) {
    using C = std::complex<float>;
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> specials = {0.0f, -0.0f, 1e-40f, std::numeric_limits<float>::min(), 88.0f, 89.0f, 3e38f,
                                         inf, -inf, nan};
    auto a = graph::input<C>("a");
    auto p = graph::input<float>("p");
    auto e = graph::abs(a) * graph::exp(p) - p;
    for (std::size_t n : {std::size_t{10}, std::size_t{4099}, std::size_t{20011}}) {  // 20011: rows of several pieces
        xt::xarray<C> av = random_uniform<C>({2, n}, 21, 1.5);
        xt::xarray<float> pv = random_uniform<float>({2, n}, 22, 1.5);
        for (std::size_t i = 0; i < n; ++i) {
            if (i % 3 == 0) pv(0, i) = specials[i % specials.size()];  // row 0: special values; row 1 ordinary
            if (i % 5 == 0) av(0, i) = C(specials[(i / 5) % specials.size()], 0.5f);
        }
        auto same = [&](auto reduce) {
            auto fused = graph::lower(reduce(e));
            auto unfused = graph::lower(reduce(e), e);
            EXPECT_EQ(reduced_nodes(fused), 1u);
            for (int t = 1; t <= 2; ++t) {
                const realify::scoped_num_threads scope(t);
                const auto got = fused(av, pv);
                const auto [want, value] = unfused(av, pv);
                expect_same_bits(got, want);
            }
        };
        same([](auto x) { return graph::sum(x, {-1}); });
        same([](auto x) { return graph::amax(x, {-1}); });
        same([](auto x) { return graph::amin(x, {-1}, true); });
        same([](auto x) { return graph::var(x, {-1}); });
        same([](auto x) { return graph::mean(x); });
    }
}

// The fused program and the four eager calls plus the sum: the same bits, at
// every instruction set the machine has (the loop's kernels and the
// reduction's are chosen at run time), and explain() shows the reduction in
// the loop.
TEST(GraphFusedReduction, MatchesTheEagerCallsAtEveryInstructionSetAndExplainShowsIt) {
    using C = std::complex<float>;
    auto a = graph::input<C>("a");
    auto b = graph::input<C>("b");
    auto p = graph::input<float>("p");
    auto prog = graph::lower(graph::sum(graph::abs(a * b) * graph::exp(p)));
    const std::string text = graph::explain(prog);
    EXPECT_NE(text.find("%7 = sum(%6) : real  <- fused loop over 4 ops (%5 exp, %2 mul, %3 abs, %6 mul) reduced by "
                        "sum_per_component as its blocks are made"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("t0 = mul(in0, in1); t1 = abs(t0); t2 = exp(in2); out = mul(t1, t2)"), std::string::npos) << text;
    EXPECT_NE(text.find("%6 = mul(%3, %5) : real  <- inlined in %7's fused loop"), std::string::npos) << text;
    EXPECT_NE(text.find("fused into a consumer's loop: 4"), std::string::npos) << text;
    namespace rs = realify::simd;
    for (rs::arch level : {rs::arch::sse2, rs::arch::avx2, rs::arch::avx512}) {
        if (!rs::is_supported(level)) continue;
        const rs::scoped_arch scope(level);
        for (std::size_t n : {std::size_t{5}, std::size_t{2049}, std::size_t{65537}}) {
            SCOPED_TRACE(std::string(rs::arch_name(level)) + ", n = " + std::to_string(n));
            const auto av = random_uniform<C>({n}, 31, 1.5), bv = random_uniform<C>({n}, 32, 1.5);
            const auto pv = random_uniform<float>({n}, 33, 1.5);
            const xt::xarray<float> terms = realify::mul(realify::abs(realify::mul(av, bv)), realify::exp(pv));
            const xt::xarray<float> want = realify::sum(terms);
            const xt::xarray<float> got = prog(av, bv, pv);
            expect_same_bits(got, want);
        }
    }
}

// What is not fused: a reduction whose operand is shared (also an output, or
// read by another node), a lone complex multiply that may take the SIMD row
// kernel (it rounds with FMA, the loop does not), a reduction the user
// lowers (user_lowerings): each keeps the loop's result and the table entry.
TEST(GraphFusedReduction, SharedOperandsAndTheSimdRowMultiplyAreNotFused) {
    using C = std::complex<float>;
    auto a = graph::input<C>("a");
    auto b = graph::input<C>("b");
    auto e = graph::abs(a * b);
    EXPECT_EQ(reduced_nodes(graph::lower(graph::sum(e), e)), 0u);
    EXPECT_EQ(reduced_nodes(graph::lower(graph::sum(e) + graph::mean(e))), 0u);  // e read by two reductions
    EXPECT_EQ(reduced_nodes(graph::lower(graph::sum(a * b))), 0u);               // the SIMD row multiply
    EXPECT_EQ(reduced_nodes(graph::lower(graph::sum(a * b * 2.0f))), 1u);
}
