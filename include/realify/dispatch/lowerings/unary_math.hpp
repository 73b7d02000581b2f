// Lowerings of the transcendental ops: each runs its op's element kernel
// (realify/kernels, where the formulas and their numerics are documented).
#pragma once

#include "realify/dispatch/lowerings/arithmetic.hpp"

namespace realify::dispatch {
namespace lowering {

REALIFY_UNARY_PAIR_LOWERING(exp, exp_pairs, "e^a·cos b + i·e^a·sin b")
REALIFY_UNARY_PAIR_LOWERING(expm1, expm1_pairs, "(expm1(a)·cos b − 2·sin²(b/2)) + i·e^a·sin b")
REALIFY_UNARY_PAIR_LOWERING(log, log_pairs, "log|z| + i·atan2(b, a); ½·log1p((m−1)(m+1) + n²) near |z| = 1")
REALIFY_UNARY_PAIR_LOWERING(log2, log2_pairs, "log(z) / ln 2")
REALIFY_UNARY_PAIR_LOWERING(log10, log10_pairs, "log(z) / ln 10")
REALIFY_UNARY_PAIR_LOWERING(log1p, log1p_pairs, "½·log1p(a(a+2) + b²) + i·atan2(b, 1 + a) for |z| < ½, else log(1 + z)")
REALIFY_UNARY_PAIR_LOWERING(sqrt, sqrt_pairs, "t = √((|a| + |z|)/2); a ≥ 0: t + i·b/(2t), else |b|/(2t) + i·sign(b)·t")
REALIFY_UNARY_PAIR_LOWERING(rsqrt, rsqrt_pairs, "1 / sqrt(z)")
REALIFY_UNARY_PAIR_LOWERING(sgn, sgn_pairs, "z / |z| (hypot), 0 at 0")
REALIFY_UNARY_PAIR_LOWERING(sin, sin_pairs, "sin a·cosh b + i·cos a·sinh b")
REALIFY_UNARY_PAIR_LOWERING(cos, cos_pairs, "cos a·cosh b − i·sin a·sinh b")
REALIFY_UNARY_PAIR_LOWERING(tan, tan_pairs, "−i·tanh(i·z)")
REALIFY_UNARY_PAIR_LOWERING(sinh, sinh_pairs, "sinh a·cos b + i·cosh a·sin b (scaled beyond e^a overflow)")
REALIFY_UNARY_PAIR_LOWERING(cosh, cosh_pairs, "cosh a·cos b + i·sinh a·sin b (scaled beyond e^a overflow)")
REALIFY_UNARY_PAIR_LOWERING(tanh, tanh_kahan, "Kahan: t = tan b, s = sinh a, β = 1 + t²: (β·√(1+s²)·s + i·t)/(1 + β·s²)")
REALIFY_UNARY_PAIR_LOWERING(asin, asin_kahan, "atan2(a, Re(√(1−z)·√(1+z))) + i·asinh(Im(conj(√(1−z))·√(1+z)))")
REALIFY_UNARY_PAIR_LOWERING(acos, acos_kahan, "2·atan2(Re √(1−z), Re √(1+z)) + i·asinh(Im(conj(√(1+z))·√(1−z)))")
REALIFY_UNARY_PAIR_LOWERING(atan, atan_pairs, "−i·atanh(i·z)")
REALIFY_UNARY_PAIR_LOWERING(asinh, asinh_kahan, "−i·asin(i·z)")
REALIFY_UNARY_PAIR_LOWERING(acosh, acosh_kahan,
                            "asinh(Re(conj(√(z−1))·√(z+1))) + 2i·atan2(Im √(z−1), Re √(z+1)) (= log(z + √(z+1)·√(z−1)))")
REALIFY_UNARY_PAIR_LOWERING(atanh, atanh_pairs, "¼·log1p(4a/((1−a)² + b²)) + ½i·atan2(2b, (1−a)(1+a) − b²)")

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(exp, lowering::exp_pairs)
REALIFY_BUILTIN_CANDIDATES(expm1, lowering::expm1_pairs)
REALIFY_BUILTIN_CANDIDATES(log, lowering::log_pairs)
REALIFY_BUILTIN_CANDIDATES(log2, lowering::log2_pairs)
REALIFY_BUILTIN_CANDIDATES(log10, lowering::log10_pairs)
REALIFY_BUILTIN_CANDIDATES(log1p, lowering::log1p_pairs)
REALIFY_BUILTIN_CANDIDATES(sqrt, lowering::sqrt_pairs)
REALIFY_BUILTIN_CANDIDATES(rsqrt, lowering::rsqrt_pairs)
REALIFY_BUILTIN_CANDIDATES(sgn, lowering::sgn_pairs)
REALIFY_BUILTIN_CANDIDATES(sin, lowering::sin_pairs)
REALIFY_BUILTIN_CANDIDATES(cos, lowering::cos_pairs)
REALIFY_BUILTIN_CANDIDATES(tan, lowering::tan_pairs)
REALIFY_BUILTIN_CANDIDATES(sinh, lowering::sinh_pairs)
REALIFY_BUILTIN_CANDIDATES(cosh, lowering::cosh_pairs)
REALIFY_BUILTIN_CANDIDATES(tanh, lowering::tanh_kahan)
REALIFY_BUILTIN_CANDIDATES(asin, lowering::asin_kahan)
REALIFY_BUILTIN_CANDIDATES(acos, lowering::acos_kahan)
REALIFY_BUILTIN_CANDIDATES(atan, lowering::atan_pairs)
REALIFY_BUILTIN_CANDIDATES(asinh, lowering::asinh_kahan)
REALIFY_BUILTIN_CANDIDATES(acosh, lowering::acosh_kahan)
REALIFY_BUILTIN_CANDIDATES(atanh, lowering::atanh_pairs)

}  // namespace realify::dispatch
