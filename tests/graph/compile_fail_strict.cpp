// Compile-fail test (run by ctest through check_compile_fail.cmake): in strict
// mode, a node no lowering accepts must not compile, and the first error line
// must name the op. Built with -DREALIFY_EXPECT_SUCCESS (the control) the same
// graph lowers in default mode and compiles: the failure is strict mode's, not
// a typo's.
#include <complex>

#include "realify/graph.hpp"

namespace my_ops {
/// A user op with no lowering in the table.
struct unlowered_cbrt {
    static constexpr std::string_view name = "unlowered_cbrt";
    static constexpr int arity = 1;
    static constexpr realify::op_kind kind = realify::op_kind::math;
};
}  // namespace my_ops

int main() {
    namespace graph = realify::graph;
    auto z = graph::input<std::complex<double>>("z");
    auto y = graph::exp(graph::custom<my_ops::unlowered_cbrt>([](std::complex<double> x) { return std::pow(x, 1.0 / 3); }, z));
#ifdef REALIFY_EXPECT_SUCCESS
    auto program = graph::lower(y);
#else
    auto program = graph::lower(graph::strict, y);
#endif
    xt::xarray<std::complex<double>> a = xt::ones<std::complex<double>>({2});
    return program(a).size() == 2 ? 0 : 1;
}
