// The SIMD row route of a lone complex × complex multiply (RoPE's
// xq_ * freqs_cis): realify::simd::mul_block_rows, compiled per instruction
// set and picked at run time, when the operands' layout fits; otherwise the
// fused loop runs (graph/fusion.hpp). Whether a loop may take this route is
// recorded by the fuse_elementwise pass (ir_node::simd_rows); whether the
// layout fits is known only with the shapes.
#pragma once

#include <complex>
#include <cstddef>
#include <span>

#include "realify/dispatch/elementwise.hpp"
#include "realify/graph/buffer_layout.hpp"
#include "realify/graph/node.hpp"
#include "realify/layout/pointer_cast.hpp"
#include "realify/simd/complex_mul.hpp"

namespace realify::graph::detail {

/// Shorter rows lose more to per-row overhead than the SIMD kernel gains.
inline constexpr std::size_t simd_min_row = 16;

/// Runs out = x · y with realify::simd::mul_block_rows when the layout fits:
/// one operand is the output's contiguous layout, the other is contiguous
/// along the trailing axes ("rows"), repeated by the axes just before them
/// (stride 0) and, optionally, advancing one row per step of the axis before
/// those ("blocks"); any axes further out are walked one call each. RoPE's
/// freqs_cis (1, S, 1, D/2) against xq_ (B, S, H, D/2) is B calls of S blocks
/// × H repeats × D/2; two operands of one shape are one call of one row.
/// `out_strides` are the output's strides per axis of `shape`, in components:
/// each call writes one contiguous piece, so the axes a call covers must be
/// packed in the output (a slice of a KV cache is: one call per batch row).
/// Returns false, having written nothing, when the layout does not fit (the
/// fused loop runs instead). The kernel's formula is the element kernel's
/// (the plain one, nan_policy::fast); it rounds with FMA.
template <class T>
bool mul_by_simd_rows(T* out, const stride_vector& out_strides, const shape_vector& shape,
                      const realify::detail::operand_ref<T, true>& x, const realify::detail::operand_ref<T, true>& y) {
    const std::size_t rank = shape.size();
    std::size_t total = 1;
    for (std::size_t e : shape) total *= e;
    if (rank == 0 || total == 0) return false;
    const bool x_full = realify::detail::is_contiguous_as(x, shape);
    if (!x_full && !realify::detail::is_contiguous_as(y, shape)) return false;
    const auto& full = x_full ? x : y;
    const auto& other = x_full ? y : x;
    const realify::detail::stride_vector strides = realify::detail::aligned_strides(other, shape);
    std::size_t row_start = rank, row = 1;  // trailing axes `other` holds packed
    for (std::ptrdiff_t packed = 2; row_start > 0; --row_start) {
        const std::size_t a = row_start - 1;
        if (shape[a] != 1 && strides[a] != packed) break;
        packed *= static_cast<std::ptrdiff_t>(shape[a]);
        row *= shape[a];
    }
    if (row < simd_min_row) return false;
    std::size_t repeat_start = row_start, repeats = 1;  // axes before them that repeat the row
    for (; repeat_start > 0 && (shape[repeat_start - 1] == 1 || strides[repeat_start - 1] == 0); --repeat_start)
        repeats *= shape[repeat_start - 1];
    std::size_t outer_rank = repeat_start, blocks = 1;  // one row per step of the axis before
    if (outer_rank > 0 && strides[outer_rank - 1] == static_cast<std::ptrdiff_t>(2 * row)) {
        blocks = shape[outer_rank - 1];
        --outer_rank;
    }
    // each call writes its chunk in one piece: the output must be packed over the axes a call covers
    for (std::ptrdiff_t packed = 2, a = static_cast<std::ptrdiff_t>(rank) - 1; a >= static_cast<std::ptrdiff_t>(outer_rank); --a) {
        const auto axis = static_cast<std::size_t>(a);
        if (shape[axis] != 1 && out_strides[axis] != packed) return false;
        packed *= static_cast<std::ptrdiff_t>(shape[axis]);
    }
    const std::size_t chunk = blocks * repeats * row;  // complex elements per call
    using C = std::complex<T>;
    shape_vector index(outer_rank, 0);
    for (std::size_t call = 0; call < total / chunk; ++call) {
        const T* rows = other.data;
        T* target = out;
        for (std::size_t a = 0; a < outer_rank; ++a) {
            rows += static_cast<std::ptrdiff_t>(index[a]) * strides[a];
            target += static_cast<std::ptrdiff_t>(index[a]) * out_strides[a];
        }
        const std::size_t offset = 2 * call * chunk;
        realify::simd::mul_block_rows(std::span<const C>(realify::detail::as_complex_pointer(full.data + offset), chunk),
                                      std::span<const C>(realify::detail::as_complex_pointer(rows), blocks * row), blocks,
                                      std::span<C>(realify::detail::as_complex_pointer(target), chunk));
        for (std::size_t a = outer_rank; a-- > 0;) {
            if (++index[a] < shape[a]) break;
            index[a] = 0;
        }
    }
    return true;
}

}  // namespace realify::graph::detail
