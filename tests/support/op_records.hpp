// What the suites know of the ops with unary kernels (REALIFY_UNARY_KERNEL_OPS),
// from the op list alone: the forms the op has (its kernels column) and its
// record (realify/ops/tags.hpp: sample scale, tolerance, PyTorch 1.13's
// forms). Each suite expands REALIFY_UNARY_KERNEL_OPS with its own X, which
// names the op's eager function, graph builder and reference
// (realify::reference::<name>, tests/support/reference.hpp); everything else
// it reads here, so an op added to the list runs in every suite with no edit
// to the suites.
#pragma once

#include <cstddef>

#include "realify/dispatch/lowerings/unary.hpp"
#include "realify/ops/tags.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::testing {

/// The compiled op of a tag with unary kernels.
template <class Tag>
inline constexpr simd::elementwise_op unary_kernel_op = *simd::elementwise_op_of<Tag>;

/// The op takes a complex tensor (complex → complex or complex → real).
template <class Tag>
inline constexpr bool has_complex_form = dispatch::lowering::lowered_form<unary_kernel_op<Tag>, true>();
/// The op takes a real tensor (PyTorch's real op).
template <class Tag>
inline constexpr bool has_real_form = dispatch::lowering::lowered_form<unary_kernel_op<Tag>, false>();
/// Complex → real (abs, angle, real, imag).
template <class Tag>
inline constexpr bool real_valued = simd::result_kind(unary_kernel_op<Tag>, simd::operand_kind::complex) ==
                                    simd::operand_kind::real;

/// How many ops with unary kernels have a complex form / a real form.
inline constexpr std::size_t unary_kernel_ops_with_complex_form = 0
#define REALIFY_TEST_COUNT(name) +(has_complex_form<::realify::op::name> ? 1 : 0)
    REALIFY_UNARY_KERNEL_OPS(REALIFY_TEST_COUNT)
#undef REALIFY_TEST_COUNT
    ;
inline constexpr std::size_t unary_kernel_ops_with_real_form = 0
#define REALIFY_TEST_COUNT(name) +(has_real_form<::realify::op::name> ? 1 : 0)
    REALIFY_UNARY_KERNEL_OPS(REALIFY_TEST_COUNT)
#undef REALIFY_TEST_COUNT
    ;

}  // namespace realify::testing
