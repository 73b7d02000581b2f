// The yardstick of tools/compile_cost.py: what any xtensor program pays — a
// container, an expression, an assignment and printing.
#include <iostream>

#include <xtensor/xio.hpp>
#include <xtensor/xtensor.hpp>

int main() {
    xt::xtensor<float, 2> a = {{1.0f, 2.0f}, {3.0f, 4.0f}};
    xt::xtensor<float, 2> b = a * 2.0f + 1.0f;
    std::cout << b << '\n';
    return b(1, 1) == 9.0f ? 0 : 1;
}
