// What the built-in lowerings share: running a pair kernel through the
// elementwise engine with PyTorch's type promotion, and lifting a real value
// to a pair.
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>

#include "realify/dispatch/elementwise.hpp"
#include "realify/dispatch/pair_math.hpp"
#include "realify/dispatch/registry.hpp"
#include "realify/ops/operand.hpp"
#include "realify/ops/promotion.hpp"
#include "realify/ops/tags.hpp"

namespace realify::dispatch::lowering {

using kernel::cpair;

/// A real value as a complex pair (x + 0i); pairs unchanged.
template <class T>
inline cpair<T> to_pair(cpair<T> z) { return z; }
template <class T>
    requires std::is_arithmetic_v<T>
inline cpair<T> to_pair(T x) { return {x, T(0)}; }

/// Runs `kernel` elementwise over the operands (NumPy broadcasting), in the
/// component type PyTorch's promotion gives them; the op tag names errors.
template <class Tag, class Kernel, class... A>
auto elementwise(const Kernel& kernel, const A&... args) {
    using T = promoted_real_t<A...>;
    constexpr std::size_t rank = broadcast_rank_v<A...>;
    std::tuple<realify::detail::prepared_for<T, A>...> prepared;
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        (realify::detail::prepare<T>(std::get<I>(prepared), args), ...);
        return realify::detail::run_elementwise<rank>(Tag::name, kernel, std::get<I>(prepared)...);
    }(std::index_sequence_for<A...>{});
}

/// True when an owning result holds an inf or NaN component (x − x is 0 only
/// for finite x; the scan vectorises).
template <class Layout>
bool has_non_finite(const Layout& result) {
    const auto& real = result.real_layout();
    const auto* p = real.data();
    bool bad = false;
    for (std::size_t i = 0, n = real.size(); i < n; ++i) bad |= (p[i] - p[i]) != 0;  // NaN for inf and NaN
    return bad;
}

/// The fast kernel everywhere; only if it produced a non-finite value, the
/// whole op again with the careful kernel (special values are rare, and the
/// fast loop stays branch-free so it vectorises).
template <class Tag, class Fast, class Careful, class... A>
auto elementwise_with_fixup(const Fast& fast, const Careful& careful, const A&... args) {
    auto result = elementwise<Tag>(fast, args...);
    if (has_non_finite(result)) [[unlikely]] result = elementwise<Tag>(careful, args...);
    return result;
}

/// An owning complex layout of component type T and complex rank Rank.
template <class T, std::size_t Rank>
using owning_layout_t = complex_layout<realify::detail::owning_tensor_t<T, rank_plus_one(Rank)>>;

}  // namespace realify::dispatch::lowering

/// Declares a built-in lowering `lowering::NAME` of op::OP with the given
/// compile-time validator, formula and body (a generic lambda `apply`).
#define REALIFY_BUILTIN_CANDIDATES(OP, ...)                                  \
    template <>                                                              \
    struct builtin_lowerings<::realify::op::OP> {                            \
        using type = ::realify::type_list<__VA_ARGS__>;                      \
    };
