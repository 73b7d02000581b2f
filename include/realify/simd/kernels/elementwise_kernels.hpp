// The per-instruction-set elementwise kernels (realify/simd/elementwise.hpp):
// one driver that runs any element kernel's batch form over contiguous data,
// instantiated once per (op, operand kinds, element type) in each
// per-instruction-set translation unit (src/simd/isa_*.cpp).
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
// Include only from the per-instruction-set translation units.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "realify/kernels.hpp"
#include "realify/simd/elementwise.hpp"
#include "realify/simd/kernels/driver.hpp"
#include "realify/simd/kernels/primitives.hpp"
#include "realify/simd/kernels/scalar_kernels.hpp"
#include "realify/simd/kernels/vocabulary.hpp"

namespace realify::simd::kernels {
inline namespace REALIFY_SIMD_KERNEL_NAMESPACE {

/// Reals per element of an operand kind.
constexpr std::size_t reals_of(operand_kind k) noexcept { return k == operand_kind::complex ? 2 : 1; }

/// The element kernel of a compiled op.
template <elementwise_op Op>
using element_of = kernel::element<elementwise_tag_t<Op>>;

template <class F>
inline constexpr bool componentwise_v = requires { requires F::componentwise; };

template <class F, class T>
inline constexpr bool has_parameters_v = requires { typename F::template parameters<T>; };

/// The argument types of the batch forms for operand kinds K.
template <class V, operand_kind K>
using interleaved_arg_t =
    std::conditional_t<K == operand_kind::complex, kernel::pairs<typename V::batch>, kernel::paired_real<typename V::batch>>;
template <class V, operand_kind K>
using simd_arg_t = std::conditional_t<K == operand_kind::complex, cpair<typename V::batch>, typename V::batch>;

/// Which batch form F has for operand kinds K (and parameters P, or none).
enum class batch_form { none, interleaved, simd };
template <class F, class V, class P, operand_kind... K>
constexpr batch_form batch_form_of() noexcept {
    if constexpr (std::is_void_v<P>) {
        if constexpr (requires(typename V::mask& m) { F::template interleaved<V>(interleaved_arg_t<V, K>{}..., m); })
            return batch_form::interleaved;
        else if constexpr (requires(typename V::mask& m) { F::template simd<V>(simd_arg_t<V, K>{}..., m); })
            return batch_form::simd;
        else
            return batch_form::none;
    } else {
        if constexpr (requires(typename V::mask& m, const P& p) {
                          F::template interleaved<V>(interleaved_arg_t<V, K>{}..., p, m);
                      })
            return batch_form::interleaved;
        else if constexpr (requires(typename V::mask& m, const P& p) {
                               F::template simd<V>(simd_arg_t<V, K>{}..., p, m);
                           })
            return batch_form::simd;
        else
            return batch_form::none;
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
    /// or 0 for a broadcast element held W times in a buffer.
    struct input {
        const T* p;
        std::size_t advance;
    };

    /// No parameters.
    struct no_parameters {};

    /// The block of `Op` on inputs of kinds K..., result kind O, parameters P
    /// (void: none); Form is the batch form it runs.
    template <elementwise_op Op, batch_form Form, class P, operand_kind O, operand_kind... K>
    struct block_op {
        using F = element_of<Op>;
        static constexpr std::size_t inputs = sizeof...(K);
        static constexpr std::size_t step = W * reals_of(O);  // output reals per block
        static constexpr std::size_t element_reals = reals_of(O);
        static constexpr std::size_t scratch_reals = 2 * W;
        // Real operands and results pass through the lane order of
        // deinterleave when a complex operand or result is in the block.
        static constexpr bool lane_order = ((O == C) || ... || (K == C));

        using parameters_type = std::conditional_t<std::is_void_v<P>, no_parameters, P>;

        std::array<input, inputs> in;
        const T* params;  // for the scalar fix-up
        [[no_unique_address]] parameters_type p;

        block_op(std::array<input, inputs> in_, const T* params_) noexcept
            : in(in_), params(params_), p(make_parameters(params_)) {}
        static parameters_type make_parameters(const T* params_) noexcept {
            if constexpr (std::is_void_v<P>) return {};
            else return P(params_);
        }

        template <std::size_t I, operand_kind K_>
        const T* at(std::size_t e) const noexcept {
            return in[I].p + e * reals_of(K_) * in[I].advance;
        }

        template <std::size_t I, operand_kind K_>
        simd_arg_t<V, K_> load_simd(std::size_t e) const noexcept {
            const T* q = at<I, K_>(e);
            if constexpr (K_ == C) {
                return deinterleave(batch::load_unaligned(q), batch::load_unaligned(q + W), A{});
            } else {
                const batch r = batch::load_unaligned(q);
                if constexpr (lane_order) return to_lane_order(r, A{});
                else return r;
            }
        }
        template <std::size_t I, operand_kind K_>
        interleaved_arg_t<V, K_> load_half(std::size_t e, std::size_t half) const noexcept {
            const T* q = at<I, K_>(e);
            if constexpr (K_ == C) {
                return {batch::load_unaligned(q + half * W)};
            } else {
                const batch r = batch::load_unaligned(q);
                return {half == 0 ? expand_low(r, A{}) : expand_high(r, A{})};
            }
        }

        template <class... Args>
        auto call_simd(mask& redo, const Args&... args) const noexcept {
            if constexpr (std::is_void_v<P>) return F::template simd<V>(args..., redo);
            else return F::template simd<V>(args..., p, redo);
        }
        template <class... Args>
        auto call_interleaved(mask& redo, const Args&... args) const noexcept {
            if constexpr (std::is_void_v<P>) return F::template interleaved<V>(args..., redo);
            else return F::template interleaved<V>(args..., p, redo);
        }

        /// Element k of the block at e, by the scalar form, into out.
        void scalar(std::size_t e, std::size_t k, T* out) const noexcept {
            [&]<std::size_t... I>(std::index_sequence<I...>) {
                constexpr operand_kind kinds[] = {K...};
                if constexpr (inputs == 1)
                    detail::scalar_unary<Op, kinds[0], T>(at<0, kinds[0]>(e + k), out, 1, params, false);
                else
                    detail::scalar_binary<Op, kinds[0], kinds[1], T>(at<0, kinds[0]>(e + k), false,
                                                                     at<1, kinds[1]>(e + k), false, out, 1, params,
                                                                     false);
            }(std::make_index_sequence<inputs>{});
        }

        /// Stores the block's result registers (o[0..step/W)) through store,
        /// after recomputing the elements whose flag is set in `flags`
        /// (element order, one T per element, nonzero = redo).
        template <class Store>
        void finish(std::size_t i, std::size_t e, const batch* o, bool any_redo, const T* flags,
                    Store& store) const noexcept {
            constexpr std::size_t registers = step / W;
            if (!any_redo) {
                for (std::size_t r = 0; r < registers; ++r) store(i + r * W, o[r]);
                return;
            }
            alignas(64) T result[step];
            for (std::size_t r = 0; r < registers; ++r) o[r].store_aligned(result + r * W);
            for (std::size_t k = 0; k < W; ++k)
                if (flags[k] != T(0)) scalar(e, k, result + k * reals_of(O));
            for (std::size_t r = 0; r < registers; ++r) store(i + r * W, batch::load_aligned(result + r * W));
        }

        template <class Store>
        void operator()(std::size_t i, Store& store) const noexcept {
            const std::size_t e = i / reals_of(O);  // the block's first element
            [&]<std::size_t... I>(std::index_sequence<I...>) {
                constexpr operand_kind kinds[] = {K...};
                batch o[step / W];
                alignas(64) T flags[W];
                mask redo = V::none();
                if constexpr (Form == batch_form::simd) {
                    const auto r = call_simd(redo, load_simd<I, kinds[I]>(e)...);
                    if constexpr (O == C) {
                        const cpair<batch> pairs = interleave(r.re, r.im, A{});
                        o[0] = pairs.re;
                        o[1] = pairs.im;
                    } else if constexpr (lane_order) {
                        o[0] = from_lane_order(r, A{});
                    } else {
                        o[0] = r;
                    }
                    const bool any_redo = V::any(redo);
                    if (any_redo) {
                        const batch f = V::select(redo, batch(T(1)), batch(T(0)));
                        (lane_order ? from_lane_order(f, A{}) : f).store_aligned(flags);
                    }
                    finish(i, e, o, any_redo, flags, store);
                } else {
                    static_assert(Form == batch_form::interleaved && O == C);
                    mask redo_high = V::none();
                    o[0] = call_interleaved(redo, load_half<I, kinds[I]>(e, 0)...).v;
                    o[1] = call_interleaved(redo_high, load_half<I, kinds[I]>(e, 1)...).v;
                    const bool any_redo = V::any(redo | redo_high);
                    if (any_redo) {
                        // Component flags → element flags: a pair is redone
                        // when either of its parts is flagged.
                        alignas(64) T parts[2 * W];
                        V::select(redo, batch(T(1)), batch(T(0))).store_aligned(parts);
                        V::select(redo_high, batch(T(1)), batch(T(0))).store_aligned(parts + W);
                        for (std::size_t k = 0; k < W; ++k) flags[k] = parts[2 * k] + parts[2 * k + 1];
                    }
                    finish(i, e, o, any_redo, flags, store);
                }
            }(std::make_index_sequence<inputs>{});
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
        constexpr batch_form form = batch_form_of<F, V, P, K>();
        static_assert(form != batch_form::none);
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
            constexpr bool plain = batch_form_of<F, V, void, K>() != batch_form::none;
            constexpr bool with = batch_form_of<F, V, P, K>() != batch_form::none;
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
        constexpr batch_form form = batch_form_of<F, V, P, X, Y>();
        static_assert(form != batch_form::none);
        alignas(64) T x_buffer[2 * W];
        alignas(64) T y_buffer[2 * W];
        const block_op<Op, form, P, O, X, Y> op({make_input<X>(x, xb, x_buffer), make_input<Y>(y, yb, y_buffer)},
                                                params);
        drive::run(op, out, n * reals_of(O), stream);
    }

    template <elementwise_op Op, operand_kind X, operand_kind Y>
    static void binary(const T* x, bool xb, const T* y, bool yb, T* out, std::size_t n, const T* params,
                       bool stream) noexcept {
        using F = element_of<Op>;
        if constexpr (has_parameters_v<F, T>) {
            using P = typename F::template parameters<T>;
            constexpr bool plain = batch_form_of<F, V, void, X, Y>() != batch_form::none;
            constexpr bool with = batch_form_of<F, V, P, X, Y>() != batch_form::none;
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
            return batch_form_of<F, V, void, R>() != batch_form::none;
        } else if constexpr (has_parameters_v<F, T>) {
            using P = typename F::template parameters<T>;
            return batch_form_of<F, V, void, K...>() != batch_form::none ||
                   batch_form_of<F, V, P, K...>() != batch_form::none;
        } else {
            return batch_form_of<F, V, void, K...>() != batch_form::none;
        }
    }
};

}  // inline namespace REALIFY_SIMD_KERNEL_NAMESPACE
}  // namespace realify::simd::kernels
