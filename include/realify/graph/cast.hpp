// Casts of graph nodes: PyTorch's tensor.to(dtype), .float() and type_as.
//
//   to<float|double>(real)                 converted (a cast node; the same type: no code)
//   to<std::complex<U>>(complex)           the components converted (a cast node)
//   to<std::complex<U>>(real)              x + 0i
//   to<float|double>(complex)              the real part (PyTorch discards the imaginary part)
//   to<bool>(x)                            x ≠ 0 (complex: either part; NaN is true)
//
// A cast that keeps the value's kind (real or complex) converts components
// (graph/evaluate.hpp); one that changes it is a node of its own tag whose
// one lowering is the eager realify::to<T> (realify/eager/cast.hpp), so the
// graph and the eager API convert alike.
#pragma once

#include <complex>
#include <string_view>
#include <type_traits>
#include <utility>

#include "realify/eager/cast.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/traits.hpp"

namespace realify::graph {

namespace detail {

/// The tag of a cast that changes a value's kind, to element type To.
template <class To>
struct to_kind {
    static constexpr std::string_view name = "to";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::math;
};

/// One element converted as PyTorch's .to(To) converts it (the node's
/// reference: its result type gives the node's type).
template <class To>
struct convert_element {
    template <class X>
    To operator()(X x) const {
        if constexpr (std::is_same_v<To, bool>) return x != X(0);
        else if constexpr (is_std_complex<To>::value) return To(x);
        else if constexpr (is_std_complex<X>::value) return static_cast<To>(x.real());
        else return static_cast<To>(x);
    }
};

/// Its lowering: the eager cast on the operand's memory.
template <class To>
struct to_kind_eager {
    using op = to_kind<To>;
    static constexpr std::string_view name = "to_eager";
    static constexpr std::string_view formula = "realify::to<T>: x + 0i, the real part, or x ≠ 0";
    template <class... A>
    static constexpr bool accepts = sizeof...(A) == 1 && (::realify::tensor_operand<A> && ...);
    template <class A>
    static auto apply(const A& a) {
        return realify::to<To>(a);
    }
};

template <class T>
inline constexpr bool castable_v = std::is_same_v<T, bool> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                   std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

}  // namespace detail

/// x.to(To): To bool, float, double, std::complex<float> or std::complex<double>.
template <class To, graph_node X>
auto to(X x) {
    static_assert(detail::castable_v<To>,
                  "realify::graph::to<T>: T must be bool, float, double, std::complex<float> or std::complex<double>");
    constexpr bool from_complex = traits_t<X>::is_complex;
    if constexpr (!std::is_same_v<To, bool> && detail::is_std_complex<To>::value == from_complex) {
        return cast_node<typename detail::component_of<To>::type, X>(std::move(x));
    } else {
        return custom_node<detail::to_kind<To>, detail::convert_element<To>, X>(detail::convert_element<To>{}, std::move(x));
    }
}
/// x.float()
template <graph_node X>
auto to_float(X x) {
    return to<float>(std::move(x));
}
/// x.type_as(like): like's dtype, complex included.
template <graph_node X, graph_node Like>
auto type_as(X x, const Like&) {
    return to<element_t<Like>>(std::move(x));
}

}  // namespace realify::graph

template <class To>
struct realify::dispatch::builtin_lowerings<realify::graph::detail::to_kind<To>> {
    using type = realify::type_list<realify::graph::detail::to_kind_eager<To>>;
};
