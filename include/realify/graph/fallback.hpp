// The std::complex fallback: a user op no lowering of the dispatch table
// accepts is evaluated element by element on std::complex (or real) numbers,
// through its `reference` — that node only (one graph break); its operands
// and consumers stay lowered. In strict mode such a node does not compile
// (graph/evaluate.hpp).
#pragma once

#include <any>
#include <complex>
#include <cstddef>
#include <tuple>

#include "realify/dispatch/elementwise.hpp"
#include "realify/graph/loop_operands.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"

namespace realify::graph::detail {

template <class N>
struct fallback_loop;
template <class Tag, class R, class... C>
struct fallback_loop<custom_node<Tag, R, C...>> {
    using N = custom_node<Tag, R, C...>;
    using T = typename traits_t<N>::real_type;

    static std::any evaluate(const ir_node& self, eval_context& ctx, const buffer_layout*) {
        const N& n = *static_cast<const N*>(self.object);
        auto leaves = leaves_from<T, operand_kind_t<C>...>(ctx, self.children);
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
};

/// The evaluator of a user op no lowering accepts: its reference, element
/// by element, over its children's values.
template <class N>
std::any evaluate_fallback(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
    return fallback_loop<N>::evaluate(self, ctx, target);
}

}  // namespace realify::graph::detail
