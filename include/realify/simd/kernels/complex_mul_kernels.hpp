// Kernel templates behind realify/simd/complex_mul.hpp, templated on the
// xsimd architecture tag. They are instantiated only in realify_simd's
// per-architecture translation units (src/simd/arch_*.cpp), each compiled with
// that architecture's flags: xsimd 8.1 enables an arch's intrinsics only when
// the compiler targets it (XSIMD_WITH_AVX2 follows __AVX2__).
//
// Data stays interleaved ([re, im, re, im, …] in one register). One complex
// multiply of a full register is the Eigen/VOLK sequence
//     t = dup_imag(a) · swap_pairs(b)          // [ai·bi, ai·br]
//     r = fmaddsub(dup_real(a), b, t)          // [ar·br − ai·bi, ar·bi + ai·br]
// three in-lane shuffles and two arithmetic instructions, no deinterleave
// (xsimd's batch<std::complex> splits re/im on every load and store).
//
// The helpers are an overload set on the arch tag, so the most specific one
// wins: the generic versions are portable xsimd (swizzle with a batch_constant,
// fma); AVX and AVX-512 get in-lane movehdup/moveldup/permute overloads
// because xsimd 8.1 lowers an AVX2 swizzle to the cross-lane vpermps, and FMA
// arches get the single fmaddsub instruction.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "realify/simd/kernels/arch_namespace.hpp"

namespace realify::simd::detail {

// Strict-policy fix-ups: for each of the n results, if both parts are NaN
// (the only case std::complex's operator* recovers, C99 Annex G), recompute it
// with std::complex from the inputs. Defined in a translation unit compiled
// WITHOUT architecture flags (src/simd/strict.cpp), so the std::complex code
// they instantiate can never be an AVX-512 copy picked by the linker.
void fix_mul(const std::complex<float>* a, const std::complex<float>* b, std::complex<float>* r,
             std::size_t n) noexcept;
void fix_mul(const std::complex<double>* a, const std::complex<double>* b, std::complex<double>* r,
             std::size_t n) noexcept;
void fix_mul_conj(const std::complex<float>* a, const std::complex<float>* b,
                  std::complex<float>* r, std::size_t n) noexcept;
void fix_mul_conj(const std::complex<double>* a, const std::complex<double>* b,
                  std::complex<double>* r, std::size_t n) noexcept;
void fix_mul_scalar(const std::complex<float>* a, std::complex<float> s, std::complex<float>* r,
                    std::size_t n) noexcept;
void fix_mul_scalar(const std::complex<double>* a, std::complex<double> s,
                    std::complex<double>* r, std::size_t n) noexcept;
void fix_mul_add(const std::complex<float>* a, const std::complex<float>* b,
                 const std::complex<float>* c, std::complex<float>* r, std::size_t n) noexcept;
void fix_mul_add(const std::complex<double>* a, const std::complex<double>* b,
                 const std::complex<double>* c, std::complex<double>* r, std::size_t n) noexcept;

}  // namespace realify::simd::detail

// Everything below lives in an inline namespace named after the instruction
// set of the including TU (realify/simd/kernels/arch_namespace.hpp).

namespace realify::simd::kernels {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

template <class T>
using uint_of_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// Lane-index generators for xsimd::make_batch_constant.
struct dup_real_index {  // [0, 0, 2, 2, …]: the real part into both lanes of a pair
    static constexpr std::size_t get(std::size_t i, std::size_t) { return i & ~std::size_t{1}; }
};
struct dup_imag_index {  // [1, 1, 3, 3, …]
    static constexpr std::size_t get(std::size_t i, std::size_t) { return i | 1; }
};
struct swap_pairs_index {  // [1, 0, 3, 2, …]
    static constexpr std::size_t get(std::size_t i, std::size_t) { return i ^ 1; }
};
struct expand_low_index {  // [0, 0, 1, 1, …]: first half of a real array, each twice
    static constexpr std::size_t get(std::size_t i, std::size_t) { return i / 2; }
};
struct expand_high_index {  // [n/2, n/2, …]: second half, each twice
    static constexpr std::size_t get(std::size_t i, std::size_t n) { return (n + i) / 2; }
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
// Even lanes x·y − z, odd lanes x·y + z.
template <class A, class T>
xsimd::batch<T, A> fmaddsub(const xsimd::batch<T, A>& x, const xsimd::batch<T, A>& y,
                            const xsimd::batch<T, A>& z, xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return xsimd::fma(x, y, z ^ bit_mask<sign_even_bits<T>, T, A>());
}
// Even lanes x·y + z, odd lanes x·y − z.
template <class A, class T>
xsimd::batch<T, A> fmsubadd(const xsimd::batch<T, A>& x, const xsimd::batch<T, A>& y,
                            const xsimd::batch<T, A>& z, xsimd::kernel::requires_arch<xsimd::generic>) noexcept {
    return xsimd::fma(x, y, z ^ bit_mask<sign_odd_bits<T>, T, A>());
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

// ---- architecture-specific overloads --------------------------------------

#if XSIMD_WITH_SSE2
template <class A>
void stream_store(float* dst, const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    _mm_stream_ps(dst, x);
}
template <class A>
void stream_store(double* dst, const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::sse2>) noexcept {
    _mm_stream_pd(dst, x);
}
#endif

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
xsimd::batch<double, A> swap_pairs(const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx>) noexcept {
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

#if XSIMD_WITH_AVX512F
template <class A>
xsimd::batch<float, A> dup_real(const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_moveldup_ps(x);
}
template <class A>
xsimd::batch<double, A> dup_real(const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_movedup_pd(x);
}
template <class A>
xsimd::batch<float, A> dup_imag(const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_movehdup_ps(x);
}
template <class A>
xsimd::batch<double, A> dup_imag(const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_permute_pd(x, 0xFF);
}
template <class A>
xsimd::batch<float, A> swap_pairs(const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_permute_ps(x, 0xB1);
}
template <class A>
xsimd::batch<double, A> swap_pairs(const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_permute_pd(x, 0x55);
}
template <class A>
xsimd::batch<float, A> fmaddsub(const xsimd::batch<float, A>& x, const xsimd::batch<float, A>& y,
                                const xsimd::batch<float, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmaddsub_ps(x, y, z);
}
template <class A>
xsimd::batch<double, A> fmaddsub(const xsimd::batch<double, A>& x, const xsimd::batch<double, A>& y,
                                 const xsimd::batch<double, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmaddsub_pd(x, y, z);
}
template <class A>
xsimd::batch<float, A> fmsubadd(const xsimd::batch<float, A>& x, const xsimd::batch<float, A>& y,
                                const xsimd::batch<float, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmsubadd_ps(x, y, z);
}
template <class A>
xsimd::batch<double, A> fmsubadd(const xsimd::batch<double, A>& x, const xsimd::batch<double, A>& y,
                                 const xsimd::batch<double, A>& z, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    return _mm512_fmsubadd_pd(x, y, z);
}
template <class A>
void stream_store(float* dst, const xsimd::batch<float, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    _mm512_stream_ps(dst, x);
}
template <class A>
void stream_store(double* dst, const xsimd::batch<double, A>& x, xsimd::kernel::requires_arch<xsimd::avx512f>) noexcept {
    _mm512_stream_pd(dst, x);
}
#endif

// ---- the kernels ------------------------------------------------------------

/// All kernels for one scalar type T (float/double) and one xsimd arch A.
/// Pointers are to interleaved reals; n counts reals (twice the complex count).
/// `stream` asks for non-temporal stores (used when out is suitably aligned);
/// `strict` enables the std::complex special-value fix-up.
template <class T, class A>
struct complex_mul_kernels {
    using batch = xsimd::batch<T, A>;
    using complex = std::complex<T>;
    static constexpr std::size_t width = batch::size;  // reals per register
    // The alignment stream_store needs: a register's, except 32-byte (AVX)
    // registers, which it splits into two 16-byte streams when it must.
    static constexpr std::size_t stream_alignment = sizeof(batch) == 32 ? 16 : sizeof(batch);

    static batch load(const T* p) noexcept { return batch::load_unaligned(p); }
    static const complex* as_complex(const T* p) noexcept { return reinterpret_cast<const complex*>(p); }

    static batch product(const batch& a, const batch& b) noexcept {
        return fmaddsub(dup_real(a, A{}), b, dup_imag(a, A{}) * swap_pairs(b, A{}), A{});
    }
    // a · conj(b) = (br·ar + bi·ai, br·ai − bi·ar)
    static batch product_conj(const batch& a, const batch& b) noexcept {
        return fmsubadd(dup_real(b, A{}), a, dup_imag(b, A{}) * swap_pairs(a, A{}), A{});
    }

    // Runs fix(tmp) on a spilled copy of r when some lane is NaN: the rare
    // slow path of the strict policy.
    template <class Fix>
    static batch strict_fix(const batch& r, Fix&& fix) noexcept {
        if (!xsimd::any(xsimd::isnan(r))) return r;
        alignas(64) T tmp[width];
        r.store_aligned(tmp);
        fix(reinterpret_cast<complex*>(tmp));
        return batch::load_aligned(tmp);
    }

    // Copies count reals to a zero-padded scratch row (tails and heads).
    static const T* pad(const T* src, std::size_t count, T* scratch) noexcept {
        std::memcpy(scratch, src, count * sizeof(T));
        return scratch;
    }

    // Each op: `step` reals of output per call, operator()(i, store) computes
    // and stores out[i, i + step), rebase() points the op at zero-padded
    // copies of its inputs for a partial block.
    template <bool Strict>
    struct mul_op {
        static constexpr std::size_t step = width;
        static constexpr std::size_t inputs = 2;
        const T* a;
        const T* b;
        template <class Store>
        void operator()(std::size_t i, Store& store) const noexcept {
            batch r = product(load(a + i), load(b + i));
            if constexpr (Strict)
                r = strict_fix(r, [&](complex* res) { detail::fix_mul(as_complex(a + i), as_complex(b + i), res, width / 2); });
            store(i, r);
        }
        mul_op rebase(std::size_t i, std::size_t count, T (*scratch)[step]) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(b + i, count, scratch[1])};
        }
    };

    template <bool Strict>
    struct mul_conj_op {
        static constexpr std::size_t step = width;
        static constexpr std::size_t inputs = 2;
        const T* a;
        const T* b;
        template <class Store>
        void operator()(std::size_t i, Store& store) const noexcept {
            batch r = product_conj(load(a + i), load(b + i));
            if constexpr (Strict)
                r = strict_fix(r, [&](complex* res) { detail::fix_mul_conj(as_complex(a + i), as_complex(b + i), res, width / 2); });
            store(i, r);
        }
        mul_conj_op rebase(std::size_t i, std::size_t count, T (*scratch)[step]) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(b + i, count, scratch[1])};
        }
    };

    // row · x with the row's parts already duplicated into two patterns,
    // re = [rr, rr, …] and im = [ri, ri, …]: one in-lane shuffle, one
    // multiply and one fused multiply-add/sub per register (the RoPE kernel's
    // sequence), where mul_op spends three shuffles. The strict fix-up sees
    // the original row, as a · row.
    template <bool Strict>
    struct row_times_op {
        static constexpr std::size_t step = width;
        static constexpr std::size_t inputs = 4;
        const T* x;
        const T* re;
        const T* im;
        const T* row;  // the row itself, for the strict fix-up only
        template <class Store>
        void operator()(std::size_t i, Store& store) const noexcept {
            const batch v = load(x + i);
            batch r = fmaddsub(load(re + i), v, load(im + i) * swap_pairs(v, A{}), A{});
            if constexpr (Strict)
                r = strict_fix(r, [&](complex* res) { detail::fix_mul(as_complex(x + i), as_complex(row + i), res, width / 2); });
            store(i, r);
        }
        row_times_op rebase(std::size_t i, std::size_t count, T (*scratch)[step]) const noexcept {
            return {pad(x + i, count, scratch[0]), pad(re + i, count, scratch[1]), pad(im + i, count, scratch[2]),
                    pad(row + i, count, scratch[3])};
        }
    };

    // a · r with r real: one register of r covers two registers of output.
    struct mul_real_op {
        static constexpr std::size_t step = 2 * width;
        static constexpr std::size_t inputs = 2;
        const T* a;
        const T* r;  // r[i / 2] scales the complex number at real offset i
        template <class Store>
        void operator()(std::size_t i, Store& store) const noexcept {
            const batch rr = load(r + i / 2);
            store(i, load(a + i) * permute<expand_low_index>(rr));
            store(i + width, load(a + i + width) * permute<expand_high_index>(rr));
        }
        mul_real_op rebase(std::size_t i, std::size_t count, T (*scratch)[step]) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(r + i / 2, count / 2, scratch[1])};
        }
    };

    template <bool Strict>
    struct mul_scalar_op {
        static constexpr std::size_t step = width;
        static constexpr std::size_t inputs = 1;
        const T* a;
        batch s_re;  // broadcast real part of the scalar
        batch s_im;
        complex s;
        template <class Store>
        void operator()(std::size_t i, Store& store) const noexcept {
            const batch va = load(a + i);
            batch r = fmaddsub(s_re, va, s_im * swap_pairs(va, A{}), A{});
            if constexpr (Strict)
                r = strict_fix(r, [&](complex* res) { detail::fix_mul_scalar(as_complex(a + i), s, res, width / 2); });
            store(i, r);
        }
        mul_scalar_op rebase(std::size_t i, std::size_t count, T (*scratch)[step]) const noexcept {
            return {pad(a + i, count, scratch[0]), s_re, s_im, s};
        }
    };

    template <bool Strict>
    struct mul_add_op {
        static constexpr std::size_t step = width;
        static constexpr std::size_t inputs = 3;
        const T* a;
        const T* b;
        const T* c;
        template <class Store>
        void operator()(std::size_t i, Store& store) const noexcept {
            batch r = product(load(a + i), load(b + i)) + load(c + i);
            if constexpr (Strict)
                r = strict_fix(r, [&](complex* res) {
                    detail::fix_mul_add(as_complex(a + i), as_complex(b + i), as_complex(c + i), res, width / 2);
                });
            store(i, r);
        }
        mul_add_op rebase(std::size_t i, std::size_t count, T (*scratch)[step]) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(b + i, count, scratch[1]), pad(c + i, count, scratch[2])};
        }
    };

    struct unaligned_store {
        T* out;
        void operator()(std::size_t i, const batch& r) const noexcept { r.store_unaligned(out + i); }
    };
    struct streaming_store {
        T* out;  // out + i is stream_alignment-aligned for every i the driver passes
        void operator()(std::size_t i, const batch& r) const noexcept { stream_store(out + i, r, A{}); }
    };
    struct scratch_store {
        T* out;
        void operator()(std::size_t i, const batch& r) const noexcept { r.store_aligned(out + i); }
    };

    // A partial block [i, i + count): computed on zero-padded copies with the
    // same instructions as full blocks, so a result never depends on where in
    // the array (or at which alignment) an element sits.
    template <class Op>
    static void partial(const Op& op, std::size_t i, std::size_t count, T* out) noexcept {
        alignas(64) T scratch[Op::inputs][Op::step] = {};
        alignas(64) T result[Op::step];
        const Op local = op.rebase(i, count, scratch);
        scratch_store store{result};
        local(0, store);
        std::memcpy(out + i, result, count * sizeof(T));
    }

    // `fence`: end a streaming run with its store fence (callers that run many
    // rows in a row fence once, after the last one).
    template <class Op>
    static void run(const Op& op, T* out, std::size_t n, bool stream, bool fence = true) noexcept {
        constexpr std::size_t step = Op::step;
        std::size_t i = 0;
        const auto address = reinterpret_cast<std::uintptr_t>(out);
        // Streaming stores need aligned destinations (stream_alignment); reach
        // alignment with a partial block first. A complex array not even
        // aligned to one complex number can never get there: it keeps ordinary
        // stores.
        if (stream && address % (2 * sizeof(T)) == 0) {
            constexpr std::size_t alignment = stream_alignment;
            std::size_t head = ((alignment - address % alignment) % alignment) / sizeof(T);
            head = head < n ? head : n;
            if (head != 0) partial(op, 0, head, out);
            i = head;
            streaming_store store{out};
            for (; i + step <= n; i += step) op(i, store);
            if (fence) stream_fence();
        }
        unaligned_store store{out};
        for (; i + 2 * step <= n; i += 2 * step) {
            op(i, store);
            op(i + step, store);
        }
        for (; i + step <= n; i += step) op(i, store);
        if (i < n) partial(op, i, n - i, out);
    }

    // ---- entry points (the dispatch table points here) ----

    // run() with the op of the policy (Op<true> fixes special values up as
    // std::complex does); `in` initialises the op.
    template <template <bool> class Op, class... In>
    static void run_policy(bool strict, T* out, std::size_t n, bool stream, In... in) noexcept {
        if (strict)
            run(Op<true>{in...}, out, n, stream);
        else
            run(Op<false>{in...}, out, n, stream);
    }

    static void mul(const T* a, const T* b, T* out, std::size_t n, bool stream, bool strict) noexcept {
        run_policy<mul_op>(strict, out, n, stream, a, b);
    }
    static void mul_conj(const T* a, const T* b, T* out, std::size_t n, bool stream, bool strict) noexcept {
        run_policy<mul_conj_op>(strict, out, n, stream, a, b);
    }

    // `rows` rows of len reals, n apart, through op (whose x is the first row).
    // Rows of whole registers with ordinary stores (RoPE's heads) are the
    // tight loop itself: run()'s per-call alignment and tail handling would
    // cost as much as a short row's arithmetic. The instructions per element
    // are the same either way.
    template <class Op>
    static void rows_times(Op op, T* out, std::size_t n, std::size_t len, std::size_t rows, bool stream) noexcept {
        const T* first = op.x;
        const bool tight = !stream && len % width == 0;
        for (std::size_t r = 0; r < rows; ++r) {
            op.x = first + r * n;  // computed per row: never a pointer past the arrays' ends
            T* row_out = out + r * n;
            if (tight) {
                unaligned_store store{row_out};
                for (std::size_t i = 0; i < len; i += width) op(i, store);
            } else {
                run(op, row_out, len, stream, false);
            }
        }
    }

    // Reals of the row patterns held at once: 2 × 4 KiB of float on the stack.
    static constexpr std::size_t pattern_reals = 1024;

    // `blocks` blocks of `repeats` rows of n reals; every row of block b times
    // row b of `rows` (RoPE: the heads of position b times that position's
    // frequencies). Per block the row's parts are duplicated once (in chunks
    // of pattern_reals), then every row runs row_times_op; a streaming call is
    // fenced once, after the last block. Every element is computed the same
    // way whatever n, repeats, blocks or the alignment.
    static void mul_rows(const T* a, const T* rows, T* out, std::size_t n, std::size_t repeats, std::size_t blocks,
                         bool stream, bool strict) noexcept {
        alignas(64) T re[pattern_reals];
        alignas(64) T im[pattern_reals];
        for (std::size_t b = 0; b < blocks; ++b) {
            const T* row = rows + b * n;
            const std::size_t block = b * repeats * n;
            for (std::size_t start = 0; start < n; start += pattern_reals) {
                const std::size_t len = n - start < pattern_reals ? n - start : pattern_reals;
                std::size_t j = 0;
                for (; j + width <= len; j += width) {
                    const batch r = load(row + start + j);
                    dup_real(r, A{}).store_aligned(re + j);
                    dup_imag(r, A{}).store_aligned(im + j);
                }
                for (; j < len; j += 2) {
                    re[j] = re[j + 1] = row[start + j];
                    im[j] = im[j + 1] = row[start + j + 1];
                }
                const T* x = a + block + start;
                T* o = out + block + start;
                if (strict)
                    rows_times(row_times_op<true>{x, re, im, row + start}, o, n, len, repeats, stream);
                else
                    rows_times(row_times_op<false>{x, re, im, row + start}, o, n, len, repeats, stream);
            }
        }
        if (stream) stream_fence();
    }
    static void mul_real(const T* a, const T* r, T* out, std::size_t n, bool stream) noexcept {
        run(mul_real_op{a, r}, out, n, stream);
    }
    static void mul_scalar(const T* a, complex s, T* out, std::size_t n, bool stream, bool strict) noexcept {
        run_policy<mul_scalar_op>(strict, out, n, stream, a, batch(s.real()), batch(s.imag()), s);
    }
    static void mul_add(const T* a, const T* b, const T* c, T* out, std::size_t n, bool stream,
                        bool strict) noexcept {
        run_policy<mul_add_op>(strict, out, n, stream, a, b, c);
    }
};

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::kernels
