// The per-instruction-set reduction kernels behind realify/engine/reduce.hpp
// (sum, mean, prod, amax, amin, var, std_dev, cumsum), instantiated once per
// element type in each per-instruction-set translation unit
// (src/simd/isa_kernels.cpp). src/engine/reduce.cpp walks the tensors and
// combines the values these return (kernel_table.hpp, reduce_set).
//
// Every kernel computes the fixed order of kernel_table.hpp — the same
// additions and multiplications of the same operands, whatever the width of
// the registers — so its results are the same, to the bit, on every
// instruction set:
//
//   along   a block's reduce_lanes real lanes are held in reduce_lanes / W
//           registers (several passes over the block where the instruction
//           set has too few registers); the lanes are halved register by
//           register, then within the last register through memory. A
//           partial row of the block is a padded copy: −0 for sums (x + −0
//           is x, for every x), 1 for real products, the block's means for
//           the deviations.
//   across  each output component is a lane (or, past the last whole
//           register, a scalar doing the same arithmetic).
//   scan    the group of scan_group reals is scan_group / W registers; a
//           doubling step shifts the whole group by d reals (zeros shifted
//           in) and adds.
//
// Sums accumulate in double (float inputs are widened exactly); products
// and extrema in T. No fused multiply-add anywhere (-ffp-contract=off in
// these units): the complex product is the plain formula
// (ar·br − ai·bi) + i(ar·bi + ai·br), element<op::mul>'s for every input (its
// infinite products decide each part as this arithmetic does; NaN payloads
// aside).
//
// Include only from the per-instruction-set translation units.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "../kernel_table.hpp"
#include "primitives.hpp"
#include "realify/kernels/ordering.hpp"
#include "vocabulary.hpp"

namespace realify::simd::isa {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

// ---- primitives of the reductions, per instruction set ----
//
//   widen(p)            W floats at p (unaligned) as a register of W doubles
//   narrow_store(p, x)  a register of W doubles stored as W floats at p
//   slide<d>(prev, cur) the registers' lanes shifted up by d < W:
//                       [prev[W − d], …, prev[W − 1], cur[0], …, cur[W − d − 1]]
//   last<e>(x)          the last element of x (e = 1: its last lane; e = 2:
//                       its last pair) in every lane (pair)
//   add_halves(x, e, out)
//                       the halving of x's lanes by addition, lane l += lane
//                       l + h for h = W/2, …, e, in registers; out[0, e)

#if XSIMD_WITH_SSE2
template <class A>
xsimd::batch<double, A> widen(const float* p, xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}
template <class A>
void narrow_store(float* p, const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_castps_si128(_mm_cvtpd_ps(x)));
}
template <std::size_t D, class A>
xsimd::batch<double, A> slide(const xsimd::batch<double, A>& prev, const xsimd::batch<double, A>& cur,
                              xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    static_assert(D == 1);
    return _mm_shuffle_pd(prev, cur, 1);
}
template <std::size_t E, class A>
xsimd::batch<double, A> last(const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    if constexpr (E == 1) return _mm_unpackhi_pd(x, x);
    else return x;
}
inline void add_halves(__m128d x, std::size_t e, double* out) noexcept {
    if (e == 2) {
        _mm_storeu_pd(out, x);
        return;
    }
    _mm_store_sd(out, _mm_add_sd(x, _mm_unpackhi_pd(x, x)));
}
template <class A>
void add_halves(const xsimd::batch<double, A>& x, std::size_t e, double* out,
                xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    add_halves(static_cast<__m128d>(x), e, out);
}
#endif

#if XSIMD_WITH_AVX
template <class A>
xsimd::batch<double, A> widen(const float* p, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    return _mm256_cvtps_pd(_mm_loadu_ps(p));
}
template <class A>
void narrow_store(float* p, const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    _mm_storeu_ps(p, _mm256_cvtpd_ps(x));
}
template <std::size_t D, class A>
xsimd::batch<double, A> slide(const xsimd::batch<double, A>& prev, const xsimd::batch<double, A>& cur,
                              xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    static_assert(D == 1 || D == 2);
    const __m256d middle = _mm256_permute2f128_pd(prev, cur, 0x21);  // [prev2, prev3, cur0, cur1]
    if constexpr (D == 2) return middle;
    else return _mm256_shuffle_pd(middle, cur, 0x5);  // [prev3, cur0, cur1, cur2]
}
template <class A>
void add_halves(const xsimd::batch<double, A>& x, std::size_t e, double* out,
                xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    const __m256d v = x;
    add_halves(_mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1)), e, out);
}
template <std::size_t E, class A>
xsimd::batch<double, A> last(const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    const __m256d high = _mm256_permute2f128_pd(x, x, 0x11);  // [x2, x3, x2, x3]
    if constexpr (E == 1) return _mm256_permute_pd(high, 0xf);
    else return high;
}
#endif

#if XSIMD_WITH_AVX512F
template <class A>
xsimd::batch<double, A> widen(const float* p, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_cvtps_pd(_mm256_loadu_ps(p));
}
template <class A>
void narrow_store(float* p, const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    _mm256_storeu_ps(p, _mm512_cvtpd_ps(x));
}
template <std::size_t D, class A>
xsimd::batch<double, A> slide(const xsimd::batch<double, A>& prev, const xsimd::batch<double, A>& cur,
                              xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    static_assert(D >= 1 && D < 8);
    return _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(cur), _mm512_castpd_si512(prev), 8 - D));
}
template <class A>
void add_halves(const xsimd::batch<double, A>& x, std::size_t e, double* out,
                xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    const __m512d v = x;
    const __m256d half = _mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1));
    add_halves(_mm_add_pd(_mm256_castpd256_pd128(half), _mm256_extractf128_pd(half, 1)), e, out);
}
template <std::size_t E, class A>
xsimd::batch<double, A> last(const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    if constexpr (E == 1) return _mm512_permutexvar_pd(_mm512_set1_epi64(7), x);
    else return _mm512_shuffle_f64x2(x, x, 0xff);
}
#endif

template <class T, class A>
struct reduce_kernels {
    using DB = xsimd::batch<double, A>;
    using TB = xsimd::batch<T, A>;
    using VD = vec<double, A>;
    using VT = vec<T, A>;
    static constexpr std::size_t WD = DB::size;  // doubles per register
    static constexpr std::size_t WT = TB::size;  // Ts per register
    static constexpr std::size_t lanes = detail::reduce_lanes;
    static constexpr std::size_t block = detail::reduce_block;
    static constexpr std::size_t group = detail::scan_group;
    /// Accumulators one pass keeps in registers: AVX-512 has 32 vector registers, the others 16.
    static constexpr std::size_t budget = WD == 8 ? 16 : 8;
    static_assert(lanes % (2 * WT) == 0 && group % WD == 0 && block % lanes == 0);

    // ---- helpers ----

    /// WD reals at p as doubles.
    [[gnu::always_inline]] static DB load_wide(const T* p) noexcept {
        if constexpr (std::is_same_v<T, double>) return DB::load_unaligned(p);
        else return widen<A>(p, A{});
    }
    /// x, from a register the compiler cannot see into: a product passed
    /// through it is rounded before it is added. GCC 12 fuses a product and
    /// the sum it feeds into vfmaddsub when it recognises a complex product,
    /// -ffp-contract=off notwithstanding.
    template <class X>
    [[gnu::always_inline]] static X rounded(X x) noexcept {
        if constexpr (std::is_floating_point_v<X>) {
            __asm__("" : "+v"(x));
            return x;
        } else {
            typename X::register_type r = x;
            __asm__("" : "+v"(r));
            return X(r);
        }
    }
    /// The plain complex product, one pair (the scalar twin of cmul).
    static cpair<T> plain_mul(cpair<T> a, cpair<T> b) noexcept {
        return {rounded(a.re * b.re) - rounded(a.im * b.im), rounded(a.re * b.im) + rounded(a.im * b.re)};
    }
    /// The plain complex product of registers of pairs: [ar·br − ai·bi, ar·bi + ai·br, …];
    /// `flip` is negate_real().
    [[gnu::always_inline]] static TB cmul(const TB& a, const TB& b, const TB& flip) noexcept {
        const TB t1 = rounded(dup_real(a, A{}) * b);
        const TB t2 = rounded(dup_imag(a, A{}) * swap_pairs(b, A{}));
        return t1 + (t2 ^ flip);
    }
    /// [−0, +0, −0, +0, …]: flips the sign of the real parts.
    static TB negate_real() noexcept {
        alignas(64) T signs[WT];
        for (std::size_t i = 0; i < WT; ++i) signs[i] = i % 2 == 0 ? T(-0.0) : T(0);
        return TB::load_aligned(signs);
    }

    /// Halves `count` registers of lanes into lane[0]: lane k with lane k + h
    /// for h = count/2, …, 1 (the lanes' halving for h ≥ W).
    template <class B, class F>
    [[gnu::always_inline]] static void halve_registers(B* lane, std::size_t count, const F& f) noexcept {
        for (std::size_t h = count / 2; h >= 1; h /= 2)
            for (std::size_t k = 0; k < h; ++k) lane[k] = f(lane[k], lane[k + h]);
    }
    /// Then the halving within the register, down to e lanes, stored at out.
    template <class U, class B, class F>
    static void halve_lanes(const B& x, std::size_t e, U* out, const F& f) noexcept {
        alignas(64) U s[B::size];
        x.store_aligned(s);
        for (std::size_t h = B::size / 2; h >= e; h /= 2)
            for (std::size_t l = 0; l < h; ++l) s[l] = f(s[l], s[l + h]);
        for (std::size_t c = 0; c < e; ++c) out[c] = s[c];
    }

    // ---- sums ----

    /// Registers one pass over a block holds: `per` accumulators per lane
    /// register within the budget.
    static constexpr std::size_t pass(std::size_t regs, std::size_t per) noexcept {
        return regs < budget / per ? regs : budget / per;
    }

    /// The lanes of a block: `rows` whole rows at p, then the padded row
    /// `tail` (nullptr: none), summed into lane[0, lanes / WD).
    static void sum_lanes(const T* p, std::size_t rows, const double* tail, DB* lane) noexcept {
        constexpr std::size_t regs = lanes / WD, G = pass(regs, 1);
        for (std::size_t g = 0; g < regs; g += G) {
            DB acc[G];
            for (std::size_t k = 0; k < G; ++k) acc[k] = DB(-0.0);
            const T* q = p + g * WD;
            for (std::size_t r = 0; r < rows; ++r, q += lanes)
                for (std::size_t k = 0; k < G; ++k) acc[k] += load_wide(q + k * WD);
            if (tail != nullptr)
                for (std::size_t k = 0; k < G; ++k) acc[k] += DB::load_aligned(tail + (g + k) * WD);
            for (std::size_t k = 0; k < G; ++k) lane[g + k] = acc[k];
        }
    }
    /// The lanes of Σ(x − center) and Σ(x − center)² over a block, as sum_lanes.
    static void deviation_lanes(const T* p, std::size_t rows, const double* tail, const DB& center, DB* dev,
                                DB* sq) noexcept {
        constexpr std::size_t regs = lanes / WD, G = pass(regs, 2);
        for (std::size_t g = 0; g < regs; g += G) {
            DB d[G], s[G];
            for (std::size_t k = 0; k < G; ++k) d[k] = s[k] = DB(-0.0);
            auto add = [&](std::size_t k, const DB& x) {
                const DB v = x - center;
                d[k] += v;
                s[k] += v * v;
            };
            const T* q = p + g * WD;
            for (std::size_t r = 0; r < rows; ++r, q += lanes) {
                // the next block's row, fetched while this one is in L1: the passes do not stall on memory
                if (g == 0)
                    for (std::size_t c = 0; c < lanes * sizeof(T); c += 64) __builtin_prefetch(reinterpret_cast<const char*>(q + block) + c);
                for (std::size_t k = 0; k < G; ++k) add(k, load_wide(q + k * WD));
            }
            if (tail != nullptr)
                for (std::size_t k = 0; k < G; ++k) add(k, DB::load_aligned(tail + (g + k) * WD));
            for (std::size_t k = 0; k < G; ++k) {
                dev[g + k] = d[k];
                sq[g + k] = s[k];
            }
        }
    }
    /// The lanes halved into the e component sums.
    static void sum_of_lanes(DB* lane, std::size_t e, double* out) noexcept {
        halve_registers(lane, lanes / WD, [](const DB& a, const DB& b) { return a + b; });
        add_halves(lane[0], e, out, A{});
    }
    /// The partial row of a block of m reals, widened, padded with `pad`
    /// (by component); nullptr when the block has none.
    static const double* tail_of(const T* p, std::size_t m, const double* pad, std::size_t e, double* tail) noexcept {
        const std::size_t rows = m / lanes, rest = m % lanes;
        if (rest == 0) return nullptr;
        for (std::size_t i = 0; i < rest; ++i) tail[i] = static_cast<double>(p[rows * lanes + i]);
        for (std::size_t i = rest; i < lanes; ++i) tail[i] = pad[i % e];
        return tail;
    }

    /// The block's e component sums.
    static void sum_block(const T* p, std::size_t m, std::size_t e, double* out) noexcept {
        alignas(64) double tail[lanes];
        constexpr double zeros[2] = {-0.0, -0.0};
        DB lane[lanes / WD];
        sum_lanes(p, m / lanes, tail_of(p, m, zeros, e, tail), lane);
        sum_of_lanes(lane, e, out);
    }
    /// The block's e component means, then the e sums of squared deviations from them.
    static void moments_block(const T* p, std::size_t m, std::size_t e, double* out) noexcept {
        alignas(64) double tail[lanes];
        constexpr double zeros[2] = {-0.0, -0.0};
        DB lane[lanes / WD], squares[lanes / WD];
        sum_lanes(p, m / lanes, tail_of(p, m, zeros, e, tail), lane);
        double* mean = out;
        sum_of_lanes(lane, e, mean);
        const double count = static_cast<double>(m / e);
        for (std::size_t c = 0; c < e; ++c) mean[c] = mean[c] / count;
        alignas(64) double pattern[WD];
        for (std::size_t i = 0; i < WD; ++i) pattern[i] = mean[i % e];
        // padded with the means: deviations of +0
        deviation_lanes(p, m / lanes, tail_of(p, m, mean, e, tail), DB::load_aligned(pattern), lane, squares);
        double d[2], s[2];
        sum_of_lanes(lane, e, d);
        sum_of_lanes(squares, e, s);
        for (std::size_t c = 0; c < e; ++c) out[e + c] = deviations(s[c], d[c], count);
    }
    /// Σ(x − m)² corrected by the rounding of the mean m: Σd² − (Σd)²/n.
    /// d·(d/n) ≤ Σd² (Cauchy–Schwarz): no overflow of its own; an
    /// overflowed Σd² stays inf.
    static double deviations(double squares, double d, double count) noexcept {
        return std::isfinite(squares) ? squares - d * (d / count) : squares;
    }
    [[gnu::always_inline]] static DB deviations(const DB& squares, const DB& d, const DB& count) noexcept {
        return VD::select(VD::isfinite(squares), squares - d * (d / count), squares);
    }

    static void sum(const T* x, std::size_t n, std::ptrdiff_t next, std::size_t runs, std::size_t e,
                    double* values) noexcept {
        for (std::size_t r = 0; r < runs; ++r, x += next)
            for (std::size_t b = 0; b < n; b += block, values += e) sum_block(x + b, std::min(block, n - b), e, values);
    }

    static void moments(const T* x, std::size_t n, std::ptrdiff_t next, std::size_t runs, std::size_t e,
                        double* values) noexcept {
        for (std::size_t r = 0; r < runs; ++r, x += next)
            for (std::size_t b = 0; b < n; b += block, values += 2 * e)
                moments_block(x + b, std::min(block, n - b), e, values);
    }

    // ---- products ----

    static void prod_block(const T* p, std::size_t m, std::size_t e, T* out) noexcept {
        constexpr std::size_t regs = lanes / WT;
        constexpr std::size_t G = regs < budget ? regs : budget;
        const std::size_t rows = m / lanes, rest = m % lanes;
        if (e == 1) {
            alignas(64) T tail[lanes];
            for (std::size_t i = 0; i < rest; ++i) tail[i] = p[rows * lanes + i];
            for (std::size_t i = rest; i < lanes; ++i) tail[i] = T(1);
            TB lane[regs];
            for (std::size_t g = 0; g < regs; g += G) {
                TB acc[G];
                for (std::size_t k = 0; k < G; ++k) acc[k] = TB(T(1));
                const T* q = p + g * WT;
                for (std::size_t r = 0; r < rows; ++r, q += lanes)
                    for (std::size_t k = 0; k < G; ++k) acc[k] *= TB::load_unaligned(q + k * WT);
                if (rest > 0)
                    for (std::size_t k = 0; k < G; ++k) acc[k] *= TB::load_aligned(tail + (g + k) * WT);
                for (std::size_t k = 0; k < G; ++k) lane[g + k] = acc[k];
            }
            halve_registers(lane, regs, [](const TB& a, const TB& b) { return a * b; });
            halve_lanes(lane[0], 1, out, [](T a, T b) { return a * b; });
            return;
        }
        // complex: a lane starts from its first element ((1 + 0i)·z is not z for every z)
        alignas(64) T s[lanes];
        if (rows > 0) complex_lanes<1>(p, rows, s);
        complex_finish(p, rows, rest, s, out);
    }

    /// The pair lanes of B consecutive blocks (p, p + block, …) after their first `rows` ≥ 1 whole
    /// rows, into s[b·lanes, …): each lane multiplied left to right from its first element. Two
    /// blocks at once hold twice the independent products: the latency of one chain is hidden.
    template <std::size_t B>
    static void complex_lanes(const T* p, std::size_t rows, T* s) noexcept {
        constexpr std::size_t regs = lanes / WT;
        constexpr std::size_t G = regs < budget / B ? regs : budget / B;
        const TB flip = negate_real();
        for (std::size_t g = 0; g < regs; g += G) {
            TB acc[B][G];
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t k = 0; k < G; ++k) acc[b][k] = TB::load_unaligned(p + b * block + (g + k) * WT);
            for (std::size_t r = 1; r < rows; ++r)
                for (std::size_t b = 0; b < B; ++b)
                    for (std::size_t k = 0; k < G; ++k)
                        acc[b][k] = cmul(acc[b][k], TB::load_unaligned(p + b * block + r * lanes + (g + k) * WT), flip);
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t k = 0; k < G; ++k) acc[b][k].store_aligned(s + b * lanes + (g + k) * WT);
        }
    }
    /// A complex block's value from its lanes s after `rows` whole rows: the `rest` reals of the
    /// partial row multiplied into the first lanes, then the pair lanes halved (lane v with lane
    /// v + h, h = lanes/4, …, 1; empty lanes skipped).
    static void complex_finish(const T* p, std::size_t rows, std::size_t rest, T* s, T* out) noexcept {
        constexpr std::size_t pairs = lanes / 2;
        std::size_t filled = pairs;  // lanes holding a value
        if (rows == 0) {
            filled = rest / 2;
            for (std::size_t i = 0; i < rest; ++i) s[i] = p[i];
        } else {
            for (std::size_t i = 0; i < rest; i += 2) {
                const cpair<T> v = plain_mul({s[i], s[i + 1]}, {p[rows * lanes + i], p[rows * lanes + i + 1]});
                s[i] = v.re;
                s[i + 1] = v.im;
            }
        }
        std::size_t h = pairs / 2;
        if (filled == pairs && rest == 0) {  // a whole block: the halving across registers in registers
            constexpr std::size_t regs = lanes / WT;
            const TB flip = negate_real();
            TB lane[regs];
            for (std::size_t k = 0; k < regs; ++k) lane[k] = TB::load_aligned(s + k * WT);
            halve_registers(lane, regs, [&](const TB& x, const TB& y) { return cmul(x, y, flip); });
            lane[0].store_aligned(s);
            h = WT / 4;  // then within the register, pair by pair
            filled = WT / 2;
        }
        for (; h >= 1; h /= 2) {
            for (std::size_t v = 0; v < h && v + h < filled; ++v) {
                const cpair<T> r = plain_mul({s[2 * v], s[2 * v + 1]}, {s[2 * (v + h)], s[2 * (v + h) + 1]});
                s[2 * v] = r.re;
                s[2 * v + 1] = r.im;
            }
            filled = std::min(filled, h);
        }
        out[0] = s[0];
        out[1] = s[1];
    }

    static void prod(const T* x, std::size_t n, std::ptrdiff_t next, std::size_t runs, std::size_t e,
                     T* values) noexcept {
        for (std::size_t r = 0; r < runs; ++r, x += next) {
            std::size_t b = 0;
            if (e == 2)  // whole blocks two at a time
                for (; b + 2 * block <= n; b += 2 * block, values += 4) {
                    alignas(64) T s[2 * lanes];
                    complex_lanes<2>(x + b, block / lanes, s);
                    complex_finish(x + b, block / lanes, 0, s, values);
                    complex_finish(x + b + block, block / lanes, 0, s + lanes, values + 2);
                }
            for (; b < n; b += block, values += e) prod_block(x + b, std::min(block, n - b), e, values);
        }
    }

    // ---- extrema (real) ----
    //
    // element<op::maximum> / <op::minimum>: NaN propagates, +0 above −0;
    // any order gives the same value. The fast pass takes the plain
    // maximum (minimum) and notes NaN lanes aside; a result that is ±0 (whose
    // sign the plain maximum does not decide) or NaN is recomputed by the
    // element kernel's batch form.

    template <bool Max>
    [[gnu::always_inline]] static TB ext(const TB& a, const TB& b) noexcept {
        return kernels::detail::extremum<Max>::template simd<VT>(a, b);
    }
    template <bool Max>
    [[gnu::always_inline]] static TB plain_ext(const TB& a, const TB& b) noexcept {
        return Max ? xsimd::max(a, b) : xsimd::min(a, b);
    }
    /// The lanes of a register combined by f, by rotations through memory.
    template <class F>
    static T across_lanes(TB m, const F& f) noexcept {
        alignas(64) T buffer[2 * WT];
        for (std::size_t h = WT / 2; h >= 1; h /= 2) {
            m.store_aligned(buffer);
            m.store_aligned(buffer + WT);
            m = f(m, TB::load_unaligned(buffer + h));
        }
        m.store_aligned(buffer);
        return buffer[0];
    }
    /// The run of n ≥ 1 elements by f; `unordered` notes NaN elements. The
    /// last partial register is padded with the run's first element.
    template <bool Exact, bool Max>
    static T extremum_pass(const T* p, std::size_t n, bool& unordered) noexcept {
        constexpr std::size_t U = 4;
        auto f = [](const TB& a, const TB& b) { return Exact ? ext<Max>(a, b) : plain_ext<Max>(a, b); };
        TB m[U];
        auto nan = VT::none();
        std::size_t i = 0;
        if (n >= U * WT) {
            for (std::size_t u = 0; u < U; ++u) {
                m[u] = TB::load_unaligned(p + u * WT);
                nan = nan | VT::isnan(m[u]);
            }
            for (i = U * WT; i + U * WT <= n; i += U * WT)
                for (std::size_t u = 0; u < U; ++u) {
                    const TB v = TB::load_unaligned(p + i + u * WT);
                    if constexpr (!Exact) nan = nan | VT::isnan(v);
                    m[u] = f(m[u], v);
                }
            for (std::size_t u = 1; u < U; ++u) m[0] = f(m[0], m[u]);
        } else {
            m[0] = TB(p[0]);
            nan = VT::isnan(m[0]);
        }
        for (; i + WT <= n; i += WT) {
            const TB v = TB::load_unaligned(p + i);
            nan = nan | VT::isnan(v);
            m[0] = f(m[0], v);
        }
        if (i < n) {
            alignas(64) T buffer[WT];
            for (std::size_t k = 0; k < WT; ++k) buffer[k] = i + k < n ? p[i + k] : p[0];
            const TB v = TB::load_aligned(buffer);
            nan = nan | VT::isnan(v);
            m[0] = f(m[0], v);
        }
        unordered = VT::any(nan);
        return across_lanes(m[0], f);
    }
    template <bool Max>
    static T extremum_run(const T* p, std::size_t n) noexcept {
        bool unordered = false;
        const T r = extremum_pass<false, Max>(p, n, unordered);
        if (!unordered && r != T(0)) [[likely]] return r;
        return extremum_pass<true, Max>(p, n, unordered);
    }
    /// One value per run (n ≥ 1).
    template <bool Max>
    static void extremum(const T* x, std::size_t n, std::ptrdiff_t next, std::size_t runs, std::size_t,
                         T* values) noexcept {
        for (std::size_t r = 0; r < runs; ++r, x += next) values[r] = extremum_run<Max>(x, n);
    }

    // ---- across: rows of width reals ----

    static constexpr std::size_t tile = 8;  // registers per tile

    static void sum_rows(const T* x, const std::ptrdiff_t* offsets, std::size_t rows, std::size_t width, std::size_t,
                         double* values) noexcept {
        for (std::size_t r0 = 0; r0 < rows; r0 += detail::across_block, values += width) {
            const std::ptrdiff_t* off = offsets + r0;
            const std::size_t nr = std::min(detail::across_block, rows - r0);
            std::size_t j = 0;
            for (; j + tile * WD <= width; j += tile * WD) {
                DB acc[tile];
                for (std::size_t k = 0; k < tile; ++k) acc[k] = DB(-0.0);
                for (std::size_t r = 0; r < nr; ++r)
                    for (std::size_t k = 0; k < tile; ++k) acc[k] += load_wide(x + off[r] + j + k * WD);
                for (std::size_t k = 0; k < tile; ++k) acc[k].store_unaligned(values + j + k * WD);
            }
            for (; j + WD <= width; j += WD) {
                DB acc(-0.0);
                for (std::size_t r = 0; r < nr; ++r) acc += load_wide(x + off[r] + j);
                acc.store_unaligned(values + j);
            }
            for (; j < width; ++j) {
                double acc = -0.0;
                for (std::size_t r = 0; r < nr; ++r) acc += static_cast<double>(x[off[r] + j]);
                values[j] = acc;
            }
        }
    }

    static void moments_rows(const T* x, const std::ptrdiff_t* offsets, std::size_t rows, std::size_t width,
                             std::size_t, double* values) noexcept {
        constexpr std::size_t R = budget / 4;
        for (std::size_t r0 = 0; r0 < rows; r0 += detail::across_block, values += 2 * width) {
            const std::ptrdiff_t* off = offsets + r0;
            const std::size_t nr = std::min(detail::across_block, rows - r0);
            const double count = static_cast<double>(nr);
            std::size_t j = 0;
            for (; j + R * WD <= width; j += R * WD) {
                DB mean[R], d[R], s[R];
                for (std::size_t k = 0; k < R; ++k) mean[k] = d[k] = s[k] = DB(-0.0);
                for (std::size_t r = 0; r < nr; ++r)
                    for (std::size_t k = 0; k < R; ++k) mean[k] += load_wide(x + off[r] + j + k * WD);
                for (std::size_t k = 0; k < R; ++k) mean[k] = mean[k] / DB(count);
                for (std::size_t r = 0; r < nr; ++r)
                    for (std::size_t k = 0; k < R; ++k) {
                        const DB v = load_wide(x + off[r] + j + k * WD) - mean[k];
                        d[k] += v;
                        s[k] += v * v;
                    }
                for (std::size_t k = 0; k < R; ++k) {
                    mean[k].store_unaligned(values + j + k * WD);
                    deviations(s[k], d[k], DB(count)).store_unaligned(values + width + j + k * WD);
                }
            }
            for (; j < width; ++j) {
                double mean = -0.0, d = -0.0, s = -0.0;
                for (std::size_t r = 0; r < nr; ++r) mean += static_cast<double>(x[off[r] + j]);
                mean = mean / count;
                for (std::size_t r = 0; r < nr; ++r) {
                    const double v = static_cast<double>(x[off[r] + j]) - mean;
                    d += v;
                    s += v * v;
                }
                values[j] = mean;
                values[width + j] = deviations(s, d, count);
            }
        }
    }

    static void prod_rows(const T* x, const std::ptrdiff_t* offsets, std::size_t rows, std::size_t width,
                          std::size_t e, T* values) noexcept {
        const TB flip = negate_real();
        for (std::size_t r0 = 0; r0 < rows; r0 += detail::across_block, values += width) {
            const std::ptrdiff_t* off = offsets + r0;
            const std::size_t nr = std::min(detail::across_block, rows - r0);
            std::size_t j = 0;
            for (; j + tile * WT <= width; j += tile * WT) {
                TB acc[tile];
                for (std::size_t k = 0; k < tile; ++k) acc[k] = TB::load_unaligned(x + off[0] + j + k * WT);
                for (std::size_t r = 1; r < nr; ++r)
                    for (std::size_t k = 0; k < tile; ++k) {
                        const TB b = TB::load_unaligned(x + off[r] + j + k * WT);
                        if (e == 1) acc[k] *= b;
                        else acc[k] = cmul(acc[k], b, flip);
                    }
                for (std::size_t k = 0; k < tile; ++k) acc[k].store_unaligned(values + j + k * WT);
            }
            for (; j < width; j += e) {
                cpair<T> acc{x[off[0] + j], e == 2 ? x[off[0] + j + 1] : T(0)};
                for (std::size_t r = 1; r < nr; ++r) {
                    const T* q = x + off[r] + j;
                    if (e == 1) acc.re *= q[0];
                    else acc = plain_mul(acc, {q[0], q[1]});
                }
                values[j] = acc.re;
                if (e == 2) values[j + 1] = acc.im;
            }
        }
    }

    /// R registers of columns j… over all the rows: the plain maximum
    /// (minimum), or the element kernel's batch form where that left a zero
    /// or met a NaN.
    template <bool Max, std::size_t R>
    [[gnu::always_inline]] static void extremum_columns(const T* x, const std::ptrdiff_t* offsets, std::size_t rows,
                                                        T* values) noexcept {
        TB acc[R];
        auto nan = VT::none();
        for (std::size_t k = 0; k < R; ++k) {
            acc[k] = TB::load_unaligned(x + offsets[0] + k * WT);
            nan = nan | VT::isnan(acc[k]);
        }
        for (std::size_t r = 1; r < rows; ++r)
            for (std::size_t k = 0; k < R; ++k) {
                const TB v = TB::load_unaligned(x + offsets[r] + k * WT);
                nan = nan | VT::isnan(v);
                acc[k] = plain_ext<Max>(acc[k], v);
            }
        for (std::size_t k = 0; k < R; ++k) nan = nan | (acc[k] == TB(T(0)));
        if (VT::any(nan)) [[unlikely]] {
            for (std::size_t k = 0; k < R; ++k) acc[k] = TB::load_unaligned(x + offsets[0] + k * WT);
            for (std::size_t r = 1; r < rows; ++r)
                for (std::size_t k = 0; k < R; ++k) acc[k] = ext<Max>(acc[k], TB::load_unaligned(x + offsets[r] + k * WT));
        }
        for (std::size_t k = 0; k < R; ++k) acc[k].store_unaligned(values + k * WT);
    }
    /// One set of width values for all the rows (rows ≥ 1).
    template <bool Max>
    static void extremum_rows(const T* x, const std::ptrdiff_t* offsets, std::size_t rows, std::size_t width,
                              std::size_t, T* values) noexcept {
        std::size_t j = 0;
        for (; j + tile * WT <= width; j += tile * WT) extremum_columns<Max, tile>(x + j, offsets, rows, values + j);
        for (; j + WT <= width; j += WT) extremum_columns<Max, 1>(x + j, offsets, rows, values + j);
        if (j < width) {  // the last columns, each row's padded into a register (exact form)
            const std::size_t k = width - j;
            alignas(64) T buffer[WT] = {};
            auto row = [&](std::size_t r) {
                for (std::size_t i = 0; i < k; ++i) buffer[i] = x[offsets[r] + j + i];
                return TB::load_aligned(buffer);
            };
            TB acc = row(0);
            for (std::size_t r = 1; r < rows; ++r) acc = ext<Max>(acc, row(r));
            acc.store_aligned(buffer);
            for (std::size_t i = 0; i < k; ++i) values[j + i] = buffer[i];
        }
    }

    // ---- scans ----

    template <class O>
    [[gnu::always_inline]] static void store_as(O* p, const DB& v) noexcept {
        if constexpr (std::is_same_v<O, double>) v.store_unaligned(p);
        else narrow_store(p, v, A{});
    }

    /// The inclusive prefix of a group of scan_group reals held in RG
    /// registers, by doubling: g += g shifted up by d, d = E, 2E, 4E, ….
    template <std::size_t E, std::size_t D = E>
    [[gnu::always_inline]] static void prefix(DB* g) noexcept {
        constexpr std::size_t RG = group / WD;
        if constexpr (D < group) {
            DB shifted[RG];
            for (std::size_t k = 0; k < RG; ++k) {
                if constexpr (D % WD == 0) shifted[k] = k >= D / WD ? g[k - D / WD] : DB(0.0);
                else shifted[k] = slide<D % WD>(k >= 1 ? g[k - 1] : DB(0.0), g[k], A{});
            }
            for (std::size_t k = 0; k < RG; ++k) g[k] += shifted[k];
            prefix<E, 2 * D>(g);
        }
    }

    template <std::size_t E, class O>
    static void scan_run(const T* x, O* out, std::size_t n, double* carry) noexcept {
        constexpr std::size_t RG = group / WD;
        alignas(64) double pattern[WD];
        for (std::size_t i = 0; i < WD; ++i) pattern[i] = carry[i % E];
        DB c = DB::load_aligned(pattern);
        std::size_t i = 0;
        for (; i + group <= n; i += group) {
            DB g[RG];
            for (std::size_t k = 0; k < RG; ++k) g[k] = load_wide(x + i + k * WD);
            prefix<E>(g);
            const DB total = last<E>(g[RG - 1], A{});
            for (std::size_t k = 0; k < RG; ++k) store_as(out + i + k * WD, c + g[k]);
            c += total;
        }
        if (i < n) {  // the last partial group, zero-padded
            alignas(64) double tail[group];
            alignas(64) O result[group];
            for (std::size_t k = 0; k < group; ++k) tail[k] = i + k < n ? static_cast<double>(x[i + k]) : 0.0;
            DB g[RG];
            for (std::size_t k = 0; k < RG; ++k) g[k] = DB::load_aligned(tail + k * WD);
            prefix<E>(g);
            const DB total = last<E>(g[RG - 1], A{});
            for (std::size_t k = 0; k < RG; ++k) store_as(result + k * WD, c + g[k]);
            for (std::size_t k = 0; k < n - i; ++k) out[i + k] = result[k];
            c += total;
        }
        c.store_aligned(pattern);
        for (std::size_t k = 0; k < E; ++k) carry[k] = pattern[k];
    }

    template <class O>
    static void scan_to(const T* x, std::ptrdiff_t x_next, O* out, std::ptrdiff_t out_next, std::size_t runs,
                        std::size_t n, std::size_t e, double* carry) noexcept {
        for (std::size_t r = 0; r < runs; ++r, x += x_next, out += out_next) {
            double zero[2] = {-0.0, -0.0};
            double* c = carry != nullptr ? carry : zero;
            if (e == 1) scan_run<1>(x, out, n, c);
            else scan_run<2>(x, out, n, c);
        }
    }
    static void scan(const T* x, std::ptrdiff_t x_next, void* out, std::ptrdiff_t out_next, bool out_double,
                     std::size_t runs, std::size_t n, std::size_t e, double* carry) noexcept {
        if (out_double) scan_to(x, x_next, static_cast<double*>(out), out_next, runs, n, e, carry);
        else scan_to(x, x_next, static_cast<float*>(out), out_next, runs, n, e, carry);
    }

    template <class O>
    static void scan_rows_to(const T* x, const std::ptrdiff_t* x_offsets, O* out, const std::ptrdiff_t* out_offsets,
                             std::size_t rows, std::size_t width, double* carry) noexcept {
        std::size_t j = 0;
        for (; j + tile * WD <= width; j += tile * WD) {
            DB c[tile];
            for (std::size_t k = 0; k < tile; ++k) c[k] = DB::load_unaligned(carry + j + k * WD);
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t k = 0; k < tile; ++k) {
                    c[k] += load_wide(x + x_offsets[r] + j + k * WD);  // read before the write: in place is safe
                    store_as(out + out_offsets[r] + j + k * WD, c[k]);
                }
            for (std::size_t k = 0; k < tile; ++k) c[k].store_unaligned(carry + j + k * WD);
        }
        for (; j + WD <= width; j += WD) {
            DB c = DB::load_unaligned(carry + j);
            for (std::size_t r = 0; r < rows; ++r) {
                c += load_wide(x + x_offsets[r] + j);
                store_as(out + out_offsets[r] + j, c);
            }
            c.store_unaligned(carry + j);
        }
        for (; j < width; ++j) {
            double c = carry[j];
            for (std::size_t r = 0; r < rows; ++r) {
                c += static_cast<double>(x[x_offsets[r] + j]);
                out[out_offsets[r] + j] = static_cast<O>(c);
            }
            carry[j] = c;
        }
    }
    static void scan_rows(const T* x, const std::ptrdiff_t* x_offsets, void* out, const std::ptrdiff_t* out_offsets,
                          bool out_double, std::size_t rows, std::size_t width, double* carry) noexcept {
        if (out_double) scan_rows_to(x, x_offsets, static_cast<double*>(out), out_offsets, rows, width, carry);
        else scan_rows_to(x, x_offsets, static_cast<float*>(out), out_offsets, rows, width, carry);
    }
};

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::isa
