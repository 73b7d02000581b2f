// Tensor-level user ops: graph::tensor_op<"name">(fn, x...) — a node whose
// implementation is the user's function on whole tensors (xtensor code, or
// Eigen code mapping the operands' memory), real or complex in and out, its
// shape whatever fn returns.
//
// The node is opaque to the passes — never fused, rewritten or merged by CSE
// — and it is a boundary of complex subgraphs, like Torch-TensorRT's graph
// break: its complex operands end the subgraphs below it (their values are
// materialised as tensors), its complex result feeds the subgraphs above it
// as a boundary input (graph/detect.hpp). explain() lists it.
//
// fn receives each operand as a read-only xtensor adaptor of the operand's
// value (element type float, double or std::complex<float|double>: a complex
// value's (re, im) pairs seen as std::complex, no copy) and returns an xtensor
// expression or container; it is evaluated into a row-major tensor at once,
// while the operands are alive. Its result element type is deduced, or
// declared and checked: graph::tensor_op<"rms_norm", float>(fn, x).
#pragma once

#include <any>
#include <complex>
#include <cstddef>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>

#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"
#include "realify/layout/pointer_cast.hpp"

namespace realify::graph {

/// graph::tensor_op's default Result: the element type fn returns.
struct deduce_result {};

namespace detail {

/// What fn receives for an operand of element type E: a read-only adaptor of
/// the value's contiguous row-major memory.
template <class E>
using tensor_op_operand_t = decltype(xt::adapt(std::declval<const E*>(), std::size_t{}, xt::no_ownership(),
                                               std::declval<const std::vector<std::size_t>&>()));

template <class E, class T>
tensor_op_operand_t<E> tensor_op_operand(const tensor_value<T>& v) {
    const std::vector<std::size_t> shape(v.shape.begin(), v.shape.end());
    if constexpr (is_std_complex<E>::value) {
        return xt::adapt(realify::detail::as_complex_pointer(static_cast<const T*>(v.data)), v.count(), xt::no_ownership(), shape);
    } else {
        return xt::adapt(static_cast<const T*>(v.data), v.count(), xt::no_ownership(), shape);
    }
}

template <bool Invocable, class Fn, class... A>
struct invoke_or_void {
    using type = void;
};
template <class Fn, class... A>
struct invoke_or_void<true, Fn, A...> {
    using type = std::remove_cvref_t<std::invoke_result_t<const Fn&, A...>>;
};

template <class R>
struct expression_element {
    using type = void;
};
template <class R>
    requires(xt::is_xexpression<R>::value)
struct expression_element<R> {
    using type = std::remove_cv_t<typename R::value_type>;
};

/// What a node whose checks failed calls (never run: the program does not compile).
struct tensor_op_failed {
    template <class... A>
    xt::xarray<float> operator()(const A&...) const {
        return {};
    }
};

template <class E>
inline constexpr bool tensor_element_v =
    std::is_same_v<E, float> || std::is_same_v<E, double> || std::is_same_v<E, std::complex<float>> ||
    std::is_same_v<E, std::complex<double>>;

/// fn's result as a value of component type T: moved when it is an owning
/// row-major container, evaluated into one otherwise.
template <class Result, class R>
tensor_value<typename component_of<Result>::type> tensor_op_result(R&& r) {
    using D = std::remove_cvref_t<R>;
    using T = typename component_of<Result>::type;
    auto keep = [&] {
        if constexpr (owning_row_major_v<D> && std::is_same_v<typename D::value_type, Result> &&
                      std::is_rvalue_reference_v<R&&>)
            return std::make_shared<D>(std::move(r));
        else return std::make_shared<xt::xarray<Result>>(std::forward<R>(r));
    }();
    tensor_value<T> v;
    v.complex = is_std_complex<Result>::value;
    if constexpr (is_std_complex<Result>::value) v.data = realify::detail::as_real_pointer(keep->data());
    else v.data = keep->data();
    const auto& s = keep->shape();
    v.shape.assign(s.begin(), s.end());
    v.keep = std::move(keep);
    return v;
}

template <class N>
struct tensor_op_evaluation;
template <node_name Name, class Result, class Fn, class... C>
struct tensor_op_evaluation<tensor_op_node<Name, Result, Fn, C...>> {
    using N = tensor_op_node<Name, Result, Fn, C...>;
    static std::any evaluate(const ir_node& self, eval_context& ctx) {
        const N& n = *static_cast<const N*>(self.object);
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            // every operand's value first (evaluating one never moves another's memo)
            const std::tuple<const value_t<C>&...> values{value_as<typename traits_t<C>::real_type>(ctx, self.children[I])...};
            return tensor_op_result<Result>(n.fn(tensor_op_operand<element_t<C>>(std::get<I>(values))...));
        }(std::index_sequence_for<C...>{});
    }
};

/// The evaluator of a tensor-level user op: fn on its operands' tensors.
template <class N>
std::any evaluate_tensor_op(const ir_node& self, eval_context& ctx, const buffer_layout*) {
    return tensor_op_evaluation<N>::evaluate(self, ctx);
}

}  // namespace detail

/// The checks of graph::tensor_op, named so that the compiler's "In
/// instantiation of 'struct realify::graph::tensor_op_error<…{"rms_norm"}, …>'"
/// line, right above the failed static_assert, names the node and the types.
template <node_name Name, class Fn, class Declared, class... Operands>
struct tensor_op_error {
    static constexpr bool invocable = std::is_invocable_v<const Fn&, Operands...>;
    static_assert(invocable,
                  "realify::graph::tensor_op: fn is not invocable on the operands' tensors (read-only xtensor adaptors "
                  "of float, double or std::complex<float|double>); the node's name and the operand types are in "
                  "the line above");
    using returned = typename detail::invoke_or_void<invocable, Fn, Operands...>::type;
    using returned_element = typename detail::expression_element<returned>::type;
    static constexpr bool expression = !invocable || !std::is_void_v<returned_element>;
    static_assert(expression,
                  "realify::graph::tensor_op: fn must return an xtensor expression or container; the node's name is "
                  "in the line above");
    static constexpr bool declared = !invocable || !expression || std::is_same_v<Declared, deduce_result> ||
                                     std::is_same_v<Declared, returned_element>;
    static_assert(declared,
                  "realify::graph::tensor_op: the element type fn returns differs from the declared Result; the node's "
                  "name and the declared type are in the line above");
    using result = std::conditional_t<std::is_same_v<Declared, deduce_result>, returned_element, Declared>;
    static constexpr bool element = !invocable || !expression || !declared || detail::tensor_element_v<result>;
    static_assert(element,
                  "realify::graph::tensor_op: the result element type must be float, double or "
                  "std::complex<float|double>; the node's name is in the line above");
    static constexpr bool ok = invocable && expression && declared && element;
};

/// A tensor-level user op named Name: `fn` is called on the operands'
/// values as read-only xtensor adaptors (complex ones as std::complex) and
/// returns an xtensor expression or container of element type Result
/// (deduced when not given, checked when given); its shape is the node's.
///
///   auto y = graph::tensor_op<"rms_norm">([](const auto& x) { return …; }, x);
template <node_name Name, class Result = deduce_result, class Fn, graph_node... X>
auto tensor_op(Fn fn, X... x) {
    using check = tensor_op_error<Name, Fn, Result, detail::tensor_op_operand_t<element_t<X>>...>;
    if constexpr (check::ok) {
        return tensor_op_node<Name, typename check::result, Fn, X...>(std::move(fn), std::move(x)...);
    } else {  // after the static_assert: a node that compiles, so that it is the only error
        return tensor_op_node<Name, float, detail::tensor_op_failed, X...>({}, std::move(x)...);
    }
}

}  // namespace realify::graph
