// Compile test of deep graphs (run by ctest through check_compile_fail.cmake).
// Control (-DREALIFY_EXPECT_SUCCESS): a chain of 64 × (mul, exp, sub) — 192
// ops, 194 nodes deep — lowers, evaluates and explains under a template depth
// of 100 (ctest passes -ftemplate-depth=100): nothing instantiates a chain of
// templates as deep as the graph. Without it, REALIFY_GRAPH_MAX_DEPTH is 60
// and the same chain is refused by one static_assert naming the limit.
#ifndef REALIFY_EXPECT_SUCCESS
#define REALIFY_GRAPH_MAX_DEPTH 60
#endif
#include <string>

#include "realify/graph.hpp"

int main() {
    namespace graph = realify::graph;
    const auto step = [](auto n) { return graph::exp(n * 0.5f) - 1.0f; };
#define REALIFY_STEP4(n) step(step(step(step(n))))
#define REALIFY_STEP16(n) REALIFY_STEP4(REALIFY_STEP4(REALIFY_STEP4(REALIFY_STEP4(n))))
    auto x = graph::input<float>("x");
    auto deep = REALIFY_STEP16(REALIFY_STEP16(REALIFY_STEP16(REALIFY_STEP16(x))));
    static_assert(graph::detect<decltype(deep)>::op_nodes == 192);
    auto program = graph::lower(deep);
    xt::xtensor<float, 1> in = {0.25f, -1.0f};
    const xt::xarray<float> y = program(in);
    return y.size() == 2 && graph::explain(program).find("192 / 192") != std::string::npos ? 0 : 1;
}
