// realify::simd: every kernel, on every instruction set this CPU supports,
// against a long-double scalar reference of the plain formula — at lengths
// that hit the empty case, the partial-register tails and the unrolled main
// loop (VOLK's odd 131071), at unaligned offsets, in place and out of place,
// with ordinary and with streaming stores. Then the special-value policies
// against std::complex, the argument errors, and the architecture controls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "realify/errors.hpp"
#include "realify/rope/compiled.hpp"
#include "realify/simd.hpp"
#include "../support/arch_levels.hpp"
#include "../support/error_message.hpp"

namespace rs = realify::simd;

namespace realify::simd {
// Readable parameter names in ctest's and gtest's output.
inline void PrintTo(arch a, std::ostream* os) { *os << arch_name(a); }
}  // namespace realify::simd

namespace {

enum class kernel { mul, mul_conj, mul_real, mul_scalar, mul_add, mul_rows, mul_block_rows };

const char* kernel_name(kernel k) {
    switch (k) {
        case kernel::mul: return "mul";
        case kernel::mul_conj: return "mul_conj";
        case kernel::mul_real: return "mul_real";
        case kernel::mul_scalar: return "mul_scalar";
        case kernel::mul_add: return "mul_add";
        case kernel::mul_rows: return "mul_rows";
        case kernel::mul_block_rows: return "mul_block_rows";
    }
    return "?";
}

constexpr kernel all_kernels[] = {kernel::mul,     kernel::mul_conj, kernel::mul_real,      kernel::mul_scalar,
                                  kernel::mul_add, kernel::mul_rows, kernel::mul_block_rows};

bool broadcasts_rows(kernel k) { return k == kernel::mul_rows || k == kernel::mul_block_rows; }

// Which operand the output overwrites.
enum class placement { out_of_place, in_place_a, in_place_b };

template <class T>
std::vector<std::complex<T>> random_complex(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<T> dist(T(-2), T(2));
    std::vector<std::complex<T>> v(n);
    for (auto& z : v) z = {dist(rng), dist(rng)};
    return v;
}

template <class T>
std::vector<T> random_real(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<T> dist(T(-2), T(2));
    std::vector<T> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

using wide = std::complex<long double>;

wide widen(std::complex<float> z) { return {z.real(), z.imag()}; }
wide widen(std::complex<double> z) { return {z.real(), z.imag()}; }

// The plain formula, in long double.
wide plain_mul(wide a, wide b) {
    return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// Relative tolerance per scalar type (VOLK uses 1e-6 for float).
template <class T>
constexpr long double tolerance = sizeof(T) == 4 ? 1e-6L : 1e-14L;

// One kernel run on n elements (3 rows × n for mul_rows, 2 blocks × 3 rows × n
// for mul_block_rows, b then holding one row of n per block) at a complex offset
// into larger buffers, compared with the reference. The error of a complex
// product is bounded relative to |a|·|b| (+|c|), not to the result, which may
// cancel: that is the scale the tolerance applies to.
template <class T>
void check(kernel k, std::size_t n, std::size_t offset, placement where, unsigned seed) {
    using C = std::complex<T>;
    const std::size_t blocks = k == kernel::mul_block_rows ? 2 : 1;
    const std::size_t rows = broadcasts_rows(k) ? 3 : 1;
    const std::size_t total = blocks * rows * n;
    const std::size_t b_len = broadcasts_rows(k) ? blocks * n : total;
    auto a_buf = random_complex<T>(total + offset + 1, seed);
    auto b_buf = random_complex<T>(b_len + offset + 1, seed + 1);
    auto c_buf = random_complex<T>(total + offset + 1, seed + 2);
    auto r_buf = random_real<T>(total + offset + 1, seed + 3);
    const C s = random_complex<T>(1, seed + 4)[0];
    const std::vector<C> a0(a_buf.begin() + offset, a_buf.begin() + offset + total);
    const std::vector<C> b0(b_buf.begin() + offset, b_buf.begin() + offset + b_len);
    std::vector<C> out_buf(total + offset + 1, C(T(7), T(7)));
    const C sentinel = out_buf.back();

    std::span<C> a(a_buf.data() + offset, total);
    std::span<C> b(b_buf.data() + offset, b_len);
    std::span<const C> c(c_buf.data() + offset, total);
    std::span<const T> r(r_buf.data() + offset, total);
    std::span<C> out(out_buf.data() + offset, total);
    if (where == placement::in_place_a) out = a;
    if (where == placement::in_place_b) out = b;

    switch (k) {
        case kernel::mul: rs::mul(a, b, out); break;
        case kernel::mul_conj: rs::mul_conj(a, b, out); break;
        case kernel::mul_real: rs::mul_real(a, r, out); break;
        case kernel::mul_scalar: rs::mul_scalar(a, s, out); break;
        case kernel::mul_add: rs::mul_add(a, b, c, out); break;
        case kernel::mul_rows: rs::mul_rows(a, b, out); break;
        case kernel::mul_block_rows: rs::mul_block_rows(a, b, blocks, out); break;
    }

    const long double tol = tolerance<T>;
    std::size_t failures = 0;
    for (std::size_t i = 0; i < total; ++i) {
        const wide wa = widen(a0[i]);
        const wide wb = broadcasts_rows(k) ? widen(b0[i / (rows * n) * n + i % n]) : widen(b0[i]);
        wide expected;
        long double scale = std::abs(wa) * std::abs(wb);
        switch (k) {
            case kernel::mul:
            case kernel::mul_rows:
            case kernel::mul_block_rows: expected = plain_mul(wa, wb); break;
            case kernel::mul_conj: expected = plain_mul(wa, std::conj(wb)); break;
            case kernel::mul_real:
                expected = {wa.real() * r[i], wa.imag() * r[i]};
                scale = std::abs(wa) * std::abs(static_cast<long double>(r[i]));
                break;
            case kernel::mul_scalar:
                expected = plain_mul(wa, widen(s));
                scale = std::abs(wa) * std::abs(widen(s));
                break;
            case kernel::mul_add:
                expected = plain_mul(wa, wb) + widen(c[i]);
                scale += std::abs(widen(c[i]));
                break;
        }
        const long double error = std::abs(widen(out[i]) - expected);
        if (!(error <= tol * scale + std::numeric_limits<long double>::min()) && failures++ < 5)
            ADD_FAILURE() << kernel_name(k) << " n=" << n << " offset=" << offset << " element " << i
                          << ": got " << out[i] << ", expected (" << static_cast<double>(expected.real())
                          << "," << static_cast<double>(expected.imag()) << "), relative error "
                          << static_cast<double>(error / scale);
    }
    EXPECT_EQ(failures, 0u) << kernel_name(k) << " n=" << n << " offset=" << offset;
    // Nothing written past the end (or before the start) of out.
    if (where == placement::out_of_place) {
        EXPECT_EQ(out_buf.back(), sentinel) << kernel_name(k) << " wrote past the end, n=" << n;
        if (offset > 0) {
            EXPECT_EQ(out_buf.front(), sentinel) << kernel_name(k) << " wrote before the start";
        }
    }
}

// ---- every arch, every kernel, every length ---------------------------------

class SimdArch : public ::testing::TestWithParam<rs::arch> {
protected:
    void SetUp() override {
        if (!rs::is_supported(GetParam()))
            GTEST_SKIP() << "this CPU (or build) lacks " << rs::arch_name(GetParam())
                         << "; its kernels are tested on machines that have it";
        forced_.emplace(GetParam());
    }
    void TearDown() override {
        forced_.reset();
        rs::set_streaming_threshold(rs::default_streaming_threshold);
    }
    std::optional<rs::scoped_arch> forced_;
};

constexpr std::size_t lengths[] = {0, 1, 2, 3, 7, 15, 16, 17, 131071};

template <class T>
void check_all(bool streaming) {
    rs::set_streaming_threshold(streaming ? 0 : std::numeric_limits<std::size_t>::max());
    unsigned seed = 1;
    for (kernel k : all_kernels)
        for (std::size_t n : lengths)
            for (std::size_t offset : {0, 1, 3})
                for (placement where : {placement::out_of_place, placement::in_place_a, placement::in_place_b}) {
                    // mul_real and mul_scalar have no complex b; the row
                    // kernels' b is one row per block, which out may only be
                    // for a single row.
                    if (where == placement::in_place_b &&
                        (k == kernel::mul_real || k == kernel::mul_scalar || broadcasts_rows(k)))
                        continue;
                    // The long odd length (main loop + tail) once, unaligned, in and out of place.
                    if (n == 131071 && (offset != 1 || where == placement::in_place_b)) continue;
                    check<T>(k, n, offset, where, seed += 5);
                }
}

TEST_P(SimdArch, ReportsTheForcedArch) { EXPECT_EQ(rs::active_arch(), rs::arch_name(GetParam())); }

TEST_P(SimdArch, FloatKernelsMatchReference) { check_all<float>(false); }
TEST_P(SimdArch, DoubleKernelsMatchReference) { check_all<double>(false); }
TEST_P(SimdArch, FloatKernelsMatchReferenceWithStreamingStores) { check_all<float>(true); }
TEST_P(SimdArch, DoubleKernelsMatchReferenceWithStreamingStores) { check_all<double>(true); }

// Tails and heads go through the same instructions as full registers, so the
// result for an element depends neither on its position nor on the store path.
TEST_P(SimdArch, ResultsAreBitIdenticalAcrossOffsetsAndStorePaths) {
    const std::size_t n = 1000;
    const auto a = random_complex<float>(n + 1, 11);
    const auto b = random_complex<float>(n + 1, 12);
    std::vector<std::complex<float>> aligned(n), shifted(n + 1), streamed(n + 1);
    rs::set_streaming_threshold(std::numeric_limits<std::size_t>::max());
    rs::mul(std::span(a).first(n), std::span(b).first(n), aligned);
    rs::mul(std::span(a).first(n), std::span(b).first(n), std::span(shifted).subspan(1));
    rs::set_streaming_threshold(0);
    rs::mul(std::span(a).first(n), std::span(b).first(n), std::span(streamed).subspan(1));
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(aligned[i], shifted[i + 1]) << "element " << i;
        ASSERT_EQ(aligned[i], streamed[i + 1]) << "element " << i;
    }
}

TEST_P(SimdArch, RowBroadcastAtRopeShape) {
    // 5 rows of 64 complex numbers (a head of dim 128), in place, like RoPE.
    auto x = random_complex<float>(5 * 64, 21);
    const auto x0 = x;
    const auto freqs = random_complex<float>(64, 22);
    rs::mul_rows(x, freqs, x);
    for (std::size_t i = 0; i < x.size(); ++i) {
        const wide expected = plain_mul(widen(x0[i]), widen(freqs[i % 64]));
        EXPECT_LE(std::abs(widen(x[i]) - expected), 1e-6L * std::abs(widen(x0[i])) * std::abs(widen(freqs[i % 64])))
            << "element " << i;
    }
}

// ---- special values -----------------------------------------------------------

template <class T>
bool same_value(T x, T y) {
    return (std::isnan(x) && std::isnan(y)) || x == y;
}

template <class T>
::testing::AssertionResult same_complex(std::complex<T> got, std::complex<T> expected) {
    if (same_value(got.real(), expected.real()) && same_value(got.imag(), expected.imag()))
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", std::complex gives " << expected;
}

// All 49 x 49 combinations of {0, -0, 1, -2.5, inf, -inf, nan} in each part
// (exact products, so finite results must match bit for bit as well).
template <class T>
void all_pairs(std::vector<std::complex<T>>& a, std::vector<std::complex<T>>& b) {
    const T inf = std::numeric_limits<T>::infinity();
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const T values[] = {T(0), T(-0.0), T(1), T(-2.5), inf, -inf, nan};
    std::vector<std::complex<T>> singles;
    for (T re : values)
        for (T im : values) singles.emplace_back(re, im);
    for (const auto& x : singles)
        for (const auto& y : singles) {
            a.push_back(x);
            b.push_back(y);
        }
}

template <class T>
void check_strict_matches_std_complex() {
    std::vector<std::complex<T>> a, b;
    all_pairs(a, b);
    const std::size_t n = a.size();
    std::vector<std::complex<T>> out(n), c(b.rbegin(), b.rend());
    std::vector<T> r(n);
    for (std::size_t i = 0; i < n; ++i) r[i] = b[i].real();

    rs::mul(a, b, out, rs::nan_policy::strict);
    for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(same_complex(out[i], a[i] * b[i])) << "mul " << a[i] << " * " << b[i];

    rs::mul_conj(a, b, out, rs::nan_policy::strict);
    for (std::size_t i = 0; i < n; ++i)
        EXPECT_TRUE(same_complex(out[i], a[i] * std::conj(b[i]))) << "mul_conj " << a[i] << ", " << b[i];

    rs::mul_add(a, b, c, out, rs::nan_policy::strict);
    for (std::size_t i = 0; i < n; ++i)
        EXPECT_TRUE(same_complex(out[i], a[i] * b[i] + c[i])) << "mul_add " << a[i] << ", " << b[i] << ", " << c[i];

    rs::mul_real(a, r, out);
    for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(same_complex(out[i], a[i] * r[i])) << "mul_real " << a[i] << " * " << r[i];

    for (std::size_t j = 0; j < 49; ++j) {
        const std::complex<T> s = b[j];
        rs::mul_scalar(a, s, out, rs::nan_policy::strict);
        for (std::size_t i = 0; i < n; i += 49)
            EXPECT_TRUE(same_complex(out[i], a[i] * s)) << "mul_scalar " << a[i] << " * " << s;
    }

    // Row broadcast: 49 rows of the 49 special values, times one row of them.
    std::vector<std::complex<T>> row(b.begin(), b.begin() + 49);
    rs::mul_rows(a, row, out, rs::nan_policy::strict);
    for (std::size_t i = 0; i < n; ++i)
        EXPECT_TRUE(same_complex(out[i], a[i] * row[i % 49])) << "mul_rows " << a[i] << " * " << row[i % 49];

    // Blocked: 7 blocks of 7 rows, each block with its own row of 49.
    std::vector<std::complex<T>> rows(b.begin(), b.begin() + 7 * 49);
    rs::mul_block_rows(a, rows, 7, out, rs::nan_policy::strict);
    for (std::size_t i = 0; i < n; ++i) {
        const std::complex<T> r = rows[i / (7 * 49) * 49 + i % 49];
        EXPECT_TRUE(same_complex(out[i], a[i] * r)) << "mul_block_rows " << a[i] << " * " << r;
    }
}

TEST_P(SimdArch, StrictPolicyEqualsStdComplexOnInfAndNaN) {
    check_strict_matches_std_complex<float>();
    check_strict_matches_std_complex<double>();
}

TEST_P(SimdArch, FastPolicyIsThePlainFormula) {
    // (inf, inf) · (inf, 0): the plain formula gives inf − inf and inf + nan in
    // the parts (NaN, NaN); std::complex's Annex G recovery gives (inf, inf).
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<std::complex<float>> a(5, {inf, inf}), b(5, {inf, 0.0f});
    std::vector<std::complex<float>> out(5);
    rs::mul(a, b, out);
    for (const auto& z : out) EXPECT_TRUE(std::isnan(z.real()) && std::isnan(z.imag())) << z;
    rs::mul(a, b, out, rs::nan_policy::strict);
    for (const auto& z : out) EXPECT_EQ(z, (std::complex<float>(inf, inf)));
    EXPECT_EQ(out[0], a[0] * b[0]);
}

// z = (1.03 + 0.42i)·√max: in z·z the product 1.03²·max overflows on its
// own while the real part (1.03² − 0.42²)·max does not. The plain formula
// (and std::complex) round the product first and give an infinite real part;
// every kernel must too, fused multiply-add or not.
template <class T>
void check_fused_overflow() {
    using C = std::complex<T>;
    const T root = std::sqrt(std::numeric_limits<T>::max());
    const C z(T(1.03) * root, T(0.42) * root);
    const std::vector<C> a(19, z), conj_a(19, std::conj(z)), zeros(19);
    std::vector<C> out(19);
    auto expect = [&](const char* kernel) {
        for (const C& r : out) {
            EXPECT_EQ(r.real(), std::numeric_limits<T>::infinity()) << kernel << ": " << r;
            EXPECT_TRUE(std::isfinite(r.imag())) << kernel << ": " << r;
        }
    };
    for (rs::nan_policy policy : {rs::nan_policy::fast, rs::nan_policy::strict}) {
        rs::mul(a, a, out, policy);
        expect("mul");
        rs::mul_conj(a, conj_a, out, policy);
        expect("mul_conj");
        rs::mul_scalar(a, z, out, policy);
        expect("mul_scalar");
        rs::mul_add(a, a, zeros, out, policy);
        expect("mul_add");
        rs::mul_rows(a, std::span<const C>(a.data(), 1), out, policy);
        expect("mul_rows");
        rs::mul_block_rows(a, std::span<const C>(a.data(), 1), 1, out, policy);
        expect("mul_block_rows");
    }
}

TEST_P(SimdArch, AProductThatOverflowsAloneIsInfiniteAsInThePlainFormula) {
    check_fused_overflow<float>();
    check_fused_overflow<double>();
}

// The kernels test a whole block (or a chunk of blocks) at once and redo a
// flagged block register by register (driver.hpp: screened ops), which must
// not change any result: every element is the fused product where the
// per-element rule keeps it (result finite, neither x·y overflowing alone)
// and the plain formula elsewhere, whatever its neighbours. Parts around the
// screen's threshold (|r| near 2^64 / 2^512), products that overflow alone or
// not, and sparse infinities, NaNs and zeros, in long arrays in and out of
// place, with ordinary and streaming stores.
template <class T>
T unfused(T x) {
    volatile T v = x;  // no contraction with what follows, whatever the test's flags
    return v;
}

template <class T>
std::complex<T> plain_product(std::complex<T> u, std::complex<T> v) {
    const T rr = unfused(u.real() * v.real()), ii = unfused(u.imag() * v.imag());
    const T ri = unfused(u.real() * v.imag()), ir = unfused(u.imag() * v.real());
    return {rr - ii, ri + ir};
}

// u·v as the kernels compute it, x = Re u duplicated: fmaddsub(x, v, [Im u·Im v, Im u·Re v]).
template <class T>
std::complex<T> kernel_product(std::complex<T> u, std::complex<T> v, bool fma) {
    if (!fma) return plain_product(u, v);
    const T re = std::fma(u.real(), v.real(), -unfused(u.imag() * v.imag()));
    const T im = std::fma(u.real(), v.imag(), unfused(u.imag() * v.real()));
    const bool redo = !std::isfinite(re) || !std::isfinite(im) || !std::isfinite(unfused(u.real() * v.real())) ||
                      !std::isfinite(unfused(u.real() * v.imag()));
    return redo ? plain_product(u, v) : std::complex<T>(re, im);
}

/// Ordinary values, and with probability `density` one of the values the
/// screen must catch (or must let through). Sparse ones test that one such
/// element sends its block, or chunk, to the exact path; dense ones that the
/// exact path keeps the rule too.
template <class T>
std::vector<std::complex<T>> screen_values(std::size_t n, unsigned seed, unsigned value_seed, double density) {
    std::mt19937 mask_rng(seed), rng(value_seed);
    std::uniform_real_distribution<T> unit(T(0.5), T(2));
    std::uniform_int_distribution<int> kind(0, 99);
    std::bernoulli_distribution interesting(density);
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const T root = std::sqrt(std::numeric_limits<T>::max());
    const int half_screen = std::numeric_limits<T>::max_exponent / 4;  // |r|² overflows from 2^(max_exponent/2)
    auto sign = [&] { return kind(rng) % 2 == 0 ? T(1) : T(-1); };
    auto special = [&]() -> T {
        const int k = kind(rng) % 3;
        return k == 0 ? sign() * T(0) : k == 1 ? sign() * inf : nan;
    };
    std::vector<std::complex<T>> v(n);
    for (auto& z : v) {
        const int k = kind(rng);
        if (!interesting(mask_rng)) {
            z = {sign() * unit(rng), sign() * unit(rng)};
        } else if (k < 40) {  // products near the screen's threshold
            z = {sign() * std::ldexp(unit(rng), half_screen + kind(rng) % 5 - 2),
                 sign() * std::ldexp(unit(rng), half_screen + kind(rng) % 5 - 2)};
        } else if (k < 65) {  // products that overflow, alone or in the sum
            z = {sign() * root * unit(rng), sign() * root * unit(rng)};
        } else if (k < 80) {  // Re a·Re b overflows alone, often in a finite result
            std::uniform_real_distribution<T> big(T(1), T(1.1)), small(T(0.3), T(0.45));
            z = {sign() * root * big(rng), sign() * root * small(rng)};
        } else if (k < 90) {
            z = {special(), sign() * unit(rng)};
        } else {
            z = {sign() * root * unit(rng), special()};
        }
    }
    return v;
}

template <class T>
::testing::AssertionResult identical(std::complex<T> got, std::complex<T> expected) {
    auto same = [](T x, T y) { return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y)); };
    if (same(got.real(), expected.real()) && same(got.imag(), expected.imag())) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", expected " << expected;
}

template <class T>
void check_screened_blocks(bool fma, double density, unsigned seed) {
    using C = std::complex<T>;
    const std::size_t n = 1003;
    // a and b interesting at the same elements (the products of interest need both)
    const auto a = screen_values<T>(n + 1, seed, 2 * seed, density), b = screen_values<T>(n + 1, seed, 2 * seed + 1, density);
    const C s = screen_values<T>(1, seed, 3 * seed, 1.0)[0];
    for (bool streaming : {false, true}) {
        rs::set_streaming_threshold(streaming ? 0 : std::numeric_limits<std::size_t>::max());
        for (std::size_t offset : {0, 1})
            for (bool in_place : {false, true}) {
                const std::span<const C> x(a.data() + offset, n), y(b.data() + offset, n);
                std::vector<C> buffer(n + 1);
                std::span<C> out(buffer.data() + offset, n);
                auto run = [&](const char* name, auto&& kernel, auto&& expect) {
                    if (in_place) std::copy(x.begin(), x.end(), out.begin());
                    kernel(in_place ? std::span<const C>(out) : x);
                    std::size_t failures = 0;
                    for (std::size_t i = 0; i < n; ++i) {
                        const auto result = identical(out[i], expect(i));
                        if (!result && failures++ < 5)
                            ADD_FAILURE() << name << " element " << i << " of " << x[i] << ", " << y[i] << ": "
                                          << result.message() << (in_place ? " (in place)" : "")
                                          << (streaming ? " (streaming)" : "") << " offset " << offset;
                    }
                };
                run("mul", [&](std::span<const C> first) { rs::mul(first, y, out); },
                    [&](std::size_t i) { return kernel_product(x[i], y[i], fma); });
                run("mul_conj", [&](std::span<const C> first) { rs::mul_conj(first, y, out); },
                    [&](std::size_t i) { return kernel_product(std::conj(y[i]), x[i], fma); });
                run("mul_scalar", [&](std::span<const C> first) { rs::mul_scalar(first, s, out); },
                    [&](std::size_t i) { return kernel_product(s, x[i], fma); });
                run("mul_rows", [&](std::span<const C> first) { rs::mul_rows(first, y.first(59), out); },  // 1003 = 17 rows of 59
                    [&](std::size_t i) { return kernel_product(y[i % 59], x[i], fma); });
                run("elementwise mul",
                    [&](std::span<const C> first) {
                        rs::binary_kernel_for<T>(rs::elementwise_op::mul, rs::operand_kind::complex,
                                                 rs::operand_kind::complex)(
                            reinterpret_cast<const T*>(first.data()), false, reinterpret_cast<const T*>(y.data()), false,
                            reinterpret_cast<T*>(out.data()), n, nullptr, streaming);
                    },
                    [&](std::size_t i) { return kernel_product(x[i], y[i], fma); });
            }
    }
}

TEST_P(SimdArch, ScreenedBlocksKeepThePerElementRule) {
    const bool fma = GetParam() != rs::arch::sse2;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        check_screened_blocks<float>(fma, 0.003, seed);
        check_screened_blocks<double>(fma, 0.003, seed);
    }
    check_screened_blocks<float>(fma, 0.3, 21);
    check_screened_blocks<double>(fma, 0.3, 21);
}

INSTANTIATE_TEST_SUITE_P(AllArchs, SimdArch, ::testing::Values(rs::arch::sse2, rs::arch::avx2, rs::arch::avx512),
                         [](const ::testing::TestParamInfo<rs::arch>& info) {
                             return std::string(rs::arch_name(info.param));
                         });

// ---- errors -----------------------------------------------------------------

using realify::testing::error_message;

TEST(SimdErrors, SizeMismatchesNameTheFunctionAndSizes) {
    std::vector<std::complex<float>> a(4), b(3), c(4), out(4);
    std::vector<float> r(5);
    EXPECT_THROW(rs::mul(a, b, out), realify::shape_error);
    EXPECT_EQ(error_message([&] { rs::mul(a, b, out); }),
              "realify::simd::mul: sizes differ: a has 4, b has 3, out has 4 elements");
    EXPECT_THROW(rs::mul_conj(a, c, std::span(out).first(2)), realify::shape_error);
    EXPECT_NE(error_message([&] { rs::mul_conj(a, c, std::span(out).first(2)); }).find("mul_conj"), std::string::npos);
    EXPECT_THROW(rs::mul_real(a, r, out), realify::shape_error);
    EXPECT_THROW(rs::mul_scalar(a, {1.0f, 0.0f}, std::span(out).first(3)), realify::shape_error);
    EXPECT_THROW(rs::mul_add(a, c, b, out), realify::shape_error);
    EXPECT_EQ(error_message([&] { rs::mul_add(a, c, b, out); }),
              "realify::simd::mul_add: sizes differ: a has 4, b has 4, c has 3, out has 4 elements");
    // mul_rows: a must be whole rows.
    EXPECT_THROW(rs::mul_rows(a, b, out), realify::shape_error);
    EXPECT_NE(error_message([&] { rs::mul_rows(a, b, out); }).find("row has 3"), std::string::npos);
    EXPECT_THROW(rs::mul_rows(a, std::span<const std::complex<float>>(), out), realify::shape_error);
    // mul_block_rows: the blocks must divide the rows, and a must be whole repeats of them.
    std::vector<std::complex<float>> rows6(6), a12(12), out12(12);
    EXPECT_NO_THROW(rs::mul_block_rows(a12, rows6, 2, out12));  // 2 blocks × 2 repeats × 3
    EXPECT_THROW(rs::mul_block_rows(a12, rows6, 4, out12), realify::shape_error);
    EXPECT_NE(error_message([&] { rs::mul_block_rows(a12, rows6, 4, out12); }).find("rows has 6 in 4 blocks"),
              std::string::npos);
    EXPECT_THROW(rs::mul_block_rows(std::span(a12).first(9), rows6, 2, std::span(out12).first(9)), realify::shape_error);
    EXPECT_THROW(rs::mul_block_rows(a12, rows6, 0, out12), realify::shape_error);
    std::vector<std::complex<double>> ad(2), bd(2), outd(3);
    EXPECT_THROW(rs::mul(ad, bd, outd), realify::shape_error);
    // Empty is fine.
    std::vector<std::complex<float>> none;
    EXPECT_NO_THROW(rs::mul(none, none, none));
    EXPECT_NO_THROW(rs::mul_rows(none, none, none));
    EXPECT_NO_THROW(rs::mul_block_rows(none, none, 0, none));
    EXPECT_NO_THROW(rs::mul_block_rows(none, none, 3, none));
}

TEST(SimdErrors, PartialOverlapIsRefusedExactAliasIsFine) {
    std::vector<std::complex<float>> buf(10, {1.0f, 2.0f}), b(8, {3.0f, 0.0f});
    std::span<std::complex<float>> whole(buf);
    // out shifted by one element against a: would read already-written results.
    EXPECT_THROW(rs::mul(whole.first(8), b, whole.subspan(1, 8)), realify::layout_error);
    EXPECT_NE(error_message([&] { rs::mul(whole.first(8), b, whole.subspan(1, 8)); }).find("partially overlaps a"),
              std::string::npos);
    EXPECT_THROW(rs::mul_add(b, b, whole.first(8), whole.subspan(2, 8)), realify::layout_error);
    // mul_rows: out may not overwrite the shared row while other rows need it.
    EXPECT_THROW(rs::mul_rows(whole.first(8), whole.first(4), whole.first(8)), realify::layout_error);
    // mul_real: out over the real array's memory.
    std::vector<float> r(16, 2.0f);
    EXPECT_THROW(rs::mul_real(b, std::span(r).first(8), std::span(reinterpret_cast<std::complex<float>*>(r.data()), 8)),
                 realify::layout_error);
    // Exact aliasing of any input is allowed.
    EXPECT_NO_THROW(rs::mul(whole.first(8), whole.first(8), whole.first(8)));
    EXPECT_EQ(buf[0], (std::complex<float>(1.0f, 2.0f) * std::complex<float>(1.0f, 2.0f)));
    EXPECT_NO_THROW(rs::mul_rows(whole.first(4), whole.first(4), whole.first(4)));  // a single row
    // mul_block_rows: rows may be out only when every block is one row (then rows IS a).
    EXPECT_THROW(rs::mul_block_rows(whole.first(8), whole.first(4), 2, whole.first(8)), realify::layout_error);
    EXPECT_NO_THROW(rs::mul_block_rows(whole.first(8), whole.first(8), 4, whole.first(8)));
}

// ---- architecture selection --------------------------------------------------

TEST(SimdArchControl, BestArchIsActiveByDefaultAndALowerLevelCanBeForced) {
    const rs::arch lowest = realify::test::lowest_supported_level();
    if (std::getenv("REALIFY_SIMD_ARCH") == nullptr) {
        EXPECT_EQ(rs::active_arch_id(), rs::best_supported_arch());
        EXPECT_EQ(rs::active_arch(), rs::arch_name(rs::best_supported_arch()));
    }
    {
        rs::scoped_arch lower(lowest);
        EXPECT_EQ(rs::active_arch_id(), lowest);
        rs::force_arch(lowest);  // nested forcing is restored by the scope
    }
    EXPECT_NE(rs::active_arch(), "");
    rs::reset_arch();
}

TEST(SimdArchControl, ForcingAnUnsupportedArchIsAnErrorNotACrash) {
    for (rs::arch a : {rs::arch::sse2, rs::arch::avx2, rs::arch::avx512}) {
        if (rs::is_supported(a)) continue;
        const std::string before(rs::active_arch());
        EXPECT_THROW(rs::force_arch(a), realify::error);
        // a level left out of the build (REALIFY_SIMD_ARCHS) or one this CPU lacks
        const std::string message = error_message([&] { rs::force_arch(a); });
        EXPECT_TRUE(message.find("not supported on this machine") != std::string::npos ||
                    message.find("not built into realify_simd") != std::string::npos)
            << message;
        EXPECT_NE(message.find(rs::arch_name(a)), std::string::npos) << message;
        EXPECT_THROW(rs::scoped_arch{a}, realify::error);
        EXPECT_EQ(rs::active_arch(), before);
    }
    EXPECT_EQ(rs::parse_arch("avx9"), std::nullopt);
    EXPECT_EQ(rs::parse_arch("avx2"), rs::arch::avx2);
}

TEST(SimdArchControl, ConcurrentCallsWhileTheArchIsSwitched) {
    const auto a = random_complex<double>(4099, 31);
    const auto b = random_complex<double>(4099, 32);
    std::vector<std::thread> threads;
    std::vector<int> bad(3, 0);
    for (int t = 0; t < 3; ++t)
        threads.emplace_back([&, t] {
            std::vector<std::complex<double>> out(a.size());
            for (int rep = 0; rep < 30; ++rep) {
                rs::mul(a, b, out);
                for (std::size_t i = 0; i < out.size(); i += 97)
                    if (std::abs(widen(out[i]) - plain_mul(widen(a[i]), widen(b[i]))) > 1e-13L) ++bad[t];
            }
        });
    for (int rep = 0; rep < 30; ++rep) {
        rs::force_arch(realify::test::lowest_supported_level());
        rs::reset_arch();
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 3; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
}

// Unforced, each kernel family runs its preferred level (the best one; RoPE
// and the multiply family: AVX-512 or AVX2, whichever measured faster on this
// CPU); a forced level — scoped_arch, force_arch, REALIFY_SIMD_ARCH — holds
// for every family.
TEST(SimdArchControl, EachFamilyRunsItsPreferredLevelUnlessOneIsForced) {
    for (rs::kernel_family f : rs::kernel_families) {
        const rs::arch preferred = rs::preferred_arch(f);
        EXPECT_TRUE(rs::is_supported(preferred)) << rs::family_name(f);
        EXPECT_LE(static_cast<int>(preferred), static_cast<int>(rs::best_supported_arch())) << rs::family_name(f);
        if (f == rs::kernel_family::elementwise || f == rs::kernel_family::gemm) {
            EXPECT_EQ(preferred, rs::best_supported_arch()) << rs::family_name(f);
        } else if (preferred != rs::best_supported_arch()) {
            EXPECT_EQ(preferred, rs::arch::avx2) << rs::family_name(f);
            EXPECT_EQ(rs::best_supported_arch(), rs::arch::avx512) << rs::family_name(f);
        }
        if (std::getenv("REALIFY_SIMD_ARCH") == nullptr) {
            EXPECT_EQ(rs::active_arch_id(f), preferred) << rs::family_name(f);
        }
        for (rs::arch level : {rs::arch::sse2, rs::arch::avx2, rs::arch::avx512}) {
            if (!rs::is_supported(level)) continue;
            const rs::scoped_arch forced(level);
            EXPECT_EQ(rs::active_arch_id(f), level) << rs::family_name(f);
            EXPECT_EQ(rs::active_arch(f), rs::arch_name(level)) << rs::family_name(f);
        }
    }
    EXPECT_EQ(rs::family_name(rs::kernel_family::gemm), "gemm");
    // RoPE reports its family's level (forced onto the lowest built: a native build has one)
    const rs::arch lowest = realify::test::lowest_supported_level();
    const rs::scoped_arch forced(lowest);
    EXPECT_EQ(realify::rope::active_arch(), rs::arch_name(lowest));
}

// REALIFY_SIMD_ARCH is read once per process; ctest runs this test again in
// processes of its own with the variable set (see tests/CMakeLists.txt).
TEST(SimdEnvironment, ArchFromEnvironmentVariable) {
    const char* value = std::getenv("REALIFY_SIMD_ARCH");
    if (value == nullptr) GTEST_SKIP() << "REALIFY_SIMD_ARCH is not set in this process";
    const auto parsed = rs::parse_arch(value);
    if (parsed && rs::is_supported(*parsed)) {
        EXPECT_EQ(rs::active_arch(), value);
    } else {
        EXPECT_THROW(rs::active_arch(), realify::error);
        EXPECT_NE(error_message([] { (void)rs::active_arch(); }).find("REALIFY_SIMD_ARCH"), std::string::npos);
        std::vector<std::complex<float>> x(3);
        EXPECT_THROW(rs::mul(x, x, x), realify::error);
        // An explicit force still works: tests can always pick a level.
        rs::scoped_arch lower(realify::test::lowest_supported_level());
        EXPECT_EQ(rs::active_arch_id(), realify::test::lowest_supported_level());
    }
}

}  // namespace
