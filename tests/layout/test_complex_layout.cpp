// complex_layout<E>: the type that means "this (…,2) real expression is complex".
#include <complex>
#include <type_traits>

#include <gtest/gtest.h>
#include <xtensor/xview.hpp>

#include <realify/layout.hpp>

namespace {

TEST(ComplexLayout, RealTensorEndingInTwoIsNeverComplexLayout) {
    static_assert(!realify::is_complex_layout_v<xt::xtensor<float, 2>>);
    static_assert(!realify::is_complex_layout_v<xt::xtensor_fixed<double, xt::xshape<5, 2>>>);
    static_assert(!realify::is_complex_layout_v<xt::xarray<float>>);
    static_assert(realify::is_complex_layout_v<realify::complex_layout<xt::xtensor<float, 2>>>);
    static_assert(realify::is_complex_layout_v<const realify::complex_layout<xt::xtensor<float, 2>>&>);
    SUCCEED();
}

TEST(ComplexLayout, OfComplexTensorIsAZeroCopyView) {
    xt::xtensor<std::complex<float>, 2> x = {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
    auto layout = realify::complex_layout_of(x);
    static_assert(decltype(layout)::rank == 2);
    static_assert(std::is_same_v<decltype(layout)::complex_type, std::complex<float>>);
    EXPECT_EQ(layout.dimension(), 2u);
    EXPECT_EQ(layout.size(), 4u);
    EXPECT_EQ(layout(1, 0), std::complex<float>(5, 6));
    EXPECT_EQ(&layout.real_layout()(1, 1, 1), &reinterpret_cast<float*>(x.data())[7]);
    EXPECT_EQ(layout.shape(), (std::array<std::size_t, 2>{2, 2}));
}

TEST(ComplexLayout, MarkingChecksTheTrailingAxis) {
    xt::xtensor<double, 2> pairs = {{1, 2}, {3, 4}, {5, 6}};
    auto layout = realify::as_complex_layout(pairs);
    EXPECT_EQ(layout(2), std::complex<double>(5, 6));
    static_assert(std::is_same_v<decltype(layout)::closure_type, xt::xtensor<double, 2>&>);
    xt::xtensor<double, 2> triples = xt::zeros<double>({4, 3});
    EXPECT_THROW(realify::as_complex_layout(triples), realify::layout_error);
    try {
        realify::as_complex_layout(triples);
    } catch (const realify::layout_error& error) {
        EXPECT_NE(std::string(error.what()).find("(4, 3)"), std::string::npos) << error.what();
    }
}

TEST(ComplexLayout, TemporariesAreOwned) {
    auto layout = realify::as_complex_layout(xt::xtensor<float, 2>{{1, 2}, {3, 4}});
    static_assert(std::is_same_v<decltype(layout)::closure_type, xt::xtensor<float, 2>>);
    EXPECT_EQ(layout(1), std::complex<float>(3, 4));
}

TEST(ComplexLayout, ViewAsRealErasesTheMarker) {
    xt::xtensor<float, 2> pairs = {{1, 2}, {3, 4}};
    auto layout = realify::as_complex_layout(pairs);
    auto& real = realify::view_as_real(layout);
    static_assert(!realify::is_complex_layout_v<decltype(real)>);
    EXPECT_EQ(&real, &pairs);
}

TEST(ComplexLayout, ToComplexTensorCopiesAndKeepsStaticness) {
    xt::xtensor_fixed<float, xt::xshape<3, 2>> pairs = {{1, 2}, {3, 4}, {5, 6}};
    auto fixed = realify::to_complex_tensor(realify::as_complex_layout(pairs));
    static_assert(std::is_same_v<decltype(fixed)::shape_type, xt::fixed_shape<3>>);
    EXPECT_EQ(fixed(2), std::complex<float>(5, 6));
    xt::xarray<double> dyn = xt::zeros<double>({2, 3, 2});
    dyn(1, 2, 1) = 9;
    auto dynamic = realify::to_complex_tensor(realify::as_complex_layout(dyn));
    static_assert(std::is_same_v<decltype(dynamic), xt::xarray<std::complex<double>>>);
    EXPECT_EQ(dynamic(1, 2), std::complex<double>(0, 9));
    dyn(1, 2, 1) = 10;  // a copy, not a view
    EXPECT_EQ(dynamic(1, 2), std::complex<double>(0, 9));
}

}  // namespace
