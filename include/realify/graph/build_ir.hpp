// Building the run-time mirror (graph/ir.hpp) of a typed graph: one record
// per node identity. Everything a record says is a compile-time fact of the
// node's type (node_facts, graph/detect.hpp); the record is filled from them
// by one plain function, so each node type costs a constant table and a
// short walk over its children, not a copy of the record-building code.
#pragma once

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "realify/graph/detect.hpp"
#include "realify/graph/evaluate.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/loop_program.hpp"
#include "realify/graph/rules.hpp"
#include "realify/graph/traits.hpp"

namespace realify::graph::detail {

inline std::string format_attrs(std::optional<op_id> tag, const node_attrs& a) {
    const auto is = [&](auto... ids) { return ((tag == ids) || ...); };
    using enum op_id;
    std::ostringstream s;
    if (!a.dims.empty()) {
        s << '(';
        for (std::size_t i = 0; i < a.dims.size(); ++i) {
            if (i) s << ", ";
            if (is_same_marker(a.dims[i])) s << "same(" << same_marker_dim(a.dims[i]) << ')';
            else s << a.dims[i];
        }
        s << ')';
    }
    if (is(flatten, transpose, select)) s << a.i0 << ", " << a.i1;
    else if (is(unsqueeze, squeeze_dim, cumsum, prod_dim, cat, stack, getitem, softmax, log_softmax))
        s << a.i0;  // the label is what CSE compares: stack(0, …) and stack(−1, …) of the same tensors differ
    else if (is(narrow)) s << a.i0 << ", " << a.i1 << ", " << a.i2;
    else if (is(slice)) s << a.i0 << ", " << a.i1 << ", " << a.i2 << ", " << a.i3;
    else if (is(split, chunk)) s << a.i0 << ", " << a.i1 << "; piece " << a.i2;
    else if (is(split_with_sizes)) s << ", " << a.i1 << "; piece " << a.i2;
    if (is(sum_dim, mean_dim, prod_dim, amax, amin, var, std_dev) && a.i1 != 0) s << ", keepdim";
    if (is(var, std_dev)) s << ", correction " << a.scalar.real();
    if (is(layer_norm, rms_norm)) s << ", eps " << a.scalar.real();
    if (!a.text.empty()) s << '"' << a.text << '"';
    if (is(gelu) && a.i0 != 0) s << "approximate='tanh'";
    if (a.has_scalar) {
        if (a.scalar.imag() == 0) s << a.scalar.real();
        else s << a.scalar;
    }
    return s.str();
}

template <class T>
constexpr std::string_view type_name() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_same_v<T, bool>) return "bool";
    else return "other";
}

/// What the record of a node type says, all known at compile time.
struct node_facts {
    std::optional<op_id> tag;      // which op of the table (tag_id_of)
    std::string_view op;           // op name ("input", "mul", …; casts: the target type)
    std::string_view type;         // component type: f32, f64, bool
    std::string_view table_entry;  // the dispatch table entry (rule table)
    node_rule rule = node_rule::table;
    shape_rule shape = shape_rule::unknown;
    std::size_t component_bytes = 0;
    bool is_complex = false, is_op = false, anchor = false, in_complex_subgraph = false;
    bool simd_mul = false, custom = false, same_type_cast = false;
};

template <class N>
constexpr node_facts facts_of() {
    using Tr = traits_t<N>;
    node_facts f;
    f.rule = rule_of<N>();
    f.shape = shape_rule_of<N>();
    f.tag = tag_id_of<N>();
    f.op = op_name<N>();
    f.type = type_name<typename Tr::real_type>();
    f.component_bytes = sizeof(typename Tr::real_type);
    f.is_complex = Tr::is_complex;
    f.is_op = is_op_node_v<N>;
    f.anchor = is_anchor_v<N>;
    f.in_complex_subgraph = graph::in_complex_subgraph_v<N>;
    f.simd_mul = simd_mul_v<N>;
    f.custom = is_custom_v<N>;
    if constexpr (rule_of<N>() == node_rule::cast) f.same_type_cast = re_described_v<N>;
    if constexpr (rule_of<N>() == node_rule::table) f.table_entry = table_of<N>::name();
    return f;
}

/// The record of a node from its type's facts and its run-time label.
inline ir_node make_record(const node_facts& f, std::string label) {
    ir_node r;
    r.tag = f.tag;
    r.op = std::string(f.op);
    r.label = std::move(label);
    r.entry_point = "graph::" + r.op;
    r.rule = f.rule;
    r.shape = f.shape;
    r.component_bytes = f.component_bytes;
    r.is_complex = f.is_complex;
    r.is_op = f.is_op;
    r.anchor = f.anchor;
    r.in_complex_subgraph = f.in_complex_subgraph;
    r.simd_mul = f.simd_mul;
    r.is_input = f.rule == node_rule::input;
    r.is_constant = f.rule == node_rule::constant;
    r.is_scalar = f.rule == node_rule::number;
    r.erased = f.rule == node_rule::erased || f.same_type_cast;
    r.zero_copy = f.rule == node_rule::zero_copy;
    r.fusable = f.rule == node_rule::fused;
    r.fallback = f.rule == node_rule::fallback;
    switch (f.rule) {
    case node_rule::input: r.lowering = "bound argument (zero copy when contiguous)"; break;
    case node_rule::constant: r.lowering = "constant"; break;
    case node_rule::number: r.lowering = "number operand"; break;
    case node_rule::cast:
        r.op = "to_" + std::string(f.type);  // PyTorch's .float() / type_as: not a complex op
        r.lowering = f.same_type_cast ? "erased (same component type)" : "component conversion";
        break;
    case node_rule::erased: r.lowering = "erased"; break;
    case node_rule::zero_copy:
        r.lowering = f.is_complex ? "zero-copy view of the contiguous (…,2) memory" : "zero-copy view of the contiguous memory";
        break;
    case node_rule::fused:  // until fuse_elementwise decides the loops: each op its own loop
        r.fusion = fusion_mode::own_loop;
        r.lowering = "fused loop (compiled kernel of " + r.op + ")";
        break;
    case node_rule::table: r.lowering = std::string(f.table_entry); break;
    case node_rule::fallback: r.lowering = "std::complex fallback (graph break: this node only)"; break;
    case node_rule::tensor_op:
        r.lowering = f.shape == shape_rule::declared
                         ? "tensor-level user function writing the buffer the graph hands it (graph break: operands "
                           "materialised as tensors)"
                         : "tensor-level user function (graph break: operands materialised as tensors, result re-enters)";
        break;
    }
    return r;
}

/// Appends record r of the node with identity `id` (inputs are kept in
/// creation order: identities grow with creation); returns its slot.
inline std::size_t append_record(graph_ir& g, ir_node r, std::uint64_t id) {
    const std::size_t slot = g.nodes.size();
    if (r.is_input) {
        auto pos = std::find_if(g.inputs.begin(), g.inputs.end(), [&](std::size_t s) { return g.nodes[s].id > id; });
        g.inputs.insert(pos, slot);
    }
    r.id = id;
    r.canonical = slot;
    g.slot_of.emplace(id, slot);
    g.nodes.push_back(std::move(r));
    return slot;
}

template <class N>
std::string label_of(const N& n) {
    using Tr = traits_t<N>;
    constexpr node_rule rule = rule_of<N>();
    const std::string type = std::string(Tr::is_complex ? "complex " : "real ") + std::string(type_name<typename Tr::real_type>());
    if constexpr (rule == node_rule::input) {
        return n.name + " : " + type;
    } else if constexpr (rule == node_rule::constant) {
        return type;
    } else if constexpr (rule == node_rule::number) {
        std::ostringstream s;
        s << n.value;
        return s.str();
    } else if constexpr (rule == node_rule::cast) {
        return "";
    } else if constexpr (is_tensor_op_v<N>) {
        return "#" + std::to_string(n.id);  // its function is a run-time object: never merged by CSE
    } else if constexpr (is_custom_v<N>) {
        // a user op's reference is a run-time object: two nodes of the same tag may
        // compute different things, so they are never merged by CSE
        return format_attrs(tag_id_of<N>(), n.attrs) + "#" + std::to_string(n.id);
    } else {
        return format_attrs(tag_id_of<N>(), n.attrs);
    }
}

/// Adds n (and, first, its children) to the run-time mirror; a node shared
/// by several consumers is added once. The record points at n (constants'
/// values, user ops' references): n must outlive it. A fused node gets the
/// program of its own loop (its op alone over its operands); the
/// fuse_elementwise pass replaces it for the regions it forms.
template <bool Strict, class N>
std::size_t add_to_ir(graph_ir& g, const N& n) {
    if (auto it = g.slot_of.find(n.id); it != g.slot_of.end()) return it->second;
    static constexpr node_facts facts = facts_of<N>();
    ir_node r = make_record(facts, label_of(n));
    if constexpr (requires { n.children; }) {
        std::apply(
            [&](const auto&... c) {
                ((r.children.push_back(add_to_ir<Strict, std::remove_cvref_t<decltype(c)>>(g, c)),
                  is_boundary_v<N, std::remove_cvref_t<decltype(c)>> ? void(g.nodes[r.children.back()].boundary_input = true)
                                                                     : void()),
                 ...);
            },
            n.children);
    }
    if constexpr (requires { n.attrs; }) r.attrs = n.attrs;
    if constexpr (facts.rule == node_rule::input) r.value_type = &typeid(value_t<N>);
    if constexpr (facts.rule == node_rule::number) {
        if constexpr (is_std_complex<decltype(n.value)>::value) r.number = {double(n.value.real()), double(n.value.imag())};
        else r.number = static_cast<double>(n.value);
    }
    r.object = &n;
    r.evaluator = evaluator_of<Strict, N>();
    r.values = &typed_value_ops<typename traits_t<N>::real_type>::table;
    if constexpr (facts.shape == shape_rule::declared) r.declared_shape = declared_shape_of<N>();
    const std::size_t slot = append_record(g, std::move(r), n.id);
    if constexpr (facts.rule == node_rule::fused) set_loop_program(g, slot, false);
    return slot;
}

}  // namespace realify::graph::detail
