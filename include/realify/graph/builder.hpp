// The graph builder: placeholders, constants and graph ops named like
// PyTorch's. Nothing is computed here; each call returns a node whose type
// records the op and its operands.
//
//   auto x = graph::input<std::complex<float>>("x");
//   auto y = graph::exp(x * graph::conj(x));
#pragma once

#include <complex>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "realify/dispatch/lowerings/unary_math.hpp"
#include "realify/graph/cast.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/rules.hpp"
#include "realify/graph/traits.hpp"

namespace realify::graph {

namespace detail {
template <class E>
inline constexpr bool input_element_v = std::is_same_v<E, float> || std::is_same_v<E, double> ||
                                        std::is_same_v<E, std::complex<float>> || std::is_same_v<E, std::complex<double>> ||
                                        std::is_same_v<E, bool> || std::is_same_v<E, std::int32_t> ||
                                        std::is_same_v<E, std::int64_t>;

/// What graph::input<T> builds: T, or for a T it refuses, float — the nodes
/// built on it, the lowering and the run then raise no second error.
template <class T>
using input_type_t = std::conditional_t<input_element_v<typename element_traits<T>::element>, T, float>;
}  // namespace detail

/// A run-time input. T: element type (float, double, std::complex<float|double>,
/// and — as PyTorch's masks, indices and token ids — bool, std::int32_t,
/// std::int64_t) for any rank, or a container type for a static rank / fixed
/// shape. A bool or integer input goes where PyTorch takes one — where's
/// condition, a comparison, a cast (graph::to<float>(ids)) — and an op that
/// cannot take it refuses it by one static_assert naming the op. Any other
/// element type (int8, uint16, Eigen::half, …) is refused here, with the
/// supported list: no lowering would take it later.
template <class T>
input_node<detail::input_type_t<T>> input(std::string name) {
    using E = typename detail::element_traits<T>::element;
    static_assert(detail::input_element_v<E>,
                  "realify::graph::input<T>: T must be float, double, std::complex<float>, std::complex<double>, "
                  "bool, std::int32_t or std::int64_t (or an xtensor container of one, for a static rank or shape); "
                  "other integer and half tensors are not graph inputs: convert them first (xt::cast<float>(t))");
    return input_node<detail::input_type_t<T>>(std::move(name));
}

/// A constant tensor (copied into the graph), or a number.
template <class C>
auto constant(C value) {
    if constexpr (std::is_arithmetic_v<C> || detail::is_std_complex<C>::value) return scalar_node<C>(value);
    else return constant_node<C>(std::move(value));
}

namespace detail {
/// A node operand as it is (the node copies it once), a number as a number node.
template <class X>
decltype(auto) as_node(const X& x) {
    if constexpr (graph_node<X>) return (x);
    else return scalar_node<X>(x);
}
template <class X>
concept node_or_number = graph_node<X> || std::is_arithmetic_v<std::remove_cvref_t<X>> ||
                         is_std_complex<std::remove_cvref_t<X>>::value;
/// A complex node or number (nodes and numbers only; false for std::nullopt).
template <class X>
constexpr bool complex_operand_of() {
    using D = std::remove_cvref_t<X>;
    if constexpr (graph_node<D>) return traits_t<D>::is_complex;
    else return is_std_complex<D>::value;
}
template <class X>
inline constexpr bool is_complex_operand_v = complex_operand_of<X>();

template <class Tag, class... X>
auto make(shared_attrs attrs, X&&... x) {
    return node<Tag, std::remove_cvref_t<decltype(as_node(x))>...>(std::move(attrs), as_node(x)...);
}

// ---- ops no lowering accepts: refused where the user wrote them --------------------
/// The kind of an operand, as the refusal messages name it.
enum class operand_class : int { real = 0, complex = 1, real_number = 2, complex_number = 3 };
template <class C>
inline constexpr operand_class operand_class_of = static_cast<operand_class>((is_scalar_node_v<C> ? 2 : 0) +
                                                                          (traits_t<C>::is_complex ? 1 : 0));

/// The code of a refused node's operand kinds: one base-4 digit per operand,
/// the first operand's the most significant — kinds(complex, real) is 4,
/// kinds(complex, real, complex) is 17. One number per combination, so that
/// each combination gets its own static_assert (its own message).
template <class... K>
constexpr int kinds(operand_class first, K... rest) {
    int code = static_cast<int>(first);
    ((code = code * 4 + static_cast<int>(rest)), ...);
    return code;
}
/// The code of a node some rule evaluates (graph/rules.hpp): nothing refused.
inline constexpr int accepted_kinds = -1;

/// accepted_kinds when a node of type N is evaluated by some rule; else its
/// operands' kinds (cat / stack: their first operand's, which every one shares).
template <class N>
inline constexpr int refused_kinds_v = accepted_kinds;
template <class Tag, class C0, class... C>
inline constexpr int refused_kinds_v<node<Tag, C0, C...>> = [] {
    if constexpr (rule_of<node<Tag, C0, C...>>() != node_rule::fallback) return accepted_kinds;
    else if constexpr (list_tag<Tag>) return kinds(operand_class_of<C0>);
    else return kinds(operand_class_of<C0>, operand_class_of<C>...);
}();

/// A bool or integer tensor operand: a mask or index input, a comparison's, isnan's or isinf's result.
template <class C>
inline constexpr bool is_mask_operand_v = !is_scalar_node_v<C> && !traits_t<C>::is_complex &&
                                          !std::is_floating_point_v<typename traits_t<C>::real_type>;
/// True when N is refused and one of its operands is a mask: that is the
/// message then (whatever the other operands' kinds).
template <class N>
inline constexpr bool refused_mask_v = false;
template <class Tag, class... C>
inline constexpr bool refused_mask_v<node<Tag, C...>> = refused_kinds_v<node<Tag, C...>> != accepted_kinds &&
                                                        (is_mask_operand_v<C> || ...);

/// A bool or integer tensor node (is_mask_operand_v on any operand type).
template <class X>
constexpr bool mask_node() {
    using D = std::remove_cvref_t<X>;
    if constexpr (graph_node<D>) return is_mask_operand_v<D>;
    else return false;
}

/// An operand of + − × ÷ and pow as PyTorch promotes it (torch.result_type):
/// a bool or integer tensor beside a floating or complex tensor takes that
/// tensor's component type, beside a floating or complex number float32
/// (the default dtype); ÷ is true division, so beside another integer
/// tensor or an integral number it is float32 too. The cast is a node of
/// the graph (graph::to), as explain() shows. Anything else is passed as it
/// is — integer arithmetic (bool + bool, int + int) has no kernels and is
/// refused by the op's static_assert.
template <class Other, bool TrueDivision, class X>
decltype(auto) promoted(X&& x) {
    using O = std::remove_cvref_t<Other>;
    if constexpr (!mask_node<X>()) {
        return std::forward<X>(x);
    } else if constexpr (graph_node<O> && !mask_node<O>()) {
        return to<typename traits_t<O>::real_type>(std::remove_cvref_t<X>(std::forward<X>(x)));
    } else if constexpr (std::is_floating_point_v<O> || is_std_complex<O>::value ||
                         (TrueDivision && (mask_node<O>() || std::is_integral_v<O>))) {
        return to<float>(std::remove_cvref_t<X>(std::forward<X>(x)));
    } else {
        return std::forward<X>(x);
    }
}
}  // namespace detail

// An op of the table that no lowering accepts for its operand kinds (and
// that has no std::complex reference to fall back on, unlike graph::custom)
// is refused at the builder call by ONE static_assert naming the op, the
// kinds and the nearest spelling that works: "realify::graph::exp: no
// lowering accepts a complex number: …". The messages must be literals,
// hence one static_assert per kind combination, of which at most one fails.
// the code of a kind combination (detail::kinds), named: K2(real, complex)
#define REALIFY_GRAPH_K1(A) detail::kinds(detail::operand_class::A)
#define REALIFY_GRAPH_K2(A, B) detail::kinds(detail::operand_class::A, detail::operand_class::B)
#define REALIFY_GRAPH_K3(A, B, C) detail::kinds(detail::operand_class::A, detail::operand_class::B, detail::operand_class::C)
#define REALIFY_GRAPH_REFUSE(NAME, N, CODE, KINDS)                                 \
    static_assert(detail::refused_kinds_v<N> != (CODE) || detail::refused_mask_v<N>, \
                  "realify::graph::" NAME ": no lowering accepts " KINDS)
// where: its condition is a mask by design
#define REALIFY_GRAPH_REFUSE_KINDS(NAME, N, CODE, KINDS) \
    static_assert(detail::refused_kinds_v<N> != (CODE), "realify::graph::" NAME ": no lowering accepts " KINDS)
#define REALIFY_GRAPH_REFUSE_MASK(NAME, N)                                                                   \
    static_assert(!detail::refused_mask_v<N>,                                                                \
                  "realify::graph::" NAME ": no lowering accepts a bool or integer operand (a mask or index "  \
                  "input, or the result of a comparison, isnan or isinf): convert it first, "                  \
                  "graph::to<float>(mask), or make it where's condition")
// the nearest spellings, by kinds
#define REALIFY_GRAPH_NUMBER_FIX                                                                             \
    ": a number is not a tensor: compute the value in C++ (as std::exp(c) does for exp) and pass the result " \
    "as a number, or make a 0-d tensor of it, graph::scalar_tensor(c)"
#define REALIFY_GRAPH_MIXED_FIX                                                                                \
    ": make the kinds match, graph::to<std::complex<float>>(x) (or <std::complex<double>>) for the real one, " \
    "or graph::real(z) / graph::abs(z) for the complex one"
#define REALIFY_GRAPH_NUMBER_OPERAND_FIX                                                                    \
    ": a number is not a tensor here: scale with graph::mul(x, number), or make a 0-d tensor of it, "        \
    "graph::scalar_tensor(number)"
#define REALIFY_GRAPH_REFUSE_1(NAME, N)                                                                     \
    REALIFY_GRAPH_REFUSE_MASK(NAME, N);                                                                     \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K1(real),                                                   \
                  "a real operand: make it complex first, graph::to<std::complex<float>>(x)");              \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K1(complex),                                                \
                  "a complex operand: apply it to the parts, graph::real(z) and "                           \
                  "graph::imag(z), or to graph::abs(z)");                                                 \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K1(real_number), "a real number" REALIFY_GRAPH_NUMBER_FIX); \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K1(complex_number),                                         \
                  "a complex number" REALIFY_GRAPH_NUMBER_FIX)
#define REALIFY_GRAPH_REFUSE_2(NAME, N)                                                           \
    REALIFY_GRAPH_REFUSE_MASK(NAME, N);                                                           \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(real, real),                                   \
                  "operands (real, real): make them complex, graph::to<std::complex<float>>(x)"); \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(real, complex),                                \
                  "operands (real, complex)" REALIFY_GRAPH_MIXED_FIX);                            \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(real, real_number),                            \
                  "operands (real, real number)" REALIFY_GRAPH_NUMBER_OPERAND_FIX);               \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(real, complex_number),                         \
                  "operands (real, complex number)" REALIFY_GRAPH_NUMBER_OPERAND_FIX);            \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(complex, real),                                \
                  "operands (complex, real)" REALIFY_GRAPH_MIXED_FIX);                            \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(complex, complex),                             \
                  "operands (complex, complex): apply it to the parts, graph::real(z) and "       \
                  "graph::imag(z)");                                                               \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(complex, real_number),                         \
                  "operands (complex, real number)" REALIFY_GRAPH_NUMBER_OPERAND_FIX);            \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(complex, complex_number),                      \
                  "operands (complex, complex number)" REALIFY_GRAPH_NUMBER_OPERAND_FIX);         \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(real_number, real),                            \
                  "operands (real number, real)" REALIFY_GRAPH_NUMBER_OPERAND_FIX);               \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(real_number, complex),                         \
                  "operands (real number, complex)" REALIFY_GRAPH_NUMBER_OPERAND_FIX);            \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(complex_number, real),                         \
                  "operands (complex number, real)" REALIFY_GRAPH_NUMBER_OPERAND_FIX);            \
    REALIFY_GRAPH_REFUSE(NAME, N, REALIFY_GRAPH_K2(complex_number, complex),                      \
                  "operands (complex number, complex)" REALIFY_GRAPH_NUMBER_OPERAND_FIX)
#define REALIFY_GRAPH_REFUSE_3(NAME, N)                                                                     \
    REALIFY_GRAPH_REFUSE_KINDS(NAME, N, REALIFY_GRAPH_K3(real, real, real), "operands (real, real, real)"); \
    REALIFY_GRAPH_REFUSE_KINDS(NAME, N, REALIFY_GRAPH_K3(real, real, complex),                              \
                  "operands (real, real, complex)");                                                        \
    REALIFY_GRAPH_REFUSE_KINDS(NAME, N, REALIFY_GRAPH_K3(real, complex, real),                              \
                  "operands (real, complex, real)");                                                        \
    REALIFY_GRAPH_REFUSE_KINDS(NAME, N, REALIFY_GRAPH_K3(real, complex, complex),                           \
                  "operands (real, complex, complex)");                                                     \
    REALIFY_GRAPH_REFUSE_KINDS(NAME, N, REALIFY_GRAPH_K3(complex, real, real),                              \
                  "operands (complex, real, real)");                                                        \
    REALIFY_GRAPH_REFUSE_KINDS(NAME, N, REALIFY_GRAPH_K3(complex, real, complex),                           \
                  "operands (complex, real, complex)");                                                     \
    REALIFY_GRAPH_REFUSE_KINDS(NAME, N, REALIFY_GRAPH_K3(complex, complex, real),                           \
                  "operands (complex, complex, real)");                                                     \
    REALIFY_GRAPH_REFUSE_KINDS(NAME, N, REALIFY_GRAPH_K3(complex, complex, complex),                        \
                  "operands (complex, complex, complex)")
/// Builds a node and refuses it when no rule evaluates it (ARITY: 1, 2 or 3 kinds).
#define REALIFY_GRAPH_BUILD(ARITY, NAME, ...)                 \
    auto built = __VA_ARGS__;                                  \
    REALIFY_GRAPH_REFUSE_##ARITY(NAME, decltype(built));       \
    return built

// ---- erased ---------------------------------------------------------------------
template <graph_node X>
auto view_as_complex(X x) {
    static_assert(!is_complex_node_v<X>, "realify::graph::view_as_complex: the operand is already complex.");
    return detail::make<op::view_as_complex>({}, std::move(x));
}
template <graph_node X>
auto view_as_real(X x) {
    static_assert(is_complex_node_v<X>, "realify::graph::view_as_real: the operand is not complex.");
    return detail::make<op::view_as_real>({}, std::move(x));
}

// ---- elementwise binary (and the operators) -----------------------------------------
#define REALIFY_GRAPH_BINARY(NAME)                                                                   \
    template <class A, class B>                                                                      \
        requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>)) \
    auto NAME(A&& a, B&& b) {                                                                        \
        REALIFY_GRAPH_BUILD(2, #NAME, detail::make<op::NAME>({}, std::forward<A>(a), std::forward<B>(b))); \
    }
// + − × ÷ and pow: bool and integer tensors promoted as PyTorch promotes them (detail::promoted)
#define REALIFY_GRAPH_ARITHMETIC(NAME, TRUE_DIVISION)                                                \
    template <class A, class B>                                                                      \
        requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>)) \
    auto NAME(A&& a, B&& b) {                                                                        \
        REALIFY_GRAPH_BUILD(2, #NAME, detail::make<op::NAME>({}, detail::promoted<B, TRUE_DIVISION>(std::forward<A>(a)), \
                                                            detail::promoted<A, TRUE_DIVISION>(std::forward<B>(b)))); \
    }
REALIFY_GRAPH_ARITHMETIC(mul, false)
REALIFY_GRAPH_ARITHMETIC(div, true)
REALIFY_GRAPH_ARITHMETIC(add, false)
REALIFY_GRAPH_ARITHMETIC(sub, false)
REALIFY_GRAPH_ARITHMETIC(pow_tensor, false)
#undef REALIFY_GRAPH_ARITHMETIC
REALIFY_GRAPH_BINARY(polar)
REALIFY_GRAPH_BINARY(mm)
REALIFY_GRAPH_BINARY(bmm)
REALIFY_GRAPH_BINARY(matmul)
REALIFY_GRAPH_BINARY(dot)
REALIFY_GRAPH_BINARY(vdot)
#undef REALIFY_GRAPH_BINARY

template <class A, class B>
    requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>))
auto operator*(A&& a, B&& b) { return mul(std::forward<A>(a), std::forward<B>(b)); }
template <class A, class B>
    requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>))
auto operator/(A&& a, B&& b) { return div(std::forward<A>(a), std::forward<B>(b)); }
template <class A, class B>
    requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>))
auto operator+(A&& a, B&& b) { return add(std::forward<A>(a), std::forward<B>(b)); }
template <class A, class B>
    requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>))
auto operator-(A&& a, B&& b) { return sub(std::forward<A>(a), std::forward<B>(b)); }

// ---- ops with a number attribute ------------------------------------------------------
#define REALIFY_GRAPH_SCALAR_ATTR(NAME)                                   \
    template <graph_node X, class S>                                      \
    auto NAME(X x, S s) {                                                 \
        REALIFY_GRAPH_BUILD(1, #NAME, detail::make<op::NAME>(detail::with_scalar(std::complex<double>(s)), std::move(x))); \
    }
REALIFY_GRAPH_SCALAR_ATTR(mul_scalar)
REALIFY_GRAPH_SCALAR_ATTR(div_scalar)
REALIFY_GRAPH_SCALAR_ATTR(add_scalar)
REALIFY_GRAPH_SCALAR_ATTR(sub_scalar)
REALIFY_GRAPH_SCALAR_ATTR(pow_scalar)
REALIFY_GRAPH_SCALAR_ATTR(full_like)
#undef REALIFY_GRAPH_SCALAR_ATTR
template <graph_node X, class S>
auto pow(X x, S s) { return pow_scalar(std::move(x), s); }

// ---- unary ------------------------------------------------------------------------
// graph::NAME(x): every op of the list whose compiled kernels take one
// tensor (REALIFY_UNARY_KERNEL_OPS: exp, abs, sigmoid, …), and the unary ops
// without kernels after it.
#define REALIFY_GRAPH_UNARY(NAME)                         \
    template <graph_node X>                               \
    auto NAME(X x) {                                      \
        REALIFY_GRAPH_BUILD(1, #NAME, detail::make<op::NAME>({}, std::move(x))); \
    }
REALIFY_UNARY_KERNEL_OPS(REALIFY_GRAPH_UNARY)
REALIFY_GRAPH_UNARY(conj_physical)
REALIFY_GRAPH_UNARY(resolve_conj)
REALIFY_GRAPH_UNARY(isnan)
REALIFY_GRAPH_UNARY(isinf)
REALIFY_GRAPH_UNARY(clone)
REALIFY_GRAPH_UNARY(detach)
REALIFY_GRAPH_UNARY(alias)
REALIFY_GRAPH_UNARY(ones_like)
REALIFY_GRAPH_UNARY(zeros_like)
REALIFY_GRAPH_UNARY(empty_like)
REALIFY_GRAPH_UNARY(squeeze)
REALIFY_GRAPH_UNARY(sum)
REALIFY_GRAPH_UNARY(mean)
REALIFY_GRAPH_UNARY(t)
#undef REALIFY_GRAPH_UNARY
template <graph_node X>
auto operator-(X x) { return neg(std::move(x)); }

/// F.gelu(x, approximate): "none" (x·½·(1 + erf(x/√2))) or "tanh" (the tanh
/// approximation); another string is a realify::error here.
template <graph_node X>
auto gelu(X x, std::string_view approximate = "none") {
    REALIFY_GRAPH_BUILD(1, "gelu", detail::make<op::gelu>(
        detail::with_ints(gelu_approximate_of(approximate) == gelu_approximate::tanh ? 1 : 0), std::move(x)));
}

// ---- ordering: real operands only --------------------------------------------------
// Complex values have no ordering: a complex operand is refused by one
// static_assert naming the op, as PyTorch refuses it (the failing call
// returns no node, so no second error follows).
#define REALIFY_GRAPH_NO_ORDER(NAME, COMPLEX)                                                                   \
    static_assert(!(COMPLEX), "realify::graph::" NAME ": complex values have no ordering (PyTorch refuses them too)")
#define REALIFY_GRAPH_ORDERING(NAME)                                                                              \
    template <class A, class B>                                                                                   \
        requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>))     \
    auto NAME(A&& a, B&& b) {                                                                                     \
        constexpr bool complex = detail::is_complex_operand_v<A> || detail::is_complex_operand_v<B>;              \
        if constexpr (complex) {                                                                                  \
            REALIFY_GRAPH_NO_ORDER(#NAME, complex);                                                               \
            return 0;                                                                                             \
        } else {                                                                                                  \
            REALIFY_GRAPH_BUILD(2, #NAME, detail::make<op::NAME>({}, std::forward<A>(a), std::forward<B>(b)));   \
        }                                                                                                         \
    }
REALIFY_GRAPH_ORDERING(maximum)
REALIFY_GRAPH_ORDERING(minimum)
REALIFY_GRAPH_ORDERING(clamp_min)
REALIFY_GRAPH_ORDERING(clamp_max)
#undef REALIFY_GRAPH_ORDERING

/// torch.clamp(x, min, max): bounds are nodes, numbers or std::nullopt (at
/// least one given); clamp_min then clamp_max, one fused loop.
template <class X, class L, class H>
    requires(graph_node<X> && (detail::node_or_number<L> || std::is_same_v<std::remove_cvref_t<L>, std::nullopt_t>) &&
             (detail::node_or_number<H> || std::is_same_v<std::remove_cvref_t<H>, std::nullopt_t>))
auto clamp(X&& x, L&& lo, H&& hi) {
    constexpr bool no_lo = std::is_same_v<std::remove_cvref_t<L>, std::nullopt_t>;
    constexpr bool no_hi = std::is_same_v<std::remove_cvref_t<H>, std::nullopt_t>;
    static_assert(!(no_lo && no_hi), "realify::graph::clamp: at least one of min and max must be given (PyTorch's rule)");
    constexpr bool complex = detail::is_complex_operand_v<X> || (!no_lo && detail::is_complex_operand_v<L>) ||
                             (!no_hi && detail::is_complex_operand_v<H>);
    if constexpr (complex) {
        REALIFY_GRAPH_NO_ORDER("clamp", complex);
        return 0;
    } else if constexpr (no_lo) {
        return clamp_max(std::forward<X>(x), std::forward<H>(hi));
    } else if constexpr (no_hi) {
        return clamp_min(std::forward<X>(x), std::forward<L>(lo));
    } else {
        return clamp_max(clamp_min(std::forward<X>(x), std::forward<L>(lo)), std::forward<H>(hi));
    }
}
#undef REALIFY_GRAPH_NO_ORDER

// ---- shape ops ----------------------------------------------------------------------
#define REALIFY_GRAPH_DIMS(NAME)                                           \
    template <graph_node X>                                                \
    auto NAME(X x, dim_list dims) {                                        \
        REALIFY_GRAPH_BUILD(1, #NAME, detail::make<op::NAME>(detail::with_dims(std::move(dims)), std::move(x))); \
    }
REALIFY_GRAPH_DIMS(permute)
REALIFY_GRAPH_DIMS(reshape)
REALIFY_GRAPH_DIMS(view)
REALIFY_GRAPH_DIMS(unsafe_view)
REALIFY_GRAPH_DIMS(expand)
REALIFY_GRAPH_DIMS(flip)
REALIFY_GRAPH_DIMS(squeeze_dims)
#undef REALIFY_GRAPH_DIMS

template <graph_node X>
auto flatten(X x, std::ptrdiff_t start = 0, std::ptrdiff_t end = -1) {
    REALIFY_GRAPH_BUILD(1, "flatten", detail::make<op::flatten>(detail::with_ints(start, end), std::move(x)));
}
template <graph_node X>
auto unsqueeze(X x, std::ptrdiff_t dim) {
    REALIFY_GRAPH_BUILD(1, "unsqueeze", detail::make<op::unsqueeze>(detail::with_ints(dim), std::move(x)));
}
template <graph_node X>
auto squeeze(X x, std::ptrdiff_t dim) {
    REALIFY_GRAPH_BUILD(1, "squeeze", detail::make<op::squeeze_dim>(detail::with_ints(dim), std::move(x)));
}
template <graph_node X>
auto transpose(X x, std::ptrdiff_t d0, std::ptrdiff_t d1) {
    REALIFY_GRAPH_BUILD(1, "transpose", detail::make<op::transpose>(detail::with_ints(d0, d1), std::move(x)));
}
template <graph_node X>
auto select(X x, std::ptrdiff_t dim, std::ptrdiff_t index) {
    REALIFY_GRAPH_BUILD(1, "select", detail::make<op::select>(detail::with_ints(dim, index), std::move(x)));
}
template <graph_node X>
auto narrow(X x, std::ptrdiff_t dim, std::ptrdiff_t start, std::ptrdiff_t length) {
    REALIFY_GRAPH_BUILD(1, "narrow", detail::make<op::narrow>(detail::with_ints(dim, start, length), std::move(x)));
}
template <graph_node X>
auto slice(X x, std::ptrdiff_t dim, std::ptrdiff_t start, std::ptrdiff_t end, std::ptrdiff_t step = 1) {
    REALIFY_GRAPH_BUILD(1, "slice", detail::make<op::slice>(detail::with_ints(dim, start, end, step), std::move(x)));
}
template <graph_node X>
auto cumsum(X x, std::ptrdiff_t dim) {
    REALIFY_GRAPH_BUILD(1, "cumsum", detail::make<op::cumsum>(detail::with_ints(dim), std::move(x)));
}
/// x.prod(dim, keepdim): keepdim keeps the reduced axis as extent 1.
template <graph_node X>
auto prod(X x, std::ptrdiff_t dim, bool keepdim = false) {
    REALIFY_GRAPH_BUILD(1, "prod", detail::make<op::prod_dim>(detail::with_ints(dim, keepdim ? 1 : 0), std::move(x)));
}
/// x.sum(dims, keepdim) / x.mean(dims, keepdim) (PyTorch's sum.dim_IntList):
/// keepdim keeps each reduced axis as extent 1, so the result broadcasts
/// against x — `r / r.sum(-1, keepdim=True)` is `r / graph::sum(r, {-1}, true)`.
template <graph_node X>
auto sum(X x, dim_list dims, bool keepdim = false) {
    node_attrs a;
    a.dims = std::move(dims);
    a.i1 = keepdim ? 1 : 0;
    REALIFY_GRAPH_BUILD(1, "sum", detail::make<op::sum_dim>(std::move(a), std::move(x)));
}
template <graph_node X>
auto mean(X x, dim_list dims, bool keepdim = false) {
    node_attrs a;
    a.dims = std::move(dims);
    a.i1 = keepdim ? 1 : 0;
    REALIFY_GRAPH_BUILD(1, "mean", detail::make<op::mean_dim>(std::move(a), std::move(x)));
}
/// The op's name (aten's sum.dim_IntList) as a second spelling of sum over
/// dims, without keepdim.
template <graph_node X>
[[deprecated("use graph::sum(x, dims, keepdim): the one spelling of a sum over dims")]]
auto sum_dim(X x, dim_list dims) {
    return sum(std::move(x), std::move(dims), false);
}
template <graph_node X>
[[deprecated("use graph::mean(x, dims, keepdim): the one spelling of a mean over dims")]]
auto mean_dim(X x, dim_list dims) {
    return mean(std::move(x), std::move(dims), false);
}
/// x.amax(dims, keepdim) / x.amin(…): every dim when dims is empty; real
/// nodes (complex values have no ordering: one static_assert, as PyTorch).
#define REALIFY_GRAPH_EXTREMUM(NAME)                                                                     \
    template <graph_node X>                                                                              \
    auto NAME(X x, dim_list dims = {}, bool keepdim = false) {                                           \
        if constexpr (is_complex_node_v<X>) {                                                            \
            static_assert(!is_complex_node_v<X>,                                                         \
                          "realify::graph::" #NAME ": complex values have no ordering (PyTorch refuses them too)"); \
            return 0;                                                                                    \
        } else {                                                                                         \
            node_attrs a;                                                                                \
            a.dims = std::move(dims);                                                                    \
            a.i1 = keepdim ? 1 : 0;                                                                      \
            REALIFY_GRAPH_BUILD(1, #NAME, detail::make<op::NAME>(std::move(a), std::move(x)));           \
        }                                                                                                \
    }
REALIFY_GRAPH_EXTREMUM(amax)
REALIFY_GRAPH_EXTREMUM(amin)
#undef REALIFY_GRAPH_EXTREMUM
/// x.var(dims, correction=…, keepdim=…) / x.std(…) (std_dev): every dim when
/// dims is empty; a real node for real and complex x.
template <graph_node X>
auto var(X x, dim_list dims = {}, double correction = 1, bool keepdim = false) {
    node_attrs a;
    a.dims = std::move(dims);
    a.i1 = keepdim ? 1 : 0;
    a.scalar = correction;
    REALIFY_GRAPH_BUILD(1, "var", detail::make<op::var>(std::move(a), std::move(x)));
}
template <graph_node X>
auto std_dev(X x, dim_list dims = {}, double correction = 1, bool keepdim = false) {
    node_attrs a;
    a.dims = std::move(dims);
    a.i1 = keepdim ? 1 : 0;
    a.scalar = correction;
    REALIFY_GRAPH_BUILD(1, "std_dev", detail::make<op::std_dev>(std::move(a), std::move(x)));
}
/// torch.einsum(equation, x…): "bhqd,bhkd->bhqk" … parsed when the graph
/// runs (realify/engine/einsum.hpp); real nodes, or complex ones, of one dtype.
template <graph_node X, graph_node... Xs>
auto einsum(std::string equation, X x, Xs... xs) {
    node_attrs a;
    a.text = std::move(equation);
    auto built = detail::make<op::einsum>(std::move(a), std::move(x), std::move(xs)...);
    static_assert(detail::refused_kinds_v<decltype(built)> == detail::accepted_kinds,
                  "realify::graph::einsum: no lowering accepts these operands (all real, or all complex, of one dtype)");
    return built;
}
/// F.softmax(x, dim) / F.log_softmax(x, dim): one row at a time in L1
/// (realify/engine/rows.hpp), numerically stable (the row's max subtracted).
template <graph_node X>
auto softmax(X x, std::ptrdiff_t dim) {
    REALIFY_GRAPH_BUILD(1, "softmax", detail::make<op::softmax>(detail::with_ints(dim), std::move(x)));
}
template <graph_node X>
auto log_softmax(X x, std::ptrdiff_t dim) {
    REALIFY_GRAPH_BUILD(1, "log_softmax", detail::make<op::log_softmax>(detail::with_ints(dim), std::move(x)));
}
namespace detail {
/// normalized_shape and eps as attributes; an empty normalized_shape is a
/// shape_error here, where the graph is built (PyTorch: "Expected
/// normalized_shape to be at least 1-dimensional").
inline node_attrs norm_attrs(std::string_view op, dim_list normalized_shape, double eps) {
    if (normalized_shape.empty())
        throw shape_error("realify::graph::" + std::string(op) +
                          ": normalized_shape is (): it must name at least one trailing dim of the input, as PyTorch requires");
    node_attrs a;
    a.dims = std::move(normalized_shape);
    a.scalar = eps;
    return a;
}
/// rms_norm's default eps: the machine epsilon of x's component type (PyTorch's).
template <class X>
inline constexpr double epsilon_of = std::numeric_limits<typename traits_t<X>::real_type>::epsilon();
}  // namespace detail
/// F.layer_norm(x, normalized_shape, weight, bias, eps): no bias is
/// layer_norm(x, shape, w) — a bias alone is layer_norm(x, shape) + b.
template <graph_node X>
auto layer_norm(X x, dim_list normalized_shape, double eps = 1e-5) {
    REALIFY_GRAPH_BUILD(1, "layer_norm", detail::make<op::layer_norm>(detail::norm_attrs("layer_norm", std::move(normalized_shape), eps),
                                                                       std::move(x)));
}
template <graph_node X, graph_node W>
auto layer_norm(X x, dim_list normalized_shape, W weight, double eps = 1e-5) {
    REALIFY_GRAPH_BUILD(2, "layer_norm", detail::make<op::layer_norm>(detail::norm_attrs("layer_norm", std::move(normalized_shape), eps),
                                                                       std::move(x), std::move(weight)));
}
template <graph_node X, graph_node W, graph_node B>
auto layer_norm(X x, dim_list normalized_shape, W weight, B bias, double eps = 1e-5) {
    REALIFY_GRAPH_BUILD(3, "layer_norm", detail::make<op::layer_norm>(detail::norm_attrs("layer_norm", std::move(normalized_shape), eps),
                                                                       std::move(x), std::move(weight), std::move(bias)));
}
/// F.rms_norm(x, normalized_shape, weight, eps) — Llama's RMSNorm(dim, eps)
/// is rms_norm(x, {dim}, weight, eps); eps by default the machine epsilon.
template <graph_node X>
auto rms_norm(X x, dim_list normalized_shape, double eps = detail::epsilon_of<X>) {
    REALIFY_GRAPH_BUILD(1, "rms_norm", detail::make<op::rms_norm>(detail::norm_attrs("rms_norm", std::move(normalized_shape), eps),
                                                                   std::move(x)));
}
template <graph_node X, graph_node W>
auto rms_norm(X x, dim_list normalized_shape, W weight, double eps = detail::epsilon_of<X>) {
    REALIFY_GRAPH_BUILD(2, "rms_norm", detail::make<op::rms_norm>(detail::norm_attrs("rms_norm", std::move(normalized_shape), eps),
                                                                   std::move(x), std::move(weight)));
}
template <graph_node X>
auto roll(X x, dim_list shifts, dim_list dims) {
    REALIFY_GRAPH_BUILD(1, "roll", detail::make<op::roll>(detail::roll_attrs(std::move(shifts), dims), std::move(x)));
}
template <graph_node X>
auto repeat(X x, dim_list repeats) {
    REALIFY_GRAPH_BUILD(1, "repeat", detail::make<op::repeat>(detail::with_dims(std::move(repeats)), std::move(x)));
}
/// The pieces of torch.split / split_with_sizes / chunk. How many there are
/// is known only once shapes are, so a piece is taken by index — PyTorch's
/// getitem on the op's list: `auto halves = graph::chunk(x, 2, -1);` then
/// halves[0], halves[1]. Each piece is a node of the op (lowered through the
/// table); an index past the last piece is a shape_error when the graph runs.
template <class Tag, class X>
struct pieces {
    X source;
    detail::shared_attrs attrs;
    node<Tag, X> operator[](std::size_t index) const {
        node_attrs a = attrs.get();
        a.i2 = static_cast<std::ptrdiff_t>(index);
        return node<Tag, X>(std::move(a), source);
    }
};
template <graph_node X>
pieces<op::split, X> split(X x, std::ptrdiff_t split_size, std::ptrdiff_t dim = 0) {
    using piece = node<op::split, X>;
    REALIFY_GRAPH_REFUSE_1("split", piece);
    return {std::move(x), detail::with_ints(split_size, dim)};
}
template <graph_node X>
pieces<op::split_with_sizes, X> split_with_sizes(X x, dim_list sizes, std::ptrdiff_t dim = 0) {
    node_attrs a;
    a.dims = std::move(sizes);
    a.i1 = dim;
    using piece = node<op::split_with_sizes, X>;
    REALIFY_GRAPH_REFUSE_1("split_with_sizes", piece);
    return {std::move(x), std::move(a)};
}
template <graph_node X>
pieces<op::chunk, X> chunk(X x, std::ptrdiff_t chunks, std::ptrdiff_t dim = 0) {
    using piece = node<op::chunk, X>;
    REALIFY_GRAPH_REFUSE_1("chunk", piece);
    return {std::move(x), detail::with_ints(chunks, dim)};
}
/// x[index] along dim 0 (FX's getitem on a complex tensor).
template <graph_node X>
auto getitem(X x, std::ptrdiff_t index) {
    REALIFY_GRAPH_BUILD(1, "getitem", detail::make<op::getitem>(detail::with_ints(index), std::move(x)));
}
/// A 0-d tensor holding a number (a complex value is kept — Torch-TensorRT's complex lowering replaced it by 0.0).
template <class S>
    requires(std::is_floating_point_v<S> || detail::is_std_complex<S>::value)
auto scalar_tensor(S value) {
    REALIFY_GRAPH_BUILD(1, "scalar_tensor", detail::make<op::scalar_tensor>({}, scalar_node<S>(value)));
}
/// torch.cat / torch.stack of tensors of one type along dim.
template <graph_node X, graph_node... Xs>
auto cat(std::ptrdiff_t dim, X x, Xs... xs) {
    static_assert(((std::is_same_v<typename traits_t<X>::real_type, typename traits_t<Xs>::real_type> &&
                    traits_t<X>::is_complex == traits_t<Xs>::is_complex) && ...),
                  "realify::graph::cat: every operand must have the same element type.");
    REALIFY_GRAPH_BUILD(1, "cat", detail::make<op::cat>(detail::with_ints(dim), std::move(x), std::move(xs)...));
}
/// torch.hstack: cat along dim 1 (dim 0 of 1-D tensors).
template <graph_node X, graph_node... Xs>
auto hstack(X x, Xs... xs) {
    static_assert(((std::is_same_v<typename traits_t<X>::real_type, typename traits_t<Xs>::real_type> &&
                    traits_t<X>::is_complex == traits_t<Xs>::is_complex) && ...),
                  "realify::graph::hstack: every operand must have the same element type.");
    REALIFY_GRAPH_BUILD(1, "hstack", detail::make<op::hstack>({}, std::move(x), std::move(xs)...));
}
/// torch.triu(x, diagonal) / torch.tril(x, diagonal): the triangle of the last
/// two dims (every matrix of a batch), the rest zero; real or complex.
template <graph_node X>
auto triu(X x, std::ptrdiff_t diagonal = 0) {
    static_assert(std::is_floating_point_v<typename traits_t<X>::real_type>,
                  "realify::graph::triu: the operand must be a float, double or complex tensor");
    return detail::make<op::triu>(detail::with_ints(diagonal), std::move(x));
}
template <graph_node X>
auto tril(X x, std::ptrdiff_t diagonal = 0) {
    static_assert(std::is_floating_point_v<typename traits_t<X>::real_type>,
                  "realify::graph::tril: the operand must be a float, double or complex tensor");
    return detail::make<op::tril>(detail::with_ints(diagonal), std::move(x));
}
template <graph_node X, graph_node... Xs>
auto stack(std::ptrdiff_t dim, X x, Xs... xs) {
    static_assert(((std::is_same_v<typename traits_t<X>::real_type, typename traits_t<Xs>::real_type> &&
                    traits_t<X>::is_complex == traits_t<Xs>::is_complex) && ...),
                  "realify::graph::stack: every operand must have the same element type.");
    REALIFY_GRAPH_BUILD(1, "stack", detail::make<op::stack>(detail::with_ints(dim), std::move(x), std::move(xs)...));
}
/// torch.where(cond, a, b): cond a bool (or real) node — `x > 0`, isnan(x) —,
/// a and b nodes or numbers (`where(r > 0, r, 0.0)`).
template <graph_node C, class A, class B>
    requires(detail::node_or_number<A> && detail::node_or_number<B>)
auto where(C c, A&& a, B&& b) {
    auto built = detail::make<op::where>({}, std::move(c), std::forward<A>(a), std::forward<B>(b));
    REALIFY_GRAPH_REFUSE_3("where", decltype(built));
    // numbers as a and b: refused (as integers or bools, not lowered) by one more message
    constexpr int code = detail::refused_kinds_v<decltype(built)>;
    static_assert(code == detail::accepted_kinds || code == REALIFY_GRAPH_K3(real, real, real) ||
                      code == REALIFY_GRAPH_K3(real, real, complex) || code == REALIFY_GRAPH_K3(real, complex, real) ||
                      code == REALIFY_GRAPH_K3(real, complex, complex) || code == REALIFY_GRAPH_K3(complex, real, real) ||
                      code == REALIFY_GRAPH_K3(complex, real, complex) || code == REALIFY_GRAPH_K3(complex, complex, real) ||
                      code == REALIFY_GRAPH_K3(complex, complex, complex),
                  "realify::graph::where: no lowering accepts these operands (a and b: float, double or complex "
                  "nodes or numbers)");
    return built;
}

// ---- user ops ---------------------------------------------------------------------
/// A node of a user op tag Tag (name, arity, kind — see realify::op_tag).
/// `reference` computes one element on std::complex / real numbers: it is the
/// fallback when no lowering of the dispatch table accepts the node.
template <class Tag, class Reference, graph_node... X>
auto custom(Reference reference, X... x) {
    static_assert(op_tag<Tag>, "realify::graph::custom<Tag>: Tag needs static name, arity and kind.");
    return custom_node<Tag, Reference, X...>(std::move(reference), std::move(x)...);
}

#undef REALIFY_GRAPH_BUILD
#undef REALIFY_GRAPH_NUMBER_OPERAND_FIX
#undef REALIFY_GRAPH_MIXED_FIX
#undef REALIFY_GRAPH_NUMBER_FIX
#undef REALIFY_GRAPH_REFUSE_MASK
#undef REALIFY_GRAPH_REFUSE_KINDS
#undef REALIFY_GRAPH_REFUSE_3
#undef REALIFY_GRAPH_REFUSE_2
#undef REALIFY_GRAPH_REFUSE_1
#undef REALIFY_GRAPH_REFUSE
#undef REALIFY_GRAPH_K3
#undef REALIFY_GRAPH_K2
#undef REALIFY_GRAPH_K1

}  // namespace realify::graph
