// The std::complex fallback: a user op no lowering of the dispatch table
// accepts is evaluated element by element on std::complex (or real) numbers,
// through its `reference`, run by the elementwise engine as a user's element
// function (dispatch::lowering::elementwise) — that node only (one graph
// break); its operands and consumers stay lowered. In strict mode such a node does not compile
// (graph::program, graph/program.hpp).
#pragma once

#include <complex>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "realify/dispatch/lowerings/common.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/table_route.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"

namespace realify::graph::detail {

using kernels::cpair;

/// A complex pair (kernels::cpair) rather than a real number.
template <class X>
inline constexpr bool is_pair_v = !std::is_arithmetic_v<X>;

template <class N>
struct fallback_loop;
template <class Tag, class R, class... C>
struct fallback_loop<custom_node<Tag, R, C...>> {
    using N = custom_node<Tag, R, C...>;
    using T = typename traits_t<N>::real_type;

    /// The reference on one element: pairs in as std::complex, out as a pair.
    struct on_std_complex {
        const N* node;
        template <class... X>
        auto operator()(X... x) const {
            auto to_std = []<class V>(V v) {
                if constexpr (is_pair_v<V>) return std::complex<decltype(v.re)>(v.re, v.im);
                else return v;
            };
            const auto r = node->reference(to_std(x)...);
            if constexpr (is_std_complex<std::remove_cvref_t<decltype(r)>>::value) return cpair<T>{T(r.real()), T(r.imag())};
            else return static_cast<T>(r);
        }
    };

    /// The children's values first (they own the memory the operands view),
    /// then the reference run by the engine as a user's element function.
    static graph_value evaluate(const ir_node& self, eval_context& ctx, const buffer_layout*) {
        const on_std_complex f{static_cast<const N*>(self.object)};
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            const std::tuple<held<operand_kind_t<C>>...> values{held<operand_kind_t<C>>(ctx, self.children[I])...};
            return graph_value(from_result<T>(dispatch::lowering::elementwise<Tag>(f, std::get<I>(values).operand()...)));
        }(std::index_sequence_for<C...>{});
    }
};

/// The evaluator of a user op no lowering accepts: its reference, element
/// by element, over its children's values.
template <class N>
graph_value evaluate_fallback(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
    return fallback_loop<N>::evaluate(self, ctx, target);
}

}  // namespace realify::graph::detail
