// The umbrella header: everything realify offers. Include the layer headers
// (realify/layout.hpp, …) instead when compile time matters.
#pragma once

#include "realify/version.hpp"
#include "realify/errors.hpp"
#include "realify/layout.hpp"
#include "realify/interop/eigen.hpp"
