// The operands of an engine call as compiled code holds them: each one's
// memory (where the ref points: the operand's own, a packed copy, a lazy
// expression's evaluation or a number) and the list of refs an engine call
// reads. What depends on an operand's type — how its ref is made — is one
// reader function per type (realify/engine/xtensor_refs.hpp); what does not
// — reading the operands of a call in order, keeping them, freeing them —
// is compiled once in realify_simd (src/engine/engine.cpp), so a call site
// in a user's unit is a list of (object, reader) pairs and one call.
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <string_view>
#include <type_traits>

#include "realify/engine/elementwise.hpp"
#include "realify/engine/tensor_ref.hpp"

namespace realify::engine {

/// The memory an operand is read from, and what keeps it alive: the ref the
/// engine reads; the packed copy it may read instead; the evaluation of a
/// lazy expression; a number's value. Not copyable: the ref may point into it.
class operand_memory {
public:
    operand_memory() = default;
    ~operand_memory();  // compiled: frees the packed copy and the evaluation, if any
    operand_memory(const operand_memory&) = delete;
    operand_memory& operator=(const operand_memory&) = delete;

    const tensor_ref& ref() const noexcept { return m_ref; }

    /// Reads `ref` (memory the caller keeps alive, or that keep() holds).
    void set_ref(const tensor_ref& ref) noexcept { m_ref = ref; }

    /// Keeps `evaluation` until this memory is destroyed, then calls
    /// destroy(evaluation): the evaluation of a lazy expression.
    void keep(void* evaluation, void (*destroy)(void*)) noexcept { m_kept = kept(evaluation, destroy); }

    /// Reads a number: a ref of rank 0 to its value, held here in its own
    /// type (float, double, std::complex<double>, or one the engine converts).
    template <class N>
    void hold_number(const N& value) noexcept {
        static_assert(sizeof(N) <= sizeof(m_number) && alignof(N) <= alignof(std::complex<double>));
        ::new (static_cast<void*>(m_number)) N(value);
        m_ref = tensor_ref{};
        m_ref.data = m_number;
        if constexpr (std::is_same_v<N, std::complex<double>>) {
            m_ref.type = component::float64;
            m_ref.complex = true;
        } else {
            m_ref.type = component_of<N>();
        }
    }

    /// Replaces the ref by that of a packed copy of its memory.
    const tensor_ref& pack(std::string_view op);

    /// Reads the memory, a real (…, 2) layout, as complex: where it is when
    /// its [re, im] axis is contiguous, else from a packed copy, made once.
    void read_pairs(std::string_view op);

    /// Whether ref() points into memory this object holds (not the operand's).
    bool holds_memory() const noexcept { return m_kept != nullptr || m_packed.holds_copy(); }

private:
    using kept = std::unique_ptr<void, void (*)(void*)>;

    tensor_ref m_ref;
    packed_copy m_packed;
    kept m_kept{nullptr, nullptr};
    alignas(std::complex<double>) std::byte m_number[sizeof(std::complex<double>)];
};

/// An operand as compiled code reads it: the object, and the function of its
/// type that makes its memory (engine::operand_of).
struct operand {
    const void* object = nullptr;
    void (*read)(std::string_view op, const void* object, operand_memory& into) = nullptr;
};

/// The operands of one call, read in order and kept as long as this object;
/// refs() in the same order. Up to inline_count operands are held in place
/// (an elementwise call has at most three: no allocation, and only the
/// memory of the operands there are is initialised), more (cat's list,
/// einsum's) on the heap.
class operand_list {
public:
    operand_list(std::string_view op, std::span<const operand> operands);
    ~operand_list();
    operand_list(const operand_list&) = delete;
    operand_list& operator=(const operand_list&) = delete;

    std::span<const tensor_ref> refs() const noexcept { return {m_refs, m_count}; }

private:
    static constexpr std::size_t inline_count = 3;
    void destroy() noexcept;

    std::size_t m_count = 0;  // operand memories constructed (after the constructor: operands read, with their refs)
    operand_memory* m_memory = nullptr;
    tensor_ref* m_refs = nullptr;
    std::unique_ptr<std::byte[]> m_heap;
    alignas(operand_memory) std::byte m_inline_memory[inline_count * sizeof(operand_memory)];
    alignas(tensor_ref) std::byte m_inline_refs[inline_count * sizeof(tensor_ref)];
};

}  // namespace realify::engine
