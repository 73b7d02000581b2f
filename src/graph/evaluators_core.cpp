// The core registry's leaves, views, casts and kernel ops
// (graph/evaluator_registry.hpp): node types of representative leaves,
// compiled once here.
#include <complex>
#include <cstdint>
#include <string>

#include "realify/graph/evaluator_registry.hpp"
#include "realify/graph/kernel_ops.hpp"
#include "realify/graph/layers.hpp"

namespace realify::graph::detail {

std::string tensor_kind(value_kind kind, bool complex) {
    switch (kind) {
    case value_kind::f32: return complex ? "c64" : "f32";
    case value_kind::f64: return complex ? "c128" : "f64";
    case value_kind::boolean: return "b8";
    case value_kind::i32: return "i32";
    case value_kind::i64: return "i64";
    default: return "other";
    }
}

std::string op_key(std::string_view op, std::span<const std::string> kinds, std::string_view result) {
    std::string key(op);
    key += '(';
    for (std::size_t k = 0; k < kinds.size(); ++k) {
        if (k) key += ',';
        key += kinds[k];
    }
    key += ")->";
    key += result;
    return key;
}

namespace {

template <class E>
void add_leaves(evaluator_part& part) {
    add_entry<input_node<E>>(part, "input:" + element_kind<E>());
    add_entry<constant_node<xt::xarray<E>>>(part, "constant:" + element_kind<E>());
}

template <class... S>
void add_numbers(evaluator_part& part, type_list<S...>) {
    (add_entry<scalar_node<S>>(part, "number:" + std::string(number_type_name<S>())), ...);
}

/// The casts to To of a tensor of each kind (.float(), .double(), type_as).
template <class To, class... From>
void add_casts(evaluator_part& part) {
    (add_node<cast_node<To, input_node<From>>>(part), ...);
}

template <class Tag, class... E>
void add_on_each(evaluator_part& part) {
    (add_op<Tag, input_node<E>>(part), ...);
}

}  // namespace

void add_leaf_evaluators(evaluator_part& part) {
    add_leaves<float>(part);
    add_leaves<double>(part);
    add_leaves<std::complex<float>>(part);
    add_leaves<std::complex<double>>(part);
    add_leaves<bool>(part);
    add_leaves<std::int32_t>(part);
    add_leaves<std::int64_t>(part);
    add_entry<int_input_node>(part, "input:int");
    add_numbers(part, number_types{});
    add_casts<float, float, double, std::complex<float>, std::complex<double>, bool, std::int32_t, std::int64_t>(part);
    add_casts<double, float, double, std::complex<float>, std::complex<double>, bool, std::int32_t, std::int64_t>(part);
}

void add_view_evaluators(evaluator_part& part) {
    add_op<op::view_as_complex, input_node<float>>(part);
    add_op<op::view_as_complex, input_node<double>>(part);
    add_op<op::view_as_real, input_node<std::complex<float>>>(part);
    add_op<op::view_as_real, input_node<std::complex<double>>>(part);
#define REALIFY_VIEW(TAG) \
    add_on_each<op::TAG, float, double, std::complex<float>, std::complex<double>, bool, std::int32_t, std::int64_t>(part);
    REALIFY_VIEW(permute)
    REALIFY_VIEW(reshape)
    REALIFY_VIEW(view)
    REALIFY_VIEW(unsafe_view)
    REALIFY_VIEW(flatten)
    REALIFY_VIEW(unsqueeze)
    REALIFY_VIEW(squeeze_dim)
    REALIFY_VIEW(squeeze_dims)
    REALIFY_VIEW(squeeze)
    REALIFY_VIEW(t)
    REALIFY_VIEW(transpose)
    REALIFY_VIEW(select)
    REALIFY_VIEW(slice)
    REALIFY_VIEW(getitem)
    REALIFY_VIEW(narrow)
    REALIFY_VIEW(expand)
    REALIFY_VIEW(split)
    REALIFY_VIEW(split_with_sizes)
    REALIFY_VIEW(chunk)
    REALIFY_VIEW(alias)
    REALIFY_VIEW(detach)
    REALIFY_VIEW(clone)
    REALIFY_VIEW(resolve_conj)
#undef REALIFY_VIEW
}

namespace {
template <class T>
void add_kernels_of(evaluator_part& part) {
    using R = input_node<T>;
    using C = input_node<std::complex<T>>;
    using I = int_input_node;
    add_op<op::rope, R, C>(part);
    add_op<op::rope, R, C, I>(part);
    add_op<op::scaled_dot_product_attention, R, R, R>(part);
    add_op<op::scaled_dot_product_attention, R, R, R, R>(part);
    add_op<op::scaled_dot_product_attention, R, R, R, input_node<bool>>(part);
    add_op<op::triu, R>(part);
    add_op<op::tril, R>(part);
    add_op<op::triu, C>(part);
    add_op<op::tril, C>(part);
    const std::string kind = element_kind<T>();
    add_entry<creation_node<op::full, T>>(part, "full<" + kind + ">");
    add_entry<creation_node<op::zeros, T>>(part, "zeros<" + kind + ">");
    add_entry<creation_node<op::ones, T>>(part, "ones<" + kind + ">");
    add_entry<creation_node<op::empty, T>>(part, "empty<" + kind + ">");
    add_entry<creation_node<op::arange, T>>(part, "arange<" + kind + ">");
}
}  // namespace

void add_kernel_evaluators(evaluator_part& part) {
    add_kernels_of<float>(part);
    add_kernels_of<double>(part);
    add_on_each<op::sym_size, float, double, std::complex<float>, std::complex<double>, bool>(part);
}

}  // namespace realify::graph::detail
