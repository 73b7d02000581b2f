// Building the run-time mirror (graph/ir.hpp) of a typed graph: one record
// per node identity. Everything a record says is a compile-time fact of the
// node's type (node_facts, graph/detect.hpp); the record is filled from them
// by one plain function, so each node type costs a constant table and a
// short walk over its children, not a copy of the record-building code.
#pragma once

#include <array>
#include <complex>
#include <memory>
#include <vector>
#include <cstdint>
#include <optional>
#include <span>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "realify/graph/detect.hpp"
#include "realify/graph/evaluate.hpp"
#include "realify/graph/text.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/build_loop.hpp"
#include "realify/graph/rules.hpp"
#include "realify/graph/traits.hpp"

namespace realify::graph::detail {

std::string format_attrs(std::optional<op_id> tag, const node_attrs& a);

template <class T>
constexpr std::string_view type_name() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_same_v<T, bool>) return "bool";
    else if constexpr (std::is_same_v<T, std::int64_t>) return "i64";
    else return "other";
}

/// The name of a number's C++ type, as a saved program keys a number node
/// (graph/save.hpp): the evaluators read a number operand as its own type.
template <class S>
constexpr std::string_view number_type_name() {
    if constexpr (std::is_same_v<S, bool>) return "bool";
    else if constexpr (std::is_same_v<S, int>) return "int";
    else if constexpr (std::is_same_v<S, long>) return "long";
    else if constexpr (std::is_same_v<S, float>) return "float";
    else if constexpr (std::is_same_v<S, double>) return "double";
    else if constexpr (std::is_same_v<S, std::complex<float>>) return "c64";
    else if constexpr (std::is_same_v<S, std::complex<double>>) return "c128";
    else return "";  // a type saved programs do not know: refused by program::save
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
    bool fusable_reduction = false;
    // the code of the type
    evaluator_fn evaluator = nullptr;
    decltype(ir_node::declared_shape) declared_shape = nullptr;
    value_kind value = value_kind::none;  // the kind of the node's values (inputs: what an argument must bind to)
    bool integer_argument = false;        // inputs: a C++ integer (graph::int_input), not a tensor
    std::string_view number_type;         // numbers: the value's C++ type (number_type_name)
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
    f.fusable_reduction = fusable_reduction_v<N>;
    f.custom = is_custom_v<N>;
    if constexpr (rule_of<N>() == node_rule::cast) f.same_type_cast = re_described_v<N>;
    if constexpr (rule_of<N>() == node_rule::table) f.table_entry = table_of<N>::name();
    f.evaluator = evaluator_of<N>();
    if constexpr (shape_rule_of<N>() == shape_rule::declared) f.declared_shape = declared_shape_of<N>();
    f.value = value_kind_of<typename Tr::real_type>();
    if constexpr (rule_of<N>() == node_rule::number) f.number_type = number_type_name<decltype(N::value)>();
    if constexpr (rule_of<N>() == node_rule::input) {
        if constexpr (requires { N::integer_argument; }) f.integer_argument = N::integer_argument;
    }
    return f;
}

/// What a node's object adds to its type's facts.
struct node_object {
    std::uint64_t id = 0;
    const std::string* name = nullptr;  // inputs: the name given
    std::string_view label;             // numbers: the value as printed (the others' labels follow from the facts)
    const node_attrs* attrs = nullptr;  // op nodes: the attributes
    std::complex<double> number{};      // numbers: the value
    const void* object = nullptr;       // the typed node
};

/// The slot of the node with identity `id` when it is in g already.
std::optional<std::size_t> find_record(const graph_ir& g, std::uint64_t id);

/// Appends the record of a node from its type's facts and its object, its
/// children already added at `children` (those marked in `boundary` feed a
/// complex subgraph from outside); returns its slot. Inputs are kept in
/// creation order (identities grow with creation). A fused node gets the
/// program of its own loop (its op alone over its operands); the
/// fuse_elementwise pass replaces it for the regions it forms.
std::size_t add_record(graph_ir& g, const node_facts& facts, const node_object& x, std::span<const std::size_t> children,
                       std::span<const bool> boundary);

/// A number's label: its value, printed as its type prints.
template <class S>
std::string number_label(const S& value) {
    text s;
    s << value;
    return s.str();
}

/// Adds n (and, first, its children) to the run-time mirror; a node shared
/// by several consumers is added once. The record points at n (constants'
/// values, user ops' references): n must outlive it. What the node's type
/// decides is gathered here, at compile time; the record is built by
/// add_record (compiled once, in realify_simd). The children are added
/// through the pointers their constructors set (graph/node.hpp): this
/// function, one per node type, never instantiates its children's, so
/// lowering a graph instantiates no chain of templates as deep as the graph.
template <class N>
std::size_t add_node(graph_ir& g, const node_base& base) {
    const N& n = static_cast<const N&>(base);
    if (const auto slot = find_record(g, n.id)) return *slot;
    static constexpr node_facts facts = facts_of<N>();
    if constexpr (is_creation_v<N>) {  // its children: the integer nodes its shape reads
        std::vector<std::size_t> children;
        for (const integer_source& read : n.reads()) children.push_back(read.add_to(g));
        const std::vector<char> boundary(children.size(), 0);
        node_object x;
        x.id = n.id;
        x.object = &n;
        x.attrs = &n.attrs();
        return add_record(g, facts, x, children,
                          std::span<const bool>(reinterpret_cast<const bool*>(boundary.data()), boundary.size()));
    }
    using children_types = typename children_of<N>::type;
    std::array<std::size_t, children_types::size> children{};
    std::array<bool, children_types::size> boundary{};
    if constexpr (children_types::size > 0) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((children[I] = n.template child<I>().add_record(g, n.template child<I>()),
              boundary[I] = graph_facts<N>::boundary[I]),
             ...);
        }(std::make_index_sequence<children_types::size>{});
    }
    node_object x;
    x.id = n.id;
    x.object = &n;
    if constexpr (facts.rule == node_rule::input) x.name = &n.name();
    if constexpr (requires { n.attrs(); }) x.attrs = &n.attrs();
    if constexpr (facts.rule == node_rule::number) {
        if constexpr (is_std_complex<decltype(n.value)>::value) x.number = {double(n.value.real()), double(n.value.imag())};
        else x.number = static_cast<double>(n.value);
        const std::string label = number_label(n.value);
        x.label = label;
        return add_record(g, facts, x, children, boundary);
    } else {
        return add_record(g, facts, x, children, boundary);
    }
}

/// Adds an output node (and everything under it) to the run-time mirror.
inline std::size_t add_to_ir(graph_ir& g, const node_base& n) { return n.add_record(g, n); }

}  // namespace realify::graph::detail
