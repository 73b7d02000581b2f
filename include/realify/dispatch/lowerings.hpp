// Every built-in lowering of the dispatch table, with the table's mechanism
// (realify/dispatch/registry.hpp): what dispatch::call needs to run any op.
// The eager API and the graph include this; the table as data (its rows and
// formulas, realify/dispatch/table.hpp) is in realify/dispatch.hpp.
#pragma once

#include "realify/dispatch/registry.hpp"
#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/dispatch/lowerings/unary.hpp"
#include "realify/dispatch/lowerings/unary_math.hpp"
#include "realify/dispatch/lowerings/ordering.hpp"
#include "realify/dispatch/lowerings/builtin.hpp"
#include "realify/dispatch/lowerings/shape.hpp"
#include "realify/dispatch/lowerings/reduction.hpp"
#include "realify/dispatch/lowerings/normalization.hpp"
#include "realify/dispatch/lowerings/linalg.hpp"
#include "realify/dispatch/lowerings/construction.hpp"
#include "realify/dispatch/lowerings/layers.hpp"
