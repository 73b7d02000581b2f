// Evaluation rules: how a node is evaluated, decided by its type alone.
//
//   erased        view_as_complex / view_as_real / a cast to the same type:
//                 the value is re-described, no code runs;
//   zero-copy     views: transpose, permute, t, select, slice, narrow, expand,
//                 split pieces, unsqueeze, squeeze, alias, …, and reshape,
//                 view, flatten where the strides allow it: a new shape and
//                 new strides, the same memory (graph/zero_copy.hpp);
//   fused         elementwise ops (mul, div, exp, conj, abs, polar, pow, …) whose
//                 table entry is the built-in one: a chain of them is ONE
//                 pass over the broadcast shape, a fused loop of the ops'
//                 compiled kernels (graph/fusion.hpp); which chains form one
//                 loop is decided once, by the fuse_elementwise pass;
//   table         anything else: realify::dispatch::call<Tag>
//                 (graph/table_route.hpp);
//   fallback      a user op no lowering accepts: that one node is evaluated
//                 on std::complex elements (graph/fallback.hpp); in strict
//                 mode it does not compile;
//   tensor_op     a tensor-level user function (graph::tensor_op): runs on
//                 its operands' whole tensors (graph/tensor_op.hpp);
//   kernel        an op of realify's own compiled code — rope, attention,
//                 linear, triu / tril, the creation ops, sizes — on its
//                 operands' values, writing its result through any strides:
//                 straight into an out= buffer (graph/kernel_ops.hpp).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

#include "realify/dispatch/registry.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/build_loop.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/sizes.hpp"
#include "realify/graph/table_route.hpp"
#include "realify/graph/traits.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::graph {

/// Strict mode: a node no lowering accepts is a compile error naming its op.
/// The op tag appears in the type name of the first error line, e.g.
/// "invalid application of 'sizeof' to incomplete type
///  'realify::graph::strict_mode_no_lowering_for_op<my_ops::cbrt>'".
template <class Tag>
struct strict_mode_no_lowering_for_op;

namespace detail {

/// The views that take any strides to strides (PyTorch's views that are
/// always views): graph/zero_copy.hpp.
template <class Tag>
inline constexpr bool strided_view_tag =
    std::is_same_v<Tag, op::permute> || std::is_same_v<Tag, op::transpose> || std::is_same_v<Tag, op::t> ||
    std::is_same_v<Tag, op::select> || std::is_same_v<Tag, op::getitem> || std::is_same_v<Tag, op::narrow> ||
    std::is_same_v<Tag, op::slice> || std::is_same_v<Tag, op::expand> || std::is_same_v<Tag, op::split> ||
    std::is_same_v<Tag, op::split_with_sizes> || std::is_same_v<Tag, op::chunk>;
template <class Tag>
inline constexpr bool zero_copy_tag =
    strided_view_tag<Tag> || std::is_same_v<Tag, op::reshape> || std::is_same_v<Tag, op::view> ||
    std::is_same_v<Tag, op::unsafe_view> || std::is_same_v<Tag, op::flatten> || std::is_same_v<Tag, op::unsqueeze> ||
    std::is_same_v<Tag, op::squeeze_dim> || std::is_same_v<Tag, op::squeeze_dims> || std::is_same_v<Tag, op::squeeze> ||
    std::is_same_v<Tag, op::alias> || std::is_same_v<Tag, op::detach> || std::is_same_v<Tag, op::clone>;
template <class Tag>
inline constexpr bool erased_tag = std::is_same_v<Tag, op::view_as_complex> || std::is_same_v<Tag, op::view_as_real>;

/// Ops whose value is their operand's, so the node is its operand (zero
/// copy, as PyTorch returns the tensor itself): resolve_conj (realify has no
/// lazy conjugate bit), and conj, conj_physical and real of a real tensor.
template <class N>
inline constexpr bool identity_node_v = false;
template <class Tag, class C>
inline constexpr bool identity_node_v<node<Tag, C>> =
    std::is_same_v<Tag, op::resolve_conj> ||
    ((std::is_same_v<Tag, op::conj> || std::is_same_v<Tag, op::conj_physical> || std::is_same_v<Tag, op::real>) &&
     !traits_t<C>::is_complex && std::is_floating_point_v<typename traits_t<C>::real_type> && !is_scalar_node_v<C>);

/// The ops a fused loop runs (fused_kernel_of, graph/build_loop.hpp).
template <class Tag>
inline constexpr bool elementwise_tag = [] {
    if constexpr (listed_op<Tag>) return fused_kernel_of(Tag::id).has_value();
    else return false;
}();

template <class Tag>
inline constexpr bool user_overridden_v = dispatch::user_lowerings<Tag>::type::size != 0;

template <class N>
inline constexpr bool fusable_v = false;
template <class Tag, class... C>
inline constexpr bool fusable_v<node<Tag, C...>> = [] {
    using T = typename traits_t<node<Tag, C...>>::real_type;
    if constexpr (!elementwise_tag<Tag> || user_overridden_v<Tag> || !std::is_floating_point_v<T>) {
        return false;
    } else if constexpr (std::is_same_v<Tag, op::pow_scalar> && !(traits_t<C>::is_complex && ...)) {
        return false;  // a real base: a complex exponent would make the result complex, the real kernel would not
    } else {
        // every tensor operand already in the node's component type: one loop, no promotion
        constexpr bool same_type =
            ((is_scalar_node_v<C> || std::is_same_v<typename traits_t<C>::real_type, T>) && ...);
        if constexpr (!same_type) return false;
        else if constexpr (traits_t<node<Tag, C...>>::is_complex || (traits_t<C>::is_complex || ...))
            return table_of<node<Tag, C...>>::ok;  // the table must accept it (the fused loop runs its kernels)
        else
            return true;  // real arithmetic outside complex subgraphs
    }
}();

/// A complex × complex mul of two tensors: when its loop inlines nothing, it
/// may run on the SIMD row kernel (engine::mul_rows).
template <class N>
inline constexpr bool simd_mul_v = false;
template <class A, class B>
inline constexpr bool simd_mul_v<node<op::mul, A, B>> =
    fusable_v<node<op::mul, A, B>> && traits_t<A>::is_complex && traits_t<B>::is_complex && !is_scalar_node_v<A> &&
    !is_scalar_node_v<B>;

/// The ops the kernel rule evaluates (graph/kernel_ops.hpp).
template <class Tag>
inline constexpr bool kernel_tag =
    std::is_same_v<Tag, op::rope> || std::is_same_v<Tag, op::scaled_dot_product_attention> ||
    std::is_same_v<Tag, op::linear> || std::is_same_v<Tag, op::triu> || std::is_same_v<Tag, op::tril> ||
    std::is_same_v<Tag, op::sym_size>;

template <class N>
inline constexpr bool is_custom_v = false;
template <class Tag, class R, class... C>
inline constexpr bool is_custom_v<custom_node<Tag, R, C...>> = true;

template <class N>
inline constexpr bool is_tensor_op_v = false;
template <node_name Name, class Result, class Fn, class... C>
inline constexpr bool is_tensor_op_v<tensor_op_node<Name, Result, Fn, C...>> = true;

template <class N>
constexpr node_rule rule_of() {
    if constexpr (requires(const N& n) { n.name(); }) {
        return node_rule::input;
    } else if constexpr (requires(const N& n) { n.value.get(); }) {
        return node_rule::constant;
    } else if constexpr (is_scalar_node_v<N>) {
        return node_rule::number;
    } else if constexpr (is_cast_v<N>) {
        return node_rule::cast;
    } else if constexpr (is_tensor_op_v<N>) {
        return node_rule::tensor_op;
    } else if constexpr (is_creation_v<N>) {
        return node_rule::kernel;
    } else {
        using Tag = typename N::tag;
        constexpr bool builtin = !is_custom_v<N> && !user_overridden_v<Tag>;
        if constexpr (builtin && kernel_tag<Tag>) return node_rule::kernel;
        else if constexpr (builtin && erased_tag<Tag>) return node_rule::erased;
        else if constexpr (builtin && (zero_copy_tag<Tag> || identity_node_v<N>)) return node_rule::zero_copy;
        else if constexpr (!is_custom_v<N> && fusable_v<N>) return node_rule::fused;
        else if constexpr (table_of<N>::ok) return node_rule::table;
        else return node_rule::fallback;  // a table op here never compiles (refused by its builder)
    }
}

/// A reduction of the table's own entry (no user lowering) over a float or
/// double tensor: it may take its operand's fused loop and reduce the
/// loop's blocks as they are made (the fuse_elementwise pass decides).
template <class N>
inline constexpr bool fusable_reduction_v = false;
template <class Tag, class C>
inline constexpr bool fusable_reduction_v<node<Tag, C>> =
    (std::is_same_v<Tag, op::sum> || std::is_same_v<Tag, op::sum_dim> || std::is_same_v<Tag, op::mean> ||
     std::is_same_v<Tag, op::mean_dim> || std::is_same_v<Tag, op::amax> || std::is_same_v<Tag, op::amin> ||
     std::is_same_v<Tag, op::var> || std::is_same_v<Tag, op::std_dev>) &&
    !user_overridden_v<Tag> && rule_of<node<Tag, C>>() == node_rule::table && !is_scalar_node_v<C> &&
    std::is_floating_point_v<typename traits_t<node<Tag, C>>::real_type>;

/// Nodes whose value is their only child's memory re-described: no code runs.
template <class N>
inline constexpr bool re_described_v = rule_of<N>() == node_rule::erased || rule_of<N>() == node_rule::zero_copy;
template <class To, class C>
inline constexpr bool re_described_v<cast_node<To, C>> = std::is_same_v<typename traits_t<C>::real_type, To>;

/// How the shape of node type N follows before evaluation (graph/infer_shapes.hpp).
template <class N>
constexpr shape_rule shape_rule_of() {
    constexpr node_rule rule = rule_of<N>();
    if constexpr (rule == node_rule::input) return shape_rule::input;
    else if constexpr (rule == node_rule::kernel) return shape_rule::kernel;
    else if constexpr (rule == node_rule::number) return shape_rule::number;
    else if constexpr (rule == node_rule::cast) return shape_rule::same_as_child;
    else if constexpr (rule == node_rule::fused) return shape_rule::broadcast;
    else if constexpr (rule == node_rule::erased || rule == node_rule::zero_copy) {
        using Tag = typename N::tag;
        if constexpr (std::is_same_v<Tag, op::view_as_complex>) return shape_rule::view_as_complex;
        else if constexpr (std::is_same_v<Tag, op::view_as_real>) return shape_rule::view_as_real;
        else if constexpr (std::is_same_v<Tag, op::reshape> || std::is_same_v<Tag, op::view> ||
                           std::is_same_v<Tag, op::unsafe_view>)
            return shape_rule::reshape;
        else if constexpr (std::is_same_v<Tag, op::flatten>) return shape_rule::flatten;
        else if constexpr (std::is_same_v<Tag, op::unsqueeze>) return shape_rule::unsqueeze;
        else if constexpr (std::is_same_v<Tag, op::squeeze_dim>) return shape_rule::squeeze_dim;
        else if constexpr (std::is_same_v<Tag, op::squeeze_dims>) return shape_rule::squeeze_dims;
        else if constexpr (std::is_same_v<Tag, op::squeeze>) return shape_rule::squeeze_all;
        else if constexpr (strided_view_tag<Tag>) return shape_rule::strided_view;
        else return shape_rule::same_as_child;  // alias, detach, clone
    } else if constexpr (rule == node_rule::table && requires { typename N::tag; }) {
        // the reductions' shapes follow from their attributes (keepdim
        // included), so what they feed (r / r.sum(-1, keepdim=True)) has a
        // shape before evaluation too
        using Tag = typename N::tag;
        if constexpr (std::is_same_v<Tag, op::sum_dim> || std::is_same_v<Tag, op::mean_dim> ||
                      std::is_same_v<Tag, op::amax> || std::is_same_v<Tag, op::amin> || std::is_same_v<Tag, op::var> ||
                      std::is_same_v<Tag, op::std_dev>)
            return shape_rule::reduce_dims;
        else if constexpr (std::is_same_v<Tag, op::prod_dim>) return shape_rule::reduce_dim;
        else if constexpr (std::is_same_v<Tag, op::cumsum> || std::is_same_v<Tag, op::flip> ||
                           std::is_same_v<Tag, op::roll> || std::is_same_v<Tag, op::softmax> ||
                           std::is_same_v<Tag, op::empty_like> || std::is_same_v<Tag, op::ones_like> ||
                           std::is_same_v<Tag, op::zeros_like> || std::is_same_v<Tag, op::full_like> ||
                           std::is_same_v<Tag, op::log_softmax> || std::is_same_v<Tag, op::layer_norm> ||
                           std::is_same_v<Tag, op::rms_norm>)
            return shape_rule::same_as_child;
        else return shape_rule::unknown;
    } else if constexpr (rule == node_rule::tensor_op) {
        return []<node_name Name, class Result, class Fn, class... C>(std::type_identity<tensor_op_node<Name, Result, Fn, C...>>) {
            return is_into_buffer_v<Fn> ? shape_rule::declared : shape_rule::unknown;
        }(std::type_identity<N>{});
    } else {
        return shape_rule::unknown;  // constants (unless folded), other table ops, fallbacks
    }
}

}  // namespace detail
}  // namespace realify::graph
