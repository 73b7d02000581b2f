// The memory evaluation writes or reads, described: a caller's out= buffer
// (or a result being filled, or a value's memory) by its first component,
// its component shape and its strides in components — a complex buffer is
// its (…,2) real layout, with the [re, im] axis last. Any xtensor container,
// adaptor or strided view (offset, strides, transposed, column-major,
// negative strides) has one. This header only describes layouts (packed,
// packed from an axis on, the bytes they span) and builds them from
// containers and values; what may be written where, and the writing, are
// decided by one module, graph/write_outputs.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "realify/engine/tensor_ref.hpp"
#include "realify/errors.hpp"
#include "realify/graph/node.hpp"
#include "realify/layout/memory_access.hpp"
#include "realify/layout/pointer_cast.hpp"
#include "realify/layout/view_as_complex.hpp"

namespace realify::graph {

/// Memory to write: the first component, the component shape and the
/// component strides (a complex tensor: its shape + [2], strides × 2 + [1]).
struct buffer_layout {
    void* data = nullptr;
    shape_vector shape;
    stride_vector strides;
    std::size_t component_bytes = 0;

    std::size_t count() const {
        std::size_t n = 1;
        for (std::size_t e : shape) n *= e;
        return n;
    }
};

namespace detail {

/// Row-major strides (in components) of a packed tensor of shape `shape`.
stride_vector packed_strides(const shape_vector& shape);

/// The first axis p such that axes p … last are row-major contiguous
/// (extent-1 axes ignored); the rank when the last axis is not contiguous.
std::size_t packed_from(const buffer_layout& b);

bool is_packed(const buffer_layout& b);

/// The bytes [begin, end) between the lowest and the highest component.
struct byte_range {
    std::uintptr_t begin = 0, end = 0;
    bool overlaps(const byte_range& o) const noexcept { return begin < end && o.begin < o.end && begin < o.end && o.begin < end; }
};

byte_range bytes_of(const buffer_layout& b);

byte_range bytes_of(const void* data, std::size_t bytes);

/// The layout of strided memory: `complex` elements of components of
/// `component_bytes` at `data`, of element shape `shape` and element strides
/// `strides`.
buffer_layout strided_layout(void* data, std::span<const std::size_t> shape, std::span<const std::ptrdiff_t> strides,
                             bool complex, std::size_t component_bytes);

/// layout_error: out buffer `index` is not strided memory.
[[noreturn]] void not_strided_memory(std::size_t index);

/// The layout of a caller's buffer; layout_error when it is not memory with
/// strides (xt::broadcast, a view with index lists).
template <class B>
buffer_layout layout_of_buffer(B& buffer, std::size_t index) {
    using E = std::remove_cv_t<typename B::value_type>;
    if constexpr (!realify::detail::strided_in_memory<B&>) {
        not_strided_memory(index);
    } else {
        constexpr bool complex = is_std_complex<E>::value;
        auto* first = realify::detail::first_element(buffer);
        void* data;
        if constexpr (complex) data = realify::detail::as_real_pointer(first);
        else data = first;
        const auto& b_shape = buffer.shape();  // (a reference: contiguous_sequence may return its argument)
        const auto& b_strides = buffer.strides();
        const auto& shape = realify::detail::contiguous_sequence<std::size_t>(b_shape);
        const auto& strides = realify::detail::contiguous_sequence<std::ptrdiff_t>(b_strides);
        return strided_layout(data, std::span<const std::size_t>(shape.data(), shape.size()),
                              std::span<const std::ptrdiff_t>(strides.data(), strides.size()), complex,
                              sizeof(typename component_of<E>::type));
    }
}

/// The packed (row-major) layout of components of `component_bytes` bytes at
/// `data`, of component shape `shape`.
buffer_layout packed_layout(void* data, const shape_vector& shape, std::size_t component_bytes);

/// The layout of a value (graph/value.hpp): elements of shape `shape` and
/// strides `strides` (in components) at `data`; a complex one gets its
/// [re, im] axis last (extent 2, stride 1).
buffer_layout component_layout(const void* data, const shape_vector& shape, const stride_vector& strides, bool complex,
                               std::size_t component_bytes);

}  // namespace detail
}  // namespace realify::graph
