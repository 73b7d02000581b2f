// realify::complex_layout<E> — the type that says "this real (…,2) expression
// means complex".
//
// Torch-TensorRT's complex lowering keeps a flag in node metadata to tell a real tensor that
// *means* complex from a real tensor that merely ends in 2, and bugs follow
// when the flag is missing. Here the distinction is the type: a plain real
// expression is never complex, whatever its shape; only complex_layout<E> is.
// Every lowering takes and returns complex_layout, so detection is overload
// resolution.
//
// E is an xtensor closure type: a value for temporaries/views (owned), an
// lvalue reference for named containers (borrowed), as xtensor itself does.
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include <xtensor/xarray.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xutils.hpp>

#include "realify/errors.hpp"
#include "realify/layout/scalar_traits.hpp"
#include "realify/layout/shape_traits.hpp"
#include "realify/layout/view_as_complex.hpp"
#include "realify/layout/view_as_real.hpp"

namespace realify {

template <class E>
class complex_layout {
public:
    using closure_type = E;
    using expression_type = std::decay_t<E>;
    using real_type = std::remove_cv_t<typename expression_type::value_type>;
    using complex_type = std::complex<real_type>;
    /// Rank of the complex tensor (one less than the real layout's), or dynamic_rank.
    static constexpr std::size_t rank = rank_minus_one(static_rank_v<expression_type>);
    using shape_type = shape_for_rank_t<rank>;

    static_assert(xt::is_xexpression<expression_type>::value,
                  "realify::complex_layout<E>: E must be an xtensor expression.");
    static_assert(real_scalar<real_type>,
                  "realify::complex_layout<E>: E's value_type must be float or double (the components of a "
                  "complex number).");
    static_assert(static_rank_v<expression_type> != 0,
                  "realify::complex_layout<E>: a rank-0 expression has no trailing [real, imag] axis.");

    /// Marks `expression` (real, last extent 2) as complex; throws
    /// realify::layout_error when the last extent is not 2.
    template <class Arg>
        requires std::constructible_from<E, Arg&&>
    explicit complex_layout(Arg&& expression) : m_expression(std::forward<Arg>(expression)) {
        const auto& real_shape = m_expression.shape();
        if (real_shape.size() == 0 || real_shape[real_shape.size() - 1] != 2) {
            const auto& s = detail::contiguous_sequence<std::size_t>(real_shape);
            detail::throw_not_complex_layout(std::span<const std::size_t>(s.data(), s.size()));
        }
    }

    complex_layout(const complex_layout&) = default;
    complex_layout(complex_layout&&) = default;
    complex_layout& operator=(const complex_layout&) = default;
    complex_layout& operator=(complex_layout&&) = default;
    // Out of line, one copy per type in a unit: a layout a user holds (an
    // eager result) is destroyed at its scope's end and on every exception
    // path after it, and xtensor's destructor inlined at each of those was a
    // seventh of an eager unit's code. A call per destroyed layout costs
    // nothing next to the op that made it.
    [[gnu::noinline]] ~complex_layout();

    /// The real (…,2) expression this layout marks.
    const expression_type& real_layout() const noexcept { return m_expression; }
    expression_type& real_layout() noexcept { return m_expression; }

    /// Complex rank, complex shape and number of complex elements.
    std::size_t dimension() const noexcept { return m_expression.dimension() - 1; }
    shape_type shape() const {
        const auto& real_shape = m_expression.shape();
        shape_type result = detail::make_shape<shape_type>(real_shape.size() - 1);
        // A rank-0 complex shape is an empty std::array: nothing to copy (and
        // GCC warns about copying into its null begin()).
        if constexpr (rank != 0) std::copy(real_shape.begin(), real_shape.end() - 1, result.begin());
        return result;
    }
    std::size_t size() const noexcept { return static_cast<std::size_t>(m_expression.size()) / 2; }

    /// The complex element at a complex index, read from the two components.
    template <class... Index>
    complex_type operator()(Index... index) const {
        return complex_type(m_expression(index..., 0), m_expression(index..., 1));
    }

private:
    E m_expression;
};

template <class E>
complex_layout<E>::~complex_layout() = default;

template <class T>
struct is_complex_layout : std::false_type {};
template <class E>
struct is_complex_layout<complex_layout<E>> : std::true_type {};

/// True only for complex_layout<E>: a real tensor that merely ends in 2 is never complex layout.
template <class T>
inline constexpr bool is_complex_layout_v = is_complex_layout<std::remove_cvref_t<T>>::value;

/// Marks a real (…,2) expression as complex. Named containers are borrowed,
/// temporaries and views are kept by value (xtensor's closure rules).
template <class E>
    requires xt::is_xexpression<std::decay_t<E>>::value
auto as_complex_layout(E&& real_expression) {
    return complex_layout<xt::xclosure_t<E>>(std::forward<E>(real_expression));
}

/// The complex layout of a std::complex container, adaptor or strided view:
/// a zero-copy (…,2) view of its memory.
template <class E>
    requires xt::is_xexpression<std::decay_t<E>>::value
auto complex_layout_of(E&& complex_tensor) {
    return as_complex_layout(view_as_real(std::forward<E>(complex_tensor)));
}

/// Erasing the marker: the real (…,2) expression of a complex layout.
template <class E>
decltype(auto) view_as_real(const complex_layout<E>& layout) noexcept {
    return layout.real_layout();
}
template <class E>
decltype(auto) view_as_real(complex_layout<E>& layout) noexcept {
    return layout.real_layout();
}

namespace detail {
template <class Layout>
auto make_complex_container(const Layout& layout) {
    using complex_type = typename Layout::complex_type;
    using expression = typename Layout::expression_type;
    if constexpr (has_fixed_shape_v<expression>) {
        using fixed = typename drop_last_impl<xt::fixed_shape<>, typename expression::shape_type>::type;
        return xt::xtensor_fixed<complex_type, fixed>();
    } else if constexpr (Layout::rank == dynamic_rank) {
        return xt::xarray<complex_type>::from_shape(layout.shape());
    } else {
        return xt::xtensor<complex_type, Layout::rank>::from_shape(layout.shape());
    }
}
}  // namespace detail

/// Evaluates a complex layout into a new std::complex container
/// (xtensor_fixed, xtensor<.., N> or xarray, as static as the layout).
template <class E>
auto to_complex_tensor(const complex_layout<E>& layout) {
    auto result = detail::make_complex_container(layout);
    auto components = view_as_real(result);
    // noalias: a plain `=` between two adaptors of the same type would be the
    // adaptor's copy assignment, which rebinds instead of writing through.
    xt::noalias(components) = layout.real_layout();
    return result;
}

}  // namespace realify
