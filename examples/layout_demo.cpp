// The layout contract in a few lines: a complex tensor and its (…,2) real
// view are the same memory.
#include <complex>
#include <cstdio>

#include <xtensor/xio.hpp>
#include <xtensor/xmanipulation.hpp>

#include <realify/layout.hpp>

int main() {
    xt::xtensor<std::complex<float>, 2> x = {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};

    auto parts = realify::view_as_real(x);  // shape (2, 2, 2), no copy
    parts(0, 1, 1) = -40.0f;                // write the imaginary part of x(0, 1)
    std::printf("x(0, 1) = (%g, %g) after writing through the real view\n", x(0, 1).real(), x(0, 1).imag());

    auto transposed = realify::view_as_real(xt::transpose(x));  // strides doubled, trailing stride 1
    std::printf("transposed view shape (%zu, %zu, %zu), strides (%td, %td, %td)\n", transposed.shape()[0],
                transposed.shape()[1], transposed.shape()[2], transposed.strides()[0], transposed.strides()[1],
                transposed.strides()[2]);

    xt::xtensor<float, 2> not_pairs = xt::zeros<float>({3, 3});
    try {
        realify::view_as_complex(not_pairs);
    } catch (const realify::layout_error& error) {
        std::printf("view_as_complex refused a 3x3 tensor: %s\n", error.what());
    }
    return x(0, 1) == std::complex<float>(3.0f, -40.0f) ? 0 : 1;
}
