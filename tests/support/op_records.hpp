// What the suites know of the elementwise ops, from the op list alone: the
// ops with unary kernels (REALIFY_UNARY_KERNEL_OPS), those with binary
// kernels (REALIFY_BINARY_KERNEL_OPS: add, mul, …, maximum) and the
// tensor-number ops (REALIFY_SCALAR_OPS: add_scalar, …, pow_scalar); the
// forms each has (its kernels column) and its record (realify/ops/tags.hpp:
// sample scale, tolerance, PyTorch 1.13's forms). Each suite expands those
// lists with its own X, which names the op's eager function, graph builder
// and reference (realify::reference::<name>, tests/support/reference.hpp);
// everything else it reads here, so an op added to the list runs in every
// suite with no edit to the suites.
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

/// The compiled op of a tag with binary kernels.
template <class Tag>
inline constexpr simd::elementwise_op binary_kernel_op = *simd::elementwise_op_of<Tag>;
/// Complex and real operands in any mix (add, mul, pow_tensor), not real
/// ones only (maximum, clamp_min: PyTorch orders real values only).
template <class Tag>
inline constexpr bool binary_has_complex_form =
    simd::result_kind(binary_kernel_op<Tag>, simd::operand_kind::complex, simd::operand_kind::complex).has_value();
/// The op takes PyTorch's alpha (add, sub: a ± α·b).
template <class Tag>
inline constexpr bool takes_alpha = simd::takes_constant(binary_kernel_op<Tag>);
/// The scale of the samples of a binary op's second operand (the record's
/// exponent_scale where it has one).
template <class Tag>
inline constexpr double second_operand_scale = Tag::record.exponent_scale > 0 ? Tag::record.exponent_scale
                                                                              : Tag::record.sample_scale;

/// The ops of each list as a realify::type_list of their tags.
#define REALIFY_TEST_TAG(name) , ::realify::op::name
using unary_kernel_tags = op::detail::drop_first_void<void REALIFY_UNARY_KERNEL_OPS(REALIFY_TEST_TAG)>::type;
using binary_kernel_tags = op::detail::drop_first_void<void REALIFY_BINARY_KERNEL_OPS(REALIFY_TEST_TAG)>::type;
using scalar_op_tags = op::detail::drop_first_void<void REALIFY_SCALAR_OPS(REALIFY_TEST_TAG)>::type;
#undef REALIFY_TEST_TAG

/// How many tags of a list satisfy `pred` (`[]<class Tag>() { return …; }`).
template <class... Tags, class Pred>
constexpr std::size_t count_if(type_list<Tags...>, Pred pred) {
    return (std::size_t{pred.template operator()<Tags>()} + ... + 0);
}

/// How many ops with unary kernels have a complex form / a real form; how
/// many with binary kernels have complex forms / take alpha (those have
/// complex forms); how many tensor-number ops there are.
inline constexpr std::size_t unary_kernel_ops_with_complex_form =
    count_if(unary_kernel_tags{}, []<class Tag>() { return has_complex_form<Tag>; });
inline constexpr std::size_t unary_kernel_ops_with_real_form =
    count_if(unary_kernel_tags{}, []<class Tag>() { return has_real_form<Tag>; });
inline constexpr std::size_t binary_kernel_ops_with_complex_form =
    count_if(binary_kernel_tags{}, []<class Tag>() { return binary_has_complex_form<Tag>; });
inline constexpr std::size_t binary_kernel_ops_with_alpha =
    count_if(binary_kernel_tags{}, []<class Tag>() { return takes_alpha<Tag>; });
inline constexpr std::size_t scalar_op_count = scalar_op_tags::size;

}  // namespace realify::testing
