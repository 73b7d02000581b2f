// Small lowered graphs for tools/compile_cost.py: REALIFY_GRAPHS of them
// (1 … 10) in one translation unit, so the cost of each additional graph is
// (time with 10 − time with 1) / 9. Each is a different small complex
// computation of the kind a user lowers: elementwise chains, a shape op, a
// reduction, a real output.
#include <complex>

#include <xtensor/xtensor.hpp>

#include "realify/graph.hpp"

#ifndef REALIFY_GRAPHS
#define REALIFY_GRAPHS 10
#endif

namespace graph = realify::graph;
using C = std::complex<float>;

template <class Program, class... Args>
int run(const Program& program, const Args&... args) {
    return static_cast<int>(program(args...).size());
}

int main() {
    const xt::xtensor<C, 2> a = xt::ones<C>({4, 8}), b = xt::ones<C>({4, 8});
    auto x = graph::input<C>("x");
    auto y = graph::input<C>("y");
    int total = 0;
    total += run(graph::lower(graph::exp(x) * y + x), a, b);
#if REALIFY_GRAPHS >= 2
    total += run(graph::lower(graph::view_as_real(x * graph::conj(y))), a, b);
#endif
#if REALIFY_GRAPHS >= 3
    total += run(graph::lower(graph::abs(x - y)), a, b);
#endif
#if REALIFY_GRAPHS >= 4
    total += run(graph::lower(graph::sqrt(x) / y), a, b);
#endif
#if REALIFY_GRAPHS >= 5
    total += run(graph::lower(graph::permute(x * y, {1, 0})), a, b);
#endif
#if REALIFY_GRAPHS >= 6
    total += run(graph::lower(graph::sum(graph::log(x), {1})), a, b);
#endif
#if REALIFY_GRAPHS >= 7
    total += run(graph::lower(graph::sin(x) * graph::cos(y)), a, b);
#endif
#if REALIFY_GRAPHS >= 8
    total += run(graph::lower(graph::reshape(x + y, {-1})), a, b);
#endif
#if REALIFY_GRAPHS >= 9
    total += run(graph::lower(graph::tanh(x * 2.0f) - y), a, b);
#endif
#if REALIFY_GRAPHS >= 10
    total += run(graph::lower(graph::angle(x) + graph::real(y)), a, b);
#endif
    return total > 0 ? 0 : 1;
}
