// The operands of an elementwise loop over values: a value (or a number) in
// the loop's component type, seen by the elementwise engine as an
// operand_ref — its contiguous memory, its shape and row-major strides. The
// fused loop (graph/fusion.hpp) and the std::complex fallback
// (graph/fallback.hpp) read their operands through these.
#pragma once

#include <cstddef>
#include <type_traits>

#include "realify/dispatch/elementwise.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/value.hpp"

namespace realify::graph::detail {

using kernel::cpair;

/// A complex pair (kernel::cpair) rather than a real number.
template <class X>
inline constexpr bool is_pair_v = !std::is_arithmetic_v<X>;

/// An operand of a loop: its value in the loop's component type, and whether it is complex.
template <class T, bool Complex>
struct leaf {
    tensor_value<T> value;
};

template <class T, bool Complex>
auto make_ref(const leaf<T, Complex>& l) {
    realify::detail::operand_ref<T, Complex> ref;
    ref.data = l.value.data;
    ref.shape.assign(l.value.shape.begin(), l.value.shape.end());
    ref.strides.resize(ref.shape.size());
    std::ptrdiff_t stride = Complex ? 2 : 1;
    for (std::size_t i = ref.shape.size(); i-- > 0;) {
        ref.strides[i] = stride;
        stride *= static_cast<std::ptrdiff_t>(ref.shape[i]);
    }
    return ref;
}

/// The scalar operand as a 0-d value of component type T.
template <class T, class S>
tensor_value<T> scalar_value(const scalar_node<S>& s) {
    constexpr bool c = is_std_complex<S>::value;
    auto v = allocate<T>({}, c);
    if constexpr (c) {
        v.data[0] = static_cast<T>(s.value.real());
        v.data[1] = static_cast<T>(s.value.imag());
    } else {
        v.data[0] = static_cast<T>(s.value);
    }
    return v;
}

/// A child of a loop as a leaf: a number, or the child's evaluated value.
template <bool Strict, class T, class C>
auto leaf_of(const C& c, eval_context& ctx) {
    if constexpr (is_scalar_node_v<C>) return leaf<T, traits_t<C>::is_complex>{scalar_value<T>(c)};
    else return leaf<T, traits_t<C>::is_complex>{eval<Strict>(c, ctx)};
}

}  // namespace realify::graph::detail
