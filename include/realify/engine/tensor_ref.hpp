// What the engine knows of a tensor: where its first element is, the type
// of its components, whether its elements are complex, its shape and its
// strides. Every operand and every output of the eager ops is described this
// way — complex layouts, std::complex containers, views and adaptors, real
// tensors, numbers — so the loops that read and write them (the elementwise
// engine, the reductions, realify/engine/elementwise.hpp and reduce.hpp) are
// compiled once, in realify_simd, for every type and layout.
//
//   data      the first component of the element at index (0, …, 0); may be
//             anywhere in a larger buffer (offsets, negative strides)
//   type      the component type: float, double, or the integer and bool
//             types real tensors may hold (converted by the engine)
//   complex   elements are (re, im) pairs: the imaginary part is the
//             component right after the real one. A complex tensor of shape
//             S is the (…, 2) layout of shape S + [2] with that trailing
//             axis kept implicit, so every shape op acts on S alone — the
//             same code moves real and complex tensors.
//   strides   per axis, in components (not bytes, not elements): the
//             (…, 2) layout's strides without the trailing axis; negative
//             and zero strides are allowed
//
// The view functions below move the description only (permute, select,
// slice, flip, expand, …): PyTorch's views, with PyTorch's dims. Cheap: no
// xtensor, nothing instantiated per type.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "realify/errors.hpp"
#include "realify/version.hpp"

namespace realify::engine {

/// The component types the engine reads and writes.
enum class component : std::uint8_t { boolean, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64 };

constexpr std::size_t size_of(component c) noexcept {
    switch (c) {
        case component::boolean:
        case component::int8:
        case component::uint8: return 1;
        case component::int16:
        case component::uint16: return 2;
        case component::int32:
        case component::uint32:
        case component::float32: return 4;
        default: return 8;
    }
}

constexpr bool is_floating(component c) noexcept { return c == component::float32 || c == component::float64; }

template <class T>
constexpr bool has_component_v = std::is_arithmetic_v<T> && sizeof(T) <= 8 && !std::is_same_v<T, long double> &&
                                 (!std::is_floating_point_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double>);

/// The component of a C++ arithmetic type (bool, the integer types, float, double).
template <class T>
constexpr component component_of() noexcept {
    using U = std::remove_cv_t<T>;
    static_assert(has_component_v<U>, "realify: tensors of this element type are not supported (bool, integers, float, double)");
    if constexpr (std::is_same_v<U, bool>) return component::boolean;
    else if constexpr (std::is_same_v<U, float>) return component::float32;
    else if constexpr (std::is_same_v<U, double>) return component::float64;
    else if constexpr (std::is_signed_v<U>)
        return sizeof(U) == 1 ? component::int8 : sizeof(U) == 2 ? component::int16 : sizeof(U) == 4 ? component::int32 : component::int64;
    else
        return sizeof(U) == 1 ? component::uint8 : sizeof(U) == 2 ? component::uint16 : sizeof(U) == 4 ? component::uint32 : component::uint64;
}

/// PyTorch's limit on the number of dimensions (MAX_DIMS).
inline constexpr std::size_t max_rank = 25;

/// A shape: up to max_rank extents, iterable (for messages).
struct dims {
    std::size_t rank = 0;
    std::array<std::size_t, max_rank> extent{};

    const std::size_t* begin() const noexcept { return extent.data(); }
    const std::size_t* end() const noexcept { return extent.data() + rank; }
    std::size_t operator[](std::size_t axis) const noexcept { return extent[axis]; }
    std::size_t count() const noexcept {
        std::size_t n = 1;
        for (std::size_t a = 0; a < rank; ++a) n *= extent[a];
        return n;
    }
    friend bool operator==(const dims& x, const dims& y) noexcept {
        if (x.rank != y.rank) return false;
        for (std::size_t a = 0; a < x.rank; ++a)
            if (x.extent[a] != y.extent[a]) return false;
        return true;
    }
};

/// A tensor in memory (see the header comment). Inputs are never written
/// through `data`.
struct tensor_ref {
    void* data = nullptr;
    component type = component::float32;
    bool complex = false;
    dims shape;
    std::array<std::ptrdiff_t, max_rank> strides{};

    std::size_t rank() const noexcept { return shape.rank; }
    std::size_t count() const noexcept { return shape.count(); }
    /// Components per element: 2 for complex, 1 for real.
    std::ptrdiff_t width() const noexcept { return complex ? 2 : 1; }
    /// The address `components` components away from data.
    void* at(std::ptrdiff_t components) const noexcept {
        return static_cast<char*>(data) + components * static_cast<std::ptrdiff_t>(size_of(type));
    }
};

/// "realify::<op>: <what>" as a shape_error / layout_error (compiled once:
/// src/engine/messages.cpp).
[[noreturn]] void throw_shape_error(std::string_view op, const std::string& what);
[[noreturn]] void throw_layout_error(std::string_view op, const std::string& what);
/// "realify::<op>: tensors of more than max_rank dimensions are not supported".
[[noreturn]] void throw_rank_error(std::string_view op);

/// d with one more trailing extent; more than max_rank is a shape_error
/// naming `op` (the one way code appends to a shape).
inline void append_extent(std::string_view op, dims& d, std::size_t extent) {
    if (d.rank == max_rank) throw_rank_error(op);
    d.extent[d.rank++] = extent;
}

/// A shape of the given extents; more than max_rank is a shape_error.
template <class Extents>
dims make_dims(std::string_view op, const Extents& extents) {
    dims d;
    for (const auto& e : extents) append_extent(op, d, static_cast<std::size_t>(e));
    return d;
}

/// The ref of memory at `data` of these extents and strides (in elements:
/// doubled for complex elements); more than max_rank axes is a shape_error.
/// Compiled once (src/engine/engine.cpp).
tensor_ref strided_ref(std::string_view op, void* data, component type, bool complex, std::span<const std::size_t> extents,
                       std::span<const std::ptrdiff_t> strides);

/// Row-major strides of `shape` for elements of `width` components.
inline std::array<std::ptrdiff_t, max_rank> row_major_strides(const dims& shape, std::ptrdiff_t width) noexcept {
    std::array<std::ptrdiff_t, max_rank> strides{};
    std::ptrdiff_t running = width;
    for (std::size_t a = shape.rank; a-- > 0;) {
        strides[a] = running;
        running *= static_cast<std::ptrdiff_t>(shape.extent[a]);
    }
    return strides;
}

/// Is t laid out packed (row-major, contiguous) over the axes [from, rank)?
/// Axes of extent 1 are ignored.
inline bool packed_from(const tensor_ref& t, std::size_t from) noexcept {
    std::ptrdiff_t packed = t.width();
    for (std::size_t a = t.rank(); a-- > from;) {
        if (t.shape[a] != 1 && t.strides[a] != packed) return false;
        packed *= static_cast<std::ptrdiff_t>(t.shape[a]);
    }
    return true;
}

// ---- views: the description moved, the memory untouched -------------------------------

/// A real (…, 2) tensor read as complex (the trailing axis made implicit),
/// or nullopt when that axis is not [re, im] side by side (extent 2, stride 1).
inline std::optional<tensor_ref> pairs_as_complex(const tensor_ref& t) noexcept {
    if (t.complex || t.rank() == 0 || t.shape[t.rank() - 1] != 2 || t.strides[t.rank() - 1] != 1) return std::nullopt;
    tensor_ref r = t;
    --r.shape.rank;
    r.complex = true;
    return r;
}

/// An out= buffer's memory, a real (…, 2) layout, read as complex; a
/// layout_error naming the op when its [re, im] axis is not contiguous.
tensor_ref output_pairs(std::string_view op, const tensor_ref& memory);

/// The axes in the order `perm` (a permutation of 0 … rank − 1, checked by the caller).
inline tensor_ref permuted(const tensor_ref& t, std::span<const std::size_t> perm) noexcept {
    tensor_ref r = t;
    for (std::size_t a = 0; a < perm.size(); ++a) {
        r.shape.extent[a] = t.shape.extent[perm[a]];
        r.strides[a] = t.strides[perm[a]];
    }
    return r;
}

/// Axis `axis` fixed at `index` (in range): one dimension less.
inline tensor_ref selected(const tensor_ref& t, std::size_t axis, std::size_t index) noexcept {
    tensor_ref r = t;
    r.data = t.at(static_cast<std::ptrdiff_t>(index) * t.strides[axis]);
    for (std::size_t a = axis; a + 1 < t.shape.rank; ++a) {
        r.shape.extent[a] = t.shape.extent[a + 1];
        r.strides[a] = t.strides[a + 1];
    }
    --r.shape.rank;
    return r;
}

/// `length` elements start, start + step, … along `axis` (all in range).
inline tensor_ref sliced(const tensor_ref& t, std::size_t axis, std::size_t start, std::size_t length,
                         std::size_t step) noexcept {
    tensor_ref r = t;
    if (length > 0) r.data = t.at(static_cast<std::ptrdiff_t>(start) * t.strides[axis]);
    r.shape.extent[axis] = length;
    // one element: any stride describes it, and step · stride may not fit
    r.strides[axis] = length > 1 ? t.strides[axis] * static_cast<std::ptrdiff_t>(step) : t.strides[axis];
    return r;
}

/// Axis `axis` reversed (a negative stride).
inline tensor_ref flipped(const tensor_ref& t, std::size_t axis) noexcept {
    tensor_ref r = t;
    const std::size_t n = t.shape.extent[axis];
    if (n > 1) r.data = t.at(static_cast<std::ptrdiff_t>(n - 1) * t.strides[axis]);
    r.strides[axis] = -t.strides[axis];
    return r;
}

/// An axis of extent 1 inserted before `axis` (≤ rank); t.rank() < max_rank
/// (the caller checks: its only use promotes a 1-D matmul operand).
inline tensor_ref unsqueezed(const tensor_ref& t, std::size_t axis) noexcept {
    tensor_ref r = t;
    for (std::size_t a = t.shape.rank; a > axis; --a) {
        r.shape.extent[a] = t.shape.extent[a - 1];
        r.strides[a] = t.strides[a - 1];
    }
    r.shape.extent[axis] = 1;
    r.strides[axis] = 0;
    ++r.shape.rank;
    return r;
}

/// Axis `axis` (of extent outer · inner) as two axes (outer, inner);
/// t.rank() < max_rank, as for unsqueezed.
inline tensor_ref split_axis(const tensor_ref& t, std::size_t axis, std::size_t outer, std::size_t inner) noexcept {
    tensor_ref r = unsqueezed(t, axis);
    r.shape.extent[axis] = outer;
    r.shape.extent[axis + 1] = inner;
    r.strides[axis] = t.strides[axis] * static_cast<std::ptrdiff_t>(inner);
    return r;
}

/// t broadcast to `shape` (NumPy's rule, checked by the caller): new leading
/// axes and axes of extent 1 get stride 0.
inline tensor_ref broadcast_to(const tensor_ref& t, const dims& shape) noexcept {
    tensor_ref r = t;
    r.shape = shape;
    const std::size_t lead = shape.rank - t.shape.rank;
    for (std::size_t a = 0; a < shape.rank; ++a) {
        const bool own = a >= lead && t.shape.extent[a - lead] != 1;
        r.strides[a] = own ? t.strides[a - lead] : 0;
    }
    return r;
}

/// t as a tensor of shape `shape` with the same elements in row-major
/// order, without copying — PyTorch's view rule (computeStride): possible
/// when each group of dims merged or split is contiguous in memory; nullopt
/// otherwise.
inline std::optional<tensor_ref> reshaped_view(const tensor_ref& t, const dims& shape) noexcept {
    tensor_ref r = t;
    r.shape = shape;
    if (t.count() == 0 || t.shape.rank == 0 || shape.rank == 0) {
        r.strides = row_major_strides(shape, t.width());
        return r;
    }
    // Walk the old dims from the back in chunks whose elements are contiguous
    // among themselves, matching each chunk with new dims of the same count.
    std::ptrdiff_t view_d = static_cast<std::ptrdiff_t>(shape.rank) - 1;
    std::ptrdiff_t chunk_base_stride = t.shape.rank > 0 ? t.strides[t.shape.rank - 1] : t.width();
    std::size_t tensor_numel = 1, view_numel = 1;
    for (std::ptrdiff_t d = static_cast<std::ptrdiff_t>(t.shape.rank) - 1; d >= 0; --d) {
        tensor_numel *= t.shape.extent[static_cast<std::size_t>(d)];
        const bool chunk_ends = d == 0 || (t.shape.extent[static_cast<std::size_t>(d - 1)] != 1 &&
                                           t.strides[static_cast<std::size_t>(d - 1)] !=
                                               static_cast<std::ptrdiff_t>(tensor_numel) * chunk_base_stride);
        if (chunk_ends) {
            while (view_d >= 0 && (view_numel < tensor_numel || shape.extent[static_cast<std::size_t>(view_d)] == 1)) {
                r.strides[static_cast<std::size_t>(view_d)] = static_cast<std::ptrdiff_t>(view_numel) * chunk_base_stride;
                view_numel *= shape.extent[static_cast<std::size_t>(view_d)];
                --view_d;
            }
            if (view_numel != tensor_numel) return std::nullopt;
            if (d > 0) {
                chunk_base_stride = t.strides[static_cast<std::size_t>(d - 1)];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if (view_d != -1) return std::nullopt;
    return r;
}

}  // namespace realify::engine
