// tensor_refs of the eager API's arguments: complex layouts, xtensor
// containers, adaptors and strided views of std::complex<T> or of real
// types, numbers — read where they are, whatever their strides and offset.
// Only an operand with no memory (a lazy xtensor expression) is evaluated,
// once, into a temporary its operand_memory keeps; only a complex_layout
// whose [re, im] axis is not contiguous is copied, once, packed (in compiled
// code); only a call of more than three operands holds them on the heap
// (engine::operand_list): the only allocations an out= call makes.
#pragma once

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/engine/elementwise.hpp"
#include "realify/engine/operands.hpp"
#include "realify/engine/runtime_rank.hpp"
#include "realify/engine/tensor_ref.hpp"
#include "realify/layout/complex_layout.hpp"
#include "realify/layout/memory_access.hpp"
#include "realify/layout/pointer_cast.hpp"
#include "realify/layout/shape_traits.hpp"
#include "realify/ops/operand.hpp"
#include "realify/ops/out.hpp"

namespace realify::engine {

namespace detail {

/// The ref of an expression in memory: a real one, or one of std::complex
/// elements (each element two components, strides doubled).
template <class E>
tensor_ref ref_of_memory(std::string_view op, const E& e) {
    using V = std::remove_cv_t<typename E::value_type>;
    const auto& e_shape = e.shape();  // (a reference: contiguous_sequence may return its argument)
    const auto& e_strides = e.strides();
    const auto& shape = realify::detail::contiguous_sequence<std::size_t>(e_shape);
    const auto& strides = realify::detail::contiguous_sequence<std::ptrdiff_t>(e_strides);
    const std::span<const std::size_t> extents(shape.data(), shape.size());
    const std::span<const std::ptrdiff_t> steps(strides.data(), strides.size());
    if constexpr (complex_scalar<V>) {
        using T = real_part_t<V>;
        const T* data = realify::detail::as_real_pointer(realify::detail::first_element(e));
        return strided_ref(op, const_cast<T*>(data), component_of<T>(), true, extents, steps);
    } else {
        return strided_ref(op, const_cast<V*>(realify::detail::first_element(e)), component_of<V>(), false, extents, steps);
    }
}

/// The expression of a tensor operand (a complex_layout's: its real (…, 2) layout).
template <class A>
decltype(auto) expression_of(const A& a) {
    if constexpr (complex_layout_operand<A>) return a.real_layout();
    else return (a);
}

/// The evaluation of a lazy expression (instantiated per expression type):
/// an xt::xtensor when its rank is static (xtensor's assignment of fixed
/// rank is smaller code than xt::xarray's).
template <class E>
using evaluated_t = realify::detail::owning_tensor_t<std::remove_cv_t<typename E::value_type>, static_rank_v<E>>;

/// The value a number is read as: its own type when the engine has it.
template <class N>
using number_t = std::conditional_t<complex_number_operand<N>, std::complex<double>,
                                    std::conditional_t<has_component_v<N>, N, double>>;

/// A lazy expression's values, in a new tensor: element by element in
/// row-major order through the expression's stepper, which walks its
/// operands in their broadcast. What xtensor's assignment does on its
/// general path, without its contiguous path and the machinery that
/// chooses between the two: less code in every unit that hands realify a
/// lazy expression, and it is read once.
template <class E>
evaluated_t<E> evaluate(const E& e) {
    evaluated_t<E> result = evaluated_t<E>::from_shape(e.shape());
    const auto& shape = result.shape();
    auto index = xt::uninitialized_shape<std::remove_cvref_t<decltype(shape)>>(shape.size());
    std::fill(index.begin(), index.end(), std::size_t{0});
    auto stepper = e.stepper_begin(shape);
    auto* out = result.data();
    for (std::size_t i = 0, n = result.size(); i < n; ++i) {
        out[i] = *stepper;
        xt::stepper_tools<xt::layout_type::row_major>::increment_stepper(stepper, index, shape);
    }
    return result;
}

}  // namespace detail

/// Reads operand `a` into `into`: a tensor where it is (any container,
/// adaptor or strided view; a complex_layout's pairs as complex, from a
/// packed copy when its [re, im] axis is not contiguous), a lazy xtensor
/// expression from its evaluation (detail::evaluate, once, kept by `into`), a
/// number as a rank-0 ref to its value.
template <class A>
void read_operand(std::string_view op, const A& a, operand_memory& into) {
    if constexpr (tensor_operand<A>) {
        const auto& e = detail::expression_of(a);
        using E = std::remove_cvref_t<decltype(e)>;
        if constexpr (realify::detail::strided_in_memory<const E&>) {
            into.set_ref(detail::ref_of_memory(op, e));
        } else {
            using evaluation = detail::evaluated_t<E>;
            auto* evaluated = new evaluation(detail::evaluate(e));
            into.keep(evaluated, [](void* p) { delete static_cast<evaluation*>(p); });
            into.set_ref(detail::ref_of_memory(op, *evaluated));
        }
        if constexpr (complex_layout_operand<A>) into.read_pairs(op);
    } else if constexpr (complex_number_operand<A>) {
        into.hold_number(std::complex<double>(static_cast<double>(a.real()), static_cast<double>(a.imag())));
    } else {
        static_assert(real_number_operand<A>, "realify: an operand must be a tensor or a number");
        into.hold_number(static_cast<detail::number_t<A>>(a));
    }
}

/// Operand `a` for compiled code: the object (std::addressof: xtensor
/// expressions overload &) and its type's reader (one function per operand
/// type, whatever the call).
template <class A>
operand operand_of(const A& a) noexcept {
    return {std::addressof(a), [](std::string_view op, const void* object, operand_memory& into) {
                read_operand(op, *static_cast<const A*>(object), into);
            }};
}

/// One operand of an eager op as the engine reads it (the ops of one
/// operand: shape ops, reductions, …). Keeps the memory its ref points into:
/// not copyable.
template <class A>
class input {
public:
    input(std::string_view op, const A& a) { read_operand(op, a, m_memory); }

    const tensor_ref& ref() const noexcept { return m_memory.ref(); }

private:
    operand_memory m_memory;
};

/// The operands of a call for compiled code (engine::operand_list reads
/// them): one (object, reader) pair each, in order.
template <class... A>
std::array<operand, sizeof...(A)> operands_of(const A&... operands) noexcept {
    return {operand_of(operands)...};
}
/// … of a list (cat's, stack's).
template <class A>
std::vector<operand> operands_of(const std::vector<A>& parts) {
    std::vector<operand> list(parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i) list[i] = operand_of(parts[i]);
    return list;
}

/// The ref of an out= buffer (checked by realify::out to be in memory).
template <class B>
tensor_ref output_ref(std::string_view op, B& buffer) {
    if constexpr (!realify::detail::writable_buffer<B&>()) {
        return tensor_ref{};  // refused by realify::out's static_assert already: no second error
    } else if constexpr (complex_layout_operand<B>) {
        return output_pairs(op, detail::ref_of_memory(op, buffer.real_layout()));
    } else {
        return detail::ref_of_memory(op, buffer);
    }
}
#define REALIFY_DECLARE_OUTPUT_REF(B) extern template tensor_ref output_ref<B>(std::string_view, B&);
REALIFY_RUNTIME_RANK_TENSORS(REALIFY_DECLARE_OUTPUT_REF)
#undef REALIFY_DECLARE_OUTPUT_REF

}  // namespace realify::engine
