// view_as_real: shape S+[2], shared memory, writes through, strides of every
// kind of view, static shapes kept static.
#include <complex>
#include <cstdint>
#include <type_traits>

#include <gtest/gtest.h>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xview.hpp>

#include <realify/layout.hpp>

namespace {

template <class T>
class ViewAsReal : public ::testing::Test {};
using RealTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ViewAsReal, RealTypes);

template <class T>
xt::xtensor<std::complex<T>, 2> numbered(std::size_t rows, std::size_t cols) {
    xt::xtensor<std::complex<T>, 2> x = xt::xtensor<std::complex<T>, 2>::from_shape({rows, cols});
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) x(i, j) = {T(10 * i + j), -T(10 * i + j) - T(0.5)};
    return x;
}

/// Every element of the real view equals the matching component of the complex one.
template <class Complex, class Real>
void expect_components_match(const Complex& x, const Real& r) {
    ASSERT_EQ(r.dimension(), x.dimension() + 1);
    for (std::size_t axis = 0; axis < x.dimension(); ++axis) ASSERT_EQ(r.shape()[axis], x.shape()[axis]);
    ASSERT_EQ(r.shape()[x.dimension()], 2u);
    for (std::size_t i = 0; i < x.shape()[0]; ++i)
        for (std::size_t j = 0; j < x.shape()[1]; ++j) {
            EXPECT_EQ(r(i, j, 0), x(i, j).real()) << i << "," << j;
            EXPECT_EQ(r(i, j, 1), x(i, j).imag()) << i << "," << j;
            EXPECT_EQ(&r(i, j, 0), reinterpret_cast<const typename Real::value_type*>(&x(i, j)));
        }
}

TYPED_TEST(ViewAsReal, AcceptanceExampleShapeAndAddress) {
    auto x = numbered<TypeParam>(3, 4);
    auto r = realify::view_as_real(x);
    ASSERT_EQ(r.dimension(), 3u);
    EXPECT_EQ(r.shape()[0], 3u);
    EXPECT_EQ(r.shape()[1], 4u);
    EXPECT_EQ(r.shape()[2], 2u);
    EXPECT_EQ(&r(1, 2, 1), reinterpret_cast<TypeParam*>(&x(1, 2)) + 1);
    static_assert(std::is_same_v<typename decltype(r)::value_type, TypeParam>);
}

TYPED_TEST(ViewAsReal, WritesThroughChangeTheComplexTensor) {
    auto x = numbered<TypeParam>(3, 4);
    auto r = realify::view_as_real(x);
    r(2, 3, 0) = TypeParam(7);
    r(2, 3, 1) = TypeParam(-9);
    EXPECT_EQ(x(2, 3), std::complex<TypeParam>(7, -9));
    xt::noalias(r) = xt::zeros<TypeParam>({3, 4, 2});
    EXPECT_EQ(x(1, 1), std::complex<TypeParam>(0, 0));
}

TYPED_TEST(ViewAsReal, ContiguousStridesAreDoubledWithTrailingOne) {
    auto x = numbered<TypeParam>(3, 4);
    auto r = realify::view_as_real(x);
    EXPECT_EQ(r.strides()[0], 8);
    EXPECT_EQ(r.strides()[1], 2);
    EXPECT_EQ(r.strides()[2], 1);
}

TYPED_TEST(ViewAsReal, TransposedView) {
    auto x = numbered<TypeParam>(3, 4);
    auto t = xt::transpose(x);
    auto r = realify::view_as_real(t);
    EXPECT_EQ(r.strides()[0], 2);
    EXPECT_EQ(r.strides()[1], 8);
    EXPECT_EQ(r.strides()[2], 1);
    expect_components_match(t, r);
    r(3, 2, 1) = TypeParam(42);
    EXPECT_EQ(x(2, 3).imag(), TypeParam(42));
}

TYPED_TEST(ViewAsReal, SteppedAndReversedSlices) {
    using xt::placeholders::_;
    auto x = numbered<TypeParam>(5, 7);
    auto stepped = xt::view(x, xt::range(1, 5, 2), xt::range(0, 7, 3));
    expect_components_match(stepped, realify::view_as_real(stepped));
    auto reversed = xt::view(x, xt::range(4, _, -2), xt::range(6, _, -1));
    auto r = realify::view_as_real(reversed);
    expect_components_match(reversed, r);
    EXPECT_LT(r.strides()[0], 0);
    EXPECT_EQ(r.strides()[2], 1);
    r(0, 0, 0) = TypeParam(-1);
    EXPECT_EQ(x(4, 6).real(), TypeParam(-1));
}

TYPED_TEST(ViewAsReal, RowSliceOfAContainer) {
    auto x = numbered<TypeParam>(4, 3);
    auto row = xt::view(x, 2, xt::all());
    auto r = realify::view_as_real(row);
    ASSERT_EQ(r.dimension(), 2u);
    EXPECT_EQ(&r(1, 1), reinterpret_cast<TypeParam*>(&x(2, 1)) + 1);
}

TYPED_TEST(ViewAsReal, ColumnMajorContainer) {
    xt::xtensor<std::complex<TypeParam>, 2, xt::layout_type::column_major> x = numbered<TypeParam>(3, 4);
    auto r = realify::view_as_real(x);
    expect_components_match(x, r);
    EXPECT_EQ(r.strides()[0], 2);
    EXPECT_EQ(r.strides()[1], 6);
}

TYPED_TEST(ViewAsReal, AdaptorOverUserMemory) {
    std::vector<std::complex<TypeParam>> buffer(6, {1, 2});
    auto x = xt::adapt(buffer, std::array<std::size_t, 2>{2, 3});
    auto r = realify::view_as_real(x);
    r(1, 2, 1) = TypeParam(5);
    EXPECT_EQ(buffer[5], std::complex<TypeParam>(1, 5));
}

TYPED_TEST(ViewAsReal, ConstInputGivesReadOnlyView) {
    const auto x = numbered<TypeParam>(2, 2);
    auto r = realify::view_as_real(x);
    static_assert(std::is_const_v<std::remove_reference_t<decltype(*r.data())>>);
    EXPECT_EQ(r(1, 1, 1), x(1, 1).imag());
}

TYPED_TEST(ViewAsReal, EmptyTensor) {
    xt::xtensor<std::complex<TypeParam>, 2> x = xt::xtensor<std::complex<TypeParam>, 2>::from_shape({0, 4});
    auto r = realify::view_as_real(x);
    EXPECT_EQ(r.size(), 0u);
    EXPECT_EQ(r.shape()[1], 4u);
}

TEST(ViewAsRealStatic, FixedShapeStaysFixed) {
    xt::xtensor_fixed<std::complex<float>, xt::xshape<3, 4>> x;
    auto r = realify::view_as_real(x);
    static_assert(std::is_same_v<typename decltype(r)::shape_type, xt::fixed_shape<3, 4, 2>>);
    static_assert(realify::has_fixed_shape_v<decltype(r)>);
    x(2, 1) = {1.5f, -2.5f};
    EXPECT_EQ(r(2, 1, 1), -2.5f);
}

TEST(ViewAsRealStatic, FixedRankGrowsByOne) {
    xt::xtensor<std::complex<double>, 3> x = xt::zeros<std::complex<double>>({2, 3, 4});
    auto r = realify::view_as_real(x);
    static_assert(realify::static_rank_v<decltype(r)> == 4);
    auto t = xt::transpose(x);
    static_assert(realify::static_rank_v<decltype(realify::view_as_real(t))> == 4);
}

TEST(ViewAsRealStatic, DynamicStaysDynamic) {
    xt::xarray<std::complex<float>> x = xt::zeros<std::complex<float>>({2, 3, 4, 5});
    auto r = realify::view_as_real(x);
    static_assert(realify::static_rank_v<decltype(r)> == realify::dynamic_rank);
    EXPECT_EQ(r.dimension(), 5u);
    EXPECT_EQ(r.shape()[4], 2u);
    auto dynamic_strided = xt::strided_view(x, {xt::all(), xt::range(0, 3, 2)});
    auto rs = realify::view_as_real(dynamic_strided);
    EXPECT_EQ(rs.dimension(), 5u);
    EXPECT_EQ(&rs(1, 1, 3, 4, 1), reinterpret_cast<float*>(&x(1, 2, 3, 4)) + 1);
}

TEST(ViewAsRealStatic, RankZero) {
    xt::xtensor<std::complex<float>, 0> x = std::complex<float>(3, 4);
    auto r = realify::view_as_real(x);
    static_assert(realify::static_rank_v<decltype(r)> == 1);
    EXPECT_EQ(r(0), 3.0f);
    EXPECT_EQ(r(1), 4.0f);
}

}  // namespace
