// The eager API against the std::complex references: every elementwise op on
// both dtypes over a grid of values (including ±0, tiny and huge magnitudes
// and points on branch cuts), broadcasting, numbers and real tensors as
// operands, strided inputs, errors; shape ops, reductions, matrix products
// and constructors against the tensor references.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "realify/eager.hpp"
#include "realify/ops/reference.hpp"
#include "realify/ops/tensor_reference.hpp"

namespace {

using realify::complex_layout_of;
using realify::to_complex_tensor;
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

#define CHECK_UNARY(NAME)                                                                     \
    {                                                                                         \
        const auto got = to_complex_tensor(realify::NAME(layout));                            \
        for (std::size_t i = 0; i < x.size(); ++i)                                            \
            EXPECT_TRUE(close(got(i), ref::NAME(x(i)))) << #NAME << " at " << x(i);            \
    }

// Division by a complex zero: PyTorch 1.13 gives NaN + NaN·i where C99 gives
// an infinity; realify follows PyTorch (checked separately below).
#define CHECK_UNARY_NONZERO(NAME)                                                             \
    {                                                                                         \
        const auto got = to_complex_tensor(realify::NAME(layout));                            \
        for (std::size_t i = 0; i < x.size(); ++i) {                                          \
            if (x(i) == std::complex<T>(0)) {                                                 \
                EXPECT_TRUE(std::isnan(got(i).real()) && std::isnan(got(i).imag())) << #NAME; \
                continue;                                                                     \
            }                                                                                 \
            EXPECT_TRUE(close(got(i), ref::NAME(x(i)))) << #NAME << " at " << x(i);            \
        }                                                                                     \
    }

TYPED_TEST(EagerUnary, MatchesTheStdComplexReferences) {
    using T = TypeParam;
    const auto x = grid<T>();
    const auto layout = complex_layout_of(x);
    CHECK_UNARY(exp)
    CHECK_UNARY(expm1)
    CHECK_UNARY(log)
    CHECK_UNARY(log2)
    CHECK_UNARY(log10)
    CHECK_UNARY(log1p)
    CHECK_UNARY(sqrt)
    CHECK_UNARY_NONZERO(rsqrt)
    CHECK_UNARY_NONZERO(reciprocal)
    CHECK_UNARY(square)
    CHECK_UNARY(sgn)
    CHECK_UNARY(neg)
    CHECK_UNARY(conj)
    CHECK_UNARY(sin)
    CHECK_UNARY(cos)
    CHECK_UNARY(tan)
    CHECK_UNARY(sinh)
    CHECK_UNARY(cosh)
    CHECK_UNARY(tanh)
    CHECK_UNARY(asin)
    CHECK_UNARY(acos)
    CHECK_UNARY(atan)
    CHECK_UNARY(asinh)
    CHECK_UNARY(acosh)
    CHECK_UNARY(atanh)
    CHECK_UNARY(ceil)
    CHECK_UNARY(floor)
    CHECK_UNARY(round)
    CHECK_UNARY(trunc)
    const auto a = realify::abs(layout);
    const auto g = realify::angle(layout);
    const auto re = realify::real(layout);
    const auto im = realify::imag(layout);
    for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_TRUE(close(a(i), ref::abs(x(i)))) << x(i);
        EXPECT_TRUE(close(g(i), ref::angle(x(i)))) << x(i);
        EXPECT_EQ(re(i), x(i).real());
        EXPECT_EQ(im(i), x(i).imag());
    }
}

TYPED_TEST(EagerUnary, SpecialValuesFollowC99AndPyTorch) {
    using T = TypeParam;
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    xt::xtensor<std::complex<T>, 1> x = {{inf, 0}, {-inf, 1}, {nan, 0}, {0, nan}, {inf, inf}, {-inf, nan}, {1, inf}};
    const auto layout = complex_layout_of(x);
    CHECK_UNARY(exp)
    CHECK_UNARY(log)
    CHECK_UNARY(sqrt)
    CHECK_UNARY(sinh)
    CHECK_UNARY(cosh)
    CHECK_UNARY(tanh)
    CHECK_UNARY(asinh)
    CHECK_UNARY(acosh)
    CHECK_UNARY(atanh)
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
    // a real layout whose [re, im] axis is not adjacent is evaluated first
    xt::xtensor<double, 2> planar = {{1, 2, 3}, {4, 5, 6}};  // rows = re, im
    auto interleaved = realify::as_complex_layout(xt::transpose(planar));
    const auto a = realify::abs(interleaved);
    EXPECT_DOUBLE_EQ(a(2), std::hypot(3.0, 6.0));
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

/// The message of the realify::shape_error `f` throws ("no exception" or
/// "wrong exception type: …" otherwise).
template <class F>
std::string shape_error_message(F&& f) {
    try {
        f();
    } catch (const realify::shape_error& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("wrong exception type: ") + e.what();
    }
    return "no exception";
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
    expect_error(shape_error_message([&] { (void)realify::reshape(a, {big, 4}); }), "reshape");
    expect_error(shape_error_message([&] { (void)realify::view(a, {4, big}); }), "view");
    expect_error(shape_error_message([&] { (void)realify::reshape(a, {big, 4, -1}); }), "reshape");
    const auto one = sample({1, 1});
    const auto l1 = complex_layout_of(one);
    expect_error(shape_error_message([&] { (void)realify::expand(l1, {big, 4}); }), "expand");
    expect_error(shape_error_message([&] { (void)realify::repeat(l1, {std::size_t(big), 4}); }), "repeat");
    // a negative count converted to std::size_t
    expect_error(shape_error_message([&] { (void)realify::repeat(l1, {std::size_t(-1), 1}); }), "repeat");
    const auto single = sample({1});
    const std::string negative = shape_error_message([&] { (void)realify::expand(complex_layout_of(single), {-2}); });
    expect_error(negative, "expand");
    EXPECT_NE(negative.find("-2"), std::string::npos) << negative;
    expect_error(shape_error_message([&] { (void)realify::expand(l1, {2, -3}); }), "expand");

    const auto three = sample({3});
    const auto l3 = complex_layout_of(three);
    expect_error(shape_error_message([&] { (void)realify::split_with_sizes(l3, {SIZE_MAX, 4}); }), "split_with_sizes");
    expect_error(shape_error_message([&] { (void)realify::narrow(l3, 0, 1, pmax); }), "narrow");
    expect_error(shape_error_message([&] { (void)realify::narrow(l3, 0, pmax, 1); }), "narrow");
    expect_error(shape_error_message([&] { (void)realify::narrow(l3, 0, pmin, 1); }), "narrow");
    expect_error(shape_error_message([&] { (void)realify::select(l3, 0, pmin); }), "select");
    EXPECT_EQ(out(realify::narrow(l3, 0, -1, 1)), ref::narrow<double>(three, 0, 2, 1));

    // A step of PTRDIFF_MAX takes the first element (PyTorch: x[0::huge]).
    EXPECT_EQ(out(realify::slice(l3, 0, 0, pmax, pmax)), ref::slice<double>(three, 0, 0, 1, 1));
    EXPECT_EQ(out(realify::slice(l3, 0, 1, pmax, pmax - 1)), ref::slice<double>(three, 0, 1, 2, 1));
    EXPECT_EQ(out(realify::slice(l3, 0, pmin, pmax, 2)), ref::slice<double>(three, 0, 0, 3, 2));
    EXPECT_EQ(realify::slice(l3, 0, pmax, pmin, 1).size(), 0u);
    xt::xarray<std::complex<double>> empty = xt::xarray<std::complex<double>>::from_shape({0, 3});
    EXPECT_EQ(realify::slice(complex_layout_of(empty), 1, 0, pmax, pmax).shape()[1], 1u);
    expect_error(shape_error_message([&] { (void)realify::slice(l3, 0, 0, 3, 0); }), "slice");

    // Roll shifts are reduced modulo the extent: PTRDIFF_MIN ≡ 1 (mod 3),
    // PTRDIFF_MAX ≡ 1 (mod 3); the flattened form too.
    EXPECT_EQ(out(realify::roll(l3, {pmin}, {0})), ref::roll<double>(three, {1}, {0}));
    EXPECT_EQ(out(realify::roll(l3, {pmax}, {0})), ref::roll<double>(three, {1}, {0}));
    EXPECT_EQ(out(realify::roll(l3, {pmin})), ref::roll<double>(three, {1}));
    EXPECT_EQ(out(realify::roll(l3, {-7}, {-1})), ref::roll<double>(three, {2}, {-1}));

    // Splits and chunks with sizes near SIZE_MAX.
    EXPECT_EQ(realify::split(l3, SIZE_MAX).size(), 1u);
    EXPECT_EQ(realify::chunk(l3, SIZE_MAX).size(), 3u);
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

}  // namespace
