// The compiled elementwise kernels: every elementwise op of the table on
// contiguous float and double data, with SIMD batch forms per instruction set
// and a run-time choice of instruction set (realify/simd/arch.hpp). The contract the eager
// engine and the graph's evaluation build on. Cheap: no xsimd.
//
// ---- Ops and forms ----------------------------------------------------------
// elementwise_op names the ops (the names of their realify::op tags). Each has
// compiled kernels for some operand kinds (`forms`):
//
//   unary   complex → complex   x interleaved pairs, out interleaved pairs
//           complex → real      abs, angle, real, imag
//           real → real         the real function (the arithmetic, the unary
//                               math, abs/angle/real/imag/sgn of a real
//                               number, the rounding ops); sigmoid, silu, erf
//                               and gelu have this form only
//   binary  complex × complex → complex, complex × real → complex,
//           real × complex → complex, real × real → real
//                               (add, sub, mul, div, pow_tensor)
//           real × real → complex   polar(abs, angle)
//           real × real → real only     maximum, minimum, clamp_min, clamp_max
//                               (PyTorch orders real values only)
//
// result_kind(op, x[, y]) says which exist and what they return. The scalar
// ops of the op table map onto these: mul_scalar(a, s) is mul with a
// broadcast real y, div_scalar is div likewise, add_scalar/sub_scalar(a, s, α)
// is add with the broadcast complex y = ±α·s (folded by the caller), pow_scalar
// takes its exponent as the constant. ceil/floor/round/trunc of complex data
// are their real kernels over the 2n components.
//
// ---- Raw kernels --------------------------------------------------------------
// unary_kernel_for<T>(op, x) / binary_kernel_for<T>(op, x, y) return the
// kernel of the active instruction set (looked up on each call: do it once
// per operation, not per element), or nullptr when the form does not exist.
//
//   unary:  void (const T* x, T* out, std::size_t n, const T* params, bool stream)
//   binary: void (const T* x, bool x_broadcast, const T* y, bool y_broadcast,
//                 T* out, std::size_t n, const T* params, bool stream)
//
//   n          counts ELEMENTS: pairs for complex operands and results, reals
//              for real ones. A complex operand or result is 2n reals
//              [re0, im0, re1, im1, …], a real one n reals. n = 0 is allowed
//              (nothing is read or written).
//   broadcast  a broadcast operand is ONE element (one pair, or one real)
//              repeated for all n (tensor-scalar forms: complex × number,
//              number ÷ complex, …).
//   params     the op's constant as two reals {re, im}, or nullptr:
//                add, sub    α of x ± α·y (PyTorch's alpha), or nullptr for
//                            α = 1 (then the parts are added componentwise;
//                            with α the product α·y is a complex multiply,
//                            PyTorch's formula). A real × real kernel uses Re α.
//                pow_scalar  the exponent w (required); a real kernel uses Re w.
//                gelu        {1, 0} for approximate='tanh', else (nullptr,
//                            or {0, 0}) approximate='none'.
//              Every other op ignores it.
//   out        must not partially overlap an input. It may be exactly an
//              input (same start) when that operand is not broadcast and has
//              the result's kind (complex → complex in place, real → real, and
//              complex → real, whose n reals out may start at x's 2n);
//              otherwise it must be disjoint from the inputs.
//   stream     use non-temporal stores for out (large outputs that do not
//              alias an input, see realify/simd/streaming.hpp); the kernel
//              fences before returning. Alignment is handled inside: any
//              address works, an out not aligned to its element just stores
//              normally.
//   alignment  none required.
//
// Results are the op's element kernel (realify/kernels, the scalar forms)
// to within the tolerances of docs/numerics.md, and equal to it on special
// values: the batch form computes the ordinary lanes, the scalar form redoes
// lanes with non-finite inputs or results and inputs outside the batch
// form's accurate range. A result never depends on the element's position,
// on n, on the alignment or on the store path.
//
// ---- Checked span API ------------------------------------------------------------
// elementwise(op, x, [y,] out[, constant]) for users: the form is chosen by
// the span types, sizes and overlaps are checked (realify::shape_error /
// realify::layout_error naming the op and the sizes), an operand of size 1 is
// broadcast to out's size, streaming stores are chosen as for
// realify::simd::mul. `constant` is α for add/sub and the exponent for
// pow_scalar (required there; realify::error otherwise), and ignored elsewhere.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

#include "realify/ops/tags.hpp"

namespace realify::simd {

/// Kind of an operand or result of a compiled elementwise kernel.
enum class operand_kind : std::uint8_t { complex = 0, real = 1 };

// X(name, forms): every op with compiled kernels, in the order of the op
// list (realify/ops/tags.hpp, whose `kernels` column names their forms).
#define REALIFY_SIMD_PICK(X, name, arity, kind, kernels, ...) \
    REALIFY_KERNELS_##kernels(REALIFY_KERNELS_CALL, REALIFY_KERNELS_SKIP, REALIFY_KERNELS_SKIP, REALIFY_KERNELS_SKIP, X, name)
#define REALIFY_SIMD_ELEMENTWISE_OPS(X) REALIFY_OP_LIST_WITH(REALIFY_SIMD_PICK, X, )

/// An op with compiled elementwise kernels names them by its op_id: one
/// classification of the ops (realify/ops/tags.hpp), the kernel tables
/// indexed by it.
using elementwise_op = op_id;

/// Every op with compiled kernels, in the op list's order (its name and
/// forms are its op_table entry's: info(op)).
inline constexpr auto elementwise_ops = [] {
    constexpr std::size_t count = [] {
        std::size_t n = 0;
        for (const op_info& o : op::op_table) n += o.forms != 0 ? 1 : 0;
        return n;
    }();
    std::array<elementwise_op, count> ops{};
    std::size_t k = 0;
    for (std::size_t i = 0; i < op::op_count; ++i)
        if (op::op_table[i].forms != 0) ops[k++] = static_cast<op_id>(i);
    return ops;
}();

constexpr const op_info& info(elementwise_op op) noexcept { return op::info(op); }
constexpr std::string_view name(elementwise_op op) noexcept { return info(op).name; }
/// 1 or 2.
constexpr int arity(elementwise_op op) noexcept { return (info(op).forms & form::unary_forms) != 0 ? 1 : 2; }
/// Whether the op reads a constant (α of add/sub, pow_scalar's exponent,
/// gelu's approximation); pow_scalar requires it.
constexpr bool takes_constant(elementwise_op op) noexcept { return (info(op).forms & form::constant) != 0; }

/// The form bit of a unary / binary operand-kind combination.
constexpr unsigned unary_form(elementwise_op op, operand_kind x) noexcept {
    if (arity(op) != 1) return 0;
    if (x == operand_kind::real) return form::real_to_real;
    return info(op).forms & (form::complex_to_complex | form::complex_to_real);
}
constexpr unsigned binary_form(elementwise_op op, operand_kind x, operand_kind y) noexcept {
    if (arity(op) != 2) return 0;
    if (x == operand_kind::complex) return y == operand_kind::complex ? form::complex_complex : form::complex_real;
    if (y == operand_kind::complex) return form::real_complex;
    return info(op).forms & (form::real_real | form::real_real_to_complex);
}

/// The result kind of op on an operand of kind x, nullopt when there is no
/// such kernel (e.g. a binary op, or add of a single operand).
constexpr std::optional<operand_kind> result_kind(elementwise_op op, operand_kind x) noexcept {
    const unsigned f = unary_form(op, x) & info(op).forms;
    if (f == 0) return std::nullopt;
    return f == form::complex_to_complex ? operand_kind::complex : operand_kind::real;
}
constexpr std::optional<operand_kind> result_kind(elementwise_op op, operand_kind x, operand_kind y) noexcept {
    const unsigned f = binary_form(op, x, y) & info(op).forms;
    if (f == 0) return std::nullopt;
    return f == form::real_real ? operand_kind::real : operand_kind::complex;
}

/// The op itself when it has compiled kernels, else nullopt (see the
/// header comment for the scalar tags, which run their binary op's).
constexpr std::optional<elementwise_op> elementwise_op_for(op_id id) noexcept {
    if (op::info(id).forms == 0) return std::nullopt;
    return id;
}

/// The same for an op tag: elementwise_op_of<op::exp> == elementwise_op::exp
/// (nullopt for user tags, which have no op_id).
template <class Tag>
inline constexpr std::optional<elementwise_op> elementwise_op_of = [] {
    if constexpr (listed_op<Tag>) return elementwise_op_for(Tag::id);
    else return std::optional<elementwise_op>{};
}();

/// The op tag of a compiled op: elementwise_tag_t<elementwise_op::exp> is op::exp.
template <elementwise_op Op>
struct elementwise_tag;
#define REALIFY_SIMD_OP_TAG(name, forms)                  \
    template <>                                           \
    struct elementwise_tag<elementwise_op::name> {        \
        using type = ::realify::op::name;                 \
    };
REALIFY_SIMD_ELEMENTWISE_OPS(REALIFY_SIMD_OP_TAG)
#undef REALIFY_SIMD_OP_TAG
template <elementwise_op Op>
using elementwise_tag_t = typename elementwise_tag<Op>::type;

// ---- raw kernels -------------------------------------------------------------------

template <class T>
using unary_kernel = void (*)(const T* x, T* out, std::size_t n, const T* params, bool stream) noexcept;
template <class T>
using binary_kernel = void (*)(const T* x, bool x_broadcast, const T* y, bool y_broadcast, T* out, std::size_t n,
                               const T* params, bool stream) noexcept;

/// The kernel of the active instruction set, nullptr when result_kind(op, x)
/// is nullopt. Throws realify::error when REALIFY_SIMD_ARCH names a level
/// this machine lacks (as every kernel call does).
template <class T>
unary_kernel<T> unary_kernel_for(elementwise_op op, operand_kind x);
template <class T>
binary_kernel<T> binary_kernel_for(elementwise_op op, operand_kind x, operand_kind y);

extern template unary_kernel<float> unary_kernel_for<float>(elementwise_op, operand_kind);
extern template unary_kernel<double> unary_kernel_for<double>(elementwise_op, operand_kind);
extern template binary_kernel<float> binary_kernel_for<float>(elementwise_op, operand_kind, operand_kind);
extern template binary_kernel<double> binary_kernel_for<double>(elementwise_op, operand_kind, operand_kind);

// ---- checked span API ------------------------------------------------------------------
// See the header comment. Size-1 operands broadcast; out may be exactly an
// operand of the result's kind; `constant` is α (add, sub) or the exponent
// (pow_scalar).

// unary: complex → complex, complex → real, real → real
void elementwise(elementwise_op op, std::span<const std::complex<float>> x, std::span<std::complex<float>> out,
                 std::optional<std::complex<float>> constant = std::nullopt);
void elementwise(elementwise_op op, std::span<const std::complex<double>> x, std::span<std::complex<double>> out,
                 std::optional<std::complex<double>> constant = std::nullopt);
void elementwise(elementwise_op op, std::span<const std::complex<float>> x, std::span<float> out);
void elementwise(elementwise_op op, std::span<const std::complex<double>> x, std::span<double> out);
void elementwise(elementwise_op op, std::span<const float> x, std::span<float> out,
                 std::optional<std::complex<float>> constant = std::nullopt);
void elementwise(elementwise_op op, std::span<const double> x, std::span<double> out,
                 std::optional<std::complex<double>> constant = std::nullopt);

// binary: complex × complex, complex × real, real × complex → complex
void elementwise(elementwise_op op, std::span<const std::complex<float>> x, std::span<const std::complex<float>> y,
                 std::span<std::complex<float>> out, std::optional<std::complex<float>> constant = std::nullopt);
void elementwise(elementwise_op op, std::span<const std::complex<double>> x, std::span<const std::complex<double>> y,
                 std::span<std::complex<double>> out, std::optional<std::complex<double>> constant = std::nullopt);
void elementwise(elementwise_op op, std::span<const std::complex<float>> x, std::span<const float> y,
                 std::span<std::complex<float>> out, std::optional<std::complex<float>> constant = std::nullopt);
void elementwise(elementwise_op op, std::span<const std::complex<double>> x, std::span<const double> y,
                 std::span<std::complex<double>> out, std::optional<std::complex<double>> constant = std::nullopt);
void elementwise(elementwise_op op, std::span<const float> x, std::span<const std::complex<float>> y,
                 std::span<std::complex<float>> out, std::optional<std::complex<float>> constant = std::nullopt);
void elementwise(elementwise_op op, std::span<const double> x, std::span<const std::complex<double>> y,
                 std::span<std::complex<double>> out, std::optional<std::complex<double>> constant = std::nullopt);
// binary: real × real → real, and → complex (polar)
void elementwise(elementwise_op op, std::span<const float> x, std::span<const float> y, std::span<float> out,
                 std::optional<std::complex<float>> constant = std::nullopt);
void elementwise(elementwise_op op, std::span<const double> x, std::span<const double> y, std::span<double> out,
                 std::optional<std::complex<double>> constant = std::nullopt);
void elementwise(elementwise_op op, std::span<const float> x, std::span<const float> y,
                 std::span<std::complex<float>> out);
void elementwise(elementwise_op op, std::span<const double> x, std::span<const double> y,
                 std::span<std::complex<double>> out);

}  // namespace realify::simd
