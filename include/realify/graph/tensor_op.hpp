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
// value, contiguous and row-major (element type float, double or
// std::complex<float|double>: a complex value's (re, im) pairs seen as
// std::complex, no copy; a strided value — a view such as a transpose — is
// copied once, packed, for fn) and returns an xtensor
// expression or container; it is evaluated into a row-major tensor at once,
// while the operands are alive. Its result element type is deduced, or
// declared and checked: graph::tensor_op<"rms_norm", float>(fn, x).
//
// With the result's shape declared — graph::tensor_op<"rms_norm", float>(
// graph::like{0}, fn, x, w), or a function of the operands' shapes — fn
// writes its result instead: it receives one more argument, a writable
// xtensor adaptor of row-major memory the graph hands it (element type
// Result, of the declared shape), and returns nothing. The graph allocates
// that memory, or — the node an output written into a packed caller's
// buffer that no operand overlaps — hands fn the caller's buffer itself: the
// graph break allocates nothing. Its shape is known before evaluation, like
// a view's, so what it feeds writes caller buffers directly too.
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>

#include "realify/graph/buffer_layout.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"
#include "realify/errors.hpp"
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

/// An operand's value as fn reads it: packed (a strided view copied once).
template <class T>
tensor_value<T> packed_operand(const tensor_value<T>& v) {
    return v.packed() ? v : packed_copy(v);
}

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
    T* data;
    if constexpr (is_std_complex<Result>::value) data = realify::detail::as_real_pointer(keep->data());
    else data = keep->data();
    const auto& s = keep->shape();
    return packed_value<T>(data, shape_vector(s.begin(), s.end()), is_std_complex<Result>::value, std::move(keep));
}

template <class N>
struct tensor_op_evaluation;
template <node_name Name, class Result, class Fn, class... C>
struct tensor_op_evaluation<tensor_op_node<Name, Result, Fn, C...>> {
    using N = tensor_op_node<Name, Result, Fn, C...>;
    static graph_value evaluate(const ir_node& self, eval_context& ctx) {
        const N& n = *static_cast<const N*>(self.object);
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            // every operand's value first (evaluating one never moves another's memo), packed
            const std::tuple<const value_t<C>...> values{packed_operand(value_as<typename traits_t<C>::real_type>(ctx, self.children[I]))...};
            return tensor_op_result<Result>(n.fn(tensor_op_operand<element_t<C>>(std::get<I>(values))...));
        }(std::index_sequence_for<C...>{});
    }
};

/// What fn receives for its result in the buffer form: a writable adaptor
/// of row-major memory of element type E.
template <class E>
using tensor_op_output_t = decltype(xt::adapt(std::declval<E*>(), std::size_t{}, xt::no_ownership(),
                                              std::declval<const std::vector<std::size_t>&>()));

template <class E, class T>
tensor_op_output_t<E> tensor_op_output(const tensor_value<T>& v) {
    const std::vector<std::size_t> shape(v.shape.begin(), v.shape.end());
    if constexpr (is_std_complex<E>::value) return xt::adapt(realify::detail::as_complex_pointer(v.data), v.count(), xt::no_ownership(), shape);
    else return xt::adapt(static_cast<T*>(v.data), v.count(), xt::no_ownership(), shape);
}

template <node_name Name, class Result, class Shape, class Fn, class... C>
struct tensor_op_evaluation<tensor_op_node<Name, Result, into_buffer<Shape, Fn>, C...>> {
    using N = tensor_op_node<Name, Result, into_buffer<Shape, Fn>, C...>;
    using T = typename component_of<Result>::type;
    /// The result's shape from the operands' (the IR's shape rule `declared`).
    static shape_vector shape(const ir_node& self, const std::vector<shape_vector>& operands) {
        const N& n = *static_cast<const N*>(self.object);
        if constexpr (std::is_same_v<Shape, like>) {
            if (n.fn.shape.operand >= operands.size())
                throw error("realify::graph::tensor_op \"" + std::string(Name.view()) + "\": graph::like{" +
                            std::to_string(n.fn.shape.operand) + "} names no operand (it has " +
                            std::to_string(operands.size()) + ")");
            return operands[n.fn.shape.operand];
        } else {
            return [&]<std::size_t... I>(std::index_sequence<I...>) {
                const auto r = n.fn.shape(std::vector<std::size_t>(operands[I].begin(), operands[I].end())...);
                return shape_vector(std::begin(r), std::end(r));
            }(std::index_sequence_for<C...>{});
        }
    }
    /// fn into `target` (the caller's packed buffer, planned by write_outputs) or into fresh memory.
    static graph_value evaluate(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
        const N& n = *static_cast<const N*>(self.object);
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            const std::tuple<const value_t<C>...> values{packed_operand(value_as<typename traits_t<C>::real_type>(ctx, self.children[I]))...};
            const shape_vector result_shape = shape(self, {std::get<I>(values).shape...});
            constexpr bool complex = is_std_complex<Result>::value;
            tensor_value<T> result = target != nullptr ? packed_value<T>(static_cast<T*>(target->data), result_shape, complex, nullptr)
                                                       : allocate<T>(result_shape, complex);
            auto out = tensor_op_output<Result>(result);
            n.fn.fn(tensor_op_operand<element_t<C>>(std::get<I>(values))..., out);
            return graph_value(std::move(result));
        }(std::index_sequence_for<C...>{});
    }
};

template <class N>
struct tensor_op_writes : std::false_type {};
template <node_name Name, class Result, class Shape, class Fn, class... C>
struct tensor_op_writes<tensor_op_node<Name, Result, into_buffer<Shape, Fn>, C...>> : std::true_type {};

/// The evaluator of a tensor-level user op: fn on its operands' tensors
/// (the buffer form: into `target` when the output's plan hands it one).
template <class N>
graph_value evaluate_tensor_op(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
    if constexpr (tensor_op_writes<N>::value) return tensor_op_evaluation<N>::evaluate(self, ctx, target);
    else return tensor_op_evaluation<N>::evaluate(self, ctx);
}

/// The declared-shape function of a tensor op's record (nullptr: none).
template <class N>
constexpr auto declared_shape_of() {
    using F = shape_vector (*)(const ir_node&, const std::vector<shape_vector>&);
    if constexpr (tensor_op_writes<N>::value) return F(&tensor_op_evaluation<N>::shape);
    else return F(nullptr);
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

/// The checks of the buffer form of graph::tensor_op (a declared shape):
/// fn takes the operands' tensors and a writable adaptor of the result; the
/// shape is graph::like or a function of the operands' shapes.
template <node_name Name, class Fn, class Result, class Shape, class... Operands>
struct tensor_op_into_error {
    static constexpr bool element = detail::tensor_element_v<Result>;
    static_assert(element,
                  "realify::graph::tensor_op: the result element type must be float, double or "
                  "std::complex<float|double>; the node's name is in the line above");
    static constexpr bool shaped =
        std::is_same_v<Shape, like> ||
        std::is_invocable_v<const Shape&, decltype(sizeof(Operands*), std::vector<std::size_t>{})...>;
    static_assert(shaped,
                  "realify::graph::tensor_op: the declared shape must be graph::like{k} or a function of the operands' "
                  "shapes (one std::vector<std::size_t> each) returning the result's; the node's name is in the line above");
    static constexpr bool invocable =
        !element || std::is_invocable_v<const Fn&, Operands..., detail::tensor_op_output_t<Result>&>;
    static_assert(invocable,
                  "realify::graph::tensor_op: fn is not invocable on the operands' tensors and the result's buffer (a "
                  "writable xtensor adaptor of Result, last); the node's name and the types are in the line above");
    static constexpr bool ok = element && shaped && invocable;
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

/// The buffer form: the result's shape declared (graph::like{k}, or a
/// function of the operands' shapes), `fn(x…, out)` writes the result into
/// `out`, a writable row-major adaptor of element type Result the graph
/// hands it (the caller's buffer when it can):
///
///   auto y = graph::tensor_op<"rms_norm", float>(graph::like{0}, [](const auto& x, const auto& w, auto& out) {
///       …  out = …;  // or a loop over out.data()
///   }, x, w);
template <node_name Name, class Result, class Shape, class Fn, graph_node... X>
    requires(!graph_node<Fn>)
auto tensor_op(Shape shape, Fn fn, X... x) {
    using check = tensor_op_into_error<Name, Fn, Result, Shape, detail::tensor_op_operand_t<element_t<X>>...>;
    if constexpr (check::ok) {
        return tensor_op_node<Name, Result, into_buffer<Shape, Fn>, X...>({std::move(shape), std::move(fn)}, std::move(x)...);
    } else {
        return tensor_op_node<Name, float, detail::tensor_op_failed, X...>({}, std::move(x)...);
    }
}

}  // namespace realify::graph
