// The umbrella header: everything realify offers. Include a layer's header
// instead when compile time matters: realify/layout.hpp, realify/ops.hpp,
// realify/dispatch.hpp, realify/eager.hpp, realify/graph.hpp (none of these
// pull in xsimd or Eigen), realify/simd.hpp, realify/rope.hpp,
// realify/interop/eigen.hpp.
#pragma once

#include "realify/version.hpp"
#include "realify/errors.hpp"
#include "realify/layout.hpp"
#include "realify/ops.hpp"
#include "realify/dispatch.hpp"
#include "realify/eager.hpp"
#include "realify/graph.hpp"
#include "realify/simd.hpp"
#include "realify/rope.hpp"
#include "realify/interop/eigen.hpp"
