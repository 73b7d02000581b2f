// realify::rope::apply_rotary_emb — rotary position embeddings on
// (batch, seq, heads, head_dim) real tensors, the C++ form of Llama's
//
//     xq_ = view_as_complex(xq.reshape(..., -1, 2)); xq_out = view_as_real(xq_ * freqs_cis)
//
// without ever materialising a complex tensor: pairs of components are rotated
// in place in their real layout (interleaved, or half-split for GPT-NeoX/HF).
//
//   auto [q, k] = apply_rotary_emb(xq, xk, freqs_cis, start_pos);            // new tensors
//   apply_rotary_emb(xq, xk, freqs_cis, start_pos, out_q, out_k);            // caller buffers
//   apply_rotary_emb(xq, xk, freqs_cis, start_pos, xq, xk);                  // in place
//   auto q = apply_rotary_emb(xq, freqs_cis, start_pos);                     // one tensor
//   apply_rotary_emb(xk, freqs_cis, start_pos, cache_slot);                  // one tensor, any layout
//
// xq and xk may have different head counts (GQA); batch, seq and head_dim must
// agree. freqs_cis is (end, head_dim/2) complex — an xtensor of std::complex<C>
// or a realify::complex_layout of a real (end, head_dim/2, 2) expression — with
// end ≥ start_pos + seq; row start_pos + s rotates position s. q and k are
// processed in one pass: each frequency row is read once for both.
//
// Storage: float and double compute in their own precision (freqs_cis must
// then be complex<float> resp. complex<double>). Eigen::half and
// Eigen::bfloat16 storage with float compute: include realify/rope/half.hpp.
//
// For raw buffers (an inference engine's KV cache) there is a span form with
// the shape given explicitly, for float and double:
//
//   apply_rotary_emb(rope_dims{batch, seq, q_heads, k_heads, head_dim},
//                    xq, xk, freqs_cis, start_pos, out_q, out_k);
//
// where xq/xk/out_q/out_k are contiguous row-major spans and freqs_cis is the
// contiguous (end, head_dim/2) table as a span of std::complex.
//
// start_pos and the rope_dims fields are std::ptrdiff_t, like every dim of
// the public API; a negative value is a shape_error naming it. Sizes are
// checked (realify/checked_size.hpp): nothing wraps around.
//
// Contiguous row-major buffers go straight to the compiled SIMD kernels; any
// other xtensor expression is copied first (inputs) or assigned afterwards
// (outputs). Aliasing is checked on the caller's memory (each tensor's bytes
// from its lowest to its highest element address), before any copy:
//   - out_q and out_k must not overlap (layout_error);
//   - out_q and out_k must not overlap freqs_cis (layout_error);
//   - an output may be exactly its input (same memory, same layout: in place);
//     any other overlap of an output with an input is handled by copying
//     that input first in the tensor form, and refused (layout_error) in the
//     span form, whose raw buffers are never copied behind the caller's back.
#pragma once

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xutils.hpp>

#include "realify/checked_size.hpp"
#include "realify/engine/rope.hpp"
#include "realify/engine/xtensor_refs.hpp"
#include "realify/errors.hpp"
#include "realify/layout/complex_layout.hpp"
#include "realify/layout/memory_access.hpp"
#include "realify/layout/pointer_cast.hpp"
#include "realify/rope/compiled.hpp"
#include "realify/rope/pair_layout.hpp"
#include "realify/simd/streaming.hpp"

namespace realify::rope {

/// Storage types apply_rotary_emb accepts, and the type it computes in.
/// float and double are here; realify/rope/half.hpp adds Eigen::half and
/// Eigen::bfloat16 (float compute).
template <class T>
struct storage_traits {
    static constexpr bool supported = false;
};
template <>
struct storage_traits<float> {
    static constexpr bool supported = true;
    using compute_type = float;
};
template <>
struct storage_traits<double> {
    static constexpr bool supported = true;
    using compute_type = double;
};

namespace detail {

using realify::detail::as_real_pointer;
using realify::detail::format_sequence;

using shape4 = std::array<std::size_t, 4>;

template <class E>
shape4 shape_of_rank4(const E& e, const char* what) {
    const auto& shape = e.shape();
    if (shape.size() != 4) {
        std::ostringstream message;
        message << "realify::rope::apply_rotary_emb: " << what
                << " must be (batch, seq, heads, head_dim), got shape " << format_sequence(shape);
        throw shape_error(message.str());
    }
    return {shape[0], shape[1], shape[2], shape[3]};
}

/// True when e's elements are exactly [data(), data() + size()) in row-major order.
template <class E>
bool is_row_major_contiguous(const E& e) {
    if constexpr (xt::has_data_interface<std::decay_t<E>>::value) {
        const auto& shape = e.shape();
        const auto& strides = e.strides();
        std::ptrdiff_t expected = 1;
        for (std::size_t axis = shape.size(); axis-- > 0;) {
            if (shape[axis] != 1 && static_cast<std::ptrdiff_t>(strides[axis]) != expected) return false;
            expected *= static_cast<std::ptrdiff_t>(shape[axis]);
        }
        return true;
    } else {
        return false;
    }
}

using realify::detail::first_element;

inline constexpr const char* entry_point = "rope::apply_rotary_emb";

/// The bytes [begin, end) between a tensor's lowest and highest element
/// address; empty when it has no elements or no memory of its own.
struct byte_span {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;

    bool empty() const noexcept { return begin == end; }
    bool overlaps(const byte_span& other) const noexcept {
        return !empty() && !other.empty() && begin < other.end && other.begin < end;
    }
};

/// The bytes of n contiguous elements at p.
template <class T>
byte_span contiguous_span(const T* p, std::size_t n) noexcept {
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    return n == 0 ? byte_span{} : byte_span{begin, begin + n * sizeof(T)};
}

/// The caller's memory an expression reads or writes: from the strides for
/// containers, adaptors and strided views; element by element for other
/// views of memory (index/keep slices); nothing for computed expressions
/// (xt::xfunction…), which are evaluated into a copy before any write.
template <class E>
byte_span memory_span(const E& e) {
    using value = std::remove_cv_t<typename E::value_type>;
    if (e.size() == 0) return {};
    if constexpr (xt::has_data_interface<std::decay_t<E>>::value) {
        const auto& shape = e.shape();
        const auto& strides = e.strides();
        std::ptrdiff_t lowest = 0;  // element offsets from the first element
        std::ptrdiff_t highest = 0;
        for (std::size_t axis = 0; axis < shape.size(); ++axis) {
            const std::ptrdiff_t reach = static_cast<std::ptrdiff_t>(strides[axis]) *
                                         (static_cast<std::ptrdiff_t>(shape[axis]) - 1);
            (reach < 0 ? lowest : highest) += reach;
        }
        const auto first = reinterpret_cast<std::uintptr_t>(first_element(e));
        const auto size = static_cast<std::ptrdiff_t>(sizeof(value));
        return {first + static_cast<std::uintptr_t>(lowest * size), first + static_cast<std::uintptr_t>((highest + 1) * size)};
    } else if constexpr (std::is_lvalue_reference_v<decltype(*e.begin())>) {
        byte_span span{std::numeric_limits<std::uintptr_t>::max(), 0};
        for (const auto& element : e) {
            const auto address = reinterpret_cast<std::uintptr_t>(&element);
            span.begin = std::min(span.begin, address);
            span.end = std::max(span.end, address + sizeof(value));
        }
        return span;
    } else {
        return {};
    }
}

template <class F>
byte_span freqs_memory_span(const F& freqs_cis) {
    if constexpr (is_complex_layout_v<F>) {
        return memory_span(freqs_cis.real_layout());
    } else {
        return memory_span(freqs_cis);
    }
}

[[noreturn]] inline void refuse_overlap(const char* a, const char* b, const char* rule) {
    std::ostringstream message;
    message << "realify::rope::apply_rotary_emb: " << a << " overlaps " << b << " (" << rule << ")";
    throw layout_error(message.str());
}

/// A contiguous row-major pointer to an input's elements, copying when needed.
template <class T>
struct input_buffer {
    const T* data = nullptr;
    xt::xtensor<T, 4> copy;
    bool owned = false;  // data points into copy

    template <class E>
    input_buffer(const E& e, const shape4& shape) {
        if constexpr (xt::has_data_interface<std::decay_t<E>>::value) {
            if (is_row_major_contiguous(e)) {
                data = first_element(e);
                return;
            }
        }
        copy = xt::xtensor<T, 4>(shape);
        xt::noalias(copy) = e;
        data = copy.data();
        owned = true;
    }

    /// Replaces the borrowed pointer by a private copy when an output's
    /// memory overlaps it: its own output unless exactly in place (same
    /// memory, same layout — what the kernels support), the other output
    /// always (the kernel would read values the other side already wrote).
    void detach_if_overwritten(const shape4& shape, bool in_place, const byte_span& own_output,
                               const byte_span& other_output) {
        if (owned) return;
        const byte_span span = contiguous_span(data, shape[0] * shape[1] * shape[2] * shape[3]);
        if ((in_place || !span.overlaps(own_output)) && !span.overlaps(other_output)) return;
        xt::xtensor<T, 4> private_copy(shape);
        std::copy(data, data + private_copy.size(), private_copy.begin());
        copy = std::move(private_copy);
        data = copy.data();
        owned = true;
    }
};

/// A contiguous row-major pointer to write an output through, with a staging
/// tensor (assigned back by finish()) when the output is not contiguous.
template <class T, class E>
struct output_buffer {
    E& target;
    T* data = nullptr;
    xt::xtensor<T, 4> staging;
    bool staged = false;  // data points into staging, assigned to target by finish()

    output_buffer(E& e, const shape4& shape) : target(e) {
        if constexpr (xt::has_data_interface<std::decay_t<E>>::value) {
            if (is_row_major_contiguous(e)) {
                data = first_element(e);
                return;
            }
        }
        staging = xt::xtensor<T, 4>(shape);
        data = staging.data();
        staged = true;
    }

    void finish() {
        if (staged) xt::noalias(target) = staging;
    }
};

/// The frequency table as contiguous interleaved reals (end rows of 2·half).
template <class C>
struct freq_table {
    const C* data = nullptr;
    std::size_t rows = 0;
    std::size_t cols = 0;  // complex columns (head_dim / 2)
    xt::xtensor<std::complex<C>, 2> copy;
};

template <class E>
struct freq_value {
    using type = void;
};
template <class E>
    requires requires { typename E::value_type; } && complex_scalar<typename E::value_type>
struct freq_value<E> {
    using type = typename E::value_type;
};
template <class E>
struct freq_value<complex_layout<E>> {
    using type = typename complex_layout<E>::complex_type;
};

template <class C, class F>
freq_table<C> make_freq_table(const F& freqs_cis) {
    freq_table<C> table;
    if constexpr (is_complex_layout_v<F>) {
        const auto& real = freqs_cis.real_layout();
        const auto& shape = real.shape();
        if (shape.size() != 3) {
            std::ostringstream message;
            message << "realify::rope::apply_rotary_emb: freqs_cis must be (end, head_dim/2) complex, got a complex "
                       "layout of real shape "
                    << format_sequence(shape);
            throw shape_error(message.str());
        }
        table.rows = shape[0];
        table.cols = shape[1];
        if constexpr (xt::has_data_interface<std::decay_t<decltype(real)>>::value) {
            if (is_row_major_contiguous(real)) {
                table.data = first_element(real);
                return table;
            }
        }
        table.copy = to_complex_tensor(freqs_cis);
    } else {
        const auto& shape = freqs_cis.shape();
        if (shape.size() != 2) {
            std::ostringstream message;
            message << "realify::rope::apply_rotary_emb: freqs_cis must be (end, head_dim/2) complex, got shape "
                    << format_sequence(shape);
            throw shape_error(message.str());
        }
        table.rows = shape[0];
        table.cols = shape[1];
        if constexpr (xt::has_data_interface<F>::value) {
            if (is_row_major_contiguous(freqs_cis)) {
                table.data = as_real_pointer(first_element(freqs_cis));
                return table;
            }
        }
        table.copy = xt::xtensor<std::complex<C>, 2>(std::array<std::size_t, 2>{table.rows, table.cols});
        xt::noalias(table.copy) = freqs_cis;
    }
    table.data = as_real_pointer(table.copy.data());
    return table;
}

/// Shapes and position against the table; returns start_pos as a size.
inline std::size_t validate(const shape4& q, const shape4& k, std::size_t freq_rows, std::size_t freq_cols,
                            std::ptrdiff_t start_pos) {
    auto fail = [&](const std::string& what) {
        std::ostringstream message;
        message << "realify::rope::apply_rotary_emb: " << what << " (xq " << format_sequence(q) << ", xk "
                << format_sequence(k) << ", freqs_cis " << format_sequence(std::array{freq_rows, freq_cols})
                << ", start_pos " << start_pos << ")";
        throw shape_error(message.str());
    };
    if (q[0] != k[0] || q[1] != k[1]) fail("xq and xk must agree in batch and seq");
    if (q[3] != k[3]) fail("xq and xk must have the same head_dim");
    if (q[3] % 2 != 0) fail("head_dim must be even (pairs of components)");
    if (freq_cols != q[3] / 2) fail("freqs_cis must have head_dim/2 columns");
    const std::size_t first_row = realify::detail::to_size(entry_point, "start_pos", start_pos);
    // never start_pos + seq: it may wrap
    if (first_row > freq_rows || q[1] > freq_rows - first_row) fail("freqs_cis has fewer rows than start_pos + seq");
    return first_row;
}

inline void validate_out(const char* name, const shape4& expected, const shape4& got) {
    if (expected != got) {
        std::ostringstream message;
        message << "realify::rope::apply_rotary_emb: " << name << " has shape " << format_sequence(got)
                << ", expected " << format_sequence(expected);
        throw shape_error(message.str());
    }
}

template <class T>
void run_compiled_rope(rope_call<T> call) {
    // The kernels form pointers x + j (j < head_dim) into a side's row before
    // looking at its length; an empty side (0 heads, e.g. q of shape
    // (1, 1, 0, 64) next to a non-empty k) may have null data, and an offset
    // on null is undefined. It borrows the other side's buffers instead:
    // with 0 heads nothing is read or written through them.
    if (call.q_heads == 0) {
        call.xq = call.xk;
        call.out_q = call.out_k;
        call.xq_strides = call.xk_strides;
        call.out_q_strides = call.out_k_strides;
    } else if (call.k_heads == 0) {
        call.xk = call.xq;
        call.out_k = call.out_q;
        call.xk_strides = call.xq_strides;
        call.out_k_strides = call.out_q_strides;
    }
    rope_compiled(call);
}

/// Streaming stores for an out-of-place call whose bytes touched — q and k
/// read and written, the rows of freqs_cis read — reach
/// realify::simd::streaming_threshold() (see realify/simd/streaming.hpp).
template <class T>
bool use_streaming(const rope_call<T>& call, bool in_place) {
    const std::size_t reals = 2 * call.batch * call.seq * (call.q_heads + call.k_heads) * call.head_dim +
                              call.seq * call.head_dim;
    return !in_place && reals * sizeof(T) >= simd::streaming_threshold();
}

/// Storage != compute (half types): blocks of positions are widened to float
/// scratch, rotated there in place by the compiled float kernel, and narrowed
/// into the outputs.
template <class S>
void rope_via_compute(const rope_call<S>& c, const typename storage_traits<S>::compute_type* freqs) {
    using C = typename storage_traits<S>::compute_type;
    using traits = storage_traits<S>;
    const std::size_t q_row = c.q_heads * c.head_dim;
    const std::size_t k_row = c.k_heads * c.head_dim;
    const std::size_t block = std::max<std::size_t>(1, std::min<std::size_t>(c.seq, 16));
    std::vector<C> q(block * q_row);
    std::vector<C> k(block * k_row);
    for (std::size_t b = 0; b < c.batch; ++b) {
        for (std::size_t s0 = 0; s0 < c.seq; s0 += block) {
            const std::size_t n = std::min(block, c.seq - s0);
            const std::size_t q_first = (b * c.seq + s0) * q_row;
            const std::size_t k_first = (b * c.seq + s0) * k_row;
            std::transform(c.xq + q_first, c.xq + q_first + n * q_row, q.begin(), traits::to_compute);
            std::transform(c.xk + k_first, c.xk + k_first + n * k_row, k.begin(), traits::to_compute);
            rope_call<C> call;
            call.xq = q.data();
            call.xk = k.data();
            call.out_q = q.data();
            call.out_k = k.data();
            call.freqs = freqs;
            call.batch = 1;
            call.seq = n;
            call.q_heads = c.q_heads;
            call.k_heads = c.k_heads;
            call.head_dim = c.head_dim;
            call.start_pos = c.start_pos + s0;
            call.layout = c.layout;
            run_compiled_rope(call.packed());
            std::transform(q.begin(), q.begin() + n * q_row, c.out_q + q_first, traits::from_compute);
            std::transform(k.begin(), k.begin() + n * k_row, c.out_k + k_first, traits::from_compute);
        }
    }
}

}  // namespace detail

/// Rotates xq and xk into out_q and out_k (which may be xq and xk: in place).
/// See the header comment for shapes, layouts and types.
template <class Q, class K, class F, class OQ, class OK>
    requires(!std::is_arithmetic_v<F> && xt::is_xexpression<std::decay_t<OQ>>::value &&
             xt::is_xexpression<std::decay_t<OK>>::value)
void apply_rotary_emb(const Q& xq, const K& xk, const F& freqs_cis, std::ptrdiff_t start_pos, OQ&& out_q, OK&& out_k,
                      pair_layout layout = pair_layout::interleaved) {
    using T = std::remove_cv_t<typename Q::value_type>;
    static_assert(std::is_same_v<T, std::remove_cv_t<typename K::value_type>>,
                  "realify::rope::apply_rotary_emb: xq and xk must have the same value type.");
    static_assert(storage_traits<T>::supported,
                  "realify::rope::apply_rotary_emb: xq/xk must hold float or double (for Eigen::half or "
                  "Eigen::bfloat16 include <realify/rope/half.hpp>).");
    using C = typename storage_traits<T>::compute_type;
    using freq_type = typename detail::freq_value<F>::type;
    static_assert(std::is_same_v<freq_type, std::complex<C>>,
                  "realify::rope::apply_rotary_emb: freqs_cis must be complex in the compute type: "
                  "std::complex<float> for float/half/bfloat16 storage, std::complex<double> for double.");
    static_assert(std::is_same_v<T, std::remove_cv_t<typename std::decay_t<OQ>::value_type>> &&
                      std::is_same_v<T, std::remove_cv_t<typename std::decay_t<OK>::value_type>>,
                  "realify::rope::apply_rotary_emb: out_q/out_k must have the value type of xq/xk.");

    const detail::shape4 q_shape = detail::shape_of_rank4(xq, "xq");
    const detail::shape4 k_shape = detail::shape_of_rank4(xk, "xk");
    const detail::freq_table<C> table = detail::make_freq_table<C>(freqs_cis);
    const std::size_t first_row = detail::validate(q_shape, k_shape, table.rows, table.cols, start_pos);
    detail::validate_out("out_q", q_shape, detail::shape_of_rank4(out_q, "out_q"));
    detail::validate_out("out_k", k_shape, detail::shape_of_rank4(out_k, "out_k"));
    const std::size_t q_size = realify::detail::checked_element_count(detail::entry_point, "xq", q_shape, sizeof(T));
    const std::size_t k_size = realify::detail::checked_element_count(detail::entry_point, "xk", k_shape, sizeof(T));

    // Aliasing, on the caller's memory (before any staging copy).
    const detail::byte_span q_target = detail::memory_span(out_q);
    const detail::byte_span k_target = detail::memory_span(out_k);
    const detail::byte_span table_span = detail::freqs_memory_span(freqs_cis);
    if (q_target.overlaps(k_target)) detail::refuse_overlap("out_q", "out_k", "the outputs must be disjoint");
    if (q_target.overlaps(table_span)) detail::refuse_overlap("out_q", "freqs_cis", "outputs must not overwrite the table");
    if (k_target.overlaps(table_span)) detail::refuse_overlap("out_k", "freqs_cis", "outputs must not overwrite the table");

    detail::input_buffer<T> q_in(xq, q_shape);
    detail::input_buffer<T> k_in(xk, k_shape);
    detail::output_buffer<T, std::remove_reference_t<OQ>> q_out(out_q, q_shape);
    detail::output_buffer<T, std::remove_reference_t<OK>> k_out(out_k, k_shape);
    q_in.detach_if_overwritten(q_shape, !q_out.staged && q_out.data == q_in.data, q_target, k_target);
    k_in.detach_if_overwritten(k_shape, !k_out.staged && k_out.data == k_in.data, k_target, q_target);

    detail::rope_call<T> call;
    call.xq = q_in.data;
    call.xk = k_in.data;
    call.out_q = q_out.data;
    call.out_k = k_out.data;
    call.batch = q_shape[0];
    call.seq = q_shape[1];
    call.q_heads = q_shape[2];
    call.k_heads = k_shape[2];
    call.head_dim = q_shape[3];
    call.start_pos = first_row;
    call.layout = layout;
    call.packed();
    if (q_size != 0 || k_size != 0) {
        if constexpr (std::is_same_v<T, C>) {
            call.freqs = table.data;
            call.stream = detail::use_streaming(call, q_in.data == q_out.data || k_in.data == k_out.data);
            detail::run_compiled_rope(call);
        } else {
            detail::rope_via_compute(call, table.data);
        }
    }
    q_out.finish();
    k_out.finish();
}

/// Rotates xq and xk into new tensors of the same shapes.
template <class Q, class K, class F>
    requires(!std::is_arithmetic_v<F>)
auto apply_rotary_emb(const Q& xq, const K& xk, const F& freqs_cis, std::ptrdiff_t start_pos = 0,
                      pair_layout layout = pair_layout::interleaved) {
    using T = std::remove_cv_t<typename Q::value_type>;
    std::pair<xt::xtensor<T, 4>, xt::xtensor<T, 4>> result{xt::xtensor<T, 4>(detail::shape_of_rank4(xq, "xq")),
                                                           xt::xtensor<T, 4>(detail::shape_of_rank4(xk, "xk"))};
    apply_rotary_emb(xq, xk, freqs_cis, start_pos, result.first, result.second, layout);
    return result;
}

/// Rotates one tensor x (batch, seq, heads, head_dim) into out — x itself
/// (in place) or a buffer of its shape, any layout of either: q alone, k
/// alone (a KV-cache slot), or a layer's query heads and key heads rotated
/// where they lie. float or double (freqs_cis complex of the same), the same
/// checks and the same compiled kernel as the pair form, reading and writing
/// every row through its strides (realify/engine/rope.hpp).
template <class X, class F, class O>
    requires(!std::is_arithmetic_v<F> && xt::is_xexpression<std::decay_t<O>>::value)
void apply_rotary_emb(const X& x, const F& freqs_cis, std::ptrdiff_t start_pos, O&& out,
                      pair_layout layout = pair_layout::interleaved) {
    using T = std::remove_cv_t<typename X::value_type>;
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                  "realify::rope::apply_rotary_emb: the one-tensor form takes float or double x (16-bit storage: the "
                  "(xq, xk) form with <realify/rope/half.hpp>).");
    static_assert(std::is_same_v<typename detail::freq_value<F>::type, std::complex<T>>,
                  "realify::rope::apply_rotary_emb: freqs_cis must be complex in x's type: std::complex<float> for "
                  "float, std::complex<double> for double.");
    static_assert(std::is_same_v<T, std::remove_cv_t<typename std::decay_t<O>::value_type>>,
                  "realify::rope::apply_rotary_emb: out must have the value type of x.");
    const engine::input<X> in(detail::entry_point, x);
    const engine::input<F> table(detail::entry_point, freqs_cis);
    engine::rope(detail::entry_point, in.ref(), table.ref(), start_pos, layout, engine::output_ref(detail::entry_point, out));
}

/// Rotates one tensor x (batch, seq, heads, head_dim) into a new tensor.
template <class X, class F>
    requires(!std::is_arithmetic_v<F> && xt::is_xexpression<X>::value)
auto apply_rotary_emb(const X& x, const F& freqs_cis, std::ptrdiff_t start_pos = 0,
                      pair_layout layout = pair_layout::interleaved) {
    using T = std::remove_cv_t<typename X::value_type>;
    xt::xtensor<T, 4> result(detail::shape_of_rank4(x, "x"));
    apply_rotary_emb(x, freqs_cis, start_pos, result, layout);
    return result;
}

/// The shape of a span-form call: q is (batch, seq, q_heads, head_dim), k is
/// (batch, seq, k_heads, head_dim), both contiguous row-major. std::ptrdiff_t
/// like every dim of the API: a negative field is a shape_error naming it.
struct rope_dims {
    std::ptrdiff_t batch = 1;
    std::ptrdiff_t seq = 1;
    std::ptrdiff_t q_heads = 1;
    std::ptrdiff_t k_heads = 1;
    std::ptrdiff_t head_dim = 0;
};

namespace detail {

/// rope_dims as sizes: each field non-negative, named in the error.
inline shape4 dims_shape(const rope_dims& d, std::ptrdiff_t heads, const char* heads_name) {
    using realify::detail::to_size;
    return {to_size(entry_point, "rope_dims::batch", d.batch), to_size(entry_point, "rope_dims::seq", d.seq),
            to_size(entry_point, heads_name, heads), to_size(entry_point, "rope_dims::head_dim", d.head_dim)};
}

template <class T>
void apply_rotary_emb_span(const rope_dims& d, std::span<const T> xq, std::span<const T> xk,
                           std::span<const std::complex<T>> freqs_cis, std::ptrdiff_t start_pos, std::span<T> out_q,
                           std::span<T> out_k, pair_layout layout) {
    const shape4 q = dims_shape(d, d.q_heads, "rope_dims::q_heads");
    const shape4 k = dims_shape(d, d.k_heads, "rope_dims::k_heads");
    const std::size_t q_size = realify::detail::checked_element_count(entry_point, "q shape", q, sizeof(T));
    const std::size_t k_size = realify::detail::checked_element_count(entry_point, "k shape", k, sizeof(T));
    const std::size_t half = q[3] / 2;
    auto check_size = [](const char* name, std::size_t got, const shape4& shape, std::size_t want) {
        if (got == want) return;
        std::ostringstream message;
        message << "realify::rope::apply_rotary_emb: " << name << " holds " << got << " values, the shape "
                << format_sequence(shape) << " needs " << want;
        throw shape_error(message.str());
    };
    check_size("xq", xq.size(), q, q_size);
    check_size("xk", xk.size(), k, k_size);
    check_size("out_q", out_q.size(), q, q_size);
    check_size("out_k", out_k.size(), k, k_size);
    // Odd head_dim is reported by validate(); a table whose size is not a
    // whole number of rows is a shape error of its own.
    const std::size_t rows = half == 0 ? 0 : freqs_cis.size() / half;
    if (half != 0 && freqs_cis.size() % half != 0) {
        std::ostringstream message;
        message << "realify::rope::apply_rotary_emb: freqs_cis holds " << freqs_cis.size()
                << " complex values, not a whole number of rows of head_dim/2 = " << half;
        throw shape_error(message.str());
    }
    const std::size_t first_row = validate(q, k, rows, half, start_pos);
    // Raw buffers cannot be copied behind the caller's back the way the
    // tensor form does: anything but exact in-place aliasing is refused.
    const byte_span in_q = contiguous_span(xq.data(), q_size);
    const byte_span in_k = contiguous_span(xk.data(), k_size);
    const byte_span target_q = contiguous_span(out_q.data(), q_size);
    const byte_span target_k = contiguous_span(out_k.data(), k_size);
    const byte_span table = contiguous_span(freqs_cis.data(), freqs_cis.size());
    const char* in_place_only = "only exactly in place is allowed";
    if (out_q.data() != xq.data() && target_q.overlaps(in_q)) refuse_overlap("out_q", "xq", in_place_only);
    if (out_k.data() != xk.data() && target_k.overlaps(in_k)) refuse_overlap("out_k", "xk", in_place_only);
    if (target_q.overlaps(in_k)) refuse_overlap("out_q", "xk", "q buffers must not overlap k buffers");
    if (target_k.overlaps(in_q)) refuse_overlap("out_k", "xq", "q buffers must not overlap k buffers");
    if (target_q.overlaps(target_k)) refuse_overlap("out_q", "out_k", "the outputs must be disjoint");
    if (target_q.overlaps(table)) refuse_overlap("out_q", "freqs_cis", "outputs must not overwrite the table");
    if (target_k.overlaps(table)) refuse_overlap("out_k", "freqs_cis", "outputs must not overwrite the table");
    if (q_size == 0 && k_size == 0) return;
    rope_call<T> call;
    call.xq = xq.data();
    call.xk = xk.data();
    call.out_q = out_q.data();
    call.out_k = out_k.data();
    call.freqs = as_real_pointer(freqs_cis.data());
    call.batch = q[0];
    call.seq = q[1];
    call.q_heads = q[2];
    call.k_heads = k[2];
    call.head_dim = q[3];
    call.start_pos = first_row;
    call.layout = layout;
    call.packed();
    call.stream = use_streaming(call, xq.data() == out_q.data() || xk.data() == out_k.data());
    run_compiled_rope(call);
}

}  // namespace detail

/// Span form for raw contiguous buffers (float); see the header comment.
inline void apply_rotary_emb(const rope_dims& dims, std::span<const float> xq, std::span<const float> xk,
                             std::span<const std::complex<float>> freqs_cis, std::ptrdiff_t start_pos,
                             std::span<float> out_q, std::span<float> out_k,
                             pair_layout layout = pair_layout::interleaved) {
    detail::apply_rotary_emb_span(dims, xq, xk, freqs_cis, start_pos, out_q, out_k, layout);
}

/// Span form for raw contiguous buffers (double); see the header comment.
inline void apply_rotary_emb(const rope_dims& dims, std::span<const double> xq, std::span<const double> xk,
                             std::span<const std::complex<double>> freqs_cis, std::ptrdiff_t start_pos,
                             std::span<double> out_q, std::span<double> out_k,
                             pair_layout layout = pair_layout::interleaved) {
    detail::apply_rotary_emb_span(dims, xq, xk, freqs_cis, start_pos, out_q, out_k, layout);
}

}  // namespace realify::rope
