// realify/graph/build_loop.hpp: a fused loop's program — which elementwise
// nodes a loop root inlines (its private elementwise descendants), the
// values it reads (at most engine::max_inputs), and the steps, one compiled
// kernel each, in the order the loop computes them. Run once per root by
// fuse_elementwise (and per fused node when its record is made), never per
// call: evaluation only runs the steps.
#include "realify/graph/build_loop.hpp"

#include <algorithm>
#include <array>
#include <complex>
#include <memory>
#include <span>
#include <string>

#include "realify/errors.hpp"

namespace realify::graph::detail {

namespace {

/// The compiled op of a fused record.
simd::elementwise_op compiled_op_of(const ir_node& n) {
    if (const auto kernel = n.tag ? fused_kernel_of(*n.tag) : std::nullopt) return *kernel;
    throw error("realify::graph: the fused op " + n.op + " has no compiled kernel");
}

/// Whether a region inlines its child at slot `c`: an elementwise node
/// private to it (its own canonical record, unfolded, read by this consumer
/// only, not an output). Any other child is a value the loop reads.
bool inlinable(const graph_ir& g, std::size_t c) {
    const ir_node& child = g.nodes[c];
    return child.fusable && child.canonical == c && !child.folded && child.uses == 1 && !child.output;
}

/// Whether child slot `c` of a loop is computed inside it (a region member).
bool in_loop(const graph_ir& g, std::size_t c, bool region) { return region && inlinable(g, c); }

}  // namespace

void collect_region(const graph_ir& g, std::size_t root, std::vector<std::size_t>& members) {
    for (std::size_t c : g.nodes[root].children) {
        if (!inlinable(g, c)) continue;
        members.push_back(c);
        collect_region(g, c, members);
    }
}

namespace {

/// The values a loop reads, each once, in the order it first reads them.
void collect_loop_inputs(const graph_ir& g, std::size_t node, bool region, std::vector<std::size_t>& inputs) {
    for (std::size_t c : g.nodes[node].children) {
        if (in_loop(g, c, region)) collect_loop_inputs(g, c, region, inputs);
        else if (!g.nodes[c].is_scalar && std::find(inputs.begin(), inputs.end(), g.nodes[c].canonical) == inputs.end())
            inputs.push_back(g.nodes[c].canonical);
    }
}

engine::step_operand append_steps(const graph_ir& g, std::size_t node, bool region,
                                  const std::vector<std::size_t>& inputs, engine::fused_loop& loop) {
    const ir_node& n = g.nodes[node];
    std::vector<engine::step_operand> operands;
    for (std::size_t c : n.children) {
        const ir_node& child = g.nodes[c];
        if (in_loop(g, c, region)) operands.push_back(append_steps(g, c, region, inputs, loop));
        else if (child.is_scalar) operands.push_back(engine::fused_loop::number(child.number, child.is_complex));
        else
            operands.push_back(loop.input(
                static_cast<std::size_t>(std::find(inputs.begin(), inputs.end(), child.canonical) - inputs.begin())));
    }
    if (n.tag == op_id::mul_scalar || n.tag == op_id::div_scalar)
        operands.push_back(engine::fused_loop::number(n.attrs.scalar.real(), false));
    std::optional<std::complex<double>> constant;  // pow_scalar's exponent, gelu's approximation
    if (n.tag == op_id::pow_scalar) constant = n.attrs.scalar;
    if (n.tag == op_id::gelu && n.attrs.i0 != 0) constant = 1.0;  // approximate='tanh'
    return loop.append(compiled_op_of(n), operands, constant);
}

}  // namespace

std::optional<engine::fused_loop> build_loop(const graph_ir& g, std::size_t root, bool region,
                                             std::vector<std::size_t>& inputs) {
    inputs.clear();
    collect_loop_inputs(g, root, region, inputs);
    if (inputs.size() > engine::max_inputs) return std::nullopt;
    std::array<bool, engine::max_inputs> kinds{};
    for (std::size_t k = 0; k < inputs.size(); ++k) kinds[k] = g.nodes[inputs[k]].is_complex;
    engine::fused_loop loop(
        g.nodes[root].component_bytes == sizeof(double) ? engine::component::float64 : engine::component::float32,
        std::span<const bool>(kinds.data(), inputs.size()));
    try {
        append_steps(g, root, region, inputs, loop);
    } catch (const error&) {
        if (!region) throw;  // one op alone always fits: a failure here is a defect
        return std::nullopt;
    }
    return loop;
}

bool set_loop(graph_ir& g, std::size_t root, bool region) {
    std::vector<std::size_t> inputs;
    std::optional<engine::fused_loop> loop = build_loop(g, root, region, inputs);
    if (!loop) return false;
    g.nodes[root].loop_operands = std::move(inputs);
    g.nodes[root].loop = std::make_shared<const engine::fused_loop>(std::move(*loop));
    return true;
}

}  // namespace realify::graph::detail
