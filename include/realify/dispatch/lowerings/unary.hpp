// Lowerings of the ops whose compiled kernels take one tensor and nothing
// else — the op list's unary_math, real_output, complex_part and real_unary
// ops (exp, abs, imag, sigmoid, …; REALIFY_UNARY_KERNEL_OPS) — drawn from the
// op list, so adding such an op needs no line here:
//
//   <op>_pairs   the kernel's complex form on a complex tensor (the (…, 2)
//                layout's pairs), when the op list gives the op one;
//   <op>_reals   its real form on a real (float, double) tensor, PyTorch's
//                real op, when the op list gives the op one and does not
//                say it is defined on complex tensors only.
//
// The formulas live with the kernels (realify/kernels), which document
// exactly these forms (tests/ops/test_dispatch.cpp checks it); docs/ops.md's
// "defined in" column leads there. They are read only when the table is
// read as data (realify/dispatch/table.hpp): running an op needs the
// compiled kernels alone, so this header does not parse the kernels.
#pragma once

#include <string_view>
#include <type_traits>

#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/kernels/element.hpp"
#include "realify/ops/tags.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::dispatch {
namespace lowering {

/// Whether Op's compiled kernel on one tensor, complex (Complex) or real, is
/// a lowering of the table.
template <simd::elementwise_op Op, bool Complex>
constexpr bool lowered_form() {
    if constexpr (Complex) return simd::result_kind(Op, simd::operand_kind::complex).has_value();
    else
        return simd::result_kind(Op, simd::operand_kind::real).has_value() &&
               (simd::info(Op).forms & form::complex_tensors_only) == 0;
}

/// Whether Kernel documents its complex form (Complex) or its real form.
template <class Kernel, bool Complex>
constexpr bool documents_form() {
    if constexpr (Complex) return requires { Kernel::formula; };
    else return requires { Kernel::real_formula; };
}

/// The formula Kernel documents for that form ("" when it has none).
template <class Kernel, bool Complex>
constexpr std::string_view form_formula() {
    if constexpr (!documents_form<Kernel, Complex>()) return {};
    else if constexpr (Complex) return Kernel::formula;
    else return Kernel::real_formula;
}

/// The complex (Complex) or real form of Op's compiled kernel SimdOp on one
/// tensor; the struct deriving from it gives the lowering its name.
template <class Op, simd::elementwise_op SimdOp, bool Complex>
struct unary_kernel {
    using op = Op;
    static constexpr bool lowered = lowered_form<SimdOp, Complex>();
    static constexpr std::string_view formula = form_formula<kernels::element<Op>, Complex>();
    template <class... A>
    static constexpr bool accepts = Complex ? one_complex_tensor<A...> : one_real_tensor<A...>;
    template <class A>
    static auto apply(const A& a) {
        return compiled_call<SimdOp>::run(op::name, std::nullopt, a);
    }
    template <class O, class A>
    static void apply_into(out_arg<O>& o, const A& a) {
        compiled_call<SimdOp>::into(op::name, o, std::nullopt, a);
    }
};

/// The forms of Pairs and Reals that are lowerings, complex first.
template <class Pairs, class Reals>
using unary_candidates =
    std::conditional_t<Pairs::lowered,
                       std::conditional_t<Reals::lowered, type_list<Pairs, Reals>, type_list<Pairs>>,
                       std::conditional_t<Reals::lowered, type_list<Reals>, type_list<>>>;

// A struct per form, named as explain() and docs/ops.md show it.
#define REALIFY_UNARY_KERNEL_FORM(op_name, suffix, is_complex)                                                  \
    struct op_name##_##suffix                                                                                  \
        : unary_kernel<::realify::op::op_name, ::realify::simd::elementwise_op::op_name, is_complex> {        \
        static constexpr std::string_view name = #op_name "_" #suffix;                                         \
    };
#define REALIFY_UNARY_KERNEL_LOWERINGS(op_name) \
    REALIFY_UNARY_KERNEL_FORM(op_name, pairs, true) REALIFY_UNARY_KERNEL_FORM(op_name, reals, false)
REALIFY_UNARY_KERNEL_OPS(REALIFY_UNARY_KERNEL_LOWERINGS)
#undef REALIFY_UNARY_KERNEL_LOWERINGS
#undef REALIFY_UNARY_KERNEL_FORM

}  // namespace lowering

#define REALIFY_UNARY_KERNEL_CANDIDATES(op_name)                                                \
    template <>                                                                                 \
    struct builtin_lowerings<::realify::op::op_name> {                                          \
        using type = lowering::unary_candidates<lowering::op_name##_pairs, lowering::op_name##_reals>; \
    };
REALIFY_UNARY_KERNEL_OPS(REALIFY_UNARY_KERNEL_CANDIDATES)
#undef REALIFY_UNARY_KERNEL_CANDIDATES

}  // namespace realify::dispatch
