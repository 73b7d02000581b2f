// Lowerings of the ops of a transformer layer besides the norms, each onto
// the compiled code that documents its semantics:
//
//   linear                        F.linear: x · wᵀ + b (realify/engine/linear.hpp:
//                                 one GEMM, the weight read through its strides)
//   rope                          rotary embeddings of one tensor
//                                 (realify/engine/rope.hpp, the RoPE kernel)
//   scaled_dot_product_attention  F.scaled_dot_product_attention, fused
//                                 (realify/engine/attention.hpp): real float or
//                                 double q, k, v of one type, a mask
//                                 (std::nullopt, bool or of q's type),
//                                 dropout_p (0 only: inference), is_causal,
//                                 scale (std::nullopt: 1/√E), enable_gqa
//
// Every operand is read in place; the result is written into its buffer
// directly.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include "realify/dispatch/lowerings/normalization.hpp"
#include "realify/engine/attention.hpp"
#include "realify/engine/linear.hpp"
#include "realify/engine/rope.hpp"

namespace realify::dispatch {
namespace lowering {

/// A mask argument: std::nullopt or a real (bool or floating) tensor.
template <class M>
inline constexpr bool optional_mask = [] {
    if constexpr (std::is_same_v<std::remove_cvref_t<M>, std::nullopt_t>) return true;
    else return real_tensor_operand<M> && (std::is_same_v<operand_component_t<M>, bool> ||
                                           std::is_floating_point_v<operand_component_t<M>>);
}();

template <class... A>
inline constexpr bool attention_arguments = false;  // q, k, v, mask, dropout_p, is_causal, scale, enable_gqa
template <class Q, class K, class V, class M, class D, class C, class S, class G>
inline constexpr bool attention_arguments<Q, K, V, M, D, C, S, G> =
    one_real_tensor<Q> && one_real_tensor<K> && one_real_tensor<V> && optional_mask<M> && std::is_same_v<D, double> &&
    std::is_same_v<C, bool> && std::is_same_v<S, std::optional<double>> && std::is_same_v<G, bool>;

namespace attention_detail {

/// realify::error unless dropout_p is 0: realify computes inference only.
inline void check_dropout(double dropout_p) {
    if (dropout_p == 0.0) return;
    std::ostringstream m;
    m << "realify::scaled_dot_product_attention: dropout_p must be 0 (inference only: realify has no random "
         "dropout), got "
      << dropout_p;
    throw error(m.str());
}

template <class Q, class K, class V, class M, class Write>
void with_refs(const Q& q, const K& k, const V& v, const M& mask, double dropout_p, bool is_causal,
               std::optional<double> scale, bool enable_gqa, Write&& write) {
    constexpr std::string_view op = ::realify::op::scaled_dot_product_attention::name;
    check_dropout(dropout_p);
    const engine::input<Q> qi(op, q);
    const engine::input<K> ki(op, k);
    const engine::input<V> vi(op, v);
    const normalization_detail::optional_input<M> mi(op, mask);
    const engine::attention_options options{mi.ref(), is_causal, scale, enable_gqa};
    write(qi.ref(), ki.ref(), vi.ref(), options);
}

}  // namespace attention_detail

// ---- linear ------------------------------------------------------------------------------

template <class X, class W>
inline constexpr bool same_kind_tensors =
    ((one_real_tensor<X> && one_real_tensor<W>) || (complex_tensor_operand<X> && complex_tensor_operand<W>)) &&
    std::is_same_v<operand_component_t<X>, operand_component_t<W>>;
template <class X, class B>
inline constexpr bool optional_bias = [] {
    if constexpr (std::is_same_v<std::remove_cvref_t<B>, std::nullopt_t>) return true;
    else return tensor_operand<B> && same_kind_tensors<X, B>;
}();

template <class... A>
inline constexpr bool linear_arguments = false;  // x, w, b (std::nullopt: none)
template <class X, class W, class B>
inline constexpr bool linear_arguments<X, W, B> =
    same_kind_tensors<X, W> && std::is_floating_point_v<operand_component_t<X>> && optional_bias<X, B>;

struct linear_gemm {
    using op = ::realify::op::linear;
    static constexpr std::string_view name = "linear_gemm";
    static constexpr std::string_view formula =
        "x · wᵀ + b: one GEMM with w read through its strides swapped (no copy of the weight), the bias added in one "
        "pass over the rows";
    template <class... A>
    static constexpr bool accepts = linear_arguments<A...>;

    template <class X, class W, class B>
    static auto apply(const X& x, const W& w, const B& b) {
        using R = result_t<element_t<X>, operand_rank_v<X>, X, W>;
        const engine::input<X> xi(op::name, x);
        const engine::input<W> wi(op::name, w);
        const normalization_detail::optional_input<B> bi(op::name, b);
        R result = allocate_result<R>(engine::linear_shape(op::name, xi.ref(), wi.ref(), bi.ref()));
        engine::linear(op::name, xi.ref(), wi.ref(), bi.ref(), engine::output_ref(op::name, result));
        return result;
    }
    template <class O, class X, class W, class B>
    static void apply_into(out_arg<O>& o, const X& x, const W& w, const B& b) {
        check_out_type<element_t<X>, O>();
        const engine::input<X> xi(op::name, x);
        const engine::input<W> wi(op::name, w);
        const normalization_detail::optional_input<B> bi(op::name, b);
        engine::linear(op::name, xi.ref(), wi.ref(), bi.ref(), out_ref(op::name, o));
    }
};

// ---- rope ------------------------------------------------------------------------------------

template <class... A>
inline constexpr bool rope_arguments = false;  // x, freqs_cis, start_pos, layout
template <class X, class F, class P, class L>
inline constexpr bool rope_arguments<X, F, P, L> =
    one_real_tensor<X> && complex_tensor_operand<F> && std::is_same_v<operand_component_t<X>, operand_component_t<F>> &&
    std::is_integral_v<P> && std::is_same_v<L, ::realify::rope::pair_layout>;

struct rope_rotate_pairs {
    using op = ::realify::op::rope;
    static constexpr std::string_view name = "rope_rotate_pairs";
    static constexpr std::string_view tolerance = "bit for bit the (xq, xk) form's (its kernel)";
    static constexpr std::string_view formula =
        "each pair (x[2j], x[2j+1]) — half_split: (x[j], x[j + D/2]) — times freqs_cis[start_pos + s, j], by the "
        "compiled RoPE kernel through x's and out's strides";
    template <class... A>
    static constexpr bool accepts = rope_arguments<A...>;

    template <class X, class F>
    static auto apply(const X& x, const F& freqs, std::ptrdiff_t start_pos, ::realify::rope::pair_layout layout) {
        using R = result_t<operand_component_t<X>, operand_rank_v<X>, X>;
        const engine::input<X> xi(op::name, x);
        const engine::input<F> fi(op::name, freqs);
        R result = allocate_result<R>(xi.ref().shape);
        engine::rope(op::name, xi.ref(), fi.ref(), start_pos, layout, engine::output_ref(op::name, result));
        return result;
    }
    template <class O, class X, class F>
    static void apply_into(out_arg<O>& o, const X& x, const F& freqs, std::ptrdiff_t start_pos,
                           ::realify::rope::pair_layout layout) {
        check_out_type<operand_component_t<X>, O>();
        const engine::input<X> xi(op::name, x);
        const engine::input<F> fi(op::name, freqs);
        engine::rope(op::name, xi.ref(), fi.ref(), start_pos, layout, out_ref(op::name, o));
    }
};

// ---- scaled_dot_product_attention ------------------------------------------------------------

struct attention_online_softmax {
    using op = ::realify::op::scaled_dot_product_attention;
    static constexpr std::string_view name = "attention_online_softmax";
    static constexpr std::string_view tolerance =
        "f32 16·ε·√(S + E)·(1 + |ref|) of the float64 formula; goldens f32 rtol 1e-5 atol 1e-6, f64 rtol 1e-12";
    static constexpr std::string_view formula =
        "softmax(q·kᵀ·scale + mask)·v in one pass over the keys per block of ≤ 64 query rows: online softmax (running "
        "max and sum, the accumulator rescaled), the L×S scores never in memory";
    template <class... A>
    static constexpr bool accepts = attention_arguments<A...>;

    template <class Q, class K, class V, class M>
    static auto apply(const Q& q, const K& k, const V& v, const M& mask, double dropout_p, bool is_causal,
                      std::optional<double> scale, bool enable_gqa) {
        using R = result_t<operand_component_t<Q>, broadcast_rank_v<Q, K, V>, Q, K, V>;
        std::optional<R> result;
        attention_detail::with_refs(q, k, v, mask, dropout_p, is_causal, scale, enable_gqa,
                                    [&](const engine::tensor_ref& qr, const engine::tensor_ref& kr,
                                        const engine::tensor_ref& vr, const engine::attention_options& options) {
                                        result.emplace(allocate_result<R>(engine::attention_shape(op::name, qr, kr, vr, options)));
                                        engine::attention(op::name, qr, kr, vr, options, engine::output_ref(op::name, *result));
                                    });
        return std::move(*result);
    }
    template <class O, class Q, class K, class V, class M>
    static void apply_into(out_arg<O>& o, const Q& q, const K& k, const V& v, const M& mask, double dropout_p,
                           bool is_causal, std::optional<double> scale, bool enable_gqa) {
        check_out_type<operand_component_t<Q>, O>();
        attention_detail::with_refs(q, k, v, mask, dropout_p, is_causal, scale, enable_gqa,
                                    [&](const engine::tensor_ref& qr, const engine::tensor_ref& kr,
                                        const engine::tensor_ref& vr, const engine::attention_options& options) {
                                        engine::attention(op::name, qr, kr, vr, options, out_ref(op::name, o));
                                    });
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(linear, lowering::linear_gemm)
REALIFY_BUILTIN_CANDIDATES(rope, lowering::rope_rotate_pairs)
REALIFY_BUILTIN_CANDIDATES(scaled_dot_product_attention, lowering::attention_online_softmax)

}  // namespace realify::dispatch
