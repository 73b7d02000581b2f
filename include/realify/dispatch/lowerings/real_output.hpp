// Lowerings of the real-output ops (complex in, plain real tensor out) and of
// the componentwise rounding ops.
#pragma once

#include <cmath>

#include "realify/dispatch/lowerings/arithmetic.hpp"

namespace realify::dispatch {
namespace lowering {

REALIFY_UNARY_PAIR_LOWERING(abs, abs_hypot, "hypot(a, b) (scaled: no overflow above ~1.8e19 in float)")
REALIFY_UNARY_PAIR_LOWERING(angle, angle_atan2, "atan2(b, a) (NaN propagates)")
REALIFY_UNARY_PAIR_LOWERING(real, real_component, "a (layout[..., 0])")
REALIFY_UNARY_PAIR_LOWERING(imag, imag_component, "b (layout[..., 1])")
REALIFY_UNARY_PAIR_LOWERING(isnan, isnan_components, "isnan(a) ∨ isnan(b)")
REALIFY_UNARY_PAIR_LOWERING(isinf, isinf_components, "isinf(a) ∨ isinf(b)")

// Elementwise-safe: the real function on each component. PyTorch rejects
// these for complex tensors; realify keeps the seed system's componentwise
// meaning.
REALIFY_UNARY_PAIR_LOWERING(ceil, ceil_passthrough, "ceil on both components")
REALIFY_UNARY_PAIR_LOWERING(floor, floor_passthrough, "floor on both components")
REALIFY_UNARY_PAIR_LOWERING(round, round_passthrough, "round half to even on both components")
REALIFY_UNARY_PAIR_LOWERING(trunc, trunc_passthrough, "trunc on both components")

/// A copy of the layout (clone, detach).
#define REALIFY_COPY_LOWERING(OP, NAME, FORMULA)                                   \
    struct NAME {                                                                \
        using op = ::realify::op::OP;                                            \
        static constexpr std::string_view name = #NAME;                          \
        static constexpr std::string_view formula = FORMULA;                     \
        template <class A>                                                       \
        static constexpr bool accepts = complex_tensor_operand<A>;               \
        template <class A>                                                       \
        static auto apply(const A& a) {                                          \
            return elementwise<op>([](auto z) { return z; }, a);                 \
        }                                                                        \
    };
REALIFY_COPY_LOWERING(clone, clone_passthrough, "copy of the layout")
REALIFY_COPY_LOWERING(detach, detach_passthrough, "copy of the layout (no autograd here)")
#undef REALIFY_COPY_LOWERING

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(abs, lowering::abs_hypot)
REALIFY_BUILTIN_CANDIDATES(angle, lowering::angle_atan2)
REALIFY_BUILTIN_CANDIDATES(real, lowering::real_component)
REALIFY_BUILTIN_CANDIDATES(imag, lowering::imag_component)
REALIFY_BUILTIN_CANDIDATES(isnan, lowering::isnan_components)
REALIFY_BUILTIN_CANDIDATES(isinf, lowering::isinf_components)
REALIFY_BUILTIN_CANDIDATES(ceil, lowering::ceil_passthrough)
REALIFY_BUILTIN_CANDIDATES(floor, lowering::floor_passthrough)
REALIFY_BUILTIN_CANDIDATES(round, lowering::round_passthrough)
REALIFY_BUILTIN_CANDIDATES(trunc, lowering::trunc_passthrough)
REALIFY_BUILTIN_CANDIDATES(clone, lowering::clone_passthrough)
REALIFY_BUILTIN_CANDIDATES(detach, lowering::detach_passthrough)

}  // namespace realify::dispatch
