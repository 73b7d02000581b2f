// Compile-fail test (run by ctest through check_compile_fail.cmake): a builder
// op that no lowering accepts for its operand kinds is refused at the builder
// call by ONE static_assert naming the op and the kinds; lowering and running
// the graph add no second error. REALIFY_CASE picks the op: 1 a unary op on
// an integer operand (no math lowering takes one), 2 a binary op on
// (complex, real), 3 an ordering comparison of a complex operand (PyTorch
// refuses it too), 4 graph::clamp of a complex node and 5 the eager
// realify::maximum of a complex tensor (refused as PyTorch refuses them). Built with
// -DREALIFY_EXPECT_SUCCESS (the control) the same graph with operands the
// table accepts compiles: the failure is the refusal, not a typo's.
#include <complex>

#include "realify/eager.hpp"
#include "realify/graph.hpp"

int main() {
    namespace graph = realify::graph;
    auto z = graph::input<std::complex<double>>("z");
    auto x = graph::input<double>("x");
    xt::xarray<std::complex<double>> a = xt::ones<std::complex<double>>({2, 2});
    xt::xarray<double> b = xt::ones<double>({2, 2});
#if REALIFY_CASE == 1
#ifdef REALIFY_EXPECT_SUCCESS
    auto y = graph::sqrt(x * z);
    return graph::lower(y)(b, a).size() == 4 ? 0 : 1;
#else
    auto k = graph::input<int>("k");
    auto y = graph::sqrt(k) * z;  // realify::graph::sqrt: no lowering accepts a real operand
    return graph::lower(y)(xt::xarray<int>(xt::ones<int>({2, 2})), a).size() == 4 ? 0 : 1;
#endif
#elif REALIFY_CASE == 2
#ifdef REALIFY_EXPECT_SUCCESS
    auto y = graph::mm(z, x * z);
#else
    auto y = graph::mm(z, x);  // realify::graph::mm: no lowering accepts operands (complex, real)
#endif
    return graph::lower(y)(a, b).size() == 4 ? 0 : 1;
#elif REALIFY_CASE == 3
#ifdef REALIFY_EXPECT_SUCCESS
    return graph::lower(graph::where(graph::abs(z) > 0.5, z, 0.0))(a).size() == 4 ? 0 : 1;
#else
    auto c = z > 0.5;  // realify::graph::gt (>): operands (complex, real number): …
    return c == 0 ? 0 : 1;
#endif
#elif REALIFY_CASE == 4
#ifdef REALIFY_EXPECT_SUCCESS
    return graph::lower(graph::clamp(graph::abs(z), 0.0, x))(a, b).size() == 4 ? 0 : 1;
#else
    auto c = graph::clamp(z, 0.0, x);  // realify::graph::clamp: complex values have no ordering (PyTorch refuses them too)
    return c == 0 ? 0 : 1;
#endif
#elif REALIFY_CASE == 5
#ifdef REALIFY_EXPECT_SUCCESS
    return realify::maximum(b, b).size() == 4 ? 0 : 1;
#else
    auto m = realify::maximum(a, b);  // realify::maximum: complex values have no ordering (PyTorch refuses them too)
    return m == 0 ? 0 : 1;
#endif
#endif
}
