// Shared by the consumer projects: graph::explain() in a program linked with
// realify::core alone (realify_simd, no realify_gemm: explain() must not
// need the matrix products' library). Returns non-zero on a wrong result.
#include <cstdio>
#include <string>

#include <realify/graph.hpp>

int main() {
    namespace graph = realify::graph;
    auto x = graph::input<float>("x");
    auto program = graph::lower(graph::exp(x) * 2.0f - x);
    const std::string text = graph::explain(program);
    xt::xtensor<float, 1> in = {0.0f, 1.0f};
    const xt::xarray<float> y = program(in);
    const bool explained = text.find("fused loop") != std::string::npos && text.find("matrix products run on") == std::string::npos;
    const bool evaluated = y(0) == 2.0f && y(1) > 4.43f && y(1) < 4.44f;
    std::printf("realify::core: explain() %d, evaluation %d\n", explained, evaluated);
    if (!explained) std::fputs(text.c_str(), stdout);
    return explained && evaluated ? 0 : 1;
}
