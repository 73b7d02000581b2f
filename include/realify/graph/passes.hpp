// The pass pipeline over graph_ir (as Torch-TensorRT's lowering passes):
// ordered, and a user pass can be inserted at a given position, like
// `@_aten_lowering_pass(index=N)`.
//
// Standard order:
//   0 detect_complex_subgraphs   the type-level detection (anchors, subgraph
//                                nodes, boundary inputs: graph/detect.hpp)
//                                grouped: subgraphs sharing nodes merged
//   1 replace_complex_inputs     complex inputs become zero-copy (…,2) views,
//                                complex constants are unpacked once
//   2 eliminate_common_subexpressions
//   3 fold_constants             constant-only subgraphs evaluated once, now
//   4 remove_dead_nodes          unreachable nodes dropped, uses counted
//   5 fuse_elementwise           the loops: which elementwise nodes form one
//                                loop (a region), which run alone, and which
//                                loops may take the SIMD row kernel — decided
//                                here, once, each loop's steps built;
//                                evaluation follows the records
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "realify/graph/ir.hpp"

namespace realify::graph {

struct pass {
    std::string name;
    std::function<void(graph_ir&)> run;
};

namespace passes {

/// Detection itself is done by the types (graph/detect.hpp): each record
/// arrives with anchor / in_complex_subgraph / boundary_input set. What needs
/// node identity is done here: subgraphs that share a node (xq_out and xk_out
/// both reading freqs_cis) are merged into one, numbered in graph order — the
/// connected components of the complex nodes, which is what walking back from
/// every anchor, and from every complex node no anchor reaches, finds.
void detect_complex_subgraphs(graph_ir& g);

void replace_complex_inputs(graph_ir& g);

void eliminate_common_subexpressions(graph_ir& g);

void remove_dead_nodes(graph_ir& g);

void fold_constants(graph_ir& g);

/// Decides every loop once: a live elementwise node no other loop inlines is
/// a loop root; it inlines the elementwise descendants private to it (a
/// shared one is read as a value, computed by its own loop) when the whole
/// fits one fused loop (at most engine::max_inputs distinct values read),
/// else it runs alone over its operands' values (own_loop) and its
/// elementwise children become roots of their own. Each root's record holds
/// its program (graph/build_loop.hpp). A lone complex × complex multiply
/// of two tensors may take the SIMD row kernel. Evaluation reads these
/// records; explain() prints them.
void fuse_elementwise(graph_ir& g);

}  // namespace passes

/// An ordered list of passes; lower() runs them in order.
class pipeline {
public:
    /// The standard passes (see the header comment).
    static pipeline standard();
    /// Inserts a pass before position `index` (0 = first; size() = last).
    pipeline& insert(std::size_t index, pass p);
    pipeline& append(pass p);
    /// Index of the pass named `name` (throws realify::error if absent).
    std::size_t index_of(const std::string& name) const;
    std::vector<std::string> names() const;
    void run(graph_ir& g) const;
    std::size_t size() const { return m_passes.size(); }

private:
    std::vector<pass> m_passes;
};

}  // namespace realify::graph
