// The element kernels' scalar forms as raw kernels (the signatures of
// realify/simd/elementwise.hpp): a plain loop over the scalar form. Declared
// here, defined and instantiated only in src/simd/scalar.cpp, which is
// compiled for the x86-64 baseline with IEEE semantics (realify_isa_sources):
// the per-instruction-set kernels call them for the lanes their batch forms
// hand back (non-finite inputs or results, inputs outside the batch form's
// range), and the kernel table uses them for forms without a batch form.
// Keeping the definitions out of the per-instruction-set translation units
// keeps every copy of the scalar code baseline code: an inline function
// instantiated there could be the copy the linker keeps for everyone.
#pragma once

#include <cstddef>

#include "realify/simd/elementwise.hpp"

namespace realify::simd::detail {

template <elementwise_op Op, operand_kind X, class T>
void scalar_unary(const T* x, T* out, std::size_t n, const T* params, bool stream) noexcept;

template <elementwise_op Op, operand_kind X, operand_kind Y, class T>
void scalar_binary(const T* x, bool x_broadcast, const T* y, bool y_broadcast, T* out, std::size_t n,
                   const T* params, bool stream) noexcept;

}  // namespace realify::simd::detail
