// RoPE: precompute_freqs_cis and apply_rotary_emb against PyTorch goldens
// (tools/gen_rope_golden.py), against a std::complex reference, and every
// compiled SIMD level against the portable scalar kernel at odd sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <optional>
#include <stdexcept>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "realify/layout/complex_layout.hpp"
#include "realify/layout/view_as_real.hpp"
#include "realify/rope.hpp"
#include "realify/rope/half.hpp"
#include "realify/rope/scalar.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/streaming.hpp"

#include "../support/npy.hpp"

namespace {

using realify::rope::angle_precision;
using realify::rope::apply_rotary_emb;
using realify::rope::llama3_scaling;
using realify::rope::pair_layout;
using realify::rope::precompute_freqs_cis;

/// A golden .npy file written by tools/gen_rope_golden.py (little-endian,
/// C order, float32 or float64 = T; xt::load_npy throws on another dtype).
template <class T>
xt::xarray<T> golden(const std::string& name) {
    return xt::load_npy<T>(std::string(REALIFY_TEST_DATA_DIR) + "/golden/rope/" + name + ".npy");
}

template <class T>
xt::xtensor<T, 4> golden4(const std::string& name) {
    xt::xarray<T> a = golden<T>(name);
    EXPECT_EQ(a.dimension(), 4u) << name;
    xt::xtensor<T, 4> t = a;
    return t;
}

/// Largest |a - b| over two equally shaped expressions.
template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
    EXPECT_EQ(std::vector<std::size_t>(a.shape().begin(), a.shape().end()),
              std::vector<std::size_t>(b.shape().begin(), b.shape().end()));
    double worst = 0;
    auto ia = a.begin();
    for (auto ib = b.begin(); ib != b.end(); ++ia, ++ib) {
        const double d = std::abs(static_cast<double>(*ia) - static_cast<double>(*ib));
        worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worst, d);
    }
    return worst;
}

template <class T>
xt::xtensor<T, 4> random4(std::size_t b, std::size_t s, std::size_t h, std::size_t d, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> dist(0.0, 1.0);
    xt::xtensor<T, 4> t(std::array<std::size_t, 4>{b, s, h, d});
    for (auto& v : t) v = static_cast<T>(dist(gen));
    return t;
}

/// Meta's formula on std::complex<double>: pair j of every head times
/// freqs_cis[start + s, j], pairs chosen by the layout.
template <class T, class C>
xt::xtensor<T, 4> complex_reference(const xt::xtensor<T, 4>& x, const xt::xtensor<std::complex<C>, 2>& freqs,
                                    std::size_t start, pair_layout layout) {
    xt::xtensor<T, 4> out = x;
    const std::size_t d = x.shape()[3];
    for (std::size_t b = 0; b < x.shape()[0]; ++b)
        for (std::size_t s = 0; s < x.shape()[1]; ++s)
            for (std::size_t h = 0; h < x.shape()[2]; ++h)
                for (std::size_t j = 0; j < d / 2; ++j) {
                    const std::size_t re = layout == pair_layout::interleaved ? 2 * j : j;
                    const std::size_t im = layout == pair_layout::interleaved ? 2 * j + 1 : j + d / 2;
                    const std::complex<double> z(static_cast<double>(x(b, s, h, re)),
                                                 static_cast<double>(x(b, s, h, im)));
                    const std::complex<double> f(freqs(start + s, j));
                    const std::complex<double> r = z * f;
                    out(b, s, h, re) = static_cast<T>(r.real());
                    out(b, s, h, im) = static_cast<T>(r.imag());
                }
    return out;
}

// ---------------------------------------------------------------- freqs_cis

// The default table is Meta's float32 reference table, which Hugging Face and
// ggml reproduce too: the angles bit for bit, cos/sin within one float step
// (realify rounds them correctly, torch's cosf/sinf may be one step off).
TEST(RopeFreqs, DefaultTableIsMetasFloat32Reference) {
    const xt::xarray<double> positions = golden<double>("freqs_ref_pos.f64");
    const double ulp = std::ldexp(1.0, -24);  // half an ulp of values in [0.5, 1), one ulp below
    for (const int dim : {64, 128}) {
        for (const double theta : {1e4, 5e5}) {
            for (const bool scaled : {false, true}) {
                const std::string name = "freqs_ref_d" + std::to_string(dim) + (theta == 1e4 ? "_t1e4_" : "_t5e5_") +
                                         (scaled ? "llama31" : "plain") + ".f32";
                const xt::xarray<float> expected = golden<float>(name);  // (P, dim/2, 2)
                const std::optional<llama3_scaling> scaling =
                    scaled ? std::optional<llama3_scaling>(llama3_scaling{}) : std::nullopt;
                const auto table = precompute_freqs_cis(dim, 8192, theta, scaling);
                const auto table64 = precompute_freqs_cis<double>(dim, 8192, theta, scaling);
                const auto exact = precompute_freqs_cis<double>(dim, 8192, theta, scaling, angle_precision::float64);
                double worst = 0, worst64 = 0, exact_vs_reference = 0;
                for (std::size_t p = 0; p < positions.size(); ++p) {
                    const auto pos = static_cast<std::size_t>(positions(p));
                    for (std::size_t j = 0; j < static_cast<std::size_t>(dim / 2); ++j) {
                        const std::complex<double> want(expected(p, j, 0), expected(p, j, 1));
                        worst = std::max(worst, std::abs(std::complex<double>(table(pos, j)) - want));
                        worst64 = std::max(worst64, std::abs(table64(pos, j) - want));
                        exact_vs_reference = std::max(exact_vs_reference, std::abs(exact(pos, j) - want));
                    }
                }
                EXPECT_LE(worst, 2 * ulp) << name;
                // complex<double> storage of the same float32 angles
                EXPECT_LE(worst64, 2 * ulp) << name;
                // the float64 option is a different table at large positions
                EXPECT_GE(exact_vs_reference, 1e-4) << name;
            }
        }
    }
}

// angle_precision::float64: frequencies and angles in double, against
// PyTorch float64.
TEST(RopeFreqs, Float64AnglesMatchTorchFloat64) {
    const xt::xarray<double> expected = golden<double>("freqs.f64");  // (12, 8, 2)
    const auto f64 = precompute_freqs_cis<double>(16, 12, 1e4, std::nullopt, angle_precision::float64);
    ASSERT_EQ(f64.shape()[0], 12u);
    ASSERT_EQ(f64.shape()[1], 8u);
    EXPECT_LE(max_abs_diff(realify::view_as_real(f64), expected), 1e-14);
    const auto f32 = precompute_freqs_cis(16, 12, 1e4, std::nullopt, angle_precision::float64);  // float by default
    static_assert(std::is_same_v<decltype(f32)::value_type, std::complex<float>>);
    EXPECT_LE(max_abs_diff(realify::view_as_real(f32), expected), 1e-7);
    // At small positions the reference float32 table is the same to float rounding.
    const auto reference = precompute_freqs_cis(16, 12, 1e4);
    EXPECT_LE(max_abs_diff(realify::view_as_real(reference), expected), 2e-7);
    // Row 0 is the identity rotation, every entry is on the unit circle.
    for (std::size_t j = 0; j < 8; ++j) EXPECT_EQ(f64(0, j), std::complex<double>(1, 0));
    for (const auto& z : f64) EXPECT_NEAR(std::abs(z), 1.0, 1e-15);
}

TEST(RopeFreqs, Llama31ScalingMatchesMetaApplyScaling) {
    const xt::xarray<double> positions = golden<double>("freqs_llama31_pos.f64");
    const xt::xarray<double> expected = golden<double>("freqs_llama31.f64");  // (P, 64, 2)
    const auto table = precompute_freqs_cis<double>(128, 65536, 5e5, llama3_scaling{}, angle_precision::float64);
    const auto plain = precompute_freqs_cis<double>(128, 65536, 5e5, std::nullopt, angle_precision::float64);
    double worst = 0;
    bool differs_from_unscaled = false;
    for (std::size_t p = 0; p < positions.size(); ++p) {
        const auto pos = static_cast<std::size_t>(positions(p));
        for (std::size_t j = 0; j < 64; ++j) {
            const std::complex<double> want(expected(p, j, 0), expected(p, j, 1));
            worst = std::max(worst, std::abs(table(pos, j) - want));
            differs_from_unscaled |= std::abs(table(pos, j) - plain(pos, j)) > 1e-3;
        }
    }
    // Angles up to 65535 rad: double rounding of pos·freq is ~1e-11.
    EXPECT_LE(worst, 1e-10);
    EXPECT_TRUE(differs_from_unscaled);
    // High frequencies (short wavelengths) are untouched by the scaling.
    for (const auto precision : {angle_precision::reference_float32, angle_precision::float64}) {
        const auto freqs = realify::rope::rope_frequencies(128, 5e5, llama3_scaling{}, precision);
        const auto unscaled = realify::rope::rope_frequencies(128, 5e5, std::nullopt, precision);
        EXPECT_EQ(freqs[0], unscaled[0]);
        EXPECT_DOUBLE_EQ(freqs[63], unscaled[63] / 8.0);
    }
    // The reference frequencies are float32 values.
    for (double f : realify::rope::rope_frequencies(128, 5e5)) EXPECT_EQ(f, static_cast<double>(static_cast<float>(f)));
}

TEST(RopeFreqs, OddDimIsAShapeError) {
    EXPECT_THROW(precompute_freqs_cis(7, 4), realify::shape_error);
}

/// The message of the realify::error `f` throws, or what went wrong instead.
template <class F>
std::string any_error_message(F&& f) {
    try {
        f();
    } catch (const realify::error& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("wrong exception type: ") + e.what();
    }
    return "no exception";
}

// theta 0, negative, NaN or inf used to give a NaN table silently; a table
// whose size end · dim/2 wraps std::size_t used to be written out of bounds.
TEST(RopeFreqs, InvalidParametersAndSizesAreErrorsNamingThem) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const double theta : {0.0, -1e4, nan, inf}) {
        const std::string m = any_error_message([&] { (void)precompute_freqs_cis(8, 4, theta); });
        EXPECT_NE(m.find("realify::rope::precompute_freqs_cis: theta must be finite and positive"), std::string::npos) << m;
        EXPECT_THROW((void)realify::rope::rope_frequencies(8, theta), realify::error);
    }
    auto scaling_error = [](llama3_scaling s) {
        return any_error_message([&] { (void)precompute_freqs_cis(8, 4, 1e4, s); });
    };
    EXPECT_NE(scaling_error({0.0, 1.0, 4.0, 8192.0}).find("llama3_scaling::factor"), std::string::npos);
    EXPECT_NE(scaling_error({8.0, nan, 4.0, 8192.0}).find("llama3_scaling::low_freq_factor"), std::string::npos);
    EXPECT_NE(scaling_error({8.0, 1.0, -4.0, 8192.0}).find("llama3_scaling::high_freq_factor"), std::string::npos);
    EXPECT_NE(scaling_error({8.0, 1.0, 4.0, inf}).find("llama3_scaling::original_context"), std::string::npos);
    EXPECT_NE(scaling_error({8.0, 2.0, 2.0, 8192.0}).find("llama3_scaling::high_freq_factor"), std::string::npos);

    EXPECT_THROW((void)precompute_freqs_cis(128, (std::ptrdiff_t(1) << 58) + 1), realify::shape_error);
    std::string m = any_error_message([] { (void)precompute_freqs_cis(128, (std::ptrdiff_t(1) << 58) + 1); });
    EXPECT_NE(m.find("realify::rope::precompute_freqs_cis: table (end, dim/2) (288230376151711745, 64) has too many"),
              std::string::npos)
        << m;
    m = any_error_message([] { (void)precompute_freqs_cis(8, -1); });
    EXPECT_NE(m.find("precompute_freqs_cis: end must be non-negative, got -1"), std::string::npos) << m;
    m = any_error_message([] { (void)precompute_freqs_cis(-8, 4); });
    EXPECT_NE(m.find("precompute_freqs_cis: dim must be non-negative, got -8"), std::string::npos) << m;
    EXPECT_EQ(precompute_freqs_cis(8, 0).size(), 0u);
}

// ---------------------------------------------------------- PyTorch goldens

template <class T>
void check_golden_case(const std::string& name, pair_layout layout, std::size_t start, double tol) {
    const std::string suffix = std::is_same_v<T, float> ? ".f32" : ".f64";
    const auto xq = golden4<T>(name + "_xq" + suffix);
    const auto xk = golden4<T>(name + "_xk" + suffix);
    const auto eq = golden4<T>(name + "_out_q" + suffix);
    const auto ek = golden4<T>(name + "_out_k" + suffix);
    const std::size_t seq = xq.shape()[1];
    // These goldens rotate by the float64 table (tools/gen_rope_golden.py).
    const auto dim = static_cast<std::ptrdiff_t>(xq.shape()[3]);
    const auto freqs = precompute_freqs_cis<T>(dim, static_cast<std::ptrdiff_t>(start + seq), 1e4, std::nullopt,
                                               angle_precision::float64);

    // New tensors.
    const auto [q, k] = apply_rotary_emb(xq, xk, freqs, start, layout);
    EXPECT_LE(max_abs_diff(q, eq), tol) << name << suffix;
    EXPECT_LE(max_abs_diff(k, ek), tol) << name << suffix;

    // Caller buffers.
    xt::xtensor<T, 4> oq(xq.shape()), ok(xk.shape());
    apply_rotary_emb(xq, xk, freqs, start, oq, ok, layout);
    EXPECT_EQ(oq, q);
    EXPECT_EQ(ok, k);

    // In place.
    xt::xtensor<T, 4> iq = xq, ik = xk;
    apply_rotary_emb(iq, ik, freqs, start, iq, ik, layout);
    EXPECT_EQ(iq, q);
    EXPECT_EQ(ik, k);

    // A longer table only shifts which rows are read: here start_pos + seq
    // is exactly the end, and a table of 64 rows gives the same result.
    const auto longer = precompute_freqs_cis<T>(dim, 64, 1e4, std::nullopt, angle_precision::float64);
    const auto [q2, k2] = apply_rotary_emb(xq, xk, longer, start, layout);
    EXPECT_EQ(q2, q);
    EXPECT_EQ(k2, k);
}

TEST(RopeGolden, MetaInterleavedFloat) { check_golden_case<float>("interleaved", pair_layout::interleaved, 3, 2e-6); }
TEST(RopeGolden, MetaInterleavedDouble) {
    check_golden_case<double>("interleaved", pair_layout::interleaved, 3, 1e-14);
}
TEST(RopeGolden, HfRotateHalfFloat) { check_golden_case<float>("half_split", pair_layout::half_split, 3, 2e-6); }
TEST(RopeGolden, HfRotateHalfDouble) { check_golden_case<double>("half_split", pair_layout::half_split, 3, 1e-14); }

// Meta's reference end to end (its float32 table and apply_rotary_emb) at
// positions where the float32 and float64 angles differ by ~5e-4 rad: the
// default table gives Meta's output to float rounding, the float64 one does not.
TEST(RopeGolden, MetaReferenceLlama31ScaledAtPosition8190) {
    const auto xq = golden4<float>("llama31_xq.f32");
    const auto xk = golden4<float>("llama31_xk.f32");
    const auto eq = golden4<float>("llama31_out_q.f32");
    const auto ek = golden4<float>("llama31_out_k.f32");
    const auto freqs = precompute_freqs_cis(128, 8193, 5e5, llama3_scaling{});
    const auto [q, k] = apply_rotary_emb(xq, xk, freqs, 8190);
    const double magnitude = std::max(xt::amax(xt::abs(eq))(), xt::amax(xt::abs(ek))());
    const double rounding = 4 * magnitude * std::numeric_limits<float>::epsilon();
    EXPECT_LE(max_abs_diff(q, eq), rounding);
    EXPECT_LE(max_abs_diff(k, ek), rounding);
    const auto exact = precompute_freqs_cis(128, 8193, 5e5, llama3_scaling{}, angle_precision::float64);
    const auto [q64, k64] = apply_rotary_emb(xq, xk, exact, 8190);
    EXPECT_GE(max_abs_diff(q64, eq), 1e-4);
    // One row short of start_pos + seq is refused.
    const auto short_table = precompute_freqs_cis(128, 8192, 5e5, llama3_scaling{});
    EXPECT_THROW(apply_rotary_emb(xq, xk, short_table, 8190), realify::shape_error);
}

// ---------------------------------------------------------------- errors

template <class F>
std::string error_message(F&& f) {
    try {
        f();
    } catch (const realify::shape_error& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("wrong exception type: ") + e.what();
    }
    return "no exception";
}

TEST(RopeErrors, ShapeErrorsNameTheShapes) {
    const auto freqs = precompute_freqs_cis(8, 16);
    const auto q = random4<float>(2, 3, 4, 8, 1);
    const auto k = random4<float>(2, 3, 2, 8, 2);

    const auto odd_q = random4<float>(2, 3, 4, 7, 3);
    const auto odd_k = random4<float>(2, 3, 2, 7, 4);
    std::string m = error_message([&] { (void)apply_rotary_emb(odd_q, odd_k, freqs); });
    EXPECT_NE(m.find("head_dim must be even"), std::string::npos) << m;
    EXPECT_NE(m.find("(2, 3, 4, 7)"), std::string::npos) << m;

    m = error_message([&] { (void)apply_rotary_emb(q, k, freqs, 14); });
    EXPECT_NE(m.find("fewer rows than start_pos + seq"), std::string::npos) << m;
    EXPECT_NE(m.find("(16, 4)"), std::string::npos) << m;
    EXPECT_NO_THROW((void)apply_rotary_emb(q, k, freqs, 13));

    const auto k_batch = random4<float>(1, 3, 2, 8, 5);
    m = error_message([&] { (void)apply_rotary_emb(q, k_batch, freqs); });
    EXPECT_NE(m.find("batch and seq"), std::string::npos) << m;
    EXPECT_NE(m.find("(1, 3, 2, 8)"), std::string::npos) << m;
    const auto k_seq = random4<float>(2, 4, 2, 8, 6);
    m = error_message([&] { (void)apply_rotary_emb(q, k_seq, freqs); });
    EXPECT_NE(m.find("(2, 4, 2, 8)"), std::string::npos) << m;
    const auto k_dim = random4<float>(2, 3, 2, 6, 7);
    m = error_message([&] { (void)apply_rotary_emb(q, k_dim, freqs); });
    EXPECT_NE(m.find("same head_dim"), std::string::npos) << m;

    const auto narrow = precompute_freqs_cis(6, 16);
    m = error_message([&] { (void)apply_rotary_emb(q, k, narrow); });
    EXPECT_NE(m.find("head_dim/2 columns"), std::string::npos) << m;

    xt::xtensor<float, 4> out_q(std::array<std::size_t, 4>{2, 3, 4, 8});
    xt::xtensor<float, 4> bad_k(std::array<std::size_t, 4>{2, 3, 4, 8});
    m = error_message([&] { apply_rotary_emb(q, k, freqs, 0, out_q, bad_k); });
    EXPECT_NE(m.find("out_k has shape (2, 3, 4, 8), expected (2, 3, 2, 8)"), std::string::npos) << m;

    xt::xarray<float> rank3 = xt::zeros<float>({3, 4, 8});
    m = error_message([&] { (void)apply_rotary_emb(rank3, k, freqs); });
    EXPECT_NE(m.find("(3, 4, 8)"), std::string::npos) << m;
}

/// The message of the realify::layout_error `f` throws, or what went wrong instead.
template <class F>
std::string layout_error_message(F&& f) {
    try {
        f();
    } catch (const realify::layout_error& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("wrong exception type: ") + e.what();
    }
    return "no exception";
}

// Positions and span-form dims are std::ptrdiff_t: negative values are
// shape_errors naming them, and start_pos + seq or the product of the dims
// never wraps (start_pos = SIZE_MAX, i.e. a −1 converted, used to read out of
// bounds; batch 2^62 + 1 used to pass the size check of 4-element spans).
TEST(RopeErrors, PositionsAndDimsNeverWrap) {
    const auto freqs = precompute_freqs_cis(8, 16);
    const auto q = random4<float>(2, 3, 4, 8, 1);
    const auto k = random4<float>(2, 3, 2, 8, 2);
    std::string m = error_message([&] { (void)apply_rotary_emb(q, k, freqs, -1); });
    EXPECT_NE(m.find("realify::rope::apply_rotary_emb: start_pos must be non-negative, got -1"), std::string::npos) << m;
    for (const std::ptrdiff_t start : {std::numeric_limits<std::ptrdiff_t>::max(), std::ptrdiff_t(17), std::ptrdiff_t(14)}) {
        m = error_message([&] { (void)apply_rotary_emb(q, k, freqs, start); });
        EXPECT_NE(m.find("fewer rows than start_pos + seq"), std::string::npos) << m;
    }

    using realify::rope::rope_dims;
    std::vector<float> x(4), y(4), ox(4), oy(4);
    const std::span<const std::complex<float>> table(freqs.data(), freqs.size());
    const std::ptrdiff_t wraps = (std::ptrdiff_t(1) << 62) + 1;  // · 4 ≡ 4
    m = error_message([&] { apply_rotary_emb(rope_dims{wraps, 1, 1, 1, 4}, x, y, table, 0, ox, oy); });
    EXPECT_NE(m.find("realify::rope::apply_rotary_emb: q shape (4611686018427387905, 1, 1, 4) has too many"),
              std::string::npos)
        << m;
    m = error_message([&] { apply_rotary_emb(rope_dims{1, 1, 1, 1, 4}, x, y, table, -3, ox, oy); });
    EXPECT_NE(m.find("start_pos must be non-negative, got -3"), std::string::npos) << m;
    m = error_message([&] {
        apply_rotary_emb(rope_dims{1, 1, 1, 1, 4}, x, y, table, std::numeric_limits<std::ptrdiff_t>::max(), ox, oy);
    });
    EXPECT_NE(m.find("fewer rows than start_pos + seq"), std::string::npos) << m;
    const std::array<std::pair<rope_dims, const char*>, 5> negative{{{{-1, 1, 1, 1, 4}, "rope_dims::batch"},
                                                                     {{1, -1, 1, 1, 4}, "rope_dims::seq"},
                                                                     {{1, 1, -1, 1, 4}, "rope_dims::q_heads"},
                                                                     {{1, 1, 1, -1, 4}, "rope_dims::k_heads"},
                                                                     {{1, 1, 1, 1, -4}, "rope_dims::head_dim"}}};
    for (const auto& [dims, field] : negative) {
        m = error_message([&] { apply_rotary_emb(dims, x, y, table, 0, ox, oy); });
        EXPECT_NE(m.find(std::string(field) + " must be non-negative"), std::string::npos) << m;
    }
}

// Overlaps are checked on the caller's memory, not on staging copies.
TEST(RopeErrors, OverlappingOutputsAreRefused) {
    const auto freqs = precompute_freqs_cis(8, 4);
    xt::xtensor<float, 4> q = random4<float>(1, 2, 2, 8, 1);
    xt::xtensor<float, 4> k = random4<float>(1, 2, 2, 8, 2);
    EXPECT_THROW(apply_rotary_emb(q, k, freqs, 0, q, q), realify::layout_error);
    // out_k a reversed view of out_q: both are staged, and the staging
    // buffers do not overlap — the caller's memory does (q's result was lost).
    xt::xtensor<float, 4> out_q(q.shape());
    std::string m = layout_error_message([&] { apply_rotary_emb(q, k, freqs, 0, out_q, xt::flip(out_q, 1)); });
    EXPECT_NE(m.find("out_q overlaps out_k"), std::string::npos) << m;
    // Overlapping in one element only, through a strided view.
    xt::xtensor<float, 4> wide(std::array<std::size_t, 4>{1, 2, 2, 15});
    auto left = xt::strided_view(wide, {xt::all(), xt::all(), xt::all(), xt::range(0, 8)});
    auto right = xt::strided_view(wide, {xt::all(), xt::all(), xt::all(), xt::range(7, 15)});
    EXPECT_THROW(apply_rotary_emb(q, k, freqs, 0, left, right), realify::layout_error);
    auto right_disjoint = xt::strided_view(wide, {xt::all(), xt::all(), xt::all(), xt::range(8, 15)});
    EXPECT_THROW(apply_rotary_emb(q, k, freqs, 0, left, right_disjoint), realify::shape_error);  // 7 wide
}

// An output overlapping freqs_cis would rewrite the table while it is read
// (max error 2.87 before): refused in both forms, whatever the table's form.
TEST(RopeErrors, OutputsOverlappingTheTableAreRefused) {
    const std::size_t d = 8;
    auto freqs = precompute_freqs_cis(static_cast<std::ptrdiff_t>(d), 4);  // 4 × 4 complex = 32 floats
    const auto q = random4<float>(1, 2, 2, d, 1);
    const auto k = random4<float>(1, 2, 2, d, 2);
    float* table_floats = reinterpret_cast<float*>(freqs.data());
    const std::array<std::size_t, 4> shape{1, 2, 2, d};
    auto on_table = xt::adapt(table_floats, 32, xt::no_ownership(), shape);
    xt::xtensor<float, 4> out_k(shape);
    std::string m = layout_error_message([&] { apply_rotary_emb(q, k, freqs, 0, on_table, out_k); });
    EXPECT_NE(m.find("out_q overlaps freqs_cis"), std::string::npos) << m;
    xt::xtensor<float, 4> out_q(shape);
    m = layout_error_message([&] { apply_rotary_emb(q, k, freqs, 0, out_q, on_table); });
    EXPECT_NE(m.find("out_k overlaps freqs_cis"), std::string::npos) << m;
    // the table as a complex_layout of its real view, the output a strided view
    auto real_table = xt::adapt(table_floats, 32, xt::no_ownership(), std::array<std::size_t, 3>{4, 4, 2});
    const auto as_layout = realify::as_complex_layout(real_table);
    auto every_other = xt::strided_view(on_table, {xt::all(), xt::all(), xt::all(), xt::range(0, 8)});
    m = layout_error_message([&] { apply_rotary_emb(q, k, as_layout, 0, every_other, out_k); });
    EXPECT_NE(m.find("out_q overlaps freqs_cis"), std::string::npos) << m;
    // span form
    std::vector<float> x(q.begin(), q.end()), y(k.begin(), k.end()), oy(y.size());
    const std::span<const std::complex<float>> table(freqs.data(), freqs.size());
    m = layout_error_message([&] {
        apply_rotary_emb(realify::rope::rope_dims{1, 2, 2, 2, 8}, x, y, table, 0, std::span<float>(table_floats, 32), oy);
    });
    EXPECT_NE(m.find("out_q overlaps freqs_cis"), std::string::npos) << m;
    // nothing was written
    EXPECT_EQ(freqs, precompute_freqs_cis(8, 4));
}

// An empty q next to a non-empty k (and the reverse): k is rotated, and the
// kernel never forms an offset on q's null data (clang UBSan).
TEST(RopeForms, EmptyQOrKBesideANonEmptyOne) {
    const std::size_t d = 64;
    const auto freqs = precompute_freqs_cis(static_cast<std::ptrdiff_t>(d), 8);
    const xt::xtensor<float, 4> empty(std::array<std::size_t, 4>{1, 1, 0, d});
    const auto k = random4<float>(1, 1, 2, d, 3);
    for (auto layout : {pair_layout::interleaved, pair_layout::half_split}) {
        const auto expected = complex_reference(k, freqs, 5, layout);
        const auto [q1, k1] = apply_rotary_emb(empty, k, freqs, 5, layout);
        EXPECT_EQ(q1.size(), 0u);
        EXPECT_LE(max_abs_diff(k1, expected), 1e-6);
        const auto [k2, q2] = apply_rotary_emb(k, empty, freqs, 5, layout);
        EXPECT_EQ(q2.size(), 0u);
        EXPECT_LE(max_abs_diff(k2, expected), 1e-6);
        // span form with null data for q
        std::vector<float> y(k.begin(), k.end()), oy(y.size());
        apply_rotary_emb(realify::rope::rope_dims{1, 1, 0, 2, 64}, std::span<const float>(), y,
                         std::span<const std::complex<float>>(freqs.data(), freqs.size()), 5, std::span<float>(), oy,
                         layout);
        EXPECT_TRUE(std::equal(oy.begin(), oy.end(), k1.begin()));
        // 16-bit storage goes through float scratch buffers
        const xt::xtensor<Eigen::half, 4> half_empty(std::array<std::size_t, 4>{1, 1, 0, d});
        const xt::xtensor<Eigen::half, 4> half_k = xt::cast<Eigen::half>(k);
        const auto [hq, hk] = apply_rotary_emb(half_empty, half_k, freqs, 5, layout);
        EXPECT_EQ(hq.size(), 0u);
        EXPECT_LE(max_abs_diff(hk, expected), 4e-3);
    }
}

// ------------------------------------------------ forms of the arguments

TEST(RopeForms, GqaViewsComplexLayoutXarrayAndSwappedOutputs) {
    const std::size_t b = 2, s = 5, hq = 6, hk = 2, d = 12, start = 4;
    const auto xq = random4<double>(b, s, hq, d, 11);
    const auto xk = random4<double>(b, s, hk, d, 12);
    const auto freqs = precompute_freqs_cis<double>(d, 16, 500000.0);
    for (auto layout : {pair_layout::interleaved, pair_layout::half_split}) {
        const auto rq = complex_reference(xq, freqs, start, layout);
        const auto rk = complex_reference(xk, freqs, start, layout);
        const auto [q, k] = apply_rotary_emb(xq, xk, freqs, start, layout);
        EXPECT_LE(max_abs_diff(q, rq), 1e-14);
        EXPECT_LE(max_abs_diff(k, rk), 1e-14);

        // freqs_cis as a complex_layout of a real (end, d/2, 2) tensor.
        xt::xtensor<double, 3> real_freqs = realify::view_as_real(freqs);
        const auto as_layout = realify::as_complex_layout(real_freqs);
        const auto [q2, k2] = apply_rotary_emb(xq, xk, as_layout, start, layout);
        EXPECT_EQ(q2, q);
        EXPECT_EQ(k2, k);

        // Non-contiguous inputs and outputs (a (b, h, s, d) tensor seen
        // transposed) and dynamic-rank xarray.
        xt::xtensor<double, 4> q_bhsd = xt::transpose(xq, {0, 2, 1, 3});
        auto q_view = xt::transpose(q_bhsd, {0, 2, 1, 3});
        xt::xarray<double> k_dyn = xk;
        xt::xtensor<double, 4> out_bhsd(std::array<std::size_t, 4>{b, hq, s, d});
        auto out_view = xt::transpose(out_bhsd, {0, 2, 1, 3});
        xt::xarray<double> out_k = xt::zeros<double>({b, s, hk, d});
        apply_rotary_emb(q_view, k_dyn, freqs, start, out_view, out_k, layout);
        EXPECT_LE(max_abs_diff(out_view, rq), 1e-14);
        EXPECT_LE(max_abs_diff(out_k, rk), 1e-14);

        // In place through the same non-contiguous view.
        xt::xtensor<double, 4> q_alias = q_bhsd;
        auto alias_view = xt::transpose(q_alias, {0, 2, 1, 3});
        xt::xarray<double> k_alias = xk;
        apply_rotary_emb(alias_view, k_alias, freqs, start, alias_view, k_alias, layout);
        EXPECT_LE(max_abs_diff(alias_view, rq), 1e-14);
        EXPECT_LE(max_abs_diff(k_alias, rk), 1e-14);

        // A strided freqs table (every other row) is copied, not misread.
        xt::xtensor<std::complex<double>, 2> doubled(std::array<std::size_t, 2>{32, d / 2});
        for (std::size_t r = 0; r < 32; ++r)
            for (std::size_t j = 0; j < d / 2; ++j) doubled(r, j) = freqs(r / 2, j);
        auto every_other = xt::view(doubled, xt::range(0, 32, 2), xt::all());
        const auto [q3, k3] = apply_rotary_emb(xq, xk, every_other, start, layout);
        EXPECT_EQ(q3, q);
        EXPECT_EQ(k3, k);
    }
}

TEST(RopeForms, PartialOverlapOfOutputAndInputIsResolvedByCopy) {
    // q heads and k heads packed in one (b, s, hq + hk, d) buffer, with out_q
    // shifted against xq by one head: the front end must copy xq first.
    const std::size_t b = 1, s = 3, h = 4, d = 8;
    xt::xtensor<float, 1> storage = xt::zeros<float>({2 * b * s * h * d});
    const auto src = random4<float>(b, s, h, d, 21);
    std::copy(src.begin(), src.end(), storage.begin());
    const std::array<std::size_t, 4> shape{b, s, h, d};
    auto xq = xt::adapt(storage.data(), b * s * h * d, xt::no_ownership(), shape);
    auto out_q = xt::adapt(storage.data() + d, b * s * h * d, xt::no_ownership(), shape);
    const xt::xtensor<float, 4> xk = random4<float>(b, s, 1, d, 22);
    xt::xtensor<float, 4> out_k(std::array<std::size_t, 4>{b, s, 1, d});
    const auto freqs = precompute_freqs_cis(d, s);
    const auto [eq, ek] = apply_rotary_emb(src, xk, freqs);
    apply_rotary_emb(xq, xk, freqs, 0, out_q, out_k);
    xt::xtensor<float, 4> got = out_q;
    EXPECT_EQ(got, eq);
    EXPECT_EQ(out_k, ek);
}

TEST(RopeForms, SpanFormOnRawBuffers) {
    const realify::rope::rope_dims dims{2, 3, 4, 2, 10};
    const auto xq = random4<float>(2, 3, 4, 10, 51);
    const auto xk = random4<float>(2, 3, 2, 10, 52);
    const auto freqs = precompute_freqs_cis(10, 8);
    const std::span<const std::complex<float>> table(freqs.data(), freqs.size());
    for (auto layout : {pair_layout::interleaved, pair_layout::half_split}) {
        const auto [eq, ek] = apply_rotary_emb(xq, xk, freqs, 5, layout);
        std::vector<float> q(xq.begin(), xq.end()), k(xk.begin(), xk.end());
        std::vector<float> oq(q.size()), ok(k.size());
        apply_rotary_emb(dims, q, k, table, 5, oq, ok, layout);
        EXPECT_TRUE(std::equal(oq.begin(), oq.end(), eq.begin()));
        EXPECT_TRUE(std::equal(ok.begin(), ok.end(), ek.begin()));
        apply_rotary_emb(dims, q, k, table, 5, q, k, layout);  // in place
        EXPECT_EQ(q, oq);
        EXPECT_EQ(k, ok);
    }
    std::vector<float> q(xq.begin(), xq.end()), k(xk.begin(), xk.end()), oq(q.size()), ok(k.size());
    std::string m = error_message([&] { apply_rotary_emb(dims, q, k, table, 6, oq, ok); });
    EXPECT_NE(m.find("fewer rows than start_pos + seq"), std::string::npos) << m;
    std::vector<float> short_k(k.size() - 1);
    m = error_message([&] { apply_rotary_emb(dims, q, short_k, table, 0, oq, ok); });
    EXPECT_NE(m.find("xk holds 119 values, the shape (2, 3, 2, 10) needs 120"), std::string::npos) << m;
    m = error_message([&] { apply_rotary_emb(dims, q, k, table.first(9), 0, oq, ok); });
    EXPECT_NE(m.find("whole number of rows"), std::string::npos) << m;
    // Raw buffers shifted against each other are refused, not copied.
    std::vector<float> shared(q.size() + 4);
    EXPECT_THROW(apply_rotary_emb(dims, std::span<const float>(shared).first(q.size()), k, table, 0,
                                  std::span<float>(shared).subspan(4), ok),
                 realify::layout_error);
}

// ------------------------------------------------------- 16-bit storage

template <class H>
void check_sixteen_bit(double relative_rounding) {
    const std::size_t b = 2, s = 7, hq = 3, hk = 1, d = 10, start = 9;
    const auto fq = random4<float>(b, s, hq, d, 31);
    const auto fk = random4<float>(b, s, hk, d, 32);
    // Storage values, and the same values widened to float.
    xt::xtensor<H, 4> hq_in(fq.shape()), hk_in(fk.shape());
    std::transform(fq.begin(), fq.end(), hq_in.begin(), [](float v) { return H(v); });
    std::transform(fk.begin(), fk.end(), hk_in.begin(), [](float v) { return H(v); });
    xt::xtensor<float, 4> wq(fq.shape()), wk(fk.shape());
    std::transform(hq_in.begin(), hq_in.end(), wq.begin(), [](H v) { return static_cast<float>(v); });
    std::transform(hk_in.begin(), hk_in.end(), wk.begin(), [](H v) { return static_cast<float>(v); });
    const auto freqs = precompute_freqs_cis(d, start + s);
    for (auto layout : {pair_layout::interleaved, pair_layout::half_split}) {
        const auto [rq, rk] = apply_rotary_emb(wq, wk, freqs, start, layout);  // float result
        const auto [q, k] = apply_rotary_emb(hq_in, hk_in, freqs, start, layout);
        static_assert(std::is_same_v<typename std::decay_t<decltype(q)>::value_type, H>);
        auto within_rounding = [&](const auto& got, const auto& expected) {
            auto g = got.begin();
            for (auto e = expected.begin(); e != expected.end(); ++e, ++g) {
                const double want = *e;
                const double have = static_cast<float>(*g);
                if (std::abs(have - want) > relative_rounding * std::abs(want) + 1e-30) return false;
                // ... and it is exactly the storage rounding of the float result.
                if (static_cast<float>(*g) != static_cast<float>(H(static_cast<float>(want)))) return false;
            }
            return true;
        };
        EXPECT_TRUE(within_rounding(q, rq)) << realify::rope::to_string(layout);
        EXPECT_TRUE(within_rounding(k, rk)) << realify::rope::to_string(layout);
        // In place on 16-bit storage too.
        xt::xtensor<H, 4> iq = hq_in, ik = hk_in;
        apply_rotary_emb(iq, ik, freqs, start, iq, ik, layout);
        EXPECT_TRUE(within_rounding(iq, rq));
        EXPECT_TRUE(within_rounding(ik, rk));
    }
}

TEST(RopeSixteenBit, HalfIsTheFloatResultRounded) { check_sixteen_bit<Eigen::half>(std::ldexp(1.0, -11)); }
TEST(RopeSixteenBit, BFloat16IsTheFloatResultRounded) { check_sixteen_bit<Eigen::bfloat16>(std::ldexp(1.0, -8)); }

// ------------------------------------------- SIMD levels vs scalar kernel
// head_dim 2 and 6: narrower than a vector (flat-stream walk); 16 and 48:
// whole vectors per head (48 = one register-blocked column block of 4
// AVX2 vectors + 2 single ones); 130: not a multiple of any width.

/// Runs the portable scalar kernel: the reference for the SIMD kernels.
template <class T>
std::pair<xt::xtensor<T, 4>, xt::xtensor<T, 4>> scalar_rope(const xt::xtensor<T, 4>& xq, const xt::xtensor<T, 4>& xk,
                                                           const xt::xtensor<std::complex<T>, 2>& freqs,
                                                           std::size_t start, pair_layout layout) {
    xt::xtensor<T, 4> oq(xq.shape()), ok(xk.shape());
    realify::rope::detail::rope_call<T> call;
    call.xq = xq.data();
    call.xk = xk.data();
    call.out_q = oq.data();
    call.out_k = ok.data();
    call.freqs = realify::detail::as_real_pointer(freqs.data());
    call.batch = xq.shape()[0];
    call.seq = xq.shape()[1];
    call.q_heads = xq.shape()[2];
    call.k_heads = xk.shape()[2];
    call.head_dim = xq.shape()[3];
    call.start_pos = start;
    call.layout = layout;
    realify::rope::detail::rope_scalar(call.packed());
    return {oq, ok};
}

/// Restores the streaming threshold on scope exit.
struct threshold_guard {
    std::size_t saved = realify::simd::streaming_threshold();
    ~threshold_guard() { realify::simd::set_streaming_threshold(saved); }
};

template <class T>
void check_levels_against_scalar() {
    const double tol = std::is_same_v<T, float> ? 4e-6 : 1e-14;  // a few ulps of |x| ≤ ~5
    threshold_guard guard;
    std::vector<realify::simd::arch> levels;
    for (auto a : {realify::simd::arch::sse2, realify::simd::arch::avx2, realify::simd::arch::avx512})
        if (realify::simd::is_supported(a)) levels.push_back(a);
    ASSERT_FALSE(levels.empty());
    unsigned seed = 100;
    for (std::size_t d : {2u, 6u, 16u, 48u, 130u})
        for (std::size_t s : {1u, 3u, 17u})
            for (auto layout : {pair_layout::interleaved, pair_layout::half_split}) {
                const std::size_t b = 2, hq = 3, hk = 1, start = 5;
                const auto xq = random4<T>(b, s, hq, d, ++seed);
                const auto xk = random4<T>(b, s, hk, d, ++seed);
                const auto freqs = precompute_freqs_cis<T>(d, start + s, 10000.0);
                const auto [sq, sk] = scalar_rope(xq, xk, freqs, start, layout);
                EXPECT_LE(max_abs_diff(sq, complex_reference(xq, freqs, start, layout)), tol);
                for (auto level : levels) {
                    realify::simd::scoped_arch forced(level);
                    const std::string where = std::string(realify::simd::arch_name(level)) + " d=" +
                                              std::to_string(d) + " s=" + std::to_string(s) + " " +
                                              realify::rope::to_string(layout);
                    for (std::size_t threshold : {std::numeric_limits<std::size_t>::max(), std::size_t{0}}) {
                        realify::simd::set_streaming_threshold(threshold);  // 0: streaming stores
                        const auto [q, k] = apply_rotary_emb(xq, xk, freqs, start, layout);
                        EXPECT_LE(max_abs_diff(q, sq), tol) << where;
                        EXPECT_LE(max_abs_diff(k, sk), tol) << where;
                        // Misaligned buffers (one element off) take the
                        // ordinary-store fallback of the streaming path.
                        std::vector<T> q_mem(xq.size() + 1), k_mem(xk.size() + 1);
                        auto oq = xt::adapt(q_mem.data() + 1, xq.size(), xt::no_ownership(), xq.shape());
                        auto ok = xt::adapt(k_mem.data() + 1, xk.size(), xt::no_ownership(), xk.shape());
                        apply_rotary_emb(xq, xk, freqs, start, oq, ok, layout);
                        EXPECT_LE(max_abs_diff(oq, sq), tol) << where << " misaligned";
                        EXPECT_LE(max_abs_diff(ok, sk), tol) << where << " misaligned";
                    }
                    xt::xtensor<T, 4> iq = xq, ik = xk;
                    apply_rotary_emb(iq, ik, freqs, start, iq, ik, layout);
                    EXPECT_LE(max_abs_diff(iq, sq), tol) << where << " in place";
                    EXPECT_LE(max_abs_diff(ik, sk), tol) << where << " in place";
                }
            }
}

TEST(RopeSimd, EveryLevelMatchesScalarFloat) { check_levels_against_scalar<float>(); }
TEST(RopeSimd, EveryLevelMatchesScalarDouble) { check_levels_against_scalar<double>(); }

TEST(RopeSimd, ActiveArchIsReported) {
    const auto name = realify::rope::active_arch();
    EXPECT_TRUE(name == "sse2" || name == "avx2" || name == "avx512") << name;
}

TEST(RopeSimd, LargeCallsWalkHeadByHead) {
    // Above the kernels' register-blocking limit (256 KiB of input) with
    // ordinary stores: the head-by-head walk, in place and out of place.
    threshold_guard guard;
    realify::simd::set_streaming_threshold(std::numeric_limits<std::size_t>::max());
    const auto xq = random4<float>(1, 600, 4, 64, 61);
    const auto xk = random4<float>(1, 600, 1, 64, 62);
    const auto freqs = precompute_freqs_cis(64, 700);
    const auto [sq, sk] = scalar_rope(xq, xk, freqs, 100, pair_layout::interleaved);
    const auto [q, k] = apply_rotary_emb(xq, xk, freqs, 100);
    EXPECT_LE(max_abs_diff(q, sq), 4e-6);
    EXPECT_LE(max_abs_diff(k, sk), 4e-6);
    xt::xtensor<float, 4> iq = xq, ik = xk;
    apply_rotary_emb(iq, ik, freqs, 100, iq, ik);
    EXPECT_EQ(iq, q);
    EXPECT_EQ(ik, k);
}

TEST(RopeSimd, LargeHeadDimUsesHeapPatterns) {
    // head_dim 1100 exceeds the kernels' stack pattern buffer.
    const std::size_t d = 1100;
    const auto xq = random4<float>(1, 2, 2, d, 41);
    const auto xk = random4<float>(1, 2, 1, d, 42);
    const auto freqs = precompute_freqs_cis(d, 2);
    for (auto layout : {pair_layout::interleaved, pair_layout::half_split}) {
        const auto [q, k] = apply_rotary_emb(xq, xk, freqs, 0, layout);
        const auto [sq, sk] = scalar_rope(xq, xk, freqs, 0, layout);
        EXPECT_LE(max_abs_diff(q, sq), 4e-6);
        EXPECT_LE(max_abs_diff(k, sk), 4e-6);
    }
}

}  // namespace
