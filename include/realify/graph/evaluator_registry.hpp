// The registry of compiled evaluators that a saved program is loaded
// through (graph/save.hpp): what a record's node type contributes to it
// (node_facts, graph/build_ir.hpp — its rule, value type and evaluator
// pointer) kept per serialisable key, so that a program read from a file
// gets the same records, and so runs the same code, as the program that was
// saved.
//
// A key names a node type by what its facts depend on: its op and its
// operands' kinds, never its whole type —
//
//   input:c64            an input of complex<float> elements (int:i64: graph::int_input)
//   constant:f64         a constant of double elements
//   number:double        a number operand of C++ type double (number:int, number:c64 …)
//   to_f32(c128)         a cast
//   mul(c64,n:double)    an op on a complex<float> tensor and a double number
//   full<f32>            a creation op (its children: integer nodes, any count)
//
// with tensor kinds f32, f64, c64, c128, b8 (bool), i32, i64, and number kinds n:<type>.
// The entries are node types made of representative leaves (an input of
// each kind, a number of each type), compiled once in realify_simd
// (src/graph/evaluators_*.cpp) and, for the matrix products, in realify_gemm
// (src/gemm/graph_products.cpp): a user's program instantiates nothing
// more to be saved or loaded.
#pragma once

#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "realify/graph/build_ir.hpp"
#include "realify/graph/detect.hpp"
#include "realify/graph/evaluate.hpp"
#include "realify/graph/sizes.hpp"

namespace realify::graph::detail {

/// One key and the facts of its node type.
struct evaluator_entry {
    std::string key;
    node_facts facts;
};

/// A part of the registry (one per compiled unit that fills one).
using evaluator_part = std::vector<evaluator_entry>;

/// The number types keys know: every C++ type a graph number can be given as
/// (its 0-d value is of a graph value kind, graph/tensor_value.hpp).
using number_types = type_list<bool, int, long, float, double, std::complex<float>, std::complex<double>>;

/// A tensor kind's name: the kind of its components and whether it is complex.
std::string tensor_kind(value_kind kind, bool complex);

/// The kind of a tensor of elements E (float, std::complex<double>, bool, …).
template <class E>
std::string element_kind() {
    return tensor_kind(value_kind_of<typename component_of<E>::type>(), is_std_complex<E>::value);
}

/// The kind of a child of node type N in keys.
template <class C>
std::string kind_of() {
    if constexpr (is_scalar_node_v<C>) {
        using S = decltype(C::value);
        return "n:" + std::string(number_type_name<S>());
    } else {
        return tensor_kind(value_kind_of<typename traits_t<C>::real_type>(), traits_t<C>::is_complex);
    }
}

/// "op(kind,kind,…)->kind": the op, its operands' kinds and its result's
/// (graph::to<T> is one op name for every T).
std::string op_key(std::string_view op, std::span<const std::string> kinds, std::string_view result);

/// The key of node type N (graph::user_ops: a user op's children's kinds).
template <class... C>
std::vector<std::string> kinds_of() {
    return {kind_of<C>()...};
}

/// Adds node type N's entry under its key.
template <class N>
void add_entry(evaluator_part& part, std::string key) {
    static constexpr node_facts facts = facts_of<N>();
    part.push_back({std::move(key), facts});
}

/// Adds op node type N (an op of the table, a cast, a built-in graph::custom
/// op) under its key, when a rule evaluates it (not the fallback: its
/// builders refuse it).
template <class N>
void add_node(evaluator_part& part) {
    static constexpr node_facts facts = facts_of<N>();
    if constexpr (facts.rule != node_rule::fallback) {
        const std::vector<std::string> kinds = []<class... C>(std::type_identity<std::tuple<C...>>) {
            return kinds_of<C...>();
        }(std::type_identity<typename N::children_type>{});
        // a cast's record is named by its target type (graph/build_ir.hpp)
        const std::string op = facts.rule == node_rule::cast ? "to_" + std::string(facts.type) : std::string(facts.op);
        add_entry<N>(part, op_key(op, kinds, kind_of<N>()));
    }
}
template <class Tag, class... C>
void add_op(evaluator_part& part) {
    add_node<node<Tag, C...>>(part);
}


/// The entries of the core registry (realify_simd), filled by the units
/// src/graph/evaluators_*.cpp.
void add_leaf_evaluators(evaluator_part& part);
void add_view_evaluators(evaluator_part& part);
void add_elementwise_evaluators(evaluator_part& part);
void add_table_evaluators(evaluator_part& part);
void add_kernel_evaluators(evaluator_part& part);
void add_compare_evaluators(evaluator_part& part);

/// The products' entries (mm, bmm, matmul, dot, vdot, einsum, linear), in realify_gemm.
const evaluator_part& product_evaluators();

}  // namespace realify::graph::detail
