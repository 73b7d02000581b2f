// The constexpr dispatch table: op tag -> candidate lowerings, the C++ form of
// Torch-TensorRT's complex unpacker table and converter registry.
//
// A lowering is a struct whose C++ name is its `name` (docs/ops.md and
// explain() lead to the code in one step; tests/ops/test_dispatch.cpp checks
// every row):
//
//   struct my_mul {
//       using op = realify::op::mul;                       // the tag it lowers
//       static constexpr std::string_view name = "my_mul";
//       static constexpr std::string_view formula = "…";   // for docs/ops.md
//       static constexpr int priority = realify::dispatch::priority::high;
//       template <class... A> static constexpr bool accepts = …;  // optional, compile-time validator
//       template <class... A> static bool supports(const A&...);  // optional, run-time validator
//       template <class... A> static auto apply(const A&...);     // the lowering: returns its result
//       template <class B, class... A>                            // optional: writes it into a buffer
//       static void apply_into(realify::out_arg<B>& out, const A&...);
//   };
//
// dispatch::call<Tag>(args…) runs the selected lowering's apply and returns
// its result. With an out= argument last, dispatch::call<Tag>(args…,
// realify::out(buffer)) selects the lowering on the other arguments alone
// and runs its apply_into, which must check the buffer (element type,
// shape, overlaps — see docs/ops.md), write the result there without
// allocating, and return nothing; the call returns the buffer. A lowering
// without apply_into still works with out=: its result is allocated by apply
// and copied into the buffer (with the same checks).
//
// Candidates for a tag are the user's (user_lowerings<Tag>) followed by the
// built-in ones (builtin_lowerings<Tag>), stably sorted by priority, highest
// first: like Torch-TensorRT's ConverterPriority.HIGH entries inserted at the
// front, and at equal priority a user's entry goes before a built-in one. A
// call picks the first candidate whose compile-time validator accepts the
// operand types and, if it has one, whose run-time validator accepts the
// operands (Torch-TensorRT's capability_validator). No candidate: one
// static_assert.
//
// Users extend or override the table from their own code, without editing the
// library, by specialising realify::dispatch::user_lowerings<Tag> BEFORE the
// first use of that op in the program (in a header every translation unit
// includes: a specialisation seen by only some translation units would break
// the one-definition rule):
//
//   template <> struct realify::dispatch::user_lowerings<realify::op::mul> {
//       using type = realify::type_list<my_mul>;
//   };
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "realify/dispatch/into.hpp"
#include "realify/dispatch/results.hpp"
#include "realify/ops/out.hpp"
#include "realify/ops/plain_container.hpp"
#include "realify/ops/tags.hpp"

namespace realify::dispatch {

/// Priorities of candidates; any int is allowed, higher is tried first.
struct priority {
    static constexpr int standard = 0;
    static constexpr int high = 100;
};

/// The library's candidates for an op (specialised beside each lowering).
template <class Tag>
struct builtin_lowerings {
    using type = type_list<>;
};

/// The extension point: specialise for an op tag to add or override lowerings.
template <class Tag>
struct user_lowerings {
    using type = type_list<>;
};

namespace detail {
template <class A, class B>
struct concat;
template <class... A, class... B>
struct concat<type_list<A...>, type_list<B...>> {
    using type = type_list<A..., B...>;
};

template <class L>
constexpr int priority_of() {
    if constexpr (requires { L::priority; }) return L::priority;
    else return priority::standard;
}

/// Indices of the candidates, stably sorted by descending priority.
template <class... L>
constexpr auto priority_order(type_list<L...>) {
    std::array<std::size_t, sizeof...(L)> order{};
    constexpr std::array<int, sizeof...(L)> prio{priority_of<L>()...};
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    // insertion sort: constexpr, stable, and the lists are a handful long
    for (std::size_t i = 1; i < order.size(); ++i) {
        for (std::size_t j = i; j > 0 && prio[order[j - 1]] < prio[order[j]]; --j) {
            const std::size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    }
    return order;
}

template <class List, class Sequence>
struct reorder;
template <class... L, std::size_t... I>
struct reorder<type_list<L...>, std::index_sequence<I...>> {
    static constexpr auto order = priority_order(type_list<L...>{});
    using type = type_list<std::tuple_element_t<order[I], std::tuple<L...>>...>;
};
template <class Tag>
using unsorted_candidates_t = typename concat<typename user_lowerings<Tag>::type, typename builtin_lowerings<Tag>::type>::type;
}  // namespace detail

/// Every candidate for Tag, highest priority first (user before built-in at equal priority).
template <class Tag>
using candidates_t = typename detail::reorder<detail::unsorted_candidates_t<Tag>,
                                              std::make_index_sequence<detail::unsorted_candidates_t<Tag>::size>>::type;

/// Compile-time validator of a candidate (true when it declares none).
template <class L, class... A>
inline constexpr bool accepts_v = [] {
    if constexpr (requires { L::template accepts<std::remove_cvref_t<A>...>; })
        return static_cast<bool>(L::template accepts<std::remove_cvref_t<A>...>);
    else
        return true;
}();

template <class L, class... A>
concept has_runtime_validator = requires(const std::remove_cvref_t<A>&... a) {
    { L::supports(a...) } -> std::convertible_to<bool>;
};

namespace detail {
template <class... L, class... A>
constexpr bool any_accepts(type_list<L...>, type_list<A...>) {
    return (accepts_v<L, A...> || ...);
}

template <class List>
struct at_impl;
template <class... L>
struct at_impl<type_list<L...>> {
    template <std::size_t I>
    using type = std::tuple_element_t<I, std::tuple<L...>>;
};

/// Tries candidates from position I on: compile-time validator first, then the run-time one.
template <std::size_t I, class List, class... A>
decltype(auto) call_from(A&&... args) {
    using L = typename at_impl<List>::template type<I>;
    if constexpr (!accepts_v<L, A...>) {
        return call_from<I + 1, List>(std::forward<A>(args)...);
    } else if constexpr (has_runtime_validator<L, A...>) {
        // A gated candidate: the next accepted one decides the result type.
        using fallback = decltype(call_from<I + 1, List>(std::forward<A>(args)...));
        if (L::supports(std::as_const(args)...)) return static_cast<fallback>(L::apply(std::forward<A>(args)...));
        return call_from<I + 1, List>(std::forward<A>(args)...);
    } else {
        return L::apply(std::forward<A>(args)...);
    }
}

template <class L, class B, class... A>
concept has_apply_into = requires(out_arg<B>& o, const std::remove_cvref_t<A>&... a) { L::apply_into(o, a...); };

/// Runs L into the buffer: its apply_into, or its apply and a copy.
template <class L, class B, class... A>
void run_into(out_arg<B>& o, A&&... args) {
    if constexpr (has_apply_into<L, B, A...>) L::apply_into(o, std::as_const(args)...);
    else copy_into(L::op::name, L::apply(std::forward<A>(args)...), o);
}

/// call_from for an out= call.
template <std::size_t I, class List, class B, class... A>
void call_into_from(out_arg<B>& o, A&&... args) {
    using L = typename at_impl<List>::template type<I>;
    if constexpr (!accepts_v<L, A...>) {
        call_into_from<I + 1, List>(o, std::forward<A>(args)...);
    } else if constexpr (has_runtime_validator<L, A...>) {
        if (L::supports(std::as_const(args)...)) run_into<L>(o, std::forward<A>(args)...);
        else call_into_from<I + 1, List>(o, std::forward<A>(args)...);
    } else {
        run_into<L>(o, std::forward<A>(args)...);
    }
}

template <class... A>
using last_t = std::tuple_element_t<sizeof...(A) - 1, std::tuple<A...>>;

/// The lowering a call with these operand types starts from (first compile-time accepted).
template <class List, class... A>
struct first_accepted;
template <class... L, class... A>
struct first_accepted<type_list<L...>, A...> {
    static constexpr std::size_t index = [] {
        constexpr std::array<bool, sizeof...(L)> ok{accepts_v<L, A...>...};
        for (std::size_t i = 0; i < ok.size(); ++i)
            if (ok[i]) return i;
        return ok.size();
    }();
};
}  // namespace detail

/// True when some candidate for Tag accepts these operand types.
template <class Tag, class... A>
inline constexpr bool has_lowering_v = detail::any_accepts(candidates_t<Tag>{}, type_list<std::remove_cvref_t<A>...>{});

/// The lowering a call of Tag on these operand types is tried with first
/// (ignoring run-time validators), e.g. for explain().
template <class Tag, class... A>
    requires has_lowering_v<Tag, A...>
using selected_lowering_t = typename detail::at_impl<candidates_t<Tag>>::template type<
    detail::first_accepted<candidates_t<Tag>, std::remove_cvref_t<A>...>::index>;

// The one error of a call no lowering accepts; the note after it shows
// has_lowering_v<realify::op::NAME, the operand types…>.
#define REALIFY_DISPATCH_NO_LOWERING                                                                                 \
    "realify: no lowering of this op accepts these operand types (the op tag and the types: the note "             \
    "has_lowering_v<realify::op::…, …> below). What each op accepts: docs/ops.md, or "                            \
    "realify::dispatch::print_table(std::cout)."

namespace detail {
/// What a refused call returns — a tensor of its first operand's element
/// type and rank (an empty xt::xarray when that is no tensor) — so that the
/// user's code after the call still compiles and the static_assert is the
/// only error.
template <class... A>
struct refused_result {
    using type = xt::xarray<double>;
};
template <class A0, class... A>
struct refused_result<A0, A...> {
    using type = typename realify::detail::stand_in<A0>::type;
};
template <class A0, class... A>
    requires tensor_operand<A0>
struct refused_result<A0, A...> {
    using V = operand_component_t<A0>;
    using type = realify::detail::owning_tensor_t<std::conditional_t<complex_tensor_operand<A0>, std::complex<V>, V>,
                                                  operand_rank_v<A0>>;
};
template <class... A>
using refused_result_t = typename refused_result<std::remove_cvref_t<A>...>::type;

template <class... A>
inline constexpr bool any_adapted_v = (adapted_argument<A> || ...);
}  // namespace detail

/// Runs the selected lowering of Tag into the buffer of `o`; returns the buffer.
template <class Tag, class B, class... A>
B call_into(out_arg<B>& o, A&&... args) {
    if constexpr (plain_container_operand<B>) {
        return into_plain_buffer(o, [&](auto& adapted) { call_into<Tag>(adapted, std::forward<A>(args)...); });
    } else {
        static_assert(has_lowering_v<Tag, A...>, REALIFY_DISPATCH_NO_LOWERING);
        if constexpr (has_lowering_v<Tag, A...>)
            detail::call_into_from<0, candidates_t<Tag>>(o, std::forward<A>(args)...);
        return take_buffer(o);
    }
}

/// Calls the selected lowering of Tag; with a realify::out(buffer) last,
/// writes into the buffer and returns it (see the header comment). Plain
/// containers (realify/ops/plain_container.hpp) are read through adaptors;
/// an argument that is no tensor realify reads, or operands no lowering
/// accepts, are ONE static_assert, and the call returns a tensor so that no
/// second error follows.
template <class Tag, class... A>
decltype(auto) call(A&&... args) {
    if constexpr (!readable_arguments<A...>()) {
        if constexpr (sizeof...(A) > 0 && output_argument<detail::last_t<A...>>)
            return take_buffer(std::get<sizeof...(A) - 1>(std::forward_as_tuple(args...)));
        else
            return detail::refused_result_t<A...>{};
    } else if constexpr (detail::any_adapted_v<A...>) {
        return call<Tag>(as_operand(std::forward<A>(args))...);
    } else if constexpr (sizeof...(A) > 0 && output_argument<detail::last_t<A...>>) {
        auto arguments = std::forward_as_tuple(std::forward<A>(args)...);
        auto& o = std::get<sizeof...(A) - 1>(arguments);
        return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
            return call_into<Tag>(o, std::get<I>(std::move(arguments))...);
        }(std::make_index_sequence<sizeof...(A) - 1>{});
    } else {
        static_assert(has_lowering_v<Tag, A...>, REALIFY_DISPATCH_NO_LOWERING);
        if constexpr (has_lowering_v<Tag, A...>)
            return detail::call_from<0, candidates_t<Tag>>(std::forward<A>(args)...);
        else
            return detail::refused_result_t<A...>{};
    }
}

#undef REALIFY_DISPATCH_NO_LOWERING

}  // namespace realify::dispatch
