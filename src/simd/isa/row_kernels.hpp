// The per-instruction-set row kernels of softmax, log_softmax, layer_norm
// and rms_norm (realify/engine/rows.hpp walks the rows; these compute one
// contiguous row), instantiated once per element type in each
// per-instruction-set translation unit (src/simd/isa_kernels.cpp, one unit per level):
//
//   max(x, n)              the largest of n ≥ 1 elements, NaN when one is
//                          (the sign of a zero maximum unspecified: softmax
//                          shifts by it, and e^(x − ±0) is the same)
//   exp_sum(x, s, out, n)  out = e^(x − s) (x − s rounded as T; out may be
//                          nullptr: not stored), returns Σ e^(x − s)
//   moments(x, c, n, eps, means)
//                          means = {mean(x − c), mean((x − c)²)} (x − c
//                          rounded as T), finite wherever they are: see
//                          moments below
//   normalize(x, c, c2, k, w, b, out, n)
//                          out = ((x − c) − c2)·k, then ·w and +b where given
//                          (each step rounded as T: no fused multiply-add, so
//                          an element's result depends on nothing but its
//                          inputs — not on its position, nor on the
//                          instruction set)
//
// Sums accumulate a chunk of registers in T, then add the chunk's lanes into
// a double: relative error about 16 units of T's rounding for any n, in a
// fixed order for a given n and instruction set. e^d is xsimd's where it is
// a normal number; lanes where it rounds to 0 get 0, the others (NaN, the
// subnormal band, overflow) std::exp — the scalar form's values, at every
// position (a partial register runs the same instructions on a padded copy).
//
// Include only from the per-instruction-set translation units.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "realify/kernels.hpp"
#include "vocabulary.hpp"

namespace realify::simd::isa {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

template <class T, class A>
struct row_kernels {
    using V = vec<T, A>;
    using B = typename V::batch;
    using M = typename V::mask;
    static constexpr std::size_t W = B::size;
    /// Registers per chunk of a sum: each lane adds at most chunk terms in T.
    static constexpr std::size_t chunk = 16;
    /// e^d rounds to +0 below this (float: e^−104 < half the smallest subnormal).
    static constexpr T exp_zero = sizeof(T) == sizeof(float) ? T(-104) : T(-746);

    /// Sums of registers: a running register in T, flushed into a double
    /// every `chunk` registers.
    struct summer {
        B lanes = B(T(0));
        std::size_t count = 0;
        double total = 0;
        [[gnu::always_inline]] void add(const B& v) noexcept {
            lanes += v;
            if (++count == chunk) flush();
        }
        void flush() noexcept {
            alignas(64) T parts[W];
            lanes.store_aligned(parts);
            double s = 0;
            for (std::size_t k = 0; k < W; ++k) s += static_cast<double>(parts[k]);
            total += s;
            lanes = B(T(0));
            count = 0;
        }
        double result() noexcept {
            flush();
            return total;
        }
    };

    /// The k < W elements of a partial register at p, padded with `fill`.
    static B partial(const T* p, std::size_t k, T fill) noexcept {
        alignas(64) T buffer[W];
        std::fill(buffer, buffer + W, fill);
        std::memcpy(buffer, p, k * sizeof(T));
        return B::load_aligned(buffer);
    }
    static void store_partial(const B& v, T* p, std::size_t k) noexcept {
        alignas(64) T buffer[W];
        v.store_aligned(buffer);
        std::memcpy(p, buffer, k * sizeof(T));
    }

    /// Four independent registers (a compare and a blend each), NaN
    /// lanes noted aside: throughput, not the latency of one chain.
    static T max(const T* x, std::size_t n) noexcept {
        constexpr std::size_t U = 4;
        T r = x[0];
        bool nan = x[0] != x[0];
        std::size_t i = 0;
        if (n >= U * W) {
            B m[U];
            M unordered = V::none();
            for (std::size_t u = 0; u < U; ++u) m[u] = B::load_unaligned(x + u * W);
            for (i = U * W; i + U * W <= n; i += U * W)
                for (std::size_t u = 0; u < U; ++u) {
                    const B v = B::load_unaligned(x + i + u * W);
                    m[u] = V::select(v > m[u], v, m[u]);
                    unordered = unordered | V::isnan(v);
                }
            for (std::size_t u = 0; u < U; ++u) unordered = unordered | V::isnan(m[u]);
            for (std::size_t u = 1; u < U; ++u) m[0] = V::select(m[u] > m[0], m[u], m[0]);
            alignas(64) T lanes[W];
            m[0].store_aligned(lanes);
            for (std::size_t k = 0; k < W; ++k) r = lanes[k] > r ? lanes[k] : r;
            nan = nan || V::any(unordered);
        }
        for (; i < n; ++i) {
            r = x[i] > r ? x[i] : r;
            nan = nan || x[i] != x[i];
        }
        return nan ? std::numeric_limits<T>::quiet_NaN() : r;
    }

    /// e^(x − s) of one register.
    [[gnu::always_inline]] static B exp_shifted(const B& x, const B& s) noexcept {
        const B d = x - s;
        const M normal = (d >= B(kernels::detail::exp_low<T>)) & (d <= B(kernels::detail::exp_high<T>));
        const M zero = d < B(exp_zero);
        const B e = V::select(zero, B(T(0)), V::exp(V::select(normal, d, B(T(0)))));
        if (V::any(~(normal | zero))) [[unlikely]]
            return scalar_lanes(d, e, normal | zero);
        return e;
    }
    /// Static and called with copies, so the hot loop's registers never need an address.
    [[gnu::noinline, gnu::cold]] static B scalar_lanes(B d, B e, M done) noexcept {
        alignas(64) T ds[W];
        alignas(64) T es[W];
        alignas(64) T flags[W];
        d.store_aligned(ds);
        e.store_aligned(es);
        V::select(done, B(T(1)), B(T(0))).store_aligned(flags);
        for (std::size_t k = 0; k < W; ++k)
            if (flags[k] == T(0)) es[k] = std::exp(ds[k]);
        return B::load_aligned(es);
    }

    static double exp_sum(const T* x, T shift, T* out, std::size_t n) noexcept {
        const B s(shift);
        summer sum;
        std::size_t i = 0;
        for (; i + W <= n; i += W) {
            const B e = exp_shifted(B::load_unaligned(x + i), s);
            if (out != nullptr) e.store_unaligned(out + i);
            sum.add(e);
        }
        double total = sum.result();
        if (const std::size_t k = n - i; k > 0) {
            alignas(64) T tail[W];
            exp_shifted(partial(x + i, k, shift), s).store_aligned(tail);
            if (out != nullptr) std::memcpy(out + i, tail, k * sizeof(T));
            for (std::size_t j = 0; j < k; ++j) total += static_cast<double>(tail[j]);
        }
        return total;
    }

    /// The mean square below which squares that underflowed in T (each off
    /// by less than T's smallest normal) could move it by more than a unit
    /// of T's rounding.
    static constexpr double tiny_mean_square = static_cast<double>(std::numeric_limits<T>::min()) *
                                               static_cast<double>(std::uint64_t{1} << std::numeric_limits<T>::digits);

    /// The fast pass: d and d² in T, summed per chunk of registers in T, then
    /// in double. A chunk's sum of squares overflows T from |x − c| ≈
    /// √(max / 16) (about 4.6e18 in float, 3.4e153 in double), and squares
    /// below √min underflow; where either could have happened — sums that
    /// are not finite, or a mean square that, with the caller's eps added,
    /// is that small — the row is summed again by scaled_moments. Ordinary
    /// rows never take it: the speed is the fast pass's.
    static void moments(const T* x, T center, std::size_t n, double eps, double* means) noexcept {
        const B c(center);
        summer first, second;
        std::size_t i = 0;
        for (; i + W <= n; i += W) {
            const B d = B::load_unaligned(x + i) - c;
            first.add(d);
            second.add(d * d);
        }
        double sum = first.result(), squares = second.result();
        for (; i < n; ++i) {
            const T d = x[i] - center;
            sum += static_cast<double>(d);
            squares += static_cast<double>(d * d);
        }
        const double count = static_cast<double>(n);
        means[0] = sum / count;
        means[1] = squares / count;
        if (!(std::isfinite(sum) && std::isfinite(squares) && means[1] + eps >= tiny_mean_square)) [[unlikely]]
            scaled_moments(x, center, n, means);
    }

    /// The moments of the row with every d = x − c (rounded as T) scaled by
    /// 2^−e, e the exponent of the largest |d|: the scaled values lie in
    /// (−2, 2), their squares and sums in double neither overflow nor
    /// underflow where it matters, and the scale comes back exactly in the
    /// means — finite wherever the moments are (float: any row whose d are
    /// finite; double: mean(d²) up to DBL_MAX). A d that is not finite (an
    /// inf or NaN in the row, or x − c beyond T's range) gives the sums of
    /// the unscaled values: inf or NaN, as they are.
    [[gnu::noinline, gnu::cold]] static void scaled_moments(const T* x, T center, std::size_t n, double* means) noexcept {
        bool finite = true;
        T largest = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const T d = std::abs(x[i] - center);
            finite = finite && std::isfinite(d);
            largest = d > largest ? d : largest;
        }
        const int e = finite && largest > 0 ? std::ilogb(largest) : 0;
        // 2^−e as two factors: each a normal double for every e of float and double
        const double down_high = std::ldexp(1.0, -(e / 2)), down_low = std::ldexp(1.0, -(e - e / 2));
        double sum = 0, squares = 0;
        for (std::size_t i = 0; i < n;) {  // blocks of 64 terms, then the total: the fast pass's error
            double block_sum = 0, block_squares = 0;
            for (const std::size_t end = std::min(n, i + 64); i < end; ++i) {
                const double d = static_cast<double>(x[i] - center) * down_high * down_low;
                block_sum += d;
                block_squares += d * d;
            }
            sum += block_sum;
            squares += block_squares;
        }
        const double count = static_cast<double>(n);
        means[0] = std::ldexp(sum / count, e);
        means[1] = std::ldexp(squares / count, 2 * e);
    }

    [[gnu::always_inline]] static B affine(const B& x, const B& c, const B& c2, const B& k, const T* w, const T* b,
                                           std::size_t i) noexcept {
        B r = ((x - c) - c2) * k;
        if (w != nullptr) r = r * B::load_unaligned(w + i);
        if (b != nullptr) r = r + B::load_unaligned(b + i);
        return r;
    }
    static void normalize(const T* x, T center, T center_low, T scale, const T* w, const T* b, T* out,
                          std::size_t n) noexcept {
        const B c(center), c2(center_low), k(scale);
        std::size_t i = 0;
        for (; i + W <= n; i += W) affine(B::load_unaligned(x + i), c, c2, k, w, b, i).store_unaligned(out + i);
        for (; i < n; ++i) {
            T r = ((x[i] - center) - center_low) * scale;
            if (w != nullptr) r = r * w[i];
            if (b != nullptr) r = r + b[i];
            out[i] = r;
        }
    }
};

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::isa
