// Compile-fail test (run by ctest through check_compile_fail.cmake): a graph
// that cannot be lowered is refused where the user wrote it, by ONE
// static_assert naming the op, the operand kinds and the nearest spelling
// that works; lowering and running the graph add no second error.
// REALIFY_CASE picks the misuse: 1 a bool operand of a matrix product, 2 a
// binary op on (complex, real), 3 an ordering comparison of a complex operand
// (PyTorch refuses it too), 4 a complex number as the operand of a unary op,
// 5–7 graph::input of an element type the graph does not take (int, bool,
// half), refused at the input; 8 (built with -Werror=deprecated-declarations)
// the deprecated second spelling of a sum over dims, graph::sum_dim, whose
// warning names the one to use; 9 graph::clamp of a complex node and 10 the
// eager realify::maximum of a complex tensor (refused as PyTorch refuses
// them). Built with -DREALIFY_EXPECT_SUCCESS (the
// control) the graph spelled as the message says compiles: the failure is the
// refusal, not a typo's.
#include <complex>
#include <cstdint>

#include "realify/eager.hpp"
#include "realify/graph.hpp"

int main() {
    namespace graph = realify::graph;
    auto z = graph::input<std::complex<double>>("z");
    auto x = graph::input<double>("x");
    xt::xarray<std::complex<double>> a = xt::ones<std::complex<double>>({2, 2});
    xt::xarray<double> b = xt::ones<double>({2, 2});
    const std::complex<double> c(0.5, 1.0);
#if REALIFY_CASE == 1
#ifdef REALIFY_EXPECT_SUCCESS
    auto y = graph::mm(graph::to<double>(x > 0.5), x);
#else
    auto y = graph::mm(x > 0.5, x);  // realify::graph::mm: no lowering accepts a bool operand …
#endif
    return graph::lower(y)(b).size() == 4 ? 0 : 1;
#elif REALIFY_CASE == 2
#ifdef REALIFY_EXPECT_SUCCESS
    auto y = graph::mm(z, graph::to<std::complex<double>>(x));
#else
    auto y = graph::mm(z, x);  // realify::graph::mm: no lowering accepts operands (complex, real): …
#endif
    return graph::lower(y)(a, b).size() == 4 ? 0 : 1;
#elif REALIFY_CASE == 3
#ifdef REALIFY_EXPECT_SUCCESS
    return graph::lower(graph::where(graph::abs(z) > 0.5, z, 0.0))(a).size() == 4 ? 0 : 1;
#else
    auto ordered = z > 0.5;  // realify::graph::gt (>): operands (complex, real number): …
    return ordered == 0 ? 0 : 1;
#endif
#elif REALIFY_CASE == 4
#ifdef REALIFY_EXPECT_SUCCESS
    auto y = graph::constant(std::exp(c)) * z + graph::exp(graph::scalar_tensor(c));
#else
    auto y = graph::exp(graph::constant(c)) * z;  // realify::graph::exp: no lowering accepts a complex number: …
#endif
    return graph::lower(y)(a).size() == 4 ? 0 : 1;
#elif REALIFY_CASE == 8
#ifdef REALIFY_EXPECT_SUCCESS
    auto y = graph::sum(z, {0}, false) + graph::mean(x, {-1}, false);
#else
    auto y = graph::sum_dim(z, {0}) + graph::mean_dim(x, {-1});  // deprecated: use graph::sum(x, dims, keepdim)
#endif
    return graph::lower(y)(a, b).size() == 2 ? 0 : 1;
#elif REALIFY_CASE == 9
#ifdef REALIFY_EXPECT_SUCCESS
    return graph::lower(graph::clamp(graph::abs(z), 0.0, x))(a, b).size() == 4 ? 0 : 1;
#else
    auto clamped = graph::clamp(z, 0.0, x);  // realify::graph::clamp: complex values have no ordering (PyTorch refuses them too)
    return clamped == 0 ? 0 : 1;
#endif
#elif REALIFY_CASE == 10
#ifdef REALIFY_EXPECT_SUCCESS
    return realify::maximum(b, b).size() == 4 ? 0 : 1;
#else
    auto m = realify::maximum(a, b);  // realify::maximum: complex values have no ordering (PyTorch refuses them too)
    return m == 0 ? 0 : 1;
#endif
#elif REALIFY_CASE >= 5
#if REALIFY_CASE == 5
    using E = std::int8_t;
#elif REALIFY_CASE == 6
    using E = std::uint16_t;
#else
    using E = _Float16;
#endif
#ifdef REALIFY_EXPECT_SUCCESS
    auto k = graph::input<float>("k");  // converted before it enters the graph
    const xt::xarray<float> values = xt::cast<float>(xt::xarray<E>(xt::ones<E>({2, 2})));
#else
    auto k = graph::input<E>("k");  // realify::graph::input<T>: T must be float, double, …
    const xt::xarray<E> values = xt::ones<E>({2, 2});
#endif
    auto y = graph::exp(k) * z + graph::sqrt(k);
    return graph::lower(y)(values, a).size() == 4 ? 0 : 1;
#endif
}
