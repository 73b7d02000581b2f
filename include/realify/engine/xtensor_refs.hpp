// tensor_refs of the eager API's arguments: complex layouts, xtensor
// containers, adaptors and strided views of std::complex<T> or of real
// types, numbers — read where they are, whatever their strides and offset.
// Only an operand with no memory (a lazy xtensor expression) is evaluated,
// once, into a temporary the input keeps, and only a complex_layout whose
// [re, im] axis is not contiguous is copied, once, packed (in compiled code):
// the only allocations an out= call makes.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/engine/elementwise.hpp"
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
template <class A>
using expression_t = std::remove_cvref_t<decltype(expression_of(std::declval<const A&>()))>;

/// The evaluation of a lazy expression (instantiated per expression type):
/// an xt::xtensor when its rank is static (xtensor's assignment of fixed
/// rank is smaller code than xt::xarray's); nothing (an empty type) for one
/// in memory.
struct no_evaluation {};
template <class E>
using evaluated_t = std::conditional_t<realify::detail::strided_in_memory<const E&>, no_evaluation,
                                       realify::detail::owning_tensor_t<std::remove_cv_t<typename E::value_type>, static_rank_v<E>>>;

/// The value a number is read as: its own type when the engine has it.
template <class N>
using number_t = std::conditional_t<complex_number_operand<N>, std::complex<double>,
                                    std::conditional_t<has_component_v<N>, N, double>>;

}  // namespace detail

/// The memory of a tensor expression as the engine reads it, and what it
/// holds for that: the expression's own memory when it has some (any
/// container, adaptor or strided view), else its evaluation (a lazy xtensor
/// expression, evaluated once by xtensor); on request, a packed copy of it
/// (made once, by compiled code). Not copyable: the ref points into it.
template <class E>
class expression_memory : public memory_ref {
public:
    expression_memory(std::string_view op, const E& e) : m_evaluated(evaluation_of(e)) {
        if constexpr (holds_evaluation) m_ref = detail::ref_of_memory(op, m_evaluated);
        else m_ref = detail::ref_of_memory(op, e);
    }

    /// Whether ref() points into memory this object holds (not the expression's).
    bool holds_memory() const noexcept { return holds_evaluation || m_packed.holds_copy(); }

private:
    static constexpr bool holds_evaluation = !realify::detail::strided_in_memory<const E&>;
    static detail::evaluated_t<E> evaluation_of(const E& e) {
        if constexpr (holds_evaluation) return detail::evaluated_t<E>(e);
        else return {};
    }

    [[no_unique_address]] detail::evaluated_t<E> m_evaluated;
};

/// A number as the engine reads it: a ref of rank 0 to its value, held here
/// in its own type (one the engine has). Not copyable: the ref points into it.
class number_memory {
public:
    template <class N>
    explicit number_memory(const N& value) noexcept {
        static_assert(sizeof(N) <= sizeof(m_value) && alignof(N) <= alignof(std::complex<double>));
        ::new (static_cast<void*>(m_value)) N(value);
        m_ref.data = m_value;
        if constexpr (std::is_same_v<N, std::complex<double>>) {
            m_ref.type = component::float64;
            m_ref.complex = true;
        } else {
            m_ref.type = component_of<N>();
        }
    }
    number_memory(const number_memory&) = delete;
    number_memory& operator=(const number_memory&) = delete;

    const tensor_ref& ref() const noexcept { return m_ref; }

private:
    tensor_ref m_ref;
    alignas(std::complex<double>) std::byte m_value[sizeof(std::complex<double>)];
};

/// One operand of an eager op as the engine reads it. Keeps the temporary
/// (or the number) its ref points into: not copyable.
template <class A>
class input {
public:
    input(std::string_view op, const A& a) : m_memory(memory_of(op, a)) {
        if constexpr (complex_layout_operand<A>) m_memory.read_pairs(op);
    }
    input(const input&) = delete;
    input& operator=(const input&) = delete;

    const tensor_ref& ref() const noexcept { return m_memory.ref(); }

private:
    using memory = std::conditional_t<tensor_operand<A>, expression_memory<detail::expression_t<A>>, number_memory>;
    static memory memory_of(std::string_view op, const A& a) {
        if constexpr (tensor_operand<A>) {
            return memory(op, detail::expression_of(a));
        } else if constexpr (complex_number_operand<A>) {
            return memory(std::complex<double>(static_cast<double>(a.real()), static_cast<double>(a.imag())));
        } else {
            static_assert(real_number_operand<A>, "realify: an operand must be a tensor or a number");
            return memory(static_cast<detail::number_t<A>>(a));
        }
    }

    memory m_memory;
};

/// The operands of a list (cat's, stack's) as the engine reads them: one
/// input each, kept alive as long as the list.
template <class A>
class input_list {
public:
    input_list(std::string_view op, const std::vector<A>& parts) : m_inputs(parts.size()), m_refs(parts.size()) {
        for (std::size_t i = 0; i < parts.size(); ++i) m_refs[i] = m_inputs[i].emplace(op, parts[i]).ref();
    }

    std::span<const tensor_ref> refs() const noexcept { return m_refs; }

private:
    std::vector<std::optional<input<A>>> m_inputs;  // sized once: an input neither copies nor moves
    std::vector<tensor_ref> m_refs;
};

namespace detail {
template <std::size_t I, class A>
struct indexed_input {
    indexed_input(std::string_view op, const A& a) : in(op, a) {}
    input<A> in;
};
template <class Indices, class... A>
class inputs_of;
template <std::size_t... I, class... A>
class inputs_of<std::index_sequence<I...>, A...> : indexed_input<I, A>... {
public:
    inputs_of(std::string_view op, const A&... operands)
        : indexed_input<I, A>(op, operands)..., m_refs{static_cast<const indexed_input<I, A>&>(*this).in.ref()...} {}

    std::span<const tensor_ref> refs() const noexcept { return m_refs; }

private:
    std::array<tensor_ref, sizeof...(A)> m_refs;
};
}  // namespace detail

/// The operands of a call as the engine reads them: one input each, read
/// in order, kept alive as long as this object; refs() in the same order.
template <class... A>
using inputs = detail::inputs_of<std::index_sequence_for<A...>, A...>;

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
