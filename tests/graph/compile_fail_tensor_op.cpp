// Compile-fail test (run by ctest through check_compile_fail.cmake): a
// tensor-level user op whose function returns another element type than the
// declared Result is one static_assert, and the first error line names the
// node ("In instantiation of 'struct realify::graph::tensor_op_error<…
// {"rms_norm"}, …, float, …>'", the static_assert's message right below).
// Built with -DREALIFY_EXPECT_SUCCESS (the control) the declared type is the
// returned one and it compiles.
#include <xtensor/xmath.hpp>

#include "realify/graph.hpp"

int main() {
    namespace graph = realify::graph;
    auto x = graph::input<float>("x");
#ifdef REALIFY_EXPECT_SUCCESS
    using declared = double;
#else
    using declared = float;
#endif
    // the function computes in double: its result is xt::xarray<double>
    auto y = graph::tensor_op<"rms_norm", declared>(
        [](const auto& v) { return xt::xarray<double>(xt::cast<double>(v) * 2.0); }, x);
    auto program = graph::lower(y);
    xt::xarray<float> a = xt::ones<float>({2});
    return program(a).size() == 2 ? 0 : 1;
}
