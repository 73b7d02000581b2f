// The dispatch layer: the constexpr table of lowerings (registry), every
// built-in lowering, and what they run on — the engine of realify/engine
// (the compiled elementwise kernels, reductions and copies over tensors of
// any layout) — and the table as data (realify/dispatch/table.hpp). Cheap to
// include: no xsimd, no Eigen.
#pragma once

#include "realify/dispatch/lowerings.hpp"
#include "realify/dispatch/table.hpp"
