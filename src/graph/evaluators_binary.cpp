// The core registry's ops of two operands (graph/evaluator_registry.hpp):
// each pair of a tensor kind and a tensor or number kind of one component
// type. The products are realify_gemm's (src/gemm/graph_products.cpp).
#include <complex>

#include "realify/graph/evaluator_registry.hpp"

namespace realify::graph::detail {

namespace {

template <class Tag, class A, class... B>
void add_pairs_with(evaluator_part& part) {
    (add_op<Tag, A, B>(part), ...);
    (add_op<Tag, B, A>(part), ...);
}

template <class Tag, class... S>
void add_binary(evaluator_part& part, type_list<S...>) {
    using R32 = input_node<float>;
    using C32 = input_node<std::complex<float>>;
    using R64 = input_node<double>;
    using C64 = input_node<std::complex<double>>;
    add_op<Tag, R32, R32>(part);
    add_op<Tag, R32, C32>(part);
    add_op<Tag, C32, R32>(part);
    add_op<Tag, C32, C32>(part);
    add_op<Tag, R64, R64>(part);
    add_op<Tag, R64, C64>(part);
    add_op<Tag, C64, R64>(part);
    add_op<Tag, C64, C64>(part);
    add_pairs_with<Tag, R32, scalar_node<S>...>(part);
    add_pairs_with<Tag, C32, scalar_node<S>...>(part);
    add_pairs_with<Tag, R64, scalar_node<S>...>(part);
    add_pairs_with<Tag, C64, scalar_node<S>...>(part);
}

/// The number types keys know, but bool and the unsigned ones (never an operand of arithmetic here).
using arithmetic_numbers = type_list<int, long, float, double, std::complex<float>, std::complex<double>>;

}  // namespace

void add_elementwise_evaluators(evaluator_part& part) {
    add_binary<op::mul>(part, arithmetic_numbers{});
    add_binary<op::div>(part, arithmetic_numbers{});
    add_binary<op::add>(part, arithmetic_numbers{});
    add_binary<op::sub>(part, arithmetic_numbers{});
    add_binary<op::pow_tensor>(part, arithmetic_numbers{});
    add_binary<op::polar>(part, type_list<>{});
    add_binary<op::maximum>(part, type_list<>{});
    add_binary<op::minimum>(part, type_list<>{});
    add_binary<op::clamp_min>(part, type_list<int, float, double>{});
    add_binary<op::clamp_max>(part, type_list<int, float, double>{});
}

}  // namespace realify::graph::detail
