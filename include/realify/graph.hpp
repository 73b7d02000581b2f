// The type-level expression graph: build with realify::graph::input /
// constant / graph ops, lower with realify::graph::lower, inspect with
// realify::graph::explain. Cheap: no xsimd, no Eigen (tests/graph checks it).
//
// Headers, one stage each: node / traits / builder (the typed graph),
// detect (type-level detection), ir / build_ir / passes (the run-time mirror
// and the passes over it), rules (how each node is evaluated), evaluate
// (the memoised walk) with zero_copy, fusion (and build_loop: a fused
// loop built from the records), table_route, fallback, tensor_op (one
// rule each), infer_shapes, buffer_layout, write_outputs
// (writing outputs into caller buffers), program, explain.
#pragma once

#include "realify/dispatch/lowerings.hpp"
#include "realify/graph/buffer_layout.hpp"
#include "realify/graph/build_ir.hpp"
#include "realify/graph/builder.hpp"
#include "realify/graph/cast.hpp"
#include "realify/graph/compare.hpp"
#include "realify/graph/detect.hpp"
#include "realify/graph/evaluate.hpp"
#include "realify/graph/explain.hpp"
#include "realify/graph/fallback.hpp"
#include "realify/graph/fusion.hpp"
#include "realify/graph/indexing.hpp"
#include "realify/graph/infer_shapes.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/kernel_ops.hpp"
#include "realify/graph/layers.hpp"
#include "realify/graph/build_loop.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/passes.hpp"
#include "realify/graph/program.hpp"
#include "realify/graph/rules.hpp"
#include "realify/graph/sizes.hpp"
#include "realify/graph/table_route.hpp"
#include "realify/graph/tensor_op.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"
#include "realify/graph/write_outputs.hpp"
#include "realify/graph/zero_copy.hpp"
