// The eager API against the std::complex references: every elementwise op on
// both dtypes over a grid of values (including ±0, tiny and huge magnitudes
// and points on branch cuts), broadcasting, numbers and real tensors as
// operands, strided inputs, errors; shape ops, reductions, matrix products
// and constructors against the tensor references.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <numeric>
#include <type_traits>
#include <utility>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>
#include <xtensor/xadapt.hpp>
#include <xtensor/xcomplex.hpp>
#include <xtensor/xio.hpp>
#include <xtensor/xstrided_view.hpp>

#include "realify/eager.hpp"
#include "realify/simd/arch.hpp"

#include "../support/arch_levels.hpp"
#include "../support/error_message.hpp"
#include "../support/op_records.hpp"
#include "../support/reference.hpp"
#include "../support/tensor_reference.hpp"

namespace {

using realify::complex_layout_of;
using realify::to_complex_tensor;
using realify::testing::error_message;
namespace ref = realify::reference;

template <class T>
struct tolerance;
template <>
struct tolerance<float> {
    static constexpr double rtol = 1e-5, atol = 1e-6;
};
template <>
struct tolerance<double> {
    static constexpr double rtol = 1e-12, atol = 1e-300;
};

/// |got − want| ≤ atol + rtol·|want| per component scale (the complex modulus),
/// NaN where the reference is NaN, infinities equal.
template <class T>
::testing::AssertionResult close(std::complex<T> got, std::complex<T> want) {
    auto comp = [](T g, T w, T scale) {
        if (std::isnan(w)) return std::isnan(g);
        if (std::isinf(w)) return g == w;
        return std::abs(double(g) - double(w)) <= tolerance<T>::atol + tolerance<T>::rtol * double(scale);
    };
    const T scale = std::isfinite(std::abs(want)) ? std::abs(want) : T(0);
    if (comp(got.real(), want.real(), scale) && comp(got.imag(), want.imag(), scale)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << " want " << want;
}
template <class T>
::testing::AssertionResult close(T got, T want) {
    return close(std::complex<T>(got), std::complex<T>(want));
}

/// Values on which every op is checked: a grid of ordinary numbers, ±0,
/// tiny/huge magnitudes and points on or next to the branch cuts.
template <class T>
xt::xtensor<std::complex<T>, 1> grid() {
    const std::vector<T> parts = {0, T(-0.0), T(0.5), T(-0.75), 1, -1, T(1.25), T(-2), 3, T(1e-30), T(-1e-30), T(1e15), T(-1e15)};
    std::vector<std::complex<T>> values;
    for (T re : parts)
        for (T im : parts) values.emplace_back(re, im);
    for (T x : {T(-3), T(-1.5), T(-0.5), T(0.9), T(1.5), T(4)}) {  // branch cuts of log/sqrt/acosh/asin/atanh…
        values.emplace_back(x, T(0));
        values.emplace_back(x, T(-0.0));
        values.emplace_back(T(0), x);
        values.emplace_back(T(-0.0), x);
    }
    return xt::adapt(values, {values.size()});
}

template <class T>
class EagerUnary : public ::testing::Test {};
using dtypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(EagerUnary, dtypes);

/// The op `Tag` on the grid against its reference (every op with unary
/// kernels and a complex form, from the op list). Division by a complex zero
/// (the record's singular_at_zero): PyTorch 1.13 gives NaN + NaN·i where C99
/// gives an infinity; realify follows PyTorch.
template <class T, class Tag, class F, class Ref>
void check_unary_reference(const xt::xtensor<std::complex<T>, 1>& x, F f, Ref reference) {
    if constexpr (realify::testing::has_complex_form<Tag>) {
        SCOPED_TRACE(std::string(Tag::name));
        const auto result = f(complex_layout_of(x));
        for (std::size_t i = 0; i < x.size(); ++i) {
            if constexpr (realify::testing::real_valued<Tag>) {
                EXPECT_TRUE(close(result(i), reference(x(i)))) << " at " << x(i);
            } else {
                const auto got = to_complex_tensor(result);
                if (Tag::record.singular_at_zero && x(i) == std::complex<T>(0)) {
                    EXPECT_TRUE(std::isnan(got(i).real()) && std::isnan(got(i).imag())) << " at " << x(i);
                    continue;
                }
                EXPECT_TRUE(close(got(i), reference(x(i)))) << " at " << x(i);
            }
        }
    }
}

TYPED_TEST(EagerUnary, MatchesTheStdComplexReferences) {
    using T = TypeParam;
    const auto x = grid<T>();
#define CHECK_UNARY(NAME) \
    check_unary_reference<T, realify::op::NAME>(x, [](const auto& a) { return realify::NAME(a); }, [](auto z) { return ref::NAME(z); });
    REALIFY_UNARY_KERNEL_OPS(CHECK_UNARY)
#undef CHECK_UNARY
}

TYPED_TEST(EagerUnary, SpecialValuesFollowC99AndPyTorch) {
    using T = TypeParam;
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    xt::xtensor<std::complex<T>, 1> x = {{inf, 0}, {-inf, 1}, {nan, 0}, {0, nan}, {inf, inf}, {-inf, nan}, {1, inf}};
    const auto layout = complex_layout_of(x);
#define CHECK_UNARY(NAME) \
    check_unary_reference<T, realify::op::NAME>(x, [](const auto& a) { return realify::NAME(a); }, [](auto z) { return ref::NAME(z); });
    REALIFY_UNARY_KERNEL_OPS(CHECK_UNARY)
#undef CHECK_UNARY
    const auto n = realify::isnan(layout);
    const auto f = realify::isinf(layout);
    static_assert(std::is_same_v<typename decltype(n)::value_type, bool>);
    for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(n(i), ref::isnan(x(i)));
        EXPECT_EQ(f(i), ref::isinf(x(i)));
    }
    // torch.abs / torch.angle
    EXPECT_EQ(realify::abs(layout)(1), inf);
    EXPECT_TRUE(std::isnan(realify::angle(layout)(2)));
}

TYPED_TEST(EagerUnary, BinaryOpsBroadcastNumbersAndRealTensors) {
    using T = TypeParam;
    using C = std::complex<T>;
    const auto g = grid<T>();
    // shifted off zero: division by a complex zero is checked on its own (NaN as PyTorch)
    xt::xtensor<C, 2> x = xt::reshape_view(xt::view(g, xt::range(0, 12)) + C(T(0.25), T(0.125)), {3, 4});
    xt::xtensor<C, 1> row = {{1, -2}, {0.5, 0.25}, {-3, 0}, {2, 2}};
    xt::xtensor<T, 2> col = {{2}, {-0.5}, {4}};
    const auto lx = complex_layout_of(x);
    const auto lr = complex_layout_of(row);
    const auto mul = to_complex_tensor(realify::mul(lx, lr));
    const auto div = to_complex_tensor(realify::div(lr, lx));
    const auto add = to_complex_tensor(realify::add(lx, lr, T(2)));
    const auto sub = to_complex_tensor(realify::sub(lx, col));
    const auto pw = to_complex_tensor(realify::pow(lr, lx));
    const auto by_number = to_complex_tensor(realify::mul(C(0.5, -1), lx));
    const auto number_div = to_complex_tensor(realify::div(T(3), lx));
    for (std::size_t i = 0; i < 3; ++i) {
        for (std::size_t j = 0; j < 4; ++j) {
            EXPECT_TRUE(close(mul(i, j), ref::mul(x(i, j), row(j))));
            EXPECT_TRUE(close(div(i, j), ref::div(row(j), x(i, j))));
            EXPECT_TRUE(close(add(i, j), ref::add(x(i, j), row(j), T(2))));
            EXPECT_TRUE(close(sub(i, j), x(i, j) - col(i, 0)));
            EXPECT_TRUE(close(pw(i, j), ref::pow_tensor(row(j), x(i, j)))) << row(j) << "^" << x(i, j);
            EXPECT_TRUE(close(by_number(i, j), C(0.5, -1) * x(i, j)));
            EXPECT_TRUE(close(number_div(i, j), ref::div(C(3), x(i, j))));
        }
    }
    for (double e : {2.0, 3.0, -1.0, 0.5, -0.5, 2.5, 0.0}) {
        const auto p = to_complex_tensor(realify::pow(lr, e));
        for (std::size_t j = 0; j < 4; ++j) EXPECT_TRUE(close(p(j), ref::pow_scalar(row(j), C(T(e))))) << row(j) << "^" << e;
    }
    xt::xtensor<C, 1> zero = {{0, 0}};
    const auto by_zero = to_complex_tensor(realify::div(lr, complex_layout_of(zero)));
    const auto by_real_zero = to_complex_tensor(realify::div(lr, T(0)));
    for (std::size_t j = 0; j < 4; ++j) {
        EXPECT_TRUE(std::isnan(by_zero(j).real()) && std::isnan(by_zero(j).imag()));  // torch 1.13: nan+nanj
        EXPECT_TRUE(std::isnan(by_real_zero(j).real()) && std::isnan(by_real_zero(j).imag()));
    }
    const auto pc = to_complex_tensor(realify::pow(lr, C(0.5, 1)));
    EXPECT_TRUE(close(pc(1), std::pow(row(1), C(0.5, 1))));
}

TEST(EagerApi, StridedAndTransposedInputsTakeTheGeneralPath) {
    using C = std::complex<double>;
    xt::xtensor<C, 2> x = xt::zeros<C>({4, 6});
    for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = C(double(i) - 7, 0.5 * double(i));
    auto tx = xt::transpose(x);  // (6, 4), non-contiguous
    auto stepped = xt::view(x, xt::range(0, 4, 2), xt::range(5, 0, -2));  // (2, 3), reversed steps
    const auto lt = complex_layout_of(tx);
    const auto ls = complex_layout_of(stepped);
    const auto e = to_complex_tensor(realify::exp(lt));
    const auto m = to_complex_tensor(realify::mul(lt, lt));
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 4; ++j) {
            EXPECT_TRUE(close(e(i, j), std::exp(x(j, i))));
            EXPECT_TRUE(close(m(i, j), x(j, i) * x(j, i)));
        }
    const auto s = to_complex_tensor(realify::sub(ls, C(1, 1)));
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(s(i, j), stepped(i, j) - C(1, 1));
    // a real layout whose [re, im] axis is not adjacent is copied, packed, first
    xt::xtensor<double, 2> planar = {{1, 2, 3}, {4, 5, 6}};  // rows = re, im
    auto interleaved = realify::as_complex_layout(xt::transpose(planar));
    const auto a = realify::abs(interleaved);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(a(i), std::hypot(planar(0, i), planar(1, i)));
    // … reversed and offset too, in float, and into out=: what the packed operand gives
    xt::xtensor<float, 3> planes = xt::zeros<float>({2, 3, 5});  // (re | im, rows, cols)
    for (std::size_t i = 0; i < planes.size(); ++i) planes.flat(i) = float(i % 7) - 2.5f + 0.25f * float(i);
    auto reversed = xt::view(planes, xt::all(), xt::range(2, 0, -1), xt::range(1, 5));  // (2, 2, 4)
    auto pairs = realify::as_complex_layout(xt::transpose(reversed, {1, 2, 0}));        // (2, 4) complex
    const xt::xtensor<float, 3> packed_pairs = xt::transpose(reversed, {1, 2, 0});
    const auto packed = realify::as_complex_layout(packed_pairs);
    xt::xtensor<std::complex<float>, 2> y = xt::zeros<std::complex<float>>({2, 4});
    for (std::size_t i = 0; i < y.size(); ++i) y.flat(i) = std::complex<float>(0.5f * float(i), 1.0f - float(i));
    const auto product = realify::mul(pairs, complex_layout_of(y));
    const auto want = realify::mul(packed, complex_layout_of(y));
    xt::xtensor<std::complex<float>, 2> into = xt::zeros<std::complex<float>>({2, 4});
    realify::mul(complex_layout_of(y), pairs, realify::out(into));
    const auto want_into = to_complex_tensor(realify::mul(complex_layout_of(y), packed));
    EXPECT_EQ(product.real_layout(), want.real_layout());
    EXPECT_EQ(into, want_into);
    // … and empty
    xt::xtensor<double, 2> no_pairs = xt::zeros<double>({2, 0});
    EXPECT_EQ(realify::exp(realify::as_complex_layout(xt::transpose(no_pairs))).size(), 0u);
}

/// The bits of two complex tensors of one shape are equal (NaNs included).
template <class C>
void expect_same_bits(const xt::xarray<C>& got, const xt::xarray<C>& want, const std::string& what) {
    ASSERT_EQ(got.shape(), want.shape()) << what;
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(C)), 0) << what;
}

/// Short rows of an input repeated along the axis outside them (RoPE's
/// freqs_cis (1, S, 1, D) over the heads of (B, S, H, D), a bias over rows)
/// go to the kernels in tiles of rows: the results are those of the same op
/// on the operand copied out to the full shape, bit for bit, special values
/// included, in place too.
template <class T>
void check_repeated_rows() {
    using C = std::complex<T>;
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const C specials[] = {{inf, 1}, {nan, 0}, {0, -inf}, {std::numeric_limits<T>::max(), 2},
                          {std::numeric_limits<T>::denorm_min(), -0.0f}, {-0.0f, 0}};
    std::mt19937 rng(11);
    std::uniform_real_distribution<T> u(-2, 2);
    auto random = [&](const std::vector<std::size_t>& shape) {
        xt::xarray<C> a = xt::xarray<C>::from_shape(shape);
        for (C& v : a) v = {u(rng), u(rng)};
        for (std::size_t i = 0; i < a.size(); i += 97) a.flat(i) = specials[(i / 97) % std::size(specials)];
        return a;
    };
    // (heads, row length): tiles of 8 rows and a remainder, many short rows, two rows per tile, no tile
    const std::pair<std::size_t, std::size_t> shapes[] = {{32, 64}, {13, 7}, {5, 200}, {3, 1000}, {1, 5}};
    for (const auto& [heads, d] : shapes) {
        const std::string size = " H=" + std::to_string(heads) + " D=" + std::to_string(d);
        const xt::xarray<C> x = random({2, 5, heads, d}), f = random({1, 5, 1, d}), bias = random({d});
        const xt::xarray<C> full_f = xt::broadcast(f, x.shape()), full_bias = xt::broadcast(bias, x.shape());
        expect_same_bits<C>(realify::mul(x, f), realify::mul(x, full_f), "x · f" + size);
        expect_same_bits<C>(realify::mul(f, x), realify::mul(full_f, x), "f · x" + size);
        expect_same_bits<C>(realify::div(x, f), realify::div(x, full_f), "x / f" + size);
        expect_same_bits<C>(realify::sub(f, x), realify::sub(full_f, x), "f − x" + size);
        expect_same_bits<C>(realify::add(x, bias), realify::add(x, full_bias), "x + bias" + size);
        expect_same_bits<C>(realify::mul(x, bias), realify::mul(x, full_bias), "x · bias" + size);
        const xt::xarray<T> re = xt::real(x), re_bias = xt::real(bias), re_full = xt::broadcast(re_bias, re.shape());
        EXPECT_TRUE(std::ranges::equal(xt::xarray<T>(realify::mul(re, re_bias)), xt::xarray<T>(realify::mul(re, re_full)),
                                       [](T a, T b) { return std::bit_cast<std::array<unsigned char, sizeof(T)>>(a) ==
                                                             std::bit_cast<std::array<unsigned char, sizeof(T)>>(b); }))
            << "real x · bias" + size;
        xt::xarray<C> in_place = x;
        realify::mul(in_place, f, realify::out(in_place));
        expect_same_bits<C>(in_place, realify::mul(x, full_f), "x · f in place" + size);
    }
}

TEST(EagerApi, RowsRepeatedAlongAnAxisGiveTheMaterialisedResultFloat) { check_repeated_rows<float>(); }
TEST(EagerApi, RowsRepeatedAlongAnAxisGiveTheMaterialisedResultDouble) { check_repeated_rows<double>(); }

TEST(EagerApi, ReshapeAndRollWhereNoViewFitsGoThroughAPackedCopy) {
    using C = std::complex<double>;
    xt::xtensor<C, 2> x = xt::zeros<C>({3, 4});
    for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = C(double(i) - 5, 0.25 * double(i));
    const auto tx = xt::transpose(x);  // (4, 3): no reshape of it is a view
    const xt::xarray<C> packed = tx;
    for (const bool layout : {false, true}) {
        SCOPED_TRACE(layout ? "complex layout" : "std::complex view");
        // out= into a transposed buffer: no view of the output fits either
        xt::xtensor<C, 2> buffer = xt::zeros<C>({6, 2});
        auto into = xt::transpose(buffer);  // (2, 6)
        if (layout) realify::reshape(complex_layout_of(tx), {2, 6}, realify::out(into));
        else realify::reshape(tx, {2, 6}, realify::out(into));
        EXPECT_EQ(xt::xarray<C>(into), ref::reshape<double>(packed, {2, 6}));
        xt::xtensor<C, 2> rolled_buffer = xt::zeros<C>({3, 4});
        auto rolled = xt::transpose(rolled_buffer);  // (4, 3)
        if (layout) realify::roll(complex_layout_of(tx), {5}, {}, realify::out(rolled));
        else realify::roll(tx, {5}, {}, realify::out(rolled));
        EXPECT_EQ(xt::xarray<C>(rolled), ref::roll<double>(packed, {5}));
        EXPECT_EQ(xt::xarray<C>(realify::roll(tx, {-7})), ref::roll<double>(packed, {-7}));
    }
}

TEST(EagerApi, ShapeErrorsNameTheOpAndTheShapes) {
    xt::xtensor<std::complex<float>, 2> x = xt::zeros<std::complex<float>>({2, 3});
    xt::xtensor<float, 1> bad = {1, 2};
    try {
        realify::add(complex_layout_of(x), bad);
        FAIL() << "expected a shape_error";
    } catch (const realify::shape_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("realify::add"), std::string::npos) << what;
        EXPECT_NE(what.find("(2, 3)"), std::string::npos) << what;
        EXPECT_NE(what.find("(2)"), std::string::npos) << what;
    }
    EXPECT_THROW(realify::select(complex_layout_of(x), 2, 0), realify::shape_error);
    EXPECT_THROW(realify::mm(complex_layout_of(x), complex_layout_of(x)), realify::shape_error);
}

TEST(EagerApi, SizeZeroAndRankZeroOperands) {
    using C = std::complex<float>;
    xt::xtensor<C, 2> empty = xt::zeros<C>({0, 3});
    const auto e = realify::exp(complex_layout_of(empty));
    EXPECT_EQ(e.size(), 0u);
    EXPECT_EQ(e.shape()[1], 3u);
    // shape ops and reductions on an empty tensor (xtensor's views would do
    // pointer arithmetic on its null data)
    const auto le = complex_layout_of(empty);
    EXPECT_EQ(realify::permute(le, {1, 0}).shape()[0], 3u);
    EXPECT_EQ(realify::transpose(le, 0, 1).shape()[1], 0u);
    EXPECT_EQ(realify::flip(le, {0, 1}).size(), 0u);
    EXPECT_EQ(realify::roll(le, {1}, {1}).size(), 0u);
    EXPECT_EQ(realify::slice(le, 1, 1, 3).shape()[1], 2u);
    EXPECT_EQ(realify::select(le, 1, 0).shape()[0], 0u);
    EXPECT_EQ(realify::expand(le, {2, 0, 3}).shape()[0], 2u);
    EXPECT_EQ(realify::repeat(le, {2, 2}).shape()[1], 6u);
    EXPECT_EQ(realify::cumsum(le, 1).size(), 0u);
    const auto total = realify::sum(le);
    EXPECT_EQ(total(), C(0, 0));
    EXPECT_TRUE(std::isnan(realify::mean(le)().real()));
    EXPECT_EQ(realify::sum(le, {0}).shape()[0], 3u);
    const auto s = realify::scalar_tensor(C(2, 1));
    const auto sq = realify::mul(s, s);
    EXPECT_EQ(sq(), C(3, 4));
    xt::xtensor<C, 1> v = {{1, 1}, {2, 0}};
    const auto bv = to_complex_tensor(realify::add(s, complex_layout_of(v)));  // 0-d broadcast
    EXPECT_EQ(bv(1), C(4, 1));
}

// A reversed view of an empty tensor has a non-zero offset and null data:
// its first element's address must not be formed (UBSan: "applying non-zero
// offset to null pointer"), whether it is read, written or viewed.
TEST(EagerApi, EmptyReversedViewsAreReadAndWrittenWithoutPointerArithmetic) {
    using C = std::complex<float>;
    xt::xtensor<C, 1> empty = xt::xtensor<C, 1>::from_shape({0});
    xt::xtensor<float, 2> empty_real = xt::xtensor<float, 2>::from_shape({0, 3});
    xt::xtensor<C, 1> empty_out = xt::xtensor<C, 1>::from_shape({0});
    ASSERT_EQ(empty.data(), nullptr);  // the case: what xtensor gives an empty container
    auto reversed = xt::flip(empty, 0);
    EXPECT_EQ(realify::exp(reversed).size(), 0u);
    EXPECT_EQ(realify::mul(reversed, reversed).size(), 0u);
    EXPECT_EQ(realify::abs(reversed).size(), 0u);
    EXPECT_EQ(realify::exp(xt::flip(empty_real, 0)).shape()[1], 3u);
    EXPECT_EQ(realify::add(xt::flip(empty_real, 0), 1.0f).size(), 0u);
    EXPECT_EQ(realify::sum(xt::flip(empty_real, 0), {0}, false)(2), 0.0f);
    auto reversed_out = xt::flip(empty_out, 0);
    realify::exp(reversed, realify::out(reversed_out));
    EXPECT_EQ(realify::view_as_real(reversed).shape()[1], 2u);
    EXPECT_EQ(realify::to<std::complex<double>>(reversed).size(), 0u);
}

TEST(EagerApi, FromStdComplexToOperandsAndBack) {
    using C = std::complex<double>;
    xt::xtensor<C, 2> x = {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
    auto layout = complex_layout_of(x);  // zero copy
    EXPECT_EQ(layout.real_layout().data(), reinterpret_cast<double*>(x.data()));
    auto y = realify::mul(layout, layout);
    xt::xtensor<C, 2> back = to_complex_tensor(y);
    EXPECT_EQ(back(1, 1), x(1, 1) * x(1, 1));
    // a real (…,2) buffer marked complex
    xt::xtensor<double, 2> buffer = {{1, 0}, {0, 1}};
    auto marked = realify::as_complex_layout(buffer);
    EXPECT_EQ(to_complex_tensor(realify::exp(marked))(1), std::exp(C(0, 1)));
}

// ---- shape ops, reductions, products, constructors vs the tensor references ------------------

xt::xarray<std::complex<double>> sample(std::vector<std::size_t> shape) {
    xt::xarray<std::complex<double>> x = xt::xarray<std::complex<double>>::from_shape(shape);
    for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = {std::sin(double(i) + 1), std::cos(3.0 * double(i))};
    return x;
}

template <class L>
xt::xarray<std::complex<double>> out(const L& layout) {
    return xt::xarray<std::complex<double>>(to_complex_tensor(layout));
}

TEST(EagerShape, MatchesTheTensorReferences) {
    const auto x = sample({2, 3, 4});
    const auto a = complex_layout_of(x);
    EXPECT_EQ(out(realify::permute(a, {1, -1, 0})), ref::permute<double>(x, {1, -1, 0}));
    EXPECT_EQ(out(realify::view(a, {-1, 2})), ref::reshape<double>(x, {-1, 2}));
    EXPECT_EQ(out(realify::flatten(a, 1)), ref::flatten<double>(x, 1));
    EXPECT_EQ(out(realify::flatten(a)), ref::flatten<double>(x));
    EXPECT_EQ(out(realify::unsqueeze(a, 1)), ref::unsqueeze<double>(x, 1));
    const auto u = ref::unsqueeze<double>(x, 0);
    const auto lu = complex_layout_of(u);
    EXPECT_EQ(out(realify::squeeze(lu)), ref::squeeze<double>(u));
    EXPECT_EQ(out(realify::squeeze(lu, 0)), ref::squeeze_dim<double>(u, 0));
    EXPECT_EQ(out(realify::squeeze(lu, {0, -1})), ref::squeeze_dims<double>(u, {0, -1}));
    const auto y = sample({2, 5, 4});
    const auto ly = complex_layout_of(y);
    EXPECT_EQ(out(realify::cat(std::vector{a, ly}, 1)), ref::cat<double>({x, y}, 1));
    EXPECT_EQ(out(realify::cat(std::vector{a, a}, -1)), ref::cat<double>({x, x}, -1));
    EXPECT_EQ(out(realify::stack(std::vector{a, a, a}, 1)), ref::stack<double>({x, x, x}, 1));
    EXPECT_EQ(out(realify::transpose(a, 0, 2)), ref::transpose<double>(x, 0, 2));
    const auto m = sample({3, 5});
    EXPECT_EQ(out(realify::t(complex_layout_of(m))), ref::t<double>(m));
    EXPECT_EQ(out(realify::select(a, -2, -1)), ref::select<double>(x, -2, -1));
    EXPECT_EQ(out(realify::getitem(a, 1)), ref::select<double>(x, 0, 1));
    EXPECT_EQ(out(realify::slice(a, 2, 1, 100, 2)), ref::slice<double>(x, 2, 1, 100, 2));
    EXPECT_EQ(out(realify::slice(a, -1, -3, -1)), ref::slice<double>(x, -1, -3, -1));
    EXPECT_EQ(out(realify::narrow(a, 1, 1, 2)), ref::narrow<double>(x, 1, 1, 2));
    const auto parts = realify::split(a, 3, -1);
    const auto ref_parts = ref::split<double>(x, 3, -1);
    ASSERT_EQ(parts.size(), ref_parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i) EXPECT_EQ(out(parts[i]), ref_parts[i]);
    const auto sized = realify::split(a, std::vector<std::size_t>{1, 2}, 1);
    EXPECT_EQ(out(sized[1]), ref::split_with_sizes<double>(x, {1, 2}, 1)[1]);
    const auto chunks = realify::chunk(a, 3, 2);
    EXPECT_EQ(chunks.size(), 2u);
    EXPECT_EQ(out(chunks[1]), ref::chunk<double>(x, 3, 2)[1]);
    const auto col = sample({3, 1});
    EXPECT_EQ(out(realify::expand(complex_layout_of(col), {2, 3, 4})), ref::expand<double>(col, {2, 3, 4}));
    EXPECT_EQ(out(realify::repeat(a, {1, 2, 1})), ref::repeat<double>(x, {1, 2, 1}));
    EXPECT_EQ(out(realify::flip(a, {0, -1})), ref::flip<double>(x, {0, -1}));
    EXPECT_EQ(out(realify::roll(a, {1, -2}, {0, 2})), ref::roll<double>(x, {1, -2}, {0, 2}));
    EXPECT_EQ(out(realify::roll(a, {5})), ref::roll<double>(x, {5}));
    EXPECT_EQ(realify::sym_size(a, -1), 4u);
    xt::xarray<bool> cond = {{true, false, true, false}};
    const auto w = realify::where(cond, a, std::complex<double>(9, 9));
    EXPECT_EQ(out(w), ref::where<double>(cond, x, xt::xarray<std::complex<double>>(xt::full_like(x, std::complex<double>(9, 9)))));
    const auto al = realify::alias(a);
    EXPECT_EQ(al.real_layout().data(), a.real_layout().data());
    EXPECT_EQ(out(realify::clone(a)), x);
    EXPECT_EQ(out(realify::detach(a)), x);
}


// Sizes from user input are checked, never wrapped: each of these used to
// wrap std::size_t or overflow std::ptrdiff_t (a crash, a hang, pieces of a
// 3-element tensor, or std::bad_array_new_length from inside xtensor).
TEST(EagerShape, SizeArithmeticNeverWraps) {
    constexpr std::ptrdiff_t big = (std::ptrdiff_t(1) << 62) + 1;  // big · 4 wraps to 4
    constexpr std::ptrdiff_t pmax = std::numeric_limits<std::ptrdiff_t>::max();
    constexpr std::ptrdiff_t pmin = std::numeric_limits<std::ptrdiff_t>::min();
    const auto x = sample({4});
    const auto a = complex_layout_of(x);
    auto expect_error = [](const std::string& message, const std::string& op) {
        EXPECT_NE(message.find("realify::" + op + ":"), std::string::npos) << message;
    };
    expect_error(error_message<realify::shape_error>([&] { (void)realify::reshape(a, {big, 4}); }), "reshape");
    expect_error(error_message<realify::shape_error>([&] { (void)realify::view(a, {4, big}); }), "view");
    expect_error(error_message<realify::shape_error>([&] { (void)realify::reshape(a, {big, 4, -1}); }), "reshape");
    const auto one = sample({1, 1});
    const auto l1 = complex_layout_of(one);
    expect_error(error_message<realify::shape_error>([&] { (void)realify::expand(l1, {big, 4}); }), "expand");
    expect_error(error_message<realify::shape_error>([&] { (void)realify::repeat(l1, {std::size_t(big), 4}); }), "repeat");
    // a negative count converted to std::size_t
    expect_error(error_message<realify::shape_error>([&] { (void)realify::repeat(l1, {std::size_t(-1), 1}); }), "repeat");
    const auto single = sample({1});
    const std::string negative = error_message<realify::shape_error>([&] { (void)realify::expand(complex_layout_of(single), {-2}); });
    expect_error(negative, "expand");
    EXPECT_NE(negative.find("-2"), std::string::npos) << negative;
    expect_error(error_message<realify::shape_error>([&] { (void)realify::expand(l1, {2, -3}); }), "expand");

    const auto three = sample({3});
    const auto l3 = complex_layout_of(three);
    expect_error(error_message<realify::shape_error>([&] { (void)realify::split_with_sizes(l3, {SIZE_MAX, 4}); }), "split_with_sizes");
    expect_error(error_message<realify::shape_error>([&] { (void)realify::narrow(l3, 0, 1, pmax); }), "narrow");
    expect_error(error_message<realify::shape_error>([&] { (void)realify::narrow(l3, 0, pmax, 1); }), "narrow");
    expect_error(error_message<realify::shape_error>([&] { (void)realify::narrow(l3, 0, pmin, 1); }), "narrow");
    expect_error(error_message<realify::shape_error>([&] { (void)realify::select(l3, 0, pmin); }), "select");
    EXPECT_EQ(out(realify::narrow(l3, 0, -1, 1)), ref::narrow<double>(three, 0, 2, 1));

    // A step of PTRDIFF_MAX takes the first element (PyTorch: x[0::huge]).
    EXPECT_EQ(out(realify::slice(l3, 0, 0, pmax, pmax)), ref::slice<double>(three, 0, 0, 1, 1));
    EXPECT_EQ(out(realify::slice(l3, 0, 1, pmax, pmax - 1)), ref::slice<double>(three, 0, 1, 2, 1));
    EXPECT_EQ(out(realify::slice(l3, 0, pmin, pmax, 2)), ref::slice<double>(three, 0, 0, 3, 2));
    EXPECT_EQ(realify::slice(l3, 0, pmax, pmin, 1).size(), 0u);
    xt::xarray<std::complex<double>> empty = xt::xarray<std::complex<double>>::from_shape({0, 3});
    EXPECT_EQ(realify::slice(complex_layout_of(empty), 1, 0, pmax, pmax).shape()[1], 1u);
    expect_error(error_message<realify::shape_error>([&] { (void)realify::slice(l3, 0, 0, 3, 0); }), "slice");

    // Roll shifts are reduced modulo the extent: PTRDIFF_MIN ≡ 1 (mod 3),
    // PTRDIFF_MAX ≡ 1 (mod 3); the flattened form too.
    EXPECT_EQ(out(realify::roll(l3, {pmin}, {0})), ref::roll<double>(three, {1}, {0}));
    EXPECT_EQ(out(realify::roll(l3, {pmax}, {0})), ref::roll<double>(three, {1}, {0}));
    EXPECT_EQ(out(realify::roll(l3, {pmin})), ref::roll<double>(three, {1}));
    EXPECT_EQ(out(realify::roll(l3, {-7}, {-1})), ref::roll<double>(three, {2}, {-1}));

    // Splits and chunks with sizes near SIZE_MAX.
    EXPECT_EQ(realify::split(l3, SIZE_MAX).size(), 1u);
    EXPECT_EQ(realify::chunk(l3, SIZE_MAX).size(), 3u);

    // cat / stack of parts whose extents sum past std::size_t, or past what
    // one object can hold: one element seen 2⁶² times (stride 0)
    xt::xtensor<std::complex<double>, 1> element = {{1, 2}};
    auto huge = xt::strided_view(element, xt::svector<std::size_t>{std::size_t(1) << 62}, xt::svector<std::ptrdiff_t>{0});
    using part = decltype(huge);
    const std::string wrapped = error_message<realify::shape_error>([&] { (void)realify::cat(std::vector<part>(4, huge), 0); });
    expect_error(wrapped, "cat");
    EXPECT_NE(wrapped.find("joined extent"), std::string::npos) << wrapped;
    expect_error(error_message<realify::shape_error>([&] { (void)realify::cat(std::vector<part>(2, huge), 0); }), "cat");
    expect_error(error_message<realify::shape_error>([&] { (void)realify::stack(std::vector<part>(2, huge), 0); }), "stack");
}

// The reading of operands and out= buffers reports, naming the op, what it
// cannot read: an out whose [re, im] axis is not contiguous, a tensor of more
// dimensions than the engine walks.
TEST(EagerShape, UnreadableOperandsAreNamed) {
    const xt::xtensor<std::complex<float>, 2> x = xt::ones<std::complex<float>>({2, 2});
    xt::xtensor<float, 3> planes = xt::zeros<float>({2, 2, 4});
    auto spread = realify::as_complex_layout(xt::view(planes, xt::all(), xt::all(), xt::range(0, 4, 2)));  // stride 2
    try {
        realify::exp(complex_layout_of(x), realify::out(spread));
        FAIL() << "expected a layout_error";
    } catch (const realify::layout_error& e) {
        EXPECT_EQ(std::string(e.what()), "realify::exp: out's [re, im] axis is not contiguous (stride 2)");
    }
    EXPECT_TRUE(xt::all(xt::equal(planes, 0.0f)));  // nothing written

    const std::vector<std::size_t> too_many(realify::engine::max_rank + 1, 1);
    const xt::xarray<std::complex<double>> deep = xt::ones<std::complex<double>>(too_many);
    const std::string message = error_message<realify::shape_error>([&] { (void)realify::exp(deep); });
    EXPECT_EQ(message, "realify::exp: tensors of more than " + std::to_string(realify::engine::max_rank) +
                           " dimensions are not supported");
}

// Results of more than max_rank dims are refused with the rank error every
// op gives (never a write past a shape's extents): einsum's output and its
// intermediate products, stack of max_rank-dim tensors, unsqueeze.
TEST(EagerShape, ResultsAboveTheMaximumRankAreRefused) {
    const std::string too_many =
        "tensors of more than " + std::to_string(realify::engine::max_rank) + " dimensions are not supported";
    const xt::xarray<double> half = xt::ones<double>(std::vector<std::size_t>(13, 1));
    EXPECT_EQ(error_message<realify::shape_error>([&] { (void)realify::einsum("abcdefghijklm,nopqrstuvwxyz->abcdefghijklmnopqrstuvwxyz", half, half); }),
              "realify::einsum: " + too_many);
    const xt::xarray<std::complex<float>> complex_half = xt::ones<std::complex<float>>(std::vector<std::size_t>(13, 1));
    EXPECT_EQ(error_message<realify::shape_error>([&] { (void)realify::einsum("abcdefghijklm,nopqrstuvwxyz", complex_half, complex_half); }),
              "realify::einsum: " + too_many);  // implicit output: the 26 labels seen once
    // every operand and the output fit, the product of the first two does not
    const std::string intermediate = error_message<realify::shape_error>(
        [&] { (void)realify::einsum("abcdefghijklm,nopqrstuvwxyz,abcdefghijklm,nopqrstuvwxyz->", half, half, half, half); });
    EXPECT_NE(intermediate.find("realify::einsum: contracting the operands left to right makes an intermediate tensor of 26 "
                                "dimensions (abcdefghijklmnopqrstuvwxyz)"),
              std::string::npos)
        << intermediate;
    // the same labels in an order that keeps fewer pending: the scalar product
    EXPECT_DOUBLE_EQ(realify::einsum("abcdefghijklm,abcdefghijklm,nopqrstuvwxyz,nopqrstuvwxyz->", half, half, half, half)(), 1.0);
    const xt::xarray<float> full = xt::ones<float>(std::vector<std::size_t>(realify::engine::max_rank, 1));
    EXPECT_EQ(error_message<realify::shape_error>([&] { (void)realify::stack(std::vector<xt::xarray<float>>{full, full}, 0); }),
              "realify::stack: " + too_many);
    EXPECT_EQ(error_message<realify::shape_error>([&] { (void)realify::stack(std::vector<xt::xarray<float>>{full, full}, -1); }),
              "realify::stack: " + too_many);
    EXPECT_EQ(error_message<realify::shape_error>([&] { (void)realify::unsqueeze(full, 0); }), "realify::unsqueeze: " + too_many);
    EXPECT_EQ(realify::stack(std::vector<xt::xarray<float>>{half, half}, 13).dimension(), 14u);
}

// More operands than a call holds in place (cat's list: read onto the
// heap), lazy expressions (evaluated and kept while the call runs) and
// strided views, and a read that fails after others succeeded: what was
// read is freed (the sanitizer builds check), and the error names the op.
TEST(EagerShape, LongOperandListsAreReadAndFreed) {
    using C = std::complex<double>;
    const xt::xarray<C> x = sample({2, 3});
    const xt::xarray<C> shifted = x + C(1, -1);
    auto lazy = x + C(1, -1);
    const xt::xarray<C> from_lazy = realify::cat(std::vector<decltype(lazy)>(5, lazy), 0);
    EXPECT_EQ(from_lazy, xt::concatenate(xt::xtuple(shifted, shifted, shifted, shifted, shifted), 0));

    const xt::xarray<C> wide = sample({2, 6});
    auto strided = xt::view(wide, xt::all(), xt::range(0, 6, 2));
    const xt::xarray<C> every_other = strided;
    const xt::xarray<C> from_views = realify::cat(std::vector<decltype(strided)>(4, strided), 1);
    EXPECT_EQ(from_views, xt::concatenate(xt::xtuple(every_other, every_other, every_other, every_other), 1));

    const xt::xarray<C> deep = xt::ones<C>(std::vector<std::size_t>(realify::engine::max_rank + 1, 1));
    const std::vector<decltype(lazy)> last_unreadable{lazy, lazy, lazy, deep + C(1, -1)};
    EXPECT_EQ(error_message<realify::shape_error>([&] { (void)realify::cat(last_unreadable, 0); }),
              "realify::cat: tensors of more than " + std::to_string(realify::engine::max_rank) +
                  " dimensions are not supported");
}

// A lazy xtensor expression is evaluated by realify, element by element in
// its broadcast (xtensor's stepper), before the op reads it: the same
// values as xtensor's own evaluation, whatever the expression holds —
// operands broadcast against each other, reversed and strided views, an
// empty extent, rank 0, a run-time rank.
TEST(EagerShape, LazyExpressionsAreEvaluatedAsXtensorEvaluatesThem) {
    using C = std::complex<double>;
    const xt::xtensor<C, 2> x = sample({3, 4});
    const xt::xtensor<C, 2> row = sample({1, 4});
    const xt::xtensor<double, 1> column = {0.5, -1.0, 2.0};
    auto check = [](const auto& lazy) {
        using E = std::remove_cvref_t<decltype(lazy)>;
        const xt::xarray<typename E::value_type> evaluated = lazy;
        EXPECT_EQ(xt::xarray<C>(realify::mul(lazy, C(2, -1))), xt::xarray<C>(realify::mul(evaluated, C(2, -1))));
    };
    check(x + row);                                                  // (3, 4) + (1, 4)
    check(row * xt::view(column, xt::all(), xt::newaxis()));         // (1, 4) · (3, 1)
    check(xt::view(x, xt::range(2, -4, -1), xt::range(0, 4, 3)) - C(1, 1));  // reversed, strided
    check(xt::view(x, xt::range(0, 0), xt::all()) * C(3, 0));      // an empty extent
    xt::xtensor<C, 0> number;
    number() = C(1, 2);
    check(number + C(0.5, 0));                                       // rank 0
    const xt::xarray<C> dynamic = sample({2, 1, 3});
    check(dynamic + xt::xarray<C>(sample({4, 1})));                 // run-time rank, broadcast to (2, 4, 3)
    const xt::xtensor<bool, 2> mask = xt::abs(x) > 1.0;
    EXPECT_EQ(xt::xarray<C>(realify::where(xt::abs(x) > 1.0, x, C(0, 0))), xt::xarray<C>(realify::where(mask, x, C(0, 0))));
}

TEST(EagerShape, ReductionsAndProducts) {
    const auto x = sample({2, 3, 4});
    const auto a = complex_layout_of(x);
    EXPECT_TRUE(close(realify::sum(a)(), ref::sum<double>(x)));
    EXPECT_TRUE(close(realify::mean(a)(), ref::mean<double>(x)));
    auto all_close = [](const auto& got, const auto& want) {
        ASSERT_EQ(got.shape().size(), want.shape().size());
        for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(close(got.flat(i), want.flat(i)));
    };
    all_close(out(realify::sum(a, {0, -1})), ref::sum_dim<double>(x, {0, -1}));
    all_close(out(realify::sum(a, {1}, true)), ref::sum_dim<double>(x, {1}, true));
    all_close(out(realify::mean(a, {-2})), ref::mean_dim<double>(x, {-2}));
    all_close(out(realify::prod(a, 1)), ref::prod_dim<double>(x, 1));
    all_close(out(realify::cumsum(a, -1)), ref::cumsum<double>(x, -1));
    const auto p = sample({3, 4}), q = sample({4, 5});
    all_close(out(realify::mm(complex_layout_of(p), complex_layout_of(q))), ref::mm<double>(p, q));
    const auto bp = sample({2, 3, 4}), bq = sample({2, 4, 2});
    all_close(out(realify::bmm(complex_layout_of(bp), complex_layout_of(bq))), ref::bmm<double>(bp, bq));
    all_close(out(realify::matmul(complex_layout_of(bp), complex_layout_of(q))), ref::matmul<double>(bp, q));
    const auto v = sample({4});
    all_close(out(realify::matmul(complex_layout_of(v), complex_layout_of(q))), ref::matmul<double>(v, q));
    all_close(out(realify::matmul(complex_layout_of(p), complex_layout_of(v))), ref::matmul<double>(p, v));
    EXPECT_TRUE(close(realify::dot(complex_layout_of(v), complex_layout_of(v))(), ref::dot<double>(v, v)));
    EXPECT_TRUE(close(realify::vdot(complex_layout_of(v), complex_layout_of(v))(), ref::vdot<double>(v, v)));
    // complex64 × complex128 promotes
    xt::xtensor<std::complex<float>, 2> pf = xt::cast<std::complex<float>>(xt::xtensor<std::complex<double>, 2>(p));
    const auto mixed = realify::mm(complex_layout_of(pf), complex_layout_of(q));
    static_assert(std::is_same_v<typename decltype(mixed)::real_type, double>);
}

TEST(EagerShape, Constructors) {
    using C = std::complex<float>;
    xt::xtensor<C, 2> x = xt::zeros<C>({2, 3});
    const auto lx = complex_layout_of(x);
    for (const C& v : to_complex_tensor(realify::ones_like(lx))) EXPECT_EQ(v, C(1, 0));
    for (const C& v : to_complex_tensor(realify::zeros_like(lx))) EXPECT_EQ(v, C(0, 0));
    for (const C& v : to_complex_tensor(realify::full_like(lx, 2.5))) EXPECT_EQ(v, C(2.5f, 0));
    xt::xtensor<float, 1> r = {1, 2, 0};
    xt::xtensor<float, 1> th = {0, 1.5f, 2};
    const auto p = realify::polar(r, th);  // real operands: a std::complex tensor
    static_assert(std::is_same_v<decltype(p), const xt::xtensor<C, 1>>);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(close(p(i), ref::polar(r(i), th(i))));
    const auto p2 = realify::polar(r, 0.5f);
    EXPECT_TRUE(close(p2(1), std::polar(2.0f, 0.5f)));
}


// ---- out=: every op into every buffer layout, bad buffers refused ----------------------------------

enum class buffer_layout { contiguous, offset, transposed, column_major, flipped, stepped };
constexpr buffer_layout buffer_layouts[] = {buffer_layout::contiguous,   buffer_layout::offset,  buffer_layout::transposed,
                                            buffer_layout::column_major, buffer_layout::flipped, buffer_layout::stepped};
const char* layout_name(buffer_layout l) {
    switch (l) {
        case buffer_layout::contiguous: return "contiguous";
        case buffer_layout::offset: return "offset";
        case buffer_layout::transposed: return "transposed";
        case buffer_layout::column_major: return "column-major";
        case buffer_layout::flipped: return "flipped";
        case buffer_layout::stepped: return "stepped";
    }
    return "?";
}

template <class V>
V sentinel() {
    if constexpr (std::is_same_v<V, bool>) return true;
    else return V(-777);
}

/// A buffer of `shape` laid out in a flat storage with `layout`, the rest of
/// the storage holding a sentinel; view() is one xt::strided_view type for
/// every layout.
template <class V>
class out_buffer {
public:
    out_buffer(std::vector<std::size_t> shape, buffer_layout layout, std::vector<std::ptrdiff_t> strides = {})
        : m_shape(std::move(shape)) {
        const std::size_t rank = m_shape.size();
        std::vector<std::size_t> order(rank);  // memory order of the axes, outermost first
        std::iota(order.begin(), order.end(), std::size_t{0});
        if (layout == buffer_layout::transposed && rank >= 2) std::swap(order[rank - 1], order[rank - 2]);
        if (layout == buffer_layout::column_major) std::reverse(order.begin(), order.end());
        const std::ptrdiff_t step = layout == buffer_layout::stepped ? 2 : 1;
        m_strides.assign(rank, 0);
        std::ptrdiff_t running = step;
        for (std::size_t k = rank; k-- > 0;) {
            m_strides[order[k]] = running;
            running *= static_cast<std::ptrdiff_t>(std::max<std::size_t>(m_shape[order[k]], 1));
        }
        if (!strides.empty()) m_strides = std::move(strides);
        if (layout == buffer_layout::offset) m_offset = 3;
        if (layout == buffer_layout::flipped) {
            for (std::size_t a = 0; a < rank; ++a) {
                if (m_shape[a] > 0) m_offset += (m_shape[a] - 1) * static_cast<std::size_t>(m_strides[a]);
                m_strides[a] = -m_strides[a];
            }
        }
        m_storage = xt::xarray<V>::from_shape({static_cast<std::size_t>(running) + m_offset + 4});
        std::fill(m_storage.begin(), m_storage.end(), sentinel<V>());
    }
    auto view() {
        return xt::strided_view(m_storage, std::vector<std::size_t>(m_shape), std::vector<std::ptrdiff_t>(m_strides), m_offset,
                                xt::layout_type::dynamic);
    }
    /// Storage elements outside the view that no longer hold the sentinel.
    std::size_t touched_outside() const {
        std::vector<bool> inside(m_storage.size(), false);
        std::size_t count = 1;
        for (std::size_t e : m_shape) count *= e;
        for (std::size_t flat = 0; flat < count; ++flat) {
            std::ptrdiff_t pos = static_cast<std::ptrdiff_t>(m_offset);
            std::size_t rest = flat;
            for (std::size_t a = m_shape.size(); a-- > 0;) {
                pos += static_cast<std::ptrdiff_t>(rest % m_shape[a]) * m_strides[a];
                rest /= m_shape[a];
            }
            inside[static_cast<std::size_t>(pos)] = true;
        }
        std::size_t touched = 0;
        for (std::size_t i = 0; i < m_storage.size(); ++i) touched += !inside[i] && !(m_storage.flat(i) == sentinel<V>());
        return touched;
    }

private:
    std::vector<std::size_t> m_shape;
    std::vector<std::ptrdiff_t> m_strides;
    std::size_t m_offset = 0;
    xt::xarray<V> m_storage;
};

/// Any result as an xt::xarray of its elements (std::complex for complex ones).
template <class R>
auto as_array(const R& r) {
    if constexpr (realify::is_complex_layout_v<R>) return xt::xarray<typename R::complex_type>(to_complex_tensor(r));
    else return xt::xarray<std::remove_cv_t<typename R::value_type>>(r);
}

template <class A, class B>
::testing::AssertionResult same_values(const A& got, const B& want) {
    if (!std::equal(got.shape().begin(), got.shape().end(), want.shape().begin(), want.shape().end()))
        return ::testing::AssertionFailure() << "shape " << realify::detail::format_sequence(got.shape()) << " instead of "
                                             << realify::detail::format_sequence(want.shape());
    for (std::size_t i = 0; i < want.size(); ++i)
        if (!(got.flat(i) == want.flat(i))) return ::testing::AssertionFailure() << "element " << i << ": " << got.flat(i) << " vs " << want.flat(i);
    return ::testing::AssertionSuccess();
}

/// The view type of out_buffer<V>::view(), the same for every layout.
template <class V>
using out_view = decltype(std::declval<out_buffer<V>&>().view());

/// The checks of expect_out_forms, compiled once per element type rather
/// than once per op: `into(view)` runs the op's out= form into `view`,
/// `into_layout(buffer)` (complex V only) its out= form into a complex_layout
/// of `buffer`'s view; `expected` is what its allocating form returned.
template <class V>
void check_out_forms(const xt::xarray<V>& expected, const std::function<void(out_view<V>&)>& into,
                     const std::function<void(out_buffer<V>&)>& into_layout) {
    const std::vector<std::size_t> shape(expected.shape().begin(), expected.shape().end());
    for (buffer_layout layout : buffer_layouts) {
        SCOPED_TRACE(layout_name(layout));
        out_buffer<V> buffer(shape, layout);
        auto view = buffer.view();
        into(view);
        EXPECT_TRUE(same_values(xt::xarray<V>(view), expected));
        EXPECT_EQ(buffer.touched_outside(), 0u);
        if (into_layout) {
            out_buffer<V> pairs(shape, layout);
            into_layout(pairs);
            EXPECT_TRUE(same_values(xt::xarray<V>(pairs.view()), expected));
            EXPECT_EQ(pairs.touched_outside(), 0u);
        }
    }
    if (!shape.empty() && shape[0] > 1) {
        std::vector<std::ptrdiff_t> strides(shape.size(), 1);
        for (std::size_t a = shape.size(); a-- > 1;) strides[a - 1] = strides[a] * static_cast<std::ptrdiff_t>(shape[a]);
        strides[0] = 0;
        out_buffer<V> overlapping(shape, buffer_layout::contiguous, strides);
        auto view = overlapping.view();
        const std::string message = error_message<realify::layout_error>([&] { into(view); });
        EXPECT_NE(message.find("stride 0"), std::string::npos) << message;
    }
    std::vector<std::size_t> wrong = shape;
    wrong.push_back(2);
    out_buffer<V> other(wrong, buffer_layout::contiguous);
    auto view = other.view();
    const std::string message = error_message<realify::shape_error>([&] { into(view); });
    EXPECT_NE(message.find("realify::"), std::string::npos) << message;
    EXPECT_NE(message.find(realify::detail::format_sequence(wrong)), std::string::npos) << message;
    EXPECT_NE(message.find(realify::detail::format_sequence(shape)), std::string::npos) << message;
    EXPECT_EQ(other.touched_outside() + std::count(other.view().begin(), other.view().end(), sentinel<V>()),
              other.view().size() + 0u) << "nothing is written before the checks";
}

/// f() is an op's allocating form, f(realify::out(buffer)) its out= form:
/// the same values in every buffer layout (std::complex views, and
/// complex_layouts of them), nothing written outside the buffer, the buffer
/// returned; a buffer with a stride 0 is a layout_error, one of another shape
/// a shape_error naming the op and both shapes.
template <class F>
void expect_out_forms(const std::string& name, F&& f) {
    SCOPED_TRACE(name);
    const auto expected = as_array(f());
    using V = typename decltype(expected)::value_type;
    std::function<void(out_buffer<V>&)> into_layout;
    if constexpr (realify::complex_scalar<V>)
        into_layout = [&](out_buffer<V>& pairs) {
            auto layout_view = f(realify::out(complex_layout_of(pairs.view())));  // a temporary buffer: returned by value
            static_assert(realify::is_complex_layout_v<decltype(layout_view)>);
        };
    check_out_forms<V>(expected, [&](out_view<V>& view) {
        decltype(auto) returned = f(realify::out(view));
        static_assert(std::is_same_v<decltype(returned), decltype(view)&>, "out= returns the buffer by reference");
        EXPECT_EQ(&returned, &view);
    }, into_layout);
}

/// expect_out_forms when the op takes the operand (Applies).
template <bool Applies, class F>
void out_forms_if(const std::string& name, F&& f) {
    if constexpr (Applies) expect_out_forms(name, std::forward<F>(f));
}

using C = std::complex<double>;

struct operands {
    xt::xtensor<C, 2> x = xt::xtensor<C, 2>::from_shape({3, 4});
    xt::xtensor<C, 2> y = xt::xtensor<C, 2>::from_shape({3, 4});
    xt::xtensor<C, 1> row = xt::xtensor<C, 1>::from_shape({4});
    xt::xtensor<double, 2> r = xt::xtensor<double, 2>::from_shape({3, 4});
    xt::xtensor<double, 1> rv = xt::xtensor<double, 1>::from_shape({4});
    xt::xtensor<bool, 2> cond = xt::xtensor<bool, 2>::from_shape({3, 1});
    operands() {
        for (std::size_t i = 0; i < x.size(); ++i) {
            x.flat(i) = C(0.25 * double(i) - 1.3, 0.5 - 0.125 * double(i));
            y.flat(i) = C(1.0 + 0.5 * double(i % 5), -0.75 + 0.25 * double(i % 3));
            r.flat(i) = 0.5 * double(i) - 2.25;
        }
        for (std::size_t j = 0; j < 4; ++j) {
            row(j) = C(0.5 + double(j), 1.0 - double(j));
            rv(j) = 1.5 - double(j);
        }
        cond = {{true}, {false}, {true}};
    }
};

TEST(EagerOut, ElementwiseOpsWriteIntoEveryLayout) {
    const operands o;
    const auto& x = o.x;
    const auto& y = o.y;
    const auto lx = complex_layout_of(x);
#define OUT_UNARY(NAME) expect_out_forms(#NAME, [&](auto&&... out) -> decltype(auto) { return realify::NAME(x, out...); });
    OUT_UNARY(clone) OUT_UNARY(detach) OUT_UNARY(isnan) OUT_UNARY(isinf)
#undef OUT_UNARY
    // every op with unary kernels and a complex form, from the op list
#define OUT_UNARY(NAME) \
    out_forms_if<realify::testing::has_complex_form<realify::op::NAME>>(#NAME, [&](auto&&... out) -> decltype(auto) { return realify::NAME(x, out...); });
    REALIFY_UNARY_KERNEL_OPS(OUT_UNARY)
#undef OUT_UNARY
    // every op with binary kernels (complex × complex, and × a broadcast real row where it has
    // complex forms; real × real otherwise) and every tensor-number op (of a real and of a
    // complex number), from the op list
#define OUT_BINARY(NAME)                                                                                      \
    out_forms_if<realify::testing::binary_has_complex_form<realify::op::NAME>>(                               \
        #NAME, [&](auto&&... out) -> decltype(auto) { return realify::NAME(x, y, out...); });                \
    out_forms_if<realify::testing::binary_has_complex_form<realify::op::NAME>>(                               \
        #NAME " real row", [&](auto&&... out) -> decltype(auto) { return realify::NAME(lx, o.rv, out...); }); \
    out_forms_if<!realify::testing::binary_has_complex_form<realify::op::NAME>>(                              \
        #NAME " real", [&](auto&&... out) -> decltype(auto) { return realify::NAME(o.r, o.rv, out...); });
    REALIFY_BINARY_KERNEL_OPS(OUT_BINARY)
#undef OUT_BINARY
#define OUT_SCALAR(NAME)                                                                                       \
    expect_out_forms(#NAME " real", [&](auto&&... out) -> decltype(auto) { return realify::NAME(x, 1.5, out...); }); \
    expect_out_forms(#NAME " complex", [&](auto&&... out) -> decltype(auto) { return realify::NAME(lx, C(0.5, -1), out...); });
    REALIFY_SCALAR_OPS(OUT_SCALAR)
#undef OUT_SCALAR
#define OUT_CASE(NAME, ...) expect_out_forms(NAME, [&](auto&&... out) -> decltype(auto) { return __VA_ARGS__; });
    OUT_CASE("mul", realify::mul(x, y, out...))
    OUT_CASE("mul broadcast", realify::mul(lx, o.row, out...))
    OUT_CASE("mul real tensor", realify::mul(o.r, x, out...))
    OUT_CASE("mul.Scalar", realify::mul(x, 2.5, out...))
    OUT_CASE("mul complex number", realify::mul(C(0.5, -2), lx, out...))
    OUT_CASE("div", realify::div(x, y, out...))
    OUT_CASE("div real", realify::div(x, o.rv, out...))
    OUT_CASE("div.Scalar", realify::div(x, 4.0, out...))
    OUT_CASE("number / tensor", realify::div(3.0, y, out...))
    OUT_CASE("add", realify::add(x, y, out...))
    OUT_CASE("add alpha", realify::add(x, o.row, C(1, 2), out...))
    OUT_CASE("add.Scalar", realify::add(x, 1.5, out...))
    OUT_CASE("add.Scalar alpha", realify::add(lx, C(1, -1), 2.0, out...))
    OUT_CASE("sub", realify::sub(x, o.r, out...))
    OUT_CASE("sub.Scalar alpha", realify::sub(x, 0.5, 3.0, out...))
    OUT_CASE("pow.Scalar", realify::pow(x, 2.5, out...))
    OUT_CASE("pow int", realify::pow(x, 3, out...))
    OUT_CASE("pow complex", realify::pow(x, C(0.5, 1), out...))
    OUT_CASE("pow.Tensor", realify::pow(y, x, out...))
    OUT_CASE("real add", realify::add(o.r, 1.5, out...))
    OUT_CASE("real mul", realify::mul(o.r, o.rv, out...))
    OUT_CASE("real sub alpha", realify::sub(o.r, o.rv, 2.0, out...))
    OUT_CASE("real div", realify::div(o.r, 4.0, out...))
    OUT_CASE("real pow", realify::pow(o.rv, 2.0, out...))
    OUT_CASE("polar", realify::polar(o.r, o.rv, out...))
    OUT_CASE("where", realify::where(o.cond, x, y, out...))
    OUT_CASE("where real", realify::where(o.cond, o.r, 0.5, out...))
    OUT_CASE("where mixed", realify::where(o.cond, lx, o.r, out...))
    OUT_CASE("ones_like", realify::ones_like(x, out...))
    OUT_CASE("zeros_like", realify::zeros_like(lx, out...))
    OUT_CASE("full_like", realify::full_like(x, C(2, -3), out...))
    OUT_CASE("full_like real", realify::full_like(o.r, 2.5, out...))
    OUT_CASE("to complex", realify::to<C>(o.r, out...))
    OUT_CASE("to real part", realify::to<double>(x, out...))
    OUT_CASE("to bool", realify::to<bool>(x, out...))
#undef OUT_CASE
}

TEST(EagerOut, ShapeOpsAndReductionsWriteIntoEveryLayout) {
    const operands o;
    auto check = [&](const auto& a, const char* kind) {
        SCOPED_TRACE(kind);
#define OUT_CASE(NAME, ...) expect_out_forms(NAME, [&](auto&&... out) -> decltype(auto) { return __VA_ARGS__; });
        OUT_CASE("permute", realify::permute(a, {1, 0}, out...))
        OUT_CASE("reshape", realify::reshape(a, {2, -1}, out...))
        OUT_CASE("view", realify::view(a, {4, 3}, out...))
        OUT_CASE("unsafe_view", realify::unsafe_view(a, {12}, out...))
        OUT_CASE("flatten", realify::flatten(a, 0, -1, out...))
        OUT_CASE("unsqueeze", realify::unsqueeze(a, 1, out...))
        OUT_CASE("squeeze", realify::squeeze(realify::unsqueeze(a, 0), out...))
        OUT_CASE("squeeze dim", realify::squeeze(realify::unsqueeze(a, 2), -1, out...))
        OUT_CASE("squeeze dims", realify::squeeze(realify::unsqueeze(a, 0), {0, 1}, out...))
        OUT_CASE("t", realify::t(a, out...))
        OUT_CASE("transpose", realify::transpose(a, -1, 0, out...))
        OUT_CASE("select", realify::select(a, 1, -2, out...))
        OUT_CASE("getitem", realify::getitem(a, 2, out...))
        OUT_CASE("slice", realify::slice(a, 1, 1, 3, 1, out...))
        OUT_CASE("slice step", realify::slice(a, -1, 0, 4, 2, out...))
        OUT_CASE("narrow", realify::narrow(a, 0, 1, 2, out...))
        OUT_CASE("expand", realify::expand(realify::unsqueeze(a, 0), {2, 3, -1}, out...))
        OUT_CASE("repeat", realify::repeat(a, {2, 1, 2}, out...))
        OUT_CASE("flip", realify::flip(a, {0, -1}, out...))
        OUT_CASE("roll", realify::roll(a, {1, -1}, {0, 1}, out...))
        OUT_CASE("roll flat", realify::roll(a, {5}, {}, out...))
        OUT_CASE("cat", realify::cat(std::vector{a, a}, -1, out...))
        OUT_CASE("stack", realify::stack(std::vector{a, a, a}, 1, out...))
        OUT_CASE("sum", realify::sum(a, out...))
        OUT_CASE("sum dims", realify::sum(a, {0}, true, out...))
        OUT_CASE("mean dims", realify::mean(a, {-1}, false, out...))
        OUT_CASE("prod", realify::prod(a, 0, true, out...))
        OUT_CASE("cumsum", realify::cumsum(a, 1, out...))
#undef OUT_CASE
    };
    check(o.x, "std::complex tensor");
    check(complex_layout_of(o.x), "complex layout");
    check(o.r, "real tensor");
    const auto scalar = realify::scalar_tensor(C(2, 1));
    expect_out_forms("scalar_tensor", [&](auto&&... out) -> decltype(auto) { return realify::scalar_tensor(C(2, 1), out...); });
    EXPECT_EQ(scalar(), C(2, 1));
}

TEST(EagerOut, MatrixProductsWriteIntoEveryLayout) {
    const operands o;
    const xt::xtensor<C, 2> xt4 = xt::transpose(o.y);  // 4 × 3
    xt::xtensor<C, 3> batch = xt::xtensor<C, 3>::from_shape({2, 3, 4});
    for (std::size_t i = 0; i < batch.size(); ++i) batch.flat(i) = C(0.5 - 0.125 * double(i), 0.25 * double(i % 7));
    const xt::xtensor<C, 3> batch_t = xt::transpose(batch, {0, 2, 1});
    const xt::xtensor<double, 2> rt = xt::transpose(o.r);
    const auto lx = complex_layout_of(o.x);
#define OUT_CASE(NAME, ...) expect_out_forms(NAME, [&](auto&&... out) -> decltype(auto) { return __VA_ARGS__; });
    OUT_CASE("mm", realify::mm(o.x, xt4, out...))
    OUT_CASE("mm of views", realify::mm(lx, realify::mH(complex_layout_of(o.y)), out...))
    OUT_CASE("mm 3m", realify::mm(o.x, xt4, realify::gemm_method::m3, out...))
    OUT_CASE("bmm", realify::bmm(batch, batch_t, out...))
    OUT_CASE("matmul broadcast", realify::matmul(batch, xt4, out...))
    OUT_CASE("matmul vector", realify::matmul(o.row, batch_t, out...))
    OUT_CASE("mv", realify::mv(lx, o.row, out...))
    OUT_CASE("dot", realify::dot(o.row, o.row, out...))
    OUT_CASE("vdot", realify::vdot(o.row, o.row, realify::gemm_method::direct, out...))
    OUT_CASE("real mm", realify::mm(o.r, rt, out...))
    OUT_CASE("real matmul", realify::matmul(o.r, o.rv, out...))
    OUT_CASE("real dot", realify::dot(o.rv, o.rv, out...))
#undef OUT_CASE
    // the allocating forms return what a user of the operands expects
    static_assert(std::is_same_v<decltype(realify::mm(o.x, xt4)), xt::xtensor<C, 2>>);
    static_assert(std::is_same_v<decltype(realify::matmul(batch, xt4)), xt::xarray<C>>);
    static_assert(std::is_same_v<decltype(realify::dot(o.row, o.row)), xt::xtensor<C, 0>>);
    static_assert(std::is_same_v<decltype(realify::mm(lx, complex_layout_of(xt4))),
                                 realify::complex_layout<xt::xtensor<double, 3>>>);
    static_assert(std::is_same_v<decltype(realify::mm(o.r, rt)), xt::xtensor<double, 2>>);
}

TEST(EagerOut, ExactlyAnInputRunsInPlacePartialOverlapIsRefused) {
    const operands o;
    for (buffer_layout layout : {buffer_layout::contiguous, buffer_layout::transposed, buffer_layout::flipped}) {
        SCOPED_TRACE(layout_name(layout));
        auto in_place = [&](const auto& f, const auto& want) {
            out_buffer<C> buffer({3, 4}, layout);
            auto z = buffer.view();
            z = o.x;
            decltype(auto) result = f(z, realify::out(z));
            EXPECT_EQ(&result, &z);
            EXPECT_TRUE(same_values(xt::xarray<C>(z), as_array(want)));
        };
        in_place([&](auto& z, auto&& out) -> decltype(auto) { return realify::exp(z, out); }, realify::exp(o.x));
        in_place([&](auto& z, auto&& out) -> decltype(auto) { return realify::mul(z, o.y, out); }, realify::mul(o.x, o.y));
        in_place([&](auto& z, auto&& out) -> decltype(auto) { return realify::mul(o.y, z, out); }, realify::mul(o.y, o.x));
        in_place([&](auto& z, auto&& out) -> decltype(auto) { return realify::add(z, o.r, 2.0, out); }, realify::add(o.x, o.r, 2.0));
        in_place([&](auto& z, auto&& out) -> decltype(auto) { return realify::div(z, z, out); }, realify::div(o.x, o.x));
        in_place([&](auto& z, auto&& out) -> decltype(auto) { return realify::clone(z, out); }, o.x);
        in_place([&](auto& z, auto&& out) -> decltype(auto) { return realify::cumsum(z, 1, out); }, realify::cumsum(o.x, 1));
        in_place([&](auto& z, auto&& out) -> decltype(auto) { return realify::slice(z, 0, 0, 3, 1, out); }, o.x);
        in_place([&](auto& z, auto&& out) -> decltype(auto) { return realify::where(o.cond, z, C(1, 1), out); },
                 realify::where(o.cond, o.x, C(1, 1)));
    }
    // out one row further in the same storage: a partial overlap, refused before anything is written
    xt::xtensor<C, 2> storage = xt::zeros<C>({4, 4});
    xt::view(storage, xt::range(0, 3), xt::all()) = o.x;
    auto input = xt::view(storage, xt::range(0, 3), xt::all());
    auto shifted = xt::view(storage, xt::range(1, 4), xt::all());
    const xt::xtensor<C, 2> before = storage;
    auto refused = [&](const std::string& message) {
        EXPECT_NE(message.find("overlap"), std::string::npos) << message;
        EXPECT_EQ(storage, before);
    };
    refused(error_message<realify::layout_error>([&] { realify::exp(input, realify::out(shifted)); }));
    refused(error_message<realify::layout_error>([&] { realify::mul(o.x, input, realify::out(shifted)); }));
    auto shifted_pairs = realify::view_as_real(shifted);
    refused(error_message<realify::layout_error>(
        [&] { realify::abs(input, realify::out(xt::view(shifted_pairs, xt::all(), xt::all(), 1))); }));
    refused(error_message<realify::layout_error>([&] { realify::clone(input, realify::out(shifted)); }));
    refused(error_message<realify::layout_error>([&] { realify::cumsum(input, 0, realify::out(shifted)); }));
    refused(error_message<realify::layout_error>([&] { realify::flip(input, {0}, realify::out(shifted)); }));
    refused(error_message<realify::layout_error>([&] { realify::sum(input, {0}, true, realify::out(xt::view(storage, xt::range(2, 3), xt::all()))); }));
    // a square tensor permuted into itself, rolled or concatenated into itself: refused
    xt::xtensor<C, 2> square = xt::view(storage, xt::all(), xt::all());
    const xt::xtensor<C, 2> square_before = square;
    EXPECT_THROW(realify::permute(square, {1, 0}, realify::out(square)), realify::layout_error);
    EXPECT_THROW(realify::roll(square, {1}, {0}, realify::out(square)), realify::layout_error);
    EXPECT_THROW(realify::repeat(square, {1, 1}, realify::out(square)), realify::layout_error);
    auto first_half = xt::view(square, xt::range(0, 2), xt::all());
    auto rows = xt::xtensor<C, 2>(first_half);
    EXPECT_THROW(realify::cat(std::vector<decltype(first_half)>{first_half, first_half}, 0, realify::out(square)),
                 realify::layout_error);
    EXPECT_EQ(square, square_before);
    (void)rows;
}

// ---- the out= contract on buffers that cannot simply take the result -----------------------------

/// Values equal within `rtol` of the largest magnitude (NaN where NaN).
template <class A, class B>
::testing::AssertionResult near_values(const A& got, const B& want, double rtol) {
    if (!std::equal(got.shape().begin(), got.shape().end(), want.shape().begin(), want.shape().end()))
        return ::testing::AssertionFailure() << "shape " << realify::detail::format_sequence(got.shape()) << " instead of "
                                             << realify::detail::format_sequence(want.shape());
    double scale = 0;
    for (std::size_t i = 0; i < want.size(); ++i) scale = std::max(scale, double(std::abs(want.flat(i))));
    for (std::size_t i = 0; i < want.size(); ++i) {
        const auto g = std::complex<double>(got.flat(i)), w = std::complex<double>(want.flat(i));
        if (std::abs(g - w) > rtol * scale) return ::testing::AssertionFailure() << "element " << i << ": " << g << " vs " << w;
    }
    return ::testing::AssertionSuccess();
}

/// `run()` writes into a buffer that shares memory with an operand: either
/// the buffer then holds `want`, or the call throws layout_error before
/// anything in `storage` changed. Never a wrong result.
template <class Storage, class Buffer, class Want, class Run>
void correct_or_refused(const std::string& what, Storage& storage, Buffer& buffer, const Want& want, Run&& run) {
    SCOPED_TRACE(what);
    const Storage before = storage;
    try {
        run();
    } catch (const realify::layout_error& e) {
        EXPECT_EQ(storage, before) << "written before the refusal: " << e.what();
        return;
    }
    EXPECT_TRUE(near_values(xt::xarray<typename Buffer::value_type>(buffer), want, 1e-13));
}

TEST(EagerOut, ContractWrongShapePrecisionAndStrideZeroBuffers) {
    const operands o;
    // wrong shape: a shape_error naming the op and both shapes, nothing written
    xt::xtensor<C, 2> wide = xt::xtensor<C, 2>::from_shape({3, 5});
    wide.fill(C(-7, -7));
    const std::string message = error_message<realify::shape_error>([&] { realify::exp(o.x, realify::out(wide)); });
    EXPECT_NE(message.find("exp"), std::string::npos) << message;
    EXPECT_NE(message.find(realify::detail::format_sequence(std::vector<std::size_t>{3, 5})), std::string::npos) << message;
    EXPECT_NE(message.find(realify::detail::format_sequence(std::vector<std::size_t>{3, 4})), std::string::npos) << message;
    EXPECT_TRUE(xt::all(xt::equal(wide, C(-7, -7))));
    xt::xtensor<C, 1> flat = xt::xtensor<C, 1>::from_shape({12});
    EXPECT_THROW(realify::mul(o.x, o.y, realify::out(flat)), realify::shape_error);  // same size, other shape
    EXPECT_THROW(realify::mm(o.x, xt::xtensor<C, 2>(xt::transpose(o.y)), realify::out(wide)), realify::shape_error);
    // the other precision (PyTorch's can_cast: either precision of the same kind): the result
    // computed in the operands' precision, rounded once into the buffer
    using CF = std::complex<float>;
    xt::xtensor<CF, 2> single = xt::xtensor<CF, 2>::from_shape({3, 4});
    realify::exp(o.x, realify::out(single));
    const xt::xtensor<C, 2> exact = realify::exp(o.x);
    for (std::size_t i = 0; i < exact.size(); ++i) EXPECT_EQ(single.flat(i), CF(exact.flat(i))) << i;
    const xt::xtensor<CF, 2> xf = xt::cast<CF>(o.x);
    xt::xtensor<C, 2> widened = xt::xtensor<C, 2>::from_shape({3, 4});
    realify::mul(xf, xf, realify::out(widened));
    const xt::xtensor<CF, 2> product_f = realify::mul(xf, xf);
    for (std::size_t i = 0; i < widened.size(); ++i) EXPECT_EQ(widened.flat(i), C(product_f.flat(i))) << i;
    xt::xtensor<float, 2> magnitudes = xt::xtensor<float, 2>::from_shape({3, 4});
    realify::abs(o.x, realify::out(magnitudes));
    const xt::xtensor<double, 2> exact_abs = realify::abs(o.x);
    for (std::size_t i = 0; i < magnitudes.size(); ++i) EXPECT_EQ(magnitudes.flat(i), float(exact_abs.flat(i))) << i;
    xt::xtensor<CF, 2> summed = xt::xtensor<CF, 2>::from_shape({1, 4});
    realify::sum(o.x, {0}, true, realify::out(summed));
    EXPECT_TRUE(near_values(summed, xt::xtensor<C, 2>(realify::sum(o.x, {0}, true)), 1e-6));
    // a stride-0 buffer (every row the same memory): a layout_error, for every kind of op
    xt::xtensor<C, 1> row = xt::xtensor<C, 1>::from_shape({4});
    row.fill(C(-7, -7));
    auto broadcast_rows = xt::strided_view(row, std::vector<std::size_t>{3, 4}, std::vector<std::ptrdiff_t>{0, 1}, 0,
                                           xt::layout_type::dynamic);
    xt::xtensor<double, 1> real_row = xt::xtensor<double, 1>::from_shape({4});
    real_row.fill(-7);
    auto stride_zero = [&](const char* what, auto&& run) {
        const std::string m = error_message<realify::layout_error>(run);
        EXPECT_NE(m.find("stride 0"), std::string::npos) << what << ": " << m;
        EXPECT_TRUE(xt::all(xt::equal(row, C(-7, -7)))) << what;
        EXPECT_TRUE(xt::all(xt::equal(real_row, -7.0))) << what;
    };
    stride_zero("exp", [&] { realify::exp(o.x, realify::out(broadcast_rows)); });
    stride_zero("mul", [&] { realify::mul(o.x, o.row, realify::out(broadcast_rows)); });
    stride_zero("flip", [&] { realify::flip(o.x, {0}, realify::out(broadcast_rows)); });
    stride_zero("cumsum", [&] { realify::cumsum(o.x, 0, realify::out(broadcast_rows)); });
    stride_zero("mm", [&] { realify::mm(o.x, xt::xtensor<C, 2>(xt::eye<C>(4)), realify::out(broadcast_rows)); });
    auto real_broadcast = xt::strided_view(real_row, std::vector<std::size_t>{3, 4}, std::vector<std::ptrdiff_t>{0, 1}, 0,
                                           xt::layout_type::dynamic);
    stride_zero("abs", [&] { realify::abs(o.x, realify::out(real_broadcast)); });
}

// out= a view of an operand's own memory in another order (flipped,
// transposed), or the real / imaginary parts of a complex operand: each
// element of the result may land where another element is still to be
// read. Every op either gives the right values or refuses with a
// layout_error before writing — never a result computed from half-overwritten input.
TEST(EagerOut, ContractBuffersThatAliasAnOperandInAnotherOrder) {
    const operands o;
    xt::xtensor<C, 2> square = xt::xtensor<C, 2>::from_shape({4, 4});
    for (std::size_t i = 0; i < square.size(); ++i) square.flat(i) = C(0.25 * double(i) - 1.5, 0.5 - 0.0625 * double(i));
    const xt::xtensor<C, 2> original = square;
    const xt::xtensor<C, 2> other = xt::transpose(original);
    auto reset = [&] { square = original; };
    auto flipped = xt::flip(square, 0);
    auto transposed = xt::transpose(square);
    auto check = [&](const std::string& what, auto& buffer, const auto& want, auto&& run) {
        reset();
        correct_or_refused(what, square, buffer, want, run);
    };
    check("exp into flip(x)", flipped, realify::exp(original), [&] { realify::exp(square, realify::out(flipped)); });
    check("exp into x^T", transposed, realify::exp(original), [&] { realify::exp(square, realify::out(transposed)); });
    check("mul into flip(x)", flipped, realify::mul(original, other),
          [&] { realify::mul(square, other, realify::out(flipped)); });
    check("add into x^T (second operand)", transposed, realify::add(other, original),
          [&] { realify::add(other, square, realify::out(transposed)); });
    check("neg into x^T", transposed, realify::neg(original), [&] { realify::neg(square, realify::out(transposed)); });
    check("flip into flip(x)", flipped, realify::flip(original, {1}),
          [&] { realify::flip(square, {1}, realify::out(flipped)); });
    check("permute into x^T", transposed, realify::permute(original, {1, 0}),
          [&] { realify::permute(square, {1, 0}, realify::out(transposed)); });
    check("cumsum into flip(x)", flipped, realify::cumsum(original, 0),
          [&] { realify::cumsum(square, 0, realify::out(flipped)); });
    check("cumsum into x^T", transposed, realify::cumsum(original, 1),
          [&] { realify::cumsum(square, 1, realify::out(transposed)); });
    check("mm into x^T", transposed, realify::mm(original, other),
          [&] { realify::mm(square, other, realify::out(transposed)); });
    check("mm into flip(x)", flipped, realify::mm(other, original),
          [&] { realify::mm(other, square, realify::out(flipped)); });
    check("where into flip(x)", flipped, realify::where(xt::xtensor<bool, 2>({{true}, {false}, {true}, {false}}), original, other),
          [&] { realify::where(xt::xtensor<bool, 2>({{true}, {false}, {true}, {false}}), square, other, realify::out(flipped)); });
    auto rows_flipped = xt::view(square, xt::range(3, -5, -1), xt::all());
    check("exp into a reversed slice of x", rows_flipped, realify::exp(original),
          [&] { realify::exp(square, realify::out(rows_flipped)); });
    // the real and imaginary parts of a complex operand as the buffer of a real result
    auto pairs = realify::view_as_real(square);
    auto re = xt::view(pairs, xt::all(), xt::all(), 0);
    auto im = xt::view(pairs, xt::all(), xt::all(), 1);
    check("abs into real(x)", re, realify::abs(original), [&] { realify::abs(square, realify::out(re)); });
    check("abs into imag(x)", im, realify::abs(original), [&] { realify::abs(square, realify::out(im)); });
    check("imag into real(x)", re, realify::imag(original), [&] { realify::imag(square, realify::out(re)); });
    check("real into imag(x)", im, realify::real(original), [&] { realify::real(square, realify::out(im)); });
    check("angle into real(x)", re, realify::angle(original), [&] { realify::angle(square, realify::out(re)); });
    check("real into real(x)", re, realify::real(original), [&] { realify::real(square, realify::out(re)); });
    auto first_row = xt::view(re, xt::range(0, 1), xt::all());
    const xt::xtensor<double, 2> column_sums = xt::sum(xt::real(original), {0}, xt::keep_dims);
    check("sum of real(x) into its first row", first_row, column_sums,
          [&] { realify::sum(re, {0}, true, realify::out(first_row)); });
    // a real operand whose reversed self is the buffer
    xt::xtensor<double, 1> line = {1, -2, 3, -4, 5, -6, 7};
    const xt::xtensor<double, 1> line_before = line;
    auto line_flipped = xt::flip(line, 0);
    correct_or_refused("real exp into flip(r)", line, line_flipped, realify::exp(line_before),
                       [&] { realify::exp(line, realify::out(line_flipped)); });
}

// ---- PyTorch's real-tensor ops ----------------------------------------------------------------

TEST(EagerOut, RealTensorOpsWriteIntoEveryLayout) {
    const operands o;
    const auto& r = o.r;  // (3, 4)
    const xt::xtensor<double, 1> w = {1.0, 0.5, -2.0, 1.5}, b = {0.25, 0.0, -1.0, 2.0};
    const xt::xtensor<double, 2> m = {{0.5, -1.0, 2.0}, {1.5, 0.25, -0.75}, {-2.0, 1.0, 0.0}, {0.125, 3.0, -1.5}};
#define OUT_CASE(NAME, ...) expect_out_forms(NAME, [&](auto&&... out) -> decltype(auto) { return __VA_ARGS__; });
    OUT_CASE("clamp numbers", realify::clamp(r, -1.0, 1.5, out...))
    OUT_CASE("clamp min only", realify::clamp(r, 0.0, std::nullopt, out...))
    OUT_CASE("clamp tensor bounds", realify::clamp(r, o.rv, 2.0, out...))
    OUT_CASE("clamp_min", realify::clamp_min(r, o.rv, out...))
    OUT_CASE("clamp_max", realify::clamp_max(r, 0.5, out...))
    OUT_CASE("maximum", realify::maximum(r, o.rv, out...))
    OUT_CASE("minimum", realify::minimum(o.rv, r, out...))
    OUT_CASE("sigmoid", realify::sigmoid(r, out...))
    OUT_CASE("silu", realify::silu(r, out...))
    OUT_CASE("erf", realify::erf(r, out...))
    OUT_CASE("gelu", realify::gelu(r, out...))
    OUT_CASE("gelu tanh", realify::gelu(r, "tanh", out...))
    OUT_CASE("conj of a real tensor", realify::conj(r, out...))
    OUT_CASE("conj_physical", realify::conj_physical(o.x, out...))
    OUT_CASE("resolve_conj", realify::resolve_conj(o.x, out...))
    OUT_CASE("real of a real tensor", realify::real(r, out...))
    OUT_CASE("amax", realify::amax(r, {1}, true, out...))
    OUT_CASE("amin", realify::amin(r, {0}, false, out...))
    OUT_CASE("var", realify::var(r, {1}, 1.0, false, out...))
    OUT_CASE("std_dev", realify::std_dev(r, {0}, 0.0, true, out...))
    OUT_CASE("var of complex", realify::var(o.x, {0}, 1.0, false, out...))
    OUT_CASE("softmax", realify::softmax(r, -1, out...))
    OUT_CASE("softmax dim 0", realify::softmax(r, 0, out...))
    OUT_CASE("log_softmax", realify::log_softmax(r, 1, out...))
    OUT_CASE("layer_norm", realify::layer_norm(r, {4}, w, b, 1e-5, out...))
    OUT_CASE("layer_norm over two dims", realify::layer_norm(r, {3, 4}, out...))
    OUT_CASE("rms_norm", realify::rms_norm(r, {4}, w, 1e-6, out...))
    OUT_CASE("einsum", realify::einsum("ij,jk->ik", r, m, out...))
    OUT_CASE("einsum transposed", realify::einsum("ij->ji", m, out...))
    OUT_CASE("einsum complex", realify::einsum("ij,ij->i", o.x, o.y, out...))
#undef OUT_CASE
}

TEST(EagerRealTensors, OrderingOpsFollowPyTorch) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const xt::xtensor<double, 1> x = {-2.0, -0.0, 0.0, 0.5, 3.0, nan, inf, -inf};
    auto same = [](double got, double want) { return std::isnan(want) ? std::isnan(got) : (got == want && std::signbit(got) == std::signbit(want)); };
    auto expect = [&](const auto& got, std::vector<double> want, const char* what) {
        ASSERT_EQ(got.size(), want.size()) << what;
        for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(same(got(i), want[i])) << what << " at " << i << ": " << got(i);
    };
    expect(realify::clamp(x, 0.0, 1.0), {0, -0.0, 0, 0.5, 1, nan, 1, 0}, "clamp(x, 0, 1): x kept on a bound, NaN kept");
    expect(realify::clamp(x, 2.0, 1.0), {1, 1, 1, 1, 1, nan, 1, 1}, "clamp(x, 2, 1): min > max gives max");
    expect(realify::clamp(x, nan, 1.0), std::vector<double>(8, nan), "clamp(x, NaN, 1)");
    expect(realify::clamp(x, std::nullopt, nan), std::vector<double>(8, nan), "clamp(x, None, NaN) = clamp_max(x, NaN)");
    expect(realify::maximum(x, xt::xtensor<double, 1>{-3, 0.0, -0.0, 0.5, nan, 1, 2, 3}), {-2, 0.0, 0.0, 0.5, nan, nan, inf, 3},
           "maximum: +0 above −0 whichever side, NaN propagates");
    expect(realify::minimum(x, xt::xtensor<double, 1>{-3, 0.0, -0.0, 0.5, nan, 1, 2, 3}), {-3, -0.0, -0.0, 0.5, nan, nan, 2, -inf},
           "minimum");
    // tensor bounds broadcast, one pass; a bound tensor of NaN gives NaN
    const xt::xtensor<double, 2> lo = {{0.0}, {nan}};
    const xt::xtensor<double, 2> c = realify::clamp(x, lo, 2.0);
    ASSERT_EQ(c.shape()[0], 2u);
    for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_TRUE(same(c(0, i), std::isnan(x(i)) ? nan : std::clamp(x(i), 0.0, 2.0) == 0.0 && x(i) == 0.0 ? x(i) : std::clamp(x(i), 0.0, 2.0))) << i;
        EXPECT_TRUE(std::isnan(c(1, i))) << i;
    }
    const xt::xtensor<float, 1> f = {1.5f, -1.5f};
    static_assert(std::is_same_v<decltype(realify::clamp(f, 0.0, 1.0)), xt::xtensor<float, 1>>, "a number never widens a tensor");
}

TEST(EagerRealTensors, ReductionsAndNormalisationsCheckTheirArguments) {
    const xt::xtensor<double, 2> x = {{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};
    const xt::xtensor<double, 2> empty = xt::xtensor<double, 2>::from_shape({2, 0});
    // a maximum of no elements: as PyTorch, an error naming the op (an empty result is fine)
    EXPECT_NE(error_message<realify::shape_error>([&] { realify::amax(empty, {1}); }).find("realify::amax"), std::string::npos);
    EXPECT_EQ(realify::amin(empty, {0}).size(), 0u);
    // var: Bessel's correction by default; N − correction ≤ 0 gives NaN (0/0) or inf (as PyTorch)
    EXPECT_DOUBLE_EQ(realify::var(x, {1})(0), 1.0);
    EXPECT_DOUBLE_EQ(realify::var(x, {1}, 0.0)(1), 2.0 / 3.0);
    EXPECT_TRUE(std::isnan(realify::var(xt::xtensor<double, 1>{2.0})()));
    EXPECT_TRUE(std::isinf(realify::var(xt::xtensor<double, 1>{1.0, 2.0}, {}, 3.0)()));
    EXPECT_DOUBLE_EQ(realify::std_dev(x)(), std::sqrt(3.5));
    // offset data: two passes keep every digit the data has
    const xt::xtensor<float, 1> offset = {10001.f, 10002.f, 10003.f};
    EXPECT_FLOAT_EQ(realify::var(offset)(), 1.0f);
    const auto ln = realify::layer_norm(offset, {3}, std::nullopt, std::nullopt, 0.0);
    EXPECT_NEAR(ln(0), -std::sqrt(1.5f), 1e-6f);
    // layer_norm's normalized_shape must be the trailing dims; weight and bias of that shape
    std::string message = error_message<realify::shape_error>([&] { realify::layer_norm(x, {2}); });
    EXPECT_NE(message.find("realify::layer_norm: normalized_shape (2) is not the trailing dims of the input of shape (2, 3)"),
              std::string::npos) << message;
    message = error_message<realify::shape_error>([&] { realify::layer_norm(x, {3}, xt::xtensor<double, 1>{1.0, 2.0}); });
    EXPECT_NE(message.find("weight has shape (2)"), std::string::npos) << message;
    EXPECT_THROW(realify::rms_norm(x, {2, 3, 4}), realify::shape_error);
    // an empty normalized_shape is refused, as PyTorch refuses it (out= too)
    message = error_message<realify::shape_error>([&] { realify::layer_norm(x, {}); });
    EXPECT_NE(message.find("realify::layer_norm: normalized_shape is ()"), std::string::npos) << message;
    message = error_message<realify::shape_error>([&] { realify::rms_norm(x, {}, xt::xtensor<double, 0>(1.0)); });
    EXPECT_NE(message.find("realify::rms_norm: normalized_shape is ()"), std::string::npos) << message;
    xt::xtensor<double, 2> untouched = xt::zeros<double>({2, 3});
    EXPECT_THROW(realify::layer_norm(x, {}, realify::out(untouched)), realify::shape_error);
    EXPECT_TRUE(xt::all(xt::equal(untouched, 0.0)));
    EXPECT_THROW(realify::softmax(x, 2), realify::shape_error);
    EXPECT_THROW(realify::var(x, {5}), realify::shape_error);
    // softmax of a 0-d tensor along dim 0 or −1 is 1 (as PyTorch)
    xt::xtensor<double, 0> scalar = xt::xtensor<double, 0>::from_shape({});
    scalar() = 2.0;
    EXPECT_EQ(realify::softmax(scalar, -1)(), 1.0);
    EXPECT_EQ(realify::log_softmax(scalar, 0)(), 0.0);
    // gelu's approximate: 'none' or 'tanh'
    EXPECT_THROW(realify::gelu(x, "erf"), realify::error);
    // in place: out is the input
    xt::xtensor<double, 2> y = x;
    realify::softmax(y, 1, realify::out(y));
    EXPECT_TRUE(same_values(xt::xarray<double>(y), xt::xarray<double>(realify::softmax(x, 1))));
    y = x;
    realify::layer_norm(y, {3}, realify::out(y));
    EXPECT_TRUE(same_values(xt::xarray<double>(y), xt::xarray<double>(realify::layer_norm(x, {3}))));
}

TEST(EagerRealTensors, EinsumParsesPyTorchsEquations) {
    xt::xtensor<double, 4> q = xt::xtensor<double, 4>::from_shape({2, 3, 4, 5}), k = xt::xtensor<double, 4>::from_shape({2, 3, 6, 5});
    for (std::size_t i = 0; i < q.size(); ++i) q.flat(i) = std::sin(double(i));
    for (std::size_t i = 0; i < k.size(); ++i) k.flat(i) = std::cos(double(i) * 0.7);
    const xt::xarray<double> scores = realify::matmul(q, xt::xtensor<double, 4>(xt::transpose(k, {0, 1, 3, 2})));
    auto near = [](const auto& got, const xt::xarray<double>& want) {
        if (got.dimension() != want.dimension()) return false;
        for (std::size_t i = 0; i < want.size(); ++i)
            if (std::abs(got.flat(i) - want.flat(i)) > 1e-12 * (1 + std::abs(want.flat(i)))) return false;
        return true;
    };
    EXPECT_TRUE(near(realify::einsum("bhqd,bhkd->bhqk", q, k), scores));
    // q and k as (batch, seq, heads, head_dim), read through their strides
    const auto qs = xt::transpose(q, {0, 2, 1, 3});
    const auto ks = xt::transpose(k, {0, 2, 1, 3});
    EXPECT_TRUE(near(realify::einsum("bqhd,bkhd->bhqk", qs, ks), scores));
    // implicit output: the labels seen once, sorted (b, h, d are summed)
    EXPECT_TRUE(near(realify::einsum("b h q d , b h k d", q, k), realify::einsum("bhqd,bhkd->kq", q, k)));
    const xt::xtensor<double, 2> a = {{1, 2}, {3, 4}};
    EXPECT_EQ(realify::einsum("ii", a)(), 5.0);
    EXPECT_EQ(realify::einsum("ii->i", a)(1), 4.0);
    EXPECT_EQ(realify::einsum("...", a)(1, 0), 3.0);
    const std::string bad = error_message<realify::error>([&] { realify::einsum("ij,jk->ik", a, xt::xtensor<double, 2>::from_shape({3, 2})); });
    EXPECT_NE(bad.find("realify::einsum"), std::string::npos) << bad;
    EXPECT_NE(bad.find("subscript j"), std::string::npos) << bad;
    EXPECT_THROW(realify::einsum("ij->ii", a), realify::error);
    EXPECT_THROW(realify::einsum("ij->k", a), realify::error);
    EXPECT_THROW(realify::einsum("ijk", a), realify::error);
    EXPECT_THROW(realify::einsum("i$", a), realify::error);
}

// ---- plain std::complex containers as operands and results --------------------------------------

TEST(EagerContainers, StdComplexContainersAdaptorsAndViewsAreOperands) {
    const operands o;
    const xt::xarray<C> xa = o.x;
    std::vector<C> raw(o.x.begin(), o.x.end());
    auto adapted = xt::adapt(raw, std::vector<std::size_t>{3, 4});
    xt::xtensor<C, 2> wide = xt::zeros<C>({3, 8});
    xt::view(wide, xt::all(), xt::range(0, 8, 2)) = o.x;
    auto strided = xt::view(wide, xt::all(), xt::range(0, 8, 2));
    const auto want = as_array(realify::mul(complex_layout_of(o.x), complex_layout_of(o.y)));
    // results are what a user of the operands expects
    const auto from_xtensor = realify::mul(o.x, o.y);
    static_assert(std::is_same_v<decltype(from_xtensor), const xt::xtensor<C, 2>>);
    const auto from_xarray = realify::mul(xa, o.y);
    static_assert(std::is_same_v<decltype(from_xarray), const xt::xarray<C>>);
    const auto from_adaptor = realify::mul(adapted, o.y);
    const auto from_view = realify::mul(strided, o.y);
    const auto from_lazy = realify::mul(o.x * C(1, 0), o.y);  // no memory: evaluated once
    const auto mixed = realify::mul(complex_layout_of(o.x), o.y);
    static_assert(std::is_same_v<decltype(mixed), const realify::complex_layout<xt::xtensor<double, 3>>>);
    const auto magnitude = realify::abs(o.x);
    static_assert(std::is_same_v<decltype(magnitude), const xt::xtensor<double, 2>>);
    const auto flags = realify::isnan(xa);
    static_assert(std::is_same_v<decltype(flags), const xt::xarray<bool>>);
    const auto moved = realify::permute(o.x, {1, 0});
    static_assert(std::is_same_v<decltype(moved), const xt::xtensor<C, 2>>);
    const auto reshaped = realify::reshape(o.x, {-1});
    static_assert(std::is_same_v<decltype(reshaped), const xt::xarray<C>>);
    const auto total = realify::sum(o.x);
    static_assert(std::is_same_v<decltype(total), const xt::xtensor<C, 0>>);
    const auto cast = realify::to<std::complex<float>>(complex_layout_of(o.x));
    static_assert(std::is_same_v<decltype(cast), const realify::complex_layout<xt::xtensor<float, 3>>>);
    for (const auto* got : {&from_xtensor}) EXPECT_TRUE(same_values(*got, want));
    EXPECT_TRUE(same_values(xt::xarray<C>(from_xarray), want));
    EXPECT_TRUE(same_values(xt::xarray<C>(from_adaptor), want));
    EXPECT_TRUE(same_values(xt::xarray<C>(from_view), want));
    EXPECT_TRUE(same_values(xt::xarray<C>(from_lazy), want));
    EXPECT_TRUE(same_values(as_array(mixed), want));
    EXPECT_TRUE(close(total(), ref::sum<double>(xa)));
    // an adapted buffer and a strided view as out=
    std::vector<C> target(12);
    auto target_view = xt::adapt(target, std::vector<std::size_t>{3, 4});
    realify::mul(o.x, o.y, realify::out(target_view));
    EXPECT_TRUE(same_values(xt::xarray<C>(target_view), want));
    realify::mul(o.x, o.y, realify::out(strided));
    EXPECT_TRUE(same_values(xt::xarray<C>(strided), want));
    // a lazy expression cannot be a buffer (a static_assert), a complex buffer
    // cannot take a real result (a static_assert): see tests/ops/test_dispatch.cpp
}

// std::vector and std::span are 1-D tensors: read and written in place
// (through adaptors of their memory), the allocating form an xt::xtensor.
TEST(EagerContainers, StdVectorAndSpanAreOperandsAndBuffers) {
    using F = std::complex<float>;
    const std::vector<F> v = {{1, 2}, {-0.5f, 0.25f}, {3, -4}, {0, 0}, {-2, 1.5f}};
    const std::vector<F> w = {{0.5f, -1}, {2, 2}, {-1, 0}, {1, 1}, {0.25f, 4}};
    const xt::xtensor<F, 1> xv = xt::adapt(v, {v.size()});
    const xt::xtensor<F, 1> xw = xt::adapt(w, {w.size()});
    const auto product = realify::mul(v, w);
    static_assert(std::is_same_v<decltype(product), const xt::xtensor<F, 1>>);
    EXPECT_TRUE(same_values(product, realify::mul(xv, xw)));
    const auto e = realify::exp(v);
    static_assert(std::is_same_v<decltype(e), const xt::xtensor<F, 1>>);
    EXPECT_TRUE(same_values(e, realify::exp(xv)));
    // spans (of const elements too), a vector and a tensor, real vectors, numbers
    const std::span<const F> sv(v);
    EXPECT_TRUE(same_values(realify::add(sv, std::span(w), 2.0f), realify::add(xv, xw, 2.0f)));
    EXPECT_TRUE(same_values(realify::sub(xv, w), realify::sub(xv, xw)));
    const std::vector<double> r = {0.5, -1, 2, 0, 1e300};
    const xt::xtensor<double, 1> xr = xt::adapt(r, {r.size()});
    const auto scaled = realify::mul(v, r);
    static_assert(std::is_same_v<decltype(scaled), const xt::xtensor<std::complex<double>, 1>>);
    EXPECT_TRUE(same_values(scaled, realify::mul(xv, xr)));
    const auto real_sum = realify::add(r, 1.0);
    static_assert(std::is_same_v<decltype(real_sum), const xt::xtensor<double, 1>>);
    EXPECT_TRUE(same_values(real_sum, realify::add(xr, 1.0)));
    EXPECT_TRUE(same_values(realify::mul(v, 2.0f), realify::mul(xv, 2.0f)));
    EXPECT_TRUE(same_values(realify::pow(v, 2.0), realify::pow(xv, 2.0)));
    EXPECT_TRUE(same_values(realify::abs(v), realify::abs(xv)));
    // shape ops, reductions, products, casts
    EXPECT_TRUE(same_values(realify::reshape(v, {1, -1}), realify::reshape(xv, {1, -1})));
    EXPECT_TRUE(same_values(realify::flip(v, {0}), realify::flip(xv, {0})));
    EXPECT_TRUE(same_values(realify::sum(v), realify::sum(xv)));
    EXPECT_TRUE(same_values(realify::cumsum(v, 0), realify::cumsum(xv, 0)));
    EXPECT_TRUE(same_values(realify::cat(std::vector{v, w}, 0), realify::cat(std::vector{xv, xw}, 0)));
    EXPECT_TRUE(same_values(realify::dot(v, w), realify::dot(xv, xw)));
    const xt::xtensor<F, 2> m = xt::reshape_view(realify::cat(std::vector{xv, xw}, 0), {2, 5});
    EXPECT_TRUE(same_values(realify::mv(m, v), realify::mv(m, xv)));
    EXPECT_TRUE(same_values(realify::to<std::complex<double>>(r), realify::to<std::complex<double>>(xr)));
    // out=: a vector or a span of the right size, written in place and returned
    std::vector<F> target(v.size(), F(-7, -7));
    decltype(auto) returned = realify::mul(v, w, realify::out(target));
    static_assert(std::is_same_v<decltype(returned), std::vector<F>&>);
    EXPECT_EQ(&returned, &target);
    EXPECT_TRUE(same_values(xt::xtensor<F, 1>(xt::adapt(target, {target.size()})), product));
    std::vector<F> storage(v.size() + 2, F(-7, -7));
    const std::span<F> middle(storage.data() + 1, v.size());
    const auto into_span = realify::exp(v, realify::out(middle));
    EXPECT_EQ(into_span.data(), middle.data());
    EXPECT_TRUE(same_values(xt::xtensor<F, 1>(xt::adapt(middle.data(), middle.size(), xt::no_ownership())), e));
    EXPECT_EQ(storage.front(), F(-7, -7));  // nothing written outside the span
    EXPECT_EQ(storage.back(), F(-7, -7));
    std::vector<double> magnitudes(v.size());
    realify::abs(v, realify::out(magnitudes));
    EXPECT_TRUE(same_values(xt::xtensor<double, 1>(xt::adapt(magnitudes, {magnitudes.size()})),
                            xt::xtensor<double, 1>(realify::abs(xv))));
    std::vector<std::complex<double>> widened(r.size());
    realify::to<std::complex<double>>(r, realify::out(widened));
    EXPECT_EQ(widened[1], std::complex<double>(-1, 0));
    std::vector<F> total(1);
    realify::sum(v, {0}, true, realify::out(total));
    EXPECT_TRUE(close(total[0], realify::sum(xv)()));
    // in place into the operand itself; a buffer of another size is a shape_error naming both shapes
    std::vector<F> z = v;
    realify::exp(z, realify::out(z));
    EXPECT_TRUE(same_values(xt::xtensor<F, 1>(xt::adapt(z, {z.size()})), e));
    std::vector<F> short_buffer(v.size() - 1, F(-7, -7));
    const std::string message = error_message<realify::shape_error>([&] { realify::mul(v, w, realify::out(short_buffer)); });
    EXPECT_NE(message.find(realify::detail::format_sequence(std::vector<std::size_t>{4})), std::string::npos) << message;
    EXPECT_NE(message.find(realify::detail::format_sequence(std::vector<std::size_t>{5})), std::string::npos) << message;
    EXPECT_EQ(short_buffer, std::vector<F>(v.size() - 1, F(-7, -7)));
    // empty vectors are empty tensors
    const std::vector<F> none;
    EXPECT_EQ(realify::exp(none).size(), 0u);
}

// The ordering ops take std::vector and std::span like every other eager op:
// as operands, bounds and out= buffers.
TEST(EagerContainers, OrderingOpsTakeStdVectorAndSpan) {
    const std::vector<float> a = {1, -2, 0.5f, -0.0f, 7};
    const std::vector<float> b = {0, 3, 0.5f, 0.0f, -1};
    const xt::xtensor<float, 1> xa = xt::adapt(a, {a.size()});
    const xt::xtensor<float, 1> xb = xt::adapt(b, {b.size()});
    const auto high = realify::maximum(a, b);
    static_assert(std::is_same_v<decltype(high), const xt::xtensor<float, 1>>);
    EXPECT_TRUE(same_values(high, realify::maximum(xa, xb)));
    EXPECT_TRUE(same_values(realify::minimum(std::span(a), xb), realify::minimum(xa, xb)));
    EXPECT_TRUE(same_values(realify::clamp_min(a, 0.0f), realify::clamp_min(xa, 0.0f)));
    EXPECT_TRUE(same_values(realify::clamp_max(xa, std::span<const float>(b)), realify::clamp_max(xa, xb)));
    EXPECT_TRUE(same_values(realify::clamp(a, b, std::nullopt), realify::clamp(xa, xb, std::nullopt)));
    const std::vector<double> d = {0.25, 4, -8, 1e300, -0.0};
    const xt::xtensor<double, 1> xd = xt::adapt(d, {d.size()});
    EXPECT_TRUE(same_values(realify::maximum(a, d), realify::maximum(xa, xd)));  // promotes to double
    std::vector<float> target(a.size(), -7.0f);
    decltype(auto) returned = realify::minimum(a, b, realify::out(target));
    static_assert(std::is_same_v<decltype(returned), std::vector<float>&>);
    EXPECT_EQ(&returned, &target);
    EXPECT_TRUE(same_values(xt::xtensor<float, 1>(xt::adapt(target, {target.size()})), realify::minimum(xa, xb)));
    std::vector<float> short_buffer(a.size() - 1);
    EXPECT_THROW(realify::maximum(a, b, realify::out(short_buffer)), realify::shape_error);
}

TEST(EagerContainers, OperandsOfOtherComponentTypesAreConvertedPerBlock) {
    // int and bool tensors with floating numbers compute in float (PyTorch's promotion)
    xt::xtensor<int, 1> counts = {1, 2, 3, -4};
    const auto half = realify::mul(counts, 0.5f);
    static_assert(std::is_same_v<decltype(half), const xt::xtensor<float, 1>>);
    EXPECT_EQ(half(3), -2.0f);
    xt::xtensor<bool, 1> mask = {true, false, true, true};
    EXPECT_EQ(realify::add(mask, 0.25)(1), 0.25f);
    // complex64 tensor × float64 0-d tensor stays complex64: the double operand is converted
    xt::xtensor<std::complex<float>, 1> z = {{1, 2}, {3, -4}};
    xt::xtensor<double, 0> two = 2.0;
    const auto doubled = realify::mul(z, two);
    static_assert(std::is_same_v<decltype(doubled), const xt::xtensor<std::complex<float>, 1>>);
    EXPECT_EQ(doubled(1), std::complex<float>(6, -8));
    // complex64 × complex128 n-d tensors promote to complex128; long rows go through several blocks
    xt::xtensor<std::complex<float>, 1> long_f = xt::xtensor<std::complex<float>, 1>::from_shape({5000});
    xt::xtensor<C, 1> long_d = xt::xtensor<C, 1>::from_shape({5000});
    for (std::size_t i = 0; i < 5000; ++i) {
        long_f(i) = {float(i % 7) - 3.0f, 0.5f};
        long_d(i) = C(0.25, double(i % 3));
    }
    const auto product = realify::mul(long_f, xt::view(long_d, xt::range(4999, -5001, -1)));
    static_assert(std::is_same_v<decltype(product), const xt::xtensor<C, 1>>);
    for (std::size_t i = 0; i < 5000; i += 777) EXPECT_EQ(product(i), C(long_f(i)) * long_d(4999 - i)) << i;
}

// Reduction dims as PyTorch 1.13: a dim named twice is refused ("dim 0
// appears multiple times in the list of dims"), not reduced once; a 0-d
// tensor reduces over dim 0 or −1 (wrapped as rank 1) to itself — sum, mean,
// prod and cumsum alike — and refuses dim 1 and a repeated dim.
TEST(EagerShape, ReductionDimsAsPyTorch) {
    using C = std::complex<double>;
    const xt::xtensor<C, 2> x = {{{1, 2}, {3, 4}, {5, 6}}, {{7, 8}, {9, 10}, {11, 12}}};
    const xt::xtensor<double, 2> r = {{1, 2, 3}, {4, 5, 6}};
    const std::string twice = error_message<realify::shape_error>([&] { realify::sum(x, {0, -2}, true); });
    EXPECT_NE(twice.find("sum_dim: dim 0 appears multiple times in the list of dims"), std::string::npos) << twice;
    EXPECT_NE(error_message<realify::shape_error>([&] { realify::mean(r, {1, -1}, false); })
                  .find("dim 1 appears multiple times"), std::string::npos);
    EXPECT_THROW(realify::sum(complex_layout_of(x), {-1, 1}, false), realify::shape_error);
    xt::xtensor<C, 2> buffer = xt::zeros<C>({1, 3});
    EXPECT_THROW(realify::sum(x, {0, 0}, true, realify::out(buffer)), realify::shape_error);
    // 0-d tensors: complex, complex layout, real
    const xt::xtensor<C, 0> s = C(2, 1);
    const xt::xtensor<double, 0> s_real = 2.5;
    const auto ls = complex_layout_of(s);
    for (std::ptrdiff_t d : {0, -1}) {
        SCOPED_TRACE(d);
        for (bool keepdim : {false, true}) {
            const auto summed = realify::sum(s, {d}, keepdim);
            EXPECT_EQ(summed.dimension(), 0u);
            EXPECT_EQ(summed(), s());
            EXPECT_EQ(realify::mean(s, {d}, keepdim)(), s());
            EXPECT_EQ(realify::prod(s, d, keepdim)(), s());
            EXPECT_EQ(realify::sum(s_real, {d}, keepdim)(), 2.5);
            EXPECT_EQ(to_complex_tensor(realify::sum(ls, {d}, keepdim))(), s());
        }
        EXPECT_EQ(realify::cumsum(s, d).dimension(), 0u);
        EXPECT_EQ(realify::cumsum(s, d)(), s());
    }
    EXPECT_EQ(realify::sum(s, {}, true)(), s());
    xt::xtensor<C, 0> into = C(0, 0);
    realify::sum(s, {0}, false, realify::out(into));
    EXPECT_EQ(into(), s());
    const std::string range = error_message<realify::shape_error>([&] { realify::sum(s, {1}, false); });
    EXPECT_NE(range.find("out of range"), std::string::npos) << range;
    EXPECT_THROW(realify::sum(s, {0, -1}, false), realify::shape_error);
    EXPECT_THROW(realify::mean(s_real, {1}, false), realify::shape_error);
    EXPECT_THROW(realify::prod(s, 1, false), realify::shape_error);
    EXPECT_THROW(realify::cumsum(s, 1), realify::shape_error);
}

// ---- real tensors through the non-elementwise ops ----------------------------------------------------

/// The real parts of a complex reference on x + 0i: what the op gives a real tensor.
template <class R>
xt::xarray<double> real_part(const R& r) {
    return xt::real(xt::xarray<C>(r));
}

/// check(f(x), reference, name) when the op takes a real tensor.
template <class Tag, class X, class Check, class F, class Ref>
void check_real_form(const X& x, Check& check, F f, Ref reference) {
    if constexpr (realify::testing::has_real_form<Tag>) check(f(x), reference, Tag::name.data());
}

// The unary math of a real tensor is the real function, as PyTorch's real ops
// (std::'s values; sgn of NaN 0, angle π below 0), allocating and into out=.
TEST(EagerRealTensors, UnaryMathIsTheRealFunction) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const xt::xtensor<double, 1> x = {-0.0, 0.0, 0.25, -0.75, 2.5, -2.5, inf, -inf, nan};
    auto same = [](double got, double want) { return std::isnan(want) ? std::isnan(got) : (got == want && std::signbit(got) == std::signbit(want)); };
    auto check = [&](const auto& got, auto reference, const char* what) {
        static_assert(std::is_same_v<std::remove_cvref_t<decltype(got)>, xt::xtensor<double, 1>>);
        for (std::size_t i = 0; i < x.size(); ++i) {
            const double want = reference(x(i));
            EXPECT_TRUE(same(got(i), want) || std::abs(got(i) - want) <= 1e-12 * std::abs(want)) << what << "(" << x(i) << ") = " << got(i);
        }
    };
    // every op with unary kernels and a real form, from the op list
#define CHECK_REAL(NAME) \
    check_real_form<realify::op::NAME>(x, check, [](const auto& t) { return realify::NAME(t); }, [](auto v) { return ref::NAME(v); });
    REALIFY_UNARY_KERNEL_OPS(CHECK_REAL)
#undef CHECK_REAL
    check(realify::pow_scalar(x, 3.0), [](double v) { return std::pow(v, 3.0); }, "pow_scalar");
    const auto nans = realify::isnan(x);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(nans)>, xt::xtensor<bool, 1>>);
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(nans(i), std::isnan(x(i))) << i;
    xt::xtensor<float, 1> into = xt::zeros<float>({x.size()});
    realify::floor(x, realify::out(into));
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(same(into(i), float(std::floor(x(i))))) << i;
}

TEST(EagerRealTensors, ShapeOpsReductionsAndFillsMatchTheReferences) {
    xt::xarray<double> r = xt::xarray<double>::from_shape({2, 3, 4});
    for (std::size_t i = 0; i < r.size(); ++i) r.flat(i) = std::sin(double(i) + 1) * 3.0;
    const xt::xarray<C> c = xt::cast<C>(r);
    auto expect = [](const auto& got, const xt::xarray<double>& want, const char* what) {
        EXPECT_TRUE(same_values(xt::xarray<double>(got), want)) << what;
    };
    expect(realify::select(r, -1, 2), real_part(ref::select<double>(c, -1, 2)), "select on the last axis");
    expect(realify::select(r, 0, 1), real_part(ref::select<double>(c, 0, 1)), "select");
    expect(realify::getitem(r, 1), real_part(ref::select<double>(c, 0, 1)), "getitem");
    expect(realify::slice(r, 2, 1, 4, 2), real_part(ref::slice<double>(c, 2, 1, 4, 2)), "slice");
    expect(realify::narrow(r, 1, 1, 2), real_part(ref::narrow<double>(c, 1, 1, 2)), "narrow");
    expect(realify::cat(std::vector{r, r}, -1), real_part(ref::cat<double>({c, c}, -1)), "cat");
    expect(realify::stack(std::vector{r, r}, 3), real_part(ref::stack<double>({c, c}, 3)), "stack");
    expect(realify::transpose(r, 0, 2), real_part(ref::transpose<double>(c, 0, 2)), "transpose");
    expect(realify::permute(r, {2, 0, 1}), real_part(ref::permute<double>(c, {2, 0, 1})), "permute");
    const xt::xarray<double> m = xt::view(r, 0);
    expect(realify::t(m), real_part(ref::t<double>(xt::xarray<C>(xt::cast<C>(m)))), "t");
    const auto u = realify::unsqueeze(r, -1);
    expect(u, real_part(ref::unsqueeze<double>(c, -1)), "unsqueeze");
    expect(realify::squeeze(u), r, "squeeze");
    expect(realify::squeeze(u, -1), r, "squeeze dim");
    expect(realify::flip(r, {0, 2}), real_part(ref::flip<double>(c, {0, 2})), "flip");
    expect(realify::roll(r, {2, -1}, {2, 0}), real_part(ref::roll<double>(c, {2, -1}, {2, 0})), "roll");
    expect(realify::roll(r, {7}), real_part(ref::roll<double>(c, {7})), "roll flattened");
    expect(realify::repeat(r, {2, 1, 1, 2}), real_part(ref::repeat<double>(c, {2, 1, 1, 2})), "repeat");
    expect(realify::expand(realify::select(r, 0, 0), {5, 3, 4}), real_part(ref::expand<double>(ref::select<double>(c, 0, 0), {5, 3, 4})), "expand");
    expect(realify::reshape(r, {4, -1}), real_part(ref::reshape<double>(c, {4, -1})), "reshape");
    expect(realify::view(xt::transpose(r), {-1}), real_part(ref::reshape<double>(xt::xarray<C>(xt::transpose(c)), {-1})), "view of a transposed tensor");
    expect(realify::flatten(r, 1), real_part(ref::flatten<double>(c, 1)), "flatten");
    // the last axis of a real view of a complex tensor: its real and imaginary parts
    const auto pairs = realify::view_as_real(complex_layout_of(c));
    expect(realify::select(pairs, -1, 0), r, "select on the [re, im] axis of a real view");
    auto close_to = [](const auto& got, const xt::xarray<double>& want, const char* what) {
        const xt::xarray<double> g = got;
        ASSERT_EQ(g.shape().size(), want.shape().size()) << what;
        for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(close(g.flat(i), want.flat(i))) << what << " " << i;
    };
    close_to(realify::sum(r), xt::xarray<double>(std::real(ref::sum<double>(c))), "sum");
    close_to(realify::sum(r, {0, -1}, true), real_part(ref::sum_dim<double>(c, {0, -1}, true)), "sum keepdim");
    close_to(realify::mean(r, {1}), real_part(ref::mean_dim<double>(c, {1})), "mean");
    close_to(realify::mean(r), xt::xarray<double>(std::real(ref::mean<double>(c))), "mean of all");
    close_to(realify::prod(r, 2, true), real_part(ref::prod_dim<double>(c, 2, true)), "prod keepdim");
    close_to(realify::cumsum(r, 0), real_part(ref::cumsum<double>(c, 0)), "cumsum");
    const xt::xarray<bool> cond = xt::xtensor<bool, 2>{{true}, {false}, {true}};
    expect(realify::where(cond, r, -1.0), real_part(ref::where<double>(cond, c, xt::xarray<C>(xt::full_like(c, C(-1))))), "where");
    expect(realify::zeros_like(r), xt::zeros_like(r), "zeros_like");
    expect(realify::ones_like(r), xt::ones_like(r), "ones_like");
    expect(realify::full_like(r, 2.5), xt::full_like(r, 2.5), "full_like");
    expect(realify::add(r, 1.5), r + 1.5, "add a number");
    expect(realify::mul(2.0, r), r * 2.0, "mul by a number");
    expect(realify::sub(r, 0.5, 2.0), r - 1.0, "sub with alpha");
    expect(realify::div(r, r), xt::ones_like(r), "div");
    static_assert(std::is_same_v<decltype(realify::select(r, 0, 0)), xt::xarray<double>>);
    static_assert(std::is_same_v<decltype(realify::permute(xt::xtensor<float, 2>{}, {1, 0})), xt::xtensor<float, 2>>);
    static_assert(std::is_same_v<decltype(realify::sum(xt::xtensor<float, 2>{})), xt::xtensor<float, 0>>);
}

TEST(EagerCasts, ToFollowsPyTorch) {
    xt::xtensor<double, 1> r = {1.5, -0.0, 3e40, -2};
    const auto z = realify::to<std::complex<float>>(r);
    static_assert(std::is_same_v<decltype(z), const xt::xtensor<std::complex<float>, 1>>);
    EXPECT_EQ(z(0), std::complex<float>(1.5f, 0));
    EXPECT_TRUE(std::isinf(z(2).real()));  // double → float overflows to inf, as a C++ conversion
    const auto f = realify::to<float>(r);
    static_assert(std::is_same_v<decltype(f), const xt::xtensor<float, 1>>);
    EXPECT_EQ(f(3), -2.0f);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    xt::xtensor<C, 1> c = {{0, 0}, {0, -0.0}, {0, 2}, {nan, 0}, {-3, 0}};
    const auto b = realify::to<bool>(c);
    static_assert(std::is_same_v<decltype(b), const xt::xtensor<bool, 1>>);
    EXPECT_EQ(b, (xt::xtensor<bool, 1>{false, false, true, true, true}));
    EXPECT_EQ(realify::to<double>(c)(4), -3.0);  // the real part
    EXPECT_EQ(realify::to<bool>(r), (xt::xtensor<bool, 1>{true, false, true, true}));
    const auto layout = realify::to<std::complex<float>>(complex_layout_of(c));
    static_assert(std::is_same_v<decltype(layout), const realify::complex_layout<xt::xtensor<float, 2>>>);
    EXPECT_EQ(layout(2), std::complex<float>(0, 2));
    xt::xtensor<int, 1> ints = {3, -1};
    EXPECT_EQ(realify::to<C>(ints)(1), C(-1, 0));
    EXPECT_EQ(realify::to<float>(xt::xtensor<float, 1>{1, 2})(1), 2.0f);
}

// ---- reductions: the fixed order, its error bound, special values, every instruction set -----------
//
// docs/numerics.md ("Reductions"): a sum along the reduced axis (a sequence of n elements of e
// components, cut into blocks of 2048 reals in 64 real lanes) has depth 31 + log2(64/e) +
// ⌈log2 nb⌉ (nb blocks); across (a kept axis innermost), 31 + ⌈log2 nb⌉ (blocks of 32 rows). With
// double accumulation the error is at most γ_depth·Σ|x| (γ_k = k·2⁻⁵³ / (1 − k·2⁻⁵³)), then the
// rounding to the output type. References are long double, summed pairwise.

using ld = long double;
using cld = std::complex<long double>;

std::size_t ceil_log2(std::size_t n) { return n <= 1 ? 0 : static_cast<std::size_t>(std::bit_width(n - 1)); }
std::size_t along_depth(std::size_t n, std::size_t e) { return 31 + (e == 1 ? 6 : 5) + ceil_log2((n * e + 2047) / 2048); }
std::size_t across_depth(std::size_t rows) { return 31 + ceil_log2((rows + 31) / 32); }

template <class T>
constexpr bool is_complex_v = !std::is_floating_point_v<T>;
template <class C>
using part_t = decltype(std::real(C{}));

cld as_cld(float x) { return x; }
cld as_cld(double x) { return x; }
template <class T>
cld as_cld(std::complex<T> z) { return {z.real(), z.imag()}; }

/// Σ of n long doubles, pairwise.
ld pairwise_sum(const ld* x, std::size_t n) {
    if (n <= 8) return std::accumulate(x, x + n, ld(0));
    return pairwise_sum(x, n / 2) + pairwise_sum(x + n / 2, n - n / 2);
}

/// What a reduction of one group of elements should give, in long double.
struct exact_values {
    cld sum, abs_sum;  // per component: Σx and Σ|x|
    cld product;
    ld variance_m2 = 0;  // Σ|x − mean|²
    std::size_t count = 0;
};
template <class C>
exact_values exact_of(const std::vector<C>& g) {
    exact_values r;
    r.count = g.size();
    std::vector<ld> re(g.size()), im(g.size()), are(g.size()), aim(g.size());
    for (std::size_t i = 0; i < g.size(); ++i) {
        const cld z = as_cld(g[i]);
        re[i] = z.real();
        im[i] = z.imag();
        are[i] = std::fabs(z.real());
        aim[i] = std::fabs(z.imag());
    }
    r.sum = {pairwise_sum(re.data(), re.size()), pairwise_sum(im.data(), im.size())};
    r.abs_sum = {pairwise_sum(are.data(), are.size()), pairwise_sum(aim.data(), aim.size())};
    r.product = 1;
    for (const C& z : g) {  // the pair product, in long double
        const cld w = as_cld(z), p = r.product;
        r.product = {p.real() * w.real() - p.imag() * w.imag(), p.real() * w.imag() + p.imag() * w.real()};
    }
    const cld mean = g.empty() ? cld(0) : r.sum / static_cast<ld>(g.size());
    std::vector<ld> squares(g.size());
    for (std::size_t i = 0; i < g.size(); ++i) squares[i] = std::norm(as_cld(g[i]) - mean);
    r.variance_m2 = pairwise_sum(squares.data(), squares.size());
    return r;
}

/// The elements every output of a reduction over `axes` reads, in row-major order, per output.
template <class C>
std::vector<std::vector<C>> groups_of(const xt::xarray<C>& x, const std::vector<std::size_t>& axes) {
    const std::size_t rank = x.dimension();
    std::size_t outputs = 1;
    for (std::size_t a = 0; a < rank; ++a)
        if (std::find(axes.begin(), axes.end(), a) == axes.end()) outputs *= x.shape()[a];
    std::vector<std::vector<C>> groups(x.size() == 0 ? outputs : outputs);
    std::vector<std::size_t> index(rank, 0);
    for (std::size_t flat = 0; flat < x.size(); ++flat) {
        std::size_t o = 0;
        for (std::size_t a = 0; a < rank; ++a)
            if (std::find(axes.begin(), axes.end(), a) == axes.end()) o = o * x.shape()[a] + index[a];
        groups[o].push_back(x.data()[flat]);
        for (std::size_t a = rank; a-- > 0;) {
            if (++index[a] < x.shape()[a]) break;
            index[a] = 0;
        }
    }
    return groups;
}

/// |got − exact| ≤ (1 + u)·γ_depth·Σ|x| + u·|exact| (u: the unit roundoff of the result type), per
/// component; NaN where the reference is NaN, the same infinity where it is infinite.
template <class T>
::testing::AssertionResult within_sum_bound(T got, ld exact, ld abs_sum, std::size_t depth) {
    if (std::isnan(exact)) return std::isnan(got) ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << got << " is not NaN";
    if (std::isinf(exact)) return static_cast<ld>(got) == exact ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << got << " is not " << exact;
    const ld u53 = std::ldexp(ld(1), -53), u = std::numeric_limits<T>::epsilon() / 2;
    const ld gamma = static_cast<ld>(depth) * u53 / (1 - static_cast<ld>(depth) * u53);
    const ld bound = (1 + u) * gamma * abs_sum + u * std::fabs(exact) + std::numeric_limits<T>::denorm_min();
    const ld error = std::fabs(static_cast<ld>(got) - exact);
    if (error <= bound) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", exact " << static_cast<double>(exact) << ": error "
                                         << static_cast<double>(error) << " above the bound " << static_cast<double>(bound);
}
template <class C>
::testing::AssertionResult sum_within_bound(C got, const exact_values& want, std::size_t depth) {
    const cld g = as_cld(got);
    auto re = within_sum_bound(std::real(got), want.sum.real(), want.abs_sum.real(), depth);
    if (!re) return re << " (real part)";
    if constexpr (is_complex_v<C>) {
        auto im = within_sum_bound(std::imag(got), want.sum.imag(), want.abs_sum.imag(), depth);
        if (!im) return im << " (imaginary part)";
    }
    (void)g;
    return ::testing::AssertionSuccess();
}

/// Bitwise equality (NaNs: any NaN for any NaN — payloads are not specified).
template <class A, class B>
::testing::AssertionResult same_bits(const A& a, const B& b) {
    if (a.shape() != b.shape()) return ::testing::AssertionFailure() << "shapes differ";
    using V = typename A::value_type;
    const xt::xarray<V> x = a, y = b;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const cld p = as_cld(x.data()[i]), q = as_cld(y.data()[i]);
        const bool nan_p = std::isnan(p.real()) || std::isnan(p.imag()), nan_q = std::isnan(q.real()) || std::isnan(q.imag());
        if (nan_p && nan_q) continue;
        if (std::memcmp(&x.data()[i], &y.data()[i], sizeof(V)) != 0)
            return ::testing::AssertionFailure() << "element " << i << ": " << x.data()[i] << " vs " << y.data()[i];
    }
    return ::testing::AssertionSuccess();
}

/// n values of type C in one of the adversarial patterns.
enum class pattern { normal, cancellation, range };
template <class C>
xt::xarray<C> values_of(std::size_t n, pattern p, unsigned seed) {
    using T = part_t<C>;
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> exponent(-4, 4);
    auto one = [&](std::size_t i) -> T {
        switch (p) {
            case pattern::normal: return static_cast<T>(normal(rng));
            case pattern::cancellation: return i % 3 == 0 ? T(1e8) : i % 3 == 1 ? T(1) : T(-1e8);  // 1e8, 1, −1e8, …
            case pattern::range: return static_cast<T>((rng() % 2 ? 1 : -1) * std::pow(10.0, exponent(rng)));
        }
        return 0;
    };
    auto x = xt::xarray<C>::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) {
        if constexpr (is_complex_v<C>) x(i) = C(one(i), one(i + 1));
        else x(i) = one(i);
    }
    return x;
}

/// The (n, k) tensor of k copies of x as its columns, the second negated when asked.
template <class C>
xt::xarray<C> columns(const xt::xarray<C>& x, std::size_t k, bool negate_second = false) {
    auto result = xt::xarray<C>::from_shape({x.size(), k});
    for (std::size_t i = 0; i < x.size(); ++i)
        for (std::size_t j = 0; j < k; ++j) result(i, j) = j == 1 && negate_second ? C(-x(i)) : x(i);
    return result;
}

template <class C>
void check_sum_bounds() {
    for (std::size_t n : {1, 2, 31, 33, 63, 64, 65, 1023, 1025, 2047, 2048, 2049, 4129, 65543, 300001}) {
        for (pattern p : {pattern::normal, pattern::cancellation, pattern::range}) {
            const std::string what = "n=" + std::to_string(n) + " pattern " + std::to_string(static_cast<int>(p));
            const xt::xarray<C> x = values_of<C>(n, p, static_cast<unsigned>(n));
            const exact_values want = exact_of(std::vector<C>(x.begin(), x.end()));
            const std::size_t e = is_complex_v<C> ? 2 : 1;
            EXPECT_TRUE(sum_within_bound(xt::xarray<C>(realify::sum(x))(), want, along_depth(n, e))) << "sum " << what;
            // mean: the sum over n, one more rounding
            const C mean = xt::xarray<C>(realify::mean(x))();
            exact_values scaled = want;
            scaled.sum /= static_cast<ld>(n);
            scaled.abs_sum /= static_cast<ld>(n);
            EXPECT_TRUE(sum_within_bound(mean, scaled, along_depth(n, e) + 1)) << "mean " << what;
            // across: three outputs, n rows each
            const xt::xarray<C> across = realify::sum(columns(x, 3, true), {0});
            for (std::size_t j = 0; j < 3; ++j) {
                exact_values w = want;
                if (j == 1) w.sum = -w.sum;
                EXPECT_TRUE(sum_within_bound(across(j), w, across_depth(n))) << "across " << what;
            }
        }
    }
}

TEST(EagerReductions, SumsAndMeansStayWithinTheBoundOfTheirOrder) {
    check_sum_bounds<float>();
    check_sum_bounds<double>();
    check_sum_bounds<std::complex<float>>();
    check_sum_bounds<std::complex<double>>();
}

/// Every op of the family on x over `axes` (prod over the first), under each instruction set: the same bits.
template <class C>
void expect_same_on_every_level(const std::string& what, const xt::xarray<C>& x, const std::vector<std::size_t>& axes) {
    using T = part_t<C>;
    const std::vector<std::ptrdiff_t> dims(axes.begin(), axes.end());
    auto all = [&] {
        std::vector<xt::xarray<C>> complexish = {realify::sum(x, dims, false), realify::mean(x, dims, false),
                                                 realify::prod(x, dims.front(), false), realify::cumsum(x, dims.front())};
        std::vector<xt::xarray<T>> reals = {realify::var(x, dims), realify::std_dev(x, dims, 0.0)};
        if constexpr (!is_complex_v<C>) {
            reals.push_back(realify::amax(x, dims));
            reals.push_back(realify::amin(x, dims));
        }
        return std::make_pair(complexish, reals);
    };
    const auto levels = realify::test::supported_levels();
    const auto reference = [&] {
        const realify::simd::scoped_arch at(levels.front());
        return all();
    }();
    for (auto level : levels) {
        const realify::simd::scoped_arch at(level);
        const auto got = all();
        for (std::size_t i = 0; i < got.first.size(); ++i)
            EXPECT_TRUE(same_bits(got.first[i], reference.first[i])) << what << " op " << i << " at " << realify::simd::arch_name(level);
        for (std::size_t i = 0; i < got.second.size(); ++i)
            EXPECT_TRUE(same_bits(got.second[i], reference.second[i])) << what << " real op " << i << " at " << realify::simd::arch_name(level);
    }
}

template <class C>
void check_levels() {
    for (std::size_t n : {1, 7, 63, 65, 2049, 4097, 70001})
        expect_same_on_every_level("n=" + std::to_string(n), values_of<C>(n, pattern::range, 3), {0});
    const xt::xarray<C> cube = xt::reshape_view(values_of<C>(9 * 61 * 151, pattern::normal, 4), {9, 61, 151});
    for (const std::vector<std::size_t>& axes : std::vector<std::vector<std::size_t>>{{0}, {1}, {2}, {0, 2}, {0, 1}, {1, 2}})
        expect_same_on_every_level("cube", cube, axes);
}

TEST(EagerReductions, EveryInstructionSetGivesTheSameBits) {
    check_levels<float>();
    check_levels<double>();
    check_levels<std::complex<float>>();
    check_levels<std::complex<double>>();
}

/// Reductions of views — strided, reversed, offset, broadcast, transposed — and into out= buffers of
/// any layout, over one or several dims, keepdim or not: against the long double reference.
template <class C>
void check_layouts() {
    using T = part_t<C>;
    const std::size_t e = is_complex_v<C> ? 2 : 1;
    const xt::xarray<C> base = xt::reshape_view(values_of<C>(6 * 10 * 700, pattern::range, 5), {6, 10, 700});
    auto check = [&](const std::string& what, const auto& view, const std::vector<std::size_t>& axes) {
        const xt::xarray<C> x = view;  // the same values, contiguous
        const auto groups = groups_of(x, axes);
        const std::vector<std::ptrdiff_t> dims(axes.begin(), axes.end());
        for (bool keepdim : {false, true}) {
            const xt::xarray<C> got = realify::sum(view, dims, keepdim);
            ASSERT_EQ(got.size(), groups.size()) << what;
            for (std::size_t o = 0; o < groups.size(); ++o) {
                const exact_values want = exact_of(groups[o]);
                // the order depends on the walk; any of them is within the deepest bound
                const std::size_t depth = std::max(along_depth(groups[o].size(), e), across_depth(groups[o].size())) + 4;
                EXPECT_TRUE(sum_within_bound(got.data()[o], want, depth)) << what << " output " << o;
            }
            // the same values through out= into a buffer stepping backwards over every other element
            xt::xarray<C> storage = xt::zeros<C>({2 * got.size()});
            std::vector<std::size_t> shape(got.shape().begin(), got.shape().end());
            std::vector<std::ptrdiff_t> strides(shape.size());
            std::ptrdiff_t step = -2;
            for (std::size_t a = shape.size(); a-- > 0; step *= static_cast<std::ptrdiff_t>(shape[a])) strides[a] = step;
            auto into = xt::strided_view(storage, std::move(shape), std::move(strides), 2 * got.size() - 2, xt::layout_type::dynamic);
            realify::sum(view, dims, keepdim, realify::out(into));
            EXPECT_TRUE(same_bits(xt::xarray<C>(into), got)) << what << " out=";
        }
        const xt::xarray<T> var = realify::var(view, dims);
        for (std::size_t o = 0; o < groups.size(); ++o) {
            const exact_values want = exact_of(groups[o]);
            const ld exact = want.variance_m2 / static_cast<ld>(want.count - 1);
            EXPECT_LE(std::fabs(static_cast<ld>(var.data()[o]) - exact), exact * (sizeof(T) == 4 ? 2e-7 : 1e-13)) << what << " var " << o;
        }
    };
    using namespace xt::placeholders;
    check("contiguous over the last dim", base, {2});
    check("contiguous over dims 0, 2", base, {0, 2});
    check("contiguous over dim 0 (across)", base, {0});
    check("contiguous over dims 0, 1 (across)", base, {0, 1});
    check("every dim", base, {0, 1, 2});
    check("strided", xt::view(base, xt::all(), xt::range(1, _, 3), xt::range(0, _, 2)), {2});
    check("strided, across", xt::view(base, xt::all(), xt::range(1, _, 3), xt::range(0, _, 2)), {0});
    check("reversed", xt::view(base, xt::range(_, _, -1), xt::all(), xt::range(_, _, -1)), {0, 2});
    check("offset", xt::view(base, xt::range(1, 5), xt::range(2, 9), xt::range(3, 690)), {1, 2});
    check("transposed", xt::transpose(base), {0});
    check("transposed over its last dim", xt::transpose(base), {2});
    xt::xarray<C> row = xt::view(base, 0, 0, xt::all());
    auto rows = xt::strided_view(row, std::vector<std::size_t>{5, 700}, std::vector<std::ptrdiff_t>{0, 1}, 0,
                                 xt::layout_type::dynamic);
    check("broadcast rows (stride 0)", rows, {0});
    check("broadcast rows over their length", rows, {1});
    // the order is memory's: a reversed or strided sequence sums as its contiguous copy does
    const xt::xarray<C> line = values_of<C>(9001, pattern::range, 6);
    EXPECT_TRUE(same_bits(realify::sum(xt::view(line, xt::range(_, _, -1))), realify::sum(line)));
    const xt::xarray<C> every_third = xt::view(line, xt::range(0, _, 3));
    EXPECT_TRUE(same_bits(realify::sum(xt::view(line, xt::range(0, _, 3))), realify::sum(every_third)));
}

TEST(EagerReductions, LayoutsAndOutputsOfEveryKind) {
    check_layouts<float>();
    check_layouts<std::complex<double>>();
}

template <class T>
void check_special_sums() {
    using C = std::complex<T>;
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const T tiny = std::numeric_limits<T>::denorm_min();
    for (std::size_t n : {1, 64, 2049, 5001}) {
        const std::string what = " n=" + std::to_string(n);
        for (std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
            auto with = [&](T v, T w = 0) {
                xt::xarray<T> x = xt::ones<T>({n});
                x(at) = v;
                if (w != 0) x((at + n / 3) % n) = w;
                return x;
            };
            auto total = [](const xt::xarray<T>& x) { return xt::xarray<T>(realify::sum(x))(); };
            auto across = [](const xt::xarray<T>& x) {
                return xt::xarray<T>(realify::sum(columns(x, 2), {0}))(1);
            };
            EXPECT_TRUE(std::isnan(total(with(nan)))) << "NaN at " << at << what;
            EXPECT_TRUE(std::isnan(across(with(nan)))) << "NaN at " << at << what;
            EXPECT_EQ(total(with(inf)), inf) << what;
            EXPECT_EQ(across(with(-inf)), -inf) << what;
            if (n > 1) {
                EXPECT_TRUE(std::isnan(total(with(inf, -inf)))) << "±inf" << what;
                EXPECT_TRUE(std::isnan(across(with(inf, -inf)))) << "±inf" << what;
            }
            const T big = std::numeric_limits<T>::max();
            EXPECT_EQ(total(with(big, big)), n > 1 ? inf : big) << "overflow" << what;  // float: on the store
        }
        // ±0: a sum of −0s is −0, of mixed zeros +0; the empty sum +0
        const xt::xarray<T> negative_zeros = xt::zeros<T>({n}) * T(-1);
        EXPECT_TRUE(std::signbit(xt::xarray<T>(realify::sum(negative_zeros))())) << what;
        const xt::xarray<C> complex_zeros = xt::xarray<C>::from_shape({n});
        xt::xarray<C> cz = complex_zeros;
        std::fill(cz.begin(), cz.end(), C(T(-0.0), T(-0.0)));
        const C zsum = xt::xarray<C>(realify::sum(cz))();
        EXPECT_TRUE(std::signbit(zsum.real()) && std::signbit(zsum.imag())) << what;
        EXPECT_TRUE(std::signbit(xt::xarray<T>(realify::sum(columns(negative_zeros, 2), {0}))(0))) << "across" << what;
        xt::xarray<T> mixed = negative_zeros;
        mixed(n - 1) = 0;
        EXPECT_FALSE(std::signbit(xt::xarray<T>(realify::sum(mixed))())) << what;
        // subnormals add exactly
        const xt::xarray<T> subnormals = xt::ones<T>({n}) * tiny;
        EXPECT_EQ(xt::xarray<T>(realify::sum(subnormals))(), static_cast<T>(static_cast<ld>(tiny) * static_cast<ld>(n))) << what;
    }
    EXPECT_FALSE(std::signbit(xt::xarray<T>(realify::sum(xt::xarray<T>::from_shape({0})))()));
}

TEST(EagerReductions, SpecialValuesOfSums) {
    check_special_sums<float>();
    check_special_sums<double>();
}

template <class T>
void check_extrema() {
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    for (std::size_t n : {1, 15, 16, 17, 63, 64, 65, 2049}) {
        const xt::xarray<T> x = values_of<T>(n, pattern::range, 7);
        const T top = *std::max_element(x.begin(), x.end()), bottom = *std::min_element(x.begin(), x.end());
        EXPECT_EQ(xt::xarray<T>(realify::amax(x))(), top);
        EXPECT_EQ(xt::xarray<T>(realify::amin(x))(), bottom);
        EXPECT_EQ(xt::xarray<T>(realify::amax(columns(x, 2, true), {0}))(1), -bottom);
        for (std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
            xt::xarray<T> y = x;
            y(at) = nan;
            EXPECT_TRUE(std::isnan(xt::xarray<T>(realify::amax(y))())) << n << " " << at;
            EXPECT_TRUE(std::isnan(xt::xarray<T>(realify::amin(y))())) << n << " " << at;
            const xt::xarray<T> yc = columns(y, 2);
            EXPECT_TRUE(std::isnan(xt::xarray<T>(realify::amax(yc, {0}))(0))) << n << " " << at;
            y(at) = inf;
            EXPECT_EQ(xt::xarray<T>(realify::amax(y))(), inf);
            y(at) = -inf;
            EXPECT_EQ(xt::xarray<T>(realify::amin(y))(), -inf);
        }
        // zeros: +0 above −0, whatever their positions
        xt::xarray<T> zeros = xt::zeros<T>({n}) * T(-1);
        zeros(n / 2) = T(0);
        const xt::xarray<T> zc = columns(zeros, 2);
        EXPECT_FALSE(std::signbit(xt::xarray<T>(realify::amax(zeros))()));
        EXPECT_FALSE(std::signbit(xt::xarray<T>(realify::amax(zc, {0}))(1)));
        EXPECT_EQ(std::signbit(xt::xarray<T>(realify::amin(zeros))()), n > 1);
        const xt::xarray<T> positive = xt::zeros<T>({n});
        EXPECT_FALSE(std::signbit(xt::xarray<T>(realify::amin(positive))()));
        EXPECT_TRUE(std::signbit(xt::xarray<T>(realify::amin(zc, {0}))(0)) == (n > 1));
    }
}

TEST(EagerReductions, ExtremaPropagateNaNAndOrderZeros) {
    check_extrema<float>();
    check_extrema<double>();
}

template <class T>
void check_moments() {
    using C = std::complex<T>;
    // offset data: every digit the data has
    EXPECT_EQ(xt::xarray<T>(realify::var(xt::xarray<T>{10001, 10002, 10003}))(), T(1));
    EXPECT_EQ(xt::xarray<T>(realify::var(xt::xarray<C>{C(10001, 7), C(10002, 7), C(10003, 7)}))(), T(1));
    const xt::xarray<T> offset_columns = {{10001, 5}, {10002, 5}, {10003, 5}};
    EXPECT_EQ(xt::xarray<T>(realify::var(offset_columns, {0})), (xt::xarray<T>{1, 0}));
    for (std::size_t n : {2, 63, 2049, 100003}) {
        for (int kind = 0; kind < 3; ++kind) {
            // noise on a large offset; an outlier first; a wide range
            xt::xarray<T> x = values_of<T>(n, kind == 2 ? pattern::range : pattern::normal, 8);
            if (kind == 0) x += T(1e4);
            if (kind == 1) x(0) = T(1e6);
            const exact_values want = exact_of(std::vector<T>(x.begin(), x.end()));
            const ld exact = want.variance_m2 / static_cast<ld>(n - 1);
            const ld rtol = sizeof(T) == 4 ? 1.2e-7 : 1e-13;
            EXPECT_LE(std::fabs(static_cast<ld>(xt::xarray<T>(realify::var(x))()) - exact), rtol * exact) << n << " kind " << kind;
            const xt::xarray<T> two = columns(x, 2);
            EXPECT_LE(std::fabs(static_cast<ld>(xt::xarray<T>(realify::var(two, {0}))(1)) - exact), rtol * exact) << n << " across kind " << kind;
            const ld root = std::sqrt(exact);
            EXPECT_LE(std::fabs(static_cast<ld>(xt::xarray<T>(realify::std_dev(x))()) - root), rtol * root) << n;
        }
    }
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    EXPECT_TRUE(std::isnan(xt::xarray<T>(realify::var(xt::xarray<T>{1, nan, 3}))()));
    EXPECT_TRUE(std::isnan(xt::xarray<T>(realify::var(xt::xarray<T>{1, inf, 3}))()));
}

TEST(EagerReductions, VarianceIsStableForOffsetData) {
    check_moments<float>();
    check_moments<double>();
}

template <class T>
void check_products() {
    using C = std::complex<T>;
    // the pair product, never per component: i⁴·2 = 2
    EXPECT_EQ(xt::xarray<C>(realify::prod(xt::xarray<C>{C(0, 1), C(0, 1), C(0, 1), C(0, 1), C(2, 0)}, 0))(), C(2, 0));
    for (std::size_t n : {1, 33, 64, 1025, 2049, 70001}) {
        std::mt19937_64 rng(n);
        std::uniform_real_distribution<double> phase(-3.14, 3.14), scale(0.99, 1.01);
        auto z = xt::xarray<C>::from_shape({n});
        for (auto& v : z) v = std::polar(static_cast<T>(scale(rng)), static_cast<T>(phase(rng)));
        const exact_values want = exact_of(std::vector<C>(z.begin(), z.end()));
        const C got = xt::xarray<C>(realify::prod(z, 0))();
        const ld u = std::numeric_limits<T>::epsilon() / 2;
        EXPECT_LE(std::abs(as_cld(got) - want.product), 4 * static_cast<ld>(n) * u * std::abs(want.product)) << n;
        const xt::xarray<C> two = columns(z, 2);
        const C across = xt::xarray<C>(realify::prod(two, 0))(1);
        EXPECT_LE(std::abs(as_cld(across) - want.product), 4 * static_cast<ld>(n) * u * std::abs(want.product)) << n;
        xt::xarray<T> r = xt::abs(z);  // moduli near 1, signs at random
        for (std::size_t i = 0; i < n; i += 3) r(i) = -r(i);
        const exact_values rwant = exact_of(std::vector<T>(r.begin(), r.end()));
        EXPECT_LE(std::fabs(static_cast<ld>(xt::xarray<T>(realify::prod(r, 0))()) - rwant.product.real()),
                  2 * static_cast<ld>(n) * u * std::fabs(rwant.product.real())) << n;
    }
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    xt::xarray<T> r = xt::ones<T>({3000});
    r(5) = inf;
    EXPECT_EQ(xt::xarray<T>(realify::prod(r, 0))(), inf);
    r(2999) = 0;
    EXPECT_TRUE(std::isnan(xt::xarray<T>(realify::prod(r, 0))()));
    xt::xarray<C> c = xt::ones<C>({3000});
    c(1500) = C(nan, 0);
    const C cn = xt::xarray<C>(realify::prod(c, 0))();
    EXPECT_TRUE(std::isnan(cn.real()) && std::isnan(cn.imag()));
    // (inf + 0i)·(1 + 0i) = inf + NaN·i, the pair formula's (a component product would keep inf + 0i)
    const C ci = xt::xarray<C>(realify::prod(xt::xarray<C>{C(inf, 0), C(1, 0)}, 0))();
    EXPECT_EQ(ci.real(), inf);
    EXPECT_TRUE(std::isnan(ci.imag()));
    EXPECT_EQ(xt::xarray<C>(realify::prod(xt::xarray<C>::from_shape({0}), 0))(), C(1, 0));
}

TEST(EagerReductions, ProductsArePairProducts) {
    check_products<float>();
    check_products<double>();
}

/// cumsum along (groups of 8 reals by doubling, then the running total: depth ⌊i·e/8⌋ + log2(8/e) + 1
/// at element i) and across (each column in order: depth i).
template <class C>
void check_scans() {
    const std::size_t e = is_complex_v<C> ? 2 : 1;
    for (std::size_t n : {1, 3, 7, 8, 9, 17, 1000, 65537}) {
        const xt::xarray<C> x = values_of<C>(n, pattern::range, 9);
        const xt::xarray<C> along = realify::cumsum(x, 0);
        const xt::xarray<C> across = realify::cumsum(columns(x, 2), 0);
        std::vector<C> prefix;
        for (std::size_t i = 0; i < n; i += std::max<std::size_t>(1, n / 97)) {
            prefix.assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(i + 1));
            const exact_values want = exact_of(prefix);
            EXPECT_TRUE(sum_within_bound(along(i), want, i * e / 8 + (e == 1 ? 3 : 2) + 1)) << n << " along at " << i;
            EXPECT_TRUE(sum_within_bound(across(i, 1), want, std::max<std::size_t>(i, 1))) << n << " across at " << i;
        }
        // in place: the same bits
        xt::xarray<C> y = x;
        realify::cumsum(y, 0, realify::out(y));
        EXPECT_TRUE(same_bits(y, along)) << n;
        // a strided line scans as its contiguous copy
        const xt::xarray<C> wide = xt::transpose(columns(x, 3));  // (3, n): lines along dim 1
        const xt::xarray<C> by_column = realify::cumsum(xt::transpose(wide), 0);
        EXPECT_TRUE(same_bits(xt::xarray<C>(xt::view(by_column, xt::all(), 1)), along)) << n;
    }
    const part_t<C> nan = std::numeric_limits<part_t<C>>::quiet_NaN();
    xt::xarray<C> x = xt::ones<C>({40});
    x(13) = C(nan);
    const xt::xarray<C> s = realify::cumsum(x, 0);
    EXPECT_FALSE(std::isnan(std::real(s(12))));
    for (std::size_t i = 13; i < 40; ++i) EXPECT_TRUE(std::isnan(std::real(s(i)))) << i;
}

TEST(EagerReductions, CumsumStaysWithinTheBoundOfItsOrder) {
    check_scans<float>();
    check_scans<double>();
    check_scans<std::complex<float>>();
    check_scans<std::complex<double>>();
}

}  // namespace
