// Lowerings of the ops that order real values — maximum, minimum,
// clamp_min, clamp_max and clamp — for real (float, double) tensors and
// numbers. Each runs the compiled kernels of realify/kernels/ordering.hpp
// (the semantics: NaN propagates, ±0 ordered, clamp keeps x on a bound);
// clamp with both bounds is clamp_min then clamp_max in one pass (a block
// loop, realify/engine/fused_loop.hpp). Complex operands have no lowering:
// the eager and graph entry points refuse them with one static_assert, as
// PyTorch refuses them.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

#include "realify/dispatch/lowerings/arithmetic.hpp"
#include "realify/engine/fused_loop.hpp"

namespace realify::dispatch {
namespace lowering {

/// A binary ordering op Tag: its compiled kernel Op on two real operands
/// (one a tensor); exact — it picks one of its operands (or NaN).
template <class Tag, simd::elementwise_op Op>
struct ordering_of {
    using op = Tag;
    static constexpr std::string_view tolerance = "exact";
    template <class... A>
    static constexpr bool accepts = real_pair<A...>;
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        return compiled_call<Op>::run(op::name, std::nullopt, a, b);
    }
    template <class O, class A, class B>
    static void apply_into(out_arg<O>& o, const A& a, const B& b) {
        compiled_call<Op>::into(op::name, o, std::nullopt, a, b);
    }
};
struct maximum_reals : ordering_of<::realify::op::maximum, simd::elementwise_op::maximum> {
    static constexpr std::string_view name = "maximum_reals";
    static constexpr std::string_view formula = "the larger; NaN if either is; +0 above −0 (IEEE 754-2019 maximum, symmetric)";
};
struct minimum_reals : ordering_of<::realify::op::minimum, simd::elementwise_op::minimum> {
    static constexpr std::string_view name = "minimum_reals";
    static constexpr std::string_view formula = "the smaller; NaN if either is; −0 below +0 (IEEE 754-2019 minimum, symmetric)";
};
struct clamp_min_reals : ordering_of<::realify::op::clamp_min, simd::elementwise_op::clamp_min> {
    static constexpr std::string_view name = "clamp_min_reals";
    static constexpr std::string_view formula = "x < lo ? lo : x; NaN if x or lo is";
};
struct clamp_max_reals : ordering_of<::realify::op::clamp_max, simd::elementwise_op::clamp_max> {
    static constexpr std::string_view name = "clamp_max_reals";
    static constexpr std::string_view formula = "x > hi ? hi : x; NaN if x or hi is";
};

/// A bound of clamp: a real tensor or number, or std::nullopt (none).
template <class B>
inline constexpr bool is_none_v = std::is_same_v<std::remove_cvref_t<B>, std::nullopt_t>;
template <class B>
inline constexpr bool clamp_bound = real_operand<B> || is_none_v<B>;

template <class... A>
inline constexpr bool clamp_operands = false;
template <class A, class L, class H>
inline constexpr bool clamp_operands<A, L, H> = one_real_tensor<A> && clamp_bound<L> && clamp_bound<H> &&
                                                !(is_none_v<L> && is_none_v<H>);

/// clamp(x, lo, hi): clamp_min then clamp_max, one pass; a bound given as
/// std::nullopt is left out (at least one is given, as PyTorch requires).
struct clamp_reals {
    using op = ::realify::op::clamp;
    static constexpr std::string_view name = "clamp_reals";
    static constexpr std::string_view formula =
        "clamp_max(clamp_min(x, lo), hi) in one pass: hi where lo > hi (as PyTorch); NaN if x or a bound is";
    static constexpr std::string_view tolerance = "exact";
    template <class... A>
    static constexpr bool accepts = clamp_operands<A...>;

    /// f(refs, loop) with the loop over the given operands (x, then lo and/or hi).
    template <class F, class A, class L, class H>
    static decltype(auto) with_loop(const F& f, const A& a, const L& lo, const H& hi) {
        auto run = [&](const auto&... present) -> decltype(auto) {
            using T = promoted_real_t<std::remove_cvref_t<decltype(present)>...>;
            constexpr std::array<bool, sizeof...(present)> kinds{};  // every operand real
            engine::fused_loop loop(engine::component_of<T>(), kinds);
            engine::step_operand x = loop.input(0);
            std::size_t next = 1;
            if constexpr (!is_none_v<L>) {
                const std::array<engine::step_operand, 2> operands{x, loop.input(next++)};
                x = loop.append(simd::elementwise_op::clamp_min, operands);
            }
            if constexpr (!is_none_v<H>) {
                const std::array<engine::step_operand, 2> operands{x, loop.input(next++)};
                loop.append(simd::elementwise_op::clamp_max, operands);
            }
            const engine::operand_list in(op::name, engine::operands_of(present...));
            return f.template operator()<T>(in.refs(), loop, present...);
        };
        if constexpr (is_none_v<L>) return run(a, hi);
        else if constexpr (is_none_v<H>) return run(a, lo);
        else return run(a, lo, hi);
    }

    template <class A, class L, class H>
    static auto apply(const A& a, const L& lo, const H& hi) {
        return with_loop(
            []<class T>(std::span<const engine::tensor_ref> refs, const engine::fused_loop& loop, const auto&... present) {
                using R = result_t<T, broadcast_rank_v<std::remove_cvref_t<decltype(present)>...>,
                                   std::remove_cvref_t<decltype(present)>...>;
                R result = allocate_result<R>(engine::broadcast_shape(op::name, refs));
                auto o = out(result);
                engine::evaluate_loop(op::name, loop, refs, out_ref(op::name, o));
                return result;
            },
            a, lo, hi);
    }
    template <class O, class A, class L, class H>
    static void apply_into(out_arg<O>& o, const A& a, const L& lo, const H& hi) {
        with_loop(
            [&o]<class T>(std::span<const engine::tensor_ref> refs, const engine::fused_loop& loop, const auto&...) {
                check_out_type<T, O>();
                engine::evaluate_loop(op::name, loop, refs, out_ref(op::name, o));
            },
            a, lo, hi);
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(maximum, lowering::maximum_reals)
REALIFY_BUILTIN_CANDIDATES(minimum, lowering::minimum_reals)
REALIFY_BUILTIN_CANDIDATES(clamp_min, lowering::clamp_min_reals)
REALIFY_BUILTIN_CANDIDATES(clamp_max, lowering::clamp_max_reals)
REALIFY_BUILTIN_CANDIDATES(clamp, lowering::clamp_reals)

}  // namespace realify::dispatch
