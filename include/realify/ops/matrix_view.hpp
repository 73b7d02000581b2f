// Conjugated and transposed operands of the matrix products, without copies:
//
//   realify::conj_view(a)        conj(a)
//   realify::transpose_view(a)   a with its last two dims swapped (PyTorch's a.mT)
//   realify::mH(a)               the adjoint, conj(a) transposed (PyTorch's a.mH)
//
// Each returns a matrix_view: a reference to `a` (a copy only of a temporary)
// and two compile-time flags. mm, bmm, matmul, mv, dot and vdot read it in
// place — a transpose is the operand's strides swapped, a conjugate a flag the
// compiled GEMM folds into the data it prepares anyway — so mm(mH(a), b)
// costs what mm(a, b) costs. Views of views combine (mH(mH(a)) reads a).
// Only the matrix products take them; realify::conj and realify::transpose
// give the tensors themselves.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "realify/errors.hpp"
#include "realify/ops/operand.hpp"

namespace realify {

/// `Operand` (a complex_layout or a real tensor; `const X&` when borrowed)
/// read as conj(·) when Conjugate, with its last two dims swapped when
/// Transpose. Conjugating a real tensor changes nothing.
template <class Operand, bool Conjugate, bool Transpose>
class matrix_view {
public:
    using operand_type = std::remove_cvref_t<Operand>;
    static constexpr bool conjugate = Conjugate;
    static constexpr bool transpose = Transpose;

    template <class Arg>
        requires std::constructible_from<Operand, Arg&&>
    explicit matrix_view(Arg&& operand) : m_operand(std::forward<Arg>(operand)) {}

    const operand_type& operand() const noexcept { return m_operand; }
    /// The stored operand, moved out of a temporary view.
    Operand&& release() && noexcept { return std::forward<Operand>(m_operand); }

private:
    Operand m_operand;
};

template <class T>
struct is_matrix_view : std::false_type {};
template <class Operand, bool C, bool T>
struct is_matrix_view<matrix_view<Operand, C, T>> : std::true_type {};
template <class T>
inline constexpr bool is_matrix_view_v = is_matrix_view<std::remove_cvref_t<T>>::value;

/// A tensor the matrix products take: a complex layout, or a real float/double tensor.
template <class A>
concept matrix_tensor_operand =
    complex_tensor_operand<A> ||
    (real_tensor_operand<A> && std::is_floating_point_v<typename std::remove_cvref_t<A>::value_type>);

namespace detail {

template <bool FlipConjugate, bool FlipTranspose, class X>
auto make_matrix_view(std::string_view function, X&& x) {
    using V = std::remove_cvref_t<X>;
    if constexpr (is_matrix_view_v<X>) {
        constexpr bool conjugate = V::conjugate != FlipConjugate, transpose = V::transpose != FlipTranspose;
        if constexpr (std::is_lvalue_reference_v<X>) {
            return matrix_view<const typename V::operand_type&, conjugate, transpose>(x.operand());
        } else {
            return make_matrix_view<conjugate, transpose>(function, std::move(x).release());
        }
    } else {
        static_assert(matrix_tensor_operand<V>,
                      "realify::conj_view / transpose_view / mH: the operand must be a complex_layout or a real "
                      "float/double tensor.");
        if constexpr (FlipTranspose) {
            if (x.dimension() < 2)
                throw shape_error("realify::" + std::string(function) + ": a tensor of shape " +
                                  format_sequence(x.shape()) + " has fewer than 2 dims to transpose");
        }
        using stored = std::conditional_t<std::is_lvalue_reference_v<X>, const V&, V>;
        return matrix_view<stored, FlipConjugate, FlipTranspose>(std::forward<X>(x));
    }
}

}  // namespace detail

/// conj(a), read in place by the matrix products.
template <class X>
auto conj_view(X&& a) {
    return detail::make_matrix_view<true, false>("conj_view", std::forward<X>(a));
}

/// a with its last two dims swapped (PyTorch's a.mT), read in place by the matrix products.
template <class X>
auto transpose_view(X&& a) {
    return detail::make_matrix_view<false, true>("transpose_view", std::forward<X>(a));
}

/// The adjoint conj(a)ᵀ over the last two dims (PyTorch's a.mH), read in place by the matrix products.
template <class X>
auto mH(X&& a) {
    return detail::make_matrix_view<true, true>("mH", std::forward<X>(a));
}

}  // namespace realify
