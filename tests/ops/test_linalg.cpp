// The matrix products (mm, bmm, matmul, mv, dot, vdot) through the compiled
// GEMM of realify/simd/gemm.hpp: every method (direct, 1m, 4m, 3m and
// automatic) at every instruction set this machine has, against a
// std::complex<long double> reference within each method's error bound
// (docs/numerics.md): random, badly scaled (rows ×1e±20) and special-value
// inputs; shapes 0×k, k = 0, 1×1, odd sizes; strided, reversed, transposed
// and lazy operands; the views conj_view / transpose_view / mH without
// copies; broadcast batches; two real tensors; products cut into tiles and
// the skinny products in every layout; errors; the graph's nodes; the
// library in use (run once per library built in: tests/CMakeLists.txt).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xcomplex.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "realify/eager.hpp"
#include "realify/graph.hpp"
#include "realify/layout.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/gemm.hpp"
#include "realify/simd/gemm_report.hpp"
#include "realify/threads.hpp"

// "no temporaries" tests count large allocations
#include "../support/large_allocations.hpp"
using realify_test::large_allocations;

namespace {

using realify::gemm_method;
using realify::simd::arch;
using ld = long double;
template <class T>
using carray = xt::xarray<std::complex<T>>;

constexpr gemm_method all_methods[] = {gemm_method::direct, gemm_method::m1, gemm_method::m4, gemm_method::m3,
                                       gemm_method::native, gemm_method::automatic};

std::vector<arch> machine_arches() {
    std::vector<arch> result;
    for (arch a : {arch::sse2, arch::avx2, arch::avx512})
        if (realify::simd::is_supported(a)) result.push_back(a);
    return result;
}

template <class T>
carray<T> random_complex(std::vector<std::size_t> shape, std::mt19937_64& rng, double re_scale = 1,
                         double im_scale = 1) {
    std::uniform_real_distribution<double> u(-1, 1);
    carray<T> result = carray<T>::from_shape(shape);
    for (auto& z : result) {
        const double re = u(rng) * re_scale;
        z = {static_cast<T>(re), static_cast<T>(u(rng) * im_scale)};
    }
    return result;
}

template <class T>
xt::xarray<std::complex<T>> result_of(const auto& layout) {
    return realify::to_complex_tensor(layout);
}

// ---- the reference and the bounds ------------------------------------------------------

/// c = op(a)·op(b) in long double, and per entry the sums the error bounds
/// scale: Σ|aᵣ||bᵣ| + |aᵢ||bᵢ| (real part), Σ|aᵣ||bᵢ| + |aᵢ||bᵣ| (imaginary
/// part, 1m / 4m / direct) and Σ(|aᵣ| + |aᵢ|)(|bᵣ| + |bᵢ|) + |aᵣ||bᵣ| + |aᵢ||bᵢ|
/// (imaginary part, 3m). a is m × k, b is k × n (2-D, already transposed and
/// conjugated as the product reads them).
struct reference {
    std::size_t m = 0, n = 0, k = 0;
    std::vector<std::complex<ld>> value;
    std::vector<ld> re_scale, im_scale, im_scale_3m;
};

template <class T>
reference make_reference(const carray<T>& a, const carray<T>& b) {
    reference r;
    r.m = a.shape()[0];
    r.k = a.shape()[1];
    r.n = b.shape()[1];
    r.value.assign(r.m * r.n, {});
    r.re_scale.assign(r.m * r.n, 0);
    r.im_scale.assign(r.m * r.n, 0);
    r.im_scale_3m.assign(r.m * r.n, 0);
    for (std::size_t i = 0; i < r.m; ++i)
        for (std::size_t j = 0; j < r.n; ++j) {
            std::complex<ld> sum = 0;
            ld re = 0, im = 0, im3 = 0;
            for (std::size_t p = 0; p < r.k; ++p) {
                const std::complex<ld> x(a(i, p).real(), a(i, p).imag()), y(b(p, j).real(), b(p, j).imag());
                sum += x * y;
                const ld xr = std::fabs(x.real()), xi = std::fabs(x.imag()), yr = std::fabs(y.real()),
                         yi = std::fabs(y.imag());
                re += xr * yr + xi * yi;
                im += xr * yi + xi * yr;
                im3 += (xr + xi) * (yr + yi) + xr * yr + xi * yi;
            }
            r.value[i * r.n + j] = sum;
            r.re_scale[i * r.n + j] = re;
            r.im_scale[i * r.n + j] = im;
            r.im_scale_3m[i * r.n + j] = im3;
        }
    return r;
}

/// The componentwise bound's factor γ: (2k + 8)·u. 1m sums 2k products, 3m
/// adds four roundings (the two operand sums and T₃ − T₁ − T₂); the order of
/// summation (Eigen's blocking) does not change the bound. The absolute
/// term covers products that underflow.
template <class T>
ld gamma(std::size_t k) {
    return static_cast<ld>(2 * k + 8) * std::numeric_limits<T>::epsilon() / 2;
}

/// Checks got (m × n) against the reference within `method`'s bound.
template <class T>
::testing::AssertionResult within_bound(const carray<T>& got, const reference& r, gemm_method method) {
    if (got.dimension() != 2 || got.shape()[0] != r.m || got.shape()[1] != r.n)
        return ::testing::AssertionFailure() << "shape " << realify::detail::format_sequence(got.shape());
    const ld g = gamma<T>(r.k), tiny = static_cast<ld>(4 * (r.k + 1)) * std::numeric_limits<T>::denorm_min();
    for (std::size_t i = 0; i < r.m; ++i)
        for (std::size_t j = 0; j < r.n; ++j) {
            const std::size_t e = i * r.n + j;
            const std::complex<ld> c = r.value[e];
            const ld re_err = std::fabs(static_cast<ld>(got(i, j).real()) - c.real());
            const ld im_err = std::fabs(static_cast<ld>(got(i, j).imag()) - c.imag());
            const ld im_scale = method == gemm_method::m3 ? r.im_scale_3m[e] : r.im_scale[e];
            if (!(re_err <= g * r.re_scale[e] + tiny) || !(im_err <= g * im_scale + tiny))
                return ::testing::AssertionFailure()
                       << "entry (" << i << ", " << j << ") of " << r.m << "×" << r.k << "×" << r.n << ", method "
                       << realify::to_string(method) << ": got (" << double(got(i, j).real()) << ", "
                       << double(got(i, j).imag()) << "), reference (" << double(c.real()) << ", " << double(c.imag())
                       << "), errors " << double(re_err) << ", " << double(im_err) << " > bounds "
                       << double(g * r.re_scale[e]) << ", " << double(g * im_scale);
        }
    return ::testing::AssertionSuccess();
}

/// Runs `body()` at every instruction set of the machine, with each method.
template <class Body>
void for_each_arch_and_method(const Body& body) {
    for (arch a : machine_arches()) {
        const realify::simd::scoped_arch forced(a);
        for (gemm_method method : all_methods) {
            SCOPED_TRACE(std::string(realify::simd::arch_name(a)) + " " + std::string(realify::to_string(method)));
            body(method);
        }
    }
}

// ---- complex products within each method's bound -----------------------------------------

struct dims {
    std::size_t m, k, n;
};
constexpr dims product_shapes[] = {{1, 1, 1},  {2, 2, 2},  {3, 5, 7},  {17, 33, 9},  {5, 130, 3},
                                   {2, 1, 40}, {40, 7, 1}, {1, 50, 1}, {64, 64, 64}, {129, 65, 67}};

/// mm(a, b) within each method's bound at every instruction set.
template <class T>
void expect_mm_within_bounds(const carray<T>& a, const carray<T>& b) {
    const reference r = make_reference(a, b);
    const auto la = realify::complex_layout_of(a), lb = realify::complex_layout_of(b);
    for_each_arch_and_method(
        [&](gemm_method method) { EXPECT_TRUE(within_bound(result_of<T>(realify::mm(la, lb, method)), r, method)); });
}

template <class T>
void check_random_products() {
    std::mt19937_64 rng(42);
    for (const dims d : product_shapes) {
        const carray<T> a = random_complex<T>({d.m, d.k}, rng), b = random_complex<T>({d.k, d.n}, rng);
        expect_mm_within_bounds(a, b);
    }
}
TEST(LinalgBounds, RandomProductsAtEveryArchAndMethodFloat) { check_random_products<float>(); }
TEST(LinalgBounds, RandomProductsAtEveryArchAndMethodDouble) { check_random_products<double>(); }

/// Rows of A scaled by 1e20, 1, 1e−20 in turn (and columns of B by 1e10, 1,
/// 1e−10): the componentwise bounds follow each entry's own scale.
template <class T>
void check_badly_scaled() {
    std::mt19937_64 rng(7);
    for (const dims d : {dims{9, 31, 12}, dims{33, 70, 35}}) {
        carray<T> a = random_complex<T>({d.m, d.k}, rng), b = random_complex<T>({d.k, d.n}, rng);
        const T row_scales[] = {T(1e20), T(1), T(1e-20)}, col_scales[] = {T(1e10), T(1), T(1e-10)};
        for (std::size_t i = 0; i < d.m; ++i)
            for (std::size_t p = 0; p < d.k; ++p) a(i, p) *= row_scales[i % 3];
        for (std::size_t p = 0; p < d.k; ++p)
            for (std::size_t j = 0; j < d.n; ++j) b(p, j) *= col_scales[j % 3];
        expect_mm_within_bounds(a, b);
    }
}
TEST(LinalgBounds, RowsScaledBy1e20And1eMinus20Float) { check_badly_scaled<float>(); }
TEST(LinalgBounds, RowsScaledBy1e20And1eMinus20Double) { check_badly_scaled<double>(); }

/// Where 3m's bound is weaker: imaginary parts 1e−6 of the real parts. Cᵢ is
/// then small next to |A||B|, and 3m computes it as T₃ − T₁ − T₂ from
/// products of size |A||B|: within 3m's bound but not within 4m's, which 1m
/// and 4m meet.
TEST(LinalgBounds, ThreeMLosesTheSmallImaginaryPartWithinItsBound) {
    std::mt19937_64 rng(11);
    const carray<float> a = random_complex<float>({32, 64}, rng, 1, 1e-6),
                        b = random_complex<float>({64, 32}, rng, 1, 1e-6);
    const reference r = make_reference(a, b);
    const auto la = realify::complex_layout_of(a), lb = realify::complex_layout_of(b);
    const carray<float> c3 = result_of<float>(realify::mm(la, lb, gemm_method::m3));
    EXPECT_TRUE(within_bound(c3, r, gemm_method::m3));
    EXPECT_FALSE(within_bound(c3, r, gemm_method::m4)) << "3m met 4m's bound: the case shows nothing";
    for (gemm_method method : {gemm_method::m1, gemm_method::m4, gemm_method::direct})
        EXPECT_TRUE(within_bound(result_of<float>(realify::mm(la, lb, method)), r, method));
}

/// 3m splits B into panels of columns and A into panels of rows, each with
/// all of k, so that its scratch stays bounded (about 24 MiB): here two
/// column panels of a 1100-deep complex<double> product (448 + 52 columns)
/// and two row panels (128 + 72). Entries around the tile edges, and the
/// last ones, against the reference; a second call into the reused
/// workspace gives the same bits.
TEST(LinalgBounds, ThreeMRunsInBoundedTilesAtLargeSizes) {
    std::mt19937_64 rng(13);
    const std::size_t m = 200, k = 1100, n = 500;
    const carray<double> a = random_complex<double>({m, k}, rng), b = random_complex<double>({k, n}, rng);
    const auto la = realify::complex_layout_of(a), lb = realify::complex_layout_of(b);
    const carray<double> c = result_of<double>(realify::mm(la, lb, gemm_method::m3));
    const carray<double> again = result_of<double>(realify::mm(la, lb, gemm_method::m3));
    EXPECT_EQ(c, again);
    for (std::size_t i : {std::size_t(0), std::size_t(127), std::size_t(128), m - 1})
        for (std::size_t j : {std::size_t(0), std::size_t(447), std::size_t(448), n - 1}) {
            const carray<double> row = xt::view(a, xt::range(i, i + 1), xt::all());
            const carray<double> column = xt::view(b, xt::all(), xt::range(j, j + 1));
            const carray<double> entry = xt::view(c, xt::range(i, i + 1), xt::range(j, j + 1));
            EXPECT_TRUE(within_bound(entry, make_reference(row, column), gemm_method::m3)) << i << ", " << j;
        }
}

/// 3m sums Aᵣ + Aᵢ and Bᵣ + Bᵢ: with parts near the overflow threshold that
/// sum overflows although the product is finite. The sums are then halved
/// (exactly) and the third product scaled back, so 3m gives the finite entry
/// within its bound — where the sum overflowed in A, in B, in both, alone and
/// in a larger matrix whose other entries take the same scaled path.
template <class T>
void check_three_m_sum_overflow() {
    using C = std::complex<T>;
    const T big = std::numeric_limits<T>::max() / T(1.5);  // big + big overflows
    std::mt19937_64 rng(19);
    struct operands {
        C a, b;
    };
    for (const operands o : {operands{{big, big}, {T(0.5), T(0.25)}}, operands{{T(0.5), T(-0.25)}, {big, big}},
                             operands{{big, -big}, {T(0.25), T(-0.5)}}, operands{{T(0.75), T(0.5)}, {-big, -big}}})
        for (bool alone : {true, false}) {
            // the other entries small enough that every entry of the product is finite
            carray<T> a = alone ? carray<T>::from_shape({1, 1}) : random_complex<T>({6, 5}, rng, 0.1, 0.1);
            carray<T> b = alone ? carray<T>::from_shape({1, 1}) : random_complex<T>({5, 4}, rng, 0.1, 0.1);
            a(0, 0) = o.a;
            b(0, 0) = o.b;
            const reference r = make_reference(a, b);
            for_each_arch_and_method([&](gemm_method method) {
                const carray<T> c =
                    result_of<T>(realify::mm(realify::complex_layout_of(a), realify::complex_layout_of(b), method));
                EXPECT_TRUE(std::isfinite(c(0, 0).real()) && std::isfinite(c(0, 0).imag())) << c(0, 0);
                EXPECT_TRUE(within_bound(c, r, method));
            });
        }
}
TEST(LinalgSpecialValues, ThreeMGivesFiniteProductsWhoseSumsOverflowFloat) { check_three_m_sum_overflow<float>(); }
TEST(LinalgSpecialValues, ThreeMGivesFiniteProductsWhoseSumsOverflowDouble) { check_three_m_sum_overflow<double>(); }

// ---- shapes, layouts, batches -------------------------------------------------------------

TEST(LinalgShapes, EmptyOperandsAndAnEmptySumGiveEmptyOrZeroResults) {
    for_each_arch_and_method([](gemm_method method) {
        const carray<double> a03 = carray<double>::from_shape({0, 3}), b34 = xt::ones<std::complex<double>>({3, 4});
        const auto e =
            result_of<double>(realify::mm(realify::complex_layout_of(a03), realify::complex_layout_of(b34), method));
        EXPECT_EQ(e.shape()[0], 0u);
        EXPECT_EQ(e.shape()[1], 4u);
        const carray<double> a30 = carray<double>::from_shape({3, 0}), b04 = carray<double>::from_shape({0, 4});
        const auto z =
            result_of<double>(realify::mm(realify::complex_layout_of(a30), realify::complex_layout_of(b04), method));
        ASSERT_EQ(z.shape()[0], 3u);
        ASSERT_EQ(z.shape()[1], 4u);
        for (const auto& v : z) EXPECT_EQ(v, std::complex<double>(0, 0));  // k = 0: an empty sum
        const carray<double> b40 = carray<double>::from_shape({4, 0});
        EXPECT_EQ(
            result_of<double>(realify::mm(realify::complex_layout_of(b34), realify::complex_layout_of(b40), method))
                .size(),
            0u);
        const carray<double> v0 = carray<double>::from_shape({0});
        EXPECT_EQ(realify::dot(realify::complex_layout_of(v0), realify::complex_layout_of(v0), method)(),
                  std::complex<double>(0, 0));
        const carray<double> batch0 = carray<double>::from_shape({0, 2, 3}),
                             batch0b = carray<double>::from_shape({0, 3, 4});
        const auto eb = realify::bmm(realify::complex_layout_of(batch0), realify::complex_layout_of(batch0b), method);
        EXPECT_EQ(eb.size(), 0u);
    });
}

/// The operands as views of other memory: every other row and column
/// (strided), reversed (negative strides), transposed copies read through
/// xt::transpose, and a lazy expression (evaluated once).
template <class T>
void check_layouts() {
    std::mt19937_64 rng(3);
    const std::size_t m = 13, k = 21, n = 11;
    const carray<T> big_a = random_complex<T>({2 * m, 2 * k}, rng), big_b = random_complex<T>({2 * k, 2 * n}, rng);
    const carray<T> a = xt::view(big_a, xt::range(0, 2 * m, 2), xt::range(1, 2 * k, 2));
    const carray<T> b = xt::view(big_b, xt::range(1, 2 * k, 2), xt::range(0, 2 * n, 2));
    const reference r = make_reference(a, b);
    const carray<T> a_t = xt::transpose(a), b_t = xt::transpose(b);
    const carray<T> a_rev = xt::flip(xt::flip(a, 0), 1), b_rev = xt::flip(b, 0);
    const carray<T> a_back = xt::flip(xt::flip(a_rev, 0), 1), b_back = xt::flip(b_rev, 0);
    ASSERT_EQ(a_back, a);
    ASSERT_EQ(b_back, b);
    for_each_arch_and_method([&](gemm_method method) {
        auto strided_a = xt::view(big_a, xt::range(0, 2 * m, 2), xt::range(1, 2 * k, 2));
        auto strided_b = xt::view(big_b, xt::range(1, 2 * k, 2), xt::range(0, 2 * n, 2));
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(realify::complex_layout_of(strided_a),
                                                          realify::complex_layout_of(strided_b), method)),
                                 r, method));
        auto reversed_a = xt::flip(xt::flip(a_rev, 0), 1);
        auto reversed_b = xt::flip(b_rev, 0);
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(realify::complex_layout_of(reversed_a),
                                                          realify::complex_layout_of(reversed_b), method)),
                                 r, method));
        auto transposed_a = xt::transpose(a_t);
        auto transposed_b = xt::transpose(b_t);
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(realify::complex_layout_of(transposed_a),
                                                          realify::complex_layout_of(transposed_b), method)),
                                 r, method));
        // a lazy (…, 2) expression: 1·a, evaluated once
        const auto a_real = realify::view_as_real(a);
        EXPECT_TRUE(within_bound(
            result_of<T>(realify::mm(realify::as_complex_layout(T(1) * a_real), realify::complex_layout_of(b), method)),
            r, method));
    });
}
TEST(LinalgShapes, StridedReversedTransposedAndLazyOperandsFloat) { check_layouts<float>(); }
TEST(LinalgShapes, StridedReversedTransposedAndLazyOperandsDouble) { check_layouts<double>(); }

/// The reference of one batch matrix: a[index…] as an m × k carray.
template <class T>
carray<T> matrix_at(const carray<T>& x, std::size_t batch) {
    const std::size_t rows = x.shape()[x.dimension() - 2], cols = x.shape()[x.dimension() - 1];
    carray<T> result = carray<T>::from_shape({rows, cols});
    std::copy(x.begin() + static_cast<std::ptrdiff_t>(batch * rows * cols),
              x.begin() + static_cast<std::ptrdiff_t>((batch + 1) * rows * cols), result.begin());
    return result;
}

TEST(LinalgShapes, BmmAndMatmulBroadcastBatchesAndPromoteVectors) {
    std::mt19937_64 rng(5);
    using T = double;
    const carray<T> a = random_complex<T>({2, 1, 3, 4}, rng), b = random_complex<T>({5, 4, 6}, rng);
    const carray<T> v = random_complex<T>({4}, rng), w = random_complex<T>({6}, rng);
    for_each_arch_and_method([&](gemm_method method) {
        const auto c =
            result_of<T>(realify::matmul(realify::complex_layout_of(a), realify::complex_layout_of(b), method));
        ASSERT_EQ(c.shape(), (carray<T>::shape_type{2, 5, 3, 6}));
        for (std::size_t i = 0; i < 2; ++i)
            for (std::size_t j = 0; j < 5; ++j) {
                const carray<T> got = xt::view(c, i, j, xt::all(), xt::all());
                EXPECT_TRUE(within_bound(got, make_reference<T>(matrix_at(a, i), matrix_at(b, j)), method));
            }
        // B batched, A shared; 1-D operands promoted and the added dim removed
        const carray<T> a2 = matrix_at(a, 0);
        const auto shared_a =
            result_of<T>(realify::matmul(realify::complex_layout_of(a2), realify::complex_layout_of(b), method));
        ASSERT_EQ(shared_a.shape(), (carray<T>::shape_type{5, 3, 6}));
        const auto vb =
            result_of<T>(realify::matmul(realify::complex_layout_of(v), realify::complex_layout_of(b), method));
        ASSERT_EQ(vb.shape(), (carray<T>::shape_type{5, 6}));
        const auto bw =
            result_of<T>(realify::matmul(realify::complex_layout_of(b), realify::complex_layout_of(w), method));
        ASSERT_EQ(bw.shape(), (carray<T>::shape_type{5, 4}));
        for (std::size_t j = 0; j < 5; ++j) {
            const carray<T> bj = matrix_at(b, j);
            const carray<T> got_a = xt::view(shared_a, j, xt::all(), xt::all());
            EXPECT_TRUE(within_bound(got_a, make_reference<T>(a2, bj), method));
            const carray<T> v_row = xt::reshape_view(v, {1, 4}),
                            got_v = xt::reshape_view(xt::view(vb, j, xt::all()), {1, 6});
            EXPECT_TRUE(within_bound(got_v, make_reference<T>(v_row, bj), method));
            const carray<T> w_col = xt::reshape_view(w, {6, 1}),
                            got_w = xt::reshape_view(xt::view(bw, j, xt::all()), {4, 1});
            EXPECT_TRUE(within_bound(got_w, make_reference<T>(bj, w_col), method));
        }
        // bmm: equal batches; mv; dot and vdot
        const carray<T> p = random_complex<T>({3, 4, 5}, rng), q = random_complex<T>({3, 5, 2}, rng);
        const auto pq =
            result_of<T>(realify::bmm(realify::complex_layout_of(p), realify::complex_layout_of(q), method));
        for (std::size_t i = 0; i < 3; ++i) {
            const carray<T> got = xt::view(pq, i, xt::all(), xt::all());
            EXPECT_TRUE(within_bound(got, make_reference<T>(matrix_at(p, i), matrix_at(q, i)), method));
        }
        const carray<T> m45 = matrix_at(p, 1), x5 = xt::view(w, xt::range(0, 5));
        const auto mx =
            result_of<T>(realify::mv(realify::complex_layout_of(m45), realify::complex_layout_of(x5), method));
        const carray<T> mx2 = xt::reshape_view(mx, {4, 1}), x_col = xt::reshape_view(x5, {5, 1});
        EXPECT_TRUE(within_bound(mx2, make_reference<T>(m45, x_col), method));
        const carray<T> v4 = xt::view(w, xt::range(0, 4));
        const std::complex<T> d = realify::dot(realify::complex_layout_of(v), realify::complex_layout_of(v4), method)();
        const std::complex<T> vd =
            realify::vdot(realify::complex_layout_of(v), realify::complex_layout_of(v4), method)();
        const carray<T> v_row = xt::reshape_view(v, {1, 4}), v_conj = xt::conj(v_row),
                        v4_col = xt::reshape_view(v4, {4, 1});
        EXPECT_TRUE(within_bound(carray<T>({1, 1}, d), make_reference<T>(v_row, v4_col), method));
        EXPECT_TRUE(within_bound(carray<T>({1, 1}, vd), make_reference<T>(v_conj, v4_col), method));
    });
}

// ---- the matrix views ---------------------------------------------------------------------

template <class T>
void check_views() {
    std::mt19937_64 rng(9);
    const std::size_t m = 19, k = 23, n = 17;
    const carray<T> a = random_complex<T>({m, k}, rng), at = random_complex<T>({k, m}, rng);
    const carray<T> b = random_complex<T>({k, n}, rng), bt = random_complex<T>({n, k}, rng);
    const carray<T> at_h = xt::conj(xt::transpose(at)), at_t = xt::transpose(at), bt_t = xt::transpose(bt);
    const carray<T> a_c = xt::conj(a), b_c = xt::conj(b), bt_h = xt::conj(xt::transpose(bt));
    const auto la = realify::complex_layout_of(a), lat = realify::complex_layout_of(at);
    const auto lb = realify::complex_layout_of(b), lbt = realify::complex_layout_of(bt);
    for_each_arch_and_method([&](gemm_method method) {
        EXPECT_TRUE(
            within_bound(result_of<T>(realify::mm(realify::mH(lat), lb, method)), make_reference(at_h, b), method));
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(realify::transpose_view(lat), lb, method)),
                                 make_reference(at_t, b), method));
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(realify::conj_view(la), lb, method)), make_reference(a_c, b),
                                 method));
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(la, realify::conj_view(lb), method)), make_reference(a, b_c),
                                 method));
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(la, realify::transpose_view(lbt), method)),
                                 make_reference(a, bt_t), method));
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(realify::conj_view(la), realify::mH(lbt), method)),
                                 make_reference(a_c, bt_h), method));
        // views of views: mH(mH(a)) is a, conj_view(transpose_view(a)) is mH(a)
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(realify::mH(realify::mH(la)), lb, method)),
                                 make_reference(a, b), method));
        EXPECT_TRUE(
            within_bound(result_of<T>(realify::mm(realify::conj_view(realify::transpose_view(lat)), lb, method)),
                         make_reference(at_h, b), method));
        // a view of a temporary keeps it alive
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(realify::mH(realify::complex_layout_of(at)), lb, method)),
                                 make_reference(at_h, b), method));
    });
}
TEST(LinalgViews, ConjTransposeAndAdjointOperandsFloat) { check_views<float>(); }
TEST(LinalgViews, ConjTransposeAndAdjointOperandsDouble) { check_views<double>(); }

TEST(LinalgViews, BatchedAdjointAndVdotReadTheOperandInPlace) {
    std::mt19937_64 rng(13);
    using T = float;
    const carray<T> q = random_complex<T>({3, 5, 4}, rng), k = random_complex<T>({3, 5, 6}, rng);
    const auto qk =
        result_of<T>(realify::bmm(realify::mH(realify::complex_layout_of(q)), realify::complex_layout_of(k)));
    const auto qk_matmul =
        result_of<T>(realify::matmul(realify::mH(realify::complex_layout_of(q)), realify::complex_layout_of(k)));
    ASSERT_EQ(qk.shape(), (carray<T>::shape_type{3, 4, 6}));
    EXPECT_EQ(qk, qk_matmul);
    for (std::size_t i = 0; i < 3; ++i) {
        const carray<T> qi = xt::conj(xt::transpose(matrix_at(q, i)));
        const carray<T> got = xt::view(qk, i, xt::all(), xt::all());
        EXPECT_TRUE(within_bound(got, make_reference<T>(qi, matrix_at(k, i)), gemm_method::m1));
    }
    // The views copy nothing in the header: the only large allocation is the result.
    const carray<T> big = random_complex<T>({256, 256}, rng), other = random_complex<T>({256, 256}, rng);
    const auto lbig = realify::complex_layout_of(big), lother = realify::complex_layout_of(other);
    const std::size_t before = large_allocations.load();
    {
        const auto c = realify::mm(realify::mH(lbig), realify::conj_view(lother));
        EXPECT_EQ(large_allocations.load() - before, 1u);
    }
    const xt::xtensor<double, 2> real_big = xt::ones<double>({256, 256});
    (void)realify::mm(real_big, real_big);  // the process's one-time choice of library (it times products) first
    const std::size_t before_real = large_allocations.load();
    {
        const auto c = realify::mm(realify::transpose_view(real_big), real_big);
        EXPECT_EQ(large_allocations.load() - before_real, 1u);
    }
}

TEST(LinalgViews, TransposingAVectorIsAShapeError) {
    const carray<float> v = xt::ones<std::complex<float>>({4});
    try {
        (void)realify::transpose_view(realify::complex_layout_of(v));
        FAIL() << "expected a shape_error";
    } catch (const realify::shape_error& e) {
        EXPECT_NE(std::string(e.what()).find("realify::transpose_view"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("(4)"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)realify::mH(realify::complex_layout_of(v)), realify::shape_error);
}

// ---- special values -------------------------------------------------------------------------

enum class kind { finite, nan, pos_inf, neg_inf };
kind classify(ld x) {
    if (std::isnan(x)) return kind::nan;
    if (std::isinf(x)) return x > 0 ? kind::pos_inf : kind::neg_inf;
    return kind::finite;
}

/// The pair formula Σ (aᵣbᵣ − aᵢbᵢ) + i(aᵣbᵢ + aᵢbᵣ) term by term in long
/// double: what the direct loop, 1m and 4m give for inf/NaN inputs.
template <class T>
std::complex<ld> pair_formula(const carray<T>& a, const carray<T>& b, std::size_t i, std::size_t j) {
    ld re = 0, im = 0;
    for (std::size_t p = 0; p < a.shape()[1]; ++p) {
        const ld ar = a(i, p).real(), ai = a(i, p).imag(), br = b(p, j).real(), bi = b(p, j).imag();
        re += ar * br - ai * bi;
        im += ar * bi + ai * br;
    }
    return {re, im};
}

template <class T>
void check_special_values() {
    std::mt19937_64 rng(17);
    const std::size_t m = 9, k = 12, n = 10;
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    const carray<T> a0 = random_complex<T>({m, k}, rng), b0 = random_complex<T>({k, n}, rng);
    const reference r = make_reference(a0, b0);
    struct poisoned {
        bool in_a;
        std::size_t row, col;  // of the poisoned operand
        std::complex<T> value;
    };
    for (const poisoned poison :
         {poisoned{true, 2, 3, {nan, 0}}, poisoned{true, 5, 0, {1, nan}}, poisoned{false, 4, 7, {nan, nan}},
          poisoned{true, 1, 2, {inf, 0}}, poisoned{true, 6, 11, {0, -inf}}, poisoned{false, 0, 4, {-inf, 1}}}) {
        carray<T> a = a0, b = b0;
        (poison.in_a ? a : b)(poison.row, poison.col) = poison.value;
        const bool is_nan = std::isnan(poison.value.real()) || std::isnan(poison.value.imag());
        for_each_arch_and_method([&](gemm_method method) {
            const carray<T> c =
                result_of<T>(realify::mm(realify::complex_layout_of(a), realify::complex_layout_of(b), method));
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    const bool affected = poison.in_a ? i == poison.row : j == poison.col;
                    const ld re = c(i, j).real(), im = c(i, j).imag();
                    SCOPED_TRACE("entry (" + std::to_string(i) + ", " + std::to_string(j) + ")");
                    if (!affected) {
                        // no spurious NaN or inf, and the usual bound
                        const std::size_t e = i * n + j;
                        const ld scale = method == gemm_method::m3 ? r.im_scale_3m[e] : r.im_scale[e];
                        EXPECT_LE(std::fabs(re - r.value[e].real()), gamma<T>(k) * r.re_scale[e]);
                        EXPECT_LE(std::fabs(im - r.value[e].imag()), gamma<T>(k) * scale);
                    } else if (is_nan) {
                        // a NaN reaches both parts of every entry it takes part in, whatever the method
                        EXPECT_TRUE(std::isnan(re) && std::isnan(im)) << re << " " << im;
                    } else {
                        const std::complex<ld> expected = pair_formula(a, b, i, j);
                        EXPECT_EQ(classify(re), classify(expected.real())) << re << " vs " << expected.real();
                        if (method == gemm_method::m3) {
                            // T₃ − T₁ − T₂ may turn an infinity into NaN (inf − inf), never into a finite value
                            EXPECT_TRUE(std::isnan(im) || classify(im) == classify(expected.imag()))
                                << im << " vs " << expected.imag();
                            EXPECT_NE(classify(im), kind::finite);
                        } else {
                            EXPECT_EQ(classify(im), classify(expected.imag())) << im << " vs " << expected.imag();
                        }
                    }
                }
        });
    }
}
TEST(LinalgSpecialValues, NanAndInfReachExactlyTheEntriesTheyTakePartInFloat) { check_special_values<float>(); }
TEST(LinalgSpecialValues, NanAndInfReachExactlyTheEntriesTheyTakePartInDouble) { check_special_values<double>(); }

// ---- two real tensors ------------------------------------------------------------------------

template <class T>
xt::xarray<T> random_real(std::vector<std::size_t> shape, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    xt::xarray<T> result = xt::xarray<T>::from_shape(shape);
    for (auto& x : result) x = static_cast<T>(u(rng));
    return result;
}

/// |got − a·b| ≤ γ·|a||b| entrywise, a m × k, b k × n, in long double.
template <class T, class A, class B, class G>
::testing::AssertionResult real_within_bound(const G& got, const A& a, const B& b) {
    const std::size_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
    if (got.shape()[0] != m || got.shape()[1] != n) return ::testing::AssertionFailure() << "shape";
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            ld sum = 0, scale = 0;
            for (std::size_t p = 0; p < k; ++p) {
                sum += static_cast<ld>(a(i, p)) * static_cast<ld>(b(p, j));
                scale += std::fabs(static_cast<ld>(a(i, p)) * static_cast<ld>(b(p, j)));
            }
            if (!(std::fabs(static_cast<ld>(got(i, j)) - sum) <= gamma<T>(k) * scale))
                return ::testing::AssertionFailure()
                       << "entry (" << i << ", " << j << "): " << double(got(i, j)) << " vs " << double(sum);
        }
    return ::testing::AssertionSuccess();
}

TEST(LinalgReal, TwoRealTensorsRunTheRealGemmWithPyTorchPromotion) {
    std::mt19937_64 rng(19);
    for (arch forced : machine_arches()) {
        const realify::simd::scoped_arch scope(forced);
        SCOPED_TRACE(std::string(realify::simd::arch_name(forced)));
        const xt::xarray<float> a = random_real<float>({37, 29}, rng), b = random_real<float>({29, 41}, rng);
        const xt::xtensor<float, 2> c = realify::mm(a, b);
        static_assert(std::is_same_v<decltype(realify::mm(a, b)), xt::xtensor<float, 2>>);
        EXPECT_TRUE(real_within_bound<float>(c, a, b));
        // float × double promotes to double, as torch.mm does
        const xt::xtensor<double, 2> bd = random_real<double>({29, 41}, rng);
        const auto cd = realify::mm(a, bd);
        static_assert(std::is_same_v<typename decltype(cd)::value_type, double>);
        EXPECT_TRUE(real_within_bound<double>(cd, xt::xarray<double>(a), bd));
        // column-major (transposed) operands in place, strided and reversed ones copied once
        const xt::xarray<float> at = xt::transpose(a), bt = xt::transpose(b);
        EXPECT_TRUE(
            real_within_bound<float>(realify::mm(realify::transpose_view(at), realify::transpose_view(bt)), a, b));
        EXPECT_TRUE(real_within_bound<float>(realify::mm(xt::transpose(at), xt::transpose(bt)), a, b));
        const xt::xarray<float> big = random_real<float>({74, 58}, rng);
        auto strided = xt::view(big, xt::range(0, 74, 2), xt::range(1, 58, 2));
        const xt::xarray<float> strided_copy = strided;
        EXPECT_TRUE(real_within_bound<float>(realify::mm(strided, b), strided_copy, b));
        EXPECT_TRUE(real_within_bound<float>(realify::mm(xt::flip(a, 1), xt::flip(b, 0)), a, b));
        // bmm, matmul with broadcast batches and vectors, mv, dot, vdot
        const xt::xarray<double> p = random_real<double>({3, 4, 5}, rng), q = random_real<double>({2, 1, 5, 6}, rng);
        const xt::xarray<double> pq = realify::matmul(p, q);
        ASSERT_EQ(pq.shape(), (xt::xarray<double>::shape_type{2, 3, 4, 6}));
        for (std::size_t i = 0; i < 2; ++i)
            for (std::size_t j = 0; j < 3; ++j) {
                const xt::xarray<double> got = xt::view(pq, i, j), pj = xt::view(p, j), qi = xt::view(q, i, 0);
                EXPECT_TRUE(real_within_bound<double>(got, pj, qi));
            }
        const xt::xarray<double> p0 = xt::view(p, 0), p1 = xt::view(p, 1), q2 = xt::view(q, 0, 0);
        const xt::xtensor<double, 3> pt = xt::transpose(p, {0, 2, 1});
        const xt::xtensor<double, 3> ppt = realify::bmm(p, realify::transpose_view(xt::xtensor<double, 3>(p)));
        for (std::size_t i = 0; i < 3; ++i) {
            const xt::xarray<double> got = xt::view(ppt, i), pi = xt::view(p, i), pti = xt::view(pt, i);
            EXPECT_TRUE(real_within_bound<double>(got, pi, pti));
        }
        const xt::xarray<double> v = xt::view(q2, xt::all(), 0);
        const xt::xarray<double> pv = realify::mv(p0, v);
        ASSERT_EQ(pv.shape(), (xt::xarray<double>::shape_type{4}));
        EXPECT_TRUE(real_within_bound<double>(xt::xarray<double>(xt::reshape_view(pv, {4, 1})), p0,
                                              xt::xarray<double>(xt::reshape_view(v, {5, 1}))));
        const xt::xarray<double> row = xt::view(p1, 0);
        const xt::xtensor<double, 0> d = realify::dot(row, v), vd = realify::vdot(row, v);
        ld expected = 0;
        for (std::size_t i = 0; i < 5; ++i) expected += static_cast<ld>(row(i)) * static_cast<ld>(v(i));
        EXPECT_NEAR(double(d()), double(expected), 1e-13);
        EXPECT_EQ(d(), vd());
    }
}

// ---- tiles and skinny products ------------------------------------------------------------------
//
// Products above 2 · grain::gemm multiply-adds are cut into tiles of C (each
// one library call writing in place); real products of at most 16 rows or
// columns run realify's skinny kernel. Sizes here cut into several tiles with
// edges that are no multiple of anything, and exercise every skinny form.

/// a·b in long double, with the bound's scale Σ|a||b| per entry.
struct real_reference {
    std::size_t m = 0, n = 0, k = 0;
    std::vector<ld> value, scale;
};

template <class T>
real_reference real_reference_of(const xt::xarray<T>& a, const xt::xarray<T>& b) {
    real_reference r{a.shape()[0], b.shape()[1], a.shape()[1], {}, {}};
    r.value.assign(r.m * r.n, 0);
    r.scale.assign(r.m * r.n, 0);
    for (std::size_t i = 0; i < r.m; ++i)
        for (std::size_t p = 0; p < r.k; ++p) {
            const ld x = static_cast<ld>(a(i, p));
            for (std::size_t j = 0; j < r.n; ++j) {
                const ld y = static_cast<ld>(b(p, j));
                r.value[i * r.n + j] += x * y;
                r.scale[i * r.n + j] += std::fabs(x * y);
            }
        }
    return r;
}

/// got (m × n, any layout) within γ·Σ|a||b| of the reference; where the
/// reference is NaN or infinite (special values), the same class.
template <class T, class G>
::testing::AssertionResult real_matches(const G& got, const real_reference& r) {
    if (got.dimension() != 2 || got.shape()[0] != r.m || got.shape()[1] != r.n)
        return ::testing::AssertionFailure() << "shape " << realify::detail::format_sequence(got.shape());
    const ld tiny = static_cast<ld>(4 * (r.k + 1)) * std::numeric_limits<T>::denorm_min();
    for (std::size_t i = 0; i < r.m; ++i)
        for (std::size_t j = 0; j < r.n; ++j) {
            const ld want = r.value[i * r.n + j], have = static_cast<ld>(got(i, j));
            const bool ok = std::isfinite(want) ? std::fabs(have - want) <= gamma<T>(r.k) * r.scale[i * r.n + j] + tiny
                                                : classify(have) == classify(want);
            if (!ok)
                return ::testing::AssertionFailure() << "entry (" << i << ", " << j << ") of " << r.m << "×" << r.k
                                                     << "×" << r.n << ": " << double(have) << " vs " << double(want);
        }
    return ::testing::AssertionSuccess();
}

/// mm(a, b) with a and b read through every layout the products take: row-
/// and column-major in place, every other element (strided), reversed
/// (negative strides), offset into a larger buffer — at every instruction
/// set and unforced (the library in use); calls check(c, what).
template <class T, class Check>
void for_each_layout(const xt::xarray<T>& a, const xt::xarray<T>& b, const Check& check) {
    const std::size_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
    const xt::xarray<T> at = xt::transpose(a), bt = xt::transpose(b);  // column-major a, and W = bᵀ (n × k)
    xt::xarray<T> a2 = xt::zeros<T>({2 * m + 1, 2 * k}), b2 = xt::zeros<T>({2 * k + 1, 2 * n});
    xt::view(a2, xt::range(1, 2 * m + 1, 2), xt::range(0, 2 * k, 2)) = a;
    xt::view(b2, xt::range(1, 2 * k + 1, 2), xt::range(1, 2 * n, 2)) = b;
    const xt::xarray<T> a_rev = xt::flip(a, 0), bt_rev = xt::flip(bt, 0), b_rev = xt::flip(b, 1);
    auto body = [&] {
        check(xt::xarray<T>(realify::mm(a, b)), "row-major a, b");
        check(xt::xarray<T>(realify::mm(a, realify::transpose_view(bt))), "b = Wᵀ (x·Wᵀ)");
        check(xt::xarray<T>(realify::mm(realify::transpose_view(at), b)), "column-major a");
        check(xt::xarray<T>(realify::mm(realify::transpose_view(at), realify::transpose_view(bt))), "both column-major");
        auto sa = xt::view(a2, xt::range(1, 2 * m + 1, 2), xt::range(0, 2 * k, 2));
        auto sb = xt::view(b2, xt::range(1, 2 * k + 1, 2), xt::range(1, 2 * n, 2));
        check(xt::xarray<T>(realify::mm(sa, sb)), "strided, offset a and b");
        check(xt::xarray<T>(realify::mm(sa, realify::transpose_view(bt))), "strided a, b = Wᵀ");
        check(xt::xarray<T>(realify::mm(xt::flip(a_rev, 0), realify::transpose_view(xt::flip(bt_rev, 0)))),
              "reversed rows of a and of W");
        check(xt::xarray<T>(realify::mm(a, xt::flip(b_rev, 1))), "reversed columns of b");
    };
    body();
    for (arch forced : machine_arches()) {
        const realify::simd::scoped_arch scope(forced);
        SCOPED_TRACE(std::string(realify::simd::arch_name(forced)));
        body();
    }
}

template <class T>
void check_real_tiles() {
    std::mt19937_64 rng(51);
    // two row blocks (208 + 192) × two column blocks (160 + 140); one row
    // block × four column blocks; three × two with the last row block short
    struct mkn {
        std::size_t m, k, n;
    };
    for (const mkn d : {mkn{400, 70, 300}, mkn{130, 129, 517}, mkn{777, 60, 200}}) {
        static_assert(400 * 70 * 300 > 2 * realify::grain::gemm);
        const xt::xarray<T> a = random_real<T>({d.m, d.k}, rng), b = random_real<T>({d.k, d.n}, rng);
        const real_reference r = real_reference_of(a, b);
        SCOPED_TRACE(std::to_string(d.m) + "×" + std::to_string(d.k) + "×" + std::to_string(d.n));
        for_each_layout(a, b, [&](const xt::xarray<T>& c, const char* what) { EXPECT_TRUE(real_matches<T>(c, r)) << what; });
    }
    // batches, each cut into tiles (bmm), and batches on a shared b, whose
    // stacked rows are cut across the batches' boundaries (matmul)
    const xt::xarray<T> p = random_real<T>({3, 260, 130}, rng), q = random_real<T>({3, 130, 260}, rng);
    const xt::xarray<T> pq = realify::bmm(p, q);
    const xt::xarray<T> w = random_real<T>({80, 300}, rng), shared_a = random_real<T>({4, 100, 80}, rng);
    const xt::xarray<T> sw = realify::matmul(shared_a, w);
    for (std::size_t i = 0; i < 3; ++i) {
        const xt::xarray<T> pi = xt::view(p, i), qi = xt::view(q, i), got = xt::view(pq, i);
        EXPECT_TRUE(real_matches<T>(got, real_reference_of(pi, qi))) << "bmm batch " << i;
    }
    for (std::size_t i = 0; i < 4; ++i) {
        const xt::xarray<T> ai = xt::view(shared_a, i), got = xt::view(sw, i);
        EXPECT_TRUE(real_matches<T>(got, real_reference_of(ai, w))) << "matmul on a shared b, batch " << i;
    }
}
TEST(LinalgTiles, RealProductsCutIntoTilesInEveryLayoutFloat) { check_real_tiles<float>(); }
TEST(LinalgTiles, RealProductsCutIntoTilesInEveryLayoutDouble) { check_real_tiles<double>(); }

/// Every method on a complex product of two column blocks (112 + 88): each
/// tile is a product of its own (1m expands its columns of B, native checks
/// its operands). A NaN in a(3, 5) reaches row 3 alone, in every tile.
template <class T>
void check_complex_tiles() {
    std::mt19937_64 rng(52);
    const std::size_t m = 150, k = 80, n = 200;
    static_assert(4 * 150 * 80 * 200 > 2 * realify::grain::gemm);
    const carray<T> a = random_complex<T>({m, k}, rng), b = random_complex<T>({k, n}, rng);
    const reference r = make_reference(a, b);
    const carray<T> bt = xt::conj(xt::transpose(b));  // b = bt^H, read through mH
    carray<T> poisoned = a;
    poisoned(3, 5) = {std::numeric_limits<T>::quiet_NaN(), 0};
    for_each_arch_and_method([&](gemm_method method) {
        const auto la = realify::complex_layout_of(a), lb = realify::complex_layout_of(b);
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(la, lb, method)), r, method));
        EXPECT_TRUE(within_bound(result_of<T>(realify::mm(la, realify::mH(realify::complex_layout_of(bt)), method)), r,
                                 method));
        const carray<T> c = result_of<T>(realify::mm(realify::complex_layout_of(poisoned), lb, method));
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                const bool nan = std::isnan(c(i, j).real()) && std::isnan(c(i, j).imag());
                const bool finite = std::isfinite(c(i, j).real()) && std::isfinite(c(i, j).imag());
                if (i == 3 ? !nan : !finite) {
                    ADD_FAILURE() << "entry (" << i << ", " << j << "): " << c(i, j);
                    return;
                }
            }
    });
}
TEST(LinalgTiles, EveryComplexMethodRunsOnTilesFloat) { check_complex_tiles<float>(); }
TEST(LinalgTiles, EveryComplexMethodRunsOnTilesDouble) { check_complex_tiles<double>(); }

/// Skinny products — at most 16 rows of a, or 16 columns of b, reading a
/// weight of at least 2¹⁸ elements or giving one output: the matrix-vector
/// product (x·Wᵀ, W·x, x·W), a few rows, a dot product longer than a chunk of
/// k — in every layout, within the bound; at AVX2 and AVX-512 the same bits
/// (docs/numerics.md: the summation order is fixed). Smaller weights run the
/// GEMM (also checked here).
template <class T>
void check_skinny() {
    std::mt19937_64 rng(53);
    struct mkn {
        std::size_t m, k, n;
        bool skinny;
    };
    for (const mkn d : {mkn{1, 1, 1, true}, mkn{1, 40000, 1, true}, mkn{1, 500, 600, true}, mkn{3, 520, 513, true},
                        mkn{5, 255, 1100, true}, mkn{16, 300, 900, true}, mkn{1000, 300, 1, true},
                        mkn{700, 400, 7, true}, mkn{17, 16000, 16, true},
                        mkn{1, 15, 37, false}, mkn{2, 100, 33, false}, mkn{16, 65, 300, false},
                        mkn{1, 20000, 3, false}, mkn{300, 70, 1, false}, mkn{17, 40, 16, false}}) {
        const xt::xarray<T> a = random_real<T>({d.m, d.k}, rng), b = random_real<T>({d.k, d.n}, rng);
        const real_reference r = real_reference_of(a, b);
        const std::string size = std::to_string(d.m) + "×" + std::to_string(d.k) + "×" + std::to_string(d.n);
        SCOPED_TRACE(size);
        const realify::simd::gemm_dims dims{1, d.m, d.n, d.k};
        const auto type = sizeof(T) == 4 ? realify::simd::gemm_type::float32 : realify::simd::gemm_type::float64;
        EXPECT_EQ(realify::simd::gemm_backend(dims, type) == "realify", d.skinny);
        for_each_layout(a, b, [&](const xt::xarray<T>& c, const char* what) { EXPECT_TRUE(real_matches<T>(c, r)) << what; });
        if (d.skinny && realify::simd::is_supported(arch::avx2) && realify::simd::is_supported(arch::avx512)) {
            const auto at = [&](arch level) {
                const realify::simd::scoped_arch scope(level);
                return std::pair{xt::xarray<T>(realify::mm(a, b)),
                                 xt::xarray<T>(realify::mm(a, realify::transpose_view(xt::xarray<T>(xt::transpose(b)))))};
            };
            EXPECT_EQ(at(arch::avx2), at(arch::avx512)) << "the same bits at AVX2 and AVX-512";
        }
    }
    // batches: each batch's rows (bmm), rows stacked on a shared b (matmul), columns per batch
    const xt::xarray<T> p = random_real<T>({3, 4, 500}, rng), q = random_real<T>({3, 500, 700}, rng);
    const xt::xarray<T> shared = random_real<T>({500, 700}, rng), tall = random_real<T>({3, 700, 500}, rng);
    const xt::xarray<T> narrow = random_real<T>({3, 500, 2}, rng);
    const xt::xarray<T> pq = realify::bmm(p, q), ps = realify::matmul(p, shared), tn = realify::bmm(tall, narrow);
    for (std::size_t i = 0; i < 3; ++i) {
        const xt::xarray<T> pi = xt::view(p, i), qi = xt::view(q, i), ti = xt::view(tall, i), ni = xt::view(narrow, i);
        EXPECT_TRUE(real_matches<T>(xt::xarray<T>(xt::view(pq, i)), real_reference_of(pi, qi))) << "bmm " << i;
        EXPECT_TRUE(real_matches<T>(xt::xarray<T>(xt::view(ps, i)), real_reference_of(pi, shared))) << "matmul " << i;
        EXPECT_TRUE(real_matches<T>(xt::xarray<T>(xt::view(tn, i)), real_reference_of(ti, ni))) << "bmm, 2 columns " << i;
    }
}
TEST(LinalgSkinny, MatrixVectorAndFewRowProductsInEveryLayoutFloat) { check_skinny<float>(); }
TEST(LinalgSkinny, MatrixVectorAndFewRowProductsInEveryLayoutDouble) { check_skinny<double>(); }

/// Skinny products: inf and NaN in x or in the weight reach exactly the
/// outputs whose sums they take part in, as in the long double sum (inf·0 = NaN, inf − inf = NaN);
/// ±0, subnormals and the smallest normal stay within the bound.
template <class T>
void check_skinny_special_values() {
    std::mt19937_64 rng(54);
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    const T tiny = std::numeric_limits<T>::denorm_min(), least = std::numeric_limits<T>::min();
    for (const std::size_t m : {std::size_t(1), std::size_t(3)}) {
        const std::size_t k = 37, n = 7100;  // 262700 elements of W: the skinny kernel
        xt::xarray<T> a = random_real<T>({m, k}, rng), w = random_real<T>({n, k}, rng);
        a(0, 4) = inf;
        a(m - 1, 20) = nan;
        w(3, 4) = T(0);  // inf · 0: NaN in output (0, 3)
        w(5, 30) = -inf;
        w(6, 4) = T(-0.0);
        w(7, 8) = tiny;
        w(8, 9) = least;
        a(0, 33) = -tiny;
        const xt::xarray<T> b = xt::transpose(w);
        const real_reference r = real_reference_of(a, b);
        EXPECT_TRUE(real_matches<T>(xt::xarray<T>(realify::mm(a, realify::transpose_view(w))), r)) << "dot form";
        EXPECT_TRUE(real_matches<T>(xt::xarray<T>(realify::mm(a, b)), r)) << "axpy form";
        for (arch forced : machine_arches()) {
            const realify::simd::scoped_arch scope(forced);
            EXPECT_TRUE(real_matches<T>(xt::xarray<T>(realify::mm(a, realify::transpose_view(w))), r))
                << realify::simd::arch_name(forced);
        }
    }
}
TEST(LinalgSkinny, InfAndNanReachTheirOutputsAsInTheExactSumFloat) { check_skinny_special_values<float>(); }
TEST(LinalgSkinny, InfAndNanReachTheirOutputsAsInTheExactSumDouble) { check_skinny_special_values<double>(); }

// ---- errors ------------------------------------------------------------------------------------

template <class F>
void expect_shape_error(const F& f, std::initializer_list<std::string> parts) {
    try {
        f();
        ADD_FAILURE() << "expected a realify::shape_error";
    } catch (const realify::shape_error& e) {
        for (const std::string& part : parts)
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
}

TEST(LinalgErrors, MismatchedShapesNameTheOpAndBothShapes) {
    const carray<float> x23 = xt::ones<std::complex<float>>({2, 3}), x234 = xt::ones<std::complex<float>>({2, 3, 4}),
                        x345 = xt::ones<std::complex<float>>({3, 4, 5}), v3 = xt::ones<std::complex<float>>({3}),
                        v4 = xt::ones<std::complex<float>>({4});
    const auto l23 = realify::complex_layout_of(x23), l234 = realify::complex_layout_of(x234),
               l345 = realify::complex_layout_of(x345), lv3 = realify::complex_layout_of(v3),
               lv4 = realify::complex_layout_of(v4);
    expect_shape_error([&] { (void)realify::mm(l23, l23); }, {"realify::mm", "(2, 3)", "cannot be multiplied"});
    expect_shape_error([&] { (void)realify::mm(l234, l345); }, {"realify::mm", "(2, 3, 4)", "(3, 4, 5)"});
    expect_shape_error([&] { (void)realify::bmm(l234, l345); }, {"realify::bmm", "(2, 3, 4)", "(3, 4, 5)"});
    expect_shape_error([&] { (void)realify::matmul(l234, l345); }, {"realify::matmul", "(2, 3, 4)", "(3, 4, 5)"});
    expect_shape_error([&] { (void)realify::matmul(l23, lv4); }, {"realify::matmul", "(2, 3)", "(4)"});
    expect_shape_error([&] { (void)realify::dot(lv3, lv4); }, {"realify::dot", "(3)", "(4)"});
    expect_shape_error([&] { (void)realify::vdot(lv3, l23); }, {"realify::vdot", "(3)", "(2, 3)"});
    expect_shape_error([&] { (void)realify::mv(l23, lv4); }, {"realify::mv", "(2, 3)", "(4)"});
    expect_shape_error([&] { (void)realify::mv(lv3, lv3); }, {"realify::mv", "(3)"});
    const xt::xtensor<std::complex<float>, 0> scalar = std::complex<float>(1, 2);
    expect_shape_error([&] { (void)realify::matmul(realify::complex_layout_of(scalar), lv3); }, {"realify::matmul"});
    const xt::xarray<double> r23 = xt::ones<double>({2, 3});
    expect_shape_error([&] { (void)realify::mm(r23, r23); }, {"realify::mm", "(2, 3)"});
    // the compiled API checks its batch offsets
    const std::vector<std::ptrdiff_t> one_offset{0};
    float data[8] = {};
    const realify::simd::gemm_operand<float> op{data, 4, 2, one_offset, false};
    expect_shape_error(
        [&] {
            realify::simd::complex_gemm({2, 2, 2, 2}, op, op, data);
        },
        {"realify::simd::complex_gemm", "1 entries for 2 batches"});
    // mixing a complex and a real tensor has no lowering (PyTorch rejects it for mm)
    static_assert(!realify::dispatch::has_lowering_v<realify::op::mm, decltype(l23), xt::xarray<float>>);
    static_assert(realify::dispatch::has_lowering_v<realify::op::mm, xt::xarray<double>, xt::xarray<float>>);
}

// ---- the method in use ------------------------------------------------------------------------

TEST(LinalgMethod, AutomaticResolvesByMeasuredSizeAndScopesNest) {
    using realify::simd::gemm_dims;
    using realify::simd::resolve_gemm_method;
    EXPECT_EQ(resolve_gemm_method(gemm_dims{1, 4, 4, 4}, false, gemm_method::automatic), gemm_method::direct);
    EXPECT_EQ(resolve_gemm_method(gemm_dims{1, 8, 8, 8}, false, gemm_method::automatic), gemm_method::native);
    EXPECT_EQ(resolve_gemm_method(gemm_dims{1, 64, 1, 1}, false, gemm_method::automatic), gemm_method::m1);
    EXPECT_EQ(resolve_gemm_method(gemm_dims{64, 2, 2, 2}, true, gemm_method::automatic), gemm_method::native);
    EXPECT_EQ(resolve_gemm_method(gemm_dims{64, 2, 2, 2}, false, gemm_method::automatic), gemm_method::direct);
    EXPECT_EQ(resolve_gemm_method(gemm_dims{1, 512, 512, 512}, false, gemm_method::m3), gemm_method::m3);
    EXPECT_EQ(realify::to_string(gemm_method::m1), "1m");
    EXPECT_EQ(realify::to_string(gemm_method::native), "native");
    EXPECT_EQ(realify::current_gemm_method(), gemm_method::automatic);
    {
        const realify::scoped_gemm_method outer(gemm_method::m4);
        EXPECT_EQ(realify::current_gemm_method(), gemm_method::m4);
        {
            const realify::scoped_gemm_method inner(gemm_method::m3);
            EXPECT_EQ(realify::current_gemm_method(), gemm_method::m3);
        }
        EXPECT_EQ(realify::current_gemm_method(), gemm_method::m4);
    }
    EXPECT_EQ(realify::current_gemm_method(), gemm_method::automatic);
    // a call's method applies to that call only
    std::mt19937_64 rng(23);
    const carray<float> a = random_complex<float>({24, 24}, rng);
    const auto la = realify::complex_layout_of(a);
    const carray<float> c3 = result_of<float>(realify::mm(la, la, gemm_method::m3));
    EXPECT_EQ(realify::current_gemm_method(), gemm_method::automatic);
    const realify::scoped_gemm_method scope(gemm_method::m3);
    EXPECT_EQ(result_of<float>(realify::mm(la, la)), c3);
}

// ---- out= -----------------------------------------------------------------------------------
// (every buffer layout, stride 0 and wrong shapes: tests/ops/test_eager_api.cpp, EagerOut)

TEST(LinalgOut, AContiguousBufferIsWrittenByTheGemmWithoutAllocatingTheResult) {
    std::mt19937_64 rng(31);
    const std::size_t n = 96;  // a 96 × 96 complex<double> result is 144 KiB: a "large" allocation
    const carray<double> a = random_complex<double>({n, n}, rng), b = random_complex<double>({n, n}, rng);
    const xt::xtensor<std::complex<double>, 2> ta = a, tb = b;
    for (gemm_method method : all_methods) {
        SCOPED_TRACE(std::string(realify::to_string(method)));
        (void)realify::mm(ta, tb, method);  // the process's one-time choice of library (it times products) first
        const std::size_t before_allocating = large_allocations.load();
        const auto want = realify::mm(ta, tb, method);
        const std::size_t allocating = large_allocations.load() - before_allocating;
        xt::xtensor<std::complex<double>, 2> c = xt::zeros<std::complex<double>>({n, n});
        const std::size_t before_out = large_allocations.load();
        decltype(auto) returned = realify::mm(ta, tb, method, realify::out(c));
        static_assert(std::is_same_v<decltype(returned), xt::xtensor<std::complex<double>, 2>&>);
        EXPECT_EQ(&returned, &c);
        EXPECT_EQ(large_allocations.load() - before_out + 1, allocating) << "only the result is not allocated";
        EXPECT_EQ(c, want);
        // a complex_layout buffer of (…, 2) data
        xt::xtensor<double, 3> pairs = xt::zeros<double>({n, n, std::size_t(2)});
        realify::mm(ta, tb, method, realify::out(realify::as_complex_layout(pairs)));
        const xt::xtensor<std::complex<double>, 2> from_pairs = realify::to_complex_tensor(realify::as_complex_layout(pairs));
        EXPECT_EQ(from_pairs, want);
    }
    // a real product into a contiguous real buffer: no allocation at all
    const xt::xtensor<double, 2> ra = xt::real(ta), rb = xt::imag(tb);
    xt::xtensor<double, 2> rc = xt::zeros<double>({n, n});
    const std::size_t before = large_allocations.load();
    realify::mm(ra, rb, realify::out(rc));
    EXPECT_EQ(large_allocations.load(), before);
    EXPECT_EQ(rc, realify::mm(ra, rb));
    // a float buffer takes a double product (PyTorch's can_cast): through a temporary, rounded once
    xt::xtensor<float, 2> rf = xt::zeros<float>({n, n});
    realify::mm(ra, rb, realify::out(rf));
    const xt::xtensor<float, 2> rounded = xt::cast<float>(realify::mm(ra, rb));
    EXPECT_EQ(rf, rounded);
}

TEST(LinalgOut, AnOperandMayOverlapTheBufferInAnyWay) {
    std::mt19937_64 rng(37);
    using cd = std::complex<double>;
    using matrix = xt::xtensor<cd, 2>;
    const matrix a0 = random_complex<double>({8, 8}, rng), b0 = random_complex<double>({8, 8}, rng);
    for (gemm_method method : all_methods) {
        SCOPED_TRACE(std::string(realify::to_string(method)));
        const matrix want = realify::mm(a0, b0, method);
        // in place: a = a · b, a = a · a
        matrix a = a0;
        realify::mm(a, b0, method, realify::out(a));
        EXPECT_EQ(a, want);
        a = a0;
        realify::mm(a, a, method, realify::out(a));
        EXPECT_EQ(a, realify::mm(a0, a0, method));
        // the buffer one row further in the operand's storage
        matrix storage = xt::zeros<cd>({9, 8});
        xt::view(storage, xt::range(0, 8), xt::all()) = a0;
        auto operand = xt::view(storage, xt::range(0, 8), xt::all());
        realify::mm(operand, b0, method, realify::out(xt::view(storage, xt::range(1, 9), xt::all())));
        EXPECT_EQ(matrix(xt::view(storage, xt::range(1, 9), xt::all())), want);
        // a transposed view of the buffer as an operand
        a = a0;
        realify::mm(realify::transpose_view(a), b0, method, realify::out(a));
        EXPECT_EQ(a, realify::mm(matrix(xt::transpose(a0)), b0, method));
    }
    // a vector product into its own vector
    xt::xtensor<cd, 1> v = xt::view(a0, 0, xt::all());
    const xt::xtensor<cd, 1> mv_want = realify::mv(a0, v);
    realify::mv(a0, v, realify::out(v));
    EXPECT_EQ(v, mv_want);
    // checks before any write: a wrong shape names the op and both shapes
    matrix wrong = xt::zeros<cd>({8, 7});
    try {
        realify::mm(a0, b0, realify::out(wrong));
        ADD_FAILURE() << "expected a shape_error";
    } catch (const realify::shape_error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("realify::mm"), std::string::npos) << message;
        EXPECT_NE(message.find("(8, 7)"), std::string::npos) << message;
        EXPECT_NE(message.find("(8, 8)"), std::string::npos) << message;
    }
    EXPECT_EQ(wrong, matrix(xt::zeros<cd>({8, 7})));
}

// ---- the graph's nodes take the same path ---------------------------------------------------

TEST(LinalgGraph, MmBmmAndMatmulNodesRunTheTableLoweringsBitForBit) {
    namespace graph = realify::graph;
    using cd = std::complex<double>;
    std::mt19937_64 rng(29);
    const carray<double> a = random_complex<double>({2, 20, 30}, rng), b = random_complex<double>({2, 30, 10}, rng);
    const carray<double> a0 = matrix_at(a, 0), b0 = matrix_at(b, 0);
    auto x = graph::input<cd>("x");
    auto y = graph::input<cd>("y");
    auto mm_prog = graph::lower(graph::mm(x, y));
    auto bmm_prog = graph::lower(graph::bmm(x, y));
    auto matmul_prog = graph::lower(graph::matmul(x, y));
    EXPECT_NE(graph::explain(mm_prog).find("mm_induced"), std::string::npos) << graph::explain(mm_prog);
    EXPECT_NE(graph::explain(bmm_prog).find("bmm_induced"), std::string::npos);
    EXPECT_NE(graph::explain(matmul_prog).find("matmul_induced"), std::string::npos);
    for (gemm_method method : all_methods) {
        const realify::scoped_gemm_method scope(method);
        const carray<double> eager_mm =
            result_of<double>(realify::mm(realify::complex_layout_of(a0), realify::complex_layout_of(b0)));
        const carray<double> eager_bmm =
            result_of<double>(realify::bmm(realify::complex_layout_of(a), realify::complex_layout_of(b)));
        EXPECT_EQ(carray<double>(mm_prog(a0, b0)), eager_mm);
        EXPECT_EQ(carray<double>(bmm_prog(a, b)), eager_bmm);
        EXPECT_EQ(carray<double>(matmul_prog(a, b)), eager_bmm);
    }
}

// ---- backends and threads ------------------------------------------------------------------

TEST(LinalgBackend, TheBackendIsNamedAndExplainSaysIt) {
    const std::string backend(realify::simd::gemm_backend());
    EXPECT_TRUE(backend == "eigen" || backend == "openblas" || backend == "blis" || backend == "mkl" || backend == "onednn")
        << backend;
    const char* forced = std::getenv("REALIFY_GEMM_BACKEND");
    const std::string forced_name = forced == nullptr ? "" : forced;
    if (forced_name == "blas") {
        EXPECT_TRUE(backend == "openblas" || backend == "blis" || backend == "mkl") << backend;
    } else if (!forced_name.empty()) {
        EXPECT_EQ(backend, forced_name);
    }
    using realify::simd::gemm_type;
    const realify::simd::gemm_dims large{1, 256, 256, 256}, vector{1, 1, 2048, 2048};
    EXPECT_EQ(realify::simd::gemm_backend(large, gemm_type::float32), backend);
    EXPECT_EQ(realify::simd::gemm_backend(vector, gemm_type::float32), "realify");  // the skinny kernel
    // oneDNN has no double GEMM: forced, the double products run on Eigen
    if (forced_name == "onednn") {
        EXPECT_EQ(realify::simd::gemm_backend(large, gemm_type::float64), "eigen");
    }
    const std::string line = realify::simd::gemm_description(large, gemm_type::float32);
    EXPECT_NE(line.find(backend), std::string::npos) << line;
    EXPECT_NE(line.find("tiles of 256 × 128"), std::string::npos) << line;
    EXPECT_NE(realify::simd::gemm_description(vector, gemm_type::float32).find("skinny"), std::string::npos);
    EXPECT_NE(realify::simd::gemm_description(large, gemm_type::complex64, false, gemm_method::m3).find("3m on"),
              std::string::npos);
    namespace graph = realify::graph;
    auto x = graph::input<std::complex<float>>("x");
    const std::string text = graph::explain(graph::lower(graph::mm(x, x)));
    EXPECT_NE(text.find("matrix products run on: " + backend), std::string::npos) << text;
    EXPECT_EQ(realify::simd::gemm_report(), backend);  // the hook realify_gemm registers
    const std::string contraction = graph::explain(graph::lower(graph::einsum("ij,jk->ik", x, x)));
    EXPECT_NE(contraction.find("matrix products run on: " + backend), std::string::npos) << contraction;
    EXPECT_EQ(graph::explain(graph::lower(graph::exp(x))).find("matrix products run on"), std::string::npos);
}

// Several threads multiplying at once, each with its own scratch (realify
// keeps one workspace per thread): every result the single-threaded one.
TEST(LinalgThreads, ConcurrentProductsGiveTheSingleThreadedResults) {
    std::mt19937_64 rng(41);
    struct job {
        carray<float> a, b;
        gemm_method method;
        carray<float> expected;
    };
    std::vector<job> jobs;
    for (gemm_method method : {gemm_method::m1, gemm_method::m4, gemm_method::m3, gemm_method::direct})
        for (std::size_t n : {std::size_t(3), std::size_t(40), std::size_t(130)}) {
            job j{random_complex<float>({n, n + 1}, rng), random_complex<float>({n + 1, n}, rng), method, {}};
            j.expected = result_of<float>(
                realify::mm(realify::complex_layout_of(j.a), realify::complex_layout_of(j.b), method));
            jobs.push_back(std::move(j));
        }
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 3; ++round)
                for (std::size_t i = 0; i < jobs.size(); ++i) {
                    const job& j = jobs[(i + static_cast<std::size_t>(t)) % jobs.size()];
                    const carray<float> got = result_of<float>(
                        realify::mm(realify::complex_layout_of(j.a), realify::complex_layout_of(j.b), j.method));
                    if (got != j.expected) ++mismatches;
                }
        });
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace

// OpenBLAS's thread count, when the tests are linked with it (weak: absent
// otherwise).
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" int openblas_get_num_threads() __attribute__((weak));

namespace {

// OpenBLAS's own threading changes results (edge tiles go to other
// kernels): realify runs every product on one of its threads, so a product
// gives the same bits whatever OpenBLAS was set to. Shapes where OpenBLAS
// 0.3.21 on 2 threads differs from 1 thread.
TEST(LinalgBackend, ResultsDoNotDependOnTheBlasThreadCount) {
    if (realify::simd::gemm_backend() != "openblas" || openblas_set_num_threads == nullptr)
        GTEST_SKIP() << "the products run on " << realify::simd::gemm_backend() << ", not OpenBLAS";
    std::mt19937_64 rng(43);
    for (gemm_method method : {gemm_method::m1, gemm_method::m3}) {
        const carray<float> a = random_complex<float>({69, 300}, rng), b = random_complex<float>({300, 64}, rng);
        const auto la = realify::complex_layout_of(a), lb = realify::complex_layout_of(b);
        openblas_set_num_threads(1);
        const carray<float> one = result_of<float>(realify::mm(la, lb, method));
        openblas_set_num_threads(2);
        const carray<float> two = result_of<float>(realify::mm(la, lb, method));
        EXPECT_EQ(one, two) << realify::to_string(method);
        EXPECT_EQ(openblas_get_num_threads(), 1) << "realify runs the BLAS on one thread";
        const xt::xtensor<double, 2> ra = xt::real(xt::xtensor<std::complex<float>, 2>(a));
        const xt::xtensor<double, 2> rb = xt::imag(xt::xtensor<std::complex<float>, 2>(b));
        openblas_set_num_threads(1);
        const xt::xtensor<double, 2> real_one = realify::mm(ra, rb);
        openblas_set_num_threads(2);
        EXPECT_EQ(realify::mm(ra, rb), real_one);
    }
}

}  // namespace
