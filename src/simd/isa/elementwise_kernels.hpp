// The per-instruction-set elementwise kernels (realify/simd/elementwise.hpp):
// one driver that runs any element kernel's batch form over contiguous data,
// instantiated once per (op, operand kinds, element type) in each
// per-instruction-set translation unit (src/simd/isa_kernels.cpp, one unit per level).
//
// A block is `width` elements (one register of reals, two of pairs). Per
// block the driver loads each operand — a broadcast operand is one element
// repeated in a block-sized buffer, read at offset 0 — and calls the element
// kernel's batch form:
//   interleaved<V>   on registers of pairs (a real operand expanded to
//                    [r0, r0, r1, r1, …]), two calls per block;
//   simd<V>          on deinterleaved {re, im} registers (deinterleave and
//                    interleave are in-lane shuffles), real operands and
//                    results through to_lane_order / from_lane_order.
// Where the form sets `redo` on some lanes, those elements are recomputed by
// the scalar form (detail::scalar_unary / scalar_binary, compiled for the
// baseline) from the inputs in memory — the block is stored only after that,
// so in place is safe. Ops marked componentwise (neg, the rounding ops) run
// their real kernel over the 2n components of complex data. An op without a
// batch form for some operand kinds (or for its parameters) has the scalar
// kernel in the table instead (isa_table.hpp decides with has_batch_form).
//
// The block's glue is always_inline and its fix-up path a separate cold
// function: with hundreds of kernels in one translation unit GCC's inliner
// runs out of budget, and a block left as a call (registers spilled,
// vzeroupper) cost 3-5× on the cheap ops.
//
// Include only from the per-instruction-set translation units.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "driver.hpp"
#include "primitives.hpp"
#include "realify/kernels.hpp"
#include "realify/simd/elementwise.hpp"
#include "scalar_kernels.hpp"
#include "vocabulary.hpp"

namespace realify::simd::isa {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

/// Reals per element of an operand kind.
constexpr std::size_t reals_of(operand_kind k) noexcept { return k == operand_kind::complex ? 2 : 1; }

/// The element kernel of a compiled op.
template <elementwise_op Op>
using element_of = kernels::element<elementwise_tag_t<Op>>;

template <class F>
inline constexpr bool componentwise_v = requires { requires F::componentwise; };

template <class F, class T>
inline constexpr bool has_parameters_v = requires { typename F::template parameters<T>; };

/// The argument types of the batch forms for operand kinds K.
template <class V, operand_kind K>
using interleaved_arg_t =
    std::conditional_t<K == operand_kind::complex, kernels::pairs<typename V::batch>, kernels::paired_real<typename V::batch>>;
template <class V, operand_kind K>
using simd_arg_t = std::conditional_t<K == operand_kind::complex, cpair<typename V::batch>, typename V::batch>;

/// Which batch form F has for operand kinds K (and parameters P, or none),
/// and whether it takes `redo` (a form without it is exact on every lane).
enum class batch_form { none, interleaved, simd };
struct form_info {
    batch_form form;
    bool may_redo;
};
template <class F, class V, class P, operand_kind... K>
constexpr form_info batch_form_of() noexcept {
    using M = typename V::mask;
    using PP = std::conditional_t<std::is_void_v<P>, int, P>;  // (unused when P is void)
    constexpr bool with_p = !std::is_void_v<P>;
    if constexpr (!with_p) {
        if constexpr (requires(M& m) { F::template interleaved<V>(interleaved_arg_t<V, K>{}..., m); })
            return {batch_form::interleaved, true};
        else if constexpr (requires { F::template interleaved<V>(interleaved_arg_t<V, K>{}...); })
            return {batch_form::interleaved, false};
        else if constexpr (requires(M& m) { F::template simd<V>(simd_arg_t<V, K>{}..., m); })
            return {batch_form::simd, true};
        else if constexpr (requires { F::template simd<V>(simd_arg_t<V, K>{}...); })
            return {batch_form::simd, false};
        else
            return {batch_form::none, false};
    } else {
        if constexpr (requires(M& m, const PP& p) { F::template interleaved<V>(interleaved_arg_t<V, K>{}..., p, m); })
            return {batch_form::interleaved, true};
        else if constexpr (requires(const PP& p) { F::template interleaved<V>(interleaved_arg_t<V, K>{}..., p); })
            return {batch_form::interleaved, false};
        else if constexpr (requires(M& m, const PP& p) { F::template simd<V>(simd_arg_t<V, K>{}..., p, m); })
            return {batch_form::simd, true};
        else if constexpr (requires(const PP& p) { F::template simd<V>(simd_arg_t<V, K>{}..., p); })
            return {batch_form::simd, false};
        else
            return {batch_form::none, false};
    }
}

template <class T, class A>
struct elementwise_kernels {
    using V = vec<T, A>;
    using batch = typename V::batch;
    using mask = typename V::mask;
    using drive = driver<T, A>;
    static constexpr std::size_t W = batch::size;  // elements per block
    static constexpr operand_kind C = operand_kind::complex;
    static constexpr operand_kind R = operand_kind::real;

    /// One input of a block op: reals, and 1 if it advances with the block
    /// or 0 for a broadcast element held W times in a buffer; `bytes` is the
    /// distance it moves per real of output (set by the block op), so a
    /// block's address is affine in the output offset and the loop keeps it
    /// in an induction variable.
    struct input {
        const T* p;
        std::size_t advance;
        std::size_t bytes = 0;
    };

    /// No parameters.
    struct no_parameters {};

    /// The block of `Op` on inputs of kinds K..., result kind O, parameters P
    /// (void: none); Form is the batch form it runs.
    template <elementwise_op Op, form_info Info, class P, operand_kind O, operand_kind... K>
    struct block_op {
        static constexpr batch_form Form = Info.form;
        using F = element_of<Op>;
        static constexpr std::size_t inputs = sizeof...(K);
        static constexpr std::size_t step = W * reals_of(O);  // output reals per block
        static constexpr std::size_t element_reals = reals_of(O);
        static constexpr std::size_t unroll = Form == batch_form::interleaved ? 2 : 1;
        static constexpr std::size_t scratch_reals = 2 * W;
        // Real operands and results pass through the lane order of
        // deinterleave when a complex operand or result is in the block.
        static constexpr bool lane_order = ((O == C) || ... || (K == C));

        using parameters_type = std::conditional_t<std::is_void_v<P>, no_parameters, P>;

        std::array<input, inputs> in;
        const T* params;  // for the scalar fix-up
        [[no_unique_address]] parameters_type p;

        block_op(std::array<input, inputs> in_, const T* params_) noexcept
            : in(in_), params(params_), p(make_parameters(params_)) {
            for (std::size_t k = 0; k < inputs; ++k)
                in[k].bytes = reals_of(kinds[k]) * in[k].advance * sizeof(T) / reals_of(O);
        }
        static parameters_type make_parameters(const T* params_) noexcept {
            if constexpr (std::is_void_v<P>) return {};
            else return P(params_);
        }

        /// Input I's reals for the block whose output starts at real i.
        template <std::size_t I>
        [[gnu::always_inline]] const T* at(std::size_t i) const noexcept {
            return reinterpret_cast<const T*>(reinterpret_cast<const char*>(in[I].p) + i * in[I].bytes);
        }

        template <std::size_t I, operand_kind K_>
        [[gnu::always_inline]] simd_arg_t<V, K_> load_simd(std::size_t i) const noexcept {
            const T* q = at<I>(i);
            if constexpr (K_ == C) {
                return deinterleave(batch::load_unaligned(q), batch::load_unaligned(q + W), A{});
            } else {
                const batch r = batch::load_unaligned(q);
                if constexpr (lane_order) return to_lane_order(r, A{});
                else return r;
            }
        }
        template <std::size_t I, operand_kind K_>
        [[gnu::always_inline]] interleaved_arg_t<V, K_> load_half(std::size_t i, std::size_t half) const noexcept {
            const T* q = at<I>(i);
            if constexpr (K_ == C) {
                return {batch::load_unaligned(q + half * W)};
            } else {
                const batch r = batch::load_unaligned(q);
                return {half == 0 ? expand_low(r, A{}) : expand_high(r, A{})};
            }
        }

        template <class... Args>
        [[gnu::always_inline]] auto call_simd(mask& redo, const Args&... args) const noexcept {
            if constexpr (std::is_void_v<P>) {
                if constexpr (Info.may_redo) return F::template simd<V>(args..., redo);
                else return F::template simd<V>(args...);
            } else {
                if constexpr (Info.may_redo) return F::template simd<V>(args..., p, redo);
                else return F::template simd<V>(args..., p);
            }
        }
        template <class... Args>
        [[gnu::always_inline]] auto call_interleaved(mask& redo, const Args&... args) const noexcept {
            if constexpr (std::is_void_v<P>) {
                if constexpr (Info.may_redo) return F::template interleaved<V>(args..., redo);
                else return F::template interleaved<V>(args...);
            } else {
                if constexpr (Info.may_redo) return F::template interleaved<V>(args..., p, redo);
                else return F::template interleaved<V>(args..., p);
            }
        }

        static constexpr operand_kind kinds[] = {K...};

        /// The block whose output starts at real i into the result registers
        /// o; the lanes to redo in `redo` (and, for the interleaved form,
        /// `redo_high`: the second register's parts).
        template <std::size_t... I>
        [[gnu::always_inline]] void compute(std::index_sequence<I...>, std::size_t i, batch* o, mask& redo,
                                            mask& redo_high) const noexcept {
            if constexpr (Form == batch_form::simd) {
                const auto r = call_simd(redo, load_simd<I, kinds[I]>(i)...);
                if constexpr (O == C) {
                    const cpair<batch> pairs = interleave(r.re, r.im, A{});
                    o[0] = pairs.re;
                    o[1] = pairs.im;
                } else if constexpr (lane_order) {
                    o[0] = from_lane_order(r, A{});
                } else {
                    o[0] = r;
                }
            } else {
                static_assert(Form == batch_form::interleaved && O == C);
                o[0] = call_interleaved(redo, load_half<I, kinds[I]>(i, 0)...).v;
                o[1] = call_interleaved(redo_high, load_half<I, kinds[I]>(i, 1)...).v;
            }
        }

        /// Element k of the block at e by the scalar form, into out.
        static void scalar(const std::array<input, inputs>& in, const T* params, std::size_t e, std::size_t k,
                           T* out) noexcept {
            auto at = [&](std::size_t index) { return in[index].p + (e + k) * reals_of(kinds[index]) * in[index].advance; };
            if constexpr (inputs == 1)
                detail::scalar_unary<Op, kinds[0], T>(at(0), out, 1, params, false);
            else
                detail::scalar_binary<Op, kinds[0], kinds[1], T>(at(0), false, at(1), false, out, 1, params, false);
        }

        /// The cold path: recomputes the flagged elements of the block at e
        /// with the scalar form, in the result registers o. The inputs are
        /// read from memory, which the block has not written yet. Static and
        /// called with copies, so the hot path's registers never need an
        /// address.
        [[gnu::noinline, gnu::cold]] static void redo_block(std::array<input, inputs> in, const T* params,
                                                            std::size_t e, batch* o, mask redo,
                                                            mask redo_high) noexcept {
            alignas(64) T result[step];
            alignas(64) T flags[2 * W];  // per element (simd form) or per part (interleaved form)
            for (std::size_t r = 0; r < registers; ++r) o[r].store_aligned(result + r * W);
            const batch one(T(1)), zero(T(0));
            if constexpr (Form == batch_form::simd) {
                const batch f = V::select(redo, one, zero);
                (lane_order ? from_lane_order(f, A{}) : f).store_aligned(flags);
            } else {
                V::select(redo, one, zero).store_aligned(flags);
                V::select(redo_high, one, zero).store_aligned(flags + W);
            }
            for (std::size_t k = 0; k < W; ++k) {
                const bool flagged = Form == batch_form::simd ? flags[k] != T(0)
                                                              : flags[2 * k] != T(0) || flags[2 * k + 1] != T(0);
                if (flagged) scalar(in, params, e, k, result + k * reals_of(O));
            }
            for (std::size_t r = 0; r < registers; ++r) o[r] = batch::load_aligned(result + r * W);
        }

        /// Screened (see driver.hpp) when the element kernel has a screened
        /// interleaved form for these operand kinds: the hot loop computes
        /// with it, the per-register redo masks run only in exact().
        static constexpr std::size_t registers = step / W;
        static constexpr bool screened = [] {
            if constexpr (Form == batch_form::interleaved && std::is_void_v<P>)
                return requires(typename V::batch& e) {
                    F::template interleaved_screened<V>(interleaved_arg_t<V, K>{}..., e);
                };
            else
                return false;
        }();
        template <std::size_t... I>
        [[gnu::always_inline]] void compute(std::index_sequence<I...>, std::size_t i, batch* o,
                                            batch* e) const noexcept {
            o[0] = F::template interleaved_screened<V>(load_half<I, kinds[I]>(i, 0)..., e[0]).v;
            o[1] = F::template interleaved_screened<V>(load_half<I, kinds[I]>(i, 1)..., e[1]).v;
        }
        [[gnu::always_inline]] void compute(std::size_t i, batch* o, batch* e) const noexcept {
            compute(std::make_index_sequence<inputs>{}, i, o, e);
        }
        template <class Store>
        [[gnu::noinline, gnu::cold]] static void exact(const block_op op, std::size_t i, Store store) noexcept {
            op(i, store);
        }

        template <class Store>
        [[gnu::always_inline]] void operator()(std::size_t i, Store& store) const noexcept {
            batch o[registers];
            mask redo = V::none(), redo_high = V::none();
            compute(std::make_index_sequence<inputs>{}, i, o, redo, redo_high);
            if constexpr (Info.may_redo)
                if (V::any(redo | redo_high)) [[unlikely]] {
                    batch copy[registers];
                    for (std::size_t r = 0; r < registers; ++r) copy[r] = o[r];
                    redo_block(in, params, i / reals_of(O), copy, redo, redo_high);
                    for (std::size_t r = 0; r < registers; ++r) o[r] = copy[r];
                }
            for (std::size_t r = 0; r < registers; ++r) store(i + r * W, o[r]);
        }

        block_op rebase(std::size_t i, std::size_t count, T (*scratch)[scratch_reals]) const noexcept {
            const std::size_t e = i / reals_of(O), elements = count / reals_of(O);
            block_op local = *this;
            std::size_t k = 0;
            ((local.in[k].p = in[k].advance != 0 ? drive::pad(in[k].p + e * reals_of(K), elements * reals_of(K), scratch[k])
                                                  : in[k].p,
              ++k),
             ...);
            return local;
        }
    };

    /// An operand pointer for a block op: a broadcast element is copied W
    /// times into `buffer` (2·W reals) and read without advancing.
    template <operand_kind K>
    static input make_input(const T* p, bool broadcast, T* buffer) noexcept {
        if (!broadcast) return {p, 1};
        for (std::size_t k = 0; k < W; ++k)
            for (std::size_t c = 0; c < reals_of(K); ++c) buffer[k * reals_of(K) + c] = p[c];
        return {buffer, 0};
    }

    // ---- entry points (the kernel table points here) ----

    /// Unary op on x of kind K with the batch form (for parameters P, or
    /// none: void). The table only points here when that form exists.
    template <elementwise_op Op, operand_kind K, class P>
    static void unary_with(const T* x, T* out, std::size_t n, const T* params, bool stream) noexcept {
        using F = element_of<Op>;
        constexpr operand_kind O = *result_kind(Op, K);
        constexpr form_info form = batch_form_of<F, V, P, K>();
        static_assert(form.form != batch_form::none);
        const block_op<Op, form, P, O, K> op({input{x, 1}}, params);
        drive::run(op, out, n * reals_of(O), stream);
    }

    template <elementwise_op Op, operand_kind K>
    static void unary(const T* x, T* out, std::size_t n, const T* params, bool stream) noexcept {
        using F = element_of<Op>;
        if constexpr (componentwise_v<F> && K == C) {
            // The real kernel over both parts.
            unary<Op, R>(x, out, 2 * n, params, stream);
        } else if constexpr (has_parameters_v<F, T>) {
            using P = typename F::template parameters<T>;
            constexpr bool plain = batch_form_of<F, V, void, K>().form != batch_form::none;
            constexpr bool with = batch_form_of<F, V, P, K>().form != batch_form::none;
            if (params != nullptr) {
                if constexpr (with) unary_with<Op, K, P>(x, out, n, params, stream);
                else detail::scalar_unary<Op, K, T>(x, out, n, params, stream);
            } else {
                if constexpr (plain) unary_with<Op, K, void>(x, out, n, params, stream);
                else detail::scalar_unary<Op, K, T>(x, out, n, params, stream);
            }
        } else {
            unary_with<Op, K, void>(x, out, n, params, stream);
        }
    }

    template <elementwise_op Op, operand_kind X, operand_kind Y, class P>
    static void binary_with(const T* x, bool xb, const T* y, bool yb, T* out, std::size_t n, const T* params,
                            bool stream) noexcept {
        using F = element_of<Op>;
        constexpr operand_kind O = *result_kind(Op, X, Y);
        constexpr form_info form = batch_form_of<F, V, P, X, Y>();
        static_assert(form.form != batch_form::none);
        alignas(64) T x_buffer[2 * W];
        alignas(64) T y_buffer[2 * W];
        const block_op<Op, form, P, O, X, Y> op({make_input<X>(x, xb, x_buffer), make_input<Y>(y, yb, y_buffer)},
                                                params);
        // out is exactly an input (a non-broadcast one) or disjoint from them
        const bool disjoint = (xb || out != x) && (yb || out != y);
        drive::run(op, out, n * reals_of(O), stream, true, disjoint);
    }

    template <elementwise_op Op, operand_kind X, operand_kind Y>
    static void binary(const T* x, bool xb, const T* y, bool yb, T* out, std::size_t n, const T* params,
                       bool stream) noexcept {
        using F = element_of<Op>;
        if constexpr (has_parameters_v<F, T>) {
            using P = typename F::template parameters<T>;
            constexpr bool plain = batch_form_of<F, V, void, X, Y>().form != batch_form::none;
            constexpr bool with = batch_form_of<F, V, P, X, Y>().form != batch_form::none;
            if (params != nullptr) {
                if constexpr (with) binary_with<Op, X, Y, P>(x, xb, y, yb, out, n, params, stream);
                else detail::scalar_binary<Op, X, Y, T>(x, xb, y, yb, out, n, params, stream);
            } else {
                if constexpr (plain) binary_with<Op, X, Y, void>(x, xb, y, yb, out, n, params, stream);
                else detail::scalar_binary<Op, X, Y, T>(x, xb, y, yb, out, n, params, stream);
            }
        } else {
            binary_with<Op, X, Y, void>(x, xb, y, yb, out, n, params, stream);
        }
    }

    /// Whether the table points at this struct for a form (else at the
    /// scalar kernel): some batch form exists, with or without parameters.
    template <elementwise_op Op, operand_kind... K>
    static constexpr bool vectorised() noexcept {
        using F = element_of<Op>;
        if constexpr (sizeof...(K) == 1 && componentwise_v<F>) {
            return batch_form_of<F, V, void, R>().form != batch_form::none;
        } else if constexpr (has_parameters_v<F, T>) {
            using P = typename F::template parameters<T>;
            return batch_form_of<F, V, void, K...>().form != batch_form::none ||
                   batch_form_of<F, V, P, K...>().form != batch_form::none;
        } else {
            return batch_form_of<F, V, void, K...>().form != batch_form::none;
        }
    }
};

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::isa
