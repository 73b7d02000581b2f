// The eager ops a Llama decoder layer needs besides the norms and the
// elementwise math: scaled_dot_product_attention (fused, online softmax),
// linear, rope::apply_rotary_emb on one tensor, PyTorch's creation ops
// (arange, full, zeros, ones, empty, empty_like), triu / tril, hstack and
// where with numbers — each against a double-precision reference (SDPA: the
// materialised softmax(q·kᵀ·scale + mask)·v), on ordinary, broadcast,
// strided, offset and reversed operands and out= buffers, special values,
// every instruction set, and errors naming the op and the shapes. Meta's
// causal mask is built as PyTorch writes it.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xcomplex.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "realify/eager.hpp"
#include "realify/rope.hpp"
#include "realify/simd/arch.hpp"

#include "../support/arch_levels.hpp"
#include "../support/error_message.hpp"
#include "../support/strided_operand.hpp"

// The counter of large allocations test_linalg.cpp's operator new keeps (the
// same inline definition: ../support/large_allocations.hpp replaces operator
// new in that unit only).
namespace realify_test {
inline std::atomic<std::size_t> large_allocations{0};
}  // namespace realify_test

namespace {

using realify::testing::memory_layout;
using realify::testing::strided_operand;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();

template <class T>
xt::xarray<T> random_tensor(std::vector<std::size_t> shape, std::mt19937_64& rng, double scale = 1) {
    std::normal_distribution<double> normal(0, scale);
    xt::xarray<T> r = xt::xarray<T>::from_shape(shape);
    for (auto& x : r) x = static_cast<T>(normal(rng));
    return r;
}

using realify::testing::error_message;

/// |got − want| ≤ tol·(1 + |want|) everywhere, NaN exactly where want is NaN.
template <class G, class W>
::testing::AssertionResult close(const G& got, const W& want, double tol) {
    if (!std::equal(got.shape().begin(), got.shape().end(), want.shape().begin(), want.shape().end()))
        return ::testing::AssertionFailure() << "shapes differ";
    const xt::xarray<double> g = xt::cast<double>(got), w = xt::cast<double>(want);
    for (std::size_t i = 0; i < g.size(); ++i) {
        const double a = g.flat(i), b = w.flat(i);
        if (std::isnan(b) != std::isnan(a)) return ::testing::AssertionFailure() << "element " << i << ": " << a << " vs " << b;
        if (std::isnan(b)) continue;
        if (std::isinf(b) ? a != b : std::abs(a - b) > tol * (1 + std::abs(b)))
            return ::testing::AssertionFailure() << "element " << i << ": " << a << " vs " << b << " (tol " << tol << ")";
    }
    return ::testing::AssertionSuccess();
}

// ---- scaled_dot_product_attention -------------------------------------------------------------

/// softmax(q·kᵀ·scale + mask)·v in double, materialised, on 4-D operands
/// (B, H, ·, ·) — k and v of Hk heads, q head h reading h / (H / Hk) — and a
/// mask broadcast to (B, H, L, S): bool (false → −inf) or additive.
struct attention_case {
    xt::xarray<double> q, k, v;
    std::optional<xt::xarray<double>> additive;
    std::optional<xt::xarray<bool>> boolean;
    bool causal = false;
    std::optional<double> scale;
};
xt::xarray<double> reference_attention(const attention_case& c) {
    const std::size_t B = c.q.shape()[0], H = c.q.shape()[1], L = c.q.shape()[2], E = c.q.shape()[3];
    const std::size_t Hk = c.k.shape()[1], S = c.k.shape()[2], Ev = c.v.shape()[3];
    const double scale = c.scale ? *c.scale : 1 / std::sqrt(double(E));
    xt::xarray<double> out = xt::zeros<double>({B, H, L, Ev});
    std::vector<double> s(S);
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t i = 0; i < L; ++i) {
                const std::size_t kh = h / (H / Hk);
                double m = -inf;
                bool nan = false;
                for (std::size_t j = 0; j < S; ++j) {
                    double d = 0;
                    for (std::size_t e = 0; e < E; ++e) d += c.q(b, h, i, e) * c.k(b, kh, j, e);
                    d *= scale;
                    if (c.additive) d += (*c.additive)(b, h, i, j);
                    if (c.boolean && !(*c.boolean)(b, h, i, j)) d = -inf;
                    if (c.causal && j > i) d = -inf;
                    s[j] = d;
                    nan = nan || std::isnan(d);
                    m = std::max(m, d);
                }
                double sum = 0;
                for (double& x : s) sum += (x = std::exp(x - m));
                for (std::size_t e = 0; e < Ev; ++e) {
                    double acc = 0;
                    for (std::size_t j = 0; j < S; ++j) acc += s[j] / sum * c.v(b, kh, j, e);
                    out(b, h, i, e) = nan ? nan_value : acc;
                }
            }
    return out;
}

/// The tolerance of the online softmax in T against the double reference
/// (docs/numerics.md): a few units of T's rounding per term of the sums.
template <class T>
double attention_tolerance(std::size_t keys, std::size_t dim) {
    return 4 * std::numeric_limits<T>::epsilon() * std::sqrt(double(keys + dim)) * 4;
}

template <class T>
void check_attention_shapes() {
    std::mt19937_64 rng(11);
    struct dims4 {
        std::size_t B, H, Hk, L, S, E, Ev;
    };
    // odd sizes, several key blocks (S > 64), several pieces (H·L > 64), decoding (L = 1, 2: dot form)
    for (const dims4 d : {dims4{1, 1, 1, 1, 1, 1, 1}, dims4{2, 3, 3, 5, 7, 9, 6}, dims4{1, 2, 2, 70, 130, 16, 16},
                          dims4{1, 4, 4, 1, 200, 64, 64}, dims4{2, 2, 2, 2, 65, 33, 17}, dims4{1, 8, 2, 3, 40, 8, 8},
                          dims4{1, 8, 2, 1, 100, 64, 32}, dims4{1, 1, 1, 129, 129, 5, 3}, dims4{1, 2, 2, 40, 20, 16, 8}}) {
        for (bool causal : {false, true}) {
            attention_case c;
            c.q = random_tensor<double>({d.B, d.H, d.L, d.E}, rng);
            c.k = random_tensor<double>({d.B, d.Hk, d.S, d.E}, rng);
            c.v = random_tensor<double>({d.B, d.Hk, d.S, d.Ev}, rng);
            c.causal = causal;
            const xt::xarray<T> q = xt::cast<T>(c.q), k = xt::cast<T>(c.k), v = xt::cast<T>(c.v);
            c.q = xt::cast<double>(q);
            c.k = xt::cast<double>(k);
            c.v = xt::cast<double>(v);
            const auto want = reference_attention(c);
            const double tol = attention_tolerance<T>(d.S, d.E);
            for (auto level : realify::test::supported_levels()) {
                realify::simd::scoped_arch forced(level);
                const auto got = realify::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, causal, std::nullopt,
                                                                       d.H != d.Hk);
                EXPECT_TRUE(close(got, want, tol)) << realify::simd::arch_name(level) << " L " << d.L << " S " << d.S
                                                   << " E " << d.E << " H " << d.H << "/" << d.Hk << " causal " << causal;
            }
        }
    }
}
TEST(Attention, MatchesTheMaterialisedFormulaFloat) { check_attention_shapes<float>(); }
TEST(Attention, MatchesTheMaterialisedFormulaDouble) { check_attention_shapes<double>(); }

TEST(Attention, MasksBroadcastAndScale) {
    std::mt19937_64 rng(12);
    const std::size_t B = 2, H = 3, L = 6, S = 70, E = 8;
    attention_case c;
    c.q = xt::cast<double>(xt::xarray<float>(random_tensor<float>({B, H, L, E}, rng)));
    c.k = xt::cast<double>(xt::xarray<float>(random_tensor<float>({B, H, S, E}, rng)));
    c.v = xt::cast<double>(xt::xarray<float>(random_tensor<float>({B, H, S, E}, rng)));
    const xt::xarray<float> q = xt::cast<float>(c.q), k = xt::cast<float>(c.k), v = xt::cast<float>(c.v);
    const double tol = attention_tolerance<float>(S, E);
    // a bool mask of (L, S) for every batch and head, one row taking no key (NaN, as the formula)
    xt::xarray<bool> keep = xt::xarray<bool>::from_shape({L, S});
    std::bernoulli_distribution coin(0.7);
    for (auto& x : keep) x = coin(rng);
    xt::view(keep, 2, xt::all()) = false;
    c.boolean = xt::xarray<bool>(xt::broadcast(keep, {B, H, L, S}));
    auto got = realify::scaled_dot_product_attention(q, k, v, keep);
    EXPECT_TRUE(close(got, reference_attention(c), tol));
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h) EXPECT_TRUE(std::isnan(got(b, h, 2, 0)));
    // an additive mask of (B, 1, L, S) with −inf entries, and a scale
    c.boolean.reset();
    xt::xarray<float> bias = random_tensor<float>({B, 1, L, S}, rng);
    for (std::size_t j = 0; j < S; j += 3) bias(0, 0, 1, j) = -std::numeric_limits<float>::infinity();
    c.additive = xt::xarray<double>(xt::broadcast(xt::cast<double>(bias), {B, H, L, S}));
    c.scale = 0.3;
    EXPECT_TRUE(close(realify::scaled_dot_product_attention(q, k, v, bias, 0.0, false, 0.3), reference_attention(c), tol));
    // a 1-D mask (S) and leading dims of q broadcast against k and v of one batch
    c.scale.reset();
    xt::xarray<float> row = random_tensor<float>({S}, rng);
    c.additive = xt::xarray<double>(xt::broadcast(xt::cast<double>(row), {B, H, L, S}));
    const xt::xarray<float> k1 = xt::view(k, xt::range(0, 1)), v1 = xt::view(v, xt::range(0, 1));
    c.k = xt::xarray<double>(xt::broadcast(xt::view(c.k, xt::range(0, 1)), {B, H, S, E}));
    c.v = xt::xarray<double>(xt::broadcast(xt::view(c.v, xt::range(0, 1)), {B, H, S, E}));
    EXPECT_TRUE(close(realify::scaled_dot_product_attention(q, k1, v1, row), reference_attention(c), tol));
}

TEST(Attention, StridedOperandsAndBuffersAreReadInPlace) {
    std::mt19937_64 rng(13);
    const std::size_t B = 2, L = 9, S = 9, H = 4, E = 16;
    // q, k, v as Llama holds them, (B, S, H, E), seen as (B, H, S, E) without a copy
    const xt::xtensor<float, 4> qs = random_tensor<float>({B, L, H, E}, rng), ks = random_tensor<float>({B, S, H, E}, rng),
                                vs = random_tensor<float>({B, S, H, E}, rng);
    auto q = xt::transpose(qs, {0, 2, 1, 3});
    auto k = xt::transpose(ks, {0, 2, 1, 3});
    auto v = xt::transpose(vs, {0, 2, 1, 3});
    attention_case c;
    c.q = xt::cast<double>(q);
    c.k = xt::cast<double>(k);
    c.v = xt::cast<double>(v);
    c.causal = true;
    const auto want = reference_attention(c);
    const double tol = attention_tolerance<float>(S, E);
    EXPECT_TRUE(close(realify::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, true), want, tol));
    // the result into (B, S, H, E) memory seen as (B, H, S, E): Llama's next layout, no copy after
    xt::xtensor<float, 4> o = xt::zeros<float>({B, L, H, E});
    auto ot = xt::transpose(o, {0, 2, 1, 3});
    realify::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, true, std::nullopt, false, realify::out(ot));
    EXPECT_TRUE(close(xt::transpose(o, {0, 2, 1, 3}), want, tol));
    // stepped and reversed operands, a reversed buffer with an offset
    for (auto layout : {memory_layout::stepped, memory_layout::reversed}) {
        strided_operand<float> sq(xt::xarray<float>(q), layout, rng), sk(xt::xarray<float>(k), layout, rng),
            sv(xt::xarray<float>(v), layout, rng), so(xt::zeros<float>({B, H, L, E}), layout, rng);
        auto view = so.view();
        realify::scaled_dot_product_attention(sq.view(), sk.view(), sv.view(), std::nullopt, 0.0, true, std::nullopt, false,
                                              realify::out(view));
        EXPECT_TRUE(close(view, want, tol)) << sq.describe();
    }
}

TEST(Attention, GroupedQueryHeadsAndExpandedKeysNeedNoCopy) {
    std::mt19937_64 rng(14);
    const std::size_t B = 1, Hq = 8, Hk = 2, L = 4, S = 33, E = 16;
    const xt::xtensor<float, 4> q = random_tensor<float>({B, Hq, L, E}, rng), k = random_tensor<float>({B, Hk, S, E}, rng),
                                v = random_tensor<float>({B, Hk, S, E}, rng);
    attention_case c;
    c.q = xt::cast<double>(q);
    c.k = xt::cast<double>(k);
    c.v = xt::cast<double>(v);
    const auto want = reference_attention(c);
    const double tol = attention_tolerance<float>(S, E);
    EXPECT_TRUE(close(realify::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, false, std::nullopt, true), want, tol));
    // without enable_gqa: refused, as PyTorch
    try {
        realify::scaled_dot_product_attention(q, k, v);
        ADD_FAILURE() << "no error";
    } catch (const realify::shape_error& e) {
        EXPECT_NE(std::string(e.what()).find("realify::scaled_dot_product_attention: q has 8 heads"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("enable_gqa"), std::string::npos);
    }
    // one kv head expanded over the query heads (stride 0): read in place
    const xt::xtensor<float, 4> k1 = xt::view(k, xt::all(), xt::range(0, 1)), v1 = xt::view(v, xt::all(), xt::range(0, 1));
    const std::vector<std::size_t> shape{B, Hq, S, E};
    const std::vector<std::ptrdiff_t> strides{static_cast<std::ptrdiff_t>(S * E), 0, static_cast<std::ptrdiff_t>(E), 1};
    auto ke = xt::strided_view(k1, std::vector<std::size_t>(shape), std::vector<std::ptrdiff_t>(strides), 0, xt::layout_type::dynamic);
    auto ve = xt::strided_view(v1, std::vector<std::size_t>(shape), std::vector<std::ptrdiff_t>(strides), 0, xt::layout_type::dynamic);
    c.k = xt::cast<double>(ke);
    c.v = xt::cast<double>(ve);
    EXPECT_TRUE(close(realify::scaled_dot_product_attention(q, ke, ve), reference_attention(c), tol));
}

TEST(Attention, SpecialValuesFollowTheFormula) {
    std::mt19937_64 rng(15);
    const std::size_t L = 5, S = 70, E = 8;
    xt::xarray<double> q = random_tensor<double>({1, 1, L, E}, rng), k = random_tensor<double>({1, 1, S, E}, rng),
                       v = random_tensor<double>({1, 1, S, E}, rng);
    q(0, 0, 1, 3) = nan_value;  // row 1: NaN
    k(0, 0, 40, 0) = nan_value;  // every row taking key 40: NaN
    v(0, 0, 3, 2) = inf;         // a huge value: inf · weight in column 2
    attention_case c{q, k, v, std::nullopt, std::nullopt, true, std::nullopt};
    const auto want = reference_attention(c);
    const auto got = realify::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, true);
    for (std::size_t i = 0; i < L; ++i) EXPECT_EQ(std::isnan(got(0, 0, i, 0)), std::isnan(want(0, 0, i, 0))) << i;
    EXPECT_TRUE(std::isnan(got(0, 0, 1, 0)));
    EXPECT_TRUE(std::isinf(got(0, 0, 4, 2)));
    // without the causal limit every row reads key 40
    c.causal = false;
    EXPECT_TRUE(close(realify::scaled_dot_product_attention(q, k, v), reference_attention(c), 1e-12));
    // a mask of −inf everywhere: NaN rows (0/0), as torch's materialised formula
    const xt::xarray<double> none = xt::ones<double>({L, S}) * -inf;
    const auto masked = realify::scaled_dot_product_attention(q, k, v, none);
    for (double x : masked) EXPECT_TRUE(std::isnan(x));
}

TEST(Attention, EmptyAndDegenerateShapes) {
    // S = 0: an empty sum, zeros; L = 0: an empty result
    const xt::xtensor<float, 3> q = xt::ones<float>({2, 3, 4}), k0 = xt::ones<float>({2, 0, 4}), v0 = xt::ones<float>({2, 0, 5});
    const auto z = realify::scaled_dot_product_attention(q, k0, v0);
    EXPECT_EQ(z.shape()[2], 5u);
    for (float x : z) EXPECT_EQ(x, 0.0f);
    const xt::xtensor<float, 3> qe = xt::ones<float>({2, 0, 4}), k = xt::ones<float>({2, 3, 4}), v = xt::ones<float>({2, 3, 5});
    EXPECT_EQ(realify::scaled_dot_product_attention(qe, k, v).size(), 0u);
    // rank 2 operands (L, E): one head
    const xt::xtensor<double, 2> q2 = {{1, 0}, {0, 1}}, k2 = {{1, 0}, {0, 1}, {1, 1}}, v2 = {{1, 2}, {3, 4}, {5, 6}};
    attention_case c;
    c.q = xt::reshape_view(xt::xarray<double>(q2), {1, 1, 2, 2});
    c.k = xt::reshape_view(xt::xarray<double>(k2), {1, 1, 3, 2});
    c.v = xt::reshape_view(xt::xarray<double>(v2), {1, 1, 3, 2});
    const xt::xarray<double> want = xt::reshape_view(reference_attention(c), {2, 2});
    EXPECT_TRUE(close(realify::scaled_dot_product_attention(q2, k2, v2), want, 1e-14));
}

TEST(Attention, ErrorsNameTheOpAndTheShapes) {
    const xt::xtensor<float, 4> q = xt::ones<float>({1, 2, 3, 4}), k = xt::ones<float>({1, 2, 5, 4}), v = xt::ones<float>({1, 2, 5, 6});
    const xt::xtensor<float, 4> k_bad = xt::ones<float>({1, 2, 5, 3});
    EXPECT_NE(error_message([&] { realify::scaled_dot_product_attention(q, k_bad, v); })
                  .find("realify::scaled_dot_product_attention: q and k must have the same last dim E (q (1, 2, 3, 4), k (1, 2, 5, 3)"),
              std::string::npos);
    EXPECT_NE(error_message([&] { realify::scaled_dot_product_attention(q, k, v, std::nullopt, 0.1); }).find("dropout_p must be 0"),
              std::string::npos);
    const xt::xtensor<bool, 2> mask = xt::ones<bool>({3, 5});
    EXPECT_NE(error_message([&] { realify::scaled_dot_product_attention(q, k, v, mask, 0.0, true); })
                  .find("an attn_mask and is_causal = true cannot be given together"),
              std::string::npos);
    const xt::xtensor<bool, 2> wrong = xt::ones<bool>({3, 4});
    EXPECT_NE(error_message([&] { realify::scaled_dot_product_attention(q, k, v, wrong); })
                  .find("attn_mask of shape (3, 4) does not broadcast to (…, L, S) = (1, 2, 3, 5)"),
              std::string::npos);
    const xt::xtensor<double, 4> kd = xt::ones<double>({1, 2, 5, 4});
    EXPECT_NE(error_message([&] { realify::scaled_dot_product_attention(q, kd, v); }).find("q, k and v must have one dtype"),
              std::string::npos);
    xt::xtensor<float, 4> small = xt::zeros<float>({1, 2, 3, 5});
    EXPECT_NE(error_message([&] { realify::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, false, std::nullopt, false, realify::out(small)); })
                  .find("out has shape (1, 2, 3, 5), the result has shape (1, 2, 3, 6)"),
              std::string::npos);
    xt::xtensor<float, 4> alias = q;
    const xt::xtensor<float, 4> v4 = xt::ones<float>({1, 2, 5, 4});
    EXPECT_NE(error_message([&] {
                  realify::scaled_dot_product_attention(alias, k, v4, std::nullopt, 0.0, false, std::nullopt, false,
                                                        realify::out(alias));
              }).find("out overlaps an operand"),
              std::string::npos);
}

// ---- linear -----------------------------------------------------------------------------------------

template <class T>
xt::xarray<T> reference_linear(const xt::xarray<T>& x, const xt::xarray<T>& w, const std::optional<xt::xarray<T>>& b) {
    std::vector<std::size_t> shape(x.shape().begin(), x.shape().end());
    const std::size_t k = shape.back(), n = w.shape()[0];
    std::size_t m = 1;
    for (std::size_t a = 0; a + 1 < shape.size(); ++a) m *= shape[a];
    shape.back() = n;
    xt::xarray<T> out = xt::xarray<T>::from_shape(shape);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            T acc = b ? (*b)(j) : T(0);
            for (std::size_t e = 0; e < k; ++e) acc += x.flat(i * k + e) * w(j, e);
            out.flat(i * n + j) = acc;
        }
    return out;
}

TEST(Linear, MatchesXTimesWTransposedPlusB) {
    std::mt19937_64 rng(21);
    for (const auto& [lead, k, n] : {std::tuple{std::vector<std::size_t>{2, 3}, 4u, 5u}, std::tuple{std::vector<std::size_t>{7}, 33u, 17u},
                                     std::tuple{std::vector<std::size_t>{}, 8u, 3u}, std::tuple{std::vector<std::size_t>{2, 1, 3}, 0u, 4u}}) {
        std::vector<std::size_t> xs = lead;
        xs.push_back(k);
        const xt::xarray<double> x = random_tensor<double>(xs, rng), w = random_tensor<double>({n, k}, rng),
                                 b = random_tensor<double>({n}, rng);
        EXPECT_TRUE(close(realify::linear(x, w), reference_linear<double>(x, w, std::nullopt), 1e-13));
        EXPECT_TRUE(close(realify::linear(x, w, b), reference_linear<double>(x, w, b), 1e-13));
        const xt::xarray<float> xf = xt::cast<float>(x), wf = xt::cast<float>(w), bf = xt::cast<float>(b);
        EXPECT_TRUE(close(realify::linear(xf, wf, bf), reference_linear<double>(xt::cast<double>(xf), xt::cast<double>(wf),
                                                                                xt::xarray<double>(xt::cast<double>(bf))),
                          1e-5 * std::sqrt(double(k + 1))));
    }
    // complex: x · wᵀ (not the conjugate), as F.linear
    using cd = std::complex<double>;
    const xt::xarray<cd> x = {{cd(1, 2), cd(0, 1)}, {cd(-1, 0), cd(2, -1)}}, w = {{cd(0, 1), cd(1, 1)}, {cd(2, 0), cd(0, -3)}, {cd(1, 0), cd(1, 0)}};
    const xt::xarray<cd> b = {cd(1, 0), cd(0, 1), cd(-1, -1)};
    EXPECT_TRUE(close(xt::real(realify::linear(x, w, b)), xt::real(reference_linear<cd>(x, w, b)), 1e-14));
    EXPECT_TRUE(close(xt::imag(realify::linear(x, w, b)), xt::imag(reference_linear<cd>(x, w, b)), 1e-14));
}

TEST(Linear, StridedOperandsAndBuffers) {
    std::mt19937_64 rng(22);
    const xt::xarray<double> x = random_tensor<double>({3, 4, 6}, rng), w = random_tensor<double>({5, 6}, rng),
                             b = random_tensor<double>({5}, rng);
    const auto want = reference_linear<double>(x, w, b);
    // the weight held transposed, (in, out): read through its strides
    const xt::xtensor<double, 2> wt = xt::transpose(w);
    EXPECT_TRUE(close(realify::linear(x, xt::transpose(wt), b), want, 1e-13));
    for (auto layout : {memory_layout::transposed, memory_layout::stepped, memory_layout::reversed}) {
        strided_operand<double> sx(x, layout, rng), sw(w, layout, rng), sb(b, layout, rng),
            so(xt::zeros<double>({3, 4, 5}), layout, rng);
        auto out = so.view();
        realify::linear(sx.view(), sw.view(), sb.view(), realify::out(out));
        EXPECT_TRUE(close(out, want, 1e-13)) << sx.describe();
    }
    // in place over x: the product is complete before out is written
    xt::xtensor<double, 2> sq = random_tensor<double>({4, 4}, rng);
    const xt::xtensor<double, 2> w4 = random_tensor<double>({4, 4}, rng);
    const auto want4 = reference_linear<double>(sq, w4, std::nullopt);
    realify::linear(sq, w4, std::nullopt, realify::out(sq));
    EXPECT_TRUE(close(sq, want4, 1e-13));
}

TEST(Linear, TheWeightIsNeverCopied) {
    std::mt19937_64 rng(23);
    // a (512, 256) weight is 512 KiB; x and out packed: the product allocates nothing large
    const xt::xtensor<float, 2> w = random_tensor<float>({512, 256}, rng);
    const xt::xtensor<float, 2> wt_memory = xt::transpose(w);  // (in, out) memory, read as w through its strides
    const xt::xtensor<float, 3> x = random_tensor<float>({1, 4, 256}, rng);
    const xt::xtensor<float, 1> b = random_tensor<float>({512}, rng);
    xt::xtensor<float, 3> out = xt::zeros<float>({1, 4, 512});
    realify::linear(x, w, b, realify::out(out));  // the process's one-time choice of library (it times products) first
    const std::size_t before = realify_test::large_allocations.load();
    realify::linear(x, w, b, realify::out(out));
    realify::linear(x, xt::transpose(wt_memory), b, realify::out(out));
    EXPECT_EQ(realify_test::large_allocations.load(), before);
}

TEST(Linear, ErrorsNameTheOpAndTheShapes) {
    const xt::xtensor<float, 2> x = xt::ones<float>({2, 3}), w = xt::ones<float>({4, 5});
    const xt::xtensor<float, 1> b = xt::ones<float>({3});
    try {
        realify::linear(x, w);
        ADD_FAILURE();
    } catch (const realify::shape_error& e) {
        EXPECT_NE(std::string(e.what()).find("realify::linear: x's last dim and w's dim 1 (in_features) differ (x (2, 3), w (4, 5))"),
                  std::string::npos) << e.what();
    }
    const xt::xtensor<float, 2> w3 = xt::ones<float>({4, 3});
    EXPECT_THROW(realify::linear(x, w3, b), realify::shape_error);
    const xt::xtensor<float, 1> w1 = xt::ones<float>({3});
    EXPECT_THROW(realify::linear(x, w1), realify::shape_error);
}

// ---- rope on one tensor ------------------------------------------------------------------------------

TEST(RopeOneTensor, IsThePairFormsResultOnEveryLayout) {
    std::mt19937_64 rng(31);
    using realify::rope::pair_layout;
    for (auto layout : {pair_layout::interleaved, pair_layout::half_split}) {
        for (std::size_t d : {2u, 6u, 16u, 64u, 130u}) {
            const std::size_t B = 2, S = 5, Hq = 4, Hk = 2, start = 3;
            const xt::xtensor<float, 4> xq = random_tensor<float>({B, S, Hq, d}, rng), xk = random_tensor<float>({B, S, Hk, d}, rng);
            const auto freqs = realify::rope::precompute_freqs_cis<float>(d, start + S, 10000.0);
            const auto [pq, pk] = realify::rope::apply_rotary_emb(xq, xk, freqs, start, layout);
            EXPECT_EQ(realify::rope::apply_rotary_emb(xq, freqs, start, layout), pq);
            EXPECT_EQ(realify::rope::apply_rotary_emb(xk, freqs, start, layout), pk);
            // (B, H, S, D) memory seen as (B, S, H, D), into a transposed buffer, without copies
            const xt::xtensor<float, 4> heads_first = xt::transpose(xq, {0, 2, 1, 3});
            xt::xtensor<float, 4> o = xt::zeros<float>({B, Hq, S, d});
            auto ov = xt::transpose(o, {0, 2, 1, 3});
            realify::rope::apply_rotary_emb(xt::transpose(heads_first, {0, 2, 1, 3}), freqs, start, ov, layout);
            EXPECT_EQ((xt::xtensor<float, 4>(ov)), pq);
            // stepped and reversed operands and buffers (a reversed head_dim axis is packed first)
            for (auto memory : {memory_layout::stepped, memory_layout::reversed}) {
                strided_operand<float> sx(xt::xarray<float>(xq), memory, rng), so(xt::zeros<float>({B, S, Hq, d}), memory, rng);
                auto out = so.view();
                realify::rope::apply_rotary_emb(sx.view(), freqs, start, out, layout);
                EXPECT_EQ((xt::xtensor<float, 4>(out)), pq) << sx.describe();
            }
            // in place, and into a KV cache's slot of batch 2
            xt::xtensor<float, 4> in_place = xq;
            realify::rope::apply_rotary_emb(in_place, freqs, start, in_place, layout);
            EXPECT_EQ(in_place, pq);
            xt::xtensor<float, 4> cache = xt::zeros<float>({B, std::size_t{16}, Hq, d});
            auto slot = xt::view(cache, xt::all(), xt::range(start, start + S), xt::all(), xt::all());
            realify::rope::apply_rotary_emb(xq, freqs, start, slot, layout);
            EXPECT_EQ((xt::xtensor<float, 4>(slot)), pq);
            EXPECT_EQ(cache(0, 0, 0, 0), 0.0f);
        }
    }
}

TEST(RopeOneTensor, ChecksAsThePairForm) {
    const xt::xtensor<double, 4> x = xt::ones<double>({1, 4, 2, 8});
    const auto freqs = realify::rope::precompute_freqs_cis<double>(8, 5, 10000.0);
    EXPECT_THROW(realify::rope::apply_rotary_emb(x, freqs, 2), realify::shape_error);  // rows 2 … 5 of 5
    EXPECT_THROW(realify::rope::apply_rotary_emb(x, freqs, -1), realify::shape_error);
    const xt::xtensor<double, 4> odd = xt::ones<double>({1, 4, 2, 7});
    EXPECT_THROW(realify::rope::apply_rotary_emb(odd, freqs, 0), realify::shape_error);
    xt::xtensor<double, 4> wrong = xt::zeros<double>({1, 4, 3, 8});
    EXPECT_THROW(realify::rope::apply_rotary_emb(x, freqs, 0, wrong), realify::shape_error);
    try {
        realify::rope::apply_rotary_emb(x, freqs, 3);
        ADD_FAILURE();
    } catch (const realify::shape_error& e) {
        EXPECT_NE(std::string(e.what()).find("realify::rope::apply_rotary_emb: freqs_cis has fewer rows than start_pos + seq"),
                  std::string::npos) << e.what();
    }
}

// ---- creation ops ------------------------------------------------------------------------------------

TEST(Creation, ArangeFollowsPyTorchsDtypesAndLengths) {
    const auto ints = realify::arange(5);
    static_assert(std::is_same_v<std::decay_t<decltype(ints)>::value_type, std::int64_t>);
    EXPECT_EQ(ints, (xt::xtensor<std::int64_t, 1>{0, 1, 2, 3, 4}));
    EXPECT_EQ(realify::arange(5, 0, -2), (xt::xtensor<std::int64_t, 1>{5, 3, 1}));
    EXPECT_EQ(realify::arange(-3, 3, 4), (xt::xtensor<std::int64_t, 1>{-3, 1}));
    const auto halves = realify::arange(1, 2.5, 0.5);  // torch.arange(1, 2.5, 0.5): float, [1, 1.5, 2]
    static_assert(std::is_same_v<std::decay_t<decltype(halves)>::value_type, float>);
    EXPECT_EQ(halves, (xt::xtensor<float, 1>{1, 1.5, 2}));
    EXPECT_EQ(realify::arange(0.0, 1.0, 0.1).size(), 10u);  // ceil(1 / 0.1) = 10
    EXPECT_EQ(realify::arange(0.0, 1.0 + 1e-9, 0.25).size(), 5u);
    EXPECT_EQ(realify::arange(3.0, 3.0).size(), 0u);
    const auto d = realify::arange<double>(0, 1, 0.3);
    static_assert(std::is_same_v<std::decay_t<decltype(d)>::value_type, double>);
    EXPECT_DOUBLE_EQ(d(3), 0.9);
    // into a reversed buffer
    xt::xtensor<float, 1> buffer = xt::zeros<float>({4});
    auto reversed = xt::view(buffer, xt::range(3, -5, -1));
    realify::arange(4, realify::out(reversed));
    EXPECT_EQ(buffer, (xt::xtensor<float, 1>{3, 2, 1, 0}));
    EXPECT_THROW(realify::arange(5, realify::out(buffer)), realify::shape_error);
    EXPECT_NE(error_message([] { realify::arange(0, 5, 0); }).find("realify::arange: step must be nonzero"), std::string::npos);
    EXPECT_NE(error_message([] { realify::arange(0, 5, -1); }).find("upper bound and larger bound inconsistent with step sign"),
              std::string::npos);
    EXPECT_NE(error_message([] { realify::arange(0.0, inf); }).find("unsupported range"), std::string::npos);
}

TEST(Creation, FullZerosOnesEmpty) {
    const auto f = realify::full({2, 3}, 1.5);
    static_assert(std::is_same_v<std::decay_t<decltype(f)>::value_type, float>);  // the default dtype
    EXPECT_EQ(f, xt::xarray<float>(xt::ones<float>({2, 3}) * 1.5f));
    const auto i = realify::full({2}, 7);
    static_assert(std::is_same_v<std::decay_t<decltype(i)>::value_type, std::int64_t>);
    const auto c = realify::full({2}, std::complex<double>(1, -1));
    static_assert(std::is_same_v<std::decay_t<decltype(c)>::value_type, std::complex<float>>);
    EXPECT_EQ(c(1), std::complex<float>(1, -1));
    EXPECT_EQ(realify::full<double>({1}, 0.1)(0), 0.1);
    EXPECT_EQ(realify::zeros({3}), xt::xarray<float>(xt::zeros<float>({3})));
    EXPECT_EQ(realify::ones<double>({2, 2}), xt::xarray<double>(xt::ones<double>({2, 2})));
    EXPECT_EQ(realify::empty({4, 0, 2}).size(), 0u);
    EXPECT_EQ(realify::empty<double>({3, 2}).shape()[1], 2u);
    EXPECT_EQ(realify::full({}, 2.0).dimension(), 0u);
    // into a transposed buffer; empty leaves it as it is
    xt::xtensor<double, 2> buffer = xt::zeros<double>({3, 2});
    auto t = xt::transpose(buffer);
    realify::full({2, 3}, -inf, realify::out(t));
    for (double x : buffer) EXPECT_EQ(x, -inf);
    realify::empty<double>({2, 3}, realify::out(t));
    EXPECT_EQ(buffer(0, 0), -inf);
    EXPECT_THROW(realify::zeros({3, 3}, realify::out(t)), realify::shape_error);
    try {
        realify::zeros({2, -1});
        ADD_FAILURE();
    } catch (const realify::shape_error& e) {
        EXPECT_NE(std::string(e.what()).find("realify::zeros: trying to create a tensor with negative dimension -1: (2, -1)"),
                  std::string::npos) << e.what();
    }
    const xt::xtensor<std::complex<double>, 3> z = xt::zeros<std::complex<double>>({2, 1, 3});
    const auto e = realify::empty_like(z);
    static_assert(std::is_same_v<std::decay_t<decltype(e)>::value_type, std::complex<double>>);
    EXPECT_EQ(e.shape(), z.shape());
}

template <class V>
xt::xarray<V> reference_triangle(const xt::xarray<V>& a, std::ptrdiff_t diagonal, bool upper) {
    xt::xarray<V> r = a;
    const std::size_t rows = a.shape()[a.dimension() - 2], cols = a.shape()[a.dimension() - 1];
    for (std::size_t f = 0; f < r.size(); ++f) {
        const auto i = static_cast<std::ptrdiff_t>(f / cols % rows), j = static_cast<std::ptrdiff_t>(f % cols);
        if (upper ? j - i < diagonal : j - i > diagonal) r.flat(f) = V(0);
    }
    return r;
}

TEST(Creation, TriuAndTrilOfEveryDiagonal) {
    std::mt19937_64 rng(41);
    for (const auto& shape : {std::vector<std::size_t>{3, 5}, std::vector<std::size_t>{2, 4, 3}, std::vector<std::size_t>{2, 1, 6, 6}}) {
        const xt::xarray<double> a = random_tensor<double>(shape, rng);
        for (std::ptrdiff_t diagonal = -4; diagonal <= 5; ++diagonal) {
            EXPECT_EQ(realify::triu(a, diagonal), reference_triangle(a, diagonal, true));
            EXPECT_EQ(realify::tril(a, diagonal), reference_triangle(a, diagonal, false));
        }
        for (auto layout : {memory_layout::transposed, memory_layout::stepped, memory_layout::reversed}) {
            strided_operand<double> in(a, layout, rng), out(xt::zeros<double>(shape), layout, rng);
            auto o = out.view();
            realify::triu(in.view(), 1, realify::out(o));
            EXPECT_EQ(xt::xarray<double>(o), reference_triangle(a, 1, true)) << in.describe();
            auto i = in.view();
            realify::tril(i, -1, realify::out(i));  // in place
            EXPECT_EQ(xt::xarray<double>(i), reference_triangle(a, -1, false));
        }
    }
    using cf = std::complex<float>;
    const xt::xtensor<cf, 2> z = {{cf(1, 1), cf(2, 2)}, {cf(3, 3), cf(4, 4)}};
    EXPECT_EQ(realify::triu(z), (xt::xtensor<cf, 2>{{cf(1, 1), cf(2, 2)}, {cf(0, 0), cf(4, 4)}}));
    const xt::xarray<bool> b = xt::ones<bool>({2, 2});
    EXPECT_EQ(realify::tril(b), (xt::xarray<bool>{{true, false}, {true, true}}));
    const xt::xtensor<float, 1> row = xt::ones<float>({3});
    EXPECT_THROW(realify::triu(row), realify::shape_error);
}

TEST(Creation, MetasCausalMaskAsPyTorchWritesIt) {
    // mask = torch.full((S, S), float("-inf")); mask = torch.triu(mask, diagonal=1)
    // mask = torch.hstack([torch.zeros((S, start_pos)), mask])
    const std::ptrdiff_t S = 4, start_pos = 3;
    const auto mask = realify::triu(realify::full({S, S}, -inf), 1);
    const auto kv_mask = realify::hstack(std::vector<xt::xarray<float>>{realify::zeros({S, start_pos}), mask});
    ASSERT_EQ(kv_mask.shape()[1], std::size_t(S + start_pos));
    for (std::ptrdiff_t i = 0; i < S; ++i)
        for (std::ptrdiff_t j = 0; j < S + start_pos; ++j)
            EXPECT_EQ(kv_mask(i, j), j > i + start_pos ? -std::numeric_limits<float>::infinity() : 0.0f) << i << ' ' << j;
    // hstack of 1-D tensors is their cat along dim 0
    EXPECT_EQ(realify::hstack(std::vector<xt::xarray<float>>{realify::ones({2}), realify::zeros({1})}),
              (xt::xarray<float>{1, 1, 0}));
    // where with numbers: masked_fill as where(cond, x, -inf), and both numbers
    const xt::xtensor<float, 2> x = {{1, -2}, {3, -4}};
    EXPECT_EQ(realify::where(x > 0.0f, x, -inf), (xt::xtensor<float, 2>{{1, -INFINITY}, {3, -INFINITY}}));
    EXPECT_EQ(realify::where(x > 0.0f, 0.0, x), (xt::xtensor<float, 2>{{0, -2}, {0, -4}}));
    const auto both = realify::where(x > 0.0f, 1.0, 0.0);
    EXPECT_EQ(both, (xt::xtensor<float, 2>{{1, 0}, {1, 0}}));
}

}  // namespace
