// The operands of an elementwise loop over values: a value (or a number) in
// the loop's component type, seen by the elementwise engine as an
// operand_ref — its contiguous memory, its shape and row-major strides. The
// fused loop (graph/fusion.hpp) and the std::complex fallback
// (graph/fallback.hpp) read their operands through these.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

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

/// A number as a 0-d value of component type T.
template <class T, class S>
tensor_value<T> number_value(S s) {
    constexpr bool c = is_std_complex<S>::value;
    auto v = allocate<T>({}, c);
    if constexpr (c) {
        v.data[0] = static_cast<T>(s.real());
        v.data[1] = static_cast<T>(s.imag());
    } else {
        v.data[0] = static_cast<T>(s);
    }
    return v;
}

template <class K>
inline constexpr bool is_number_operand_v = false;
template <class S>
inline constexpr bool is_number_operand_v<number_operand<S>> = true;

/// The child at `slot` as a leaf of a loop of component type T: a number
/// (read from its record) or the child's value.
template <class T, class Kind>
leaf<T, Kind::is_complex> leaf_from(eval_context& ctx, std::size_t slot) {
    if constexpr (is_number_operand_v<Kind>) {
        return {number_value<T>(number_of<typename Kind::type>(ctx.ir->nodes[slot]))};
    } else {
        return {value_as<T>(ctx, slot)};
    }
}

/// The leaves of a loop of component type T whose operand kinds are Kinds,
/// read from `slots` (one per kind, in order).
template <class T, class... Kinds, class Slots>
auto leaves_from(eval_context& ctx, const Slots& slots) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::make_tuple(leaf_from<T, Kinds>(ctx, slots[I])...);
    }(std::index_sequence_for<Kinds...>{});
}

}  // namespace realify::graph::detail
