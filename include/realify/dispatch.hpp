// The dispatch layer: the constexpr table of lowerings (registry), the pair
// kernels and the elementwise engine, and every built-in lowering.
#pragma once

#include "realify/dispatch/registry.hpp"
#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/dispatch/lowerings/unary_math.hpp"
#include "realify/dispatch/lowerings/real_output.hpp"
