#include "realify/graph/write_outputs.hpp"

#include <algorithm>
#include <any>
#include <cstdint>
#include <sstream>
#include <utility>

#include "realify/errors.hpp"
#include "realify/graph/fusion.hpp"
#include "realify/graph/infer_shapes.hpp"
#include "realify/graph/kernel_ops.hpp"
#include "realify/graph/rules.hpp"
#include "realify/graph/value.hpp"

namespace realify::graph {

std::string write_plan::describe(const graph_ir& g) const {
    static constexpr const char* routes[] = {"direct", "rows", "through a temporary", "copied"};
    std::ostringstream s;
    for (const write_step& step : steps) {
        const output_plan& p = outputs[step.output];
        s << "output " << step.output;
        if (step.kind == write_step::evaluate_aside) {
            s << ": evaluated aside (its buffer is memory another output reads)\n";
            continue;
        }
        s << " <- %" << p.writer << ' ' << g.nodes[p.writer].op << ": "
          << (p.aside ? "copied from the value evaluated aside" : routes[static_cast<int>(p.route)]);
        if (p.in_place) s << " (in place)";
        s << '\n';
    }
    return s.str();
}

namespace detail {

namespace {

/// A node whose value is its child's memory re-described (no code).
bool is_view(const ir_node& n) {
    return n.rule == node_rule::erased || n.rule == node_rule::zero_copy || (n.rule == node_rule::cast && n.erased);
}

/// The root of a loop (graph/fusion.hpp).
bool is_loop(const ir_node& n) { return n.fusion == fusion_mode::own_loop || n.fusion == fusion_mode::region; }

/// A tensor_op that writes a buffer handed to it (its shape declared, graph/tensor_op.hpp).
bool writes_buffer(const ir_node& n) { return n.rule == node_rule::tensor_op && n.shape == shape_rule::declared; }

/// An op of the kernel rule: writes any strides itself, through a temporary
/// where an operand overlaps (graph/kernel_ops.hpp).
bool is_kernel(const ir_node& n) { return n.rule == node_rule::kernel; }

/// The memory a node's value is, when it is an input's memory re-described
/// (through views and same-type casts): that input's position; else nothing
/// (the value is memory of its own).
std::optional<std::size_t> borrowed_source(const graph_ir& g, std::size_t slot) {
    for (;;) {
        const ir_node& n = g.resolve(slot);
        if (n.folded) return std::nullopt;
        if (n.is_input) return n.input_position;
        if (!is_view(n)) return std::nullopt;
        slot = n.children[0];
    }
}

}  // namespace

std::vector<std::size_t> inputs_read(const graph_ir& g, std::size_t slot) {
    std::vector<bool> seen(g.nodes.size(), false);
    std::vector<std::size_t> read, stack{g.nodes[slot].canonical};
    while (!stack.empty()) {
        const std::size_t s = stack.back();
        stack.pop_back();
        if (seen[s]) continue;
        seen[s] = true;
        const ir_node& n = g.nodes[s];
        if (n.is_input) read.push_back(n.input_position);
        if (n.folded) continue;
        for (std::size_t c : n.children) stack.push_back(g.nodes[c].canonical);
    }
    return read;
}

output_plan plan_route(const eval_context& ctx, const std::vector<std::optional<shape_vector>>& shapes,
                       std::size_t slot, buffer_layout target) {
    const graph_ir& g = *ctx.ir;
    bool packed = is_packed(target);
    while (g.is_private(slot) && is_view(g.nodes[slot])) {
        const std::size_t child = g.nodes[slot].children[0];
        if (!shapes[child]) break;
        shape_vector child_shape = component_shape(*shapes[child], g.resolve(child).is_complex);
        if (packed) {
            target.strides = packed_strides(child_shape);
        } else {
            auto strides = restride(target.shape, target.strides, child_shape);
            if (!strides) break;
            target.strides = std::move(*strides);
        }
        target.shape = std::move(child_shape);
        packed = packed || is_packed(target);
        slot = child;
    }
    output_plan plan{write_route::copied, slot, std::move(target)};
    if (!g.is_private(slot)) return plan;
    if (is_view(g.nodes[slot])) {  // a view the buffer's strides do not allow: the value below is copied in
        std::size_t base = slot;
        while (g.is_private(base) && is_view(g.nodes[base])) base = g.nodes[base].children[0];
        if (g.is_private(base) && is_loop(g.nodes[base])) plan.route = write_route::temporary;
        return plan;
    }
    const ir_node& n = g.nodes[slot];
    if (!is_loop(n) && !writes_buffer(n) && !is_kernel(n)) return plan;
    // a loop (or a tensor_op): may it write the buffer itself?
    const byte_range written = bytes_of(plan.target);
    bool in_place = false, overlapped = false;
    for (std::size_t operand : is_loop(n) ? n.loop_operands : n.children) {
        const std::optional<std::size_t> source = borrowed_source(g, operand);
        if (!source) continue;
        const bound_input& input = (*ctx.inputs)[*source];
        if (!input.borrowed || !written.overlaps(bytes_of(input.data, input.bytes))) continue;
        const bool same = packed && input.data == plan.target.data && shapes[operand] && shapes[slot] &&
                          *shapes[operand] == *shapes[slot] && g.resolve(operand).is_complex == n.is_complex &&
                          (!is_kernel(n) || kernel_in_place(n));
        (same ? in_place : overlapped) = true;
    }
    if (writes_buffer(n)) {  // fn may read an operand after writing: only disjoint, packed memory
        if (!overlapped && !in_place && packed) plan.route = write_route::direct;
    } else if (overlapped || !loop_writes(plan.target, n.is_complex)) {
        plan.route = write_route::temporary;
    } else {
        plan.route = packed ? write_route::direct : write_route::rows;
        plan.in_place = in_place;
    }
    return plan;
}

namespace {

/// shape_error / layout_error unless every buffer has its output's shape,
/// overlaps no element of itself and shares no memory with another buffer.
void check_buffers(const graph_ir& g, std::span<const buffer_layout> buffers, const std::vector<shape_vector>& shapes) {
    const std::size_t count = buffers.size();
    for (std::size_t i = 0; i < count; ++i) {
        const shape_vector& bs = buffers[i].shape;
        const auto logical_end = bs.end() - (g.resolve(g.outputs[i]).is_complex ? 1 : 0);
        if (!std::equal(bs.begin(), logical_end, shapes[i].begin(), shapes[i].end())) {
            std::ostringstream m;
            m << "realify::graph::program: out buffer " << i << " has shape "
              << realify::detail::format_sequence(shape_vector(bs.begin(), logical_end)) << ", the output has shape "
              << realify::detail::format_sequence(shapes[i]);
            throw shape_error(m.str());
        }
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (overlaps_itself(buffers[i])) {
            std::ostringstream m;
            m << "realify::graph::program: out buffer " << i << " (shape " << realify::detail::format_sequence(buffers[i].shape)
              << ", strides " << realify::detail::format_sequence(buffers[i].strides)
              << " in components) overlaps itself: more than one element refers to the same memory";
            throw layout_error(m.str());
        }
    }
    for (std::size_t i = 0; i < count; ++i)
        for (std::size_t j = i + 1; j < count; ++j)
            if (share_memory(buffers[i], buffers[j]))
                throw layout_error("realify::graph::program: out buffers " + std::to_string(i) + " and " +
                                   std::to_string(j) + " share memory (each output needs memory of its own)");
}

/// The order of the steps: an output is written once every other output
/// that reads its buffer's memory (an input) has read it; when all the
/// outputs left wait on one another, the first one waited for is evaluated
/// aside (it has then read everything), to be copied in at its turn.
/// `read`: the outputs whose value is already evaluated.
std::vector<write_step> order_steps(const eval_context& ctx, std::span<const buffer_layout> buffers,
                                    std::vector<bool> read) {
    const graph_ir& g = *ctx.ir;
    const std::size_t count = buffers.size();
    // waits[i * count + j]: output i's buffer is memory output j reads
    std::vector<bool> waits(count * count, false);
    for (std::size_t j = 0; j < count; ++j) {
        for (std::size_t k : g.reads[j]) {
            const bound_input& input = (*ctx.inputs)[k];
            if (!input.borrowed) continue;
            const byte_range memory = bytes_of(input.data, input.bytes);
            for (std::size_t i = 0; i < count; ++i)
                if (i != j && bytes_of(buffers[i]).overlaps(memory)) waits[i * count + j] = true;
        }
    }
    auto blocked = [&](std::size_t i) {
        for (std::size_t j = 0; j < count; ++j)
            if (waits[i * count + j] && !read[j]) return true;
        return false;
    };
    std::vector<write_step> steps;
    std::vector<bool> written(count, false);
    for (std::size_t done = 0; done < count;) {
        bool progress = false;
        for (std::size_t i = 0; i < count; ++i) {
            if (written[i] || blocked(i)) continue;
            steps.push_back({write_step::write, i});
            written[i] = read[i] = progress = true;
            ++done;
        }
        if (progress) continue;
        std::size_t reader = count;
        for (std::size_t i = 0; i < count && reader == count; ++i)
            for (std::size_t j = 0; j < count && reader == count; ++j)
                if (!written[i] && waits[i * count + j] && !read[j]) reader = j;
        steps.push_back({write_step::evaluate_aside, reader});
        read[reader] = true;
    }
    return steps;
}

/// Checks every buffer, then decides the route of each output and the order
/// of the steps. `shapes`: the outputs' logical shapes; `evaluated`: the
/// outputs already evaluated (their shape was known only then).
write_plan plan_writes(const eval_context& ctx, const std::vector<std::optional<shape_vector>>& node_shapes,
                       std::span<const buffer_layout> buffers, const std::vector<shape_vector>& shapes,
                       const std::vector<bool>& evaluated) {
    const graph_ir& g = *ctx.ir;
    check_buffers(g, buffers, shapes);
    write_plan plan;
    plan.outputs.reserve(buffers.size());
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        plan.outputs.push_back(evaluated[i] ? output_plan{write_route::copied, g.outputs[i], buffers[i], false, true}
                                            : plan_route(ctx, node_shapes, g.outputs[i], buffers[i]));
    }
    plan.steps = order_steps(ctx, buffers, evaluated);
    for (const write_step& step : plan.steps)
        if (step.kind == write_step::evaluate_aside) plan.outputs[step.output].aside = true;
    return plan;
}

/// Copies the packed components of a value into b through its strides (one
/// loop per component size, so the copy needs no component type).
void copy_value_into(const buffer_layout& b, const value_memory& value) {
    switch (b.component_bytes) {
    case 1: copy_into(b, static_cast<const std::uint8_t*>(value.data)); break;
    case 2: copy_into(b, static_cast<const std::uint16_t*>(value.data)); break;
    case 4: copy_into(b, static_cast<const std::uint32_t*>(value.data)); break;
    case 8: copy_into(b, static_cast<const std::uint64_t*>(value.data)); break;
    default: {  // wider components: byte by byte
        buffer_layout bytes = b;
        bytes.shape.push_back(b.component_bytes);
        for (std::ptrdiff_t& stride : bytes.strides) stride *= static_cast<std::ptrdiff_t>(b.component_bytes);
        bytes.strides.push_back(1);
        bytes.component_bytes = 1;
        copy_into(bytes, static_cast<const std::uint8_t*>(value.data));
    }
    }
}

}  // namespace

void write_output(eval_context& ctx, const output_plan& plan) {
    const ir_node& writer = ctx.ir->nodes[plan.writer];
    if (plan.route != write_route::copied && (is_loop(writer) || writes_buffer(writer) || is_kernel(writer))) {  // plan_route's writers
        writer.evaluator(writer, ctx, &plan.target);
        return;
    }
    const ir_node& record = ctx.ir->resolve(plan.writer);
    copy_value_into(plan.target, record.values->memory(value_at(ctx, plan.writer)));
}

write_plan write_outputs(eval_context& ctx, const std::vector<std::optional<shape_vector>>& node_shapes,
                         std::span<const buffer_layout> buffers, bool write) {
    const graph_ir& g = *ctx.ir;
    const std::size_t count = g.outputs.size();
    std::vector<std::any> values(count);  // outputs evaluated before they are written
    std::vector<shape_vector> shapes(count);
    std::vector<bool> evaluated(count, false);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t slot = g.outputs[i];
        if (node_shapes[slot]) {
            shapes[i] = *node_shapes[slot];
            continue;
        }
        const ir_node& record = g.resolve(slot);
        values[i] = record.values->own(value_at(ctx, slot));
        shapes[i] = record.values->shape(values[i]);
        evaluated[i] = true;
    }
    write_plan plan = plan_writes(ctx, node_shapes, buffers, shapes, evaluated);
    if (!write) return plan;
    for (const write_step& step : plan.steps) {
        const std::size_t slot = g.outputs[step.output];
        const ir_node& record = g.resolve(slot);
        if (step.kind == write_step::evaluate_aside) values[step.output] = record.values->own(value_at(ctx, slot));
        else if (values[step.output].has_value())
            copy_value_into(plan.outputs[step.output].target, record.values->memory(values[step.output]));
        else write_output(ctx, plan.outputs[step.output]);
    }
    return plan;
}

}  // namespace detail
}  // namespace realify::graph
