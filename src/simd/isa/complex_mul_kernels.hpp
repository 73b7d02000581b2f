// Kernel templates behind realify/simd/complex_mul.hpp (the multiply family:
// mul, mul_conj, mul_real, mul_scalar, mul_add, mul_rows, mul_block_rows),
// templated on the xsimd architecture tag. They are instantiated only in
// realify_simd's per-instruction-set translation units (src/simd/isa_kernels.cpp, one unit per level),
// each compiled with that instruction set's flags: xsimd 8.1 enables an
// arch's intrinsics only when the compiler targets it.
//
// Data stays interleaved ([re, im, re, im, …] in one register). The product
// of a register of pairs is element<op::mul>'s batch form (Eigen's and VOLK's
// three in-lane shuffles, a multiply and a fused multiply-add/sub), on the
// shared primitives of primitives.hpp; the loop is the
// shared driver (driver.hpp).
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

#include "driver.hpp"
#include "primitives.hpp"
#include "realify/kernels/arithmetic.hpp"
#include "scalar_kernels.hpp"
#include "vocabulary.hpp"

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
// set of the including TU (arch_namespace.hpp).

namespace realify::simd::isa {
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
    using mul_kernel = kernels::element<op::mul>;
    static constexpr std::size_t width = batch::size;  // reals per register

    [[gnu::always_inline]] static batch load(const T* p) noexcept { return batch::load_unaligned(p); }
    static const complex* as_complex(const T* p) noexcept { return reinterpret_cast<const complex*>(p); }
    static const T* pad(const T* src, std::size_t count, T* scratch) noexcept { return drive::pad(src, count, scratch); }

    // a · conj(b): the product of b's duplicated parts, conjugated, with a
    [[gnu::always_inline]] static batch product_conj(const batch& a, const batch& b) noexcept {
        return kernels::interleaved_product_conj<V>(V::dup_real(b), V::dup_imag(b), a);
    }

    /// The special-value fix-ups of a register r = fmaddsub(x, y, t) of
    /// results. fast(k, pair) recomputes pair k (of width/2) when a lane of it
    /// is one the scalar form must redo (element<op::mul>::redo_lanes: r not
    /// finite, or x·y overflowing on its own); with Strict, strict(pairs) then
    /// recomputes the pairs that are NaN in both parts as std::complex does.
    /// Only on the cold path (exact()): the hot loop screens whole blocks.
    template <bool Strict, class Fast, class StrictFix>
    [[gnu::always_inline]] static batch fix(const batch& r, const batch& x, const batch& y, Fast&& fast,
                                            StrictFix&& strict) noexcept {
        const auto redo = mul_kernel::redo_lanes<V>(r, x, y);
        if (!V::any(redo)) return r;
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

    /// A partial block's zero-padded copies of the inputs (driver.hpp), one
    /// row of Registers registers each.
    template <std::size_t Registers>
    using block_scratch = T (*)[Registers * width];

    // Each op is a screened block op of the driver (driver.hpp): a block of
    // Form::registers registers, compute() its products with their screen
    // (element<op::mul>::screen), exact() the same products with the
    // per-register fix-ups above, out of line; rebase() points the op at
    // zero-padded copies of its inputs for a partial block. What differs
    // between the products is their Form: its inputs, value(at) — the
    // register at real offset `at`, which compute() adds to the screen (a
    // form whose parts need screening too takes the screen: value(at, e)) —
    // and exact(at), the same register fixed up (fix<Strict>).
    template <bool Strict, class Form>
    struct screened_product {
        static constexpr bool screened = true;
        static constexpr std::size_t registers = Form::registers;
        static constexpr std::size_t step = registers * width;
        static constexpr std::size_t element_reals = 2;
        static constexpr std::size_t scratch_reals = step;
        static constexpr std::size_t inputs = Form::inputs;
        Form form;
        [[gnu::always_inline]] void compute(std::size_t i, batch* o, batch* e) const noexcept {
            for (std::size_t r = 0; r < registers; ++r) {
                const std::size_t at = i + r * width;
                if constexpr (requires { form.value(at, e[r]); }) {
                    o[r] = form.value(at, e[r]);  // a form that screens more than its result
                } else {
                    o[r] = form.value(at);
                    e[r] = mul_kernel::screen<V>(o[r], e[r]);
                }
            }
        }
        template <class Store>
        [[gnu::noinline, gnu::cold]] static void exact(const screened_product op, std::size_t i, Store store) noexcept {
            for (std::size_t at = i; at < i + step; at += width) store(at, op.form.template exact<Strict>(at));
        }
        screened_product rebase(std::size_t i, std::size_t count, block_scratch<registers> scratch) const noexcept {
            return {form.rebase(i, count, scratch)};
        }
    };

    // a · b
    struct mul_form {
        static constexpr std::size_t registers = 4;
        static constexpr std::size_t inputs = 2;
        const T* a;
        const T* b;
        [[gnu::always_inline]] batch value(std::size_t at) const noexcept {
            return mul_kernel::product<V>(load(a + at), load(b + at));
        }
        template <bool Strict>
        batch exact(std::size_t at) const noexcept {
            const batch va = load(a + at), vb = load(b + at);
            return fix<Strict>(
                mul_kernel::product<V>(va, vb), V::dup_real(va), vb,
                [&](std::size_t k, T* out) { plain_product(a + at + 2 * k, b + at + 2 * k, out); },
                [&](complex* res) { detail::fix_mul(as_complex(a + at), as_complex(b + at), res, width / 2); });
        }
        mul_form rebase(std::size_t i, std::size_t count, block_scratch<registers> scratch) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(b + i, count, scratch[1])};
        }
    };

    // a · conj(b)
    struct mul_conj_form {
        static constexpr std::size_t registers = 4;
        static constexpr std::size_t inputs = 2;
        const T* a;
        const T* b;
        [[gnu::always_inline]] batch value(std::size_t at) const noexcept {
            return product_conj(load(a + at), load(b + at));
        }
        template <bool Strict>
        batch exact(std::size_t at) const noexcept {
            const batch va = load(a + at), vb = load(b + at);
            return fix<Strict>(
                product_conj(va, vb), V::dup_real(vb), va,
                [&](std::size_t k, T* out) {
                    const T conj_b[2] = {b[at + 2 * k], -b[at + 2 * k + 1]};
                    plain_product(a + at + 2 * k, conj_b, out);
                },
                [&](complex* res) { detail::fix_mul_conj(as_complex(a + at), as_complex(b + at), res, width / 2); });
        }
        mul_conj_form rebase(std::size_t i, std::size_t count, block_scratch<registers> scratch) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(b + i, count, scratch[1])};
        }
    };

    // row · x with the row's parts already duplicated into two patterns,
    // re = [rr, rr, …] and im = [ri, ri, …]: one in-lane shuffle, one
    // multiply and one fused multiply-add/sub per register (the RoPE kernel's
    // sequence), where mul_form spends three shuffles. The fix-ups see the
    // original row, as a · row. Blocks of two registers, so that rows of
    // 32·width/16 reals (a head of 96, 64 or 128 floats) are whole blocks.
    struct row_times_form {
        static constexpr std::size_t registers = 2;
        static constexpr std::size_t inputs = 4;
        const T* x;
        const T* re;
        const T* im;
        const T* row;  // the row itself, for the fix-ups only
        [[gnu::always_inline]] batch value(std::size_t at) const noexcept {
            return kernels::interleaved_product<V>(load(re + at), load(im + at), load(x + at));
        }
        template <bool Strict>
        batch exact(std::size_t at) const noexcept {
            const batch v = load(x + at), vre = load(re + at);
            return fix<Strict>(
                kernels::interleaved_product<V>(vre, load(im + at), v), vre, v,
                [&](std::size_t k, T* out) { plain_product(x + at + 2 * k, row + at + 2 * k, out); },
                [&](complex* res) { detail::fix_mul(as_complex(x + at), as_complex(row + at), res, width / 2); });
        }
        row_times_form rebase(std::size_t i, std::size_t count, block_scratch<registers> scratch) const noexcept {
            return {pad(x + i, count, scratch[0]), pad(re + i, count, scratch[1]), pad(im + i, count, scratch[2]),
                    pad(row + i, count, scratch[3])};
        }
    };

    // a · s, s a complex scalar (broadcast parts s_re, s_im)
    struct mul_scalar_form {
        static constexpr std::size_t registers = 4;
        static constexpr std::size_t inputs = 1;
        const T* a;
        batch s_re;
        batch s_im;
        complex s;
        [[gnu::always_inline]] batch value(std::size_t at) const noexcept {
            return kernels::interleaved_product<V>(s_re, s_im, load(a + at));
        }
        template <bool Strict>
        batch exact(std::size_t at) const noexcept {
            const T sp[2] = {s.real(), s.imag()};
            const batch va = load(a + at);
            return fix<Strict>(
                kernels::interleaved_product<V>(s_re, s_im, va), s_re, va,
                [&](std::size_t k, T* out) { plain_product(a + at + 2 * k, sp, out); },
                [&](complex* res) { detail::fix_mul_scalar(as_complex(a + at), s, res, width / 2); });
        }
        mul_scalar_form rebase(std::size_t i, std::size_t count, block_scratch<registers> scratch) const noexcept {
            return {pad(a + i, count, scratch[0]), s_re, s_im, s};
        }
    };

    // a · b + c: the product's screen and the sum's (c may cancel a product
    // whose screen would fail).
    struct mul_add_form {
        static constexpr std::size_t registers = 4;
        static constexpr std::size_t inputs = 3;
        const T* a;
        const T* b;
        const T* c;
        [[gnu::always_inline]] batch value(std::size_t at, batch& e) const noexcept {
            const batch p = mul_kernel::product<V>(load(a + at), load(b + at));
            const batch r = p + load(c + at);
            e = mul_kernel::screen<V>(r, mul_kernel::screen<V>(p, e));
            return r;
        }
        template <bool Strict>
        batch exact(std::size_t at) const noexcept {
            const batch va = load(a + at), vb = load(b + at);
            return fix<Strict>(
                mul_kernel::product<V>(va, vb) + load(c + at), V::dup_real(va), vb,
                [&](std::size_t k, T* out) {
                    plain_product(a + at + 2 * k, b + at + 2 * k, out);
                    out[0] += c[at + 2 * k];
                    out[1] += c[at + 2 * k + 1];
                },
                [&](complex* res) {
                    detail::fix_mul_add(as_complex(a + at), as_complex(b + at), as_complex(c + at), res, width / 2);
                });
        }
        mul_add_form rebase(std::size_t i, std::size_t count, block_scratch<registers> scratch) const noexcept {
            return {pad(a + i, count, scratch[0]), pad(b + i, count, scratch[1]), pad(c + i, count, scratch[2])};
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

    // ---- entry points (the kernel table points here) ----

    // run() with the form's screened op of the policy (Strict fixes special
    // values up as std::complex does); `in` initialises the form. `disjoint`:
    // out is none of the inputs (the API allows exactly an input or disjoint
    // memory).
    template <class Form, class... In>
    static void run_policy(bool strict, T* out, std::size_t n, bool stream, bool disjoint, In... in) noexcept {
        if (strict)
            drive::run(screened_product<true, Form>{Form{in...}}, out, n, stream, true, disjoint);
        else
            drive::run(screened_product<false, Form>{Form{in...}}, out, n, stream, true, disjoint);
    }

    static void mul(const T* a, const T* b, T* out, std::size_t n, bool stream, bool strict) noexcept {
        run_policy<mul_form>(strict, out, n, stream, out != a && out != b, a, b);
    }
    static void mul_conj(const T* a, const T* b, T* out, std::size_t n, bool stream, bool strict) noexcept {
        run_policy<mul_conj_form>(strict, out, n, stream, out != a && out != b, a, b);
    }

    // `rows` rows of len reals, n apart, through op (whose x is the first row).
    // Rows of whole blocks with ordinary stores (RoPE's heads) are the tight
    // loop itself: run()'s per-call alignment and tail handling would cost as
    // much as a short row's arithmetic; their screen is tested once for all
    // the rows when out is disjoint from the inputs, else per block. The
    // instructions per element are the same either way.
    template <class Op>
    static void rows_times(Op op, T* out, std::size_t n, std::size_t len, std::size_t rows, bool stream,
                           bool disjoint) noexcept {
        const T* first = op.form.x;
        if (stream || len % Op::step != 0) {
            for (std::size_t r = 0; r < rows; ++r) {
                op.form.x = first + r * n;  // computed per row: never a pointer past the arrays' ends
                drive::run(op, out + r * n, len, stream, false, disjoint);
            }
            return;
        }
        typename drive::output_store store{out, false};
        if (!disjoint) {
            for (std::size_t r = 0; r < rows; ++r) {
                op.form.x = first + r * n;
                store.out = out + r * n;
                for (std::size_t i = 0; i < len; i += Op::step) drive::block(op, i, store);
            }
            return;
        }
        batch e[Op::registers];
        for (std::size_t k = 0; k < Op::registers; ++k) e[k] = batch(T(0));
        for (std::size_t r = 0; r < rows; ++r) {
            op.form.x = first + r * n;
            store.out = out + r * n;
            for (std::size_t i = 0; i < len; i += Op::step) {
                batch o[Op::registers];
                op.compute(i, o, e);
                for (std::size_t k = 0; k < Op::registers; ++k) store(i + k * width, o[k]);
            }
        }
        if (!drive::finite(e)) [[unlikely]] {
            for (std::size_t r = 0; r < rows; ++r) {
                op.form.x = first + r * n;
                store.out = out + r * n;
                for (std::size_t i = 0; i < len; i += Op::step) Op::exact(op, i, store);
            }
        }
    }

    // Reals of the row patterns held at once: 2 × 4 KiB of float on the stack.
    static constexpr std::size_t pattern_reals = 1024;

    // `blocks` blocks of `repeats` rows of n reals; every row of block b times
    // row b of `rows` (RoPE: the heads of position b times that position's
    // frequencies). Per block the row's parts are duplicated once (in chunks
    // of pattern_reals), then every row runs row_times_form; a streaming call is
    // fenced once, after the last block. Every element is computed the same
    // way whatever n, repeats, blocks or the alignment.
    static void mul_rows(const T* a, const T* rows, T* out, std::size_t n, std::size_t repeats, std::size_t blocks,
                         bool stream, bool strict) noexcept {
        alignas(64) T re[pattern_reals];
        alignas(64) T im[pattern_reals];
        const bool disjoint = out != a && out != rows;
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
                    rows_times(screened_product<true, row_times_form>{{x, re, im, row + start}}, o, n, len, repeats, stream, disjoint);
                else
                    rows_times(screened_product<false, row_times_form>{{x, re, im, row + start}}, o, n, len, repeats, stream, disjoint);
            }
        }
        if (stream) stream_fence();
    }
    static void mul_real(const T* a, const T* r, T* out, std::size_t n, bool stream) noexcept {
        drive::run(mul_real_op{a, r}, out, n, stream);
    }
    static void mul_scalar(const T* a, complex s, T* out, std::size_t n, bool stream, bool strict) noexcept {
        run_policy<mul_scalar_form>(strict, out, n, stream, out != a, a, batch(s.real()), batch(s.imag()), s);
    }
    static void mul_add(const T* a, const T* b, const T* c, T* out, std::size_t n, bool stream,
                        bool strict) noexcept {
        run_policy<mul_add_form>(strict, out, n, stream, out != a && out != b && out != c, a, b, c);
    }
};

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::isa
