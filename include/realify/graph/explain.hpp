// realify::graph::explain(program): what lowering did, as text — the graph
// before and after the passes, the lowering each node took, the fallbacks
// and tensor-level user functions (graph breaks), what runs on several
// threads, the coverage n_supported / n_total, and for a graph with matrix
// products what they run on (the report realify_gemm registers,
// realify/simd/gemm_report.hpp: explain() links with realify::core alone).
#pragma once

#include <cstddef>
#include <string>

#include "realify/graph/detect.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/program.hpp"

namespace realify::graph {

/// Coverage of a lowered graph: op nodes lowered by the table or the graph's
/// own rules (n_supported) among all op nodes (n_total); fallbacks are the rest.
struct coverage_info {
    std::size_t n_supported = 0;
    std::size_t n_total = 0;
    std::size_t n_fallbacks = 0;
    std::size_t n_tensor_ops = 0;  // tensor-level user functions (graph::tensor_op): neither lowered nor fallbacks
};

coverage_info coverage(const graph_ir& g);

template <bool Strict, class... Outs>
coverage_info coverage(const program<Strict, Outs...>& p) {
    return coverage(p.ir());
}

namespace detail {

/// The detection counts of the output types (graph/detect.hpp), per use.
struct detected_counts {
    std::size_t anchors = 0, complex_nodes = 0, boundary_inputs = 0, unanchored_complex_outputs = 0;
};

/// explain()'s text.
std::string explain(const graph_ir& g, const detected_counts& detected);
}  // namespace detail

template <bool Strict, class... Outs>
std::string explain(const program<Strict, Outs...>& p) {
    using detected = detect<Outs...>;
    return detail::explain(p.ir(),
                           {detected::anchors, detected::complex_nodes, detected::boundary_inputs,
                            detected::unanchored_complex_outputs});
}

}  // namespace realify::graph
