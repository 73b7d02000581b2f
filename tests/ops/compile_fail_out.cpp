// Compile-fail test of out= (run by ctest through check_static_assert.cmake):
// each REALIFY_CASE is a buffer that cannot take the result, refused by one
// static_assert whose message the script checks. With
// -DREALIFY_EXPECT_SUCCESS the same calls with fitting buffers compile.
#include <complex>

#include <xtensor/xtensor.hpp>

#include "realify/eager.hpp"

int main() {
    using C = std::complex<float>;
    xt::xtensor<C, 1> x = {{1, 2}, {3, 4}};
    xt::xtensor<float, 1> real = {0, 0};
    xt::xtensor<C, 1> complex = {{0, 0}, {0, 0}};
    xt::xtensor<int, 1> ints = {0, 0};
    const xt::xtensor<C, 1> constant = complex;
#if defined(REALIFY_EXPECT_SUCCESS)
    realify::exp(x, realify::out(complex));
    realify::abs(x, realify::out(real));
    realify::isnan(x, realify::out(ints));
#elif REALIFY_CASE == 1
    realify::exp(x, realify::out(real));  // a complex result into a real buffer
#elif REALIFY_CASE == 2
    realify::abs(x, realify::out(complex));  // a real result into a complex buffer
#elif REALIFY_CASE == 3
    realify::abs(x, realify::out(ints));  // a float result into an integer buffer
#elif REALIFY_CASE == 4
    realify::exp(x, realify::out(x + x));  // a lazy expression has no memory
#elif REALIFY_CASE == 5
    realify::exp(x, realify::out(constant));  // a const buffer
#endif
    (void)constant;
    return 0;
}
