// The run-time value of a node during evaluation: contiguous row-major memory
// of component type T (interleaved (re, im) pairs when the node is complex),
// its logical shape (the complex shape for complex values, without the
// trailing 2) and a handle that keeps the memory alive. Shape ops that only
// re-describe contiguous memory (reshape, flatten, view_as_complex, …) share
// the memory: no copy.
#pragma once

#include <algorithm>
#include <any>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/engine/tensor_ref.hpp"
#include "realify/engine/xtensor_refs.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/traits.hpp"
#include "realify/layout/complex_layout.hpp"
#include "realify/layout/pointer_cast.hpp"

namespace realify::graph {

template <class T>
struct tensor_value {
    T* data = nullptr;
    shape_vector shape;
    bool complex = false;
    std::shared_ptr<void> keep;

    std::size_t count() const {
        std::size_t n = 1;
        for (std::size_t s : shape) n *= s;
        return n;
    }
    /// Components in memory (2 per complex element).
    std::size_t components() const { return count() * (complex ? 2 : 1); }
};

/// The value of node type N during evaluation.
template <class N>
using value_t = tensor_value<typename traits_t<N>::real_type>;

namespace detail {

template <class C>
inline constexpr bool owning_row_major_v = false;
template <class T>
inline constexpr bool owning_row_major_v<xt::xarray<T>> = true;
template <class T, std::size_t N>
inline constexpr bool owning_row_major_v<xt::xtensor<T, N>> = true;

/// A fresh zero-initialised value of the given shape (an array, not a
/// std::vector: bool values — comparisons, isnan — need addressable elements).
template <class T>
tensor_value<T> allocate(const shape_vector& shape, bool complex) {
    tensor_value<T> v;
    v.shape = shape;
    v.complex = complex;
    std::shared_ptr<T[]> storage(new T[v.components()]());
    v.data = storage.get();
    v.keep = std::move(storage);
    return v;
}

/// A number as a 0-d value of component type T.
template <class T, class S>
tensor_value<T> number_value(S s) {
    constexpr bool c = is_std_complex<S>::value;
    auto v = allocate<T>({}, c);
    if constexpr (c) {
        v.data[0] = static_cast<T>(s.real());
        v.data[1] = static_cast<T>(s.imag());
    } else {
        v.data[0] = static_cast<T>(s);
    }
    return v;
}

/// A real container (value_type T) taken over by a value: moved when it is an
/// owning row-major container, evaluated into one otherwise.
template <class T, class C>
tensor_value<T> take_container(C&& c, bool complex) {
    using D = std::remove_cvref_t<C>;
    tensor_value<T> v;
    v.complex = complex;
    auto keep = [&] {
        if constexpr (owning_row_major_v<D> && std::is_rvalue_reference_v<C&&>) return std::make_shared<D>(std::move(c));
        else return std::make_shared<xt::xarray<T>>(c);
    }();
    v.data = keep->data();
    const auto& s = keep->shape();
    v.shape.assign(s.begin(), s.end() - (complex ? 1 : 0));
    v.keep = std::move(keep);
    return v;
}

/// A dispatch-table result (complex_layout<C> or a real container) as a value.
template <class T, class R>
tensor_value<T> from_result(R&& r) {
    using D = std::remove_cvref_t<R>;
    if constexpr (is_complex_layout_v<D>) {
        using E = typename D::expression_type;
        if constexpr (std::is_same_v<typename E::value_type, T>) return take_container<T>(std::move(r.real_layout()), true);
        else return take_container<T>(xt::xarray<T>(xt::cast<T>(r.real_layout())), true);
    } else if constexpr (is_std_complex<typename D::value_type>::value) {
        // a std::complex container (the eager cast to complex): its memory
        // re-described as (re, im) pairs, moved when it is an owning one
        using Z = std::complex<T>;
        auto keep = [&] {
            if constexpr (std::is_same_v<typename D::value_type, Z> && owning_row_major_v<D> && std::is_rvalue_reference_v<R&&>)
                return std::make_shared<D>(std::move(r));
            else return std::make_shared<xt::xarray<Z>>(xt::cast<Z>(r));
        }();
        tensor_value<T> v;
        v.complex = true;
        v.data = realify::detail::as_real_pointer(keep->data());
        v.shape.assign(keep->shape().begin(), keep->shape().end());
        v.keep = std::move(keep);
        return v;
    } else if constexpr (std::is_same_v<typename D::value_type, T>) {
        return take_container<T>(std::forward<R>(r), false);
    } else {
        return take_container<T>(xt::xarray<T>(xt::cast<T>(r)), false);
    }
}

/// The value as an xtensor adaptor of its real memory (shape + [2] when complex).
template <class T>
auto real_adaptor(const tensor_value<T>& v) {
    std::vector<std::size_t> shape(v.shape.begin(), v.shape.end());
    if (v.complex) shape.push_back(2);
    return xt::adapt(v.data, v.components(), xt::no_ownership(), shape);
}

/// The operand a dispatch lowering receives: complex_layout over the value's
/// memory (zero copy) for complex values, a real adaptor otherwise.
template <bool Complex, class T>
auto as_operand(const tensor_value<T>& v) {
    if constexpr (Complex) return as_complex_layout(real_adaptor(v));
    else return real_adaptor(v);
}
template <bool Complex, class T>
using operand_t = decltype(as_operand<Complex>(std::declval<const tensor_value<T>&>()));

/// The value of an argument, read where it is when its memory is packed
/// (row-major, contiguous; complex tensors as their (…,2) real layout), else
/// copied once, packed — by the engine's compiled copy for any container,
/// adaptor or view in memory, by xtensor for a lazy expression
/// (engine::read_operand).
template <class A>
auto bind_argument(const A& arg) {
    using E = std::remove_cv_t<typename std::remove_cvref_t<A>::value_type>;
    using T = typename component_of<E>::type;
    tensor_value<T> v;
    v.complex = is_std_complex<E>::value;
    v.shape.assign(arg.shape().begin(), arg.shape().end());
    if constexpr (requires { arg.data_offset(); } && std::remove_cvref_t<A>::static_layout == xt::layout_type::row_major) {
        // packed by its type: nothing to check, nothing instantiated for a copy
        if constexpr (is_std_complex<E>::value)
            v.data = const_cast<T*>(realify::detail::as_real_pointer(realify::detail::first_element(arg)));
        else
            v.data = const_cast<T*>(realify::detail::first_element(arg));
    } else {
        // any other layout, or a lazy expression: read where it is when packed,
        // else from a copy the value keeps (engine/xtensor_refs.hpp)
        auto memory = std::make_shared<engine::operand_memory>();
        engine::read_operand("graph::program", arg, *memory);
        if (!engine::packed_from(memory->ref(), 0)) memory->pack("graph::program");
        v.data = static_cast<T*>(memory->ref().data);
        if (memory->holds_memory()) v.keep = std::move(memory);
    }
    return v;
}

/// A value as the IR holds it.
template <class T>
std::any any_of(tensor_value<T>&& v) {
    return std::any(std::move(v));
}

/// An argument bound for a call: its value and the facts planning reads
/// without knowing its type (graph/ir.hpp).
template <class T>
bound_input bound_from(tensor_value<T>&& v) {
    bound_input b;
    b.shape = v.shape;
    b.data = v.data;
    b.bytes = v.components() * sizeof(T);
    b.complex = v.complex;
    b.borrowed = v.keep == nullptr;
    b.value = any_of(std::move(v));
    return b;
}
template <class A>
bound_input bind_input(const A& arg) {
    if constexpr (std::is_integral_v<A>) {  // the argument of a graph::int_input: a 0-d int64 value
        tensor_value<std::int64_t> v = allocate<std::int64_t>({}, false);
        v.data[0] = static_cast<std::int64_t>(arg);
        return bound_from(std::move(v));
    } else {
        return bound_from(bind_argument(arg));
    }
}

/// An argument of a call, its type erased: its address and the binder of its type.
struct argument {
    const void* object;
    bound_input (*bind)(const void*);
};
template <class A>
bound_input bind_erased(const void* arg) {
    return bind_input(*static_cast<const A*>(arg));
}

/// The value of the node at `slot` in this call: memoised by canonical
/// slot, a folded value reused, else computed — children first, through
/// their own evaluators — the first time it is asked for. Every node is
/// evaluated at most once per call.
inline const std::any& value_at(eval_context& ctx, std::size_t slot) {
    const ir_node& record = ctx.ir->resolve(slot);
    if (record.folded) return record.folded_value;
    std::any& memo = (*ctx.memo)[ctx.ir->nodes[slot].canonical];
    if (!memo.has_value()) memo = record.evaluate(ctx);
    return memo;
}

template <class T>
const tensor_value<T>& value_as(eval_context& ctx, std::size_t slot) {
    return std::any_cast<const tensor_value<T>&>(value_at(ctx, slot));
}

/// How an evaluator reads a child, known from the child's type: a tensor
/// (its value, of component type T) or a number of type S (its record).
template <class T, bool Complex>
struct tensor_operand {
    static constexpr bool is_complex = Complex;
};
template <class S>
struct number_operand {
    using type = S;
    static constexpr bool is_complex = is_std_complex<S>::value;
};
template <class C>
struct operand_kind {
    using type = tensor_operand<typename traits_t<C>::real_type, traits_t<C>::is_complex>;
};
template <class S>
struct operand_kind<scalar_node<S>> {
    using type = number_operand<S>;
};
template <class C>
using operand_kind_t = typename operand_kind<std::remove_cvref_t<C>>::type;

/// A number operand's value, from its record.
template <class S>
S number_of(const ir_node& record) {
    if constexpr (is_std_complex<S>::value) return S(record.number.real(), record.number.imag());
    else return static_cast<S>(record.number.real());
}

/// What the IR does with a value of component type T without knowing T
/// (graph/ir.hpp, value_ops): one table per component type.
template <class T>
struct typed_value_ops {
    static shape_vector shape(const std::any& value);
    static value_memory memory(const std::any& value);
    /// The value with memory of its own: a view of an argument is copied
    /// (the argument may be written before the value is used).
    static std::any own(const std::any& value);
    static constexpr value_ops table{&shape, &memory, &own};
};
// Defined out of the class, so not inline: the extern templates below keep
// them out of a user's unit (inline members of an extern template are still
// instantiated there, for inlining).
template <class T>
shape_vector typed_value_ops<T>::shape(const std::any& value) {
    return std::any_cast<const tensor_value<T>&>(value).shape;
}
template <class T>
value_memory typed_value_ops<T>::memory(const std::any& value) {
    const auto& v = std::any_cast<const tensor_value<T>&>(value);
    return {v.data, v.components(), v.keep != nullptr};
}
template <class T>
std::any typed_value_ops<T>::own(const std::any& value) {
    const auto& v = std::any_cast<const tensor_value<T>&>(value);
    if (v.keep != nullptr) return value;
    auto copy = allocate<T>(v.shape, v.complex);
    std::copy(v.data, v.data + v.components(), copy.data);
    return any_of(std::move(copy));
}

// The value code of a component type — allocating, reading a child's value,
// the IR's value table, a value's std::any, an argument's bound form — is compiled once for float
// and double (the component types of graph inputs), in realify_simd
// (src/graph/evaluate.cpp): a unit that lowers a graph does not generate it.
#define REALIFY_GRAPH_VALUE_CODE(EXTERN, T)                                       \
    EXTERN template tensor_value<T> allocate<T>(const shape_vector&, bool);       \
    EXTERN template const tensor_value<T>& value_as<T>(eval_context&, std::size_t); \
    EXTERN template std::any any_of<T>(tensor_value<T>&&);                         \
    EXTERN template bound_input bound_from<T>(tensor_value<T>&&);                 \
    EXTERN template struct typed_value_ops<T>;
REALIFY_GRAPH_VALUE_CODE(extern, float)
REALIFY_GRAPH_VALUE_CODE(extern, double)

}  // namespace detail
}  // namespace realify::graph
