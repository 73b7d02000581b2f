// realify::graph::explain(program): what lowering did, as text — the graph
// before and after the passes, the lowering each node took, the fallbacks
// and tensor-level user functions (graph breaks), what runs on several
// threads, the coverage n_supported / n_total, and for a graph with matrix
// products the library they run on (realify::simd::gemm_backend()).
#pragma once

#include <cstddef>
#include <sstream>
#include <string>

#include "realify/graph/detect.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/program.hpp"
#include "realify/simd/gemm.hpp"
#include "realify/threads.hpp"

namespace realify::graph {

/// Coverage of a lowered graph: op nodes lowered by the table or the graph's
/// own rules (n_supported) among all op nodes (n_total); fallbacks are the rest.
struct coverage_info {
    std::size_t n_supported = 0;
    std::size_t n_total = 0;
    std::size_t n_fallbacks = 0;
    std::size_t n_tensor_ops = 0;  // tensor-level user functions (graph::tensor_op): neither lowered nor fallbacks
};

inline coverage_info coverage(const graph_ir& g) {
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

template <bool Strict, class... Outs>
coverage_info coverage(const program<Strict, Outs...>& p) {
    return coverage(p.ir());
}

template <bool Strict, class... Outs>
std::string explain(const program<Strict, Outs...>& p) {
    const graph_ir& g = p.ir();
    std::ostringstream s;
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
    using detected = detect<Outs...>;
    s << "detected from the types (per use): " << detected::anchors << " anchors, " << detected::complex_nodes
      << " complex-subgraph nodes, " << detected::boundary_inputs << " boundary inputs, "
      << detected::unanchored_complex_outputs << " complex outputs without an anchor\n";
    s << "complex subgraphs after merging shared nodes: " << subgraphs << " (anchors: " << anchors
      << ", boundary inputs: " << boundary << ")\n";
    s << "graph after rewriting:\n" << program<Strict, Outs...>::describe(g, true);
    std::size_t erased = 0, dead = 0, folded = 0, fused = 0, shared = 0;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const ir_node& n = g.nodes[i];
        erased += n.erased ? 1 : 0;
        dead += (!n.live && n.canonical == i) ? 1 : 0;
        shared += n.canonical != i ? 1 : 0;
        folded += n.folded ? 1 : 0;
        fused += n.fusion == fusion_mode::inlined ? 1 : 0;
    }
    s << "erased: " << erased << ", dead nodes dropped: " << dead << ", common subexpressions merged: " << shared
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
    s << "threads: up to " << get_num_threads() << " (realify::get_num_threads()) for fused loops and the SIMD row route of "
      << 2 * grain::elementwise << " elements or more, reductions reading " << 2 * grain::reduction
      << " or more, matrix products of " << 2 * grain::gemm
      << " multiply-adds or more; the same results on any number of threads\n";
    s << "coverage: " << c.n_supported << " / " << c.n_total << " op nodes lowered\n";
    for (const ir_node& n : g.nodes)
        if (n.is_op && n.live &&
            (n.tag == op_id::mm || n.tag == op_id::bmm || n.tag == op_id::matmul || n.tag == op_id::dot || n.tag == op_id::vdot)) {
            s << "matrix products run on: " << simd::gemm_backend() << '\n';
            break;
        }
    return s.str();
}

}  // namespace realify::graph
