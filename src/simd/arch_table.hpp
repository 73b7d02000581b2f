// Included by exactly one architecture TU each (arch_sse2.cpp, arch_avx2.cpp,
// arch_avx512.cpp), after that TU has been given its -m flags: fills the
// arch's table, which instantiates the kernels for it (their addresses).
#pragma once

#include "kernel_table.hpp"
#include "realify/simd/kernels/complex_mul_kernels.hpp"

namespace realify::simd::detail {

template <class T, class Arch>
constexpr kernel_set<T> make_kernel_set() noexcept {
    using k = kernels::complex_mul_kernels<T, Arch>;
    return {&k::mul, &k::mul_conj, &k::mul_rows, &k::mul_real, &k::mul_scalar, &k::mul_add};
}

template <class Arch>
constexpr kernel_table make_kernel_table() noexcept {
    return {make_kernel_set<float, Arch>(), make_kernel_set<double, Arch>()};
}

}  // namespace realify::simd::detail
