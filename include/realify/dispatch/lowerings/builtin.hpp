// Lowerings of the ops the engine runs with its built-in kernels rather than
// compiled element kernels: isnan / isinf (a bool tensor out) and the copies
// (clone, detach, resolve_conj). abs, angle, real, imag and the
// componentwise rounding ops have element kernels: their lowerings are in
// realify/dispatch/lowerings/unary.hpp.
#pragma once

#include <string_view>

#include "realify/dispatch/lowerings/arithmetic.hpp"

namespace realify::dispatch {
namespace lowering {

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
            evaluate_into<element<A>>(op::name, kernel<A>(), o, a);                                    \
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

REALIFY_BUILTIN_CANDIDATES(isnan, lowering::isnan_components, lowering::isnan_reals)
REALIFY_BUILTIN_CANDIDATES(isinf, lowering::isinf_components, lowering::isinf_reals)
REALIFY_BUILTIN_CANDIDATES(clone, lowering::clone_passthrough)
REALIFY_BUILTIN_CANDIDATES(detach, lowering::detach_passthrough)
REALIFY_BUILTIN_CANDIDATES(resolve_conj, lowering::resolve_conj_copy)

}  // namespace realify::dispatch
