// Eigen interop: Eigen's complex matrices, arrays, Maps and Tensors seen as
// real (…,2) xtensor views over the same memory, and real (…,2) xtensor
// memory seen as Eigen complex Maps again. Zero-copy both ways.
//
//   Eigen dense (matrix/array/Map/Block), rows × cols   -> (rows, cols, 2)
//   Eigen dense known at compile time to be a vector    -> (size, 2)
//   Eigen::Tensor / TensorMap of rank N                  -> (d0, …, dN-1, 2)
//
// Both storage orders work: the view carries Eigen's strides (doubled, with a
// trailing stride of 1), so element (i, j, c) is component c of m(i, j).
// The way back:
//   realify::eigen::complex_matrix_map(r)        (rows, cols, 2) -> Eigen::Map of a complex matrix
//   realify::eigen::complex_tensor_map<N>(r)     (d…, 2)         -> Eigen::TensorMap of rank N
// Both check the layout like realify::view_as_complex and throw
// realify::layout_error when it does not fit.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <sstream>
#include <type_traits>
#include <utility>

#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>
#include <xtensor/xadapt.hpp>
#include <xtensor/xstrided_view.hpp>

#include "realify/errors.hpp"
#include "realify/layout/pointer_cast.hpp"
#include "realify/layout/scalar_traits.hpp"
#include "realify/layout/view_as_complex.hpp"

namespace realify {

namespace detail {

/// Number of reals an Eigen view with these complex strides can reach: the
/// extent the xtensor adaptor must cover.
template <std::size_t N>
std::size_t reachable_reals(const std::array<std::size_t, N>& complex_shape,
                            const std::array<std::ptrdiff_t, N>& complex_strides) {
    std::size_t last = 0;
    for (std::size_t axis = 0; axis < N; ++axis) {
        if (complex_shape[axis] == 0) return 0;
        last += (complex_shape[axis] - 1) * static_cast<std::size_t>(complex_strides[axis]);
    }
    return 2 * (last + 1);
}

/// Real (…,2) adaptor over complex memory with the given complex shape and strides.
template <class C, std::size_t N>
auto adapt_complex_strided(C* data, const std::array<std::size_t, N>& complex_shape,
                           const std::array<std::ptrdiff_t, N>& complex_strides, const char* where) {
    std::array<std::size_t, N + 1> shape{};
    std::array<std::ptrdiff_t, N + 1> strides{};
    for (std::size_t axis = 0; axis < N; ++axis) {
        if (complex_strides[axis] < 0) {
            std::ostringstream message;
            message << where << ": negative Eigen strides " << format_sequence(complex_strides)
                    << " are not supported (shape " << format_sequence(complex_shape) << ")";
            throw layout_error(message.str());
        }
        shape[axis] = complex_shape[axis];
        // xtensor's convention: an axis of extent 1 has stride 0.
        strides[axis] = complex_shape[axis] == 1 ? 0 : 2 * complex_strides[axis];
    }
    shape[N] = 2;
    strides[N] = 1;
    // An xtensor adaptor with explicit strides insists that its buffer holds
    // exactly prod(shape) elements, which a Block or a strided Map does not:
    // view the reachable memory flat and lay the strides over it instead.
    const std::size_t reals = reachable_reals(complex_shape, complex_strides);
    auto reachable = xt::adapt(as_real_pointer(data), reals, xt::no_ownership(), std::array<std::size_t, 1>{reals});
    return xt::strided_view(std::move(reachable), std::move(shape), std::move(strides), 0, xt::layout_type::dynamic);
}

template <class Derived>
inline constexpr bool is_compile_time_vector_v = Derived::IsVectorAtCompileTime;

template <class T>
inline constexpr bool is_eigen_tensor_container_v = false;
template <class S, int N, int O, class I>
inline constexpr bool is_eigen_tensor_container_v<Eigen::Tensor<S, N, O, I>> = true;

}  // namespace detail

template <class T>
concept eigen_dense = std::is_base_of_v<Eigen::DenseBase<std::remove_cvref_t<T>>, std::remove_cvref_t<T>>;

template <class T>
concept eigen_tensor =
    std::is_base_of_v<Eigen::TensorBase<std::remove_cvref_t<T>, Eigen::ReadOnlyAccessors>, std::remove_cvref_t<T>>;

/// (rows, cols, 2) real view of an Eigen dense complex expression with direct
/// memory access (Matrix, Array, Map, Block, …); (size, 2) for compile-time
/// vectors. A const argument gives a read-only view.
template <eigen_dense M>
auto view_as_real(M&& dense) {
    using derived = std::remove_cvref_t<M>;
    static_assert(complex_scalar<typename derived::Scalar>,
                  "realify::view_as_real: the Eigen expression's Scalar must be std::complex<float> or "
                  "std::complex<double>.");
    static_assert(static_cast<bool>(derived::Flags & Eigen::DirectAccessBit),
                  "realify::view_as_real: the Eigen expression has no direct memory access (it is lazy, e.g. "
                  "`a + b`); evaluate it into a Matrix or Array first.");
    static_assert(std::is_lvalue_reference_v<M> || !std::is_base_of_v<Eigen::PlainObjectBase<derived>, derived>,
                  "realify::view_as_real: the argument is a temporary Eigen Matrix/Array; its view would dangle. "
                  "Keep it in a variable and view that.");
    constexpr const char* where = "realify::view_as_real(Eigen)";
    if constexpr (detail::is_compile_time_vector_v<derived>) {
        return detail::adapt_complex_strided(dense.data(),
                                             std::array<std::size_t, 1>{static_cast<std::size_t>(dense.size())},
                                             std::array<std::ptrdiff_t, 1>{dense.innerStride()}, where);
    } else {
        const std::ptrdiff_t row_stride = derived::IsRowMajor ? dense.outerStride() : dense.innerStride();
        const std::ptrdiff_t col_stride = derived::IsRowMajor ? dense.innerStride() : dense.outerStride();
        return detail::adapt_complex_strided(
            dense.data(),
            std::array<std::size_t, 2>{static_cast<std::size_t>(dense.rows()), static_cast<std::size_t>(dense.cols())},
            std::array<std::ptrdiff_t, 2>{row_stride, col_stride}, where);
    }
}

/// (d0, …, dN-1, 2) real view of an Eigen::Tensor or TensorMap of std::complex.
template <eigen_tensor T>
auto view_as_real(T&& tensor) {
    using derived = std::remove_cvref_t<T>;
    static_assert(complex_scalar<typename derived::Scalar>,
                  "realify::view_as_real: the Eigen tensor's Scalar must be std::complex<float> or "
                  "std::complex<double>.");
    static_assert(requires { tensor.data(); },
                  "realify::view_as_real: the Eigen tensor expression has no memory (it is lazy); evaluate it into "
                  "an Eigen::Tensor first.");
    static_assert(std::is_lvalue_reference_v<T> || !detail::is_eigen_tensor_container_v<derived>,
                  "realify::view_as_real: the argument is a temporary Eigen::Tensor; its view would dangle. Keep it "
                  "in a variable and view that.");
    constexpr std::size_t rank = static_cast<std::size_t>(derived::NumDimensions);
    std::array<std::size_t, rank> shape{};
    std::array<std::ptrdiff_t, rank> strides{};
    std::ptrdiff_t running = 1;
    for (std::size_t step = 0; step < rank; ++step) {
        // Column-major: the first index varies fastest; row-major: the last.
        const std::size_t axis = (static_cast<int>(derived::Layout) == static_cast<int>(Eigen::ColMajor)) ? step : rank - 1 - step;
        shape[axis] = static_cast<std::size_t>(tensor.dimension(static_cast<Eigen::Index>(axis)));
        strides[axis] = running;
        running *= static_cast<std::ptrdiff_t>(shape[axis]);
    }
    return detail::adapt_complex_strided(tensor.data(), shape, strides, "realify::view_as_real(Eigen::Tensor)");
}

namespace eigen {

namespace detail {
template <class E>
void check_rank(const E& real, std::size_t rank, const char* where) {
    if (real.dimension() != rank) {
        std::ostringstream message;
        message << where << ": expected a real tensor of rank " << rank << " (…, 2), got shape "
                << realify::detail::format_sequence(real.shape());
        throw layout_error(message.str());
    }
}
}  // namespace detail

/// Eigen::Map of a complex (rows × cols) matrix over a real (rows, cols, 2)
/// xtensor container, adaptor or strided view. Any non-negative even strides.
template <class E>
    requires xt::is_xexpression<std::decay_t<E>>::value
auto complex_matrix_map(E& real) {
    using real_type = std::remove_reference_t<decltype(*real.data())>;
    static_assert(real_scalar<real_type>, "realify::eigen::complex_matrix_map: the value_type must be float or double.");
    constexpr const char* where = "realify::eigen::complex_matrix_map";
    detail::check_rank(real, 3, where);
    const auto& strides = real.strides();
    realify::detail::check_complex_viewable(where, real.shape(), strides, static_cast<std::size_t>(real.data_offset()));
    if (strides[0] < 0 || strides[1] < 0) {
        std::ostringstream message;
        message << where << ": negative strides " << realify::detail::format_sequence(strides)
                << " cannot be mapped by Eigen";
        throw layout_error(message.str());
    }
    using complex = std::complex<std::remove_const_t<real_type>>;
    using matrix = Eigen::Matrix<complex, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
    using map_target = std::conditional_t<std::is_const_v<real_type>, const matrix, matrix>;
    using stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
    // Column-major map: outer stride steps between columns, inner between rows.
    return Eigen::Map<map_target, Eigen::Unaligned, stride>(
        realify::detail::as_complex_pointer(realify::detail::first_element(real)),
        static_cast<Eigen::Index>(real.shape()[0]), static_cast<Eigen::Index>(real.shape()[1]),
        stride(strides[1] / 2, strides[0] / 2));
}

/// Eigen::TensorMap of rank N over a contiguous real (d0, …, dN-1, 2) layout,
/// in Eigen's column-major (default) or row-major order. TensorMap has no
/// strides, so the complex elements must be packed in that order.
template <std::size_t N, int Layout = Eigen::ColMajor, class E>
    requires xt::is_xexpression<std::decay_t<E>>::value
auto complex_tensor_map(E& real) {
    using real_type = std::remove_reference_t<decltype(*real.data())>;
    static_assert(real_scalar<real_type>, "realify::eigen::complex_tensor_map: the value_type must be float or double.");
    constexpr const char* where = "realify::eigen::complex_tensor_map";
    detail::check_rank(real, N + 1, where);
    const auto& shape = real.shape();
    const auto& strides = real.strides();
    realify::detail::check_complex_viewable(where, shape, strides, static_cast<std::size_t>(real.data_offset()));
    std::array<Eigen::Index, N> dims{};
    std::ptrdiff_t expected = 2;
    for (std::size_t step = 0; step < N; ++step) {
        const std::size_t axis = (Layout == Eigen::ColMajor) ? step : N - 1 - step;
        dims[axis] = static_cast<Eigen::Index>(shape[axis]);
        const bool packed = shape[axis] == 1 || strides[axis] == expected;
        if (!packed) {
            std::ostringstream message;
            message << where << ": real tensor of shape " << realify::detail::format_sequence(shape) << " with strides "
                    << realify::detail::format_sequence(strides) << " is not packed in "
                    << (Layout == Eigen::ColMajor ? "column" : "row") << "-major order (axis " << axis
                    << " has stride " << strides[axis] << ", expected " << expected << ")";
            throw layout_error(message.str());
        }
        expected *= static_cast<std::ptrdiff_t>(shape[axis]);
    }
    using complex = std::complex<std::remove_const_t<real_type>>;
    using tensor = Eigen::Tensor<complex, static_cast<int>(N), Layout>;
    using map_target = std::conditional_t<std::is_const_v<real_type>, const tensor, tensor>;
    return Eigen::TensorMap<map_target>(realify::detail::as_complex_pointer(realify::detail::first_element(real)), dims);
}

}  // namespace eigen
}  // namespace realify
