// A typical user of the eager API for tools/compile_cost.py: complex tensors
// of two precisions through elementwise ops, a real tensor operand, numbers,
// a real-output op, shape ops and reductions — every call an instantiation
// the user's translation unit pays for.
#include <complex>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "realify/eager.hpp"

template <class T>
int use() {
    using C = std::complex<T>;
    const xt::xtensor<C, 2> x = xt::ones<C>({4, 8}), y = xt::ones<C>({4, 8});
    const xt::xtensor<T, 1> r = xt::ones<T>({8});
    const auto a = realify::complex_layout_of(x), b = realify::complex_layout_of(y);
    const auto m = realify::mul(a, b);
    const auto e = realify::exp(realify::add(m, a, T(2)));
    const auto s = realify::sub(realify::div(e, r), C(1, 2));
    const auto q = realify::mul(realify::sqrt(s), T(0.5));
    const auto magnitude = realify::abs(realify::log(q));
    const auto p = realify::permute(q, {1, 0});
    const auto c = realify::cat(std::vector{a, b}, 1);
    const auto total = realify::sum(c, {0}, false);
    const auto w = realify::where(magnitude > T(1), a, C(0, 0));
    return static_cast<int>(magnitude.size() + p.size() + total.size() + w.size() + realify::tanh(a).size());
}

int main() { return use<float>() + use<double>() > 0 ? 0 : 1; }
