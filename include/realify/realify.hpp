// The umbrella header: everything realify offers that needs no Eigen. Include
// a layer's header instead when compile time matters: realify/layout.hpp,
// realify/ops.hpp, realify/engine.hpp, realify/dispatch.hpp, realify/eager.hpp, realify/graph.hpp,
// realify/simd.hpp, realify/rope.hpp, realify/threads.hpp (none of these pull
// in xsimd or Eigen).
// With Eigen (CMake target realify::eigen): realify/interop/eigen.hpp and
// realify/rope/half.hpp.
#pragma once

#include "realify/version.hpp"
#include "realify/errors.hpp"
#include "realify/layout.hpp"
#include "realify/ops.hpp"
#include "realify/engine.hpp"
#include "realify/dispatch.hpp"
#include "realify/eager.hpp"
#include "realify/graph.hpp"
#include "realify/simd.hpp"
#include "realify/rope.hpp"
#include "realify/threads.hpp"
