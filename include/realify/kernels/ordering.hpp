// Element kernels of the ops that order real values: maximum, minimum,
// clamp_min, clamp_max (clamp is clamp_min then clamp_max). Real operands
// only: complex values have no ordering, and PyTorch refuses them too. See
// kernels/element.hpp for the contract.
//
// Semantics (docs/numerics.md):
//   - NaN propagates: a NaN operand (value or bound) gives NaN, as PyTorch's
//     maximum, minimum, clamp_min, clamp_max and clamp with both bounds;
//   - maximum / minimum order −0 below +0 and are symmetric (IEEE 754-2019's
//     maximum and minimum): maximum(−0, +0) = +0 whichever side each is on.
//     PyTorch 1.13's CPU kernels give the second operand in their vector
//     lanes and the first in the scalar tail, so its sign depends on the
//     position; realify's does not;
//   - clamp_min / clamp_max keep x when it equals the bound (x < lo ? lo : x),
//     as PyTorch's clamp with number bounds: clamp(−0, 0, 1) = −0; a bound
//     below the other (clamp(x, 2, 1)) gives the second (1, as PyTorch).
#pragma once

#include <cmath>
#include <concepts>

#include "realify/kernels/element.hpp"

namespace realify::kernels {

namespace detail {

/// NaN when either operand is (their sum: quiet, whatever the other is).
template <std::floating_point T>
T unordered(T x, T y) noexcept {
    return x + y;
}

/// maximum (Max = true) and minimum: NaN propagates, +0 above −0.
template <bool Max>
struct extremum {
    template <std::floating_point T>
    T operator()(T x, T y) const noexcept {
        if (x < y) return Max ? y : x;
        if (y < x) return Max ? x : y;
        if (x == y) return std::signbit(x) == Max ? y : x;  // ±0 ties: +0 for maximum, −0 for minimum
        return unordered(x, y);
    }
    /// The larger (smaller) lane, ties by the bits: x & y keeps +0 of a
    /// ±0 pair (the sign bit only where both have it), x | y keeps −0; equal
    /// values are their own bits either way.
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::batch y) noexcept {
        const auto r = Max ? V::select(x < y, y, x) : V::select(y < x, y, x);
        const auto tie = V::select(x == y, Max ? (x & y) : (x | y), r);
        return V::select(V::isnan(x) | V::isnan(y), x + y, tie);
    }
};

/// clamp_min (Lower = true: x < lo ? lo : x) and clamp_max (x > hi ? hi : x).
template <bool Lower>
struct bound {
    template <std::floating_point T>
    T operator()(T x, T b) const noexcept {
        if (x != x || b != b) return unordered(x, b);
        return (Lower ? x < b : b < x) ? b : x;
    }
    template <class V>
    [[gnu::always_inline]] static typename V::batch simd(typename V::batch x, typename V::batch b) noexcept {
        const auto r = V::select(Lower ? x < b : b < x, b, x);
        return V::select(V::isnan(x) | V::isnan(b), x + b, r);
    }
};

}  // namespace detail

template <>
struct element<op::maximum> : detail::extremum<true> {};
template <>
struct element<op::minimum> : detail::extremum<false> {};
template <>
struct element<op::clamp_min> : detail::bound<true> {};
template <>
struct element<op::clamp_max> : detail::bound<false> {};

}  // namespace realify::kernels
