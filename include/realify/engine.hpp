// The engine the eager API runs on: tensor_ref (any tensor in memory, its
// views), the compiled elementwise engine and its kernels, fused loops
// (chains of kernels in one pass: the graph's fused regions), the compiled
// reductions, and the tensor_refs of xtensor operands. See docs/ops.md.
#pragma once

#include "realify/engine/tensor_ref.hpp"
#include "realify/engine/elementwise.hpp"
#include "realify/engine/fused_loop.hpp"
#include "realify/engine/reduce.hpp"
#include "realify/engine/xtensor_refs.hpp"
