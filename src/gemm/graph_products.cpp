// The registry's matrix products (graph/evaluator_registry.hpp): mm, bmm,
// matmul, dot, vdot, einsum and linear on tensors of one component type,
// compiled here with the GEMM they call.
#include <complex>

#include "realify/graph/evaluator_registry.hpp"
#include "realify/graph/layers.hpp"

namespace realify::graph::detail {

namespace {

template <class Tag, class T>
void add_product(evaluator_part& part) {
    using R = input_node<T>;
    using C = input_node<std::complex<T>>;
    add_op<Tag, R, R>(part);
    add_op<Tag, R, C>(part);
    add_op<Tag, C, R>(part);
    add_op<Tag, C, C>(part);
}

template <class T>
void add_products(evaluator_part& part) {
    using R = input_node<T>;
    using C = input_node<std::complex<T>>;
    add_product<op::mm, T>(part);
    add_product<op::bmm, T>(part);
    add_product<op::matmul, T>(part);
    add_product<op::dot, T>(part);
    add_product<op::vdot, T>(part);
    add_op<op::einsum, R>(part);
    add_op<op::einsum, C>(part);
    add_product<op::einsum, T>(part);
    add_op<op::einsum, R, R, R>(part);
    add_op<op::einsum, C, C, C>(part);
    add_op<op::linear, R, R>(part);
    add_op<op::linear, R, R, R>(part);
    add_op<op::linear, C, C>(part);
    add_op<op::linear, C, C, C>(part);
}

}  // namespace

const evaluator_part& product_evaluators() {
    static const evaluator_part part = [] {
        evaluator_part p;
        add_products<float>(p);
        add_products<double>(p);
        return p;
    }();
    return part;
}

}  // namespace realify::graph::detail
