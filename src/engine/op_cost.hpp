// The cost of one element of each op, which sets where a call of the op is
// split over threads (realify/threads.hpp, docs/parallel.md): a loop of n
// elements of cost c is n · c units of work, split from 2 · grain::elementwise
// units on, in pieces of grain::elementwise / (4 · c) elements. One number
// per op, here alone; ops without an entry cost 1.
//
// The unit is a copy: the cost is the op's time per element divided by that
// of conj (a copy of the same elements through the same engine), rounded
// down — so every op within twice a copy's time (add, mul, neg, the casts,
// the rounding ops, …) costs 1 and keeps the grain a copy needs, and the
// transcendental ops split at a few thousand elements. Measured with
// `bench_ops --benchmark_filter='^cost/'` (the engine's out= path, 64K
// elements, complex<float> operands where the op takes them, else float; the
// row ops on (16, 4096) floats; one thread, AVX-512, AMD EPYC Zen 5):
// docs/parallel.md has the times.
#pragma once

#include <cstddef>

#include "realify/ops/tags.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::engine {

/// Units of work per element of `id` (≥ 1).
constexpr std::size_t op_cost(op_id id) noexcept {
    switch (id) {
        case op_id::sgn:
        case op_id::div:
        case op_id::silu:
        case op_id::sigmoid:
        case op_id::sqrt: return 2;
        case op_id::angle:
        case op_id::rsqrt:
        case op_id::softmax:
        case op_id::log_softmax: return 3;
        case op_id::erf: return 5;
        case op_id::log:
        case op_id::log10: return 6;
        case op_id::gelu:
        case op_id::polar:
        case op_id::log2: return 7;
        case op_id::log1p: return 9;
        case op_id::exp:
        case op_id::expm1: return 10;
        case op_id::cosh:
        case op_id::sinh:
        case op_id::cos: return 12;
        case op_id::atan:
        case op_id::tan:
        case op_id::sin:
        case op_id::tanh: return 13;
        case op_id::atanh: return 14;
        case op_id::asin:
        case op_id::acos: return 15;
        case op_id::acosh:
        case op_id::asinh: return 16;
        case op_id::pow_tensor: return 25;
        case op_id::pow_scalar: return 26;
        default: return 1;
    }
}

/// The cost of a compiled op: that of its op tag.
constexpr std::size_t op_cost(simd::elementwise_op op) noexcept {
    switch (op) {
#define REALIFY_OP_COST(name, forms) \
    case simd::elementwise_op::name: return op_cost(op_id::name);
        REALIFY_SIMD_ELEMENTWISE_OPS(REALIFY_OP_COST)
#undef REALIFY_OP_COST
    }
    return 1;
}

}  // namespace realify::engine
