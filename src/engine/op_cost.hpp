// The cost of one element of each op, which sets where a call of the op is
// split over threads (realify/threads.hpp, docs/parallel.md): a loop of n
// elements of cost c is n · c units of work, split from 2 · grain::elementwise
// units on, in pieces of grain::elementwise / (4 · c) elements. One number
// per op, in its record alone; ops without one cost 1.
//
// The unit is a copy: the cost is the op's time per element divided by that
// of conj (a copy of the same elements through the same engine), rounded
// down — so every op within twice a copy's time (add, mul, neg, the casts,
// the rounding ops, …) costs 1 and keeps the grain a copy needs, and the
// transcendental ops split at a few thousand elements. Measured with
// `bench_ops --benchmark_filter='^cost/'` (the engine's out= path, 64K
// elements, complex<float> operands where the op takes them, else float; the
// row ops on (16, 4096) floats; one thread, AVX-512, AMD EPYC Zen 5):
// docs/parallel.md has the times. The numbers are the `.cost` of each op's
// record, on its line of the op list (realify/ops/tags.hpp).
#pragma once

#include <cstddef>

#include "realify/ops/tags.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::engine {

/// Units of work per element of `id` (≥ 1): its record's cost.
constexpr std::size_t op_cost(op_id id) noexcept { return op::info(id).record.cost; }
static_assert(
    [] {
        for (const auto& info : op::op_table)
            if (info.record.cost < 1) return false;
        return true;
    }(),
    "an op's record has a cost of at least 1 (a copy)");

}  // namespace realify::engine
