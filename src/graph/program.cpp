// realify/graph/program.hpp: the non-template half of a lowered program —
// lowering (running the passes, noting which operands must be read packed),
// binding a call's arguments (checking their number and element types),
// describing the graph before and after the passes, and filling a result
// container through the out= planning (graph/write_outputs.hpp).
#include "realify/graph/program.hpp"

#include <cstring>

#include "realify/graph/text.hpp"
#include "realify/graph/value.hpp"
#include "realify/graph/zero_copy.hpp"

namespace realify::graph::detail {


call_state::~call_state() = default;

std::string input_name(const graph_ir& g, std::size_t position) {
    const std::string& label = g.nodes[g.inputs[position]].label;
    return label.substr(0, label.find(" : "));
}

std::vector<std::string> input_names(const graph_ir& g) {
    std::vector<std::string> names;
    for (std::size_t k = 0; k < g.inputs.size(); ++k) names.push_back(input_name(g, k));
    return names;
}

namespace {

/// layout_error unless the argument bound at `position` has the value type
/// the input declares (a real tensor is never taken for a complex one).
void check_input(const graph_ir& g, std::size_t position, const bound_input& b) {
    const ir_node& input = g.nodes[g.inputs[position]];
    if (kind_of(b.value) == input.value && b.complex == input.is_complex && b.integer_argument == input.integer_argument)
        return;
    detail::text m;
    const bool integer = input.integer_argument;
    if (integer || b.integer_argument) {
        m << "realify::graph: input '" << input_name(g, position) << "' is "
          << (integer ? "an integer argument (graph::int_input): pass a C++ integer, not a tensor"
                      : "a tensor: pass a tensor, not an integer (integers go to graph::int_input arguments)");
        throw layout_error(m.str());
    }
    m << "realify::graph: input '" << input_name(g, position) << "' is declared a "
      << (input.is_complex ? "complex " : "") << value_kind_name(input.value) << " tensor, and was given a "
      << (b.complex ? "complex " : "") << value_kind_name(kind_of(b.value)) << " tensor"
      << (b.complex != input.is_complex ? " (a real tensor is never reinterpreted as complex, even with a trailing extent of 2)"
                                        : " (convert it first, xt::cast<T>(t), as PyTorch's .to(dtype))");
    throw layout_error(m.str());
}

/// realify::error when `given` is not the number of inputs.
void check_argument_count(const graph_ir& g, std::size_t given) {
    if (given == g.inputs.size()) return;
    detail::text m;
    m << "realify::graph::program: " << g.inputs.size() << " inputs expected (";
    for (std::size_t k = 0; k < g.inputs.size(); ++k) m << input_name(g, k) << ' ';
    m << "), " << given << " given";
    throw error(m.str());
}

/// The arguments bound in the inputs' order.
std::vector<bound_input> bind_arguments(const graph_ir& g, std::span<const argument> args) {
    check_argument_count(g, args.size());
    std::vector<bound_input> bound;
    bound.reserve(args.size());
    for (const argument& a : args) bound.push_back(a.bind(a.object));
    for (std::size_t k = 0; k < bound.size(); ++k) check_input(g, k, bound[k]);
    return bound;
}

}  // namespace

call_state::call_state(const graph_ir& g, std::span<const argument> args)
    : inputs(bind_arguments(g, args)), memo(g.nodes.size()), ctx{&g, &memo, &inputs, nullptr}, shapes(infer_shapes(ctx)) {
    ctx.shapes = &shapes;
}

std::string describe_graph(const graph_ir& g, bool after) {
    detail::text s;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const ir_node& n = g.nodes[i];
        if (after && (!n.live || n.erased || n.canonical != i || n.is_scalar)) continue;
        s << "  %" << i << " = " << n.op;
        if (!n.label.empty()) s << '[' << n.label << ']';
        s << '(';
        for (std::size_t k = 0; k < n.children.size(); ++k) {
            std::size_t c = n.children[k];
            if (after) {
                c = g.nodes[c].canonical;
                while (g.nodes[c].erased && !g.nodes[c].children.empty()) c = g.nodes[g.nodes[c].children[0]].canonical;
            }
            s << (k ? ", %" : "%") << c;
        }
        s << ')' << (n.is_complex ? " : complex" : " : real");
        if (after) {
            s << "  <- " << n.lowering;
            if (n.folded) s << " [folded at lower time]";
        }
        s << '\n';
    }
    return s.str();
}

shape_vector result_shape(call_state& call, std::size_t slot) {
    if (const auto& known = call.shapes[slot]) return *known;
    return shape_of(value_at(call.ctx, slot));
}

void fill_result(call_state& call, std::size_t slot, void* data, bool complex, std::size_t component_bytes) {
    if (const auto& known = call.shapes[slot]) {
        const buffer_layout target = packed_layout(data, component_shape(*known, complex), component_bytes);
        write_output(call.ctx, plan_route(call.ctx, call.shapes, slot, target));
        return;
    }
    const buffer_layout value = layout_of(value_at(call.ctx, slot));
    copy_into(packed_layout(data, value.shape, component_bytes), value);
}

const pipeline& standard_passes() {
    static const pipeline standard = pipeline::standard();
    return standard;
}

graph_handle::graph_handle() : m_graph(std::make_shared<graph_ir>()) {}
graph_handle::graph_handle(const graph_handle& other) noexcept = default;
graph_handle& graph_handle::operator=(const graph_handle& other) noexcept = default;
graph_handle::~graph_handle() = default;

namespace {

/// Whether a node's value is a strided view of other memory (a transpose,
/// a slice, …, possibly reshaped after it), known from the records.
bool strided_view_below(const graph_ir& g, std::size_t slot) {
    for (;;) {
        const ir_node& n = g.resolve(slot);
        if (n.folded || n.children.empty()) return false;
        if (n.rule == node_rule::zero_copy && n.shape == shape_rule::strided_view) return true;
        if (!keeps_order(n)) return false;
        slot = n.children[0];
    }
}

/// explain(): a tensor_op reads its operands packed; those that are strided
/// views are copied once, there.
void note_packed_operands(graph_ir& g) {
    for (std::size_t s = 0; s < g.nodes.size(); ++s) {
        ir_node& n = g.nodes[s];
        if (n.rule != node_rule::tensor_op || !n.live || n.canonical != s) continue;
        std::string packed;
        for (std::size_t c : n.children)
            if (strided_view_below(g, c)) packed += (packed.empty() ? "%" : ", %") + std::to_string(g.nodes[c].canonical);
        if (!packed.empty()) n.lowering += "; strided views packed once for fn: " + packed;
    }
}

}  // namespace

void finish_lowering(graph_ir& g, std::span<const std::size_t> outputs, const pipeline& passes) {
    g.outputs.assign(outputs.begin(), outputs.end());
    for (std::size_t k = 0; k < g.inputs.size(); ++k) g.nodes[g.inputs[k]].input_position = k;
    g.before = describe_graph(g, false);
    passes.run(g);
    note_packed_operands(g);
    for (std::size_t o : g.outputs) g.reads.push_back(inputs_read(g, o));
}

}  // namespace realify::graph::detail
