// Checked size and index arithmetic for sizes that come from user input:
// shapes, repeat counts, split sizes, slice bounds, roll shifts, RoPE
// dimensions and positions. Nothing here wraps around or overflows a signed
// type: a value that cannot be represented is a realify::shape_error that
// names the op and the values, thrown before any of them reaches xtensor or
// a kernel.
//
// `op` is the entry point as it appears after "realify::" in messages:
// "reshape", "graph::reshape", "rope::apply_rotary_emb".
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include "realify/errors.hpp"

namespace realify::detail {

/// The largest element count × element size any object may have (the
/// difference of two pointers into it must be a std::ptrdiff_t).
inline constexpr std::size_t max_object_bytes = static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max());

/// "realify::<op>: <what>" as a shape_error (compiled once: src/engine/messages.cpp).
[[noreturn]] void throw_size_error(std::string_view op, const std::string& what);

/// a + b, or a shape_error naming `what` and both operands.
inline std::size_t checked_add(std::string_view op, std::string_view what, std::size_t a, std::size_t b) {
    std::size_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) {
        std::ostringstream m;
        m << what << " " << a << " + " << b << " overflows std::size_t";
        throw_size_error(op, m.str());
    }
    return sum;
}

/// a · b, or a shape_error naming `what` and both operands.
inline std::size_t checked_mul(std::string_view op, std::string_view what, std::size_t a, std::size_t b) {
    std::size_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) {
        std::ostringstream m;
        m << what << " " << a << " * " << b << " overflows std::size_t";
        throw_size_error(op, m.str());
    }
    return product;
}

/// The number of elements of a tensor of shape `extents` (any sequence of
/// non-negative integers), checked: the product of the non-zero extents,
/// times `element_bytes`, must fit in one object (max_object_bytes), so that
/// every stride and byte offset of the tensor is representable — a shape with
/// a zero extent is refused too when the others alone would not fit.
/// `what` names the shape in the message ("shape", "xq", "the table").
template <class Extents>
std::size_t checked_element_count(std::string_view op, std::string_view what, const Extents& extents,
                                  std::size_t element_bytes = 1) {
    std::size_t product = element_bytes;
    bool overflow = false;
    bool empty = false;
    for (const auto& extent : extents) {
        if constexpr (std::is_signed_v<std::remove_cvref_t<decltype(extent)>>) {
            if (extent < 0) {
                throw_size_error(op, std::string(what) + " " + format_sequence(extents) + " has a negative extent");
            }
        }
        if (extent == 0) {
            empty = true;
            continue;
        }
        overflow = overflow || __builtin_mul_overflow(product, static_cast<std::size_t>(extent), &product);
    }
    if (overflow || product > max_object_bytes) {
        std::ostringstream m;
        m << what << " " << format_sequence(extents) << " has too many elements";
        if (element_bytes > 1) m << " for elements of " << element_bytes << " bytes";
        m << ": the product of its extents exceeds " << max_object_bytes << (element_bytes > 1 ? " bytes" : "");
        throw_size_error(op, m.str());
    }
    return empty ? 0 : product / element_bytes;
}

/// A signed size or count as std::size_t; negative values are refused.
inline std::size_t to_size(std::string_view op, std::string_view what, std::ptrdiff_t value) {
    if (value < 0) {
        std::ostringstream m;
        m << what << " must be non-negative, got " << value;
        throw_size_error(op, m.str());
    }
    return static_cast<std::size_t>(value);
}

/// An unsigned size or count that must also fit std::ptrdiff_t (a value
/// above PTRDIFF_MAX is almost always a negative number converted).
inline std::size_t checked_signed_size(std::string_view op, std::string_view what, std::size_t value) {
    if (value > max_object_bytes) {
        std::ostringstream m;
        m << what << " " << value << " is too large (a negative value converted to std::size_t?)";
        throw_size_error(op, m.str());
    }
    return value;
}

/// PyTorch's index wrap: index in [−size, size) → [0, size) for dimension
/// `dim` of extent `size`, else a shape_error naming `what`, dim and size.
inline std::size_t wrap_index(std::string_view op, std::string_view what, std::ptrdiff_t index, std::size_t size,
                              std::ptrdiff_t dim) {
    const auto extent = static_cast<std::ptrdiff_t>(size);  // an existing extent fits std::ptrdiff_t
    if (index < -extent || index >= extent) {
        std::ostringstream m;
        m << what << " " << index << " is out of range for dimension " << dim << " of size " << size;
        throw_size_error(op, m.str());
    }
    return static_cast<std::size_t>(index < 0 ? index + extent : index);
}

/// PyTorch's slice bound: a negative bound counts from the end, the result
/// is clamped to [0, size]. Never overflows (size ≤ PTRDIFF_MAX).
constexpr std::size_t clamp_slice_bound(std::ptrdiff_t bound, std::size_t size) noexcept {
    const auto extent = static_cast<std::ptrdiff_t>(size);
    if (bound < 0) bound = bound < -extent ? 0 : bound + extent;
    return static_cast<std::size_t>(bound > extent ? extent : bound);
}

/// The number of elements start, start + step, … below stop (start, stop
/// already clamped to [0, size], step ≥ 1), without forming start + step.
constexpr std::size_t slice_length(std::size_t start, std::size_t stop, std::size_t step) noexcept {
    return stop > start ? (stop - start - 1) / step + 1 : 0;
}

/// A roll shift reduced to [0, extent): rolling by `shift` equals rolling
/// by the result (any shift, PTRDIFF_MIN included; extent 0 gives 0).
constexpr std::size_t reduce_shift(std::ptrdiff_t shift, std::size_t extent) noexcept {
    if (extent == 0) return 0;
    const auto n = static_cast<std::ptrdiff_t>(extent);
    const std::ptrdiff_t r = shift % n;  // in (−n, n): no overflow, even for PTRDIFF_MIN
    return static_cast<std::size_t>(r < 0 ? r + n : r);
}

}  // namespace realify::detail
