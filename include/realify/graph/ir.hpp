// The run-time mirror of a typed graph: one record per distinct node
// (identities merged, so shared subexpressions appear once), in topological
// order. Passes read and annotate it; evaluation (graph/evaluate.hpp) follows
// the typed nodes and consults these records for canonical nodes (CSE),
// folded constants and fusion decisions.
#pragma once

#include <any>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "realify/version.hpp"

namespace realify::graph {

struct graph_ir;
struct eval_context;

/// One node of the graph as passes see it.
struct ir_node {
    std::uint64_t id = 0;
    std::string op;                    // op name (input, constant, scalar, cast<float>, mul, …)
    std::string label;                 // input name, attributes
    std::vector<std::size_t> children; // indices into graph_ir::nodes
    bool is_complex = false;
    bool is_input = false, is_constant = false, is_scalar = false;
    bool is_op = false;                // an op of the table or a user op (counts in coverage)
    bool erased = false;               // view_as_complex / view_as_real / same-type cast: no code at all
    bool zero_copy = false;            // shape op done by re-describing contiguous memory
    bool fusable = false;              // elementwise op the fused kernel can inline
    bool fallback = false;             // evaluated on std::complex (no lowering accepts it)
    std::string lowering;              // the dispatch table entry (or graph rule) it takes
    // detection (seed stage 1): the flags come from the node's type (graph/detect.hpp)
    bool anchor = false;               // a view_as_real
    bool in_complex_subgraph = false;  // complex value, or consumes one
    bool boundary_input = false;       // a node outside a complex subgraph feeding it
    int subgraph = -1;                 // merged complex subgraph it belongs to (detect_complex_subgraphs)
    bool fused_into_consumer = false;  // computed inside its consumer's loop
    // pass results
    std::size_t canonical = 0;         // CSE representative (itself when unique)
    bool live = true;                  // reachable from an output
    bool constant_only = false;        // depends on constants only
    bool folded = false;               // evaluated once at lower time
    bool output = false;
    std::size_t uses = 0;              // consumers among live nodes (+1 per output use)
    std::any folded_value;
    std::function<std::any(eval_context&)> evaluate;  // the typed evaluator of this node alone
};

/// The graph: nodes in topological order, outputs, inputs in creation order.
struct graph_ir {
    std::vector<ir_node> nodes;
    std::vector<std::size_t> outputs;
    std::vector<std::size_t> inputs;
    std::unordered_map<std::uint64_t, std::size_t> slot_of;
    std::vector<std::string> pass_log;  // which passes ran, in order
    std::string before;                 // the graph as built, printed before any pass

    std::size_t slot(std::uint64_t id) const { return slot_of.at(id); }
    const ir_node& resolve(std::size_t slot) const { return nodes[nodes[slot].canonical]; }
};

/// What evaluation threads through the typed nodes.
struct eval_context {
    const graph_ir* ir = nullptr;
    std::vector<std::any>* memo = nullptr;         // by canonical slot
    const std::vector<std::any>* inputs = nullptr;  // by position in graph_ir::inputs
};

}  // namespace realify::graph
