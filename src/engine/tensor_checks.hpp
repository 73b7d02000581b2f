// The checks every engine entry point (engine.cpp, reduce.cpp) makes on an
// output before writing: its shape, internal overlap, and overlap with the
// inputs; and the memory range a tensor_ref spans.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <string>
#include <span>
#include <string_view>

#include "realify/engine/tensor_ref.hpp"

namespace realify::engine::detail {

/// The bytes [first, last) a tensor spans (empty for no elements).
struct byte_range {
    const char* first = nullptr;
    const char* last = nullptr;
    bool empty() const noexcept { return first == last; }
};

inline byte_range range_of(const tensor_ref& t) noexcept {
    if (t.count() == 0) return {};
    std::ptrdiff_t low = 0, high = 0;
    for (std::size_t a = 0; a < t.rank(); ++a) {
        const std::ptrdiff_t reach = static_cast<std::ptrdiff_t>(t.shape[a] - 1) * t.strides[a];
        (reach < 0 ? low : high) += reach;
    }
    const auto size = static_cast<std::ptrdiff_t>(size_of(t.type));
    const char* base = static_cast<const char*>(t.data);
    return {base + low * size, base + (high + t.width()) * size};
}

inline bool overlaps(const byte_range& x, const byte_range& y) noexcept {
    if (x.empty() || y.empty()) return false;
    const std::less<const char*> before;
    return before(x.first, y.last) && before(y.first, x.last);
}

/// out must have the result's shape.
inline void check_out_shape(std::string_view op, const tensor_ref& out, const dims& expected) {
    if (out.shape == expected) return;
    throw_shape_error(op, "out has shape " + realify::detail::format_sequence(out.shape) + ", the result has shape " +
                              realify::detail::format_sequence(expected));
}

/// No two elements of out may share memory: an axis of extent > 1 with
/// stride 0 is refused, and so are strides that interleave (checked
/// sufficiently: sorted by magnitude, each stride must step over everything
/// the smaller ones reach).
inline void check_no_internal_overlap(std::string_view op, const tensor_ref& out) {
    if (out.count() == 0) return;
    std::array<std::size_t, max_rank> order{};
    std::size_t n = 0;
    for (std::size_t a = 0; a < out.rank(); ++a) {
        if (out.shape[a] <= 1) continue;
        if (out.strides[a] == 0)
            throw_layout_error(op, "out has stride 0 on dimension " + std::to_string(a) + " of extent " +
                                       std::to_string(out.shape[a]) + ": its elements overlap");
        order[n++] = a;
    }
    std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n),
              [&](std::size_t x, std::size_t y) { return std::abs(out.strides[x]) < std::abs(out.strides[y]); });
    std::ptrdiff_t reach = out.width();  // components one element and the smaller axes cover
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t a = order[i];
        const std::ptrdiff_t stride = std::abs(out.strides[a]);
        if (stride < reach)
            throw_layout_error(op, "out's strides " + realify::detail::format_sequence(std::span(out.strides.data(), out.rank())) +
                                       " (components) make elements overlap");
        reach += stride * static_cast<std::ptrdiff_t>(out.shape[a] - 1);
    }
}

/// True when input `in`, broadcast to `shape`, is exactly `out`: the same
/// memory, type, kind and strides on every axis of extent > 1.
inline bool same_tensor(const tensor_ref& in, const tensor_ref& out, const dims& shape) noexcept {
    if (in.data != out.data || in.type != out.type || in.complex != out.complex || in.rank() > shape.rank) return false;
    const std::size_t lead = shape.rank - in.rank();
    for (std::size_t a = 0; a < shape.rank; ++a) {
        if (shape[a] <= 1) continue;
        const bool own = a >= lead && in.shape[a - lead] != 1;
        if (!own || in.strides[a - lead] != out.strides[a]) return false;
    }
    return true;
}

/// An input may be exactly out (in place) or disjoint from it.
inline void check_alias(std::string_view op, const tensor_ref& in, std::size_t index, const tensor_ref& out,
                        const dims& shape) {
    if (!overlaps(range_of(in), range_of(out)) || same_tensor(in, out, shape)) return;
    throw_layout_error(op, "out partially overlaps input " + std::to_string(index) +
                               " (out may be exactly an input of its shape and layout, in place, or disjoint from it)");
}

}  // namespace realify::engine::detail
