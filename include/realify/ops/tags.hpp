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
// as in PyTorch; the op's entries say which operands each takes).
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

/// The facts of one op tag as a value.
struct op_info {
    std::string_view name;
    int arity;
    op_kind kind;
};

// X-macro: (name, arity, kind). One place lists every op, so the tag structs,
// the type list and the array can never disagree.
#define REALIFY_OP_LIST(X)                  \
    X(view_as_complex, 1, erased)           \
    X(view_as_real, 1, erased)              \
    X(permute, 1, shape)                    \
    X(reshape, 1, shape)                    \
    X(view, 1, shape)                       \
    X(unsafe_view, 1, shape)                \
    X(flatten, 1, shape)                    \
    X(unsqueeze, 1, shape)                  \
    X(squeeze_dim, 1, shape)                \
    X(squeeze_dims, 1, shape)               \
    X(cat, -1, shape)                       \
    X(stack, -1, shape)                     \
    X(t, 1, shape)                          \
    X(transpose, 1, shape)                  \
    X(select, 1, shape)                     \
    X(slice, 1, shape)                      \
    X(split, 1, shape)                      \
    X(split_with_sizes, 1, shape)           \
    X(chunk, 1, shape)                      \
    X(expand, 1, shape)                     \
    X(narrow, 1, shape)                     \
    X(roll, 1, shape)                       \
    X(flip, 1, shape)                       \
    X(repeat, 1, shape)                     \
    X(where, 3, shape)                      \
    X(sum, 1, shape)                        \
    X(sum_dim, 1, shape)                    \
    X(mean, 1, shape)                       \
    X(mean_dim, 1, shape)                   \
    X(cumsum, 1, shape)                     \
    X(prod_dim, 1, math)                    \
    X(mul, 2, math)                         \
    X(div, 2, math)                         \
    X(add, 2, math)                         \
    X(sub, 2, math)                         \
    X(add_scalar, 2, math)                  \
    X(sub_scalar, 2, math)                  \
    X(conj, 1, math)                        \
    X(conj_physical, 1, math)               \
    X(resolve_conj, 1, math)                \
    X(reciprocal, 1, math)                  \
    X(exp, 1, math)                         \
    X(expm1, 1, math)                       \
    X(log, 1, math)                         \
    X(log2, 1, math)                        \
    X(log10, 1, math)                       \
    X(log1p, 1, math)                       \
    X(sqrt, 1, math)                        \
    X(rsqrt, 1, math)                       \
    X(square, 1, math)                      \
    X(sgn, 1, math)                         \
    X(pow_scalar, 2, math)                  \
    X(pow_tensor, 2, math)                  \
    X(sin, 1, math)                         \
    X(cos, 1, math)                         \
    X(tan, 1, math)                         \
    X(sinh, 1, math)                        \
    X(cosh, 1, math)                        \
    X(tanh, 1, math)                        \
    X(asin, 1, math)                        \
    X(acos, 1, math)                        \
    X(atan, 1, math)                        \
    X(asinh, 1, math)                       \
    X(acosh, 1, math)                       \
    X(atanh, 1, math)                       \
    X(mm, 2, math)                          \
    X(bmm, 2, math)                         \
    X(matmul, 2, math)                      \
    X(dot, 2, math)                         \
    X(vdot, 2, math)                        \
    X(einsum, -1, math)                     \
    X(clamp, 3, math)                       \
    X(clamp_min, 2, math)                   \
    X(clamp_max, 2, math)                   \
    X(maximum, 2, math)                     \
    X(minimum, 2, math)                     \
    X(sigmoid, 1, math)                     \
    X(silu, 1, math)                        \
    X(erf, 1, math)                         \
    X(gelu, 1, math)                        \
    X(amax, 1, math)                        \
    X(amin, 1, math)                        \
    X(var, 1, math)                         \
    X(std_dev, 1, math)                     \
    X(softmax, 1, math)                     \
    X(log_softmax, 1, math)                 \
    X(layer_norm, 3, math)                  \
    X(rms_norm, 2, math)                    \
    X(ones_like, 1, construction)           \
    X(full_like, 2, construction)           \
    X(scalar_tensor, 1, construction)       \
    X(polar, 2, construction)               \
    X(abs, 1, real_output)                  \
    X(angle, 1, real_output)                \
    X(real, 1, real_output)                 \
    X(imag, 1, real_output)                 \
    X(isnan, 1, real_output)                \
    X(isinf, 1, real_output)                \
    X(neg, 1, elementwise_safe)             \
    X(mul_scalar, 2, elementwise_safe)      \
    X(div_scalar, 2, elementwise_safe)      \
    X(clone, 1, elementwise_safe)           \
    X(detach, 1, elementwise_safe)          \
    X(alias, 1, elementwise_safe)           \
    X(squeeze, 1, elementwise_safe)         \
    X(zeros_like, 1, elementwise_safe)      \
    X(ceil, 1, elementwise_safe)            \
    X(floor, 1, elementwise_safe)           \
    X(round, 1, elementwise_safe)           \
    X(trunc, 1, elementwise_safe)           \
    X(getitem, 1, elementwise_safe)         \
    X(sym_size, 1, elementwise_safe)

/// Every op of the list as a value, in table order (op::op_table[id] describes
/// it): what run-time code that must tell ops apart (the graph's IR) records,
/// rather than the op's name.
enum class op_id : std::uint16_t {
#define REALIFY_OP_ID(op_name, op_arity, op_kind_name) op_name,
    REALIFY_OP_LIST(REALIFY_OP_ID)
#undef REALIFY_OP_ID
};

namespace op {

#define REALIFY_DEFINE_OP_TAG(op_name, op_arity, op_kind_name)        \
    struct op_name {                                                  \
        static constexpr std::string_view name = #op_name;            \
        static constexpr int arity = op_arity;                        \
        static constexpr ::realify::op_kind kind = ::realify::op_kind::op_kind_name; \
        static constexpr ::realify::op_id id = ::realify::op_id::op_name; \
    };
REALIFY_OP_LIST(REALIFY_DEFINE_OP_TAG)
#undef REALIFY_DEFINE_OP_TAG

#define REALIFY_OP_TYPE(op_name, op_arity, op_kind_name) , op_name
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
    return std::array<op_info, sizeof...(Tags)>{op_info{Tags::name, Tags::arity, Tags::kind}...};
}
}  // namespace detail

/// name, arity and kind of every op, in the order of all_ops.
inline constexpr auto op_table = detail::make_op_table(all_ops{});

/// Number of op tags.
inline constexpr std::size_t op_count = all_ops::size;

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
