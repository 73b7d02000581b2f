// realify/graph/buffer_layout.hpp: describing memory — the packed strides
// of a shape, how much of a layout is packed, the bytes it spans, and the
// layouts of a caller's buffer or of a value. Descriptions only: what may be
// written where, and the writing, are graph/write_outputs.cpp's. Compiled
// once here (not in every unit that lowers a graph) because none of it
// depends on a node's type.
#include "realify/graph/buffer_layout.hpp"

#include <string>

namespace realify::graph::detail {

stride_vector packed_strides(const shape_vector& shape) {
    stride_vector strides(shape.size(), 0);
    std::ptrdiff_t next = 1;
    for (std::size_t a = shape.size(); a-- > 0;) {
        strides[a] = next;
        next *= static_cast<std::ptrdiff_t>(shape[a]);
    }
    return strides;
}

buffer_layout packed_layout(void* data, const shape_vector& shape, std::size_t component_bytes) {
    return buffer_layout{data, shape, packed_strides(shape), component_bytes};
}

buffer_layout strided_layout(void* data, std::span<const std::size_t> shape, std::span<const std::ptrdiff_t> strides,
                             bool complex, std::size_t component_bytes) {
    buffer_layout b;
    b.data = data;
    b.component_bytes = component_bytes;
    for (std::size_t a = 0; a < shape.size(); ++a) {
        b.shape.push_back(shape[a]);
        b.strides.push_back(strides[a] * (complex ? 2 : 1));
    }
    if (complex) {
        b.shape.push_back(2);
        b.strides.push_back(1);
    }
    return b;
}

void not_strided_memory(std::size_t index) {
    throw layout_error("realify::graph::program: out buffer " + std::to_string(index) +
                       " is not strided memory (a container, an adaptor or a strided view): an expression such as "
                       "xt::broadcast or a view with index lists cannot be written");
}

std::size_t packed_from(const buffer_layout& b) {
    std::ptrdiff_t expected = 1;
    std::size_t p = b.shape.size();
    for (std::size_t a = b.shape.size(); a-- > 0;) {
        if (b.shape[a] != 1 && b.strides[a] != expected) break;
        expected *= static_cast<std::ptrdiff_t>(b.shape[a]);
        p = a;
    }
    return p;
}

bool is_packed(const buffer_layout& b) { return b.count() == 0 || packed_from(b) == 0; }

byte_range bytes_of(const buffer_layout& b) {
    if (b.count() == 0) return {};
    std::ptrdiff_t low = 0, high = 0;
    for (std::size_t a = 0; a < b.shape.size(); ++a) {
        const std::ptrdiff_t reach = b.strides[a] * (static_cast<std::ptrdiff_t>(b.shape[a]) - 1);
        (reach < 0 ? low : high) += reach;
    }
    const auto first = reinterpret_cast<std::uintptr_t>(b.data);
    const auto size = static_cast<std::ptrdiff_t>(b.component_bytes);
    return {first + static_cast<std::uintptr_t>(low * size), first + static_cast<std::uintptr_t>((high + 1) * size)};
}

byte_range bytes_of(const void* data, std::size_t bytes) {
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    return {begin, begin + bytes};
}

buffer_layout component_layout(const void* data, const shape_vector& shape, const stride_vector& strides, bool complex,
                               std::size_t component_bytes) {
    buffer_layout b{const_cast<void*>(data), shape, strides, component_bytes};
    if (complex) {
        b.shape.push_back(2);
        b.strides.push_back(1);
    }
    return b;
}

}  // namespace realify::graph::detail
