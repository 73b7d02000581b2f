// realify/graph/explain.hpp: the text explain() returns — the records as
// the passes left them (op, label, lowering, fusion, shapes), the detection
// counts and the coverage. Printed from the same records evaluation follows,
// so what it says is what runs.
#include "realify/graph/explain.hpp"

#include "realify/graph/text.hpp"
#include "realify/simd/gemm_report.hpp"
#include "realify/threads.hpp"

namespace realify::graph {

coverage_info coverage(const graph_ir& g) {
    coverage_info c;
    for (const ir_node& n : g.nodes) {
        if (!n.is_op) continue;
        ++c.n_total;
        if (n.fallback) ++c.n_fallbacks;
        else if (n.rule == node_rule::tensor_op) ++c.n_tensor_ops;
        else ++c.n_supported;
    }
    return c;
}

namespace detail {

namespace {
/// Whether a live node is a matrix product (einsum's contractions are).
bool has_matrix_products(const graph_ir& g) {
    for (const ir_node& n : g.nodes)
        if (n.is_op && n.live &&
            (n.tag == op_id::mm || n.tag == op_id::bmm || n.tag == op_id::matmul || n.tag == op_id::dot || n.tag == op_id::vdot ||
             n.tag == op_id::einsum || n.tag == op_id::linear))
            return true;
    return false;
}
}  // namespace

std::string explain(const graph_ir& g, const detected_counts& detected) {
    text s;
    s << "graph before rewriting (" << g.nodes.size() << " nodes):\n" << g.before;
    s << "passes:";
    for (const std::string& name : g.pass_log) s << ' ' << name;
    s << '\n';
    std::size_t anchors = 0, boundary = 0;
    int subgraphs = 0;
    for (const ir_node& n : g.nodes) {
        anchors += n.anchor ? 1 : 0;
        boundary += n.boundary_input ? 1 : 0;
        subgraphs = n.subgraph + 1 > subgraphs ? n.subgraph + 1 : subgraphs;
    }
    s << "detected from the types (per use): " << detected.anchors << " anchors, " << detected.complex_nodes
      << " complex-subgraph nodes, " << detected.boundary_inputs << " boundary inputs, "
      << detected.unanchored_complex_outputs << " complex outputs without an anchor\n";
    s << "complex subgraphs after merging shared nodes: " << subgraphs << " (anchors: " << anchors
      << ", boundary inputs: " << boundary << ")\n";
    s << "graph after rewriting:\n" << describe_graph(g, true);
    std::size_t erased = 0, views = 0, dead = 0, folded = 0, fused = 0, shared = 0;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const ir_node& n = g.nodes[i];
        erased += n.erased ? 1 : 0;
        views += n.zero_copy && n.live && n.canonical == i && !n.folded ? 1 : 0;
        dead += (!n.live && n.canonical == i) ? 1 : 0;
        shared += n.canonical != i ? 1 : 0;
        folded += n.folded ? 1 : 0;
        fused += n.fusion == fusion_mode::inlined ? 1 : 0;
    }
    s << "erased: " << erased << ", views (no copy unless a reshape's strides refuse): " << views
      << ", dead nodes dropped: " << dead << ", common subexpressions merged: " << shared
      << ", folded: " << folded << ", fused into a consumer's loop: " << fused << '\n';
    const coverage_info c = coverage(g);
    s << "fallbacks (evaluated on std::complex):";
    if (c.n_fallbacks == 0) s << " none";
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].fallback) s << " %" << i << '=' << g.nodes[i].op;
    s << '\n';
    s << "tensor-level user functions (graph breaks):";
    if (c.n_tensor_ops == 0) s << " none";
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].rule == node_rule::tensor_op && g.nodes[i].live && g.nodes[i].canonical == i) s << " %" << i << '=' << g.nodes[i].op;
    s << '\n';
    s << "threads: up to " << get_num_threads() << " (realify::get_num_threads()) for fused loops of "
      << 2 * grain::elementwise << " units of work or more (an element costs its steps' costs, docs/parallel.md),"
      << " the SIMD row route of " << 2 * grain::elementwise << " elements or more, reductions reading " << 2 * grain::reduction
      << " or more, matrix products of " << 2 * grain::gemm
      << " multiply-adds or more; the same results on any number of threads\n";
    s << "coverage: " << c.n_supported << " / " << c.n_total << " op nodes lowered\n";
    if (has_matrix_products(g))
        if (const std::string backend = simd::gemm_report(); !backend.empty()) s << "matrix products run on: " << backend << '\n';
    return s.str();
}

}  // namespace detail
}  // namespace realify::graph
