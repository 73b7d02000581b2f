// The dispatch layer: the constexpr table of lowerings (registry), the pair
// kernels and the elementwise engine, and every built-in lowering. Cheap: no
// xsimd, no Eigen. The SIMD layer adds its "mul of contiguous operands"
// candidate (high priority, run-time validated) to builtin_lowerings<op::mul>.
#pragma once

#include "realify/dispatch/registry.hpp"
#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/dispatch/lowerings/unary_math.hpp"
#include "realify/dispatch/lowerings/real_output.hpp"
#include "realify/dispatch/lowerings/shape.hpp"
#include "realify/dispatch/lowerings/reduction.hpp"
#include "realify/dispatch/lowerings/linalg.hpp"
#include "realify/dispatch/lowerings/construction.hpp"
