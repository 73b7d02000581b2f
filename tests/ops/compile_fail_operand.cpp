// Compile-fail test of the eager API's operands (run by ctest through
// tests/graph/check_compile_fail.cmake with ONE_ERROR): each REALIFY_CASE is
// refused by ONE static_assert, and the code that uses the refused call's
// result raises no second error. 1 a container that is no tensor realify
// reads (std::list): the message says how to adapt it; 2 a std::vector of
// ints, likewise; 3 operands no lowering accepts (a complex × real matrix
// product, which PyTorch refuses too). With -DREALIFY_EXPECT_SUCCESS the same
// code, spelled as the messages say, compiles.
#include <complex>
#include <list>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/eager.hpp"

int main() {
    using C = std::complex<float>;
    const std::list<C> list = {{1, 2}, {3, 4}};
    const std::vector<int> ints = {1, 2};
    const std::vector<C> v = {{1, 2}, {3, 4}};
    xt::xtensor<std::complex<double>, 2> z = xt::ones<std::complex<double>>({2, 2});
    xt::xtensor<double, 2> r = xt::ones<double>({2, 2});
#if REALIFY_CASE == 1
#ifdef REALIFY_EXPECT_SUCCESS
    const std::vector<C> contiguous(list.begin(), list.end());
    auto y = realify::exp(xt::adapt(contiguous.data(), contiguous.size(), xt::no_ownership()));
#else
    auto y = realify::exp(list);  // realify: an argument of the type in unreadable_operand<…> above is not a tensor …
#endif
    return y(0).real() > 0 && y.size() == 2 ? 0 : 1;
#elif REALIFY_CASE == 2
#ifdef REALIFY_EXPECT_SUCCESS
    auto y = realify::mul(xt::adapt(ints.data(), ints.size(), xt::no_ownership()), v);
#else
    auto y = realify::mul(ints, v);
#endif
    return y(1).imag() > 0 ? 0 : 1;
#elif REALIFY_CASE == 3
#ifdef REALIFY_EXPECT_SUCCESS
    auto y = realify::mm(z, realify::to<std::complex<double>>(r));
#else
    auto y = realify::mm(z, r);  // realify: no lowering of this op accepts these operand types …
#endif
    return y(0, 0).real() > 0 && y.shape()[1] == 2 ? 0 : 1;
#endif
}
