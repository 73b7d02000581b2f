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
/// After: n.subgraph is -1 exactly when !n.in_complex_subgraph; two complex
/// nodes joined by an edge have the same number; numbers are 0, 1, … in the
/// order of each subgraph's first node. Nothing else changes.
void detect_complex_subgraphs(graph_ir& g);

/// Complex inputs are read as zero-copy (…,2) views, complex constants
/// unpacked once. After: only the lowering text of complex inputs and
/// constants changes (what explain() says); values and edges do not.
void replace_complex_inputs(graph_ir& g);

/// Merges records that compute the same value: the same op (its id), the
/// same attributes, the same value kind and the same canonical operands,
/// found by a structural hash of those. Leaves (inputs, constants, numbers),
/// user ops and tensor_ops are never merged (their identity is their id).
/// Needs: records in topological order (operands before consumers).
/// After: n.canonical <= its slot, nodes[n.canonical].canonical ==
/// n.canonical, and two records have one canonical exactly when they are
/// structurally equal; nothing else changes (evaluation memoises by
/// canonical slot, so a merged record is computed once).
void eliminate_common_subexpressions(graph_ir& g);

/// Marks what the outputs need. Needs: canonical set (CSE), folded set.
/// After: n.live exactly for the canonical records reachable from an output
/// through unfolded records, and for every input (the signature); n.uses
/// counts a canonical record's live consumers plus one per output it is;
/// n.output marks the outputs' canonical records. Records are never erased
/// (slots stay valid); a dead one is just never evaluated.
void remove_dead_nodes(graph_ir& g);

/// Evaluates, once, the constant-only records a non-constant record (or an
/// output) reads. Needs: canonical set (CSE). After: n.constant_only exactly
/// when n is a constant or a number, or an op with operands that all are
/// constant-only (an op without operands is not); n.folded (with
/// folded_value and folded_shape set) exactly for the canonical,
/// constant-only, non-number records with an evaluator that are read from
/// outside the constant part; evaluation then reuses folded_value and never
/// visits below it.
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
/// Needs: canonical, live and folded set. After: every live, canonical,
/// unfolded fusable record is a loop root (own_loop or region, with its
/// loop and loop_operands) or inlined in exactly one root's region; no other
/// record has a fusion mode; a root reads at most engine::max_inputs values.
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
