// The run-time mirror of a typed graph: one record per distinct node
// (identities merged, so shared subexpressions appear once), in topological
// order. Passes read and annotate it; evaluation walks the records: each
// canonical record's evaluator — a plain function chosen from the node's
// type (graph/evaluate.hpp), compiled per op and operand kinds rather than
// per node — reads its children's values by slot (value_at,
// graph/value.hpp). The fusion decisions
// (fusion_mode) are taken once, by fuse_elementwise; evaluation follows them
// and explain() prints the same records, so it shows what evaluation does.
// Shapes that follow from the inputs are inferred on the records alone
// (graph/infer_shapes.hpp).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "realify/engine/fused_loop.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/tensor_value.hpp"
#include "realify/version.hpp"

namespace realify::graph {

struct graph_ir;
struct eval_context;
struct ir_node;
struct buffer_layout;

/// A node's evaluator: its value (a tensor_value in a graph_value), computed
/// from its children's values; loops write `target` when given (the caller's
/// buffer, graph/write_outputs.hpp) and return a value describing it.
using evaluator_fn = graph_value (*)(const ir_node& self, eval_context& ctx, const buffer_layout* target);

/// How a node is evaluated, decided by its type (graph/rules.hpp).
enum class node_rule : unsigned char {
    input,      // a bound argument (zero copy: read where it lies, any layout)
    constant,   // unpacked to (…,2) once, at lower time
    number,     // a scalar operand
    cast,       // component conversion (.float(), type_as); erased when the type is the same
    erased,     // view_as_complex / view_as_real: re-described, no code
    zero_copy,  // a view: the same memory, another shape and strides (graph/zero_copy.hpp)
    fused,      // elementwise: part of one loop (a fused loop of compiled kernels)
    table,      // realify::dispatch::call<Tag>
    fallback,   // no lowering accepts it: evaluated on std::complex (a graph break)
    tensor_op,  // a tensor-level user function on whole tensors (a graph break, graph/tensor_op.hpp)
    kernel,     // an op of realify's compiled kernels writing its result through any strides
                // (rope, attention, linear, triu/tril, the creation ops, sizes: graph/kernel_ops.hpp)
};

/// How a node's shape follows from its first child's (or its children's),
/// when it does before anything is evaluated.
enum class shape_rule : unsigned char {
    unknown,          // known once evaluated (table ops, fallbacks, unfolded constants)
    input,            // the bound argument's
    number,           // rank 0
    same_as_child,    // casts, alias, detach, clone; cumsum, flip, roll, softmax, the norms
    view_as_complex,  // the child's without its trailing 2
    view_as_real,     // the child's with a trailing 2
    reshape,          // reshape / view / unsafe_view (−1, same(k))
    flatten,
    unsqueeze,
    squeeze_dim,
    squeeze_dims,
    squeeze_all,
    strided_view,     // permute, transpose, t, select, getitem, narrow, slice, expand, a split piece
    broadcast,        // fused elementwise ops: the children's broadcast
    reduce_dims,      // sum / mean over dims (all when none), keepdim or not
    reduce_dim,       // prod over one dim, keepdim or not
    declared,         // a tensor_op's declared shape (ir_node::declared_shape)
    kernel,           // a kernel op's (graph/kernel_ops.hpp: from its operands' shapes and integer values)
};

/// The fusion decision of an elementwise node (rule fused), taken by the
/// fuse_elementwise pass; evaluation follows it.
enum class fusion_mode : unsigned char {
    none,      // not an elementwise node of the fused loop
    own_loop,  // one loop for this op alone, its operands evaluated first
    region,    // one loop for this op and every elementwise node it inlines
    inlined,   // computed inside its consumer's loop (a step of a region's program)
    reduced,   // a reduction running its operand's loop: the loop's blocks reduced as they are made
};

/// One node of the graph as passes see it.
struct ir_node {
    std::uint64_t id = 0;
    std::optional<op_id> tag;          // which op of the table (none: inputs, numbers, casts, user ops);
                                       // passes tell ops apart by it, never by the name
    std::string op;                    // the name explain() prints (input, constant, to_f32, mul, a user op's, …)
    std::string label;                 // input name, attributes
    std::string entry_point;           // "graph::" + op: how errors name the node's op
    std::vector<std::size_t> children; // indices into graph_ir::nodes
    node_rule rule = node_rule::table;
    shape_rule shape = shape_rule::unknown;
    node_attrs attrs;                  // the typed node's attributes (dims, ints, scalar)
    bool is_complex = false;
    bool is_input = false, is_constant = false, is_scalar = false;
    bool is_op = false;                // an op of the table or a user op (counts in coverage)
    bool custom = false;               // a user op (graph::custom): its function is a run-time object
    bool erased = false;               // view_as_complex / view_as_real / same-type cast: no code at all
    bool zero_copy = false;            // a view: shape op done by re-describing memory (graph/zero_copy.hpp)
    bool fusable = false;              // elementwise op the fused kernel can inline
    bool fallback = false;             // evaluated on std::complex (no lowering accepts it)
    bool simd_mul = false;             // complex × complex mul of two tensors: may take the SIMD row kernel
    bool fusable_reduction = false;    // sum, mean, amax, amin, var, std_dev of the table's own entry: may reduce its operand's loop
    std::size_t component_bytes = 0;   // sizeof of the value's component type
    std::complex<double> number{};     // numbers: the value
    value_kind value = value_kind::none;  // the kind of its values (inputs: what an argument must bind to)
    bool integer_argument = false;        // inputs: a C++ integer (graph::int_input), not a tensor
    std::string_view number_type;         // numbers: the value's C++ type (graph/save.hpp keys it)
    std::string lowering;              // the dispatch table entry (or graph rule) it takes
    // detection (graph/detect.hpp): the flags come from the node's type
    bool anchor = false;               // a view_as_real
    bool in_complex_subgraph = false;  // complex value, or consumes one
    bool boundary_input = false;       // a node outside a complex subgraph feeding it
    int subgraph = -1;                 // merged complex subgraph it belongs to (detect_complex_subgraphs)
    std::size_t input_position = 0;    // inputs: position among the program's arguments
    // pass results
    std::size_t canonical = 0;         // CSE representative (itself when unique)
    bool live = true;                  // reachable from an output
    bool constant_only = false;        // depends on constants only
    bool folded = false;               // evaluated once at lower time
    bool output = false;
    std::size_t uses = 0;              // consumers among live nodes (+1 per output use)
    graph_value folded_value;
    shape_vector folded_shape;
    // fusion (fuse_elementwise); evaluation follows these
    fusion_mode fusion = fusion_mode::none;
    std::vector<std::size_t> loop_operands;  // loop roots (and reduced): the values the loop reads (its program's inputs), in order
    std::shared_ptr<const engine::fused_loop> loop;  // loop roots (and reduced): the loop's steps (graph/build_loop.hpp)
    bool simd_rows = false;            // the loop is a lone complex × complex mul: SIMD row kernel when the layout fits
    // evaluation
    const void* object = nullptr;           // the typed node (constants' values, user ops' references, attributes)
    evaluator_fn evaluator = nullptr;       // the node's rule (fused nodes: the loop its record holds)
    /// shape rule declared: the shape from the children's (a tensor_op writing a buffer the graph hands it)
    shape_vector (*declared_shape)(const ir_node& self, const std::vector<shape_vector>& children) = nullptr;

    bool has_evaluator() const noexcept { return evaluator != nullptr; }
    /// The node's value, its children's values taken from ctx (value_at, graph/value.hpp).
    graph_value evaluate(eval_context& ctx) const { return evaluator(*this, ctx, nullptr); }
};

/// The graph: nodes in topological order, outputs, inputs in creation order.
struct graph_ir {
    std::vector<ir_node> nodes;
    std::vector<std::size_t> outputs;
    std::vector<std::size_t> inputs;
    std::vector<std::vector<std::size_t>> reads;  // per output: the input positions its evaluation reads (program)
    std::unordered_map<std::uint64_t, std::size_t> slot_of;
    std::vector<std::string> pass_log;  // which passes ran, in order
    std::string before;                 // the graph as built, printed before any pass

    std::size_t slot(std::uint64_t id) const { return slot_of.at(id); }
    const ir_node& resolve(std::size_t slot) const { return nodes[nodes[slot].canonical]; }
    /// A node evaluation writes its own memory for: its own canonical, unfolded
    /// record, read by one consumer (or one output) only.
    bool is_private(std::size_t slot) const {
        const ir_node& n = nodes[slot];
        return n.canonical == slot && !n.folded && n.uses <= 1;
    }
};

/// A bound argument: its value (a tensor_value, graph/value.hpp) and what
/// planning needs without knowing its type.
struct bound_input {
    graph_value value;
    shape_vector shape;              // logical shape (complex shape for complex inputs)
    const void* data = nullptr;      // first component
    std::uintptr_t begin = 0, end = 0;  // the bytes its elements lie in: [begin, end)
    bool packed = false;             // row-major contiguous
    bool complex = false;
    bool borrowed = false;           // the caller's memory (zero copy), not a private copy
    bool integer_argument = false;   // a C++ integer (for a graph::int_input), not a tensor
};

/// What evaluation threads through the typed nodes.
struct eval_context {
    const graph_ir* ir = nullptr;
    std::vector<graph_value>* memo = nullptr;               // by canonical slot
    const std::vector<bound_input>* inputs = nullptr;     // by position in graph_ir::inputs
    const std::vector<std::optional<shape_vector>>* shapes = nullptr;  // known before evaluation, by slot (infer_shapes)
};

}  // namespace realify::graph
