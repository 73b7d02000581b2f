// The element kernels' scalar forms are compiled with the user's flags (they
// are header code). This translation unit is built with -ffp-contract=fast and
// evaluates them in functions compiled for AVX2 + FMA, where GCC contracts
// a·b + c into fused multiply-adds — the flags of a -march=native build —
// and checks that special values do not change with that. Its own
// executable: the inline functions instantiated here must not be shared with
// translation units built with other flags.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>

#include "realify/kernels.hpp"

namespace {

namespace rk = realify::kernels;

template <class T>
[[gnu::target("avx2,fma"), gnu::flatten, gnu::noinline]] rk::cpair<T> square_with_fma(rk::cpair<T> z) {
    return rk::element<realify::op::square>{}(z);
}
template <class T>
[[gnu::target("avx2,fma"), gnu::flatten, gnu::noinline]] rk::cpair<T> mul_with_fma(rk::cpair<T> a, rk::cpair<T> b) {
    return rk::element<realify::op::mul>{}(a, b);
}
template <class T>
[[gnu::target("avx2,fma"), gnu::flatten, gnu::noinline]] rk::cpair<T> div_with_fma(rk::cpair<T> a, rk::cpair<T> b) {
    return rk::element<realify::op::div>{}(a, b);
}

bool cpu_has_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

TEST(UserFlags, SquareKeepsThePlainFormulasSpecialValuesUnderContraction) {
    if (!cpu_has_fma()) GTEST_SKIP() << "this CPU has no FMA: nothing can be contracted";
    const float inf = std::numeric_limits<float>::infinity();
    // std::complex and PyTorch: (1e30 + inf·i)² = (1e60 − inf) + i·inf = (nan, inf)
    const auto s = square_with_fma(rk::cpair<float>{1e30f, inf});
    const std::complex<float> want = std::complex<float>(1e30f, inf) * std::complex<float>(1e30f, inf);
    EXPECT_TRUE(std::isnan(s.re)) << s.re;
    EXPECT_TRUE(std::isnan(want.real()));
    EXPECT_EQ(s.im, inf);
    // (a + ai)² has a real part of exactly 0 (a contracted a·a − a·a is the
    // rounding error of a·a: −8.8e43 for a = 1e30 in double)
    EXPECT_EQ(square_with_fma(rk::cpair<double>{1e30, 1e30}).re, 0.0);
    EXPECT_EQ(square_with_fma(rk::cpair<double>{0.1, -0.1}).re, 0.0);
}

TEST(UserFlags, MulKeepsThePlainFormulasSpecialValuesUnderContraction) {
    if (!cpu_has_fma()) GTEST_SKIP() << "this CPU has no FMA: nothing can be contracted";
    const float inf = std::numeric_limits<float>::infinity();
    // plain formula: (1e30·1e30 − inf·inf) + i(1e30·inf + inf·1e30) = NaN + inf·i
    const auto p = mul_with_fma(rk::cpair<float>{1e30f, inf}, rk::cpair<float>{1e30f, inf});
    EXPECT_TRUE(std::isnan(p.re)) << p.re;
    EXPECT_EQ(p.im, inf);
    // both products overflow: inf − inf = NaN (fused: fma(3e20, 3e20, −inf) = −inf)
    const auto r = mul_with_fma(rk::cpair<float>{3e20f, 3e20f}, rk::cpair<float>{3e20f, 3e20f});
    EXPECT_TRUE(std::isnan(r.re)) << r.re;
    EXPECT_EQ(r.im, inf);
    // a·b − b·a is exactly 0 (fused: the rounding error of a·b)
    EXPECT_EQ(mul_with_fma(rk::cpair<double>{0.1, 0.3}, rk::cpair<double>{0.3, 0.1}).re, 0.0);
}

TEST(UserFlags, DivisionKeepsItsSpecialValuesUnderContraction) {
    if (!cpu_has_fma()) GTEST_SKIP() << "this CPU has no FMA: nothing can be contracted";
    const float inf = std::numeric_limits<float>::infinity();
    const auto q = div_with_fma(rk::cpair<float>{1, 2}, rk::cpair<float>{inf, 0});
    const std::complex<float> want = std::complex<float>(1, 2) / std::complex<float>(inf, 0);
    EXPECT_EQ(q.re, want.real());
    EXPECT_EQ(q.im, want.imag());
    const auto z = div_with_fma(rk::cpair<float>{1e-39f, 0}, rk::cpair<float>{1e-39f, 0});
    EXPECT_EQ(z.re, 1.0f);
    EXPECT_EQ(z.im, 0.0f);
}

}  // namespace
