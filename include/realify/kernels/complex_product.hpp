// The complex product on registers, written once for every kernel that
// multiplies complex numbers: the multiply family (element<op::mul> and the
// compiled mul, mul_conj, mul_rows, mul_scalar, mul_add), division's
// numerator, the integer powers and pow, and RoPE's rotation. V is the
// kernels' register vocabulary (kernels/element.hpp); the batch forms that
// decide special values (which lanes to redo) stay with their ops.
//
// Two layouts:
//   interleaved  registers of pairs [r0, i0, r1, i1, …]; the left factor x
//                comes as its two parts duplicated, re = [xr, xr, …] and
//                im = [xi, xi, …] — dup_real/dup_imag of a register of
//                pairs, a broadcast scalar, or a pattern built once per row
//                (RoPE's cos/sin, mul_rows' row) — so that one in-lane
//                shuffle, one multiply and one fused multiply-add/sub make a
//                register of products (Eigen's and VOLK's sequence);
//   split        {re, im} registers: two multiplies and two fused
//                multiply-adds.
// On instruction sets without FMA the fused forms are a multiply and an add
// (the vocabulary's fma/fms/fmaddsub), so every layout gives the plain
// formula's values up to that one rounding.
#pragma once

#include "realify/kernels/element.hpp"

namespace realify::kernels {

/// x · y = fmaddsub(re, y, im · swap_pairs(y)) = [xr·yr − xi·yi, xr·yi + xi·yr].
template <class V>
[[gnu::always_inline]] inline typename V::batch interleaved_product(typename V::batch re, typename V::batch im,
                                                                    typename V::batch y) noexcept {
    return V::fmaddsub(re, y, im * V::swap_pairs(y));
}

/// y · conj(x) = fmsubadd(re, y, im · swap_pairs(y)) = [xr·yr + xi·yi, xr·yi − xi·yr].
template <class V>
[[gnu::always_inline]] inline typename V::batch interleaved_product_conj(typename V::batch re, typename V::batch im,
                                                                         typename V::batch y) noexcept {
    return V::fmsubadd(re, y, im * V::swap_pairs(y));
}

/// x · y = (xr·yr − xi·yi) + i(xr·yi + xi·yr).
template <class V>
[[gnu::always_inline]] inline cpair<typename V::batch> split_product(const cpair<typename V::batch>& x,
                                                                     const cpair<typename V::batch>& y) noexcept {
    return {V::fms(x.re, y.re, x.im * y.im), V::fma(x.re, y.im, x.im * y.re)};
}

/// x · conj(y) = (xr·yr + xi·yi) + i(xi·yr − xr·yi).
template <class V>
[[gnu::always_inline]] inline cpair<typename V::batch> split_product_conj(const cpair<typename V::batch>& x,
                                                                          const cpair<typename V::batch>& y) noexcept {
    return {V::fma(x.re, y.re, x.im * y.im), V::fms(x.im, y.re, x.re * y.im)};
}

}  // namespace realify::kernels
