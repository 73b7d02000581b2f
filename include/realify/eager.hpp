// The eager API: realify::mul, realify::exp, realify::permute, … on complex
// layouts, real tensors and numbers.
#pragma once

#include "realify/eager/elementwise.hpp"
