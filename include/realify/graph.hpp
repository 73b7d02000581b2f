// The type-level expression graph: build with realify::graph::input /
// constant / graph ops, lower with realify::graph::lower, inspect with
// realify::graph::explain. Cheap: no xsimd, no Eigen (tests/graph checks it).
#pragma once

#include "realify/dispatch.hpp"
#include "realify/graph/builder.hpp"
#include "realify/graph/detect.hpp"
#include "realify/graph/evaluate.hpp"
#include "realify/graph/explain.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/passes.hpp"
#include "realify/graph/program.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"
