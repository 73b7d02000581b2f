// The interleaved-pair primitives every compiled kernel shares (the multiply
// family, RoPE, the elementwise kernels), written once as an overload set on
// the xsimd architecture tag: the most specific overload wins. The generic
// versions are portable xsimd; AVX/AVX2 and AVX-512 get in-lane shuffles
// (xsimd 8.1 lowers an AVX2 swizzle to the cross-lane vpermps), FMA arches
// the single fmaddsub/fmsubadd instruction.
//
//   dup_real(x)          [r0, i0, r1, i1, …] → [r0, r0, r1, r1, …]
//   dup_imag(x)          → [i0, i0, i1, i1, …]
//   swap_pairs(x)        → [i0, r0, i1, r1, …]
//   fma(x, y, z)         x·y + z, fused where the arch has FMA — also on
//                        AVX-512F, where xsimd 8.1's fma is x·y + z rounded
//                        twice (it has no FMA kernels for avx512f)
//   fms(x, y, z)         x·y − z, likewise
//   fnma(x, y, z)        z − x·y, likewise
//   fmaddsub(x, y, z)    even lanes x·y − z, odd lanes x·y + z (fused where the
//                        arch has FMA)
//   fmsubadd(x, y, z)    even lanes x·y + z, odd lanes x·y − z
//   expand_low(r)        [r0, r1, …] → [r0, r0, r1, r1, …] (first half)
//   expand_high(r)       the second half, likewise
//   deinterleave(a, b)   two registers of pairs → {re, im} registers, the
//                        pairs in "lane order" (below)
//   interleave(re, im)   the inverse: {a, b}
//   to_lane_order(r)     a register of reals, in element order, → lane order
//   from_lane_order(r)   the inverse
//   stream_store(p, x)   non-temporal store; p aligned to stream_alignment
//   stream_or_store(p, x, stream)
//                        streams when asked and p allows it, else an ordinary
//                        store
//   stream_fence()       orders the non-temporal stores before returning
//
// Lane order: deinterleave uses in-lane shuffles (shufps/unpck per 128-bit
// lane), so on 256-bit registers the elements of {re, im} come out as
// [0, 1, 4, 5, 2, 3, 6, 7] (float) or [0, 2, 1, 3] (double); on SSE2 and on
// AVX-512 (a two-source permute) they are in order. An elementwise function
// does not care; a real operand next to deinterleaved complex ones, and a
// real result of them, go through to_lane_order / from_lane_order.
//
// Include only from the per-instruction-set translation units (src/simd):
// everything below sits in an inline namespace named after the instruction
// set of the including TU (arch_namespace.hpp), so no
// symbol is shared between them.
#pragma once

#include <cstddef>
#include <cstdint>

#include <xsimd/xsimd.hpp>

#include "arch_namespace.hpp"
#include "realify/kernels/element.hpp"

namespace realify::simd::isa {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

using kernels::cpair;

template <class T>
using uint_of_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// Lane-index generators for xsimd::make_batch_constant.
struct dup_real_index {  // [0, 0, 2, 2, …]
    static constexpr std::size_t get(std::size_t i, std::size_t) { return i & ~std::size_t{1}; }
};
struct dup_imag_index {  // [1, 1, 3, 3, …]
    static constexpr std::size_t get(std::size_t i, std::size_t) { return i | 1; }
};
struct swap_pairs_index {  // [1, 0, 3, 2, …]
    static constexpr std::size_t get(std::size_t i, std::size_t) { return i ^ 1; }
};
struct expand_low_index {  // [0, 0, 1, 1, …]: first half, each twice
    static constexpr std::size_t get(std::size_t i, std::size_t) { return i / 2; }
};
struct expand_high_index {  // [n/2, n/2, …]: second half, each twice
    static constexpr std::size_t get(std::size_t i, std::size_t n) { return (n + i) / 2; }
};
struct even_lanes {  // true in the real lanes of pairs
    static constexpr bool get(std::size_t i, std::size_t) { return i % 2 == 0; }
};
template <class T>
struct sign_even_bits {  // sign bit set in the even (real) lanes
    static constexpr uint_of_t<T> get(std::size_t i, std::size_t) {
        return (i % 2 == 0) ? uint_of_t<T>{1} << (8 * sizeof(T) - 1) : 0;
    }
};
template <class T>
struct sign_odd_bits {  // sign bit set in the odd (imaginary) lanes
    static constexpr uint_of_t<T> get(std::size_t i, std::size_t) {
        return (i % 2 == 1) ? uint_of_t<T>{1} << (8 * sizeof(T) - 1) : 0;
    }
};

template <class G, class T, class A>
xsimd::batch<T, A> permute(const xsimd::batch<T, A>& x) noexcept {
    return xsimd::swizzle(x, xsimd::make_batch_constant<xsimd::batch<uint_of_t<T>, A>, G>());
}

template <class G, class T, class A>
xsimd::batch<T, A> bit_mask() noexcept {
    using ubatch = xsimd::batch<uint_of_t<T>, A>;
    return xsimd::bitwise_cast<xsimd::batch<T, A>>(ubatch(xsimd::make_batch_constant<ubatch, G>()));
}

// ---- generic (portable xsimd) versions ------------------------------------

template <class A, class T>
xsimd::batch<T, A> dup_real(const xsimd::batch<T, A>& x, xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return permute<dup_real_index>(x);
}
template <class A, class T>
xsimd::batch<T, A> dup_imag(const xsimd::batch<T, A>& x, xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return permute<dup_imag_index>(x);
}
template <class A, class T>
xsimd::batch<T, A> swap_pairs(const xsimd::batch<T, A>& x, xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return permute<swap_pairs_index>(x);
}
template <class A, class T>
xsimd::batch<T, A> fma(const xsimd::batch<T, A>& x, const xsimd::batch<T, A>& y, const xsimd::batch<T, A>& z,
                       xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return xsimd::fma(x, y, z);
}
template <class A, class T>
xsimd::batch<T, A> fms(const xsimd::batch<T, A>& x, const xsimd::batch<T, A>& y, const xsimd::batch<T, A>& z,
                       xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return xsimd::fms(x, y, z);
}
template <class A, class T>
xsimd::batch<T, A> fnma(const xsimd::batch<T, A>& x, const xsimd::batch<T, A>& y, const xsimd::batch<T, A>& z,
                        xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return xsimd::fnma(x, y, z);
}
template <class A, class T>
xsimd::batch<T, A> fmaddsub(const xsimd::batch<T, A>& x, const xsimd::batch<T, A>& y, const xsimd::batch<T, A>& z,
                            xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return xsimd::fma(x, y, z ^ bit_mask<sign_even_bits<T>, T, A>());
}
template <class A, class T>
xsimd::batch<T, A> fmsubadd(const xsimd::batch<T, A>& x, const xsimd::batch<T, A>& y, const xsimd::batch<T, A>& z,
                            xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return xsimd::fma(x, y, z ^ bit_mask<sign_odd_bits<T>, T, A>());
}
template <class A, class T>
xsimd::batch<T, A> expand_low(const xsimd::batch<T, A>& r, xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return permute<expand_low_index>(r);
}
template <class A, class T>
xsimd::batch<T, A> expand_high(const xsimd::batch<T, A>& r, xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return permute<expand_high_index>(r);
}
// Through memory: the generic arch has no two-register shuffle. Element order.
template <class A, class T>
cpair<xsimd::batch<T, A>> deinterleave(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b,
                                       xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    constexpr std::size_t w = xsimd::batch<T, A>::size;
    alignas(64) T in[2 * w];
    alignas(64) T re[w];
    alignas(64) T im[w];
    a.store_aligned(in);
    b.store_aligned(in + w);
    for (std::size_t i = 0; i < w; ++i) {
        re[i] = in[2 * i];
        im[i] = in[2 * i + 1];
    }
    return {xsimd::batch<T, A>::load_aligned(re), xsimd::batch<T, A>::load_aligned(im)};
}
template <class A, class T>
cpair<xsimd::batch<T, A>> interleave(const xsimd::batch<T, A>& re, const xsimd::batch<T, A>& im,
                                     xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    constexpr std::size_t w = xsimd::batch<T, A>::size;
    alignas(64) T out[2 * w];
    alignas(64) T r[w];
    alignas(64) T i[w];
    re.store_aligned(r);
    im.store_aligned(i);
    for (std::size_t k = 0; k < w; ++k) {
        out[2 * k] = r[k];
        out[2 * k + 1] = i[k];
    }
    return {xsimd::batch<T, A>::load_aligned(out), xsimd::batch<T, A>::load_aligned(out + w)};
}
template <class A, class T>
xsimd::batch<T, A> to_lane_order(const xsimd::batch<T, A>& r, xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return r;
}
template <class A, class T>
xsimd::batch<T, A> from_lane_order(const xsimd::batch<T, A>& r,
                                   xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return r;
}
template <class A, class T>
void stream_store(T* aligned_dst, const xsimd::batch<T, A>& x, xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    x.store_aligned(aligned_dst);
}
inline void stream_fence() noexcept {
#if XSIMD_WITH_SSE2
    _mm_sfence();  // make the non-temporal stores visible before returning
#endif
}

// ---- SSE2 ---------------------------------------------------------------------

#if XSIMD_WITH_SSE2
template <class A>
cpair<xsimd::batch<float, A>> deinterleave(const xsimd::batch<float, A>& a, const xsimd::batch<float, A>& b,
                                           xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    return {_mm_shuffle_ps(a, b, 0x88), _mm_shuffle_ps(a, b, 0xDD)};
}
template <class A>
cpair<xsimd::batch<double, A>> deinterleave(const xsimd::batch<double, A>& a, const xsimd::batch<double, A>& b,
                                            xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    return {_mm_unpacklo_pd(a, b), _mm_unpackhi_pd(a, b)};
}
template <class A>
cpair<xsimd::batch<float, A>> interleave(const xsimd::batch<float, A>& re, const xsimd::batch<float, A>& im,
                                         xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    return {_mm_unpacklo_ps(re, im), _mm_unpackhi_ps(re, im)};
}
template <class A>
cpair<xsimd::batch<double, A>> interleave(const xsimd::batch<double, A>& re, const xsimd::batch<double, A>& im,
                                          xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    return {_mm_unpacklo_pd(re, im), _mm_unpackhi_pd(re, im)};
}
template <class A>
void stream_store(float* dst, const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    _mm_stream_ps(dst, x);
}
template <class A>
void stream_store(double* dst, const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    _mm_stream_pd(dst, x);
}
#endif

// ---- AVX / AVX2 ------------------------------------------------------------------

#if XSIMD_WITH_AVX
template <class A>
xsimd::batch<float, A> dup_real(const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    return _mm256_moveldup_ps(x);
}
template <class A>
xsimd::batch<double, A> dup_real(const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    return _mm256_movedup_pd(x);
}
template <class A>
xsimd::batch<float, A> dup_imag(const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    return _mm256_movehdup_ps(x);
}
template <class A>
xsimd::batch<double, A> dup_imag(const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    return _mm256_permute_pd(x, 0xF);
}
template <class A>
xsimd::batch<float, A> swap_pairs(const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    return _mm256_permute_ps(x, 0xB1);
}
template <class A>
xsimd::batch<double, A> swap_pairs(const xsimd::batch<double, A>& x,
                                   xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    return _mm256_permute_pd(x, 0x5);
}
// dst needs only 16-byte alignment: glibc hands out large blocks 16-byte
// aligned, and a 32-byte register split into two 16-byte streams keeps the
// write-combining benefit (rows of a block then all stream, with no partial
// head per row).
template <class A>
void stream_store(float* dst, const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    const __m256 r = x;
    if (reinterpret_cast<std::uintptr_t>(dst) % 32 == 0) {
        _mm256_stream_ps(dst, r);
    } else {
        _mm_stream_ps(dst, _mm256_castps256_ps128(r));
        _mm_stream_ps(dst + 4, _mm256_extractf128_ps(r, 1));
    }
}
template <class A>
void stream_store(double* dst, const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
    const __m256d r = x;
    if (reinterpret_cast<std::uintptr_t>(dst) % 32 == 0) {
        _mm256_stream_pd(dst, r);
    } else {
        _mm_stream_pd(dst, _mm256_castpd256_pd128(r));
        _mm_stream_pd(dst + 2, _mm256_extractf128_pd(r, 1));
    }
}
#endif

#if XSIMD_WITH_AVX2
// Per 128-bit lane, as on SSE2: lane order [0, 1, 4, 5, 2, 3, 6, 7] (float),
// [0, 2, 1, 3] (double). (Plain AVX takes the generic versions: element order.)
template <class A>
cpair<xsimd::batch<float, A>> deinterleave(const xsimd::batch<float, A>& a, const xsimd::batch<float, A>& b,
                                           xsimd::kernel::requires_arch<xsimd::avx2>) noexcept {
    return {_mm256_shuffle_ps(a, b, 0x88), _mm256_shuffle_ps(a, b, 0xDD)};
}
template <class A>
cpair<xsimd::batch<double, A>> deinterleave(const xsimd::batch<double, A>& a, const xsimd::batch<double, A>& b,
                                            xsimd::kernel::requires_arch<xsimd::avx2>) noexcept {
    return {_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b)};
}
template <class A>
cpair<xsimd::batch<float, A>> interleave(const xsimd::batch<float, A>& re, const xsimd::batch<float, A>& im,
                                         xsimd::kernel::requires_arch<xsimd::avx2>) noexcept {
    return {_mm256_unpacklo_ps(re, im), _mm256_unpackhi_ps(re, im)};
}
template <class A>
cpair<xsimd::batch<double, A>> interleave(const xsimd::batch<double, A>& re, const xsimd::batch<double, A>& im,
                                          xsimd::kernel::requires_arch<xsimd::avx2>) noexcept {
    return {_mm256_unpacklo_pd(re, im), _mm256_unpackhi_pd(re, im)};
}
// The lane order of deinterleave is an involution on 256-bit registers:
// 64-bit chunks (c0, c1, c2, c3) → (c0, c2, c1, c3) for float, elements
// likewise for double.
template <class A>
xsimd::batch<float, A> to_lane_order(const xsimd::batch<float, A>& r, xsimd::kernel::requires_arch<xsimd::avx2>) noexcept {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(r), 0xD8));
}
template <class A>
xsimd::batch<double, A> to_lane_order(const xsimd::batch<double, A>& r,
                                      xsimd::kernel::requires_arch<xsimd::avx2>) noexcept {
    return _mm256_permute4x64_pd(r, 0xD8);
}
template <class A, class T>
xsimd::batch<T, A> from_lane_order(const xsimd::batch<T, A>& r, xsimd::kernel::requires_arch<xsimd::avx2>) noexcept {
    return to_lane_order(r, A{});
}
#endif

// ---- FMA3 + AVX2 -------------------------------------------------------------------

#if XSIMD_WITH_FMA3_AVX2
template <class A>
xsimd::batch<float, A> fmaddsub(const xsimd::batch<float, A>& x, const xsimd::batch<float, A>& y,
                                const xsimd::batch<float, A>& z,
                                xsimd::kernel::requires_arch<xsimd::fma3<xsimd::avx2>>) noexcept {
    return _mm256_fmaddsub_ps(x, y, z);
}
template <class A>
xsimd::batch<double, A> fmaddsub(const xsimd::batch<double, A>& x, const xsimd::batch<double, A>& y,
                                 const xsimd::batch<double, A>& z,
                                 xsimd::kernel::requires_arch<xsimd::fma3<xsimd::avx2>>) noexcept {
    return _mm256_fmaddsub_pd(x, y, z);
}
template <class A>
xsimd::batch<float, A> fmsubadd(const xsimd::batch<float, A>& x, const xsimd::batch<float, A>& y,
                                const xsimd::batch<float, A>& z,
                                xsimd::kernel::requires_arch<xsimd::fma3<xsimd::avx2>>) noexcept {
    return _mm256_fmsubadd_ps(x, y, z);
}
template <class A>
xsimd::batch<double, A> fmsubadd(const xsimd::batch<double, A>& x, const xsimd::batch<double, A>& y,
                                 const xsimd::batch<double, A>& z,
                                 xsimd::kernel::requires_arch<xsimd::fma3<xsimd::avx2>>) noexcept {
    return _mm256_fmsubadd_pd(x, y, z);
}
#endif

// ---- AVX-512F -------------------------------------------------------------------------

#if XSIMD_WITH_AVX512F
// The masked forms with x as the pass-through source: the unmasked ones start
// from _mm512_undefined_*, which GCC 12 flags as maybe-uninitialized.
template <class A>
xsimd::batch<float, A> dup_real(const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_moveldup_ps(x);
}
template <class A>
xsimd::batch<double, A> dup_real(const xsimd::batch<double, A>& x,
                                 xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_movedup_pd(x);
}
template <class A>
xsimd::batch<float, A> dup_imag(const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_movehdup_ps(x);
}
template <class A>
xsimd::batch<double, A> dup_imag(const xsimd::batch<double, A>& x,
                                 xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_mask_permute_pd(x, 0xFF, x, 0xFF);
}
template <class A>
xsimd::batch<float, A> swap_pairs(const xsimd::batch<float, A>& x,
                                  xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_mask_permute_ps(x, 0xFFFF, x, 0xB1);
}
template <class A>
xsimd::batch<double, A> swap_pairs(const xsimd::batch<double, A>& x,
                                   xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_mask_permute_pd(x, 0xFF, x, 0x55);
}
template <class A>
xsimd::batch<float, A> fma(const xsimd::batch<float, A>& x, const xsimd::batch<float, A>& y,
                           const xsimd::batch<float, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmadd_ps(x, y, z);
}
template <class A>
xsimd::batch<double, A> fma(const xsimd::batch<double, A>& x, const xsimd::batch<double, A>& y,
                            const xsimd::batch<double, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmadd_pd(x, y, z);
}
template <class A>
xsimd::batch<float, A> fms(const xsimd::batch<float, A>& x, const xsimd::batch<float, A>& y,
                           const xsimd::batch<float, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmsub_ps(x, y, z);
}
template <class A>
xsimd::batch<double, A> fms(const xsimd::batch<double, A>& x, const xsimd::batch<double, A>& y,
                            const xsimd::batch<double, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmsub_pd(x, y, z);
}
template <class A>
xsimd::batch<float, A> fnma(const xsimd::batch<float, A>& x, const xsimd::batch<float, A>& y,
                            const xsimd::batch<float, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fnmadd_ps(x, y, z);
}
template <class A>
xsimd::batch<double, A> fnma(const xsimd::batch<double, A>& x, const xsimd::batch<double, A>& y,
                             const xsimd::batch<double, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fnmadd_pd(x, y, z);
}
template <class A>
xsimd::batch<float, A> fmaddsub(const xsimd::batch<float, A>& x, const xsimd::batch<float, A>& y,
                                const xsimd::batch<float, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmaddsub_ps(x, y, z);
}
template <class A>
xsimd::batch<double, A> fmaddsub(const xsimd::batch<double, A>& x, const xsimd::batch<double, A>& y,
                                 const xsimd::batch<double, A>& z,
                                 xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmaddsub_pd(x, y, z);
}
template <class A>
xsimd::batch<float, A> fmsubadd(const xsimd::batch<float, A>& x, const xsimd::batch<float, A>& y,
                                const xsimd::batch<float, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmsubadd_ps(x, y, z);
}
template <class A>
xsimd::batch<double, A> fmsubadd(const xsimd::batch<double, A>& x, const xsimd::batch<double, A>& y,
                                 const xsimd::batch<double, A>& z,
                                 xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmsubadd_pd(x, y, z);
}
// Element order, with one two-source permute per register (vpermt2ps/pd).
template <class A>
cpair<xsimd::batch<float, A>> deinterleave(const xsimd::batch<float, A>& a, const xsimd::batch<float, A>& b,
                                           xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    return {_mm512_permutex2var_ps(a, even, b), _mm512_permutex2var_ps(a, odd, b)};
}
template <class A>
cpair<xsimd::batch<double, A>> deinterleave(const xsimd::batch<double, A>& a, const xsimd::batch<double, A>& b,
                                            xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    const __m512i odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
    return {_mm512_permutex2var_pd(a, even, b), _mm512_permutex2var_pd(a, odd, b)};
}
template <class A>
cpair<xsimd::batch<float, A>> interleave(const xsimd::batch<float, A>& re, const xsimd::batch<float, A>& im,
                                         xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    const __m512i low = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i high = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    return {_mm512_permutex2var_ps(re, low, im), _mm512_permutex2var_ps(re, high, im)};
}
template <class A>
cpair<xsimd::batch<double, A>> interleave(const xsimd::batch<double, A>& re, const xsimd::batch<double, A>& im,
                                          xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    const __m512i low = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
    const __m512i high = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
    return {_mm512_permutex2var_pd(re, low, im), _mm512_permutex2var_pd(re, high, im)};
}
template <class A, class T>
xsimd::batch<T, A> to_lane_order(const xsimd::batch<T, A>& r, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return r;
}
template <class A, class T>
xsimd::batch<T, A> from_lane_order(const xsimd::batch<T, A>& r,
                                   xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return r;
}
template <class A>
void stream_store(float* dst, const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    _mm512_stream_ps(dst, x);
}
template <class A>
void stream_store(double* dst, const xsimd::batch<double, A>& x,
                  xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    _mm512_stream_pd(dst, x);
}
#endif

// ---- derived ---------------------------------------------------------------------------

/// The alignment stream_store needs: a register's, except 32-byte (AVX)
/// registers, which it splits into two 16-byte streams when it must.
template <class T, class A>
inline constexpr std::size_t stream_alignment = sizeof(xsimd::batch<T, A>) == 32 ? 16 : sizeof(xsimd::batch<T, A>);

/// Streams x to p when `stream` is set and p is aligned for it, else stores
/// it normally: correct for any address.
template <class A, class T>
void stream_or_store(T* p, const xsimd::batch<T, A>& x, bool stream) noexcept {
    if (stream && reinterpret_cast<std::uintptr_t>(p) % stream_alignment<T, A> == 0)
        stream_store(p, x, A{});
    else
        x.store_unaligned(p);
}

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::isa
