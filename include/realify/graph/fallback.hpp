// The std::complex fallback: a user op no lowering of the dispatch table
// accepts is evaluated element by element on std::complex (or real) numbers,
// through its `reference` — that node only (one graph break); its operands
// and consumers stay lowered. In strict mode such a node does not compile
// (graph/evaluate.hpp).
#pragma once

#include <complex>
#include <cstddef>
#include <tuple>

#include "realify/dispatch/elementwise.hpp"
#include "realify/graph/loop_operands.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"

namespace realify::graph::detail {

template <bool Strict, class Tag, class R, class... C>
value_t<custom_node<Tag, R, C...>> fallback_on_std_complex(const custom_node<Tag, R, C...>& n, eval_context& ctx) {
    using N = custom_node<Tag, R, C...>;
    using T = typename traits_t<N>::real_type;
    auto leaves = std::apply([&](const auto&... c) { return std::make_tuple(leaf_of<Strict, T>(c, ctx)...); }, n.children);
    auto refs = std::apply([](const auto&... l) { return std::make_tuple(make_ref(l)...); }, leaves);
    const shape_vector shape =
        std::apply([&](const auto&... r) { return realify::detail::broadcast_shapes(Tag::name, r...); }, refs);
    constexpr bool complex_result = traits_t<N>::is_complex;
    auto result = allocate<T>(shape, complex_result);
    auto to_std = []<class X>(X x) {
        if constexpr (is_pair_v<X>) return std::complex<decltype(x.re)>(x.re, x.im);
        else return x;
    };
    auto kernel = [&](auto... loaded) {
        const auto r = n.reference(to_std(loaded)...);
        if constexpr (is_std_complex<std::remove_cvref_t<decltype(r)>>::value) return cpair<T>{T(r.real()), T(r.imag())};
        else return static_cast<T>(r);
    };
    std::apply([&](const auto&... r) { realify::detail::run_into<complex_result ? 2 : 1>(result.data, shape, kernel, r...); },
               refs);
    return result;
}

}  // namespace realify::graph::detail
