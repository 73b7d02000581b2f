// The elementwise engine every elementwise lowering runs on.
//
// Operands (complex layouts, real tensors, numbers) are reduced to a pointer,
// an element shape and element strides in units of the component type; complex
// elements are interleaved (re, im) pairs, read as kernel::cpair. Operands not
// in memory, of another component type, or whose [re, im] axis is not
// adjacent are evaluated once into a contiguous temporary.
//
// Two loops, both contiguous over interleaved memory — never strided
// xt::views of the (…,2) layout (measured 15× slower than Eigen):
//   fast path    every tensor operand has the result's shape and is row-major
//                contiguous, numbers are broadcast: one tight loop over pairs,
//                the loaders chosen at compile time so the loop vectorises;
//   general path NumPy broadcasting / strided inputs: an odometer over the
//                outer axes and a strided inner loop.
// The result is a freshly allocated row-major container.
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

/// Points `out.ref` at the memory of a real expression of component type T whose
/// trailing `drop` axes (0 for real tensors, 1 for the [re, im] axis) are contiguous.
template <class T, bool Complex, class R>
void prepare_expression(prepared_operand<T, Complex>& out, const R& expression) {
    constexpr std::size_t drop = Complex ? 1 : 0;
    if constexpr (std::is_same_v<typename R::value_type, T> && directly_readable_v<R>) {
        const auto& strides = expression.strides();
        const auto& shape = expression.shape();
        if (!Complex || strides[shape.size() - 1] == 1) {
            out.ref.data = expression.data() + expression.data_offset();
            out.ref.shape.assign(shape.begin(), shape.end() - drop);
            out.ref.strides.assign(strides.begin(), strides.end() - drop);
            return;
        }
    }
    const xt::xarray<T>& copy = out.storage.emplace(xt::cast<T>(expression));
    const auto& shape = copy.shape();
    const auto& strides = copy.strides();
    out.ref.data = copy.data();
    out.ref.shape.assign(shape.begin(), shape.end() - drop);
    out.ref.strides.assign(strides.begin(), strides.end() - drop);
}

/// Prepares any elementwise operand for component type T.
template <class T, class A>
auto& prepare(prepared_operand<T, complex_operand<A>>& out, const A& arg) {
    if constexpr (complex_tensor_operand<A>) {
        prepare_expression(out, arg.real_layout());
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

// ---- loaders: how the loops read one operand ---------------------------------
template <class T, bool Complex>
auto load_at(const T* p) {
    if constexpr (Complex) return kernel::cpair<T>{p[0], p[1]};
    else return p[0];
}
/// Tensor with the result's shape, contiguous: element i.
template <class T, bool Complex>
struct contiguous_loader {
    const T* p;
    auto operator()(std::size_t i) const { return load_at<T, Complex>(p + (Complex ? 2 * i : i)); }
};
/// A number or a single element broadcast everywhere.
template <class T, bool Complex>
struct constant_loader {
    const T* p;
    auto operator()(std::size_t) const { return load_at<T, Complex>(p); }
};
/// Strided inner axis of the general path.
template <class T, bool Complex>
struct strided_loader {
    const T* p;
    std::ptrdiff_t step;
    auto operator()(std::size_t i) const { return load_at<T, Complex>(p + static_cast<std::ptrdiff_t>(i) * step); }
};

// ---- stores -------------------------------------------------------------------
template <class O, class T>
inline void store(O* out, std::size_t i, kernel::cpair<T> v) {
    out[2 * i] = v.re;
    out[2 * i + 1] = v.im;
}
template <class O, class V>
    requires std::is_arithmetic_v<V>
inline void store(O* out, std::size_t i, V v) {
    out[i] = v;
}

template <class O, class Kernel, class... Loaders>
void tight_loop(O* out, std::size_t n, const Kernel& kernel, const Loaders&... loaders) {
    for (std::size_t i = 0; i < n; ++i) store(out, i, kernel(loaders(i)...));
}

/// Chooses, per operand at run time, a compile-time loader (contiguous or
/// constant), then runs the tight loop with all of them.
template <class O, class Kernel, class Tuple, std::size_t I = 0, class... Chosen>
void fast_path(O* out, std::size_t n, const Kernel& kernel, const Tuple& refs, const Chosen&... chosen) {
    if constexpr (I == std::tuple_size_v<Tuple>) {
        tight_loop(out, n, kernel, chosen...);
    } else {
        const auto& ref = *std::get<I>(refs);
        using ref_type = std::remove_cvref_t<decltype(ref)>;
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(ref.data)>>;
        constexpr bool complex = std::is_same_v<ref_type, operand_ref<T, true>>;
        if (ref.shape.empty()) {
            fast_path<O, Kernel, Tuple, I + 1>(out, n, kernel, refs, chosen..., constant_loader<T, complex>{ref.data});
        } else {
            fast_path<O, Kernel, Tuple, I + 1>(out, n, kernel, refs, chosen..., contiguous_loader<T, complex>{ref.data});
        }
    }
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

template <class T, bool Complex>
strided_loader<T, Complex> inner_loader(const operand_ref<T, Complex>& ref, const stride_vector& strides,
                                         const dim_vector& index) {
    const T* p = ref.data;
    const std::size_t rank = index.size();
    for (std::size_t a = 0; a + 1 < rank; ++a) p += static_cast<std::ptrdiff_t>(index[a]) * strides[a];
    return {p, rank == 0 ? 0 : strides[rank - 1]};
}

template <std::size_t Width, class O, class Kernel, class... Refs>
void general_path(O* out, const dim_vector& shape, const Kernel& kernel, const Refs&... refs) {
    const std::size_t rank = shape.size();
    const std::size_t inner = rank == 0 ? 1 : shape[rank - 1];
    const std::array<stride_vector, sizeof...(Refs)> strides{aligned_strides(refs, shape)...};
    dim_vector index(rank, 0);
    std::size_t total = 1;
    for (std::size_t s : shape) total *= s;
    if (total == 0) return;
    for (std::size_t done = 0; done < total; done += inner) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            tight_loop(out + done * Width, inner, kernel, inner_loader(refs, strides[I], index)...);
        }(std::index_sequence_for<Refs...>{});
        // advance the odometer over the outer axes
        for (std::size_t a = rank - 1; a-- > 0;) {
            if (++index[a] < shape[a]) break;
            index[a] = 0;
        }
    }
}

/// An owning container of element type V and rank Rank (xarray when dynamic).
template <class V, std::size_t Rank>
using owning_tensor_t = std::conditional_t<Rank == dynamic_rank, xt::xarray<V>, xt::xtensor<V, Rank == dynamic_rank ? 0 : Rank>>;

template <class Container>
Container make_container(const dim_vector& shape, std::size_t trailing) {
    dim_vector full = shape;
    if (trailing != 0) full.push_back(trailing);
    using shape_type = typename Container::shape_type;
    shape_type s = make_shape<shape_type>(full.size());
    std::copy(full.begin(), full.end(), s.begin());
    return Container::from_shape(s);
}

template <std::size_t Width, class O, class Kernel, class... Refs>
void run_into(O* out, const dim_vector& shape, const Kernel& kernel, const Refs&... refs) {
    std::size_t total = 1;
    for (std::size_t s : shape) total *= s;
    if (total == 0) return;
    const bool fast = ((refs.shape.empty() || is_contiguous_as(refs, shape)) && ...);
    if (fast) {
        fast_path(out, total, kernel, std::make_tuple(&refs...));
    } else {
        general_path<Width>(out, shape, kernel, refs...);
    }
}

/// Runs `kernel` over the broadcast of the prepared operands. Out is the
/// element kind of the result: kernel::cpair<T> (complex result), T or bool.
template <std::size_t Rank, class Kernel, class... Prepared>
auto run_elementwise(std::string_view op_name, const Kernel& kernel, const Prepared&... operands) {
    using result_element = decltype(kernel(load_at<typename Prepared::value_type, Prepared::is_complex>(operands.ref.data)...));
    const dim_vector shape = broadcast_shapes(op_name, operands.ref...);
    constexpr bool complex_result = !std::is_arithmetic_v<result_element>;
    if constexpr (complex_result) {
        using T = decltype(result_element::re);
        auto result = make_container<owning_tensor_t<T, rank_plus_one(Rank)>>(shape, 2);
        run_into<2>(result.data(), shape, kernel, operands.ref...);
        return complex_layout<decltype(result)>(std::move(result));
    } else {
        auto result = make_container<owning_tensor_t<result_element, Rank>>(shape, 0);
        run_into<1>(result.data(), shape, kernel, operands.ref...);
        return result;
    }
}

}  // namespace realify::detail
