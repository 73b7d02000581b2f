// realify/graph/build_ir.hpp: the run-time record of a node, made from what
// its type decided at compile time (node_facts) and what its object holds
// (id, attributes, name, number). Here rather than in the header so that a
// unit lowering a graph instantiates one small add_node per node type and
// nothing else: the labels explain() prints, the lowering text and the
// record's flags are written once, on run-time data.
#include "realify/graph/build_ir.hpp"

#include <algorithm>

#include "realify/graph/build_loop.hpp"
#include "realify/graph/kernel_ops.hpp"

namespace realify::graph::detail {

std::string format_attrs(std::optional<op_id> tag, const node_attrs& a) {
    const auto is = [&](auto... ids) { return ((tag == ids) || ...); };
    using enum op_id;
    text s;
    const bool creation = is(full, zeros, ones, empty, arange);
    if (is(arange)) {  // start, end, step: a number, or the k-th integer operand (#k)
        s << '(';
        for (std::size_t i = 0; i < a.numbers.size(); ++i) {
            if (i) s << ", ";
            if (i < a.dims.size() && is_same_marker(a.dims[i])) s << '#' << same_marker_dim(a.dims[i]);
            else s << a.numbers[i];
        }
        s << ')';
    } else if (!a.dims.empty() || creation) {
        s << '(';
        for (std::size_t i = 0; i < a.dims.size(); ++i) {
            if (i) s << ", ";
            if (is_same_marker(a.dims[i])) s << (creation ? "#" : "same(") << same_marker_dim(a.dims[i]) << (creation ? "" : ")");
            else s << a.dims[i];
        }
        s << ')';
    }
    if (is(flatten, transpose, select)) s << a.i0 << ", " << a.i1;
    else if (is(unsqueeze, squeeze_dim, cumsum, prod_dim, cat, stack, getitem, softmax, log_softmax))
        s << a.i0;
    else if (is(narrow)) s << a.i0 << ", " << a.i1 << ", " << a.i2;
    else if (is(sym_size)) s << "dim " << a.i0;
    else if (is(triu, tril)) s << "diagonal " << a.i0;
    else if (is(rope)) s << "start_pos " << a.i0 << (a.i1 != 0 ? ", half_split" : ", interleaved");
    else if (is(scaled_dot_product_attention)) s << (a.i0 != 0 ? "is_causal" : "") << (a.i1 != 0 ? " enable_gqa" : "")
                                                 << (a.has_scalar ? " scale" : "");
    else if (is(slice)) s << a.i0 << ", " << a.i1 << ", " << a.i2 << ", " << a.i3;
    else if (is(split, chunk)) s << a.i0 << ", " << a.i1 << "; piece " << a.i2;
    else if (is(split_with_sizes)) s << ", " << a.i1 << "; piece " << a.i2;
    if (is(sum_dim, mean_dim, prod_dim, amax, amin, var, std_dev) && a.i1 != 0) s << ", keepdim";
    if (is(var, std_dev)) s << ", correction " << a.scalar.real();
    if (is(layer_norm, rms_norm)) s << ", eps " << a.scalar.real();
    if (!a.text.empty()) s << '"' << a.text << '"';
    if (is(gelu) && a.i0 != 0) s << "approximate='tanh'";
    if (a.has_scalar) {
        if (is(full)) s << ", fill ";
        else if (is(scaled_dot_product_attention)) s << ' ';
        if (a.scalar.imag() == 0) s << a.scalar.real();
        else s << a.scalar;
    }
    return s.str();
}

namespace {

/// An input's label, "name : complex f32", or a constant's (no name): "complex f32".
std::string value_label(const std::string* name, bool complex, std::string_view type) {
    std::string label = name ? *name + " : " : std::string();
    label += complex ? "complex " : "real ";
    label += type;
    return label;
}

/// `text` followed by "#id": the label of a node CSE never merges (a run-time
/// function), so that explain() tells two of them apart.
std::string identity_label(std::string text, std::uint64_t id) {
    text += '#';
    text += std::to_string(id);
    return text;
}

/// The label of a node: what explain() prints after its op.
std::string label_of(const node_facts& f, const node_object& x) {
    switch (f.rule) {
    case node_rule::input: return value_label(x.name, f.is_complex, f.type);
    case node_rule::constant: return value_label(nullptr, f.is_complex, f.type);
    case node_rule::number: return std::string(x.label);
    case node_rule::cast: return "";
    case node_rule::tensor_op: return identity_label("", x.id);  // its function is a run-time object: never merged by CSE
    default:
        // a user op's reference is a run-time object: two nodes of the same tag may
        // compute different things, so they are never merged by CSE
        if (f.custom) return identity_label(format_attrs(f.tag, *x.attrs), x.id);
        return format_attrs(f.tag, *x.attrs);
    }
}

/// What a view does, as explain() prints it (graph/zero_copy.hpp).
std::string view_lowering(const ir_node& r) {
    const std::string call = r.op + (r.label.starts_with('(') ? r.label : '(' + r.label + ')');
    switch (r.shape) {
    case shape_rule::strided_view: return "strided view: " + call + ", zero-copy (its operand's memory, new strides)";
    case shape_rule::reshape:
    case shape_rule::flatten:
        return "view: " + call + ", zero-copy when the operand's strides allow it (PyTorch's view rule), else one packed copy";
    case shape_rule::same_as_child: return "zero-copy: the operand's value";
    default: return "view: " + call + ", zero-copy";  // unsqueeze, squeeze
    }
}

/// The record of a node from its type's facts and its object (not yet placed in a graph).
ir_node make_record(const node_facts& f, const node_object& x) {
    ir_node r;
    r.id = x.id;
    r.tag = f.tag;
    r.op = std::string(f.op);
    r.label = label_of(f, x);
    r.entry_point = "graph::" + r.op;
    r.rule = f.rule;
    r.shape = f.shape;
    r.component_bytes = f.component_bytes;
    r.is_complex = f.is_complex;
    r.is_op = f.is_op;
    r.custom = f.custom;
    r.anchor = f.anchor;
    r.in_complex_subgraph = f.in_complex_subgraph;
    r.simd_mul = f.simd_mul;
    r.fusable_reduction = f.fusable_reduction;
    r.is_input = f.rule == node_rule::input;
    r.is_constant = f.rule == node_rule::constant;
    r.is_scalar = f.rule == node_rule::number;
    r.erased = f.rule == node_rule::erased || f.same_type_cast;
    r.zero_copy = f.rule == node_rule::zero_copy;
    r.fusable = f.rule == node_rule::fused;
    r.fallback = f.rule == node_rule::fallback;
    if (x.attrs) r.attrs = *x.attrs;
    r.value = f.value;
    r.integer_argument = f.integer_argument;
    r.number_type = f.number_type;
    r.number = x.number;
    r.object = x.object;
    r.evaluator = f.evaluator;
    r.declared_shape = f.declared_shape;
    switch (f.rule) {
    case node_rule::input: r.lowering = "bound argument (zero copy: read where it lies, any layout)"; break;
    case node_rule::constant: r.lowering = "constant"; break;
    case node_rule::number: r.lowering = "number operand"; break;
    case node_rule::cast:
        r.op = "to_" + std::string(f.type);  // PyTorch's .float() / type_as: not a complex op
        r.lowering = f.same_type_cast ? "erased (same component type)" : "component conversion";
        break;
    case node_rule::erased: r.lowering = "erased"; break;
    case node_rule::zero_copy: r.lowering = view_lowering(r); break;
    case node_rule::fused:  // until fuse_elementwise decides the loops: each op its own loop
        r.fusion = fusion_mode::own_loop;
        r.lowering = "fused loop (compiled kernel of " + r.op + ")";
        break;
    case node_rule::table: r.lowering = std::string(f.table_entry); break;
    case node_rule::fallback: r.lowering = "std::complex fallback (graph break: this node only)"; break;
    case node_rule::kernel: r.lowering = kernel_lowering(f.tag); break;
    case node_rule::tensor_op:
        r.lowering = f.shape == shape_rule::declared
                         ? "tensor-level user function writing the buffer the graph hands it (graph break: operands "
                           "materialised as tensors)"
                         : "tensor-level user function (graph break: operands materialised as tensors, result re-enters)";
        r.lowering += "; fn reads its operands packed (row-major)";
        break;
    }
    return r;
}

}  // namespace

std::optional<std::size_t> find_record(const graph_ir& g, std::uint64_t id) {
    if (auto it = g.slot_of.find(id); it != g.slot_of.end()) return it->second;
    return std::nullopt;
}

std::size_t add_record(graph_ir& g, const node_facts& facts, const node_object& x, std::span<const std::size_t> children,
                       std::span<const bool> boundary) {
    ir_node r = make_record(facts, x);
    r.children.assign(children.begin(), children.end());
    for (std::size_t k = 0; k < children.size(); ++k)
        if (boundary[k]) g.nodes[children[k]].boundary_input = true;
    const std::size_t slot = g.nodes.size();
    if (r.is_input) {
        auto pos = std::find_if(g.inputs.begin(), g.inputs.end(), [&](std::size_t s) { return g.nodes[s].id > r.id; });
        g.inputs.insert(pos, slot);
    }
    r.canonical = slot;
    g.slot_of.emplace(r.id, slot);
    g.nodes.push_back(std::move(r));
    if (facts.rule == node_rule::fused) set_loop(g, slot, false);
    return slot;
}

}  // namespace realify::graph::detail
