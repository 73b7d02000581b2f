// A node's run-time value and the closed set of types it can have.
//
// tensor_value<T> is a strided view of memory of component type T, as a
// PyTorch tensor is (graph/value.hpp has what is done with it). Between
// evaluation steps a value is a graph_value: a std::variant over the
// component types a graph computes in — float and double (real and complex
// tensors, a complex element its adjacent (re, im) pair), bool (masks,
// comparisons, isnan), int32 and int64 (indices, token ids, sizes). The set
// is closed so that what a step hands the next is checked by the compiler
// (std::get names the type it expects) and so that nothing outside this list
// can become a graph value: a user op returning another element type is
// refused by a static_assert where its value is made (typed_value_ops).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <variant>

#include "realify/graph/node.hpp"

namespace realify::graph {

template <class T>
struct tensor_value {
    T* data = nullptr;       // the first component of element (0, …, 0); may be anywhere in its memory
    shape_vector shape;
    stride_vector strides;   // per axis, in components (any sign, 0 for a broadcast axis)
    bool complex = false;
    std::shared_ptr<void> keep;

    std::size_t count() const {
        std::size_t n = 1;
        for (std::size_t s : shape) n *= s;
        return n;
    }
    /// Components per element: 2 for complex, 1 for real.
    std::ptrdiff_t width() const { return complex ? 2 : 1; }
    /// Row-major and contiguous (axes of extent 1 ignored): what a packed
    /// consumer reads as it is.
    bool packed() const {
        std::ptrdiff_t next = width();
        for (std::size_t a = shape.size(); a-- > 0;) {
            if (shape[a] != 1 && strides[a] != next) return false;
            next *= static_cast<std::ptrdiff_t>(shape[a]);
        }
        return true;
    }
};

template <class T>
inline constexpr bool is_value_component_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, bool> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

/// A node's value between evaluation steps; std::monostate: not computed yet.
using graph_value = std::variant<std::monostate, tensor_value<float>, tensor_value<double>, tensor_value<bool>,
                                 tensor_value<std::int32_t>, tensor_value<std::int64_t>>;

/// Which alternative of graph_value a value is, in the variant's order (an
/// input's record says which one its argument must bind to).
enum class value_kind : unsigned char { none, f32, f64, boolean, i32, i64 };

template <class T>
constexpr value_kind value_kind_of() noexcept {
    if constexpr (std::is_same_v<T, float>) return value_kind::f32;
    else if constexpr (std::is_same_v<T, double>) return value_kind::f64;
    else if constexpr (std::is_same_v<T, bool>) return value_kind::boolean;
    else if constexpr (std::is_same_v<T, std::int32_t>) return value_kind::i32;
    else if constexpr (std::is_same_v<T, std::int64_t>) return value_kind::i64;
    else return value_kind::none;
}
inline value_kind kind_of(const graph_value& v) noexcept { return static_cast<value_kind>(v.index()); }
/// PyTorch's name of a value kind's dtype (a complex value's components: float32, float64).
constexpr const char* value_kind_name(value_kind k) noexcept {
    switch (k) {
    case value_kind::f32: return "float32";
    case value_kind::f64: return "float64";
    case value_kind::boolean: return "bool";
    case value_kind::i32: return "int32";
    case value_kind::i64: return "int64";
    default: return "unsupported (not float, double, bool, int32 or int64)";
    }
}

/// Whether `v` holds a value (memo slots start empty).
inline bool has_value(const graph_value& v) noexcept { return !std::holds_alternative<std::monostate>(v); }

}  // namespace realify::graph
