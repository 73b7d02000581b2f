// Lowerings of the transcendental ops: each runs its op's compiled kernel
// (realify/simd/elementwise.hpp; the formulas and their numerics are
// documented in realify/kernels) through the elementwise engine. The
// activations (sigmoid, silu, erf, gelu) take real tensors only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "realify/dispatch/lowerings/arithmetic.hpp"
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

REALIFY_UNARY_LOWERING(exp, exp_pairs, "e^a·cos b + i·e^a·sin b")
REALIFY_UNARY_LOWERING(expm1, expm1_pairs, "(expm1(a)·cos b − 2·sin²(b/2)) + i·e^a·sin b")
REALIFY_UNARY_LOWERING(log, log_pairs, "log|z| + i·atan2(b, a); ½·log1p((m−1)(m+1) + n²) near |z| = 1")
REALIFY_UNARY_LOWERING(log2, log2_pairs, "log(z) / ln 2")
REALIFY_UNARY_LOWERING(log10, log10_pairs, "log(z) / ln 10")
REALIFY_UNARY_LOWERING(log1p, log1p_pairs, "½·log1p(a(a+2) + b²) + i·atan2(b, 1 + a) for |z| < ½, else log(1 + z)")
REALIFY_UNARY_LOWERING(sqrt, sqrt_pairs, "t = √((|a| + |z|)/2); a ≥ 0: t + i·b/(2t), else |b|/(2t) + i·sign(b)·t")
REALIFY_UNARY_LOWERING(rsqrt, rsqrt_pairs, "1 / sqrt(z)")
REALIFY_UNARY_LOWERING(sgn, sgn_pairs, "z / |z| (hypot), 0 at 0")
REALIFY_UNARY_LOWERING(sin, sin_pairs, "sin a·cosh b + i·cos a·sinh b")
REALIFY_UNARY_LOWERING(cos, cos_pairs, "cos a·cosh b − i·sin a·sinh b")
REALIFY_UNARY_LOWERING(tan, tan_pairs, "−i·tanh(i·z)")
REALIFY_UNARY_LOWERING(sinh, sinh_pairs, "sinh a·cos b + i·cosh a·sin b (scaled beyond e^a overflow)")
REALIFY_UNARY_LOWERING(cosh, cosh_pairs, "cosh a·cos b + i·sinh a·sin b (scaled beyond e^a overflow)")
REALIFY_UNARY_LOWERING(tanh, tanh_kahan, "Kahan: t = tan b, s = sinh a, β = 1 + t²: (β·√(1+s²)·s + i·t)/(1 + β·s²)")
REALIFY_UNARY_LOWERING(asin, asin_kahan, "atan2(a, Re(√(1−z)·√(1+z))) + i·asinh(Im(conj(√(1−z))·√(1+z)))")
REALIFY_UNARY_LOWERING(acos, acos_kahan, "2·atan2(Re √(1−z), Re √(1+z)) + i·asinh(Im(conj(√(1+z))·√(1−z)))")
REALIFY_UNARY_LOWERING(atan, atan_pairs, "−i·atanh(i·z)")
REALIFY_UNARY_LOWERING(asinh, asinh_kahan, "−i·asin(i·z)")
REALIFY_UNARY_LOWERING(acosh, acosh_kahan,
                            "asinh(Re(conj(√(z−1))·√(z+1))) + 2i·atan2(Im √(z−1), Re √(z+1)) (= log(z + √(z+1)·√(z−1)))")
REALIFY_UNARY_LOWERING(atanh, atanh_pairs, "¼·log1p(4a/((1−a)² + b²)) + ½i·atan2(2b, (1−a)(1+a) − b²)")

// the real functions on real (float, double) tensors, as PyTorch's real ops
REALIFY_REAL_UNARY_LOWERING(exp, exp_reals, "e^x on real tensors")
REALIFY_REAL_UNARY_LOWERING(expm1, expm1_reals, "e^x − 1 on real tensors")
REALIFY_REAL_UNARY_LOWERING(log, log_reals, "ln x on real tensors")
REALIFY_REAL_UNARY_LOWERING(log2, log2_reals, "log₂ x on real tensors")
REALIFY_REAL_UNARY_LOWERING(log10, log10_reals, "log₁₀ x on real tensors")
REALIFY_REAL_UNARY_LOWERING(log1p, log1p_reals, "ln(1 + x) on real tensors")
REALIFY_REAL_UNARY_LOWERING(sqrt, sqrt_reals, "√x on real tensors")
REALIFY_REAL_UNARY_LOWERING(rsqrt, rsqrt_reals, "1 / √x on real tensors")
REALIFY_REAL_UNARY_LOWERING(sgn, sgn_reals, "−1, 0 or 1 (NaN: 0) on real tensors")
REALIFY_REAL_UNARY_LOWERING(sin, sin_reals, "sin x on real tensors")
REALIFY_REAL_UNARY_LOWERING(cos, cos_reals, "cos x on real tensors")
REALIFY_REAL_UNARY_LOWERING(tan, tan_reals, "tan x on real tensors")
REALIFY_REAL_UNARY_LOWERING(sinh, sinh_reals, "sinh x on real tensors")
REALIFY_REAL_UNARY_LOWERING(cosh, cosh_reals, "cosh x on real tensors")
REALIFY_REAL_UNARY_LOWERING(tanh, tanh_reals, "tanh x on real tensors")
REALIFY_REAL_UNARY_LOWERING(asin, asin_reals, "asin x on real tensors")
REALIFY_REAL_UNARY_LOWERING(acos, acos_reals, "acos x on real tensors")
REALIFY_REAL_UNARY_LOWERING(atan, atan_reals, "atan x on real tensors")
REALIFY_REAL_UNARY_LOWERING(asinh, asinh_reals, "asinh x on real tensors")
REALIFY_REAL_UNARY_LOWERING(acosh, acosh_reals, "acosh x on real tensors")
REALIFY_REAL_UNARY_LOWERING(atanh, atanh_reals, "atanh x on real tensors")

// the activations, on real tensors (PyTorch's formulas, realify/kernels/activation.hpp)
REALIFY_REAL_UNARY_LOWERING(sigmoid, sigmoid_reals, "1 / (1 + e^−x)")
REALIFY_REAL_UNARY_LOWERING(silu, silu_reals, "x / (1 + e^−x)")
REALIFY_REAL_UNARY_LOWERING(erf, erf_reals, "erf x")

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
        return run_compiled<simd::elementwise_op::gelu>(op::name, constant(approximate...), a);
    }
    template <class O, class A, class... P>
    static void apply_into(out_arg<O>& o, const A& a, const P&... approximate) {
        run_compiled_into<simd::elementwise_op::gelu>(op::name, o, constant(approximate...), a);
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(exp, lowering::exp_pairs, lowering::exp_reals)
REALIFY_BUILTIN_CANDIDATES(expm1, lowering::expm1_pairs, lowering::expm1_reals)
REALIFY_BUILTIN_CANDIDATES(log, lowering::log_pairs, lowering::log_reals)
REALIFY_BUILTIN_CANDIDATES(log2, lowering::log2_pairs, lowering::log2_reals)
REALIFY_BUILTIN_CANDIDATES(log10, lowering::log10_pairs, lowering::log10_reals)
REALIFY_BUILTIN_CANDIDATES(log1p, lowering::log1p_pairs, lowering::log1p_reals)
REALIFY_BUILTIN_CANDIDATES(sqrt, lowering::sqrt_pairs, lowering::sqrt_reals)
REALIFY_BUILTIN_CANDIDATES(rsqrt, lowering::rsqrt_pairs, lowering::rsqrt_reals)
REALIFY_BUILTIN_CANDIDATES(sgn, lowering::sgn_pairs, lowering::sgn_reals)
REALIFY_BUILTIN_CANDIDATES(sin, lowering::sin_pairs, lowering::sin_reals)
REALIFY_BUILTIN_CANDIDATES(cos, lowering::cos_pairs, lowering::cos_reals)
REALIFY_BUILTIN_CANDIDATES(tan, lowering::tan_pairs, lowering::tan_reals)
REALIFY_BUILTIN_CANDIDATES(sinh, lowering::sinh_pairs, lowering::sinh_reals)
REALIFY_BUILTIN_CANDIDATES(cosh, lowering::cosh_pairs, lowering::cosh_reals)
REALIFY_BUILTIN_CANDIDATES(tanh, lowering::tanh_kahan, lowering::tanh_reals)
REALIFY_BUILTIN_CANDIDATES(asin, lowering::asin_kahan, lowering::asin_reals)
REALIFY_BUILTIN_CANDIDATES(acos, lowering::acos_kahan, lowering::acos_reals)
REALIFY_BUILTIN_CANDIDATES(atan, lowering::atan_pairs, lowering::atan_reals)
REALIFY_BUILTIN_CANDIDATES(asinh, lowering::asinh_kahan, lowering::asinh_reals)
REALIFY_BUILTIN_CANDIDATES(acosh, lowering::acosh_kahan, lowering::acosh_reals)
REALIFY_BUILTIN_CANDIDATES(atanh, lowering::atanh_pairs, lowering::atanh_reals)
REALIFY_BUILTIN_CANDIDATES(sigmoid, lowering::sigmoid_reals)
REALIFY_BUILTIN_CANDIDATES(silu, lowering::silu_reals)
REALIFY_BUILTIN_CANDIDATES(erf, lowering::erf_reals)
REALIFY_BUILTIN_CANDIDATES(gelu, lowering::gelu_reals)

}  // namespace dispatch
}  // namespace realify
