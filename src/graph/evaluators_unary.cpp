// The core registry's ops of one tensor (elementwise, reductions, the other
// table ops), the ternary ops and the lists (graph/evaluator_registry.hpp).
#include <complex>

#include "realify/graph/evaluator_registry.hpp"

namespace realify::graph::detail {

namespace {

template <class Tag>
void add_unary(evaluator_part& part) {
    add_op<Tag, input_node<float>>(part);
    add_op<Tag, input_node<double>>(part);
    add_op<Tag, input_node<std::complex<float>>>(part);
    add_op<Tag, input_node<std::complex<double>>>(part);
}

/// The ops built on one tensor: every op of arity 1 but the views (core)
/// and the kernel ops, and the ops with a number attribute.
template <class Tag>
void add_if_unary(evaluator_part& part) {
    if constexpr (Tag::arity == 1 && !zero_copy_tag<Tag> && !erased_tag<Tag> && !kernel_tag<Tag> &&
                  !std::is_same_v<Tag, op::scalar_tensor>)
        add_unary<Tag>(part);
}

template <class... Tags>
void add_unaries(evaluator_part& part, type_list<Tags...>) {
    (add_if_unary<Tags>(part), ...);
}

template <class Tag, class E>
void add_lists(evaluator_part& part) {
    using X = input_node<E>;
    add_op<Tag, X>(part);
    add_op<Tag, X, X>(part);
    add_op<Tag, X, X, X>(part);
    add_op<Tag, X, X, X, X>(part);
}

template <class... S>
void add_scalar_tensor(evaluator_part& part, type_list<S...>) {
    (add_op<op::scalar_tensor, scalar_node<S>>(part), ...);
}

/// where(mask, x, number) and where(mask, number, x): masked_fill's form.
template <class X, class... S>
void add_where_numbers(evaluator_part& part, type_list<S...>) {
    (add_op<op::where, input_node<bool>, X, scalar_node<S>>(part), ...);
    (add_op<op::where, input_node<bool>, scalar_node<S>, X>(part), ...);
}

template <class T>
void add_of(evaluator_part& part) {
    using R = input_node<T>;
    using C = input_node<std::complex<T>>;
    add_unary<op::mul_scalar>(part);
    add_unary<op::div_scalar>(part);
    add_unary<op::add_scalar>(part);
    add_unary<op::sub_scalar>(part);
    add_unary<op::pow_scalar>(part);
    add_unary<op::full_like>(part);
    add_lists<op::cat, T>(part);
    add_lists<op::cat, std::complex<T>>(part);
    add_lists<op::stack, T>(part);
    add_lists<op::stack, std::complex<T>>(part);
    add_lists<op::hstack, T>(part);
    add_lists<op::hstack, std::complex<T>>(part);
    add_op<op::layer_norm, R, R>(part);
    add_op<op::layer_norm, R, R, R>(part);
    add_op<op::rms_norm, R, R>(part);
    add_op<op::where, input_node<bool>, R, R>(part);
    add_op<op::where, input_node<bool>, C, C>(part);
    add_where_numbers<R>(part, type_list<int, long, float, double>{});
    add_where_numbers<C>(part, type_list<int, long, float, double, std::complex<float>, std::complex<double>>{});
}

}  // namespace

void add_table_evaluators(evaluator_part& part) {
    add_unaries(part, op::all_ops{});
    add_of<float>(part);
    add_of<double>(part);
    add_scalar_tensor(part, number_types{});
}

}  // namespace realify::graph::detail
