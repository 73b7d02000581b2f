// Comparisons and logical ops of graph nodes: gt lt ge le eq ne and the operators
// > < >= <= == != between nodes and numbers, each giving a bool node —
// PyTorch's `r > 0`, the condition `where` takes: `where(r > 0, r, -r)`.
//
// They are not ops of realify's table (their results are bool, never
// complex, so there is nothing to lower to real arithmetic): each is a node
// of its own tag whose one lowering runs the comparison element by element
// through the elementwise engine, in the component type PyTorch's promotion
// gives the operands (a float node against 0.5 compares in float). Ordering
// a complex operand is refused at the builder call, as PyTorch refuses it;
// eq / ne compare complex values as PyTorch does (both parts equal).
#pragma once

#include <functional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/graph/builder.hpp"
#include "realify/graph/rules.hpp"
#include "realify/graph/table_route.hpp"

namespace realify::graph {

namespace compare_op {
/// The tag of a comparison: its name, arity and kind (an op tag as
/// graph::custom takes it), the std:: comparison, whether it orders.
template <class Compare, bool Ordering>
struct comparison {
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::math;
    static constexpr bool ordering = Ordering;
    using compare = Compare;
};
struct gt : comparison<std::greater<>, true> {
    static constexpr std::string_view name = "gt";
};
struct lt : comparison<std::less<>, true> {
    static constexpr std::string_view name = "lt";
};
struct ge : comparison<std::greater_equal<>, true> {
    static constexpr std::string_view name = "ge";
};
struct le : comparison<std::less_equal<>, true> {
    static constexpr std::string_view name = "le";
};
struct eq : comparison<std::equal_to<>, false> {
    static constexpr std::string_view name = "eq";
};
struct ne : comparison<std::not_equal_to<>, false> {
    static constexpr std::string_view name = "ne";
};
}  // namespace compare_op

namespace detail {

/// Operands a comparison takes: two real operands, a tensor among them —
/// floating, integer (index and token-id inputs) or bool (masks), compared
/// in the type C++ promotes them to, which is PyTorch's promotion for two
/// tensors (an int32 against an int64 tensor compares in int64, an integer
/// against a float tensor in float); eq / ne also complex ones.
template <bool Ordering, class... A>
inline constexpr bool comparable = false;
template <bool Ordering, class A, class B>
inline constexpr bool comparable<Ordering, A, B> =
    (real_operand<A> && real_operand<B> && dispatch::lowering::some_tensor<A, B>) ||
    (!Ordering && dispatch::lowering::some_complex<A, B>);

/// The lowering of a comparison: the std:: comparison per element (complex
/// operands of eq / ne: both parts), a bool tensor of the broadcast shape.
template <class Tag>
struct compare_elements {
    using op = Tag;
    static constexpr std::string_view name = Tag::name;
    static constexpr std::string_view formula = "x ∘ y per element, a bool tensor (eq / ne of complex values: both parts)";
    template <class... A>
    static constexpr bool accepts = comparable<Tag::ordering, A...>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        return dispatch::lowering::elementwise<Tag>(
            []<class X, class Y>(X x, Y y) -> bool {
                if constexpr (std::is_arithmetic_v<X> && std::is_arithmetic_v<Y>) {
                    return typename Tag::compare{}(x, y);
                } else {
                    const auto p = kernels::to_pair(x), q = kernels::to_pair(y);
                    const bool same = p.re == q.re && p.im == q.im;
                    return std::is_same_v<Tag, compare_op::eq> ? same : !same;
                }
            },
            a, b);
    }
};

/// The kinds of a comparison's operands (nodes or numbers), as the
/// builder's refusals count them (detail::kinds of detail::operand_class).
template <class X>
using operand_node_t = std::remove_cvref_t<decltype(as_node(std::declval<X>()))>;
template <class A, class B>
inline constexpr int comparison_kinds = kinds(operand_class_of<operand_node_t<A>>, operand_class_of<operand_node_t<B>>);
template <class X>
inline constexpr bool complex_operand_v = traits_t<operand_node_t<X>>::is_complex;

/// The node of comparison Tag between a and b (nodes or numbers); one
/// static_assert when no lowering takes the operands (a complex operand of
/// an ordering never gets here: refused by the op, naming it).
template <class Tag, class A, class B>
auto make_comparison(A&& a, B&& b) {
    auto x = as_node(std::forward<A>(a));
    auto y = as_node(std::forward<B>(b));
    using N = custom_node<Tag, typename Tag::compare, decltype(x), decltype(y)>;
    static_assert(table_of<N>::ok,
                  "realify::graph comparison (gt lt ge le eq ne, > < >= <= == !=): the operands must be real "
                  "(float, double, integer or bool) tensors and numbers (eq, ne: also complex ones)");
    return N(typename Tag::compare{}, std::move(x), std::move(y));
}

}  // namespace detail

// Ordering a complex operand: one static_assert naming the op and the
// operand kinds (detail::kinds), as the builder's
// refusals do; the messages are literals, at most one fails.
#define REALIFY_GRAPH_NO_ORDERING_K(A, B) detail::kinds(detail::operand_class::A, detail::operand_class::B)
#define REALIFY_GRAPH_NO_ORDERING(NAME, OPERATOR, CODE)                                             \
    static_assert(CODE != REALIFY_GRAPH_NO_ORDERING_K(real, complex),                               \
                  "realify::graph::" #NAME " (" #OPERATOR "): operands (real, complex): "           \
                                 "complex values have no ordering (PyTorch refuses them too)");     \
    static_assert(CODE != REALIFY_GRAPH_NO_ORDERING_K(real, complex_number),                        \
                  "realify::graph::" #NAME " (" #OPERATOR "): operands (real, complex number): "    \
                                 "complex values have no ordering (PyTorch refuses them too)");     \
    static_assert(CODE != REALIFY_GRAPH_NO_ORDERING_K(complex, real),                               \
                  "realify::graph::" #NAME " (" #OPERATOR "): operands (complex, real): "           \
                                 "complex values have no ordering (PyTorch refuses them too)");     \
    static_assert(CODE != REALIFY_GRAPH_NO_ORDERING_K(complex, complex),                            \
                  "realify::graph::" #NAME " (" #OPERATOR "): operands (complex, complex): "        \
                                 "complex values have no ordering (PyTorch refuses them too)");     \
    static_assert(CODE != REALIFY_GRAPH_NO_ORDERING_K(complex, real_number),                        \
                  "realify::graph::" #NAME " (" #OPERATOR "): operands (complex, real number): "    \
                                 "complex values have no ordering (PyTorch refuses them too)");     \
    static_assert(CODE != REALIFY_GRAPH_NO_ORDERING_K(complex, complex_number),                     \
                  "realify::graph::" #NAME " (" #OPERATOR "): operands (complex, complex number): " \
                                 "complex values have no ordering (PyTorch refuses them too)");     \
    static_assert(CODE != REALIFY_GRAPH_NO_ORDERING_K(real_number, complex),                        \
                  "realify::graph::" #NAME " (" #OPERATOR "): operands (real number, complex): "    \
                                 "complex values have no ordering (PyTorch refuses them too)");     \
    static_assert(CODE != REALIFY_GRAPH_NO_ORDERING_K(complex_number, real),                        \
                  "realify::graph::" #NAME " (" #OPERATOR "): operands (complex number, real): "    \
                                 "complex values have no ordering (PyTorch refuses them too)");     \
    static_assert(CODE != REALIFY_GRAPH_NO_ORDERING_K(complex_number, complex),                     \
                  "realify::graph::" #NAME " (" #OPERATOR "): operands (complex number, complex): " \
                                 "complex values have no ordering (PyTorch refuses them too)")
#define REALIFY_GRAPH_COMPARISON(NAME, OPERATOR, ORDERING)                                                    \
    template <class A, class B>                                                                               \
        requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>)) \
    auto NAME(A&& a, B&& b) {                                                                                 \
        if constexpr (ORDERING && (detail::complex_operand_v<A> || detail::complex_operand_v<B>)) {           \
            REALIFY_GRAPH_NO_ORDERING(NAME, OPERATOR, (detail::comparison_kinds<A, B>));                       \
            return 0; /* no node: the assertion above is the one error */                                    \
        } else {                                                                                              \
            return detail::make_comparison<compare_op::NAME>(std::forward<A>(a), std::forward<B>(b));        \
        }                                                                                                     \
    }                                                                                                         \
    template <class A, class B>                                                                               \
        requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>)) \
    auto operator OPERATOR(A&& a, B&& b) {                                                                    \
        return NAME(std::forward<A>(a), std::forward<B>(b));                                                  \
    }
REALIFY_GRAPH_COMPARISON(gt, >, true)
REALIFY_GRAPH_COMPARISON(lt, <, true)
REALIFY_GRAPH_COMPARISON(ge, >=, true)
REALIFY_GRAPH_COMPARISON(le, <=, true)
REALIFY_GRAPH_COMPARISON(eq, ==, false)
REALIFY_GRAPH_COMPARISON(ne, !=, false)
#undef REALIFY_GRAPH_COMPARISON
#undef REALIFY_GRAPH_NO_ORDERING
#undef REALIFY_GRAPH_NO_ORDERING_K

// ---- logical ops: torch.logical_and / or / xor / not -------------------------------
// Each operand is read as PyTorch reads it, x ≠ 0 (a bool mask as it is, an
// integer or float tensor: nonzero is true, NaN is true), and the result is
// a bool tensor of the broadcast shape. Like the comparisons, a node of its
// own tag whose one lowering runs element by element through the
// elementwise engine. Complex operands are refused by a static_assert (take
// graph::ne(z, 0) first).
namespace logical_op {
template <class F, int Arity>
struct logical {
    static constexpr int arity = Arity;
    static constexpr op_kind kind = op_kind::math;
    /// The op on the operands' truth values, one element.
    struct reference {
        template <class... X>
        bool operator()(X... x) const {
            return F{}((x != X(0))...);
        }
    };
};
struct exclusive_or {
    bool operator()(bool a, bool b) const { return a != b; }
};
struct logical_and : logical<std::logical_and<>, 2> {
    static constexpr std::string_view name = "logical_and";
};
struct logical_or : logical<std::logical_or<>, 2> {
    static constexpr std::string_view name = "logical_or";
};
struct logical_xor : logical<exclusive_or, 2> {
    static constexpr std::string_view name = "logical_xor";
};
struct logical_not : logical<std::logical_not<>, 1> {
    static constexpr std::string_view name = "logical_not";
};
}  // namespace logical_op

namespace detail {
/// The lowering of a logical op: its reference per element over real
/// operands (a tensor among them), a bool tensor of the broadcast shape.
template <class Tag>
struct logical_elements {
    using op = Tag;
    static constexpr std::string_view name = Tag::name;
    static constexpr std::string_view formula = "(x ≠ 0) ∘ (y ≠ 0) per element, a bool tensor";
    template <class... A>
    static constexpr bool accepts = sizeof...(A) == Tag::arity && (real_operand<A> && ...) &&
                                    (real_tensor_operand<A> || ...);
    template <class... A>
    static auto apply(const A&... a) {
        return dispatch::lowering::elementwise<Tag>(typename Tag::reference{}, a...);
    }
};

template <class Tag, class... A>
auto make_logical(A&&... a) {
    static_assert(!(complex_operand_v<A> || ...),
                  "realify::graph::logical_and / logical_or / logical_xor / logical_not: complex operands are not "
                  "taken here: compare them first, graph::ne(z, 0)");
    using N = custom_node<Tag, typename Tag::reference, operand_node_t<A>...>;
    static_assert(table_of<N>::ok, "realify::graph logical op: the operands must be real (bool, integer or floating) "
                                   "tensors or numbers, a tensor among them");
    return N(typename Tag::reference{}, as_node(std::forward<A>(a))...);
}
}  // namespace detail

/// torch.logical_and(a, b): (a ≠ 0) ∧ (b ≠ 0), a bool node.
template <class A, class B>
    requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>))
auto logical_and(A&& a, B&& b) {
    return detail::make_logical<logical_op::logical_and>(std::forward<A>(a), std::forward<B>(b));
}
/// torch.logical_or(a, b): (a ≠ 0) ∨ (b ≠ 0), a bool node.
template <class A, class B>
    requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>))
auto logical_or(A&& a, B&& b) {
    return detail::make_logical<logical_op::logical_or>(std::forward<A>(a), std::forward<B>(b));
}
/// torch.logical_xor(a, b): (a ≠ 0) ≠ (b ≠ 0), a bool node.
template <class A, class B>
    requires(detail::node_or_number<A> && detail::node_or_number<B> && (graph_node<A> || graph_node<B>))
auto logical_xor(A&& a, B&& b) {
    return detail::make_logical<logical_op::logical_xor>(std::forward<A>(a), std::forward<B>(b));
}
/// torch.logical_not(x): x = 0, a bool node.
template <graph_node X>
auto logical_not(X x) {
    return detail::make_logical<logical_op::logical_not>(std::move(x));
}

}  // namespace realify::graph

// Each comparison's one lowering (the dispatch table's extension point, for
// the graph's own tags).
#define REALIFY_GRAPH_COMPARISON_LOWERING(NAME)                                             \
    template <>                                                                             \
    struct realify::dispatch::builtin_lowerings<realify::graph::compare_op::NAME> {         \
        using type = realify::type_list<realify::graph::detail::compare_elements<realify::graph::compare_op::NAME>>; \
    };
REALIFY_GRAPH_COMPARISON_LOWERING(gt)
REALIFY_GRAPH_COMPARISON_LOWERING(lt)
REALIFY_GRAPH_COMPARISON_LOWERING(ge)
REALIFY_GRAPH_COMPARISON_LOWERING(le)
REALIFY_GRAPH_COMPARISON_LOWERING(eq)
REALIFY_GRAPH_COMPARISON_LOWERING(ne)
#undef REALIFY_GRAPH_COMPARISON_LOWERING

// Each logical op's one lowering.
#define REALIFY_GRAPH_LOGICAL_LOWERING(NAME)                                                                      \
    template <>                                                                                                   \
    struct realify::dispatch::builtin_lowerings<realify::graph::logical_op::NAME> {                               \
        using type = realify::type_list<realify::graph::detail::logical_elements<realify::graph::logical_op::NAME>>; \
    };
REALIFY_GRAPH_LOGICAL_LOWERING(logical_and)
REALIFY_GRAPH_LOGICAL_LOWERING(logical_or)
REALIFY_GRAPH_LOGICAL_LOWERING(logical_xor)
REALIFY_GRAPH_LOGICAL_LOWERING(logical_not)
#undef REALIFY_GRAPH_LOGICAL_LOWERING
