// realify/graph/write_outputs.hpp: the out= planning and the writing, all
// in this one module — what a buffer's layout allows (self-overlap, memory
// shared between buffers, a view re-striding the buffer: PyTorch's view
// rule), the route of each output, the order of the writes when a buffer is
// memory another output still reads, and the copy between two layouts.
// Everything is decided before anything is written, so a call that is
// refused has written nothing.
#include "realify/graph/write_outputs.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "realify/engine/elementwise.hpp"
#include "realify/errors.hpp"
#include "realify/graph/fusion.hpp"
#include "realify/graph/infer_shapes.hpp"
#include "realify/graph/kernel_ops.hpp"
#include "realify/graph/rules.hpp"
#include "realify/graph/text.hpp"
#include "realify/graph/value.hpp"
#include "realify/graph/zero_copy.hpp"

namespace realify::graph {

std::string write_plan::describe(const graph_ir& g) const {
    static constexpr const char* routes[] = {"direct", "rows", "through a temporary", "copied"};
    detail::text s;
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

// --- what a buffer's layout allows: checks and views through it ---

/// The axes of extent > 1 as (|stride|, extent), innermost (smallest stride) first.
std::vector<std::pair<std::ptrdiff_t, std::size_t>> sorted_axes(const buffer_layout& b) {
    std::vector<std::pair<std::ptrdiff_t, std::size_t>> axes;
    for (std::size_t a = 0; a < b.shape.size(); ++a)
        if (b.shape[a] > 1) axes.emplace_back(b.strides[a] < 0 ? -b.strides[a] : b.strides[a], b.shape[a]);
    std::sort(axes.begin(), axes.end());
    return axes;
}

bool overlaps_itself(const buffer_layout& b) {
    if (is_packed(b)) return false;
    std::ptrdiff_t reach = 0;
    for (const auto& [stride, extent] : sorted_axes(b)) {
        if (stride <= reach) return true;
        reach += stride * static_cast<std::ptrdiff_t>(extent - 1);
    }
    return false;
}

/// Whether component `offset` (from the lowest component of b) is an element of
/// b, for a layout whose strides nest: the digits are taken greedily, largest
/// stride first, and the offset is an element when nothing is left.
bool holds_offset(const std::vector<std::pair<std::ptrdiff_t, std::size_t>>& axes, std::ptrdiff_t offset) {
    if (offset < 0) return false;
    for (std::size_t k = axes.size(); k-- > 0;) {
        const auto [stride, extent] = axes[k];
        const std::ptrdiff_t digit = std::min<std::ptrdiff_t>(offset / stride, static_cast<std::ptrdiff_t>(extent) - 1);
        offset -= digit * stride;
    }
    return offset == 0;
}

bool share_memory(const buffer_layout& a, const buffer_layout& b) {
    const byte_range ra = bytes_of(a), rb = bytes_of(b);
    if (!ra.overlaps(rb)) return false;
    if (a.component_bytes != b.component_bytes) return true;
    const buffer_layout& small = a.count() <= b.count() ? a : b;
    const buffer_layout& large = a.count() <= b.count() ? b : a;
    // offsets (in components) of small's elements from large's lowest component
    const auto size = static_cast<std::ptrdiff_t>(a.component_bytes);
    const auto distance =
        static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(small.data) - bytes_of(large).begin);
    if (distance % size != 0) return true;
    const auto axes = sorted_axes(large);
    const std::size_t rank = small.shape.size();
    shape_vector index(rank, 0);
    std::ptrdiff_t offset = distance / size;
    for (std::size_t done = 0, total = small.count(); done < total; ++done) {
        if (holds_offset(axes, offset)) return true;
        for (std::size_t k = rank; k-- > 0;) {  // odometer, keeping the offset current
            offset += small.strides[k];
            if (++index[k] < small.shape[k]) break;
            offset -= small.strides[k] * static_cast<std::ptrdiff_t>(small.shape[k]);
            index[k] = 0;
        }
    }
    return false;
}

std::optional<stride_vector> restride(const shape_vector& from, const stride_vector& strides, const shape_vector& to) {
    std::size_t count = 1;
    for (std::size_t e : from) count *= e;
    if (count <= 1) return packed_strides(to);  // one element or none: any strides address it
    stride_vector result(to.size(), 0);
    std::ptrdiff_t next = static_cast<std::ptrdiff_t>(to.size()) - 1;  // the axis of `to` to give a stride next
    std::ptrdiff_t run_stride = strides.back();                          // stride of the innermost axis of the run
    std::size_t run_count = 1, view_count = 1;
    for (std::size_t a = from.size(); a-- > 0;) {
        run_count *= from[a];
        const bool run_ends = a == 0 || (from[a - 1] != 1 &&
                                         strides[a - 1] != static_cast<std::ptrdiff_t>(run_count) * run_stride);
        if (!run_ends) continue;
        while (next >= 0 && (view_count < run_count || to[static_cast<std::size_t>(next)] == 1)) {
            result[static_cast<std::size_t>(next)] = static_cast<std::ptrdiff_t>(view_count) * run_stride;
            view_count *= to[static_cast<std::size_t>(next)];
            --next;
        }
        if (view_count != run_count) return std::nullopt;
        if (a > 0) {
            run_stride = strides[a - 1];
            run_count = view_count = 1;
        }
    }
    if (next != -1) return std::nullopt;
    return result;
}


// --- the routes ---


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

/// An input whose memory a node's value is (through views and same-type casts).
struct borrowed {
    std::size_t position = 0;  // the input's
    bool same_order = true;    // every view on the way keeps the elements' order (graph/zero_copy.hpp)
};

/// The input a node's value is the memory of, re-described; nothing when
/// the value is memory of its own.
std::optional<borrowed> borrowed_source(const graph_ir& g, std::size_t slot) {
    borrowed b;
    for (;;) {
        const ir_node& n = g.resolve(slot);
        if (n.folded) return std::nullopt;
        if (n.is_input) {
            b.position = n.input_position;
            return b;
        }
        if (!is_view(n)) return std::nullopt;
        b.same_order = b.same_order && keeps_order(n);
        slot = n.children[0];
    }
}

/// The layout the operand of view `n` (of component shape `below`) must
/// have for the view of it to be `target`, when there is one: a view that
/// keeps the elements' order re-strides it (PyTorch's view rule), a
/// permutation permutes it back; the views that leave out elements or
/// repeat them (select, slice, expand, …) have none.
std::optional<buffer_layout> through_view(const ir_node& n, const buffer_layout& target, shape_vector below) {
    buffer_layout b = target;
    if (keeps_order(n)) {
        if (is_packed(target)) {
            b.strides = packed_strides(below);
        } else {
            auto strides = restride(target.shape, target.strides, below);
            if (!strides) return std::nullopt;
            b.strides = std::move(*strides);
        }
        b.shape = std::move(below);
        return b;
    }
    const std::size_t rank = below.size() - (n.is_complex ? 1 : 0);  // the element axes ([re, im] stays last)
    const auto order = axis_order(n, rank);
    if (!order) return std::nullopt;
    for (std::size_t a = 0; a < rank; ++a) b.strides[(*order)[a]] = target.strides[a];
    b.shape = std::move(below);
    return b;
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
    while (g.is_private(slot) && is_view(g.nodes[slot])) {
        const std::size_t child = g.nodes[slot].children[0];
        if (!shapes[child]) break;
        auto below = through_view(g.nodes[slot], target, component_shape(*shapes[child], g.resolve(child).is_complex));
        if (!below) break;
        target = std::move(*below);
        slot = child;
    }
    const bool packed = is_packed(target);
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
        const std::optional<borrowed> source = borrowed_source(g, operand);
        if (!source) continue;
        const bound_input& input = (*ctx.inputs)[source->position];
        if (!input.borrowed || !written.overlaps(byte_range{input.begin, input.end})) continue;
        // the operand IS the buffer: the packed input itself, its elements in order, the output's shape
        const bool same = packed && source->same_order && input.packed && input.data == plan.target.data &&
                          shapes[operand] && shapes[slot] && *shapes[operand] == *shapes[slot] &&
                          g.resolve(operand).is_complex == n.is_complex &&
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
            detail::text m;
            m << "realify::graph::program: out buffer " << i << " has shape "
              << realify::detail::format_sequence(shape_vector(bs.begin(), logical_end)) << ", the output has shape "
              << realify::detail::format_sequence(shapes[i]);
            throw shape_error(m.str());
        }
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (overlaps_itself(buffers[i])) {
            detail::text m;
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
            const byte_range memory{input.begin, input.end};
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

}  // namespace

void write_output(eval_context& ctx, const output_plan& plan) {
    const ir_node& writer = ctx.ir->nodes[plan.writer];
    if (plan.route != write_route::copied && (is_loop(writer) || writes_buffer(writer) || is_kernel(writer))) {  // plan_route's writers
        writer.evaluator(writer, ctx, &plan.target);
        return;
    }
    copy_into(plan.target, layout_of(value_at(ctx, plan.writer)));
}

// --- writing ---

namespace {

/// The engine's description of a layout, its components read as unsigned
/// integers of their size (a copy moves bits; it needs no component type).
engine::tensor_ref raw_ref(const buffer_layout& b) {
    engine::tensor_ref r;
    r.data = b.data;
    switch (b.component_bytes) {
    case 1: r.type = engine::component::uint8; break;
    case 2: r.type = engine::component::uint16; break;
    case 4: r.type = engine::component::uint32; break;
    default: r.type = engine::component::uint64; break;
    }
    r.shape = engine::make_dims("graph::out", b.shape);
    std::copy(b.strides.begin(), b.strides.end(), r.strides.begin());
    return r;
}

/// Components wider than 8 bytes as that many bytes (an innermost axis).
buffer_layout as_bytes(buffer_layout b) {
    if (b.component_bytes <= 8 && (b.component_bytes & (b.component_bytes - 1)) == 0) return b;
    b.shape.push_back(b.component_bytes);
    for (std::ptrdiff_t& stride : b.strides) stride *= static_cast<std::ptrdiff_t>(b.component_bytes);
    b.strides.push_back(1);
    b.component_bytes = 1;
    return b;
}

}  // namespace

void copy_into(const buffer_layout& to_layout, const buffer_layout& from_layout) {
    const buffer_layout to = as_bytes(to_layout), from = as_bytes(from_layout);
    const std::size_t total = to.count();
    if (total == 0 || (to.data == from.data && to.strides == from.strides)) return;
    if (is_packed(to) && is_packed(from)) {
        std::memmove(to.data, from.data, total * to.component_bytes);
        return;
    }
    engine::tensor_ref source = raw_ref(from);
    std::unique_ptr<std::byte[]> aside;
    if (bytes_of(to).overlaps(bytes_of(from))) {  // read all of it before anything is written
        aside.reset(new std::byte[total * to.component_bytes]);
        const buffer_layout copy = packed_layout(aside.get(), from.shape, from.component_bytes);
        engine::copy_ref("graph::out", source, raw_ref(copy));
        source = raw_ref(copy);
    }
    engine::copy_ref("graph::out", source, raw_ref(to));
}


write_plan write_outputs(eval_context& ctx, const std::vector<std::optional<shape_vector>>& node_shapes,
                         std::span<const buffer_layout> buffers, bool write) {
    const graph_ir& g = *ctx.ir;
    const std::size_t count = g.outputs.size();
    std::vector<graph_value> values(count);  // outputs evaluated before they are written
    std::vector<shape_vector> shapes(count);
    std::vector<bool> evaluated(count, false);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t slot = g.outputs[i];
        if (node_shapes[slot]) {
            shapes[i] = *node_shapes[slot];
            continue;
        }
        values[i] = owned(value_at(ctx, slot));
        shapes[i] = shape_of(values[i]);
        evaluated[i] = true;
    }
    write_plan plan = plan_writes(ctx, node_shapes, buffers, shapes, evaluated);
    if (!write) return plan;
    for (const write_step& step : plan.steps) {
        const std::size_t slot = g.outputs[step.output];
        if (step.kind == write_step::evaluate_aside) values[step.output] = owned(value_at(ctx, slot));
        else if (has_value(values[step.output]))
            copy_into(plan.outputs[step.output].target, layout_of(values[step.output]));
        else write_output(ctx, plan.outputs[step.output]);
    }
    return plan;
}

}  // namespace detail
}  // namespace realify::graph
