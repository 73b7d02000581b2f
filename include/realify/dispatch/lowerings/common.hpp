// What the built-in lowerings share: running an element kernel
// (realify/kernels) through the elementwise engine with PyTorch's type
// promotion.
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>

#include "realify/dispatch/elementwise.hpp"
#include "realify/kernels.hpp"
#include "realify/dispatch/registry.hpp"
#include "realify/ops/operand.hpp"
#include "realify/ops/promotion.hpp"
#include "realify/ops/tags.hpp"

namespace realify::dispatch::lowering {

using kernel::cpair;
using kernel::element;
using kernel::to_pair;

/// Runs `kernel` (an element kernel or a lambda on its scalar forms) elementwise over the operands (NumPy broadcasting), in the
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
