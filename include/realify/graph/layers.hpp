// Graph ops of a transformer layer besides the norms, PyTorch's names and
// argument order, each one node of the kernel rule (graph/kernel_ops.hpp):
// evaluated by the compiled code the eager API runs, reading its operands
// as they lie and writing out= buffers directly.
//
//   graph::linear(x, w[, b])          F.linear: x · wᵀ + b — w read through its
//                                     strides by the GEMM, never copied
//   graph::rope(x, freqs_cis[, start_pos[, layout]])
//                                     rotary embeddings of one (batch, seq,
//                                     heads, head_dim) tensor by the compiled
//                                     RoPE kernel; start_pos a number or an
//                                     integer node (graph::int_input)
//   graph::scaled_dot_product_attention(q, k, v[, attn_mask][, dropout_p,
//                                     is_causal, scale, enable_gqa])
//                                     F.scaled_dot_product_attention, fused
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "realify/errors.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/sizes.hpp"
#include "realify/graph/traits.hpp"
#include "realify/rope/pair_layout.hpp"

namespace realify::graph {

namespace detail {
template <class X>
inline constexpr bool real_float_node_v = !traits_t<X>::is_complex && std::is_floating_point_v<typename traits_t<X>::real_type>;
template <class X, class Y>
inline constexpr bool same_component_v = std::is_same_v<typename traits_t<X>::real_type, typename traits_t<Y>::real_type>;
}  // namespace detail

/// F.linear(x, w): x · wᵀ, w (out_features, in_features).
template <graph_node X, graph_node W>
node<op::linear, X, W> linear(X x, W w) {
    static_assert(traits_t<X>::is_complex == traits_t<W>::is_complex && detail::same_component_v<X, W> &&
                      std::is_floating_point_v<typename traits_t<X>::real_type>,
                  "realify::graph::linear: x and w must be float or double tensors of one dtype, both real or both complex");
    return node<op::linear, X, W>(detail::shared_attrs(), std::move(x), std::move(w));
}
/// F.linear(x, w, b): x · wᵀ + b.
template <graph_node X, graph_node W, graph_node B>
node<op::linear, X, W, B> linear(X x, W w, B b) {
    static_assert(traits_t<X>::is_complex == traits_t<W>::is_complex && traits_t<X>::is_complex == traits_t<B>::is_complex &&
                      detail::same_component_v<X, W> && detail::same_component_v<X, B> &&
                      std::is_floating_point_v<typename traits_t<X>::real_type>,
                  "realify::graph::linear: x, w and b must be float or double tensors of one dtype, all real or all complex");
    return node<op::linear, X, W, B>(detail::shared_attrs(), std::move(x), std::move(w), std::move(b));
}

namespace detail {
template <class X, class F>
constexpr void check_rope() {
    static_assert(real_float_node_v<X>, "realify::graph::rope: x must be a real float or double tensor (batch, seq, heads, head_dim)");
    static_assert(traits_t<F>::is_complex && same_component_v<X, F>,
                  "realify::graph::rope: freqs_cis must be complex in x's type (std::complex<float> for float x)");
}
}  // namespace detail

/// Rotary embeddings of x (batch, seq, heads, head_dim) by the rows
/// start_pos … of freqs_cis (end, head_dim / 2): interleaved pairs (Meta's
/// complex form) or half_split (GPT-NeoX / Hugging Face rotate_half).
template <graph_node X, graph_node F>
node<op::rope, X, F> rope(X x, F freqs_cis, std::ptrdiff_t start_pos = 0,
                          realify::rope::pair_layout layout = realify::rope::pair_layout::interleaved) {
    detail::check_rope<X, F>();
    return node<op::rope, X, F>(detail::with_ints(start_pos, layout == realify::rope::pair_layout::half_split ? 1 : 0),
                                std::move(x), std::move(freqs_cis));
}
/// An int64 tensor node, a position as PyTorch passes one (a 0-d tensor:
/// checked when the graph runs).
namespace detail {
template <class P>
inline constexpr bool int64_tensor_node_v = !traits_t<P>::is_complex && std::is_same_v<typename traits_t<P>::real_type, std::int64_t>;
}  // namespace detail

/// … at a run-time position: start_pos an integer node (graph::int_input,
/// graph::size) or a 0-d int64 tensor (graph::input<std::int64_t>, as
/// PyTorch's models pass positions).
template <graph_node X, graph_node F, graph_node P>
    requires(integer_node<P> || detail::int64_tensor_node_v<P>)
node<op::rope, X, F, P> rope(X x, F freqs_cis, P start_pos,
                             realify::rope::pair_layout layout = realify::rope::pair_layout::interleaved) {
    detail::check_rope<X, F>();
    return node<op::rope, X, F, P>(detail::with_ints(0, layout == realify::rope::pair_layout::half_split ? 1 : 0),
                                   std::move(x), std::move(freqs_cis), std::move(start_pos));
}

namespace detail {
template <class Q, class K, class V>
constexpr void check_attention() {
    static_assert(real_float_node_v<Q> && same_component_v<Q, K> && same_component_v<Q, V> && real_float_node_v<K> &&
                      real_float_node_v<V>,
                  "realify::graph::scaled_dot_product_attention: q, k and v must be real float or double tensors of one dtype");
}
/// The attributes: i0 is_causal, i1 enable_gqa, the scale when given.
inline node_attrs attention_attrs(double dropout_p, bool is_causal, std::optional<double> scale, bool enable_gqa) {
    if (dropout_p != 0.0)
        throw error("realify::graph::scaled_dot_product_attention: dropout_p must be 0 (inference only: realify has no "
                    "random dropout)");
    node_attrs a;
    a.i0 = is_causal ? 1 : 0;
    a.i1 = enable_gqa ? 1 : 0;
    if (scale) {
        a.scalar = *scale;
        a.has_scalar = true;
    }
    return a;
}
}  // namespace detail

/// F.scaled_dot_product_attention(q, k, v, None, dropout_p, is_causal, scale, enable_gqa).
template <graph_node Q, graph_node K, graph_node V>
node<op::scaled_dot_product_attention, Q, K, V> scaled_dot_product_attention(
    Q q, K k, V v, std::nullopt_t = std::nullopt, double dropout_p = 0.0, bool is_causal = false,
    std::optional<double> scale = std::nullopt, bool enable_gqa = false) {
    detail::check_attention<Q, K, V>();
    return node<op::scaled_dot_product_attention, Q, K, V>(detail::attention_attrs(dropout_p, is_causal, scale, enable_gqa),
                                                           std::move(q), std::move(k), std::move(v));
}
/// … with attn_mask: a bool node (true takes part: a comparison's) or one of
/// q's dtype (added); not with is_causal.
template <graph_node Q, graph_node K, graph_node V, graph_node M>
node<op::scaled_dot_product_attention, Q, K, V, M> scaled_dot_product_attention(
    Q q, K k, V v, M attn_mask, double dropout_p = 0.0, bool is_causal = false, std::optional<double> scale = std::nullopt,
    bool enable_gqa = false) {
    detail::check_attention<Q, K, V>();
    static_assert(!traits_t<M>::is_complex && (std::is_same_v<typename traits_t<M>::real_type, bool> ||
                                               detail::same_component_v<M, Q>),
                  "realify::graph::scaled_dot_product_attention: attn_mask must be a bool node or of q's dtype");
    if (is_causal)
        throw error("realify::graph::scaled_dot_product_attention: an attn_mask and is_causal = true cannot be given "
                    "together (PyTorch refuses them too)");
    return node<op::scaled_dot_product_attention, Q, K, V, M>(
        detail::attention_attrs(dropout_p, is_causal, scale, enable_gqa), std::move(q), std::move(k), std::move(v),
        std::move(attn_mask));
}

}  // namespace realify::graph
