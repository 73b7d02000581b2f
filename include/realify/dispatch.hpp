// The dispatch layer: the constexpr table of lowerings (registry), every
// built-in lowering, and what they run on — the engine of realify/engine
// (the compiled elementwise kernels, reductions and copies over tensors of
// any layout). Cheap to include: no xsimd, no Eigen.
#pragma once

#include "realify/dispatch/registry.hpp"
#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/dispatch/lowerings/unary.hpp"
#include "realify/dispatch/lowerings/unary_math.hpp"
#include "realify/dispatch/lowerings/ordering.hpp"
#include "realify/dispatch/lowerings/builtin.hpp"
#include "realify/dispatch/lowerings/shape.hpp"
#include "realify/dispatch/lowerings/reduction.hpp"
#include "realify/dispatch/lowerings/normalization.hpp"
#include "realify/dispatch/lowerings/linalg.hpp"
#include "realify/dispatch/lowerings/construction.hpp"
