// Included by the instruction-set TUs (isa_kernels.cpp, built once per level),
// each given its level's flags (realify_isa_unit): fills the instruction set's kernel table, which
// instantiates every kernel for it — each element kernel once per operand
// kinds and element type, through the one elementwise driver. A form whose
// element kernel has no batch form points at the scalar kernel (compiled
// for the baseline in scalar.cpp).
#pragma once

// xsimd 8.1 reduces huge sine/cosine arguments with two inline non-template
// functions; compiled into every instruction-set TU they would be one symbol
// with three bodies, and the linker could keep the AVX-512 one for the SSE2
// kernels. Each TU renames them (the kernels also keep every argument within
// detail::trig_limit, so these are never called). Before any xsimd include.
#include "isa/arch_namespace.hpp"
#define REALIFY_SIMD_PASTE_(a, b) a##_##b
#define REALIFY_SIMD_PASTE(a, b) REALIFY_SIMD_PASTE_(a, b)
#define __ieee754_rem_pio2 REALIFY_SIMD_PASTE(realify_ieee754_rem_pio2, REALIFY_SIMD_KERNEL_NAMESPACE)
#define __kernel_rem_pio2 REALIFY_SIMD_PASTE(realify_kernel_rem_pio2, REALIFY_SIMD_KERNEL_NAMESPACE)

#include <cstddef>

#include "isa/attention_kernels.hpp"
#include "isa/rope_kernels.hpp"
#include "kernel_table.hpp"
#include "isa/complex_mul_kernels.hpp"
#include "isa/elementwise_kernels.hpp"
#include "isa/reduce_kernels.hpp"
#include "isa/row_kernels.hpp"
#include "isa/scalar_kernels.hpp"

namespace realify::simd::detail {

template <class T, class Arch, elementwise_op Op>
constexpr void add_elementwise(elementwise_set<T>& set) noexcept {
    using k = isa::elementwise_kernels<T, Arch>;
    constexpr operand_kind C = operand_kind::complex, R = operand_kind::real;
    constexpr std::size_t i = static_cast<std::size_t>(Op);
    auto unary = [&]<operand_kind X>() {
        if constexpr (result_kind(Op, X).has_value()) {
            if constexpr (k::template vectorised<Op, X>())
                set.unary[i][static_cast<std::size_t>(X)] = &k::template unary<Op, X>;
            else
                set.unary[i][static_cast<std::size_t>(X)] = &scalar_unary<Op, X, T>;
        }
    };
    auto binary = [&]<operand_kind X, operand_kind Y>() {
        if constexpr (result_kind(Op, X, Y).has_value()) {
            if constexpr (k::template vectorised<Op, X, Y>())
                set.binary[i][binary_index(X, Y)] = &k::template binary<Op, X, Y>;
            else
                set.binary[i][binary_index(X, Y)] = &scalar_binary<Op, X, Y, T>;
        }
    };
    unary.template operator()<C>();
    unary.template operator()<R>();
    binary.template operator()<C, C>();
    binary.template operator()<C, R>();
    binary.template operator()<R, C>();
    binary.template operator()<R, R>();
}

template <class T, class Arch>
constexpr kernel_set<T> make_kernel_set() noexcept {
    using m = isa::complex_mul_kernels<T, Arch>;
    using r = isa::row_kernels<T, Arch>;
    using s = isa::reduce_kernels<T, Arch>;
    kernel_set<T> set{{&m::mul, &m::mul_conj, &m::mul_rows, &m::mul_real, &m::mul_scalar, &m::mul_add},
                      &rope::isa::rope_simd<T, Arch>::run,
                      {},
                      {&r::max, &r::exp_sum, &r::moments, &r::normalize},
                      {&s::sum, &s::prod, &s::template extremum<true>, &s::template extremum<false>, &s::moments,
                       &s::sum_rows, &s::prod_rows, &s::template extremum_rows<true>, &s::template extremum_rows<false>,
                       &s::moments_rows, &s::scan, &s::scan_rows},
                      &isa::attention_kernels<T, Arch>::run};
#define REALIFY_SIMD_ADD(name, forms) add_elementwise<T, Arch, elementwise_op::name>(set.elementwise);
    REALIFY_SIMD_ELEMENTWISE_OPS(REALIFY_SIMD_ADD)
#undef REALIFY_SIMD_ADD
    return set;
}

/// The table of instruction set Arch.
template <class Arch>
constexpr kernel_table make_kernel_table() noexcept {
    return {make_kernel_set<float, Arch>(), make_kernel_set<double, Arch>()};
}

}  // namespace realify::simd::detail
