// The eager API: realify::mul, realify::exp, realify::permute, … on complex
// layouts, real tensors and numbers. See docs/ops.md.
#pragma once

#include "realify/eager/elementwise.hpp"
#include "realify/eager/shape.hpp"
#include "realify/eager/linalg.hpp"
#include "realify/eager/construction.hpp"
