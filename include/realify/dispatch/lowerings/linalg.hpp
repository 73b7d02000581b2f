// Lowerings of mm, bmm, matmul, dot and vdot: Torch-TensorRT's four real products
// AC − BD + i(AD + BC), evaluated as one pass over interleaved pairs (each
// pair product contributes to both components), in the promoted component
// type. matmul follows NumPy/PyTorch: 1-D operands are promoted and the
// added dim removed, batch dims broadcast.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xbuilder.hpp>

#include "realify/dispatch/lowerings/shape.hpp"

namespace realify::dispatch {
namespace lowering {

namespace linalg_detail {
template <class T, class A>
xt::xarray<T> contiguous(const A& a) {
    return xt::xarray<T>(xt::cast<T>(a.real_layout()));
}

/// C (n×m) += A (n×k) · B (k×m), all interleaved row-major.
template <class T>
void matmul_pairs(const T* a, const T* b, T* c, std::size_t n, std::size_t k, std::size_t m, bool conj_a = false) {
    for (std::size_t i = 0; i < n; ++i) {
        T* row = c + 2 * i * m;
        for (std::size_t p = 0; p < k; ++p) {
            const T ar = a[2 * (i * k + p)];
            const T ai = conj_a ? -a[2 * (i * k + p) + 1] : a[2 * (i * k + p) + 1];
            const T* brow = b + 2 * p * m;
            for (std::size_t j = 0; j < m; ++j) {
                row[2 * j] += ar * brow[2 * j] - ai * brow[2 * j + 1];
                row[2 * j + 1] += ar * brow[2 * j + 1] + ai * brow[2 * j];
            }
        }
    }
}

using shape_vector = std::vector<std::size_t>;

template <class A>
shape_vector shape_vector_of(const A& a) {
    const auto s = a.shape();
    return shape_vector(s.begin(), s.end());
}

[[noreturn]] inline void mismatch(std::string_view op, const shape_vector& a, const shape_vector& b) {
    throw shape_error("realify::" + std::string(op) + ": shapes " + realify::detail::format_sequence(a) + " and " +
                      realify::detail::format_sequence(b) + " cannot be multiplied");
}

/// Batched product over broadcast batch dims: a (…, n, k), b (…, k, m).
template <class T>
xt::xarray<T> batched(std::string_view op, const xt::xarray<T>& a, const xt::xarray<T>& b, const shape_vector& sa,
                      const shape_vector& sb) {
    const std::size_t ra = sa.size(), rb = sb.size();
    const std::size_t n = sa[ra - 2], k = sa[ra - 1], m = sb[rb - 1];
    if (sb[rb - 2] != k) mismatch(op, sa, sb);
    const std::size_t batch_rank = std::max(ra, rb) - 2;
    shape_vector batch(batch_rank, 1);
    auto merge = [&](const shape_vector& s, std::size_t r) {
        for (std::size_t i = 0; i + 2 < r; ++i) {
            std::size_t& out = batch[batch_rank - (r - 2) + i];
            if (s[i] == out || s[i] == 1) continue;
            if (out == 1) out = s[i];
            else mismatch(op, sa, sb);
        }
    };
    merge(sa, ra);
    merge(sb, rb);
    std::vector<std::size_t> out_shape(batch.begin(), batch.end());
    out_shape.insert(out_shape.end(), {n, m, 2});
    xt::xarray<T> out = xt::zeros<T>(out_shape);
    std::size_t count = 1;
    for (std::size_t s : batch) count *= s;
    shape_vector index(batch_rank, 0);
    for (std::size_t bi = 0; bi < count; ++bi) {
        // offsets of this batch in a and b (broadcast dims repeat)
        std::size_t oa = 0, ob = 0;
        for (std::size_t i = 0; i + 2 < ra; ++i) {
            const std::size_t ix = index[batch_rank - (ra - 2) + i];
            oa = oa * sa[i] + (sa[i] == 1 ? 0 : ix);
        }
        for (std::size_t i = 0; i + 2 < rb; ++i) {
            const std::size_t ix = index[batch_rank - (rb - 2) + i];
            ob = ob * sb[i] + (sb[i] == 1 ? 0 : ix);
        }
        matmul_pairs(a.data() + 2 * oa * n * k, b.data() + 2 * ob * k * m, out.data() + 2 * bi * n * m, n, k, m);
        for (std::size_t i = batch_rank; i-- > 0;) {
            if (++index[i] < batch[i]) break;
            index[i] = 0;
        }
    }
    return out;
}
}  // namespace linalg_detail

template <class A, class B>
inline constexpr bool two_complex_tensors = complex_tensor_operand<A> && complex_tensor_operand<B>;

struct mm_four_products {
    using op = ::realify::op::mm;
    static constexpr std::string_view name = "mm_four_products";
    static constexpr std::string_view formula = "(AC − BD) + i(AD + BC), one pass over pairs";
    template <class A, class B>
    static constexpr bool accepts = two_complex_tensors<A, B>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        using T = promoted_real_t<A, B>;
        const auto sa = linalg_detail::shape_vector_of(a), sb = linalg_detail::shape_vector_of(b);
        if (sa.size() != 2 || sb.size() != 2) linalg_detail::mismatch("mm", sa, sb);
        return shape_detail::make_layout<2>(
            linalg_detail::batched<T>("mm", linalg_detail::contiguous<T>(a), linalg_detail::contiguous<T>(b), sa, sb));
    }
};
struct bmm_four_products {
    using op = ::realify::op::bmm;
    static constexpr std::string_view name = "bmm_four_products";
    static constexpr std::string_view formula = "per batch: (AC − BD) + i(AD + BC)";
    template <class A, class B>
    static constexpr bool accepts = two_complex_tensors<A, B>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        using T = promoted_real_t<A, B>;
        const auto sa = linalg_detail::shape_vector_of(a), sb = linalg_detail::shape_vector_of(b);
        if (sa.size() != 3 || sb.size() != 3 || sa[0] != sb[0]) linalg_detail::mismatch("bmm", sa, sb);
        return shape_detail::make_layout<3>(
            linalg_detail::batched<T>("bmm", linalg_detail::contiguous<T>(a), linalg_detail::contiguous<T>(b), sa, sb));
    }
};
struct matmul_four_products {
    using op = ::realify::op::matmul;
    static constexpr std::string_view name = "matmul_four_products";
    static constexpr std::string_view formula = "NumPy matmul rules; (AC − BD) + i(AD + BC) per matrix";
    template <class A, class B>
    static constexpr bool accepts = two_complex_tensors<A, B>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        using T = promoted_real_t<A, B>;
        auto sa = linalg_detail::shape_vector_of(a), sb = linalg_detail::shape_vector_of(b);
        if (sa.empty() || sb.empty()) linalg_detail::mismatch("matmul", sa, sb);
        const bool vec_a = sa.size() == 1, vec_b = sb.size() == 1;
        const auto orig_a = sa, orig_b = sb;
        if (vec_a) sa.insert(sa.begin(), 1);
        if (vec_b) sb.insert(sb.end(), 1);  // not push_back: GCC 12 -O3 warns -Warray-bounds on it here
        if (sa[sa.size() - 1] != sb[sb.size() - 2]) linalg_detail::mismatch("matmul", orig_a, orig_b);
        xt::xarray<T> out = linalg_detail::batched<T>("matmul", linalg_detail::contiguous<T>(a), linalg_detail::contiguous<T>(b), sa, sb);
        std::vector<std::size_t> shape(out.shape().begin(), out.shape().end() - 1);
        if (vec_b) shape.erase(shape.end() - 1);
        if (vec_a) shape.erase(shape.end() - (vec_b ? 1 : 2));
        return shape_detail::reshaped(std::move(out), shape);
    }
};
template <class Tag, bool Conj>
struct dot_of_pairs {
    using op = Tag;
    static constexpr std::string_view formula = Conj ? "Σ conj(a_i)·b_i over pairs" : "Σ a_i·b_i over pairs";
    template <class A, class B>
    static constexpr bool accepts = two_complex_tensors<A, B>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        using T = promoted_real_t<A, B>;
        const auto sa = linalg_detail::shape_vector_of(a), sb = linalg_detail::shape_vector_of(b);
        if (sa.size() != 1 || sb.size() != 1 || sa[0] != sb[0]) linalg_detail::mismatch(Tag::name, sa, sb);
        const xt::xarray<T> ca = linalg_detail::contiguous<T>(a), cb = linalg_detail::contiguous<T>(b);
        xt::xtensor<T, 1> out = xt::zeros<T>({std::size_t(2)});
        linalg_detail::matmul_pairs(ca.data(), cb.data(), out.data(), 1, sa[0], 1, Conj);
        return complex_layout<xt::xtensor<T, 1>>(std::move(out));
    }
};

struct dot_pairs : dot_of_pairs<op::dot, false> {
    static constexpr std::string_view name = "dot_pairs";
};
struct vdot_conj_pairs : dot_of_pairs<op::vdot, true> {
    static constexpr std::string_view name = "vdot_conj_pairs";
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(mm, lowering::mm_four_products)
REALIFY_BUILTIN_CANDIDATES(bmm, lowering::bmm_four_products)
REALIFY_BUILTIN_CANDIDATES(matmul, lowering::matmul_four_products)
REALIFY_BUILTIN_CANDIDATES(dot, lowering::dot_pairs)
REALIFY_BUILTIN_CANDIDATES(vdot, lowering::vdot_conj_pairs)

}  // namespace realify::dispatch
