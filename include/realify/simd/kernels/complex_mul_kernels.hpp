// Kernel templates behind realify/simd/complex_mul.hpp (the multiply family:
// mul, mul_conj, mul_real, mul_scalar, mul_add, mul_rows, mul_block_rows),
// templated on the xsimd architecture tag. They are instantiated only in
// realify_simd's per-instruction-set translation units (src/simd/isa_*.cpp),
// each compiled with that instruction set's flags: xsimd 8.1 enables an
// arch's intrinsics only when the compiler targets it.
//
// Data stays interleaved ([re, im, re, im, …] in one register). The product
// of a register of pairs is element<op::mul>'s batch form (Eigen's and VOLK's
// three in-lane shuffles, a multiply and a fused multiply-add/sub), on the
// shared primitives of realify/simd/kernels/primitives.hpp; the loop is the
// shared driver (realify/simd/kernels/driver.hpp).
//
// Special values: a register with a non-finite lane has those lanes redone by
// the scalar form (the plain formula, compiled for the baseline), so the fast
// policy gives the same inf/NaN results on every instruction set; the strict
// policy then recomputes the lanes that are NaN in both parts with
// std::complex.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "realify/kernels/arithmetic.hpp"
#include "realify/simd/kernels/driver.hpp"
#include "realify/simd/kernels/primitives.hpp"
#include "realify/simd/kernels/scalar_kernels.hpp"
#include "realify/simd/kernels/vocabulary.hpp"

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

// ---- the kernels ------------------------------------------------------------

/// All kernels for one scalar type T (float/double) and one xsimd arch A.
/// Pointers are to interleaved reals; n counts reals (twice the complex count).
/// `stream` asks for non-temporal stores (used when out is suitably aligned);
/// `strict` enables the std::complex special-value fix-up.
template <class T, class A>
struct complex_mul_kernels {
    using V = vec<T, A>;
    using batch = typename V::batch;
    using mask = typename V::mask;
    using complex = std::complex<T>;
    using drive = driver<T, A>;
    using mul_kernel = kernel::element<op::mul>;
    static constexpr std::size_t width = batch::size;  // reals per register

    static batch load(const T* p) noexcept { return batch::load_unaligned(p); }
    static const complex* as_complex(const T* p) noexcept { return reinterpret_cast<const complex*>(p); }
    static const T* pad(const T* src, std::size_t count, T* scratch) noexcept { return drive::pad(src, count, scratch); }

    // a · conj(b) = (br·ar + bi·ai, br·ai − bi·ar)
    static batch product_conj(const batch& a, const batch& b) noexcept {
        return V::fmsubadd(V::dup_real(b), a, V::dup_imag(b) * V::swap_pairs(a));
    }

    /// The special-value fix-ups of a register r = fmaddsub(x, y, t) of
    /// results. fast(k, pair) recomputes pair k (of width/2) when a lane of it
    /// is one the scalar form must redo (element<op::mul>::redo_lanes: r not
    /// finite, or x·y overflowing on its own); with Strict, strict(pairs) then
    /// recomputes the pairs that are NaN in both parts as std::complex does.
    /// Before the store, so in place is safe.
    template <bool Strict, class Fast, class StrictFix>
    [[gnu::always_inline]] static batch fix(const batch& r, const batch& x, const batch& y, Fast&& fast,
                                            StrictFix&& strict) noexcept {
        const auto redo = mul_kernel::redo_lanes<V>(r, x, y);
        if (!V::any(redo)) [[likely]] return r;
        return redo_pairs<Strict>(r, redo, fast, strict);
    }
    // Out of line, so that the hot loop around fix() stays small enough to inline.
    template <bool Strict, class Fast, class StrictFix>
    [[gnu::noinline, gnu::cold]] static batch redo_pairs(const batch& r, const mask& redo, Fast& fast,
                                                         StrictFix& strict) noexcept {
        alignas(64) T tmp[width];
        alignas(64) T flagged[width];
        r.store_aligned(tmp);
        V::select(redo, batch(T(1)), batch(T(0))).store_aligned(flagged);
        for (std::size_t k = 0; k < width / 2; ++k)
            if (flagged[2 * k] != T(0) || flagged[2 * k + 1] != T(0)) fast(k, tmp + 2 * k);
        if constexpr (Strict) strict(reinterpret_cast<complex*>(tmp));
        return batch::load_aligned(tmp);
    }
    /// The plain formula of a · b for one pair, compiled for the baseline.
    static void plain_product(const T* a, const T* b, T* out) noexcept {
        detail::scalar_binary<elementwise_op::mul, operand_kind::complex, operand_kind::complex, T>(
            a, false, b, false, out, 1, nullptr, false);
    }

    // Each op: `step` reals of output per call, operator()(i, store) computes
    // and stores out[i, i + step), rebase() points the op at zero-padded
    // copies of its inputs for a partial block.
    template <bool Strict>
    struct mul_op {
        static constexpr std::size_t step = width;
        static constexpr std::size_t element_reals = 2;
        static constexpr std::size_t unroll = 2;
        static constexpr std::size_t scratch_reals = step;
        static constexpr std::size_t inputs = 2;
        const T* a;
        const T* b;
        template <class Store>
        [[gnu::always_inline]] void operator()(std::size_t i, Store& store) const noexcept {
            const batch va = load(a + i), vb = load(b + i);
            const batch r = mul_kernel::product<V>(va, vb);
            store(i, fix<Strict>(
                         r, V::dup_real(va), vb, [&](std::size_t k, T* out) { plain_product(a + i + 2 * k, b + i + 2 * k, out); },
                         [&](complex* res) { detail::fix_mul(as_complex(a + i), as_complex(b + i), res, width / 2); }));
        }
        mul_op rebase(std::size_t i, std::size_t count, T (*scratch)[scratch_reals]) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(b + i, count, scratch[1])};
        }
    };

    template <bool Strict>
    struct mul_conj_op {
        static constexpr std::size_t step = width;
        static constexpr std::size_t element_reals = 2;
        static constexpr std::size_t unroll = 2;
        static constexpr std::size_t scratch_reals = step;
        static constexpr std::size_t inputs = 2;
        const T* a;
        const T* b;
        template <class Store>
        [[gnu::always_inline]] void operator()(std::size_t i, Store& store) const noexcept {
            const batch va = load(a + i), vb = load(b + i);
            const batch r = product_conj(va, vb);
            store(i, fix<Strict>(
                         r, V::dup_real(vb), va,
                         [&](std::size_t k, T* out) {
                             const T conj_b[2] = {b[i + 2 * k], -b[i + 2 * k + 1]};
                             plain_product(a + i + 2 * k, conj_b, out);
                         },
                         [&](complex* res) {
                             detail::fix_mul_conj(as_complex(a + i), as_complex(b + i), res, width / 2);
                         }));
        }
        mul_conj_op rebase(std::size_t i, std::size_t count, T (*scratch)[scratch_reals]) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(b + i, count, scratch[1])};
        }
    };

    // row · x with the row's parts already duplicated into two patterns,
    // re = [rr, rr, …] and im = [ri, ri, …]: one in-lane shuffle, one
    // multiply and one fused multiply-add/sub per register (the RoPE kernel's
    // sequence), where mul_op spends three shuffles. The fix-ups see the
    // original row, as a · row.
    template <bool Strict>
    struct row_times_op {
        static constexpr std::size_t step = width;
        static constexpr std::size_t element_reals = 2;
        static constexpr std::size_t unroll = 2;
        static constexpr std::size_t scratch_reals = step;
        static constexpr std::size_t inputs = 4;
        const T* x;
        const T* re;
        const T* im;
        const T* row;  // the row itself, for the fix-ups only
        template <class Store>
        [[gnu::always_inline]] void operator()(std::size_t i, Store& store) const noexcept {
            const batch v = load(x + i);
            const batch vre = load(re + i);
            const batch r = V::fmaddsub(vre, v, load(im + i) * V::swap_pairs(v));
            store(i, fix<Strict>(
                         r, vre, v, [&](std::size_t k, T* out) { plain_product(x + i + 2 * k, row + i + 2 * k, out); },
                         [&](complex* res) { detail::fix_mul(as_complex(x + i), as_complex(row + i), res, width / 2); }));
        }
        row_times_op rebase(std::size_t i, std::size_t count, T (*scratch)[scratch_reals]) const noexcept {
            return {pad(x + i, count, scratch[0]), pad(re + i, count, scratch[1]), pad(im + i, count, scratch[2]),
                    pad(row + i, count, scratch[3])};
        }
    };

    // a · r with r real: one register of r covers two registers of output.
    // Componentwise, as std::complex: no fix-up.
    struct mul_real_op {
        static constexpr std::size_t step = 2 * width;
        static constexpr std::size_t element_reals = 2;
        static constexpr std::size_t unroll = 2;
        static constexpr std::size_t scratch_reals = step;
        static constexpr std::size_t inputs = 2;
        const T* a;
        const T* r;  // r[i / 2] scales the complex number at real offset i
        template <class Store>
        [[gnu::always_inline]] void operator()(std::size_t i, Store& store) const noexcept {
            const batch rr = load(r + i / 2);
            store(i, load(a + i) * expand_low(rr, A{}));
            store(i + width, load(a + i + width) * expand_high(rr, A{}));
        }
        mul_real_op rebase(std::size_t i, std::size_t count, T (*scratch)[scratch_reals]) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(r + i / 2, count / 2, scratch[1])};
        }
    };

    template <bool Strict>
    struct mul_scalar_op {
        static constexpr std::size_t step = width;
        static constexpr std::size_t element_reals = 2;
        static constexpr std::size_t unroll = 2;
        static constexpr std::size_t scratch_reals = step;
        static constexpr std::size_t inputs = 1;
        const T* a;
        batch s_re;  // broadcast real part of the scalar
        batch s_im;
        complex s;
        template <class Store>
        [[gnu::always_inline]] void operator()(std::size_t i, Store& store) const noexcept {
            const batch va = load(a + i);
            const batch r = V::fmaddsub(s_re, va, s_im * V::swap_pairs(va));
            const T sp[2] = {s.real(), s.imag()};
            store(i, fix<Strict>(
                         r, s_re, va, [&](std::size_t k, T* out) { plain_product(a + i + 2 * k, sp, out); },
                         [&](complex* res) { detail::fix_mul_scalar(as_complex(a + i), s, res, width / 2); }));
        }
        mul_scalar_op rebase(std::size_t i, std::size_t count, T (*scratch)[scratch_reals]) const noexcept {
            return {pad(a + i, count, scratch[0]), s_re, s_im, s};
        }
    };

    template <bool Strict>
    struct mul_add_op {
        static constexpr std::size_t step = width;
        static constexpr std::size_t element_reals = 2;
        static constexpr std::size_t unroll = 2;
        static constexpr std::size_t scratch_reals = step;
        static constexpr std::size_t inputs = 3;
        const T* a;
        const T* b;
        const T* c;
        template <class Store>
        [[gnu::always_inline]] void operator()(std::size_t i, Store& store) const noexcept {
            const batch va = load(a + i), vb = load(b + i);
            const batch r = mul_kernel::product<V>(va, vb) + load(c + i);
            store(i, fix<Strict>(
                         r, V::dup_real(va), vb,
                         [&](std::size_t k, T* out) {
                             plain_product(a + i + 2 * k, b + i + 2 * k, out);
                             out[0] += c[i + 2 * k];
                             out[1] += c[i + 2 * k + 1];
                         },
                         [&](complex* res) {
                             detail::fix_mul_add(as_complex(a + i), as_complex(b + i), as_complex(c + i), res,
                                                 width / 2);
                         }));
        }
        mul_add_op rebase(std::size_t i, std::size_t count, T (*scratch)[scratch_reals]) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(b + i, count, scratch[1]), pad(c + i, count, scratch[2])};
        }
    };

    // ---- entry points (the kernel table points here) ----

    // run() with the op of the policy (Op<true> fixes special values up as
    // std::complex does); `in` initialises the op.
    template <template <bool> class Op, class... In>
    static void run_policy(bool strict, T* out, std::size_t n, bool stream, In... in) noexcept {
        if (strict)
            drive::run(Op<true>{in...}, out, n, stream);
        else
            drive::run(Op<false>{in...}, out, n, stream);
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
                typename drive::output_store store{row_out, false};
                for (std::size_t i = 0; i < len; i += width) op(i, store);
            } else {
                drive::run(op, row_out, len, stream, false);
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
                    V::dup_real(r).store_aligned(re + j);
                    V::dup_imag(r).store_aligned(im + j);
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
        drive::run(mul_real_op{a, r}, out, n, stream);
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
