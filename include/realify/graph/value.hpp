// The run-time value of a node during evaluation: memory of component type
// T (a complex element is its (re, im) pair, the two components adjacent),
// where its first element is, its logical shape (the complex shape for
// complex values, without the trailing 2), its strides per axis in
// components, and a handle that keeps the memory alive. A value is a
// strided view of memory, as a PyTorch tensor is: the shape ops that only
// re-describe memory (transpose, permute, select, slice, expand, reshape
// where the strides allow it, view_as_complex, …) share it, and what reads
// the value reads it through its strides (graph/zero_copy.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/checked_size.hpp"
#include "realify/engine/tensor_ref.hpp"
#include "realify/engine/xtensor_refs.hpp"
#include "realify/graph/buffer_layout.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value_memory.hpp"
#include "realify/layout/complex_layout.hpp"
#include "realify/layout/pointer_cast.hpp"

namespace realify::graph {

/// The value of node type N during evaluation.
template <class N>
using value_t = tensor_value<typename traits_t<N>::real_type>;

namespace detail {

/// Row-major strides, in components, of elements of `width` components (2: complex) of shape `shape`.
inline stride_vector packed_element_strides(const shape_vector& shape, std::ptrdiff_t width) {
    stride_vector strides(shape.size(), 0);
    for (std::size_t a = shape.size(); a-- > 0;) {
        strides[a] = width;
        width *= static_cast<std::ptrdiff_t>(shape[a]);
    }
    return strides;
}

/// A value over packed memory at `data` (its shape, row-major strides).
template <class T>
tensor_value<T> packed_value(T* data, shape_vector shape, bool complex, std::shared_ptr<void> keep) {
    tensor_value<T> v;
    v.data = data;
    v.strides = packed_element_strides(shape, complex ? 2 : 1);
    v.shape = std::move(shape);
    v.complex = complex;
    v.keep = std::move(keep);
    return v;
}

/// The value as the engine reads it.
template <class T>
engine::tensor_ref ref_of(const tensor_value<T>& v) {
    engine::tensor_ref r;
    r.data = v.data;
    r.type = engine::component_of<T>();
    r.complex = v.complex;
    r.shape = engine::make_dims("graph", v.shape);
    std::copy(v.strides.begin(), v.strides.end(), r.strides.begin());
    return r;
}

/// The value's memory as a component layout (graph/buffer_layout.hpp: a
/// complex value is its (…, 2) real layout): what is copied from it, and
/// the bytes it reads.
template <class T>
buffer_layout layout_of(const tensor_value<T>& v) {
    return component_layout(v.data, v.shape, v.strides, v.complex, sizeof(T));
}

template <class C>
inline constexpr bool owning_row_major_v = false;
template <class T>
inline constexpr bool owning_row_major_v<xt::xarray<T>> = true;
template <class T, std::size_t N>
inline constexpr bool owning_row_major_v<xt::xtensor<T, N>> = true;

/// The components of a packed value of the given shape.
inline std::size_t component_count(const shape_vector& shape, bool complex) {
    std::size_t n = complex ? 2 : 1;
    for (std::size_t e : shape) n *= e;
    return n;
}

/// A fresh value left uninitialised, packed, in memory kept across calls
/// (graph/value_memory.hpp) — for a producer that writes every element
/// before anything reads it (an engine kernel's or a fused loop's result):
/// zeroing a decoder layer's intermediates first cost a pass over each of
/// them, about 4 % of the layer. (Raw memory, not a std::vector: bool values
/// — comparisons, isnan — need addressable elements.)
template <class T>
tensor_value<T> allocate_to_overwrite(const shape_vector& shape, bool complex) {
    const std::size_t n = component_count(shape, complex);
    if (n > realify::detail::max_object_bytes / sizeof(T))
        realify::detail::throw_size_error("graph::program", "a value of " + std::to_string(n) + " elements does not fit in memory");
    std::shared_ptr<void> storage = value_memory(n * sizeof(T));
    T* data = static_cast<T*>(storage.get());
    return packed_value<T>(data, shape, complex, std::move(storage));
}

/// The same, zero-initialised.
template <class T>
tensor_value<T> allocate(const shape_vector& shape, bool complex) {
    tensor_value<T> v = allocate_to_overwrite<T>(shape, complex);
    std::memset(static_cast<void*>(v.data), 0, component_count(shape, complex) * sizeof(T));
    return v;
}

/// A packed copy of a value (its elements in row-major order, in memory of
/// its own): for the consumers that read packed memory only — a tensor_op's
/// operands, a reshape the strides do not allow, view_as_complex of pairs
/// that are not adjacent. The engine's copy (any strides).
template <class T>
tensor_value<T> packed_copy(const tensor_value<T>& v);

/// The value of memory the engine describes (an argument's), kept alive by `keep`.
template <class T>
tensor_value<T> bound_value(const engine::tensor_ref& r, std::shared_ptr<void> keep);

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
    auto keep = [&] {
        if constexpr (owning_row_major_v<D> && std::is_rvalue_reference_v<C&&>) return std::make_shared<D>(std::move(c));
        else return std::make_shared<xt::xarray<T>>(c);
    }();
    const auto& s = keep->shape();
    T* data = keep->data();
    shape_vector shape(s.begin(), s.end());
    if (complex) shape.pop_back();  // the trailing 2 (not end() − 1: GCC 12 then warns on a rank-0 std::array shape)
    return packed_value<T>(data, std::move(shape), complex, std::move(keep));
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
        T* data = realify::detail::as_real_pointer(keep->data());
        shape_vector shape(keep->shape().begin(), keep->shape().end());
        return packed_value<T>(data, std::move(shape), true, std::move(keep));
    } else if constexpr (std::is_same_v<typename D::value_type, T>) {
        return take_container<T>(std::forward<R>(r), false);
    } else {
        return take_container<T>(xt::xarray<T>(xt::cast<T>(r)), false);
    }
}

/// The value as a strided xtensor adaptor of its real memory (shape + [2],
/// strides + [1] when complex): what the table's lowerings read, through
/// the engine, where it lies.
template <class T>
auto real_adaptor(const tensor_value<T>& v) {
    std::vector<std::size_t> shape(v.shape.begin(), v.shape.end());
    std::vector<std::ptrdiff_t> strides(v.strides.begin(), v.strides.end());
    if (v.complex) {
        shape.push_back(2);
        strides.push_back(1);
    }
    // xtensor sizes an adaptor's storage by its shape, whatever the strides:
    // the engine reads the memory through data and the strides only
    const std::size_t size = v.count() * static_cast<std::size_t>(v.width());
    return xt::adapt(v.data, size, xt::no_ownership(), std::move(shape), std::move(strides));
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

/// The value of an argument, read where it is, whatever its layout — a
/// container, an adaptor, a strided view (transposed, sliced, reversed):
/// a value is strided memory; complex tensors as their (re, im) pairs — by
/// the engine's compiled reader; only a lazy expression is evaluated, once,
/// into memory the value keeps (engine::read_operand).
template <class A>
auto bind_argument(const A& arg) {
    using E = std::remove_cv_t<typename std::remove_cvref_t<A>::value_type>;
    using T = typename component_of<E>::type;
    constexpr bool complex = is_std_complex<E>::value;
    if constexpr (requires { arg.data_offset(); } && std::remove_cvref_t<A>::static_layout == xt::layout_type::row_major) {
        // packed by its type: nothing to check, nothing instantiated for a copy
        T* data;
        if constexpr (complex) data = const_cast<T*>(realify::detail::as_real_pointer(realify::detail::first_element(arg)));
        else data = const_cast<T*>(realify::detail::first_element(arg));
        return packed_value<T>(data, shape_vector(arg.shape().begin(), arg.shape().end()), complex, nullptr);
    } else {
        auto memory = std::make_shared<engine::operand_memory>();
        engine::read_operand("graph::program", arg, *memory);
        const engine::tensor_ref ref = memory->ref();
        if (!memory->holds_memory()) memory.reset();  // the caller's memory: borrowed
        return bound_value<T>(ref, std::move(memory));
    }
}


template <class T>
graph_value as_graph_value(tensor_value<T>&& v);

/// An argument bound for a call: its value and the facts planning reads
/// without knowing its type (graph/ir.hpp).
template <class T>
bound_input bound_from(tensor_value<T>&& v) {
    bound_input b;
    b.shape = v.shape;
    b.data = v.data;
    const byte_range bytes = bytes_of(layout_of(v));
    b.begin = bytes.begin;
    b.end = bytes.end;
    b.packed = v.packed();
    b.complex = v.complex;
    b.borrowed = v.keep == nullptr;
    b.value = as_graph_value(std::move(v));
    return b;
}
/// A std::vector, std::span or std::array: the 1-D tensor it holds, as a
/// graph argument (a mask, token ids, positions, values).
template <class A>
inline constexpr bool std_contiguous_v = false;
template <class V, class Alloc>
inline constexpr bool std_contiguous_v<std::vector<V, Alloc>> = true;
template <class V, std::size_t N>
inline constexpr bool std_contiguous_v<std::span<V, N>> = true;
template <class V, std::size_t N>
inline constexpr bool std_contiguous_v<std::array<V, N>> = true;

template <class A>
bound_input bind_input(const A& arg) {
    if constexpr (std_contiguous_v<A>) {
        if constexpr (requires { arg.data(); }) {  // read where it lies, as the 1-D adaptor of its memory
            return bind_input(xt::adapt(arg.data(), arg.size(), xt::no_ownership()));
        } else {
            static_assert(requires { arg.data(); },
                          "realify::graph: a std::vector<bool> holds bits, not bools: pass the mask as an "
                          "xt::xarray<bool>, a std::array<bool, N> or a std::span<const bool>");
            return bound_input{};
        }
    } else if constexpr (std::is_integral_v<A>) {  // the argument of a graph::int_input: a 0-d int64 value
        tensor_value<std::int64_t> v = allocate<std::int64_t>({}, false);
        v.data[0] = static_cast<std::int64_t>(arg);
        bound_input b = bound_from(std::move(v));
        b.integer_argument = true;
        return b;
    } else if constexpr (!is_value_component_v<typename component_of<std::remove_cv_t<typename A::value_type>>::type>) {
        // an element type no input declares (int8, half, …): refused when the
        // call checks its arguments (the input it is passed for is refused at
        // graph::input already: no second compile error here)
        return bound_input{};
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
inline const graph_value& value_at(eval_context& ctx, std::size_t slot) {
    const ir_node& record = ctx.ir->resolve(slot);
    if (record.folded) return record.folded_value;
    graph_value& memo = (*ctx.memo)[ctx.ir->nodes[slot].canonical];
    if (!has_value(memo)) memo = record.evaluate(ctx);
    return memo;
}

template <class T>
const tensor_value<T>& value_as(eval_context& ctx, std::size_t slot) {
    return std::get<tensor_value<T>>(value_at(ctx, slot));
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

/// What the passes, planning and the program do with a value whatever its
/// component type: its shape, its memory as a layout, and the value with
/// memory of its own (a view of an argument copied, packed: the argument may
/// be written before the value is used). One std::visit over graph_value,
/// compiled once in realify_simd (src/graph/evaluate.cpp).
shape_vector shape_of(const graph_value& value);
buffer_layout layout_of(const graph_value& value);
graph_value owned(const graph_value& value);

/// A value of component type T as a graph value: T must be one of the types
/// graph_value holds (a user op returning another element type is refused here).
template <class T>
graph_value as_graph_value(tensor_value<T>&& v) {
    static_assert(is_value_component_v<T>,
                  "realify::graph: a graph value's element type is float, double, bool, int32 or int64 (or "
                  "std::complex of float/double); convert the result of this op to one of them");
    return graph_value(std::move(v));
}

template <class T>
tensor_value<T> packed_copy(const tensor_value<T>& v) {
    std::size_t n = static_cast<std::size_t>(v.width());
    for (std::size_t e : v.shape) n *= e;
    std::shared_ptr<T[]> storage(new T[n]);
    T* data = storage.get();
    tensor_value<T> copy = packed_value<T>(data, v.shape, v.complex, std::move(storage));
    engine::copy_ref("graph", ref_of(v), ref_of(copy));
    return copy;
}
template <class T>
tensor_value<T> bound_value(const engine::tensor_ref& r, std::shared_ptr<void> keep) {
    tensor_value<T> v;
    v.data = static_cast<T*>(r.data);
    v.shape.assign(r.shape.begin(), r.shape.end());
    v.strides.assign(r.strides.begin(), r.strides.begin() + static_cast<std::ptrdiff_t>(r.rank()));
    v.complex = r.complex;
    v.keep = std::move(keep);
    return v;
}

// The value code of a component type — allocating, reading a child's value,
// an argument's bound form — is compiled once for float
// and double (the component types of graph inputs), in realify_simd
// (src/graph/evaluate.cpp): a unit that lowers a graph does not generate it.
#define REALIFY_GRAPH_VALUE_CODE(EXTERN, T)                                       \
    EXTERN template tensor_value<T> allocate<T>(const shape_vector&, bool);       \
    EXTERN template tensor_value<T> allocate_to_overwrite<T>(const shape_vector&, bool); \
    EXTERN template tensor_value<T> packed_copy<T>(const tensor_value<T>&);       \
    EXTERN template tensor_value<T> bound_value<T>(const engine::tensor_ref&, std::shared_ptr<void>); \
    EXTERN template const tensor_value<T>& value_as<T>(eval_context&, std::size_t); \
    EXTERN template bound_input bound_from<T>(tensor_value<T>&&);
REALIFY_GRAPH_VALUE_CODE(extern, float)
REALIFY_GRAPH_VALUE_CODE(extern, double)

}  // namespace detail
}  // namespace realify::graph
