// Programs saved and loaded by the graph tests (test_graph_save.cpp) and the
// fuzzer (tests/fuzz: mutated saved programs must load or be refused with a
// realify::error, never crash).
#pragma once

#include <complex>
#include <sstream>
#include <string>

#include "realify/graph.hpp"
#include "realify/graph/save.hpp"

namespace realify::test {

/// RoPE as in examples/graph_rope.cpp: view_as_complex, a broadcast view, two
/// complex multiplies, view_as_real, flatten, type_as.
inline auto rope_program() {
    namespace graph = realify::graph;
    auto xq = graph::input<float>("xq");
    auto xk = graph::input<float>("xk");
    auto freqs_cis = graph::input<std::complex<float>>("freqs_cis");
    const graph::dim_list pairs = {graph::same(0), graph::same(1), graph::same(2), -1, 2};
    auto xq_ = graph::view_as_complex(graph::reshape(graph::to_float(xq), pairs));
    auto xk_ = graph::view_as_complex(graph::reshape(graph::to_float(xk), pairs));
    auto freqs = graph::view(freqs_cis, {1, graph::same(0), 1, graph::same(1)});
    auto xq_out = graph::flatten(graph::view_as_real(xq_ * freqs), 3);
    auto xk_out = graph::flatten(graph::view_as_real(xk_ * freqs), 3);
    return graph::lower(graph::type_as(xq_out, xq), graph::type_as(xk_out, xk));
}

/// The bytes of a saved program.
template <class P>
std::string saved(const P& program) {
    std::ostringstream out;
    program.save(out);
    return out.str();
}

}  // namespace realify::test
