// Operands of the pieces that preceded realify/engine: operand_ref /
// prepared_operand / prepare (an operand as pointer, element shape and
// strides in units of the component type, evaluated into a contiguous
// temporary when it has no memory), NumPy broadcasting of their shapes, and
// the layout questions the graph's SIMD row route asks (is_contiguous_as,
// aligned_strides).
//
// KEPT FOR THESE ONLY: every elementwise loop runs on the compiled engine
// (realify/engine/elementwise.hpp: the eager ops, the graph's fused loops and
// fallback). realify/dispatch/lowerings/linalg.hpp (prepare),
// graph/simd_rows.hpp and graph/infer_shapes.hpp (broadcast_shapes) still
// use these.
#pragma once

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <xtensor/xarray.hpp>
#include <xtensor/xeval.hpp>
#include <xtensor/xstorage.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/kernels/element.hpp"
#include "realify/errors.hpp"
#include "realify/layout/complex_layout.hpp"
#include "realify/layout/memory_access.hpp"
#include "realify/dispatch/results.hpp"
#include "realify/ops/operand.hpp"

namespace realify::detail {

using dim_vector = xt::svector<std::size_t, 6>;
using stride_vector = xt::svector<std::ptrdiff_t, 6>;

/// One operand as the loops read it. Complex: data points at the re of the
/// first pair and strides step whole pairs (in units of T).
template <class T, bool Complex>
struct operand_ref {
    const T* data = nullptr;
    dim_vector shape;
    stride_vector strides;
};

/// An operand and the temporary it may need; not movable once referenced.
template <class T, bool Complex>
struct prepared_operand {
    static constexpr bool is_complex = Complex;
    using value_type = T;
    std::optional<xt::xarray<T>> storage;  // optional: a default xarray allocates one element
    T number[2] = {T(0), T(0)};
    operand_ref<T, Complex> ref;
    prepared_operand() = default;
    prepared_operand(const prepared_operand&) = delete;
    prepared_operand& operator=(const prepared_operand&) = delete;
};

template <class R>
inline constexpr bool directly_readable_v = strided_in_memory<const R&>;

/// Points `out.ref` at out.storage (row-major; the [re, im] axis dropped when complex).
template <class T, bool Complex>
void point_at_storage(prepared_operand<T, Complex>& out) {
    constexpr std::size_t drop = Complex ? 1 : 0;
    const auto& shape = out.storage->shape();
    const auto& strides = out.storage->strides();
    out.ref.data = out.storage->data();
    out.ref.shape.assign(shape.begin(), shape.end() - drop);
    out.ref.strides.assign(strides.begin(), strides.end() - drop);
}

/// Points `out.ref` at the memory of a real expression of component type T whose
/// trailing `drop` axes (0 for real tensors, 1 for the [re, im] axis) are contiguous.
template <class T, bool Complex, class R>
void prepare_expression(prepared_operand<T, Complex>& out, const R& expression) {
    constexpr std::size_t drop = Complex ? 1 : 0;
    if constexpr (std::is_same_v<typename R::value_type, T> && directly_readable_v<R>) {
        const auto& strides = expression.strides();
        const auto& shape = expression.shape();
        if (!Complex || strides[shape.size() - 1] == 1) {
            out.ref.data = first_element(expression);
            out.ref.shape.assign(shape.begin(), shape.end() - drop);
            out.ref.strides.assign(strides.begin(), strides.end() - drop);
            return;
        }
    }
    out.storage.emplace(xt::cast<T>(expression));
    point_at_storage(out);
}

/// Prepares any elementwise operand for component type T.
template <class T, class A>
auto& prepare(prepared_operand<T, complex_operand<A>>& out, const A& arg) {
    if constexpr (complex_layout_operand<A>) {
        prepare_expression(out, arg.real_layout());
    } else if constexpr (complex_container_operand<A>) {
        if constexpr (strided_in_memory<const A&>) {
            prepare_expression(out, view_as_real(arg));
        } else {
            const xt::xarray<typename A::value_type> evaluated(arg);
            out.storage.emplace(xt::cast<T>(view_as_real(evaluated)));
            point_at_storage(out);
        }
    } else if constexpr (real_tensor_operand<A>) {
        prepare_expression(out, arg);
    } else if constexpr (complex_number_operand<A>) {
        out.number[0] = static_cast<T>(arg.real());
        out.number[1] = static_cast<T>(arg.imag());
        out.ref.data = out.number;
    } else {
        out.number[0] = static_cast<T>(arg);
        out.ref.data = out.number;
    }
    return out;
}

template <class T, class A>
using prepared_for = prepared_operand<T, complex_operand<A>>;

/// NumPy broadcasting of the operand shapes; shape_error names the op and the shapes.
template <class... Refs>
dim_vector broadcast_shapes(std::string_view op_name, const Refs&... refs) {
    std::size_t rank = 0;
    ((rank = refs.shape.size() > rank ? refs.shape.size() : rank), ...);
    dim_vector result(rank, 1);
    bool ok = true;
    auto merge = [&](const dim_vector& shape) {
        const std::size_t offset = rank - shape.size();
        for (std::size_t i = 0; i < shape.size(); ++i) {
            std::size_t& r = result[offset + i];
            if (shape[i] == r || shape[i] == 1) continue;
            if (r == 1) r = shape[i];
            else ok = false;
        }
    };
    (merge(refs.shape), ...);
    if (!ok) {
        std::ostringstream message;
        message << "realify::" << op_name << ": operands of shapes";
        const char* sep = " ";
        ((message << sep << format_sequence(refs.shape), sep = " and "), ...);
        message << " cannot be broadcast together";
        throw shape_error(message.str());
    }
    return result;
}

template <class T, bool Complex>
bool is_contiguous_as(const operand_ref<T, Complex>& ref, const dim_vector& shape) {
    if (ref.shape.size() != shape.size()) return false;
    std::ptrdiff_t expected = Complex ? 2 : 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        if (ref.shape[i] != shape[i]) return false;
        if (shape[i] != 1 && ref.strides[i] != expected) return false;
        expected *= static_cast<std::ptrdiff_t>(shape[i]);
    }
    return true;
}

/// Broadcast strides of an operand aligned to the result's rank (0 where it broadcasts).
template <class T, bool Complex>
stride_vector aligned_strides(const operand_ref<T, Complex>& ref, const dim_vector& shape) {
    stride_vector result(shape.size(), 0);
    const std::size_t offset = shape.size() - ref.shape.size();
    for (std::size_t i = 0; i < ref.shape.size(); ++i) {
        result[offset + i] = ref.shape[i] == 1 ? 0 : ref.strides[i];
    }
    return result;
}

}  // namespace realify::detail
