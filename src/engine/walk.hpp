// The axis walker of the engine's loops (engine.cpp: the elementwise walk,
// reduce.cpp: the reductions and the scan, mul_rows.cpp: the SIMD row route,
// rows.cpp: softmax and the normalisations, a row at a time): a list of
// axes, each an extent and a stride per operand (in components), put in the
// order memory runs and merged where they can be; and an odometer that
// visits the positions of such a list in row-major order, keeping each
// operand's offset.
//
// The odometer can start at any position (its linear index), so a walk of
// `count` positions is cut into pieces [first, last) that run one after the
// other or on several threads (parallel.hpp) and visit exactly what the whole
// walk visits.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>

#include "realify/engine/tensor_ref.hpp"

namespace realify::engine::walk {

/// One axis of a walk over N operands.
template <std::size_t N>
struct axis {
    std::size_t extent = 1;
    std::array<std::ptrdiff_t, N> stride{};  // per operand, in components
};

/// Axes, outermost first.
template <std::size_t N>
struct axes {
    std::array<axis<N>, max_rank> list{};
    std::size_t rank = 0;

    void push(const axis<N>& a) noexcept { list[rank++] = a; }
    axis<N>& operator[](std::size_t i) noexcept { return list[i]; }
    const axis<N>& operator[](std::size_t i) const noexcept { return list[i]; }
    const axis<N>& back() const noexcept { return list[rank - 1]; }
    /// Positions: the product of the extents (1 for no axes).
    std::size_t count() const noexcept {
        std::size_t n = 1;
        for (std::size_t i = 0; i < rank; ++i) n *= list[i].extent;
        return n;
    }
    /// All axes; the outer ones (all but the innermost).
    std::span<const axis<N>> all() const noexcept { return {list.data(), rank}; }
    std::span<const axis<N>> outer() const noexcept { return {list.data(), rank > 0 ? rank - 1 : 0}; }

    /// Removes axis i (its positions are no longer walked).
    axis<N> take(std::size_t i) noexcept {
        const axis<N> taken = list[i];
        std::copy(list.begin() + static_cast<std::ptrdiff_t>(i) + 1, list.begin() + static_cast<std::ptrdiff_t>(rank),
                  list.begin() + static_cast<std::ptrdiff_t>(i));
        --rank;
        return taken;
    }

    /// Reverses every axis along which operand k steps backwards, so that
    /// operand k's strides are all ≥ 0; returns how far each operand's first
    /// element moved (components).
    std::array<std::ptrdiff_t, N> make_forward(std::size_t k) noexcept {
        std::array<std::ptrdiff_t, N> moved{};
        for (std::size_t i = 0; i < rank; ++i) {
            axis<N>& a = list[i];
            if (a.stride[k] >= 0) continue;
            for (std::size_t o = 0; o < N; ++o) {
                moved[o] += static_cast<std::ptrdiff_t>(a.extent - 1) * a.stride[o];
                a.stride[o] = -a.stride[o];
            }
        }
        return moved;
    }

    /// Orders the axes by operand k's stride, largest first (stable: equal
    /// strides keep their order). An insertion sort: a handful of axes, and
    /// no temporary buffer — std::stable_sort allocates one, a malloc and a
    /// free on every call of the engine.
    void sort_by(std::size_t k) noexcept {
        for (std::size_t i = 1; i < rank; ++i) {
            const axis<N> moving = list[i];
            std::size_t j = i;
            for (; j > 0 && list[j - 1].stride[k] < moving.stride[k]; --j) list[j] = list[j - 1];
            list[j] = moving;
        }
    }

    /// Drops the axes of extent 1 and merges each axis into the one before it
    /// where every operand steps over the whole inner axis in one stride of
    /// the outer: fewer, longer axes over the same positions in the same order.
    void coalesce() noexcept {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < rank; ++i) {
            const axis<N>& inner = list[i];
            if (inner.extent == 1) continue;
            if (kept > 0) {
                axis<N>& outer = list[kept - 1];
                bool merge = true;
                for (std::size_t o = 0; o < N && merge; ++o)
                    merge = outer.stride[o] == inner.stride[o] * static_cast<std::ptrdiff_t>(inner.extent);
                if (merge) {
                    outer.extent *= inner.extent;
                    outer.stride = inner.stride;
                    continue;
                }
            }
            list[kept++] = inner;
        }
        rank = kept;
    }
};

/// Visits the positions of a list of axes in row-major order (the last axis
/// fastest), with each operand's offset (components) from the position
/// (0, …, 0).
template <std::size_t N>
class odometer {
public:
    /// At position `start` (a linear index < the list's count, or 0).
    explicit odometer(std::span<const axis<N>> axes, std::size_t start = 0) noexcept : m_axes(axes) {
        for (std::size_t a = axes.size(); a-- > 0;) {
            const std::size_t extent = axes[a].extent;
            m_index[a] = extent == 0 ? 0 : start % extent;
            start = extent == 0 ? 0 : start / extent;
            for (std::size_t o = 0; o < N; ++o) m_offset[o] += static_cast<std::ptrdiff_t>(m_index[a]) * axes[a].stride[o];
        }
    }

    const std::array<std::ptrdiff_t, N>& offset() const noexcept { return m_offset; }
    std::ptrdiff_t operator[](std::size_t o) const noexcept { return m_offset[o]; }

    /// Moves to the next position; false when that wrapped around to the first.
    bool next() noexcept {
        for (std::size_t a = m_axes.size(); a-- > 0;) {
            const axis<N>& x = m_axes[a];
            for (std::size_t o = 0; o < N; ++o) m_offset[o] += x.stride[o];
            if (++m_index[a] < x.extent) return true;
            for (std::size_t o = 0; o < N; ++o) m_offset[o] -= static_cast<std::ptrdiff_t>(x.extent) * x.stride[o];
            m_index[a] = 0;
        }
        return false;
    }

    /// Moves `steps` ≥ 1 positions on along the last axis, which they must
    /// not pass (they may end exactly at its end: that wraps as next() does);
    /// false when that wrapped around to the first position.
    bool advance(std::size_t steps) noexcept {
        const std::size_t a = m_axes.size() - 1;
        m_index[a] += steps - 1;
        for (std::size_t o = 0; o < N; ++o) m_offset[o] += static_cast<std::ptrdiff_t>(steps - 1) * m_axes[a].stride[o];
        return next();
    }

    /// The position's index along axis a.
    std::size_t index(std::size_t a) const noexcept { return m_index[a]; }

private:
    std::span<const axis<N>> m_axes;
    std::array<std::size_t, max_rank> m_index{};
    std::array<std::ptrdiff_t, N> m_offset{};
};

}  // namespace realify::engine::walk
