// The element kernels: one functor per elementwise op tag,
// realify::kernels::element<op::X>, holding its formula in scalar form (on
// cpair<T> / T) and in batch form (instantiated by the compiled kernels
// only). Cheap: no xtensor, no xsimd. See kernels/element.hpp.
#pragma once

#include "realify/kernels/element.hpp"
#include "realify/kernels/arithmetic.hpp"
#include "realify/kernels/exponential.hpp"
#include "realify/kernels/power.hpp"
#include "realify/kernels/trigonometric.hpp"
#include "realify/kernels/real_output.hpp"
#include "realify/kernels/rounding.hpp"
#include "realify/kernels/ordering.hpp"
#include "realify/kernels/activation.hpp"
