// A fused loop (engine::fused_loop, realify/engine/fused_loop.hpp), built from
// the records alone: the loop's elementwise ops become its steps,
// in the order their operands need them; the values it reads become its
// inputs (one per distinct value, however often it is read); numbers become
// number operands. Built when the records are made (each fused node its own
// loop) and again by the fuse_elementwise pass for the regions it forms.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "realify/engine/fused_loop.hpp"
#include "realify/graph/ir.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::graph::detail {

/// The kernel a fused loop runs for an op, if it runs one: every op with
/// compiled elementwise kernels (simd::elementwise_op_for) but the rounding
/// ops (whose complex form is the real kernel over the components), and the
/// tensor × number forms mul_scalar and div_scalar (mul and div by the
/// number; pow_scalar's exponent is the kernel's constant). The one list of
/// what fuses: the graph's rules (elementwise_tag) ask it too.
constexpr std::optional<simd::elementwise_op> fused_kernel_of(op_id id) noexcept {
    switch (id) {
    case op_id::mul_scalar: return simd::elementwise_op::mul;
    case op_id::div_scalar: return simd::elementwise_op::div;
    case op_id::ceil:
    case op_id::floor:
    case op_id::round:
    case op_id::trunc: return std::nullopt;
    default: return simd::elementwise_op_for(id);
    }
}

/// The elementwise descendants a region rooted at `root` inlines, appended to `members`.
void collect_region(const graph_ir& g, std::size_t root, std::vector<std::size_t>& members);

/// The loop of the loop rooted at `root` (region: with the descendants
/// collect_region finds inlined) and the slots it reads;
/// nullopt when it does not fit a loop (more inputs than the engine takes,
/// more results alive at once than it keeps): the root then runs alone.
std::optional<engine::fused_loop> build_loop(const graph_ir& g, std::size_t root, bool region,
                                             std::vector<std::size_t>& inputs);

/// Records the loop of `root` (fusion own_loop or region) on its record.
bool set_loop(graph_ir& g, std::size_t root, bool region);

}  // namespace realify::graph::detail
