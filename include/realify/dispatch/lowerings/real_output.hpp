// Lowerings of the real-output ops (complex in, real tensor out: abs, angle,
// real, imag, and isnan / isinf as bool), of the componentwise rounding ops
// and of the copies (clone, detach).
#pragma once

#include <string_view>

#include "realify/dispatch/lowerings/arithmetic.hpp"

namespace realify::dispatch {
namespace lowering {

REALIFY_UNARY_LOWERING(abs, abs_hypot, "hypot(a, b) (scaled: no overflow above ~1.8e19 in float)")
REALIFY_UNARY_LOWERING(angle, angle_atan2, "atan2(b, a) (NaN propagates)")
REALIFY_UNARY_LOWERING(real, real_component, "a (layout[..., 0])")
REALIFY_UNARY_LOWERING(imag, imag_component, "b (layout[..., 1])")

// Elementwise-safe: the real function on each component. PyTorch rejects
// these for complex tensors; realify keeps Torch-TensorRT's componentwise
// meaning.
REALIFY_UNARY_LOWERING(ceil, ceil_passthrough, "ceil on both components")
REALIFY_UNARY_LOWERING(floor, floor_passthrough, "floor on both components")
REALIFY_UNARY_LOWERING(round, round_passthrough, "round half to even on both components")
REALIFY_UNARY_LOWERING(trunc, trunc_passthrough, "trunc on both components")

// … and on real (float, double) tensors, as PyTorch's real ops.
REALIFY_REAL_UNARY_LOWERING(real, real_reals, "x: a real tensor is its own real part (PyTorch returns the tensor)")
REALIFY_REAL_UNARY_LOWERING(abs, abs_reals, "|x| on real tensors")
REALIFY_REAL_UNARY_LOWERING(angle, angle_reals, "π for x < 0, else 0 (NaN propagates) on real tensors")
REALIFY_REAL_UNARY_LOWERING(ceil, ceil_reals, "ceil x on real tensors")
REALIFY_REAL_UNARY_LOWERING(floor, floor_reals, "floor x on real tensors")
REALIFY_REAL_UNARY_LOWERING(round, round_reals, "round half to even on real tensors")
REALIFY_REAL_UNARY_LOWERING(trunc, trunc_reals, "trunc x on real tensors")

/// A lowering NAME of op::OP running the engine's built-in kernel BUILTIN on
/// one tensor, whose result has element type RESULT<T> (T: the component type).
#define REALIFY_BUILTIN_LOWERING(OP, NAME, BUILTIN, ACCEPTS, RESULT, FORMULA)                                  \
    struct NAME {                                                                                              \
        using op = ::realify::op::OP;                                                                          \
        static constexpr std::string_view name = #NAME;                                                        \
        static constexpr std::string_view formula = FORMULA;                                                   \
        template <class... A>                                                                                  \
        static constexpr bool accepts = ACCEPTS<A...>;                                                         \
        template <class A>                                                                                     \
        using element = RESULT<A>;                                                                             \
        template <class A>                                                                                     \
        static engine::block_kernel kernel() {                                                                 \
            return builtin_of<operand_component_t<A>, A>(engine::builtin::BUILTIN);                             \
        }                                                                                                      \
        template <class A>                                                                                     \
        static auto apply(const A& a) {                                                                        \
            return allocate_and_evaluate<result_t<element<A>, operand_rank_v<A>, A>>(op::name, kernel<A>(), a); \
        }                                                                                                      \
        template <class O, class A>                                                                            \
        static void apply_into(out_arg<O>& o, const A& a) {                                                    \
            evaluate_checked_into<element<A>>(op::name, kernel<A>(), o, a);                                    \
        }                                                                                                      \
    };

template <class A>
using bool_element = bool;
REALIFY_BUILTIN_LOWERING(isnan, isnan_components, isnan, one_complex_tensor, bool_element, "isnan(a) ∨ isnan(b)")
REALIFY_BUILTIN_LOWERING(isinf, isinf_components, isinf, one_complex_tensor, bool_element, "isinf(a) ∨ isinf(b)")
REALIFY_BUILTIN_LOWERING(isnan, isnan_reals, isnan, one_real_tensor, bool_element, "isnan(x) on real tensors")
REALIFY_BUILTIN_LOWERING(isinf, isinf_reals, isinf, one_real_tensor, bool_element, "isinf(x) on real tensors")
REALIFY_BUILTIN_LOWERING(clone, clone_passthrough, copy, one_tensor, element_t, "copy of the tensor")
REALIFY_BUILTIN_LOWERING(detach, detach_passthrough, copy, one_tensor, element_t, "copy of the tensor (no autograd here)")
REALIFY_BUILTIN_LOWERING(resolve_conj, resolve_conj_copy, copy, one_tensor, element_t,
                         "copy of the tensor (realify has no lazy conjugate bit to resolve)")

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(abs, lowering::abs_hypot, lowering::abs_reals)
REALIFY_BUILTIN_CANDIDATES(angle, lowering::angle_atan2, lowering::angle_reals)
REALIFY_BUILTIN_CANDIDATES(real, lowering::real_component, lowering::real_reals)
REALIFY_BUILTIN_CANDIDATES(imag, lowering::imag_component)
REALIFY_BUILTIN_CANDIDATES(isnan, lowering::isnan_components, lowering::isnan_reals)
REALIFY_BUILTIN_CANDIDATES(isinf, lowering::isinf_components, lowering::isinf_reals)
REALIFY_BUILTIN_CANDIDATES(ceil, lowering::ceil_passthrough, lowering::ceil_reals)
REALIFY_BUILTIN_CANDIDATES(floor, lowering::floor_passthrough, lowering::floor_reals)
REALIFY_BUILTIN_CANDIDATES(round, lowering::round_passthrough, lowering::round_reals)
REALIFY_BUILTIN_CANDIDATES(trunc, lowering::trunc_passthrough, lowering::trunc_reals)
REALIFY_BUILTIN_CANDIDATES(clone, lowering::clone_passthrough)
REALIFY_BUILTIN_CANDIDATES(detach, lowering::detach_passthrough)
REALIFY_BUILTIN_CANDIDATES(resolve_conj, lowering::resolve_conj_copy)

}  // namespace realify::dispatch
