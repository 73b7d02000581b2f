// Eigen interop: complex matrices/arrays/Maps/Tensors as real (…,2) views,
// both storage orders, and the way back.
#include <complex>
#include <type_traits>

#include <gtest/gtest.h>

#include <realify/interop/eigen.hpp>
#include <realify/layout.hpp>

namespace {

template <class T>
class EigenInterop : public ::testing::Test {};
using RealTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(EigenInterop, RealTypes);

template <class Matrix>
void fill_numbered(Matrix& m) {
    using complex = typename Matrix::Scalar;
    using real = typename complex::value_type;
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = complex(real(10 * i + j), real(-i - 0.25 * j));
}

template <class Matrix, class View>
void expect_view_matches(const Matrix& m, const View& r) {
    ASSERT_EQ(r.dimension(), 3u);
    ASSERT_EQ(r.shape()[0], static_cast<std::size_t>(m.rows()));
    ASSERT_EQ(r.shape()[1], static_cast<std::size_t>(m.cols()));
    ASSERT_EQ(r.shape()[2], 2u);
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const auto ui = static_cast<std::size_t>(i), uj = static_cast<std::size_t>(j);
            EXPECT_EQ(r(ui, uj, 0), m(i, j).real());
            EXPECT_EQ(r(ui, uj, 1), m(i, j).imag());
            EXPECT_EQ(&r(ui, uj, 1), reinterpret_cast<const typename View::value_type*>(&m(i, j)) + 1);
        }
}

TYPED_TEST(EigenInterop, ColumnMajorMatrix) {
    Eigen::Matrix<std::complex<TypeParam>, Eigen::Dynamic, Eigen::Dynamic> m(3, 4);
    fill_numbered(m);
    auto r = realify::view_as_real(m);
    expect_view_matches(m, r);
    r(2, 1, 1) = TypeParam(99);
    EXPECT_EQ(m(2, 1).imag(), TypeParam(99));
}

TYPED_TEST(EigenInterop, RowMajorMatrix) {
    Eigen::Matrix<std::complex<TypeParam>, 3, 4, Eigen::RowMajor> m;
    fill_numbered(m);
    auto r = realify::view_as_real(m);
    expect_view_matches(m, r);
    EXPECT_EQ(r.strides()[0], 8);
    EXPECT_EQ(r.strides()[1], 2);
}

TYPED_TEST(EigenInterop, ArraysBlocksAndMaps) {
    Eigen::Array<std::complex<TypeParam>, Eigen::Dynamic, Eigen::Dynamic> a(5, 6);
    fill_numbered(a);
    expect_view_matches(a, realify::view_as_real(a));
    auto block = a.block(1, 2, 3, 3);
    expect_view_matches(block, realify::view_as_real(block));
    std::vector<std::complex<TypeParam>> buffer(12);
    Eigen::Map<Eigen::Matrix<std::complex<TypeParam>, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> map(
        buffer.data(), 3, 4);
    fill_numbered(map);
    expect_view_matches(map, realify::view_as_real(map));
    const auto& constant = a;
    auto read_only = realify::view_as_real(constant);
    static_assert(std::is_const_v<std::remove_reference_t<decltype(*read_only.data())>>);
    expect_view_matches(a, read_only);
}

TYPED_TEST(EigenInterop, VectorsAreRankTwo) {
    Eigen::Matrix<std::complex<TypeParam>, Eigen::Dynamic, 1> v(5);
    for (Eigen::Index i = 0; i < 5; ++i) v(i) = {TypeParam(i), TypeParam(-i)};
    auto r = realify::view_as_real(v);
    ASSERT_EQ(r.dimension(), 2u);
    EXPECT_EQ(r(4, 1), TypeParam(-4));
}

TYPED_TEST(EigenInterop, TensorBothLayouts) {
    Eigen::Tensor<std::complex<TypeParam>, 3> col(2, 3, 4);
    Eigen::Tensor<std::complex<TypeParam>, 3, Eigen::RowMajor> row(2, 3, 4);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k) {
                col(i, j, k) = row(i, j, k) = {TypeParam(100 * i + 10 * j + k), TypeParam(-k)};
            }
    auto rc = realify::view_as_real(col);
    auto rr = realify::view_as_real(row);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            for (std::size_t k = 0; k < 4; ++k) {
                const auto e = col(int(i), int(j), int(k));
                EXPECT_EQ(rc(i, j, k, 0), e.real());
                EXPECT_EQ(rr(i, j, k, 1), e.imag());
                EXPECT_EQ(&rc(i, j, k, 0), reinterpret_cast<TypeParam*>(&col(int(i), int(j), int(k))));
            }
    // and back, in each order
    auto col_back = realify::eigen::complex_tensor_map<3>(rc);
    EXPECT_EQ(&col_back(1, 2, 3), &col(1, 2, 3));
    auto row_back = realify::eigen::complex_tensor_map<3, Eigen::RowMajor>(rr);
    EXPECT_EQ(&row_back(1, 2, 3), &row(1, 2, 3));
    EXPECT_THROW(realify::eigen::complex_tensor_map<3>(rr), realify::layout_error);
}

TYPED_TEST(EigenInterop, RealXtensorBackToEigenMatrix) {
    xt::xtensor<TypeParam, 3> r = xt::arange<TypeParam>(24).reshape({3, 4, 2});
    auto m = realify::eigen::complex_matrix_map(r);
    ASSERT_EQ(m.rows(), 3);
    ASSERT_EQ(m.cols(), 4);
    EXPECT_EQ(m(1, 2), std::complex<TypeParam>(12, 13));
    m(2, 3) = {-1, -2};
    EXPECT_EQ(r(2, 3, 1), TypeParam(-2));
    // round trip from a column-major Eigen matrix
    Eigen::Matrix<std::complex<TypeParam>, Eigen::Dynamic, Eigen::Dynamic> e(3, 2);
    fill_numbered(e);
    auto view = realify::view_as_real(e);
    auto again = realify::eigen::complex_matrix_map(view);
    EXPECT_EQ(&again(2, 1), &e(2, 1));
    EXPECT_TRUE(again.isApprox(e));
}

TYPED_TEST(EigenInterop, WayBackRejectsBadLayouts) {
    xt::xtensor<TypeParam, 3> three = xt::zeros<TypeParam>({3, 4, 3});
    EXPECT_THROW(realify::eigen::complex_matrix_map(three), realify::layout_error);
    xt::xtensor<TypeParam, 2> rank2 = xt::zeros<TypeParam>({3, 2});
    EXPECT_THROW(realify::eigen::complex_matrix_map(rank2), realify::layout_error);
}

}  // namespace
