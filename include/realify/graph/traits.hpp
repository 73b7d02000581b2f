// Static facts of every node type: component type, complex or real, rank,
// fixed shape. This is the type-level half of detection: whether a node is
// complex is read off its type, never off a run-time shape.
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "realify/graph/node.hpp"
#include "realify/ops/promotion.hpp"

namespace realify::graph {

template <class N>
struct traits_of;

template <class N>
using traits_t = traits_of<std::remove_cvref_t<N>>;

template <class N>
inline constexpr bool is_complex_node_v = traits_t<N>::is_complex;

template <class T>
struct traits_of<input_node<T>> : detail::leaf_traits<T> {};
template <class C>
struct traits_of<constant_node<C>> : detail::leaf_traits<C> {};
template <class S>
struct traits_of<scalar_node<S>>
    : value_traits<typename detail::component_of<S>::type, detail::is_std_complex<S>::value, 0, void> {};
template <class To, class Child>
struct traits_of<cast_node<To, Child>>
    : value_traits<To, traits_t<Child>::is_complex, traits_t<Child>::rank, typename traits_t<Child>::fixed_shape> {};

template <class N>
inline constexpr bool is_cast_v = false;
template <class To, class C>
inline constexpr bool is_cast_v<cast_node<To, C>> = true;

template <class N>
inline constexpr bool is_scalar_node_v = false;
template <class S>
inline constexpr bool is_scalar_node_v<scalar_node<S>> = true;

namespace detail {

constexpr std::size_t max_static_rank(std::initializer_list<std::size_t> ranks) {
    std::size_t r = 0;
    for (std::size_t x : ranks) {
        if (x == dynamic_rank) return dynamic_rank;
        r = std::max(r, x);
    }
    return r;
}

/// Fixed shape of a broadcast: kept only when every tensor operand has the
/// same fixed shape (numbers, marked skip_fixed, do not count).
struct skip_fixed {};
template <class... F>
struct common_fixed {
    using type = void;
};
template <class F>
struct common_fixed<F> {
    using type = std::conditional_t<std::is_same_v<F, skip_fixed>, void, F>;
};
template <class F, class... Rest>
struct common_fixed<skip_fixed, F, Rest...> : common_fixed<F, Rest...> {};
template <class F, class... Rest>
    requires(!std::is_same_v<F, skip_fixed>)
struct common_fixed<F, skip_fixed, Rest...> : common_fixed<F, Rest...> {};
template <class F, class G, class... Rest>
    requires(!std::is_same_v<F, skip_fixed> && !std::is_same_v<G, skip_fixed>)
struct common_fixed<F, G, Rest...> {
    using type = std::conditional_t<std::is_same_v<F, G> && !std::is_same_v<F, void>,
                                    typename common_fixed<G, Rest...>::type, void>;
};

/// The dtype of a tensor node's value (bool and integral components as PyTorch's bool and int64).
template <class N>
constexpr dtype tensor_dtype() {
    using R = typename traits_t<N>::real_type;
    constexpr bool c = traits_t<N>::is_complex;
    if constexpr (std::is_same_v<R, float>) return c ? dtype::complex64 : dtype::float32;
    else if constexpr (std::is_floating_point_v<R>) return c ? dtype::complex128 : dtype::float64;
    else if constexpr (std::is_same_v<R, bool>) return dtype::bool_;
    else return dtype::int64;
}

/// The dtype a number operand counts with: its category's default (float32, complex64, int64, bool).
template <class C>
struct number_dtype {
    static constexpr dtype value = dtype::undefined;
};
template <class S>
struct number_dtype<scalar_node<S>> {
    static constexpr dtype value = promotion::operand_dtype<S>::value;
};

/// The component type of an op over tensors and numbers, as PyTorch promotes
/// them (the eager API's rule, realify/ops/promotion.hpp): a number never
/// widens a tensor — complex64 × 3.0 is complex64, float32 × 2.0 is float32 —
/// and counts only when its category (bool < integral < floating < complex)
/// is above every tensor's, then with its category's default dtype
/// (float32 × 1j is complex64). Graph tensors are all of PyTorch's n-d class:
/// their ranks are run-time facts, as the eager API treats an unknown rank.
/// Without numbers, or with numbers only (scalar_tensor), the components'
/// common type.
template <class... Children>
struct promoted_component {
    static constexpr bool mixed = (is_scalar_node_v<Children> || ...) && (!is_scalar_node_v<Children> || ...);
    static constexpr dtype result = [] {
        dtype tensors = dtype::undefined, numbers = dtype::undefined;
        ((is_scalar_node_v<Children>
              ? (numbers = promotion::promote_types(numbers, number_dtype<Children>::value))
              : (tensors = promotion::promote_types(tensors, tensor_dtype<Children>()))),
         ...);
        return promotion::combine_categories(tensors, numbers);
    }();
    static constexpr bool promoted = mixed && (promotion::is_floating(result) || promotion::is_complex(result));
    using type = std::conditional_t<!promoted, std::common_type_t<typename traits_t<Children>::real_type...>,
                                    std::conditional_t<promotion::width(result) == 32, float, double>>;
};

template <class... Children>
struct elementwise_traits {
    static constexpr bool any_complex = (traits_t<Children>::is_complex || ...);
    using real_type = typename promoted_component<Children...>::type;
    static constexpr std::size_t rank =
        max_static_rank({(is_scalar_node_v<std::remove_cvref_t<Children>> ? std::size_t(0) : traits_t<Children>::rank)...});
    template <class N>
    using tensor_fixed =
        std::conditional_t<is_scalar_node_v<std::remove_cvref_t<N>>, skip_fixed, typename traits_t<N>::fixed_shape>;
    using fixed_shape = typename common_fixed<tensor_fixed<Children>...>::type;
};

template <class Tag>
inline constexpr bool same_rank_shape_op =
    std::is_same_v<Tag, op::permute> || std::is_same_v<Tag, op::transpose> || std::is_same_v<Tag, op::flip> ||
    std::is_same_v<Tag, op::roll> || std::is_same_v<Tag, op::slice> || std::is_same_v<Tag, op::narrow> ||
    std::is_same_v<Tag, op::cumsum> || std::is_same_v<Tag, op::t>;
template <class Tag>
inline constexpr bool identity_shape_op = std::is_same_v<Tag, op::clone> || std::is_same_v<Tag, op::detach> ||
                                          std::is_same_v<Tag, op::alias>;

constexpr std::size_t add_rank(std::size_t r, int delta) {
    return r == dynamic_rank ? dynamic_rank : static_cast<std::size_t>(static_cast<int>(r) + delta);
}
}  // namespace detail

/// Result facts of node<Tag, Children...>, decided by the op's kind and a few
/// per-op rules.
template <class Tag, class... Children>
struct traits_of<node<Tag, Children...>> {
private:
    using first = traits_t<std::tuple_element_t<0, std::tuple<Children...>>>;
    using ew = detail::elementwise_traits<Children...>;

    static constexpr auto compute() {
        struct result {
            bool complex;
            std::size_t rank;
            bool keep_fixed;
            bool boolean;
            bool first_type = false;  // the first operand's component type (not the operands' promotion)
            bool integer = false;     // a run-time integer (int64, 0-d)
        };
        if constexpr (std::is_same_v<Tag, op::sym_size>) {
            return result{false, 0, false, false, false, true};
        } else if constexpr (std::is_same_v<Tag, op::rope> || std::is_same_v<Tag, op::triu> ||
                             std::is_same_v<Tag, op::tril>) {
            return result{first::is_complex, first::rank, true, false, true};  // the first operand's shape
        } else if constexpr (std::is_same_v<Tag, op::linear>) {
            return result{first::is_complex, first::rank, false, false, true};
        } else if constexpr (std::is_same_v<Tag, op::scaled_dot_product_attention>) {
            return result{false, dynamic_rank, false, false, true};
        } else if constexpr (std::is_same_v<Tag, op::view_as_complex>) {
            return result{true, detail::add_rank(first::rank, -1), false, false};
        } else if constexpr (std::is_same_v<Tag, op::view_as_real>) {
            return result{false, detail::add_rank(first::rank, 1), false, false};
        } else if constexpr (detail::identity_shape_op<Tag>) {
            return result{first::is_complex, first::rank, true, false};
        } else if constexpr (detail::same_rank_shape_op<Tag>) {
            return result{first::is_complex, first::rank, false, false};
        } else if constexpr (Tag::kind == op_kind::shape || std::is_same_v<Tag, op::mm> ||
                             std::is_same_v<Tag, op::bmm> || std::is_same_v<Tag, op::matmul> ||
                             std::is_same_v<Tag, op::dot> || std::is_same_v<Tag, op::vdot> ||
                             std::is_same_v<Tag, op::einsum> ||
                             std::is_same_v<Tag, op::prod_dim> || std::is_same_v<Tag, op::squeeze> ||
                             std::is_same_v<Tag, op::getitem>) {
            return result{ew::any_complex, dynamic_rank, false, false};
        } else if constexpr (std::is_same_v<Tag, op::amax> || std::is_same_v<Tag, op::amin> ||
                             std::is_same_v<Tag, op::var> || std::is_same_v<Tag, op::std_dev>) {
            return result{false, dynamic_rank, false, false};  // real reductions (var of complex: real)
        } else if constexpr (std::is_same_v<Tag, op::isnan> || std::is_same_v<Tag, op::isinf>) {
            return result{false, ew::rank, true, true};
        } else if constexpr (Tag::kind == op_kind::real_output) {
            return result{false, ew::rank, true, false};
        } else if constexpr (std::is_same_v<Tag, op::polar>) {
            return result{true, ew::rank, true, false};
        } else if constexpr (std::is_same_v<Tag, op::scalar_tensor>) {
            return result{true, 0, false, false};
        } else if constexpr (Tag::kind == op_kind::construction) {  // ones_like, full_like: the operand's kind
            return result{first::is_complex, first::rank, true, false};
        } else {
            return result{ew::any_complex, ew::rank, true, false};
        }
    }
    static constexpr auto facts = compute();

public:
    using real_type = std::conditional_t<
        facts.integer, std::int64_t,
        std::conditional_t<facts.boolean, bool, std::conditional_t<facts.first_type, typename first::real_type, typename ew::real_type>>>;
    static constexpr bool is_complex = facts.complex;
    static constexpr std::size_t rank = facts.rank;
    using fixed_shape = std::conditional_t<facts.keep_fixed, typename ew::fixed_shape, void>;
};

template <class Tag, class Reference, class... Children>
struct traits_of<custom_node<Tag, Reference, Children...>> {
private:
    using ew = detail::elementwise_traits<Children...>;
    template <class N>
    using element_t = std::conditional_t<traits_t<N>::is_complex, std::complex<typename ew::real_type>,
                                         typename ew::real_type>;
    using result_element = std::remove_cvref_t<std::invoke_result_t<const Reference&, element_t<Children>...>>;

public:
    using real_type = typename detail::component_of<result_element>::type;
    static constexpr bool is_complex = detail::is_std_complex<result_element>::value;
    static constexpr std::size_t rank = ew::rank;
    using fixed_shape = typename ew::fixed_shape;
};

/// The dtype PyTorch gives node N's value (float32, complex64, …): the same
/// as the eager API's result_dtype_v for the same operands.
template <class N>
inline constexpr dtype dtype_v = detail::tensor_dtype<std::remove_cvref_t<N>>();

/// A tensor-level user op: its declared result element type; the rank and
/// shape are whatever its function returns (known once evaluated).
template <node_name Name, class Result, class Fn, class... Children>
struct traits_of<tensor_op_node<Name, Result, Fn, Children...>>
    : value_traits<typename detail::component_of<Result>::type, detail::is_std_complex<Result>::value, dynamic_rank, void> {};

/// The element type a node's value has as a std::complex / real tensor.
template <class N>
using element_t = std::conditional_t<traits_t<N>::is_complex, std::complex<typename traits_t<N>::real_type>,
                                     typename traits_t<N>::real_type>;

/// The container a program returns for an output node: xtensor_fixed when the
/// shape is static, xtensor<E, N> when the rank is, xarray otherwise.
template <class N>
struct output_container {
    using E = element_t<N>;
    using F = typename traits_t<N>::fixed_shape;
    static constexpr std::size_t R = traits_t<N>::rank;
    using type = std::conditional_t<!std::is_same_v<F, void>, xt::xtensor_fixed<E, std::conditional_t<std::is_same_v<F, void>, xt::xshape<1>, F>>,
                                    std::conditional_t<R == dynamic_rank, xt::xarray<E>, xt::xtensor<E, (R == dynamic_rank ? 0 : R)>>>;
};
template <class N>
using output_container_t = typename output_container<std::remove_cvref_t<N>>::type;

}  // namespace realify::graph
