// Private: the skinny real products (gemm_arch.hpp, skinny_call) — the
// matrix-vector product and products of a few rows — in one pass over the
// weight, compiled once per instruction set with gemm_kernels.hpp
// (src/gemm/gemm_isa.cpp includes both).
//
// The bits of an output depend on the values alone — not on the thread
// count, the cut into pieces, the register blocking, nor (between AVX2 and
// AVX-512) the instruction set:
//   dot form   lane l of a 64-byte block (16 floats, 8 doubles) sums the
//              products of the positions p ≡ l (mod lanes), p < k rounded
//              down to whole blocks, in p order with fused multiply-adds;
//              the lanes are then added pairwise — lane i with lane
//              i + lanes/2, and so on down to one — and the remaining
//              products are added to that in p order, fused;
//   axpy form  each output sums its k products in p order, fused.
// A 64-byte block is one AVX-512 register, two AVX2 ones and four SSE2
// ones, the lanes in the same places. SSE2 has no fused multiply-add: there
// every product is rounded before it is added (docs/numerics.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <immintrin.h>
#include <utility>

#include "gemm_arch.hpp"

namespace realify::simd::detail {
namespace {

/// a·b + c rounded once (FMA), or twice where the unit has no FMA (SSE2).
template <class T>
T fused(T a, T b, T c) {
#if defined(__FMA__)
    return std::fma(a, b, c);
#else
    return a * b + c;
#endif
}
template <class T>
typename vector_register<T>::type fused(typename vector_register<T>::type a, typename vector_register<T>::type b,
                                        typename vector_register<T>::type c) {
#if defined(__AVX512F__)
    if constexpr (sizeof(T) == 4) return _mm512_fmadd_ps(a, b, c);
    else return _mm512_fmadd_pd(a, b, c);
#elif defined(__FMA__)
    if constexpr (sizeof(T) == 4) return _mm256_fmadd_ps(a, b, c);
    else return _mm256_fmadd_pd(a, b, c);
#else
    return a * b + c;
#endif
}

/// The 64-byte block of the dot form: `registers` registers of `lanes_per`
/// lanes, lane l of the block in register l / lanes_per.
template <class T>
struct skinny_block {
    using reg = vector_register<T>;
    using vec = typename reg::type;
    static constexpr index lanes = 64 / sizeof(T);
    static constexpr index registers = 64 / static_cast<index>(register_bytes);
    static constexpr index lanes_per = reg::lanes;
};

// Register blocking of the dot form: up to dot_x_rows rows of x times
// w_rows<XR> rows of the weight summed at once, about 16–24 AVX-512
// registers, 8–12 AVX2 ones (speed only; the bits do not depend on it).
#if defined(__AVX512F__)
constexpr index dot_x_rows = 4;
template <index XR>
constexpr index w_rows = XR == 1 ? 8 : XR == 2 ? 6 : XR == 3 ? 5 : 4;
#elif defined(__AVX__)
constexpr index dot_x_rows = 2;
template <index XR>
constexpr index w_rows = XR == 1 ? 4 : 3;
#else
constexpr index dot_x_rows = 1;
template <index XR>
constexpr index w_rows = 2;
#endif

/// The lanes of one register added pairwise (upper half onto lower half).
template <class V>
auto lanes_sum(V v) {
    constexpr std::size_t lanes = sizeof(V) / sizeof(v[0]);
    if constexpr (lanes == 1) {
        return v[0];
    } else {
        const auto halves = [&]<std::size_t... I>(std::index_sequence<I...>) {
            return std::pair{__builtin_shufflevector(v, v, static_cast<int>(I)...),
                             __builtin_shufflevector(v, v, static_cast<int>(I + lanes / 2)...)};
        }(std::make_index_sequence<lanes / 2>{});
        return lanes_sum(halves.first + halves.second);
    }
}

/// The lanes of a block added pairwise, lane i with lane i + lanes/2, down to
/// one: first register with register (the block's upper half onto its
/// lower), then within the register, upper half onto lower half.
template <class T>
T block_sum(const typename skinny_block<T>::vec* block) {
    using block_t = skinny_block<T>;
    typename block_t::vec r[block_t::registers];
    for (index v = 0; v < block_t::registers; ++v) r[v] = block[v];
    for (index count = block_t::registers; count > 1; count /= 2)
        for (index v = 0; v < count / 2; ++v) r[v] += r[v + count / 2];
    return lanes_sum(r[0]);
}

/// Outputs (r, j0 + jj) for r < XR, jj < WR of the dot form.
template <index XR, index WR, class T>
void dot_block(const skinny_call<T>& c, const T* const* x, std::size_t r0, std::size_t j0) {
    using block = skinny_block<T>;
    using vec = typename block::vec;
    constexpr index V = block::registers, L = block::lanes, RL = block::lanes_per;
    const index k = static_cast<index>(c.k);
    const T* w[WR];
    for (index jj = 0; jj < WR; ++jj) w[jj] = c.w + static_cast<std::ptrdiff_t>(j0 + jj) * c.ldw;
    vec acc[XR][WR][V] = {};
    index p = 0;
    for (; p + L <= k; p += L) {
#pragma GCC unroll 4
        for (index v = 0; v < V; ++v) {
            vec xv[XR];
            for (index r = 0; r < XR; ++r) xv[r] = block::reg::load(x[r] + p + v * RL);
            for (index jj = 0; jj < WR; ++jj) {
                const vec wv = block::reg::load(w[jj] + p + v * RL);
                for (index r = 0; r < XR; ++r) acc[r][jj][v] = fused<T>(xv[r], wv, acc[r][jj][v]);
            }
        }
    }
    for (index r = 0; r < XR; ++r)
        for (index jj = 0; jj < WR; ++jj) {
            T sum = block_sum<T>(acc[r][jj]);
            for (index q = p; q < k; ++q) sum = fused(x[r][q], w[jj][q], sum);
            c.out[static_cast<std::ptrdiff_t>(r0 + static_cast<std::size_t>(r)) * c.out_row_stride +
                  static_cast<std::ptrdiff_t>(j0 + static_cast<std::size_t>(jj)) * c.out_col_stride] = sum;
        }
}

template <index XR, class T>
void dot_rows(const skinny_call<T>& c, std::size_t r0, std::size_t first, std::size_t last) {
    const T* const* x = c.x + r0;
    constexpr auto wr = static_cast<std::size_t>(w_rows<XR>);
    std::size_t j = first;
    for (; j + wr <= last; j += wr) dot_block<XR, w_rows<XR>>(c, x, r0, j);
    for (; j < last; ++j) dot_block<XR, 1>(c, x, r0, j);
}

/// Outputs [first, last) of the dot form: each block of weight rows is read
/// from memory once, for every group of x rows in turn.
template <class T>
void skinny_dot(const skinny_call<T>& c, std::size_t first, std::size_t last) {
    // weight rows in blocks that stay in the cache while every x group passes over them
    const std::size_t rows_per_pass = std::max<std::size_t>(24, (std::size_t(32) << 10) / (c.k * sizeof(T) + 1));
    for (std::size_t j0 = first; j0 < last; j0 += rows_per_pass) {
        const std::size_t j1 = std::min(last, j0 + rows_per_pass);
        std::size_t r = 0;
        for (; r + dot_x_rows <= c.rows; r += dot_x_rows) dot_rows<dot_x_rows>(c, r, j0, j1);
        switch (c.rows - r) {
            case 3:
                if constexpr (dot_x_rows > 3) dot_rows<3>(c, r, j0, j1);
                break;
            case 2:
                if constexpr (dot_x_rows > 2) dot_rows<2>(c, r, j0, j1);
                break;
            case 1:
                if constexpr (dot_x_rows > 1) dot_rows<1>(c, r, j0, j1);
                break;
            default: break;
        }
    }
}

/// Outputs [first, last) of the axpy form: columns in slices of at most
/// axpy_columns; for each row p of the weight, in order, every x row's
/// x_r[p]·w(p, slice) is added into the slice's sums (kept in L1).
template <class T>
void skinny_axpy(const skinny_call<T>& c, std::size_t first, std::size_t last) {
    using reg = vector_register<T>;
    using vec = typename reg::type;
    constexpr index RL = reg::lanes;
    constexpr index axpy_columns = 1024 / sizeof(T);  // a 1 KiB row segment; 16 rows of sums: 16 KiB
    alignas(64) T sums[skinny_rows * axpy_columns];
    const index rows = static_cast<index>(c.rows), k = static_cast<index>(c.k);
    for (std::size_t j0 = first; j0 < last; j0 += axpy_columns) {
        const index width = static_cast<index>(std::min<std::size_t>(axpy_columns, last - j0));
        const index whole = width / RL * RL;
        std::fill(sums, sums + rows * axpy_columns, T(0));
        for (index p = 0; p < k; ++p) {
            const T* w = c.w + p * c.ldw + static_cast<std::ptrdiff_t>(j0);
            for (index j = 0; j < whole; j += RL) {
                const vec wv = reg::load(w + j);
                for (index r = 0; r < rows; ++r) {
                    T* s = sums + r * axpy_columns + j;
                    reg::store(s, fused<T>(c.x[r][p] - vec{}, wv, reg::load(s)));
                }
            }
            for (index j = whole; j < width; ++j)
                for (index r = 0; r < rows; ++r) sums[r * axpy_columns + j] = fused(c.x[r][p], w[j], sums[r * axpy_columns + j]);
        }
        for (index r = 0; r < rows; ++r)
            for (index j = 0; j < width; ++j)
                c.out[r * c.out_row_stride + (static_cast<std::ptrdiff_t>(j0) + j) * c.out_col_stride] =
                    sums[r * axpy_columns + j];
    }
}

template <class T>
void skinny(const skinny_call<T>& c, std::size_t first, std::size_t last) {
    if (c.dot_form) skinny_dot(c, first, last);
    else skinny_axpy(c, first, last);
}

}  // namespace
}  // namespace realify::simd::detail
