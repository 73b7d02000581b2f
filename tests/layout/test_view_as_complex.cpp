// view_as_complex: the inverse view, its torch.view_as_complex preconditions
// and the layout_error raised when they do not hold.
#include <complex>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include <realify/layout.hpp>

namespace {

template <class T>
class ViewAsComplex : public ::testing::Test {};
using RealTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ViewAsComplex, RealTypes);

/// Runs `make_view` and expects a layout_error whose message contains every fragment.
template <class F>
void expect_layout_error(F&& make_view, std::initializer_list<const char*> fragments) {
    try {
        make_view();
        FAIL() << "expected realify::layout_error";
    } catch (const realify::layout_error& error) {
        const std::string message = error.what();
        for (const char* fragment : fragments) EXPECT_NE(message.find(fragment), std::string::npos) << message;
    }
}

TYPED_TEST(ViewAsComplex, RoundTripSharesMemory) {
    xt::xtensor<TypeParam, 3> r = xt::arange<TypeParam>(24).reshape({3, 4, 2});
    auto c = realify::view_as_complex(r);
    static_assert(std::is_same_v<typename decltype(c)::value_type, std::complex<TypeParam>>);
    static_assert(realify::static_rank_v<decltype(c)> == 2);
    EXPECT_EQ(c(1, 2), std::complex<TypeParam>(12, 13));
    EXPECT_EQ(reinterpret_cast<TypeParam*>(&c(1, 2)), &r(1, 2, 0));
    auto back = realify::view_as_real(c);
    EXPECT_EQ(&back(2, 3, 1), &r(2, 3, 1));
    c(0, 0) = {-1, -2};
    EXPECT_EQ(r(0, 0, 1), TypeParam(-2));
}

TYPED_TEST(ViewAsComplex, StridedRealViews) {
    using xt::placeholders::_;
    xt::xtensor<TypeParam, 3> r = xt::arange<TypeParam>(60).reshape({5, 6, 2});
    auto stepped = xt::view(r, xt::range(0, 5, 2), xt::range(5, _, -2), xt::all());
    auto c = realify::view_as_complex(stepped);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            EXPECT_EQ(c(i, j), std::complex<TypeParam>(stepped(i, j, 0), stepped(i, j, 1)));
    auto permuted = xt::transpose(r, {1, 0, 2});
    auto cp = realify::view_as_complex(permuted);
    EXPECT_EQ(cp(4, 2), std::complex<TypeParam>(r(2, 4, 0), r(2, 4, 1)));
}

TYPED_TEST(ViewAsComplex, FixedShapeStaysFixed) {
    xt::xtensor_fixed<TypeParam, xt::xshape<4, 2>> r = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
    auto c = realify::view_as_complex(r);
    static_assert(std::is_same_v<typename decltype(c)::shape_type, xt::fixed_shape<4>>);
    EXPECT_EQ(c(3), std::complex<TypeParam>(7, 8));
}

TYPED_TEST(ViewAsComplex, DynamicStaysDynamic) {
    xt::xarray<TypeParam> r = xt::zeros<TypeParam>({2, 3, 2});
    auto c = realify::view_as_complex(r);
    static_assert(realify::static_rank_v<decltype(c)> == realify::dynamic_rank);
    EXPECT_EQ(c.dimension(), 2u);
}

TYPED_TEST(ViewAsComplex, LastDimensionThreeThrows) {
    xt::xtensor<TypeParam, 2> r = xt::zeros<TypeParam>({3, 3});
    expect_layout_error([&] { realify::view_as_complex(r); }, {"(3, 3)", "last dimension is 3"});
}

TYPED_TEST(ViewAsComplex, LastStrideTwoThrows) {
    xt::xtensor<TypeParam, 2> r = xt::zeros<TypeParam>({4, 4});
    auto every_other = xt::view(r, xt::all(), xt::range(0, 4, 2));  // shape (4, 2), strides (4, 2)
    expect_layout_error([&] { realify::view_as_complex(every_other); }, {"(4, 2)", "(4, 2)", "not 1"});
}

TYPED_TEST(ViewAsComplex, OddStrideThrows) {
    xt::xtensor<TypeParam, 2> r = xt::zeros<TypeParam>({3, 5});
    auto pairs = xt::view(r, xt::all(), xt::range(0, 2));  // shape (3, 2), strides (5, 1)
    expect_layout_error([&] { realify::view_as_complex(pairs); }, {"(3, 2)", "(5, 1)", "odd"});
}

TYPED_TEST(ViewAsComplex, TransposedPairsThrow) {
    xt::xtensor<TypeParam, 2> r = xt::zeros<TypeParam>({2, 3});
    auto t = xt::transpose(r);  // shape (3, 2) but re/im three apart
    expect_layout_error([&] { realify::view_as_complex(t); }, {"(3, 2)", "(1, 3)"});
}

TYPED_TEST(ViewAsComplex, RankZeroThrows) {
    xt::xarray<TypeParam> r = TypeParam(1);
    ASSERT_EQ(r.dimension(), 0u);
    expect_layout_error([&] { realify::view_as_complex(r); }, {"rank 0"});
}

TYPED_TEST(ViewAsComplex, MisalignedStartThrows) {
    xt::xtensor<TypeParam, 2> pairs = xt::zeros<TypeParam>({4, 2});
    auto even_start = xt::view(pairs, xt::range(1, 3), xt::all());  // offset 2
    EXPECT_NO_THROW(realify::view_as_complex(even_start));
    xt::xtensor<TypeParam, 2> r = xt::zeros<TypeParam>({3, 4});
    auto odd_start = xt::view(r, xt::all(), xt::range(1, 3));  // offset 1, strides (4, 1)
    expect_layout_error([&] { realify::view_as_complex(odd_start); }, {"offset 1", "misaligned"});
}

TEST(ViewAsComplexErrors, LayoutErrorIsARealifyError) {
    static_assert(std::is_base_of_v<realify::error, realify::layout_error>);
    static_assert(std::is_base_of_v<std::invalid_argument, realify::error>);
    xt::xtensor<float, 2> r = xt::zeros<float>({3, 3});
    EXPECT_THROW(realify::view_as_complex(r), realify::error);
}

}  // namespace
