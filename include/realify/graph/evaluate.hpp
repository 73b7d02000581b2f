// Evaluation of typed nodes, decided by the type system.
//
// Every node is evaluated at most once per call: values are memoised by the
// node's canonical slot (shared nodes and CSE'd duplicates), constant
// subgraphs come from the fold made at lower time. How a node is evaluated is
// decided by its type:
//
//   erased        view_as_complex / view_as_real / a cast to the same type:
//                 the value is re-described, no code runs;
//   zero-copy     reshape, view, flatten, unsqueeze, squeeze, alias, … on the
//                 contiguous (…,2) memory: a new shape, the same memory;
//   fused         elementwise ops (mul, exp, conj, abs, polar, …) whose table
//                 entry is the built-in one: a chain of them is ONE loop over
//                 the broadcast shape, calling the ops' element kernels
//                 (realify/kernels) per element — no temporaries;
//   table         anything else: realify::dispatch::call<Tag> with the
//                 operands as complex_layout views of their memory (user
//                 overrides and validators included);
//   fallback      a user op no lowering accepts: that one node is evaluated
//                 on std::complex elements (one graph break, the rest stays
//                 lowered); in strict mode it does not compile.
#pragma once

#include <any>
#include <array>
#include <complex>
#include <cstddef>
#include <cstring>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "realify/checked_size.hpp"
#include "realify/dispatch.hpp"
#include "realify/dispatch/elementwise.hpp"
#include "realify/kernels.hpp"
#include "realify/dispatch/registry.hpp"
#include "realify/errors.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"
#include "realify/layout/pointer_cast.hpp"
#include "realify/simd/complex_mul.hpp"

namespace realify::graph {

/// How a node is evaluated, decided by its type.
enum class node_rule {
    input,      // a bound argument (zero copy when contiguous)
    constant,   // unpacked to (…,2) once, at lower time
    number,     // a scalar operand
    cast,       // component conversion (.float(), type_as); erased when the type is the same
    erased,     // view_as_complex / view_as_real: re-described, no code
    zero_copy,  // shape op on the contiguous (…,2) memory
    fused,      // elementwise: part of one loop (its element kernel)
    table,      // realify::dispatch::call<Tag>
    fallback,   // no lowering accepts it: evaluated on std::complex (a graph break)
};

/// Strict mode: a node no lowering accepts is a compile error naming its op.
/// The op tag appears in the type name of the first error line, e.g.
/// "invalid application of 'sizeof' to incomplete type
///  'realify::graph::strict_mode_no_lowering_for_op<my_ops::cbrt>'".
template <class Tag>
struct strict_mode_no_lowering_for_op;

template <class N>
using value_t = tensor_value<typename traits_t<N>::real_type>;

namespace detail {

using kernel::cpair;

// ---- which rule a node takes ------------------------------------------------------

template <class Tag>
inline constexpr bool zero_copy_tag =
    std::is_same_v<Tag, op::reshape> || std::is_same_v<Tag, op::view> || std::is_same_v<Tag, op::unsafe_view> ||
    std::is_same_v<Tag, op::flatten> || std::is_same_v<Tag, op::unsqueeze> || std::is_same_v<Tag, op::squeeze_dim> ||
    std::is_same_v<Tag, op::squeeze> || std::is_same_v<Tag, op::alias> || std::is_same_v<Tag, op::detach> ||
    std::is_same_v<Tag, op::clone>;
template <class Tag>
inline constexpr bool erased_tag = std::is_same_v<Tag, op::view_as_complex> || std::is_same_v<Tag, op::view_as_real>;

template <class Tag>
inline constexpr bool elementwise_tag =
    std::is_same_v<Tag, op::mul> || std::is_same_v<Tag, op::div> || std::is_same_v<Tag, op::add> ||
    std::is_same_v<Tag, op::sub> || std::is_same_v<Tag, op::polar> || std::is_same_v<Tag, op::conj> ||
    std::is_same_v<Tag, op::neg> || std::is_same_v<Tag, op::exp> || std::is_same_v<Tag, op::log> ||
    std::is_same_v<Tag, op::sqrt> || std::is_same_v<Tag, op::sin> || std::is_same_v<Tag, op::cos> ||
    std::is_same_v<Tag, op::tan> || std::is_same_v<Tag, op::sinh> || std::is_same_v<Tag, op::cosh> ||
    std::is_same_v<Tag, op::tanh> || std::is_same_v<Tag, op::reciprocal> || std::is_same_v<Tag, op::square> ||
    std::is_same_v<Tag, op::abs> || std::is_same_v<Tag, op::angle> || std::is_same_v<Tag, op::real> ||
    std::is_same_v<Tag, op::imag> || std::is_same_v<Tag, op::mul_scalar> || std::is_same_v<Tag, op::div_scalar>;

template <class Tag>
inline constexpr bool user_overridden_v = dispatch::user_lowerings<Tag>::type::size != 0;

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
REALIFY_GRAPH_ATTRS(sum_dim, dim_list)
REALIFY_GRAPH_ATTRS(mean_dim, dim_list)
REALIFY_GRAPH_ATTRS(roll, dim_list, dim_list)
REALIFY_GRAPH_ATTRS(flatten, std::ptrdiff_t, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(transpose, std::ptrdiff_t, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(select, std::ptrdiff_t, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(unsqueeze, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(squeeze_dim, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(cumsum, std::ptrdiff_t)
REALIFY_GRAPH_ATTRS(prod_dim, std::ptrdiff_t)
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
inline constexpr bool list_tag = std::is_same_v<Tag, op::cat> || std::is_same_v<Tag, op::stack>;

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
    : table_query<Tag, typename traits_t<C0>::real_type, type_list<std::ptrdiff_t>,
                  std::vector<typename operand_type<C0>::type>> {};
template <class Tag, class R, class... C>
struct table_of<custom_node<Tag, R, C...>>
    : table_query<Tag, typename traits_t<custom_node<Tag, R, C...>>::real_type, type_list<>,
                  typename operand_type<C>::type...> {};

template <class N>
inline constexpr bool fusable_v = false;
/// Division by a complex value (div with a complex divisor, reciprocal of a
/// complex value): the table reruns the whole result with div_careful when
/// any element is not finite, which a fused loop cannot do element by element
/// — these nodes go through the table instead.
template <class Tag, class... C>
inline constexpr bool divides_by_complex_v =
    (std::is_same_v<Tag, op::div> || std::is_same_v<Tag, op::reciprocal>) &&
    traits_t<std::tuple_element_t<sizeof...(C) - 1, std::tuple<C...>>>::is_complex;

template <class Tag, class... C>
inline constexpr bool fusable_v<node<Tag, C...>> = [] {
    using T = typename traits_t<node<Tag, C...>>::real_type;
    if constexpr (!elementwise_tag<Tag> || user_overridden_v<Tag> || !std::is_floating_point_v<T> ||
                  divides_by_complex_v<Tag, C...>) {
        return false;
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

template <class C, bool Deep>
inline constexpr bool inline_child_v = Deep && fusable_v<C>;

/// Whether a fused node has a fusable child at all (else its deep and shallow loops coincide).
template <class N>
inline constexpr bool has_inline_child_v = false;
template <class Tag, class... C>
inline constexpr bool has_inline_child_v<node<Tag, C...>> = (fusable_v<C> || ...);

template <class N, bool Deep>
inline constexpr std::size_t leaf_count_v = 1;
template <class Tag, class... C, bool Deep>
inline constexpr std::size_t leaf_count_v<node<Tag, C...>, Deep> =
    ((inline_child_v<C, Deep> ? leaf_count_v<C, Deep> : std::size_t(1)) + ... + 0);

template <bool Deep, class... C>
constexpr auto leaf_offsets() {
    constexpr std::array<std::size_t, sizeof...(C)> counts{(inline_child_v<C, Deep> ? leaf_count_v<C, Deep> : std::size_t(1))...};
    std::array<std::size_t, sizeof...(C)> offsets{};
    std::size_t next = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        offsets[i] = next;
        next += counts[i];
    }
    return offsets;
}

// ---- per-element kernels of the fusable ops: their element kernels ------------------

/// One element of a fused op: the op's element kernel (realify/kernels) on
/// pairs or reals; mul_scalar / div_scalar take their number from the node.
template <class Tag, class... X>
auto apply_elem(const node_attrs& attrs, X... x) {
    if constexpr (std::is_same_v<Tag, op::mul_scalar> || std::is_same_v<Tag, op::div_scalar>) {
        using T = decltype(kernel::to_pair(x...).re);
        return kernel::element<Tag>{}(x..., static_cast<T>(attrs.scalar.real()));
    } else {
        return kernel::element<Tag>{}(x...);
    }
}

template <bool Deep, std::size_t Off, class N, class Vals>
auto elem(const N& n, const Vals& vals);

template <bool Deep, std::size_t Off, class C, class Vals>
auto child_elem(const C& c, const Vals& vals) {
    if constexpr (inline_child_v<C, Deep>) return elem<Deep, Off>(c, vals);
    else return std::get<Off>(vals);
}

template <bool Deep, std::size_t Off, class N, class Vals>
auto elem(const N& n, const Vals& vals) {
    return [&]<class Tag, class... C>(const node<Tag, C...>& m) {
        constexpr auto offsets = leaf_offsets<Deep, C...>();
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return apply_elem<Tag>(m.attrs, child_elem<Deep, Off + offsets[I]>(std::get<I>(m.children), vals)...);
        }(std::index_sequence_for<C...>{});
    }(n);
}

/// A leaf of a fused loop: its value in the loop's component type, and whether it is complex.
template <class T, bool Complex>
struct leaf {
    tensor_value<T> value;
};

template <class T, bool Complex>
auto make_ref(const leaf<T, Complex>& l) {
    realify::detail::operand_ref<T, Complex> ref;
    ref.data = l.value.data;
    ref.shape.assign(l.value.shape.begin(), l.value.shape.end());
    ref.strides.resize(ref.shape.size());
    std::ptrdiff_t stride = Complex ? 2 : 1;
    for (std::size_t i = ref.shape.size(); i-- > 0;) {
        ref.strides[i] = stride;
        stride *= static_cast<std::ptrdiff_t>(ref.shape[i]);
    }
    return ref;
}

template <bool Strict, class N>
value_t<N> eval(const N& n, eval_context& ctx);

/// The scalar operand as a 0-d value of component type T.
template <class T, class S>
tensor_value<T> scalar_value(const scalar_node<S>& s) {
    constexpr bool c = is_std_complex<S>::value;
    auto v = allocate<T>({}, c);
    if constexpr (c) {
        v.data[0] = static_cast<T>(s.value.real());
        v.data[1] = static_cast<T>(s.value.imag());
    } else {
        v.data[0] = static_cast<T>(s.value);
    }
    return v;
}

template <bool Strict, bool Deep, class T, class C>
auto leaves_of_child(const C& c, eval_context& ctx);

template <bool Strict, bool Deep, class T, class Tag, class... C>
auto leaves_of(const node<Tag, C...>& n, eval_context& ctx) {
    return std::apply([&](const auto&... child) { return std::tuple_cat(leaves_of_child<Strict, Deep, T>(child, ctx)...); },
                      n.children);
}

template <bool Strict, bool Deep, class T, class C>
auto leaves_of_child(const C& c, eval_context& ctx) {
    if constexpr (inline_child_v<C, Deep>) return leaves_of<Strict, Deep, T>(c, ctx);
    else if constexpr (is_scalar_node_v<C>) return std::make_tuple(leaf<T, traits_t<C>::is_complex>{scalar_value<T>(c)});
    else return std::make_tuple(leaf<T, traits_t<C>::is_complex>{eval<Strict>(c, ctx)});
}

/// True when the inline descendants of n are private to it (not shared, not
/// CSE'd, not folded, not outputs): only then may they live inside one loop.
template <bool Deep, class Tag, class... C>
bool region_is_private(const node<Tag, C...>& n, const eval_context& ctx) {
    bool ok = true;
    std::apply(
        [&](const auto&... child) {
            auto check = [&]<class X>(const X& x) {
                if constexpr (inline_child_v<X, Deep>) {
                    const std::size_t s = ctx.ir->slot(x.id);
                    const ir_node& r = ctx.ir->nodes[s];
                    if (r.canonical != s || r.folded || r.uses != 1 || r.output) ok = false;
                    else if (!region_is_private<Deep>(x, ctx)) ok = false;
                }
            };
            (check(child), ...);
        },
        n.children);
    return ok;
}

template <class T, bool C>
constexpr bool ref_is_complex(const realify::detail::operand_ref<T, C>&) {
    return C;
}
/// The loader of one operand for the row at `index` (outer axes only).
template <class T, bool C, bool Contiguous>
auto make_row_loader(const realify::detail::operand_ref<T, C>& ref, const realify::detail::stride_vector& strides,
                     const shape_vector& index, std::bool_constant<Contiguous>) {
    const T* p = ref.data;
    for (std::size_t a = 0; a + 1 < index.size(); ++a) p += static_cast<std::ptrdiff_t>(index[a]) * strides[a];
    if constexpr (Contiguous) return realify::detail::contiguous_loader<T, C>{p};
    else return realify::detail::constant_loader<T, C>{p};
}

/// The loop of a fused region over the broadcast shape. Beyond the engine's
/// two paths (all operands contiguous / general strided), the common
/// broadcast case — every operand either contiguous along the last axis or
/// constant along it (RoPE's freqs_cis (1, S, 1, D/2) against (B, S, H, D/2))
/// — runs row by row with loaders chosen at compile time, so the inner loop
/// is the same tight, vectorisable loop as the contiguous path.
template <std::size_t Width, class O, class Kernel, class Refs, std::size_t I = 0, class... Kinds>
void row_loop(O* out, const shape_vector& shape, const Kernel& kernel, const Refs& refs,
              const std::array<realify::detail::stride_vector, std::tuple_size_v<Refs>>& strides, Kinds... kinds) {
    if constexpr (I < std::tuple_size_v<Refs>) {
        if (strides[I].back() == 0)
            row_loop<Width, O, Kernel, Refs, I + 1>(out, shape, kernel, refs, strides, kinds..., std::false_type{});
        else
            row_loop<Width, O, Kernel, Refs, I + 1>(out, shape, kernel, refs, strides, kinds..., std::true_type{});
    } else {
        const std::size_t rank = shape.size();
        const std::size_t inner = shape[rank - 1];
        std::size_t total = 1;
        for (std::size_t e : shape) total *= e;
        shape_vector index(rank, 0);
        for (std::size_t done = 0; done < total; done += inner) {
            [&]<std::size_t... J>(std::index_sequence<J...>) {
                realify::detail::tight_loop(out + done * Width, inner, kernel,
                                            make_row_loader(std::get<J>(refs), strides[J], index, Kinds{})...);
            }(std::make_index_sequence<std::tuple_size_v<Refs>>{});
            for (std::size_t a = rank - 1; a-- > 0;) {
                if (++index[a] < shape[a]) break;
                index[a] = 0;
            }
        }
    }
}

/// Runs a fused kernel over the broadcast of refs into out. Up to four leaves,
/// every case but fully strided operands is the row loop (a contiguous region
/// is one row), so each fused kernel is instantiated at most 2^leaves times;
/// more leaves, or strided leaves, take the engine's general path (one
/// instantiation) — compile time stays bounded.
template <std::size_t Width, class O, class Kernel, class... Refs>
void fused_loop(O* out, const shape_vector& shape, const Kernel& kernel, const Refs&... refs) {
    std::size_t total = 1;
    for (std::size_t e : shape) total *= e;
    if (total == 0) return;
    if constexpr (sizeof...(Refs) <= 4) {
        const bool all_contiguous = ((refs.shape.empty() || realify::detail::is_contiguous_as(refs, shape)) && ...);
        if (all_contiguous) {
            const std::array<realify::detail::stride_vector, sizeof...(Refs)> strides{
                realify::detail::stride_vector(1, refs.shape.empty() ? 0 : (ref_is_complex(refs) ? 2 : 1))...};
            return row_loop<Width>(out, shape_vector{total}, kernel, std::make_tuple(refs...), strides);
        }
        if (!shape.empty()) {
            const std::array<realify::detail::stride_vector, sizeof...(Refs)> strides{realify::detail::aligned_strides(refs, shape)...};
            bool rows = true;
            std::size_t k = 0;
            ((rows = rows && (strides[k].back() == 0 || strides[k].back() == (ref_is_complex(refs) ? 2 : 1)), ++k), ...);
            if (rows) return row_loop<Width>(out, shape, kernel, std::make_tuple(refs...), strides);
        }
    }
    // the general path's odometer needs at least one axis
    realify::detail::general_path<Width>(out, shape.empty() ? shape_vector{1} : shape, kernel, refs...);
}

// ---- the SIMD route of a lone complex multiply ------------------------------------------

/// A fused region that is exactly one complex × complex mul of two tensors.
template <class N, bool Deep>
inline constexpr bool lone_complex_mul_v = false;
template <class A, class B, bool Deep>
inline constexpr bool lone_complex_mul_v<node<op::mul, A, B>, Deep> =
    std::is_floating_point_v<typename traits_t<node<op::mul, A, B>>::real_type> && traits_t<A>::is_complex &&
    traits_t<B>::is_complex && !is_scalar_node_v<A> && !is_scalar_node_v<B> && !inline_child_v<A, Deep> &&
    !inline_child_v<B, Deep>;

/// Shorter rows lose more to per-row overhead than the SIMD kernel gains.
inline constexpr std::size_t simd_min_row = 16;

/// Runs out = x · y with realify::simd::mul_block_rows when the layout fits:
/// one operand is the output's contiguous layout, the other is contiguous
/// along the trailing axes ("rows"), repeated by the axes just before them
/// (stride 0) and, optionally, advancing one row per step of the axis before
/// those ("blocks"); any axes further out are walked one call each. RoPE's
/// freqs_cis (1, S, 1, D/2) against xq_ (B, S, H, D/2) is B calls of S blocks
/// × H repeats × D/2; two operands of one shape are one call of one row.
/// Returns false, having written nothing, when the layout does not fit (the
/// fused pair loop runs instead). The kernel's formula is the pair kernel's
/// (the plain one, nan_policy::fast); it rounds with FMA.
template <class T>
bool mul_by_simd_rows(T* out, const shape_vector& shape, const realify::detail::operand_ref<T, true>& x,
                      const realify::detail::operand_ref<T, true>& y) {
    const std::size_t rank = shape.size();
    std::size_t total = 1;
    for (std::size_t e : shape) total *= e;
    if (rank == 0 || total == 0) return false;
    const bool x_full = realify::detail::is_contiguous_as(x, shape);
    if (!x_full && !realify::detail::is_contiguous_as(y, shape)) return false;
    const auto& full = x_full ? x : y;
    const auto& other = x_full ? y : x;
    const realify::detail::stride_vector strides = realify::detail::aligned_strides(other, shape);
    std::size_t row_start = rank, row = 1;  // trailing axes `other` holds packed
    for (std::ptrdiff_t packed = 2; row_start > 0; --row_start) {
        const std::size_t a = row_start - 1;
        if (shape[a] != 1 && strides[a] != packed) break;
        packed *= static_cast<std::ptrdiff_t>(shape[a]);
        row *= shape[a];
    }
    if (row < simd_min_row) return false;
    std::size_t repeat_start = row_start, repeats = 1;  // axes before them that repeat the row
    for (; repeat_start > 0 && (shape[repeat_start - 1] == 1 || strides[repeat_start - 1] == 0); --repeat_start)
        repeats *= shape[repeat_start - 1];
    std::size_t outer_rank = repeat_start, blocks = 1;  // one row per step of the axis before
    if (outer_rank > 0 && strides[outer_rank - 1] == static_cast<std::ptrdiff_t>(2 * row)) {
        blocks = shape[outer_rank - 1];
        --outer_rank;
    }
    const std::size_t chunk = blocks * repeats * row;  // complex elements per call
    using C = std::complex<T>;
    shape_vector index(outer_rank, 0);
    for (std::size_t call = 0; call < total / chunk; ++call) {
        const T* rows = other.data;
        for (std::size_t a = 0; a < outer_rank; ++a) rows += static_cast<std::ptrdiff_t>(index[a]) * strides[a];
        const std::size_t offset = 2 * call * chunk;
        realify::simd::mul_block_rows(std::span<const C>(realify::detail::as_complex_pointer(full.data + offset), chunk),
                                      std::span<const C>(realify::detail::as_complex_pointer(rows), blocks * row), blocks,
                                      std::span<C>(realify::detail::as_complex_pointer(out + offset), chunk));
        for (std::size_t a = outer_rank; a-- > 0;) {
            if (++index[a] < shape[a]) break;
            index[a] = 0;
        }
    }
    return true;
}

/// The loop of a fused region into out: the SIMD route for a lone complex
/// multiply when its layout fits, the fused pair loop otherwise.
template <bool Deep, class N, class T, class Refs>
void run_region(const N& n, T* out, const shape_vector& shape, const Refs& refs) {
    constexpr bool complex_result = traits_t<N>::is_complex;
    if constexpr (lone_complex_mul_v<N, Deep>)
        if (mul_by_simd_rows(out, shape, std::get<0>(refs), std::get<1>(refs))) return;
    auto kernel = [&n](auto... loaded) { return elem<Deep, 0>(n, std::tuple<decltype(loaded)...>(loaded...)); };
    std::apply([&](const auto&... r) { fused_loop<complex_result ? 2 : 1>(out, shape, kernel, r...); }, refs);
}

/// Runs the fused loop of n over its leaves, writing into `out` (the broadcast
/// shape is returned). `out == nullptr`: allocate.
template <bool Strict, bool Deep, class Tag, class... C>
value_t<node<Tag, C...>> run_fused(const node<Tag, C...>& n, eval_context& ctx,
                                   typename traits_t<node<Tag, C...>>::real_type* out) {
    using N = node<Tag, C...>;
    using T = typename traits_t<N>::real_type;
    constexpr bool complex_result = traits_t<N>::is_complex;
    auto leaves = leaves_of<Strict, Deep, T>(n, ctx);
    auto refs = std::apply([](const auto&... l) { return std::make_tuple(make_ref(l)...); }, leaves);
    const shape_vector shape =
        std::apply([&](const auto&... r) { return realify::detail::broadcast_shapes(Tag::name, r...); }, refs);
    value_t<N> result;
    if (out != nullptr) {
        result.data = out;
        result.shape = shape;
        result.complex = complex_result;
        // in place is fine when an input IS the output element for element;
        // any other overlap would read already-written results
        const std::size_t bytes = result.components() * sizeof(T);
        bool unsafe = false;
        std::apply(
            [&](const auto&... l) {
                ((unsafe = unsafe || (overlaps(l.value, out, bytes) &&
                                      !(static_cast<const void*>(l.value.data) == static_cast<const void*>(out) &&
                                        l.value.shape == shape && l.value.complex == complex_result))),
                 ...);
            },
            leaves);
        if (unsafe) {
            auto temp = allocate<T>(shape, complex_result);
            run_region<Deep>(n, temp.data, shape, refs);
            std::memmove(out, temp.data, bytes);
            return result;
        }
    } else {
        result = allocate<T>(shape, complex_result);
    }
    run_region<Deep>(n, result.data, shape, refs);
    return result;
}

/// The fused loop of a fusable node: its fusable children inlined when they
/// are private to it (deep), else as leaves; writes into out (nullptr: allocates).
template <bool Strict, class N>
value_t<N> run_fused_region(const N& n, eval_context& ctx, typename traits_t<N>::real_type* out) {
    if constexpr (!has_inline_child_v<N>) return run_fused<Strict, false>(n, ctx, out);  // one loop kind
    else if (region_is_private<true>(n, ctx)) return run_fused<Strict, true>(n, ctx, out);
    else return run_fused<Strict, false>(n, ctx, out);
}

// ---- zero-copy shape rules ------------------------------------------------------------

inline std::size_t wrap_dim(std::string_view op, std::ptrdiff_t d, std::size_t rank) {
    const auto r = static_cast<std::ptrdiff_t>(rank);
    const std::ptrdiff_t a = d < 0 ? d + r : d;
    if (a < 0 || a >= r) {
        std::ostringstream m;
        m << "realify::graph::" << op << ": dimension " << d << " is out of range for a tensor of rank " << rank;
        throw shape_error(m.str());
    }
    return static_cast<std::size_t>(a);
}

inline shape_vector resolve_shape(std::string_view op, const dim_list& requested, const shape_vector& from) {
    const std::string where = "graph::" + std::string(op);
    shape_vector result(requested.size(), 1);  // the −1 slot counts as 1 in `known`
    const std::size_t count = realify::detail::checked_element_count(where, "input shape", from);
    std::ptrdiff_t infer = -1;
    for (std::size_t i = 0; i < requested.size(); ++i) {
        const std::ptrdiff_t d = requested[i];
        if (is_same_marker(d)) {
            const std::size_t k = same_marker_dim(d);
            if (k >= from.size()) throw shape_error("realify::graph::" + std::string(op) + ": same(" + std::to_string(k) +
                                                    ") refers past the rank of a tensor of shape " +
                                                    realify::detail::format_sequence(from));
            result[i] = from[k];
        } else if (d == -1 && infer < 0) {
            infer = static_cast<std::ptrdiff_t>(i);
            continue;
        } else if (d < 0) {
            throw shape_error("realify::graph::" + std::string(op) + ": invalid shape " +
                              realify::detail::format_sequence(requested));
        } else {
            result[i] = static_cast<std::size_t>(d);
        }
    }
    const std::size_t known = realify::detail::checked_element_count(where, "shape", result);
    if (infer >= 0) {
        if (known == 0 || count % known != 0)
            throw shape_error("realify::graph::" + std::string(op) + ": shape " + realify::detail::format_sequence(requested) +
                              " is invalid for a tensor of shape " + realify::detail::format_sequence(from));
        result[static_cast<std::size_t>(infer)] = count / known;
    } else if (known != count) {
        throw shape_error("realify::graph::" + std::string(op) + ": shape " + realify::detail::format_sequence(requested) +
                          " is invalid for a tensor of shape " + realify::detail::format_sequence(from));
    }
    return result;
}

template <class Tag>
shape_vector zero_copy_shape(const node_attrs& a, const shape_vector& from) {
    if constexpr (std::is_same_v<Tag, op::reshape> || std::is_same_v<Tag, op::view> || std::is_same_v<Tag, op::unsafe_view>) {
        return resolve_shape(Tag::name, a.dims, from);
    } else if constexpr (std::is_same_v<Tag, op::flatten>) {
        if (from.empty()) return shape_vector{1};
        const std::size_t s = wrap_dim("flatten", a.i0, from.size()), e = wrap_dim("flatten", a.i1, from.size());
        if (s > e) throw shape_error("realify::graph::flatten: start dim must not be after end dim");
        shape_vector r(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(s));
        r.push_back(realify::detail::checked_element_count(
            "graph::flatten", "merged dims",
            shape_vector(from.begin() + static_cast<std::ptrdiff_t>(s), from.begin() + static_cast<std::ptrdiff_t>(e) + 1)));
        r.insert(r.end(), from.begin() + static_cast<std::ptrdiff_t>(e) + 1, from.end());
        return r;
    } else if constexpr (std::is_same_v<Tag, op::unsqueeze>) {
        const std::size_t axis = wrap_dim("unsqueeze", a.i0, from.size() + 1);
        shape_vector r = from;
        r.insert(r.begin() + static_cast<std::ptrdiff_t>(axis), 1);
        return r;
    } else if constexpr (std::is_same_v<Tag, op::squeeze_dim>) {
        const std::size_t axis = wrap_dim("squeeze", a.i0, from.size());
        shape_vector r = from;
        if (r[axis] == 1) r.erase(r.begin() + static_cast<std::ptrdiff_t>(axis));
        return r;
    } else if constexpr (std::is_same_v<Tag, op::squeeze>) {
        shape_vector r;
        for (std::size_t s : from)
            if (s != 1) r.push_back(s);
        return r;
    } else {
        return from;  // alias, detach, clone: values are never written in place
    }
}

// ---- the table route --------------------------------------------------------------------

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
        return dispatch::call<Tag>(parts, a.i0);
    } else if constexpr (std::is_same_v<sig, type_list<std::vector<std::size_t>>>) {
        return dispatch::call<Tag>(ops..., std::vector<std::size_t>(a.dims.begin(), a.dims.end()));
    } else if constexpr (std::is_same_v<sig, type_list<dim_list>>) {
        return dispatch::call<Tag>(ops..., a.dims);
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
    } else if constexpr (std::is_same_v<sig, type_list<T>>) {
        return dispatch::call<Tag>(ops..., static_cast<T>(a.scalar.real()));
    } else {
        return dispatch::call<Tag>(ops...);
    }
}

template <class C>
struct held {
    value_t<C> value;
};
template <class S>
struct held_number {
    S value;
};
template <class C>
auto operand_from(const held<C>& h) {
    return as_operand<traits_t<C>::is_complex>(h.value);
}
template <class S>
S operand_from(const held_number<S>& h) {
    return h.value;
}

template <class Tag, class T, bool Strict, class... C>
tensor_value<T> through_table(const node_attrs& a, const std::tuple<C...>& children, eval_context& ctx) {
    // values first (they own the memory the operands view), then the call
    auto values = std::apply(
        [&](const auto&... c) {
            return std::make_tuple([&]<class X>(const X& x) {
                if constexpr (is_scalar_node_v<X>) return held_number<decltype(x.value)>{x.value};
                else return held<X>{eval<Strict>(x, ctx)};
            }(c)...);
        },
        children);
    return std::apply([&](const auto&... h) { return from_result<T>(call_table<Tag, T>(a, operand_from(h)...)); }, values);
}

// ---- fallback of a user op on std::complex --------------------------------------------------

template <bool Strict, class Tag, class R, class... C>
value_t<custom_node<Tag, R, C...>> fallback_on_std_complex(const custom_node<Tag, R, C...>& n, eval_context& ctx) {
    using N = custom_node<Tag, R, C...>;
    using T = typename traits_t<N>::real_type;
    auto leaves = std::apply(
        [&](const auto&... c) {
            return std::make_tuple([&]<class X>(const X& x) {
                if constexpr (is_scalar_node_v<X>) return leaf<T, traits_t<X>::is_complex>{scalar_value<T>(x)};
                else return leaf<T, traits_t<X>::is_complex>{eval<Strict>(x, ctx)};
            }(c)...);
        },
        n.children);
    auto refs = std::apply([](const auto&... l) { return std::make_tuple(make_ref(l)...); }, leaves);
    const shape_vector shape =
        std::apply([&](const auto&... r) { return realify::detail::broadcast_shapes(Tag::name, r...); }, refs);
    constexpr bool complex_result = traits_t<N>::is_complex;
    auto result = allocate<T>(shape, complex_result);
    auto to_std = []<class X>(X x) {
        if constexpr (!std::is_arithmetic_v<X>) return std::complex<decltype(x.re)>(x.re, x.im);
        else return x;
    };
    auto kernel = [&](auto... loaded) {
        const auto r = n.reference(to_std(loaded)...);
        if constexpr (is_std_complex<std::remove_cvref_t<decltype(r)>>::value) return cpair<T>{T(r.real()), T(r.imag())};
        else return static_cast<T>(r);
    };
    std::apply([&](const auto&... r) { realify::detail::run_into<complex_result ? 2 : 1>(result.data, shape, kernel, r...); },
               refs);
    return result;
}

// ---- the rule a node takes, from its type ----------------------------------------------------

template <class N>
inline constexpr bool is_custom_v = false;
template <class Tag, class R, class... C>
inline constexpr bool is_custom_v<custom_node<Tag, R, C...>> = true;

template <class N>
constexpr node_rule rule_of() {
    if constexpr (requires(const N& n) { n.name; }) {
        return node_rule::input;
    } else if constexpr (requires(const N& n) { n.value.get(); }) {
        return node_rule::constant;
    } else if constexpr (is_scalar_node_v<N>) {
        return node_rule::number;
    } else if constexpr (is_cast_v<N>) {
        return node_rule::cast;
    } else {
        using Tag = typename N::tag;
        constexpr bool builtin = !is_custom_v<N> && !user_overridden_v<Tag>;
        if constexpr (builtin && erased_tag<Tag>) return node_rule::erased;
        else if constexpr (builtin && zero_copy_tag<Tag>) return node_rule::zero_copy;
        else if constexpr (!is_custom_v<N> && fusable_v<N>) return node_rule::fused;
        else if constexpr (table_of<N>::ok) return node_rule::table;
        else return node_rule::fallback;  // a table op here never compiles (compute's static_assert)
    }
}

/// Nodes whose value is their only child's memory re-described: no code runs.
template <class N>
inline constexpr bool re_described_v = rule_of<N>() == node_rule::erased || rule_of<N>() == node_rule::zero_copy;
template <class To, class C>
inline constexpr bool re_described_v<cast_node<To, C>> = std::is_same_v<typename traits_t<C>::real_type, To>;

// ---- compute: one node, its rule chosen by its type ---------------------------------------------

template <class Tag, class... C>
type_list<Tag, C...> tag_and_children(const node<Tag, C...>&) { return {}; }
template <class Tag, class R, class... C>
type_list<Tag, C...> tag_and_children(const custom_node<Tag, R, C...>&) { return {}; }
template <class To, class C>
type_list<To, C> tag_and_children(const cast_node<To, C>&) { return {}; }

/// The argument bound to the input node at `slot` (arguments come in the
/// inputs' creation order, graph_ir::inputs).
inline const std::any& bound_input(const eval_context& ctx, std::size_t slot) {
    std::size_t position = 0;
    while (ctx.ir->inputs[position] != slot) ++position;
    return (*ctx.inputs)[position];
}

template <bool Strict, class N>
value_t<N> compute(const N& n, eval_context& ctx) {
    using V = value_t<N>;
    using Tr = traits_t<N>;
    using T = typename Tr::real_type;
    constexpr node_rule rule = rule_of<N>();
    if constexpr (rule == node_rule::input) {
        const V* v = std::any_cast<V>(&bound_input(ctx, ctx.ir->slot(n.id)));
        if (v == nullptr || v->complex != Tr::is_complex) {
            std::ostringstream m;
            m << "realify::graph: input '" << n.name << "' is declared " << (Tr::is_complex ? "complex" : "real")
              << " with components of " << sizeof(T) * 8 << " bits, and was given a tensor of another element type"
              << " (a real tensor is never reinterpreted as complex, even with a trailing extent of 2)";
            throw layout_error(m.str());
        }
        return *v;
    } else if constexpr (rule == node_rule::constant) {  // unpacked to (…,2) once, at lower time
        return bind_argument(*n.value);
    } else if constexpr (rule == node_rule::number) {
        return scalar_value<T>(n);
    } else if constexpr (rule == node_rule::cast) {  // .float() / type_as
        auto v = eval<Strict>(std::get<0>(n.children), ctx);
        if constexpr (re_described_v<N>) {
            return v;  // same component type: erased
        } else {
            auto r = allocate<T>(v.shape, v.complex);
            for (std::size_t i = 0; i < v.components(); ++i) r.data[i] = static_cast<T>(v.data[i]);
            return r;
        }
    } else if constexpr (rule == node_rule::erased) {
        auto v = eval<Strict>(std::get<0>(n.children), ctx);
        V r{v.data, v.shape, Tr::is_complex, v.keep};
        if constexpr (std::is_same_v<typename N::tag, op::view_as_complex>) {
            if (v.shape.empty() || v.shape.back() != 2)
                throw layout_error("realify::graph::view_as_complex: the last dimension must be 2 ([real, imag]); got shape " +
                                   realify::detail::format_sequence(v.shape));
            r.shape.pop_back();
        } else {
            r.shape.push_back(2);
        }
        return r;
    } else if constexpr (rule == node_rule::zero_copy) {
        auto v = eval<Strict>(std::get<0>(n.children), ctx);
        v.shape = zero_copy_shape<typename N::tag>(n.attrs, v.shape);
        return v;
    } else if constexpr (rule == node_rule::fused) {
        return run_fused_region<Strict>(n, ctx, nullptr);
    } else if constexpr (rule == node_rule::table) {
        return through_table<typename N::tag, T, Strict>(n.attrs, n.children, ctx);
    } else if constexpr (!is_custom_v<N>) {
        static_assert(table_of<N>::ok,
                      "realify::graph: no lowering of the dispatch table accepts this op with these operand "
                      "types (see Tag in the instantiation above); wrap it in graph::custom<Tag>(reference, …) "
                      "to evaluate it on std::complex, or register a user lowering.");
        return V{};
    } else if constexpr (Strict) {
        [[maybe_unused]] constexpr std::size_t error = sizeof(strict_mode_no_lowering_for_op<typename N::tag>);
        return V{};
    } else {
        return fallback_on_std_complex<Strict>(n, ctx);
    }
}

/// Evaluates a node once per call (memo by canonical slot; folded constants reused).
template <bool Strict, class N>
value_t<N> eval(const N& n, eval_context& ctx) {
    const std::size_t slot = ctx.ir->slot(n.id);
    const std::size_t c = ctx.ir->nodes[slot].canonical;
    const ir_node& record = ctx.ir->nodes[c];
    if (record.folded) return std::any_cast<value_t<N>>(record.folded_value);
    std::any& memo = (*ctx.memo)[c];
    if (memo.has_value()) return std::any_cast<value_t<N>>(memo);
    value_t<N> v = compute<Strict>(n, ctx);
    memo = v;
    return v;
}

}  // namespace detail
}  // namespace realify::graph
