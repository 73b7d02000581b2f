// The eager ops of a transformer layer besides the norms, PyTorch's names and
// argument order (torch.nn.functional):
//
//   realify::linear(x, w[, b])       F.linear: x · wᵀ + b, w (out_features, in_features)
//                                    read through its strides (never copied);
//                                    real float/double, or all complex
//   realify::scaled_dot_product_attention(q, k, v[, attn_mask, dropout_p,
//                                    is_causal, scale, enable_gqa])
//                                    F.scaled_dot_product_attention, fused
//                                    (realify/engine/attention.hpp)
//
// Each takes an optional realify::out(buffer) last, after every other
// argument (defaults spelled out): linear(x, w, std::nullopt, out(y)),
// scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, true, std::nullopt,
// false, out(y)). Rotary embeddings of one tensor are
// realify::rope::apply_rotary_emb(x, freqs_cis, start_pos) (realify/rope.hpp).
#pragma once

#include <optional>
#include <utility>

#include "realify/dispatch/lowerings.hpp"
#include "realify/eager/elementwise.hpp"

namespace realify {

/// F.linear(x, w): x · wᵀ.
template <class X, class W, class... O>
    requires detail::optional_out<O...>
decltype(auto) linear(const X& x, const W& w, O&&... o) {
    return dispatch::call<op::linear>(tensor_argument(x), tensor_argument(w), std::nullopt, std::forward<O>(o)...);
}
/// F.linear(x, w, b): x · wᵀ + b (b: a tensor of out_features, or std::nullopt).
template <class X, class W, class B, class... O>
    requires(!output_argument<B> && detail::optional_out<O...>)
decltype(auto) linear(const X& x, const W& w, const B& b, O&&... o) {
    if constexpr (std::is_same_v<B, std::nullopt_t>)
        return dispatch::call<op::linear>(tensor_argument(x), tensor_argument(w), std::nullopt, std::forward<O>(o)...);
    else
        return dispatch::call<op::linear>(tensor_argument(x), tensor_argument(w), tensor_argument(b), std::forward<O>(o)...);
}

/// F.scaled_dot_product_attention(q, k, v): no mask, not causal, scale 1/√E.
template <class Q, class K, class V, class... O>
    requires detail::optional_out<O...>
decltype(auto) scaled_dot_product_attention(const Q& q, const K& k, const V& v, O&&... o) {
    return dispatch::call<op::scaled_dot_product_attention>(tensor_argument(q), tensor_argument(k), tensor_argument(v),
                                                            std::nullopt, 0.0, false, std::optional<double>(), false,
                                                            std::forward<O>(o)...);
}
/// F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal,
/// scale, enable_gqa): attn_mask std::nullopt, a bool tensor (true takes
/// part) or one of q's dtype (added); dropout_p must be 0.
template <class Q, class K, class V, class M, class... O>
    requires(!output_argument<M> && detail::optional_out<O...>)
decltype(auto) scaled_dot_product_attention(const Q& q, const K& k, const V& v, const M& attn_mask, double dropout_p = 0.0,
                                            bool is_causal = false, std::optional<double> scale = std::nullopt,
                                            bool enable_gqa = false, O&&... o) {
    auto call = [&](const auto& mask) -> decltype(auto) {
        return dispatch::call<op::scaled_dot_product_attention>(tensor_argument(q), tensor_argument(k), tensor_argument(v),
                                                                mask, dropout_p, is_causal, scale, enable_gqa,
                                                                std::forward<O>(o)...);
    };
    if constexpr (std::is_same_v<M, std::nullopt_t>) return call(std::nullopt);
    else return call(tensor_argument(attn_mask));
}

}  // namespace realify
