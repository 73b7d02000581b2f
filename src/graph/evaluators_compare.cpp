// The core registry's comparisons, logical ops and graph::to<T> conversions
// (graph/evaluator_registry.hpp): graph::custom nodes of realify's own tags,
// each lowered by its table entry, on bool, integer and floating tensors and
// numbers.
#include <complex>
#include <cstdint>

#include "realify/graph/cast.hpp"
#include "realify/graph/compare.hpp"
#include "realify/graph/evaluator_registry.hpp"

namespace realify::graph::detail {

namespace {

template <class Tag, class... C>
void add_custom(evaluator_part& part) {
    add_node<custom_node<Tag, typename Tag::reference, C...>>(part);
}

/// Tag on two tensors of kind E and on a tensor of kind E and a number of each type S, either way round.
template <template <class...> class Add, class Tag, class E, class... S>
void add_pairs(evaluator_part& part) {
    using X = input_node<E>;
    Add<Tag, X, X>::to(part);
    (Add<Tag, X, scalar_node<S>>::to(part), ...);
    (Add<Tag, scalar_node<S>, X>::to(part), ...);
}

template <class Tag, class A, class B>
struct add_comparison {
    static void to(evaluator_part& part) { add_node<custom_node<Tag, typename Tag::compare, A, B>>(part); }
};
template <class Tag, class A, class B>
struct add_logical {
    static void to(evaluator_part& part) { add_custom<Tag, A, B>(part); }
};

template <class Tag>
void add_comparisons(evaluator_part& part) {
    add_pairs<add_comparison, Tag, float, int, long, float, double>(part);
    add_pairs<add_comparison, Tag, double, int, long, float, double>(part);
    add_pairs<add_comparison, Tag, bool, bool, int>(part);
    add_pairs<add_comparison, Tag, std::int32_t, int, long>(part);
    add_pairs<add_comparison, Tag, std::int64_t, int, long>(part);
    if constexpr (!Tag::ordering) {  // eq, ne: complex values too
        add_pairs<add_comparison, Tag, std::complex<float>, std::complex<float>, std::complex<double>, double>(part);
        add_pairs<add_comparison, Tag, std::complex<double>, std::complex<float>, std::complex<double>, double>(part);
    }
}

template <class Tag>
void add_logicals(evaluator_part& part) {
    add_pairs<add_logical, Tag, bool, bool>(part);
    add_pairs<add_logical, Tag, float, double>(part);
    add_pairs<add_logical, Tag, double, double>(part);
    add_pairs<add_logical, Tag, std::int32_t, int>(part);
    add_pairs<add_logical, Tag, std::int64_t, int>(part);
}

/// graph::to<To> of a tensor of each kind (the conversions that are not casts).
template <class To, class... From>
void add_conversions(evaluator_part& part) {
    (add_node<custom_node<to_kind<To>, convert_element<To>, input_node<From>>>(part), ...);
}

template <class... E>
void add_logical_not(evaluator_part& part) {
    (add_custom<logical_op::logical_not, input_node<E>>(part), ...);
}

}  // namespace

void add_compare_evaluators(evaluator_part& part) {
    add_comparisons<compare_op::gt>(part);
    add_comparisons<compare_op::lt>(part);
    add_comparisons<compare_op::ge>(part);
    add_comparisons<compare_op::le>(part);
    add_comparisons<compare_op::eq>(part);
    add_comparisons<compare_op::ne>(part);
    add_logicals<logical_op::logical_and>(part);
    add_logicals<logical_op::logical_or>(part);
    add_logicals<logical_op::logical_xor>(part);
    add_logical_not<bool, float, double, std::int32_t, std::int64_t>(part);
    using all = type_list<float, double, std::complex<float>, std::complex<double>, bool, std::int32_t, std::int64_t>;
    [&]<class... E>(type_list<E...>) {
        add_conversions<bool, E...>(part);
        add_conversions<std::complex<float>, E...>(part);
        add_conversions<std::complex<double>, E...>(part);
        add_conversions<float, E...>(part);
        add_conversions<double, E...>(part);
    }(all{});
}

}  // namespace realify::graph::detail
