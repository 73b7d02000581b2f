// The eager API: realify::mul, realify::exp, realify::permute, realify::to, …
// on complex tensors (complex_layout or std::complex containers), real
// tensors and numbers, each with an optional realify::out(buffer). See
// docs/ops.md.
#pragma once

#include "realify/eager/elementwise.hpp"
#include "realify/eager/shape.hpp"
#include "realify/eager/normalization.hpp"
#include "realify/eager/linalg.hpp"
#include "realify/eager/construction.hpp"
#include "realify/eager/cast.hpp"
#include "realify/eager/layers.hpp"
#include "realify/eager/indexing.hpp"
