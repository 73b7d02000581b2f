// The table route: a node evaluated by realify::dispatch::call<Tag>, its
// operands handed over as complex_layout views of their values' memory (user
// overrides, priorities and validators included), its attributes converted
// to the argument types the op's lowerings take. Also the compile-time query
// "does a lowering of the table accept this node?" (table_of), which decides
// whether a node may take the route at all (graph/rules.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "realify/checked_size.hpp"
#include "realify/dispatch/lowerings.hpp"
#include "realify/dispatch/registry.hpp"
#include "realify/errors.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"

namespace realify::graph::detail {

/// The attribute arguments a table lowering of Tag receives after its operands.
template <class Tag, class T>
struct attr_signature {
    using type = type_list<>;
};
#define REALIFY_GRAPH_ATTRS(OP, ...)          \
    template <class T>                        \
    struct attr_signature<op::OP, T> {        \
        using type = type_list<__VA_ARGS__>;  \
    };
REALIFY_GRAPH_ATTRS(permute, dim_list)
REALIFY_GRAPH_ATTRS(reshape, dim_list)
REALIFY_GRAPH_ATTRS(view, dim_list)
REALIFY_GRAPH_ATTRS(unsafe_view, dim_list)
REALIFY_GRAPH_ATTRS(expand, dim_list)
REALIFY_GRAPH_ATTRS(flip, dim_list)
REALIFY_GRAPH_ATTRS(squeeze_dims, dim_list)
REALIFY_GRAPH_ATTRS(sum_dim, dim_list, bool)
REALIFY_GRAPH_ATTRS(mean_dim, dim_list, bool)
REALIFY_GRAPH_ATTRS(amax, dim_list, bool)
REALIFY_GRAPH_ATTRS(amin, dim_list, bool)
REALIFY_GRAPH_ATTRS(var, dim_list, double, bool)
REALIFY_GRAPH_ATTRS(std_dev, dim_list, double, bool)
REALIFY_GRAPH_ATTRS(roll, dim_list, dim_list)
REALIFY_GRAPH_ATTRS(flatten, std::ptrdiff_t, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(transpose, std::ptrdiff_t, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(select, std::ptrdiff_t, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(unsqueeze, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(squeeze_dim, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(cumsum, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(prod_dim, std::ptrdiff_t, bool)
REALIFY_GRAPH_ATTRS(narrow, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(slice, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(repeat, std::vector<std::size_t>)
REALIFY_GRAPH_ATTRS(getitem, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(split, std::size_t, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(split_with_sizes, std::vector<std::size_t>, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(chunk, std::size_t, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(cat, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(stack, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(mul_scalar, T)
REALIFY_GRAPH_ATTRS(div_scalar, T)
REALIFY_GRAPH_ATTRS(add_scalar, T)
REALIFY_GRAPH_ATTRS(sub_scalar, T)
REALIFY_GRAPH_ATTRS(pow_scalar, T)
REALIFY_GRAPH_ATTRS(full_like, T)
REALIFY_GRAPH_ATTRS(gelu, gelu_approximate)
REALIFY_GRAPH_ATTRS(einsum, std::string_view)
REALIFY_GRAPH_ATTRS(softmax, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(log_softmax, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(layer_norm, dim_list, double)
REALIFY_GRAPH_ATTRS(rms_norm, dim_list, double)
#undef REALIFY_GRAPH_ATTRS

/// What a child is handed to a table lowering as (a complex_layout view, a
/// real adaptor, or the number itself).
template <class C>
struct operand_type {
    using type = operand_t<traits_t<C>::is_complex, typename traits_t<C>::real_type>;
};
template <class S>
struct operand_type<scalar_node<S>> {
    using type = S;
};

template <class Tag, class T, class Attrs, class... Ops>
struct table_query;
template <class Tag, class T, class... A, class... Ops>
struct table_query<Tag, T, type_list<A...>, Ops...> {
    static constexpr bool ok = dispatch::has_lowering_v<Tag, Ops..., A...>;
    static constexpr std::string_view name() {
        if constexpr (ok) return dispatch::selected_lowering_t<Tag, Ops..., A...>::name;
        else return "";
    }
};

/// cat / stack take their operands as one std::vector.
template <class Tag>
inline constexpr bool list_tag = std::is_same_v<Tag, op::cat> || std::is_same_v<Tag, op::stack> || std::is_same_v<Tag, op::hstack>;
/// The attributes after a list op's operands: cat's and stack's dim; hstack has none.
template <class Tag>
using list_attrs = std::conditional_t<std::is_same_v<Tag, op::hstack>, type_list<>, type_list<std::ptrdiff_t>>;

/// Whether (ok) and by which entry (name()) the table lowers node type N.
template <class N>
struct table_of;
template <class Tag, class... C>
struct table_of<node<Tag, C...>>
    : table_query<Tag, typename traits_t<node<Tag, C...>>::real_type,
                  typename attr_signature<Tag, typename traits_t<node<Tag, C...>>::real_type>::type,
                  typename operand_type<C>::type...> {};
template <class Tag, class C0, class... C>
    requires list_tag<Tag>
struct table_of<node<Tag, C0, C...>>
    : table_query<Tag, typename traits_t<C0>::real_type, list_attrs<Tag>, std::vector<typename operand_type<C0>::type>> {};
template <class Tag, class R, class... C>
struct table_of<custom_node<Tag, R, C...>>
    : table_query<Tag, typename traits_t<custom_node<Tag, R, C...>>::real_type, type_list<>,
                  typename operand_type<C>::type...> {};

/// split / split_with_sizes / chunk return a list; a node is one piece of it.
template <class Tag>
inline constexpr bool piece_tag =
    std::is_same_v<Tag, op::split> || std::is_same_v<Tag, op::split_with_sizes> || std::is_same_v<Tag, op::chunk>;

inline std::size_t non_negative(std::string_view op, std::string_view what, std::ptrdiff_t v) {
    return realify::detail::to_size("graph::" + std::string(op), what, v);
}

template <class Tag, class... Ops>
auto one_piece(const node_attrs& a, const Ops&... ops) {
    auto pieces = [&] {
        if constexpr (std::is_same_v<Tag, op::split_with_sizes>) {
            std::vector<std::size_t> sizes;
            for (std::ptrdiff_t d : a.dims) sizes.push_back(non_negative(Tag::name, "size", d));
            return dispatch::call<Tag>(ops..., sizes, a.i1);
        } else {
            const char* what = std::is_same_v<Tag, op::chunk> ? "chunk count" : "split size";
            return dispatch::call<Tag>(ops..., non_negative(Tag::name, what, a.i0), a.i1);
        }
    }();
    const std::size_t index = non_negative(Tag::name, "piece index", a.i2);
    if (index >= pieces.size())
        throw shape_error("realify::graph::" + std::string(Tag::name) + ": piece " + std::to_string(index) +
                          " asked for, the tensor splits into " + std::to_string(pieces.size()));
    return std::move(pieces[index]);
}

template <class Tag, class T, class... Ops>
decltype(auto) call_table(const node_attrs& a, const Ops&... ops) {
    using sig = typename attr_signature<Tag, T>::type;
    if constexpr (piece_tag<Tag>) {
        return one_piece<Tag>(a, ops...);
    } else if constexpr (list_tag<Tag>) {
        using operand = std::remove_cvref_t<decltype((ops, ...))>;
        std::vector<operand> parts{ops...};
        if constexpr (std::is_same_v<Tag, op::hstack>) return dispatch::call<Tag>(parts);
        else return dispatch::call<Tag>(parts, a.i0);
    } else if constexpr (std::is_same_v<sig, type_list<std::vector<std::size_t>>>) {
        return dispatch::call<Tag>(ops..., std::vector<std::size_t>(a.dims.begin(), a.dims.end()));
    } else if constexpr (std::is_same_v<sig, type_list<dim_list>>) {
        return dispatch::call<Tag>(ops..., a.dims);
    } else if constexpr (std::is_same_v<sig, type_list<dim_list, bool>>) {  // a reduction's dims, keepdim
        return dispatch::call<Tag>(ops..., a.dims, a.i1 != 0);
    } else if constexpr (std::is_same_v<sig, type_list<dim_list, double>>) {  // layer_norm / rms_norm: normalized_shape, eps
        return dispatch::call<Tag>(ops..., a.dims, a.scalar.real());
    } else if constexpr (std::is_same_v<sig, type_list<dim_list, double, bool>>) {  // var / std: dims, correction, keepdim
        return dispatch::call<Tag>(ops..., a.dims, a.scalar.real(), a.i1 != 0);
    } else if constexpr (std::is_same_v<sig, type_list<std::ptrdiff_t, bool>>) {  // prod's dim, keepdim
        return dispatch::call<Tag>(ops..., a.i0, a.i1 != 0);
    } else if constexpr (std::is_same_v<sig, type_list<dim_list, dim_list>>) {
        const auto n = static_cast<std::size_t>(a.i0);
        const dim_list shifts(a.dims.begin(), a.dims.end() - static_cast<std::ptrdiff_t>(n));
        const dim_list dims(a.dims.end() - static_cast<std::ptrdiff_t>(n), a.dims.end());
        return dispatch::call<Tag>(ops..., shifts, dims);
    } else if constexpr (sig::size == 1 && std::is_same_v<sig, type_list<std::ptrdiff_t>>) {
        return dispatch::call<Tag>(ops..., a.i0);
    } else if constexpr (sig::size == 2 && std::is_same_v<sig, type_list<std::ptrdiff_t, std::ptrdiff_t>>) {
        return dispatch::call<Tag>(ops..., a.i0, a.i1);
    } else if constexpr (sig::size == 3) {
        return dispatch::call<Tag>(ops..., a.i0, a.i1, a.i2);
    } else if constexpr (sig::size == 4) {
        return dispatch::call<Tag>(ops..., a.i0, a.i1, a.i2, a.i3);
    } else if constexpr (std::is_same_v<sig, type_list<std::string_view>>) {  // einsum's equation
        return dispatch::call<Tag>(ops..., std::string_view(a.text));
    } else if constexpr (std::is_same_v<sig, type_list<gelu_approximate>>) {  // attrs.i0: 'tanh'
        return dispatch::call<Tag>(ops..., a.i0 != 0 ? gelu_approximate::tanh : gelu_approximate::none);
    } else if constexpr (std::is_same_v<sig, type_list<T>>) {
        return dispatch::call<Tag>(ops..., static_cast<T>(a.scalar.real()));
    } else {
        return dispatch::call<Tag>(ops...);
    }
}

/// A child held for a table call: a tensor's value (which owns the memory
/// its operand views) or a number.
template <class Kind>
struct held;
template <class T, bool Complex>
struct held<tensor_operand<T, Complex>> {
    tensor_value<T> value;
    held(eval_context& ctx, std::size_t slot) : value(value_as<T>(ctx, slot)) {}
    auto operand() const { return as_operand<Complex>(value); }
};
template <class S>
struct held<number_operand<S>> {
    S value;
    held(eval_context& ctx, std::size_t slot) : value(number_of<S>(ctx.ir->nodes[slot])) {}
    S operand() const { return value; }
};

/// The evaluator of a node the table lowers: the children's values first
/// (they own the memory the operands view), then dispatch::call, whose
/// result becomes a value of its own memory. One function per op, component
/// type and operand kinds (cat / stack: per operand count).
template <class Tag, class T, class... Kinds>
graph_value evaluate_table(const ir_node& self, eval_context& ctx, const buffer_layout*) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        const std::tuple<held<Kinds>...> values{held<Kinds>(ctx, self.children[I])...};
        return graph_value(from_result<T>(call_table<Tag, T>(self.attrs, std::get<I>(values).operand()...)));
    }(std::index_sequence_for<Kinds...>{});
}

}  // namespace realify::graph::detail
