// Op tags: one empty struct per op, realify::op::<name>, each with a
// compile-time name, arity (number of tensor operands; -1 = a list of
// tensors) and kind. realify::op::all_ops is the type list of every tag and
// realify::op::op_table the same facts as a constexpr array, for iteration
// without template recursion.
//
// The set is the 70 aten ops Torch-TensorRT's complex lowering rewrites plus sgn, rsqrt, cumsum,
// sum and mean over all dims, prod over a dim (a true complex product), dot,
// vdot, square, squeeze (all dims) and mul_scalar/div_scalar by a real scalar;
// and PyTorch's real-tensor ops that models wrap around complex parts:
// conj_physical, resolve_conj, clamp, clamp_min, clamp_max, maximum, minimum,
// sigmoid, silu, erf, gelu, amax, amin, var, std_dev (torch.std), softmax, log_softmax,
// layer_norm, rms_norm and einsum (kind math: most have no complex form here,
// as in PyTorch; the op's entries say which operands each takes); and what a
// Llama decoder layer needs besides: hstack, triu, tril, linear (F.linear),
// scaled_dot_product_attention, rope (rotary embeddings on one tensor:
// realify::rope::apply_rotary_emb), and PyTorch's creation ops arange, full,
// zeros, ones, empty and empty_like.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "realify/ops/op_kind.hpp"
#include "realify/version.hpp"

namespace realify {

/// A compile-time list of types; introspection iterates it with fold expressions.
template <class... T>
struct type_list {
    static constexpr std::size_t size = sizeof...(T);
};

/// What the thread grain, the test suites and the docs know of an op besides
/// its name, arity, kind and kernels (PyTorch's OpInfo in spirit): written
/// on the op's line of REALIFY_OP_LIST as designated initialisers,
/// `.cost = 10, .torch_complex = false`, in the order declared here; an op
/// whose facts are all the defaults writes none.
struct op_record {
    /// Units of work per element, a copy being 1: where a call of the op is
    /// split over threads (src/engine/op_cost.hpp, docs/parallel.md has the
    /// measured times the values round).
    unsigned cost = 1;
    /// PyTorch 1.13 has the op on complex tensors / on real tensors. The
    /// goldens (tools/gen_golden.py, tests/ops/test_golden.cpp) hold
    /// PyTorch's values for the complex form where it has one, else for the
    /// real form; an op PyTorch lacks is checked against the references only.
    bool torch_complex = true;
    bool torch_real = true;
    /// Magnitude of the random samples of the property tests and the fuzzer
    /// (each part uniform in ±sample_scale, besides the special values).
    double sample_scale = 2.0;
    /// The same for the exponent of pow_tensor (0: sample_scale).
    double exponent_scale = 0.0;
    /// 1/z-like: 0 is outside the random samples' domain, and the op's
    /// value there is PyTorch's NaN + NaN·i rather than the reference's.
    bool singular_at_zero = false;
    /// The tolerance the suites compare with, as a multiple of their
    /// default (docs/numerics.md).
    double tolerance = 1.0;
    /// The signs of zeros are part of the op's specification (C99 Annex G:
    /// a zero's sign picks the side of a branch cut, and the functions give
    /// signed zeros on the axes; PyTorch's real ops keep −0): the goldens'
    /// special-value cases check them. Elsewhere a zero's sign is an
    /// artifact of the formula (docs/numerics.md).
    bool zero_sign = false;
    /// False for an op with no values to compare with PyTorch (empty).
    bool golden = true;
};

/// The operand-kind combinations an op has compiled elementwise kernels
/// for (realify/simd/elementwise.hpp), as bits: the op's kernels column.
namespace form {
inline constexpr unsigned complex_to_complex = 1u << 0;    // unary
inline constexpr unsigned complex_to_real = 1u << 1;       // unary
inline constexpr unsigned real_to_real = 1u << 2;          // unary
inline constexpr unsigned complex_complex = 1u << 3;       // binary → complex
inline constexpr unsigned complex_real = 1u << 4;          // binary → complex
inline constexpr unsigned real_complex = 1u << 5;          // binary → complex
inline constexpr unsigned real_real = 1u << 6;             // binary → real
inline constexpr unsigned real_real_to_complex = 1u << 7;  // binary → complex (polar)

inline constexpr unsigned unary_math = complex_to_complex | real_to_real;
inline constexpr unsigned real_output = complex_to_real | real_to_real;
inline constexpr unsigned binary_math = complex_complex | complex_real | real_complex | real_real;
inline constexpr unsigned unary_forms = complex_to_complex | complex_to_real | real_to_real;
inline constexpr unsigned real_unary = real_to_real;   // ops PyTorch defines on real tensors only
inline constexpr unsigned real_binary = real_real;
/// Not a form: the op's kernels read a constant (α of add and sub,
/// pow_scalar's exponent, gelu's approximation).
inline constexpr unsigned constant = 1u << 8;
/// Not a form: the op is defined on complex tensors only (imag), so its
/// real → real kernel is no lowering of the dispatch table.
inline constexpr unsigned complex_tensors_only = 1u << 9;
}  // namespace form

/// The facts of one op tag as a value.
struct op_info {
    std::string_view name;
    int arity;
    op_kind kind;
    unsigned forms;  // form:: bits of its compiled kernels, 0 for an op without
    op_record record;
};

// X-macro: (name, arity, kind, kernels). One place lists every op, so the
// tag structs, the type list, the array and the compiled kernels can never
// disagree. `kernels` names the operand-kind forms of the op's compiled
// elementwise kernels (realify/simd/elementwise.hpp, form::), `none` for an
// op without: every instruction set's kernel table, the scalar table, the
// graph's fused loops and the SIMD tests take the ops from here —
//   unary_math             complex → complex and real → real
//   real_output            complex → real and real → real (abs, real, …)
//   complex_part           the same kernels, an op on complex tensors only
//                          (imag: PyTorch refuses a real tensor; the real
//                          kernel serves the graph's real subgraphs)
//   real_unary             real → real only (PyTorch's real-tensor ops)
//   binary_math            complex and real operands in any mix
//   real_binary            two real operands
//   real_real_to_complex   two real operands, a complex result (polar)
//   …_with_constant        the same, reading a constant (α, an exponent)
//   scalar                 no kernels of its own: a tensor and a number
//                          (aten's .Scalar overloads), run by its binary
//                          op's kernels with the number broadcast
//                          (add_scalar by add's, mul_scalar by mul's, …)
// After the kernels column, the op's record (op_record: its cost, whether
// PyTorch 1.13 has it, how the suites sample and compare it), as designated
// initialisers; none when every fact is the default.
// REALIFY_OP_LIST(X) calls X(name, arity, kind, kernels, record…) for every
// op; REALIFY_OP_LIST_WITH(P, args…) calls P(args…, name, arity, kind,
// kernels, record…), for lists drawn from this one (realify/simd/elementwise.hpp's
// REALIFY_SIMD_ELEMENTWISE_OPS passes its X on to P that way). Only the
// X-macro's users that must make a declaration of a name (the tags, the
// enumerators, the eager and graph functions) read the list; everything else
// iterates op::op_table, the records as data.
#define REALIFY_OP_LIST(X) REALIFY_OP_LIST_WITH(X)
#define REALIFY_OP_LIST_WITH(X, ...) \
    X(__VA_ARGS__ view_as_complex, 1, erased, none) \
    X(__VA_ARGS__ view_as_real, 1, erased, none, .zero_sign = true) \
    X(__VA_ARGS__ permute, 1, shape, none) \
    X(__VA_ARGS__ reshape, 1, shape, none) \
    X(__VA_ARGS__ view, 1, shape, none) \
    X(__VA_ARGS__ unsafe_view, 1, shape, none) \
    X(__VA_ARGS__ flatten, 1, shape, none) \
    X(__VA_ARGS__ unsqueeze, 1, shape, none) \
    X(__VA_ARGS__ squeeze_dim, 1, shape, none) \
    X(__VA_ARGS__ squeeze_dims, 1, shape, none) \
    X(__VA_ARGS__ cat, -1, shape, none) \
    X(__VA_ARGS__ stack, -1, shape, none) \
    X(__VA_ARGS__ t, 1, shape, none) \
    X(__VA_ARGS__ transpose, 1, shape, none) \
    X(__VA_ARGS__ select, 1, shape, none) \
    X(__VA_ARGS__ slice, 1, shape, none) \
    X(__VA_ARGS__ split, 1, shape, none) \
    X(__VA_ARGS__ split_with_sizes, 1, shape, none) \
    X(__VA_ARGS__ chunk, 1, shape, none) \
    X(__VA_ARGS__ expand, 1, shape, none) \
    X(__VA_ARGS__ narrow, 1, shape, none) \
    X(__VA_ARGS__ roll, 1, shape, none) \
    X(__VA_ARGS__ flip, 1, shape, none) \
    X(__VA_ARGS__ repeat, 1, shape, none) \
    X(__VA_ARGS__ where, 3, shape, none, .zero_sign = true) \
    X(__VA_ARGS__ hstack, -1, shape, none) \
    X(__VA_ARGS__ triu, 1, shape, none) \
    X(__VA_ARGS__ tril, 1, shape, none) \
    X(__VA_ARGS__ sum, 1, shape, none) \
    X(__VA_ARGS__ sum_dim, 1, shape, none) \
    X(__VA_ARGS__ mean, 1, shape, none) \
    X(__VA_ARGS__ mean_dim, 1, shape, none) \
    X(__VA_ARGS__ cumsum, 1, shape, none) \
    X(__VA_ARGS__ prod_dim, 1, math, none) \
    X(__VA_ARGS__ mul, 2, math, binary_math) \
    X(__VA_ARGS__ div, 2, math, binary_math, .cost = 2) \
    X(__VA_ARGS__ add, 2, math, binary_math_with_constant) \
    X(__VA_ARGS__ sub, 2, math, binary_math_with_constant) \
    X(__VA_ARGS__ add_scalar, 2, math, scalar) \
    X(__VA_ARGS__ sub_scalar, 2, math, scalar) \
    X(__VA_ARGS__ conj, 1, math, unary_math, .zero_sign = true) \
    X(__VA_ARGS__ conj_physical, 1, math, none, .zero_sign = true) \
    X(__VA_ARGS__ resolve_conj, 1, math, none, .zero_sign = true) \
    X(__VA_ARGS__ reciprocal, 1, math, unary_math, .singular_at_zero = true) \
    X(__VA_ARGS__ exp, 1, math, unary_math, .cost = 10, .zero_sign = true) \
    X(__VA_ARGS__ expm1, 1, math, unary_math, .cost = 10, .torch_complex = false) \
    X(__VA_ARGS__ log, 1, math, unary_math, .cost = 6, .zero_sign = true) \
    X(__VA_ARGS__ log2, 1, math, unary_math, .cost = 7, .zero_sign = true) \
    X(__VA_ARGS__ log10, 1, math, unary_math, .cost = 6, .zero_sign = true) \
    X(__VA_ARGS__ log1p, 1, math, unary_math, .cost = 9, .torch_complex = false) \
    X(__VA_ARGS__ sqrt, 1, math, unary_math, .cost = 2, .zero_sign = true) \
    X(__VA_ARGS__ rsqrt, 1, math, unary_math, .cost = 3, .singular_at_zero = true) \
    X(__VA_ARGS__ square, 1, math, unary_math) \
    X(__VA_ARGS__ sgn, 1, math, unary_math, .cost = 2) \
    X(__VA_ARGS__ pow_scalar, 2, math, unary_math_with_constant, .cost = 26, .sample_scale = 1.5) \
    X(__VA_ARGS__ pow_tensor, 2, math, binary_math, .cost = 25, .sample_scale = 1.5, .exponent_scale = 0.7) \
    X(__VA_ARGS__ sin, 1, math, unary_math, .cost = 13, .zero_sign = true) \
    X(__VA_ARGS__ cos, 1, math, unary_math, .cost = 12, .zero_sign = true) \
    X(__VA_ARGS__ tan, 1, math, unary_math, .cost = 13, .zero_sign = true) \
    X(__VA_ARGS__ sinh, 1, math, unary_math, .cost = 12, .zero_sign = true) \
    X(__VA_ARGS__ cosh, 1, math, unary_math, .cost = 12, .zero_sign = true) \
    X(__VA_ARGS__ tanh, 1, math, unary_math, .cost = 13, .zero_sign = true) \
    X(__VA_ARGS__ asin, 1, math, unary_math, .cost = 15, .zero_sign = true) \
    X(__VA_ARGS__ acos, 1, math, unary_math, .cost = 15, .zero_sign = true) \
    X(__VA_ARGS__ atan, 1, math, unary_math, .cost = 13, .zero_sign = true) \
    X(__VA_ARGS__ asinh, 1, math, unary_math, .cost = 16, .zero_sign = true) \
    X(__VA_ARGS__ acosh, 1, math, unary_math, .cost = 16, .zero_sign = true) \
    X(__VA_ARGS__ atanh, 1, math, unary_math, .cost = 14, .zero_sign = true) \
    X(__VA_ARGS__ mm, 2, math, none) \
    X(__VA_ARGS__ bmm, 2, math, none) \
    X(__VA_ARGS__ matmul, 2, math, none) \
    X(__VA_ARGS__ dot, 2, math, none) \
    X(__VA_ARGS__ vdot, 2, math, none) \
    X(__VA_ARGS__ einsum, -1, math, none) \
    X(__VA_ARGS__ clamp, 3, math, none, .zero_sign = true) \
    X(__VA_ARGS__ clamp_min, 2, math, real_binary, .torch_complex = false) \
    X(__VA_ARGS__ clamp_max, 2, math, real_binary, .torch_complex = false) \
    X(__VA_ARGS__ maximum, 2, math, real_binary, .torch_complex = false) \
    X(__VA_ARGS__ minimum, 2, math, real_binary, .torch_complex = false) \
    X(__VA_ARGS__ sigmoid, 1, math, real_unary, .cost = 2) \
    X(__VA_ARGS__ silu, 1, math, real_unary, .cost = 2, .zero_sign = true) \
    X(__VA_ARGS__ erf, 1, math, real_unary, .cost = 5, .torch_complex = false, .zero_sign = true) \
    X(__VA_ARGS__ gelu, 1, math, real_unary_with_constant, .cost = 7, .torch_complex = false, .zero_sign = true) \
    X(__VA_ARGS__ amax, 1, math, none) \
    X(__VA_ARGS__ amin, 1, math, none) \
    X(__VA_ARGS__ var, 1, math, none) \
    X(__VA_ARGS__ std_dev, 1, math, none) \
    X(__VA_ARGS__ softmax, 1, math, none, .cost = 3) \
    X(__VA_ARGS__ log_softmax, 1, math, none, .cost = 3) \
    X(__VA_ARGS__ layer_norm, 3, math, none) \
    X(__VA_ARGS__ rms_norm, 2, math, none) \
    X(__VA_ARGS__ linear, 3, math, none) \
    X(__VA_ARGS__ scaled_dot_product_attention, 4, math, none) \
    X(__VA_ARGS__ rope, 2, math, none, .torch_complex = false, .torch_real = false) \
    X(__VA_ARGS__ ones_like, 1, construction, none) \
    X(__VA_ARGS__ full_like, 2, construction, none) \
    X(__VA_ARGS__ scalar_tensor, 1, construction, none) \
    X(__VA_ARGS__ empty_like, 1, construction, none, .golden = false) \
    X(__VA_ARGS__ arange, 0, construction, none) \
    X(__VA_ARGS__ full, 0, construction, none) \
    X(__VA_ARGS__ zeros, 0, construction, none) \
    X(__VA_ARGS__ ones, 0, construction, none) \
    X(__VA_ARGS__ empty, 0, construction, none, .golden = false) \
    X(__VA_ARGS__ polar, 2, construction, real_real_to_complex, .cost = 7) \
    X(__VA_ARGS__ abs, 1, real_output, real_output) \
    X(__VA_ARGS__ angle, 1, real_output, real_output, .cost = 3) \
    X(__VA_ARGS__ real, 1, real_output, real_output, .zero_sign = true) \
    X(__VA_ARGS__ imag, 1, real_output, complex_part, .torch_real = false, .zero_sign = true) \
    X(__VA_ARGS__ isnan, 1, real_output, none) \
    X(__VA_ARGS__ isinf, 1, real_output, none) \
    X(__VA_ARGS__ neg, 1, elementwise_safe, unary_math) \
    X(__VA_ARGS__ mul_scalar, 2, elementwise_safe, scalar) \
    X(__VA_ARGS__ div_scalar, 2, elementwise_safe, scalar) \
    X(__VA_ARGS__ clone, 1, elementwise_safe, none) \
    X(__VA_ARGS__ detach, 1, elementwise_safe, none) \
    X(__VA_ARGS__ alias, 1, elementwise_safe, none) \
    X(__VA_ARGS__ squeeze, 1, elementwise_safe, none) \
    X(__VA_ARGS__ zeros_like, 1, elementwise_safe, none) \
    X(__VA_ARGS__ ceil, 1, elementwise_safe, unary_math, .torch_complex = false, .sample_scale = 3) \
    X(__VA_ARGS__ floor, 1, elementwise_safe, unary_math, .torch_complex = false, .sample_scale = 3) \
    X(__VA_ARGS__ round, 1, elementwise_safe, unary_math, .torch_complex = false, .sample_scale = 3) \
    X(__VA_ARGS__ trunc, 1, elementwise_safe, unary_math, .torch_complex = false, .sample_scale = 3) \
    X(__VA_ARGS__ getitem, 1, elementwise_safe, none, .torch_complex = false, .torch_real = false) \
    X(__VA_ARGS__ sym_size, 1, elementwise_safe, none)

// The words of the kernels column, each once: REALIFY_KERNELS_<word>(LISTED,
// UNARY, BINARY, SCALAR, X, name) calls LISTED(X, name, forms) for an op with
// kernels — `forms` their realify::form bits, spelled for
// realify/simd/elementwise.hpp, where REALIFY_SIMD_ELEMENTWISE_OPS is drawn —
// and one of UNARY, BINARY, SCALAR (X, name) by the operands the op takes:
//   UNARY   one tensor and nothing else (unary_math, real_output,
//           complex_part, real_unary): the eager function
//           (realify/eager/elementwise.hpp) and the graph builder
//           (realify/graph/builder.hpp) of each is one generic definition;
//           REALIFY_UNARY_KERNEL_OPS(X) calls X(name)
//   BINARY  two tensors, broadcast (binary_math[_with_constant], real_binary:
//           add, mul, pow_tensor, maximum, …); REALIFY_BINARY_KERNEL_OPS(X)
//   SCALAR  a tensor and a number (scalar, unary_math_with_constant:
//           add_scalar, …, pow_scalar); REALIFY_SCALAR_OPS(X)
// The test suites iterate these three lists rather than naming ops.
#define REALIFY_KERNELS_none(LISTED, UNARY, BINARY, SCALAR, X, name)
#define REALIFY_KERNELS_unary_math(LISTED, UNARY, BINARY, SCALAR, X, name) \
    LISTED(X, name, form::unary_math) UNARY(X, name)
#define REALIFY_KERNELS_real_output(LISTED, UNARY, BINARY, SCALAR, X, name) \
    LISTED(X, name, form::real_output) UNARY(X, name)
#define REALIFY_KERNELS_complex_part(LISTED, UNARY, BINARY, SCALAR, X, name) \
    LISTED(X, name, form::real_output | form::complex_tensors_only) UNARY(X, name)
#define REALIFY_KERNELS_real_unary(LISTED, UNARY, BINARY, SCALAR, X, name) \
    LISTED(X, name, form::real_unary) UNARY(X, name)
#define REALIFY_KERNELS_unary_math_with_constant(LISTED, UNARY, BINARY, SCALAR, X, name) \
    LISTED(X, name, form::unary_math | form::constant) SCALAR(X, name)
#define REALIFY_KERNELS_real_unary_with_constant(LISTED, UNARY, BINARY, SCALAR, X, name) \
    LISTED(X, name, form::real_unary | form::constant)
#define REALIFY_KERNELS_binary_math(LISTED, UNARY, BINARY, SCALAR, X, name) \
    LISTED(X, name, form::binary_math) BINARY(X, name)
#define REALIFY_KERNELS_binary_math_with_constant(LISTED, UNARY, BINARY, SCALAR, X, name) \
    LISTED(X, name, form::binary_math | form::constant) BINARY(X, name)
#define REALIFY_KERNELS_real_binary(LISTED, UNARY, BINARY, SCALAR, X, name) \
    LISTED(X, name, form::real_binary) BINARY(X, name)
#define REALIFY_KERNELS_real_real_to_complex(LISTED, UNARY, BINARY, SCALAR, X, name) \
    LISTED(X, name, form::real_real_to_complex)
#define REALIFY_KERNELS_scalar(LISTED, UNARY, BINARY, SCALAR, X, name) SCALAR(X, name)
#define REALIFY_KERNELS_CALL(X, ...) X(__VA_ARGS__)
#define REALIFY_KERNELS_SKIP(X, ...)
#define REALIFY_UNARY_KERNEL_PICK(X, name, arity, kind, kernels, ...) \
    REALIFY_KERNELS_##kernels(REALIFY_KERNELS_SKIP, REALIFY_KERNELS_CALL, REALIFY_KERNELS_SKIP, REALIFY_KERNELS_SKIP, X, name)
#define REALIFY_UNARY_KERNEL_OPS(X) REALIFY_OP_LIST_WITH(REALIFY_UNARY_KERNEL_PICK, X, )
#define REALIFY_BINARY_KERNEL_PICK(X, name, arity, kind, kernels, ...) \
    REALIFY_KERNELS_##kernels(REALIFY_KERNELS_SKIP, REALIFY_KERNELS_SKIP, REALIFY_KERNELS_CALL, REALIFY_KERNELS_SKIP, X, name)
#define REALIFY_BINARY_KERNEL_OPS(X) REALIFY_OP_LIST_WITH(REALIFY_BINARY_KERNEL_PICK, X, )
#define REALIFY_SCALAR_PICK(X, name, arity, kind, kernels, ...) \
    REALIFY_KERNELS_##kernels(REALIFY_KERNELS_SKIP, REALIFY_KERNELS_SKIP, REALIFY_KERNELS_SKIP, REALIFY_KERNELS_CALL, X, name)
#define REALIFY_SCALAR_OPS(X) REALIFY_OP_LIST_WITH(REALIFY_SCALAR_PICK, X, )
/// An op's form bits, 0u when it has no kernels.
#define REALIFY_KERNELS_OR_FORMS(X, name, forms) | (forms)
#define REALIFY_FORMS_OF(kernels) \
    (0u REALIFY_KERNELS_##kernels(REALIFY_KERNELS_OR_FORMS, REALIFY_KERNELS_SKIP, REALIFY_KERNELS_SKIP, REALIFY_KERNELS_SKIP, , ))

/// Every op of the list as a value, in table order (op::op_table[id] describes
/// it): what run-time code that must tell ops apart (the graph's IR) records,
/// rather than the op's name.
enum class op_id : std::uint16_t {
#define REALIFY_OP_ID(op_name, op_arity, op_kind_name, op_kernels, ...) op_name,
    REALIFY_OP_LIST(REALIFY_OP_ID)
#undef REALIFY_OP_ID
};

namespace op {

#define REALIFY_DEFINE_OP_TAG(op_name, op_arity, op_kind_name, op_kernels, ...)     \
    struct op_name {                                                                  \
        static constexpr std::string_view name = #op_name;                            \
        static constexpr int arity = op_arity;                                        \
        static constexpr ::realify::op_kind kind = ::realify::op_kind::op_kind_name;  \
        static constexpr ::realify::op_id id = ::realify::op_id::op_name;             \
        static constexpr unsigned forms = REALIFY_FORMS_OF(op_kernels);               \
        static constexpr ::realify::op_record record{__VA_ARGS__};                    \
    };
REALIFY_OP_LIST(REALIFY_DEFINE_OP_TAG)
#undef REALIFY_DEFINE_OP_TAG

#define REALIFY_OP_TYPE(op_name, op_arity, op_kind_name, op_kernels, ...) , op_name
namespace detail {
template <class... T>
struct drop_first_void;
template <class... T>
struct drop_first_void<void, T...> {
    using type = type_list<T...>;
};
}  // namespace detail

/// Every op tag, in table order.
using all_ops = typename detail::drop_first_void<void REALIFY_OP_LIST(REALIFY_OP_TYPE)>::type;
#undef REALIFY_OP_TYPE

namespace detail {
template <class... Tags>
constexpr auto make_op_table(type_list<Tags...>) {
    return std::array<op_info, sizeof...(Tags)>{op_info{Tags::name, Tags::arity, Tags::kind, Tags::forms, Tags::record}...};
}
}  // namespace detail

/// name, arity, kind, kernel forms and record of every op, in the order of all_ops.
inline constexpr auto op_table = detail::make_op_table(all_ops{});

/// Number of op tags.
inline constexpr std::size_t op_count = all_ops::size;

/// The facts of an op by its id.
constexpr const op_info& info(op_id id) noexcept { return op_table[static_cast<std::size_t>(id)]; }

}  // namespace op

/// True for realify::op::* tags (they all carry name, arity and kind).
template <class T>
concept op_tag = requires {
    { T::name } -> std::convertible_to<std::string_view>;
    { T::arity } -> std::convertible_to<int>;
    { T::kind } -> std::convertible_to<op_kind>;
};

/// A tag of the op list (it carries its op_id); a user's own tag is not.
template <class T>
concept listed_op = op_tag<T> && requires {
    requires std::is_same_v<std::remove_cv_t<decltype(T::id)>, op_id>;
};

}  // namespace realify
