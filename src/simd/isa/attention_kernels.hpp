// The fused scaled dot-product attention kernel of one instruction set
// (realify/engine/attention.hpp walks a call's pieces; this computes one),
// instantiated per element type in each per-instruction-set translation unit
// (src/simd/isa_kernels.cpp, one unit per level).
//
// A piece is a block of query rows that read the same keys and values
// (src/simd/attention_call.hpp). Its keys are taken in blocks of
// attention_key_block with the online softmax of Milakov & Gimelshein
// (2018), as FlashAttention (Dao et al., 2022) arranges it: per row a
// running maximum m and sum l, and an accumulator of the value rows weighted
// by e^(s − m); when a block raises the maximum to m′, l and the accumulator
// are first scaled by e^(m − m′). The L×S scores never exist — only one
// block of them (rows × 64) in scratch.
//
//   scores    q·scale (packed once) times the key block, as a product with
//             the transposed block (kt, packed per block): register tiles of
//             4 rows × 2 or 4 key registers, one fused multiply-add per
//             element and dimension. With few rows (decoding: one query per
//             head) the keys are read as they lie instead, a dot product
//             each (dot_form).
//   mask      a boolean mask's false takes a score to −inf, an additive one
//             is added; is_causal's limit per row likewise.
//   softmax   the block's maximum (NaN when a score is), e^(s − m′) as the
//             row kernels compute it (realify/engine/rows.hpp), the sum.
//   values    acc += p·v: tiles of 4 rows × 2 or 4 value registers held in
//             registers across the block's keys, value rows read where they
//             lie when their elements are contiguous and fill whole
//             registers, else from a packed copy of the block.
//   out       acc / l.
//
// A row whose scores are all −inf keeps l = 0 and gives 0/0 = NaN, the
// materialised formula's value; a NaN score, or an inf one (inf − inf),
// makes the row NaN as softmax does. Each row's arithmetic is the same
// whatever rows share its piece or tile, so results do not depend on how a
// call is cut (threads).
//
// Include only from the per-instruction-set translation units.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "../attention_call.hpp"
#include "row_kernels.hpp"
#include "vocabulary.hpp"

namespace realify::simd::isa {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

template <class T, class A>
struct attention_kernels {
    using V = vec<T, A>;
    using B = typename V::batch;
    using M = typename V::mask;
    using piece = detail::attention_piece<T>;
    static constexpr std::size_t W = B::size;
    static constexpr std::size_t keys = detail::attention_key_block;
    static constexpr std::size_t MR = 4;                        // query rows per register tile
    static constexpr std::size_t NV = sizeof(B) == 64 ? 4 : 2;  // key registers per score tile (AVX-512: 32 registers)
    static constexpr std::size_t CV = sizeof(B) == 64 ? 4 : 2;  // value registers per accumulator tile
    static constexpr T minus_inf = -std::numeric_limits<T>::infinity();
    static_assert(keys % (NV * W) == 0, "a key block is whole score tiles");

    /// The piece's scratch, carved from piece::scratch.
    struct work {
        T* qs;     // rows × dim_pad: the queries times scale
        T* kt;     // dim × keys: the key block, transposed
        T* s;      // rows × keys: scores, then weights
        T* acc;    // rows × ev_pad
        T* vb;     // keys × ev_pad: the value block, packed when it must be
        T* m;      // rows: running maxima
        T* l;      // rows: running sums
        std::size_t dim_pad, ev_pad;
    };
    static work carve(const piece& p) noexcept {
        work w;
        const std::size_t rows = detail::attention_max_rows;
        w.dim_pad = detail::attention_padded(p.dim);
        w.ev_pad = detail::attention_padded(p.value_dim);
        w.qs = p.scratch;
        w.kt = w.qs + rows * w.dim_pad;
        w.s = w.kt + p.dim * keys;
        w.acc = w.s + rows * keys;
        w.vb = w.acc + rows * w.ev_pad;
        w.m = w.vb + keys * w.ev_pad;
        w.l = w.m + rows;
        return w;
    }

    // ---- scores --------------------------------------------------------------------------

    /// s[r][j…] for R rows from r0 and N registers of keys from j0: Σ_e qs[r][e]·kt[e][j].
    template <std::size_t R, std::size_t N>
    static void score_tile(const work& w, std::size_t dim, std::size_t r0, std::size_t j0) noexcept {
        B sum[R][N];
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t n = 0; n < N; ++n) sum[r][n] = B(T(0));
        const T* q = w.qs + r0 * w.dim_pad;
        for (std::size_t e = 0; e < dim; ++e) {
            B k[N];
            for (std::size_t n = 0; n < N; ++n) k[n] = B::load_aligned(w.kt + e * keys + j0 + n * W);
            for (std::size_t r = 0; r < R; ++r) {
                const B x(q[r * w.dim_pad + e]);
                for (std::size_t n = 0; n < N; ++n) sum[r][n] = V::fma(x, k[n], sum[r][n]);
            }
        }
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t n = 0; n < N; ++n) sum[r][n].store_aligned(w.s + (r0 + r) * keys + j0 + n * W);
    }
    template <std::size_t R>
    static void score_rows(const work& w, std::size_t dim, std::size_t r0, std::size_t vectors) noexcept {
        std::size_t j = 0;
        for (; j + NV <= vectors; j += NV) score_tile<R, NV>(w, dim, r0, j * W);
        for (; j < vectors; ++j) score_tile<R, 1>(w, dim, r0, j * W);
    }

    /// The scores of rows × n keys from key kb, as a product with the transposed block.
    static void scores_by_product(const piece& p, const work& w, std::size_t kb, std::size_t n) noexcept {
        const std::size_t padded = (n + W - 1) / W * W;
        for (std::size_t j = 0; j < n; ++j) {
            const T* key = p.k + static_cast<std::ptrdiff_t>(kb + j) * p.k_row;
            for (std::size_t e = 0; e < p.dim; ++e) w.kt[e * keys + j] = key[static_cast<std::ptrdiff_t>(e) * p.k_step];
        }
        for (std::size_t e = 0; e < p.dim; ++e)
            for (std::size_t j = n; j < padded; ++j) w.kt[e * keys + j] = T(0);
        const std::size_t vectors = padded / W;
        std::size_t r = 0;
        for (; r + MR <= p.rows; r += MR) score_rows<MR>(w, p.dim, r, vectors);
        switch (p.rows - r) {
        case 3: score_rows<3>(w, p.dim, r, vectors); break;
        case 2: score_rows<2>(w, p.dim, r, vectors); break;
        case 1: score_rows<1>(w, p.dim, r, vectors); break;
        default: break;
        }
    }

    /// The sum of a register's lanes (xsimd 8.1's hadd needs AVX-512DQ).
    static T lanes_sum(const B& x) noexcept {
        alignas(64) T lanes[W];
        x.store_aligned(lanes);
        T s = lanes[0];
        for (std::size_t k = 1; k < W; ++k) s += lanes[k];
        return s;
    }

    /// q · key for a query packed in qs and a key read where it lies.
    static T dot(const T* q, const T* key, std::ptrdiff_t step, std::size_t dim) noexcept {
        if (step != 1) {
            T s = T(0);
            for (std::size_t e = 0; e < dim; ++e) s = std::fma(q[e], key[static_cast<std::ptrdiff_t>(e) * step], s);
            return s;
        }
        B sum(T(0));
        std::size_t e = 0;
        for (; e + W <= dim; e += W) sum = V::fma(B::load_aligned(q + e), B::load_unaligned(key + e), sum);
        if (e < dim) sum = V::fma(B::load_aligned(q + e), row_kernels<T, A>::partial(key + e, dim - e, T(0)), sum);
        return lanes_sum(sum);
    }
    /// The scores of rows × n keys from key kb, as dot products of rows.
    static void scores_by_dots(const piece& p, const work& w, std::size_t kb, std::size_t n) noexcept {
        for (std::size_t r = 0; r < p.rows; ++r)
            for (std::size_t j = 0; j < n; ++j)
                w.s[r * keys + j] = dot(w.qs + r * w.dim_pad, p.k + static_cast<std::ptrdiff_t>(kb + j) * p.k_row, p.k_step, p.dim);
    }

    /// The mask, is_causal's limit and the block's padding, on row r's n scores from key kb.
    static void mask_row(const piece& p, T* s, std::size_t r, std::size_t kb, std::size_t n, std::size_t padded) noexcept {
        const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(kb) * p.mask_step;
        if (p.mask == detail::attention_mask::boolean) {
            const bool* m = static_cast<const bool*>(p.mask_rows[r]) + at;
            for (std::size_t j = 0; j < n; ++j)
                if (!m[static_cast<std::ptrdiff_t>(j) * p.mask_step]) s[j] = minus_inf;
        } else if (p.mask == detail::attention_mask::additive) {
            const T* m = static_cast<const T*>(p.mask_rows[r]) + at;
            for (std::size_t j = 0; j < n; ++j) s[j] += m[static_cast<std::ptrdiff_t>(j) * p.mask_step];
        }
        std::size_t end = n;
        if (p.limit != nullptr) end = p.limit[r] > kb ? std::min(n, p.limit[r] - kb) : 0;
        for (std::size_t j = end; j < padded; ++j) s[j] = minus_inf;
    }

    // ---- the online softmax --------------------------------------------------------------

    /// The largest of the block's scores, NaN when one is.
    static T block_max(const T* s, std::size_t padded) noexcept {
        B m(minus_inf);
        M nan = V::none();
        for (std::size_t j = 0; j < padded; j += W) {
            const B x = B::load_aligned(s + j);
            nan = nan | V::isnan(x);
            m = V::select(x > m, x, m);
        }
        if (V::any(nan)) return std::numeric_limits<T>::quiet_NaN();
        alignas(64) T lanes[W];
        m.store_aligned(lanes);
        T r = lanes[0];
        for (std::size_t k = 1; k < W; ++k) r = lanes[k] > r ? lanes[k] : r;
        return r;
    }

    /// Row r's scores of this block into weights e^(s − m′); its running
    /// maximum, sum and accumulator brought to m′.
    static void softmax_row(const work& w, std::size_t r, std::size_t padded, std::size_t ev) noexcept {
        T* s = w.s + r * keys;
        const T block = block_max(s, padded);
        const T before = w.m[r];
        const T after = (block != block || before != before) ? block + before : std::max(before, block);
        if (after == minus_inf) {  // every key so far masked: this block adds nothing
            std::fill(s, s + padded, T(0));
            return;
        }
        const B shift(after);
        B sum(T(0));
        for (std::size_t j = 0; j < padded; j += W) {
            const B e = row_kernels<T, A>::exp_shifted(B::load_aligned(s + j), shift);
            e.store_aligned(s + j);
            sum += e;
        }
        const T alpha = std::exp(before - after);  // 0 when nothing was taken before
        w.l[r] = w.l[r] * alpha + lanes_sum(sum);
        w.m[r] = after;
        if (alpha != T(1)) {
            T* a = w.acc + r * w.ev_pad;
            const B scale(alpha);
            for (std::size_t c = 0; c < ev; c += W) (B::load_aligned(a + c) * scale).store_aligned(a + c);
        }
    }

    // ---- weights times values ------------------------------------------------------------

    /// acc[r…][c…] += Σ_j p[r][j] · value j, for R rows from r0 and C registers from c0.
    template <std::size_t R, std::size_t C>
    static void value_tile(const work& w, const T* values, std::size_t value_row, std::size_t n, std::size_t r0,
                           std::size_t c0) noexcept {
        B a[R][C];
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t c = 0; c < C; ++c) a[r][c] = B::load_aligned(w.acc + (r0 + r) * w.ev_pad + c0 + c * W);
        for (std::size_t j = 0; j < n; ++j) {
            const T* v = values + j * value_row + c0;
            B x[C];
            for (std::size_t c = 0; c < C; ++c) x[c] = B::load_unaligned(v + c * W);
            for (std::size_t r = 0; r < R; ++r) {
                const B p(w.s[(r0 + r) * keys + j]);
                for (std::size_t c = 0; c < C; ++c) a[r][c] = V::fma(p, x[c], a[r][c]);
            }
        }
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t c = 0; c < C; ++c) a[r][c].store_aligned(w.acc + (r0 + r) * w.ev_pad + c0 + c * W);
    }
    template <std::size_t R>
    static void value_rows(const work& w, const T* values, std::size_t value_row, std::size_t n, std::size_t r0,
                           std::size_t vectors) noexcept {
        std::size_t c = 0;
        for (; c + CV <= vectors; c += CV) value_tile<R, CV>(w, values, value_row, n, r0, c * W);
        for (; c < vectors; ++c) value_tile<R, 1>(w, values, value_row, n, r0, c * W);
    }
    static void accumulate(const piece& p, const work& w, std::size_t kb, std::size_t n) noexcept {
        const std::size_t ev = (p.value_dim + W - 1) / W * W;
        const T* values = p.v + static_cast<std::ptrdiff_t>(kb) * p.v_row;
        std::size_t value_row = static_cast<std::size_t>(p.v_row);
        if (p.v_step != 1 || p.value_dim % W != 0 || p.v_row < 0) {  // a packed copy of the block, zero-padded
            for (std::size_t j = 0; j < n; ++j) {
                const T* v = values + static_cast<std::ptrdiff_t>(j) * p.v_row;
                T* to = w.vb + j * w.ev_pad;
                for (std::size_t e = 0; e < p.value_dim; ++e) to[e] = v[static_cast<std::ptrdiff_t>(e) * p.v_step];
                std::fill(to + p.value_dim, to + ev, T(0));
            }
            values = w.vb;
            value_row = w.ev_pad;
        }
        std::size_t r = 0;
        for (; r + MR <= p.rows; r += MR) value_rows<MR>(w, values, value_row, n, r, ev / W);
        switch (p.rows - r) {
        case 3: value_rows<3>(w, values, value_row, n, r, ev / W); break;
        case 2: value_rows<2>(w, values, value_row, n, r, ev / W); break;
        case 1: value_rows<1>(w, values, value_row, n, r, ev / W); break;
        default: break;
        }
    }

    static void run(const piece& p) noexcept {
        const work w = carve(p);
        const std::size_t ev = (p.value_dim + W - 1) / W * W;
        for (std::size_t r = 0; r < p.rows; ++r) {
            T* q = w.qs + r * w.dim_pad;
            for (std::size_t e = 0; e < p.dim; ++e) q[e] = p.q[r][static_cast<std::ptrdiff_t>(e) * p.q_step] * p.scale;
            std::fill(q + p.dim, q + w.dim_pad, T(0));
            std::fill(w.acc + r * w.ev_pad, w.acc + (r + 1) * w.ev_pad, T(0));
            w.m[r] = minus_inf;
            w.l[r] = T(0);
        }
        std::size_t end = p.keys;  // past the last key any row takes
        if (p.limit != nullptr) {
            end = 0;
            for (std::size_t r = 0; r < p.rows; ++r) end = std::max(end, std::min(p.limit[r], p.keys));
        }
        for (std::size_t kb = 0; kb < end; kb += keys) {
            const std::size_t n = std::min(keys, end - kb);
            const std::size_t padded = (n + W - 1) / W * W;
            if (p.dot_form) scores_by_dots(p, w, kb, n);
            else scores_by_product(p, w, kb, n);
            for (std::size_t r = 0; r < p.rows; ++r) {
                mask_row(p, w.s + r * keys, r, kb, n, padded);
                softmax_row(w, r, padded, ev);
            }
            accumulate(p, w, kb, n);
        }
        for (std::size_t r = 0; r < p.rows; ++r) {
            const T* a = w.acc + r * w.ev_pad;
            const T l = w.l[r];
            for (std::size_t e = 0; e < p.value_dim; ++e) p.out[r][static_cast<std::ptrdiff_t>(e) * p.out_step] = a[e] / l;
        }
    }
};

}  // namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::isa
