// gelu's lowering: the activation with PyTorch's `approximate` argument, the
// one unary op of real tensors whose kernel reads a constant. The other
// transcendental ops and activations (exp … atanh, sigmoid, silu, erf) take one
// tensor and nothing else: their lowerings are drawn from the op list and
// their element kernels (realify/dispatch/lowerings/unary.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/dispatch/lowerings/unary.hpp"
#include "realify/errors.hpp"

namespace realify {

/// gelu's `approximate` argument (PyTorch's 'none' and 'tanh').
enum class gelu_approximate : unsigned char { none, tanh };

/// PyTorch's spelling: "none" or "tanh"; anything else is a realify::error.
inline gelu_approximate gelu_approximate_of(std::string_view approximate) {
    if (approximate == "none") return gelu_approximate::none;
    if (approximate == "tanh") return gelu_approximate::tanh;
    throw error("realify::gelu: approximate must be 'none' or 'tanh', not '" + std::string(approximate) + "'");
}

namespace dispatch {
namespace lowering {

template <class... A>
inline constexpr bool gelu_operands = false;
template <class A, class... P>
inline constexpr bool gelu_operands<A, P...> =
    one_real_tensor<A> && sizeof...(P) <= 1 && (std::is_same_v<P, gelu_approximate> && ...);

/// gelu(x[, approximate]): the kernel's constant is 1 for 'tanh'.
struct gelu_reals {
    using op = ::realify::op::gelu;
    static constexpr std::string_view name = "gelu_reals";
    static constexpr std::string_view formula =
        "'none': x·½·erfc(−x/√2) (= x·½·(1 + erf(x/√2))); 'tanh': x / (1 + e^(−2u)), u = √(2/π)·(x + 0.044715·x³) "
        "(= x·½·(1 + tanh u))";
    template <class... A>
    static constexpr bool accepts = gelu_operands<A...>;
    static std::optional<std::complex<double>> constant(gelu_approximate approximate = gelu_approximate::none) {
        if (approximate == gelu_approximate::none) return std::nullopt;
        return std::complex<double>(1.0, 0.0);
    }
    template <class A, class... P>
    static auto apply(const A& a, const P&... approximate) {
        return compiled_call<simd::elementwise_op::gelu>::run(op::name, constant(approximate...), a);
    }
    template <class O, class A, class... P>
    static void apply_into(out_arg<O>& o, const A& a, const P&... approximate) {
        compiled_call<simd::elementwise_op::gelu>::into(op::name, o, constant(approximate...), a);
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(gelu, lowering::gelu_reals)

}  // namespace dispatch
}  // namespace realify
