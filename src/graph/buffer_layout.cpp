#include "realify/graph/buffer_layout.hpp"

#include <cstring>
#include <memory>
#include <sstream>

#include "realify/engine/elementwise.hpp"

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

namespace {

/// The axes of extent > 1 as (|stride|, extent), innermost (smallest stride) first.
std::vector<std::pair<std::ptrdiff_t, std::size_t>> sorted_axes(const buffer_layout& b) {
    std::vector<std::pair<std::ptrdiff_t, std::size_t>> axes;
    for (std::size_t a = 0; a < b.shape.size(); ++a)
        if (b.shape[a] > 1) axes.emplace_back(b.strides[a] < 0 ? -b.strides[a] : b.strides[a], b.shape[a]);
    std::sort(axes.begin(), axes.end());
    return axes;
}

}  // namespace

bool overlaps_itself(const buffer_layout& b) {
    if (is_packed(b)) return false;
    std::ptrdiff_t reach = 0;
    for (const auto& [stride, extent] : sorted_axes(b)) {
        if (stride <= reach) return true;
        reach += stride * static_cast<std::ptrdiff_t>(extent - 1);
    }
    return false;
}

namespace {

/// Whether component `offset` (from the lowest component of b) is an element of
/// b, for a layout whose strides nest: the digits are taken greedily, largest
/// stride first, and the offset is an element when nothing is left.
bool holds_offset(const std::vector<std::pair<std::ptrdiff_t, std::size_t>>& axes, std::ptrdiff_t offset) {
    if (offset < 0) return false;
    for (std::size_t k = axes.size(); k-- > 0;) {
        const auto [stride, extent] = axes[k];
        const std::ptrdiff_t digit = std::min<std::ptrdiff_t>(offset / stride, static_cast<std::ptrdiff_t>(extent) - 1);
        offset -= digit * stride;
    }
    return offset == 0;
}

}  // namespace

bool share_memory(const buffer_layout& a, const buffer_layout& b) {
    const byte_range ra = bytes_of(a), rb = bytes_of(b);
    if (!ra.overlaps(rb)) return false;
    if (a.component_bytes != b.component_bytes) return true;
    const buffer_layout& small = a.count() <= b.count() ? a : b;
    const buffer_layout& large = a.count() <= b.count() ? b : a;
    // offsets (in components) of small's elements from large's lowest component
    const auto size = static_cast<std::ptrdiff_t>(a.component_bytes);
    const auto distance =
        static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(small.data) - bytes_of(large).begin);
    if (distance % size != 0) return true;
    const auto axes = sorted_axes(large);
    const std::size_t rank = small.shape.size();
    shape_vector index(rank, 0);
    std::ptrdiff_t offset = distance / size;
    for (std::size_t done = 0, total = small.count(); done < total; ++done) {
        if (holds_offset(axes, offset)) return true;
        for (std::size_t k = rank; k-- > 0;) {  // odometer, keeping the offset current
            offset += small.strides[k];
            if (++index[k] < small.shape[k]) break;
            offset -= small.strides[k] * static_cast<std::ptrdiff_t>(small.shape[k]);
            index[k] = 0;
        }
    }
    return false;
}

std::optional<stride_vector> restride(const shape_vector& from, const stride_vector& strides, const shape_vector& to) {
    std::size_t count = 1;
    for (std::size_t e : from) count *= e;
    if (count <= 1) return packed_strides(to);  // one element or none: any strides address it
    stride_vector result(to.size(), 0);
    std::ptrdiff_t next = static_cast<std::ptrdiff_t>(to.size()) - 1;  // the axis of `to` to give a stride next
    std::ptrdiff_t run_stride = strides.back();                          // stride of the innermost axis of the run
    std::size_t run_count = 1, view_count = 1;
    for (std::size_t a = from.size(); a-- > 0;) {
        run_count *= from[a];
        const bool run_ends = a == 0 || (from[a - 1] != 1 &&
                                         strides[a - 1] != static_cast<std::ptrdiff_t>(run_count) * run_stride);
        if (!run_ends) continue;
        while (next >= 0 && (view_count < run_count || to[static_cast<std::size_t>(next)] == 1)) {
            result[static_cast<std::size_t>(next)] = static_cast<std::ptrdiff_t>(view_count) * run_stride;
            view_count *= to[static_cast<std::size_t>(next)];
            --next;
        }
        if (view_count != run_count) return std::nullopt;
        if (a > 0) {
            run_stride = strides[a - 1];
            run_count = view_count = 1;
        }
    }
    if (next != -1) return std::nullopt;
    return result;
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

namespace {

/// The engine's description of a layout, its components read as unsigned
/// integers of their size (a copy moves bits; it needs no component type).
engine::tensor_ref raw_ref(const buffer_layout& b) {
    engine::tensor_ref r;
    r.data = b.data;
    switch (b.component_bytes) {
    case 1: r.type = engine::component::uint8; break;
    case 2: r.type = engine::component::uint16; break;
    case 4: r.type = engine::component::uint32; break;
    default: r.type = engine::component::uint64; break;
    }
    r.shape = engine::make_dims("graph::out", b.shape);
    std::copy(b.strides.begin(), b.strides.end(), r.strides.begin());
    return r;
}

/// Components wider than 8 bytes as that many bytes (an innermost axis).
buffer_layout as_bytes(buffer_layout b) {
    if (b.component_bytes <= 8 && (b.component_bytes & (b.component_bytes - 1)) == 0) return b;
    b.shape.push_back(b.component_bytes);
    for (std::ptrdiff_t& stride : b.strides) stride *= static_cast<std::ptrdiff_t>(b.component_bytes);
    b.strides.push_back(1);
    b.component_bytes = 1;
    return b;
}

}  // namespace

void copy_into(const buffer_layout& to_layout, const buffer_layout& from_layout) {
    const buffer_layout to = as_bytes(to_layout), from = as_bytes(from_layout);
    const std::size_t total = to.count();
    if (total == 0 || (to.data == from.data && to.strides == from.strides)) return;
    if (is_packed(to) && is_packed(from)) {
        std::memmove(to.data, from.data, total * to.component_bytes);
        return;
    }
    engine::tensor_ref source = raw_ref(from);
    std::unique_ptr<std::byte[]> aside;
    if (bytes_of(to).overlaps(bytes_of(from))) {  // read all of it before anything is written
        aside.reset(new std::byte[total * to.component_bytes]);
        const buffer_layout copy = packed_layout(aside.get(), from.shape, from.component_bytes);
        engine::copy_ref("graph::out", source, raw_ref(copy));
        source = raw_ref(copy);
    }
    engine::copy_ref("graph::out", source, raw_ref(to));
}

}  // namespace realify::graph::detail
