// Lowerings of the shape ops, for complex and real tensors alike. Each is a
// view of its operand — a new description of the same memory
// (realify/engine/tensor_ref.hpp: permuted, selected, sliced, flipped,
// broadcast, reshaped) — copied by the engine into the result or the out=
// buffer. A complex tensor is described without its trailing [re, im] axis,
// so Torch-TensorRT's dim adjustments on the (…, 2) layout (dims + [n] for
// permute, d − 1 for a negative d, shape + [2] for reshape, repeats + [1])
// are what these views do to it; a real tensor simply has no such axis. The
// names in the table keep those adjustments' names.
//
// What does not depend on an operand's type — the argument checks, the
// views and the copies they write — is compiled once, in realify_simd
// (src/dispatch/lowerings/shape.cpp); a unit instantiates only the reading
// of its operands and the allocation of its results.
//
// Results own their memory (alias() excepted): rank-preserving ops return a
// tensor of the operand's static rank, ops whose rank depends on run-time
// arguments an xt::xarray (or complex_layout<xt::xarray<T>>), see
// realify/dispatch/results.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>

#include "realify/dispatch/lowerings/common.hpp"
#include "realify/engine/construction.hpp"
#include "realify/engine/join.hpp"

namespace realify::dispatch {
namespace lowering {

using dim_list = std::vector<std::ptrdiff_t>;

namespace shape_detail {

using engine::tensor_ref;

using engine::copy_ref;

/// How a shape op's result rank follows from its operand's.
enum class rank_rule { same, minus_one, dynamic };
template <rank_rule Rule, class A>
inline constexpr std::size_t result_rank_v = Rule == rank_rule::dynamic || operand_rank_v<A> == dynamic_rank
                                                 ? dynamic_rank
                                                 : (Rule == rank_rule::same ? operand_rank_v<A> : operand_rank_v<A> - 1);

template <rank_rule Rule, class A>
using shape_result_t = result_t<element_t<A>, result_rank_v<Rule, A>, A>;

/// A fresh result shaped `shape`, filled by write(out ref).
template <class R, class Write>
R allocated(std::string_view op, const engine::dims& shape, Write&& write) {
    R result = allocate_result<R>(shape);
    auto o = out(result);
    write(out_ref(op, o));
    return result;
}

/// The one adaptor of the shape lowerings: Self::target(in, p…) is the
/// result's shape and Self::write(to, in, p…) writes the result into `to`;
/// apply allocates the result and writes it, apply_into writes o's buffer
/// (its element type checked at compile time, its shape by write).
template <class Self, rank_rule Rule>
struct written_lowering {
    template <class A, class... P>
    static constexpr bool accepts = tensor_operand<A>;

    template <class A, class... P>
    static auto apply(const A& a, const P&... p) {
        const engine::input<A> in(Self::op::name, a);
        return allocated<shape_result_t<Rule, A>>(Self::op::name, Self::target(in.ref(), p...),
                                                  [&](const tensor_ref& to) { Self::write(to, in.ref(), p...); });
    }
    template <class B, class A, class... P>
    static void apply_into(out_arg<B>& o, const A& a, const P&... p) {
        check_out_type<element_t<A>, B>();
        const engine::input<A> in(Self::op::name, a);
        Self::write(out_ref(Self::op::name, o), in.ref(), p...);
    }
};

/// A view op: Self::view(in, p…) is the result as a view of the input,
/// copied into the result.
template <class Self, rank_rule Rule>
struct view_lowering : written_lowering<Self, Rule> {
    template <class... P>
    static engine::dims target(const tensor_ref& t, const P&... p) {
        return Self::view(t, p...).shape;
    }
    template <class... P>
    static void write(const tensor_ref& to, const tensor_ref& t, const P&... p) {
        copy_ref(Self::op::name, Self::view(t, p...), to);
    }
};

/// out must have the result's shape (a shape_error naming both).
void check_result_shape(std::string_view op, const tensor_ref& to, const engine::dims& expected);

/// A dim of a tensor of rank `rank` as an axis (PyTorch's wrap).
std::size_t axis_of(std::string_view op, std::ptrdiff_t dim, std::size_t rank);

/// Writes `in` reshaped to `target` (same count, row-major order) into `to`:
/// through a view of the input, else of the output, else of a packed copy
/// of the input.
void reshape_into(std::string_view op, const tensor_ref& in, const engine::dims& target, const tensor_ref& to);

/// A reshape-like op (reshape, view, flatten, squeeze, unsqueeze): Self::target(in ref, params…) is the new shape.
template <class Self>
struct reshape_lowering : written_lowering<Self, rank_rule::dynamic> {
    template <class... P>
    static void write(const tensor_ref& to, const tensor_ref& t, const P&... p) {
        reshape_into(Self::op::name, t, Self::target(t, p...), to);
    }
};

}  // namespace shape_detail

using shape_detail::rank_rule;
using shape_detail::tensor_ref;

// ---- permute, transpose, t ----------------------------------------------------------------

struct permute_append_last : shape_detail::view_lowering<permute_append_last, rank_rule::same> {
    using op = ::realify::op::permute;
    static constexpr std::string_view name = "permute_append_last";
    static constexpr std::string_view formula = "permute(layout, dims + [n]); a real tensor: permute(x, dims)";
    static tensor_ref view(const tensor_ref& t, const dim_list& dims);
};

struct transpose_shifted_dims : shape_detail::view_lowering<transpose_shifted_dims, rank_rule::same> {
    using op = ::realify::op::transpose;
    static constexpr std::string_view name = "transpose_shifted_dims";
    static constexpr std::string_view formula = "swap(layout, d0', d1'), d' = d < 0 ? d − 1 : d";
    static tensor_ref view(const tensor_ref& t, std::ptrdiff_t dim0, std::ptrdiff_t dim1);
};

struct t_keep_last : shape_detail::view_lowering<t_keep_last, rank_rule::same> {
    using op = ::realify::op::t;
    static constexpr std::string_view name = "t_keep_last";
    static constexpr std::string_view formula = "rank ≤ 2: permute(layout, [1, 0, 2])";
    static tensor_ref view(const tensor_ref& t);
};

// ---- select, getitem, slice, narrow ----------------------------------------------------------

struct select_shifted_dim : shape_detail::view_lowering<select_shifted_dim, rank_rule::minus_one> {
    using op = ::realify::op::select;
    static constexpr std::string_view name = "select_shifted_dim";
    static constexpr std::string_view formula = "layout[…, index, …, :] at d' = d < 0 ? d − 1 : d";
    static tensor_ref view(const tensor_ref& t, std::ptrdiff_t dim, std::ptrdiff_t index);
};
struct getitem_select0 : shape_detail::view_lowering<getitem_select0, rank_rule::minus_one> {
    using op = ::realify::op::getitem;
    static constexpr std::string_view name = "getitem_select0";
    static constexpr std::string_view formula = "layout[index] (select along dim 0)";
    static tensor_ref view(const tensor_ref& t, std::ptrdiff_t index);
};

struct slice_shifted_dim : shape_detail::view_lowering<slice_shifted_dim, rank_rule::same> {
    using op = ::realify::op::slice;
    static constexpr std::string_view name = "slice_shifted_dim";
    static constexpr std::string_view formula = "layout[…, start:end:step, …, :] at d' = d < 0 ? d − 1 : d";
    static tensor_ref view(const tensor_ref& t, std::ptrdiff_t dim = 0, std::ptrdiff_t start = 0,
                           std::ptrdiff_t end = std::numeric_limits<std::ptrdiff_t>::max(), std::ptrdiff_t step = 1);
};

struct narrow_shifted_dim : shape_detail::view_lowering<narrow_shifted_dim, rank_rule::same> {
    using op = ::realify::op::narrow;
    static constexpr std::string_view name = "narrow_shifted_dim";
    static constexpr std::string_view formula = "layout[…, start:start+length, …, :]";
    static tensor_ref view(const tensor_ref& t, std::ptrdiff_t dim, std::ptrdiff_t start, std::ptrdiff_t length);
};

// ---- expand, flip, repeat ----------------------------------------------------------------------

struct expand_append_two : shape_detail::view_lowering<expand_append_two, rank_rule::dynamic> {
    using op = ::realify::op::expand;
    static constexpr std::string_view name = "expand_append_two";
    static constexpr std::string_view formula = "broadcast(layout, sizes + [2]), −1 keeps a dim";
    static tensor_ref view(const tensor_ref& t, const dim_list& sizes);
};

struct flip_shifted_dims : shape_detail::view_lowering<flip_shifted_dims, rank_rule::same> {
    using op = ::realify::op::flip;
    static constexpr std::string_view name = "flip_shifted_dims";
    static constexpr std::string_view formula = "flip(layout, [d < 0 ? d − 1 : d …])";
    static tensor_ref view(const tensor_ref& t, const dim_list& dims);
};

/// repeat: out[i] = a[i mod s] per dim — a read as (1, s0, 1, s1, …) broadcast
/// to (r0, s0, r1, s1, …) and written into out with each axis split in (r, s).
struct repeat_append_one : shape_detail::written_lowering<repeat_append_one, rank_rule::dynamic> {
    using op = ::realify::op::repeat;
    static constexpr std::string_view name = "repeat_append_one";
    static constexpr std::string_view formula = "tile(layout, repeats + [1])";
    template <class A, class... P>
    static constexpr bool accepts = tensor_operand<A>;

    /// The result's shape, checked.
    static engine::dims target(const tensor_ref& t, const std::vector<std::size_t>& repeats);
    /// Copies t repeated into `to` (of shape target(t, repeats)).
    static void write(const tensor_ref& to, const tensor_ref& t, const std::vector<std::size_t>& repeats);
};

// ---- reshape, view, flatten, unsqueeze, squeeze -----------------------------------------------------

namespace shape_detail {
/// reshape / view / unsafe_view: PyTorch's shape inference (one −1 allowed).
engine::dims reshape_target(std::string_view op, const tensor_ref& t, const dim_list& shape);
}  // namespace shape_detail
struct reshape_append_two : shape_detail::reshape_lowering<reshape_append_two> {
    using op = ::realify::op::reshape;
    static constexpr std::string_view name = "reshape_append_two";
    static constexpr std::string_view formula = "reshape(layout, shape + [2])";
    static engine::dims target(const tensor_ref& t, const dim_list& shape) { return shape_detail::reshape_target(op::name, t, shape); }
};
struct view_append_two : shape_detail::reshape_lowering<view_append_two> {
    using op = ::realify::op::view;
    static constexpr std::string_view name = "view_append_two";
    static constexpr std::string_view formula = "reshape(layout, shape + [2])";
    static engine::dims target(const tensor_ref& t, const dim_list& shape) { return shape_detail::reshape_target(op::name, t, shape); }
};
struct unsafe_view_append_two : shape_detail::reshape_lowering<unsafe_view_append_two> {
    using op = ::realify::op::unsafe_view;
    static constexpr std::string_view name = "unsafe_view_append_two";
    static constexpr std::string_view formula = "reshape(layout, shape + [2])";
    static engine::dims target(const tensor_ref& t, const dim_list& shape) { return shape_detail::reshape_target(op::name, t, shape); }
};
struct flatten_keep_last : shape_detail::reshape_lowering<flatten_keep_last> {
    using op = ::realify::op::flatten;
    static constexpr std::string_view name = "flatten_keep_last";
    static constexpr std::string_view formula = "reshape(layout, merged dims + [2])";
    static engine::dims target(const tensor_ref& t, std::ptrdiff_t start = 0, std::ptrdiff_t end = -1);
};
struct unsqueeze_shifted_dim : shape_detail::reshape_lowering<unsqueeze_shifted_dim> {
    using op = ::realify::op::unsqueeze;
    static constexpr std::string_view name = "unsqueeze_shifted_dim";
    static constexpr std::string_view formula = "unsqueeze(layout, d < 0 ? d − 1 : d)";
    static engine::dims target(const tensor_ref& t, std::ptrdiff_t dim);
};
struct squeeze_keep_last : shape_detail::reshape_lowering<squeeze_keep_last> {
    using op = ::realify::op::squeeze;
    static constexpr std::string_view name = "squeeze_keep_last";
    static constexpr std::string_view formula = "drop extent-1 dims except the trailing 2";
    static engine::dims target(const tensor_ref& t);
};
struct squeeze_dim_shifted : shape_detail::reshape_lowering<squeeze_dim_shifted> {
    using op = ::realify::op::squeeze_dim;
    static constexpr std::string_view name = "squeeze_dim_shifted";
    static constexpr std::string_view formula = "squeeze(layout, d < 0 ? d − 1 : d)";
    static engine::dims target(const tensor_ref& t, std::ptrdiff_t dim);
};
struct squeeze_dims_shifted : shape_detail::reshape_lowering<squeeze_dims_shifted> {
    using op = ::realify::op::squeeze_dims;
    static constexpr std::string_view name = "squeeze_dims_shifted";
    static constexpr std::string_view formula = "squeeze(layout, [d < 0 ? d − 1 : d …])";
    static engine::dims target(const tensor_ref& t, const dim_list& dims);
};

// ---- cat, stack ------------------------------------------------------------------------------------

namespace shape_detail {

template <class L>
inline constexpr bool tensor_list = false;
template <class A, class Alloc>
inline constexpr bool tensor_list<std::vector<A, Alloc>> = tensor_operand<A>;

template <class Tag, bool Stack, rank_rule Rule>
struct join_lowering {
    template <class L, class... P>
    static constexpr bool accepts = tensor_list<std::remove_cvref_t<L>>;
    template <class A>
    static auto apply(const std::vector<A>& parts, std::ptrdiff_t dim = 0) {
        const engine::operand_list in(Tag::name, engine::operands_of(parts));
        return allocated<result_t<element_t<A>, result_rank_v<Rule, A>, std::vector<A>>>(
            Tag::name, engine::joined_shape(Tag::name, in.refs(), dim, Stack).first,
            [&](const tensor_ref& to) { engine::join(Tag::name, in.refs(), dim, Stack, to); });
    }
    template <class B, class A>
    static void apply_into(out_arg<B>& o, const std::vector<A>& parts, std::ptrdiff_t dim = 0) {
        check_out_type<element_t<A>, B>();
        const engine::operand_list in(Tag::name, engine::operands_of(parts));
        engine::join(Tag::name, in.refs(), dim, Stack, out_ref(Tag::name, o));
    }
};

}  // namespace shape_detail

struct cat_shifted_dim : shape_detail::join_lowering<::realify::op::cat, false, rank_rule::same> {
    using op = ::realify::op::cat;
    static constexpr std::string_view name = "cat_shifted_dim";
    static constexpr std::string_view formula = "cat(layouts, d < 0 ? d − 1 : d)";
};
struct stack_shifted_dim : shape_detail::join_lowering<::realify::op::stack, true, rank_rule::dynamic> {
    using op = ::realify::op::stack;
    static constexpr std::string_view name = "stack_shifted_dim";
    static constexpr std::string_view formula = "stack(layouts, d < 0 ? d − 1 : d)";
};

/// torch.hstack: cat along dim 1, or dim 0 for 1-D tensors.
struct hstack_cat {
    using op = ::realify::op::hstack;
    static constexpr std::string_view name = "hstack_cat";
    static constexpr std::string_view formula = "cat(layouts, 1), or cat(layouts, 0) of 1-D tensors (torch.hstack)";
    template <class L, class... P>
    static constexpr bool accepts = sizeof...(P) == 0 && shape_detail::tensor_list<std::remove_cvref_t<L>>;
    template <class A>
    static std::ptrdiff_t dim_of(const std::vector<A>& parts) {
        if (parts.empty()) return 0;  // cat reports the empty list
        const engine::input<A> first(op::name, parts.front());
        return first.ref().rank() <= 1 ? 0 : 1;
    }
    template <class A>
    static auto apply(const std::vector<A>& parts) {
        return cat_shifted_dim::apply(parts, dim_of(parts));
    }
    template <class B, class A>
    static void apply_into(out_arg<B>& o, const std::vector<A>& parts) {
        cat_shifted_dim::apply_into(o, parts, dim_of(parts));
    }
};

// ---- triu, tril -----------------------------------------------------------------------------------------

/// torch.triu / torch.tril of the last two dims, any diagonal.
template <class Tag, bool Upper>
struct triangle_of : shape_detail::written_lowering<triangle_of<Tag, Upper>, rank_rule::same> {
    using op = Tag;
    template <class A, class... D>
    static constexpr bool accepts = tensor_operand<A> && sizeof...(D) == 1 && (std::is_integral_v<D> && ...);
    static engine::dims target(const tensor_ref& t, std::ptrdiff_t) { return t.shape; }
    static void write(const tensor_ref& to, const tensor_ref& t, std::ptrdiff_t diagonal) {
        engine::triangle(op::name, t, diagonal, Upper, to);
    }
};
struct triu_keep_upper : triangle_of<::realify::op::triu, true> {
    static constexpr std::string_view name = "triu_keep_upper";
    static constexpr std::string_view formula = "x[…, i, j] where j − i ≥ diagonal, else 0 (the last two dims of the elements)";
};
struct tril_keep_lower : triangle_of<::realify::op::tril, false> {
    static constexpr std::string_view name = "tril_keep_lower";
    static constexpr std::string_view formula = "x[…, i, j] where j − i ≤ diagonal, else 0 (the last two dims of the elements)";
};

// ---- split, split_with_sizes, chunk: lists of results -------------------------------------------------

namespace shape_detail {
/// The pieces of sizes `sizes` (summing to the extent) along `axis`, each a fresh result.
template <class A>
auto split_pieces(std::string_view op, const tensor_ref& t, const std::vector<std::size_t>& sizes, std::size_t axis) {
    using R = shape_result_t<rank_rule::same, A>;
    std::vector<R> pieces;
    std::size_t start = 0;
    for (std::size_t size : sizes) {
        const tensor_ref v = engine::sliced(t, axis, start, size, 1);
        pieces.push_back(allocated<R>(op, v.shape, [&](const tensor_ref& to) { copy_ref(op, v, to); }));
        start += size;
    }
    return pieces;
}
}  // namespace shape_detail

struct split_shifted_dim {
    using op = ::realify::op::split;
    static constexpr std::string_view name = "split_shifted_dim";
    static constexpr std::string_view formula = "narrow pieces of split_size along d'";
    template <class A, class... P>
    static constexpr bool accepts = tensor_operand<A>;
    template <class A>
    static auto apply(const A& a, std::size_t split_size, std::ptrdiff_t dim = 0) {
        const engine::input<A> in(op::name, a);
        const std::size_t axis = shape_detail::axis_of(op::name, dim, in.ref().rank());
        return shape_detail::split_pieces<A>(op::name, in.ref(), sizes(in.ref().shape[axis], split_size), axis);
    }
    /// The pieces' sizes along an axis of extent `extent`.
    static std::vector<std::size_t> sizes(std::size_t extent, std::size_t split_size);
};
struct split_with_sizes_shifted_dim {
    using op = ::realify::op::split_with_sizes;
    static constexpr std::string_view name = "split_with_sizes_shifted_dim";
    static constexpr std::string_view formula = "narrow pieces of the given sizes along d'";
    template <class A, class... P>
    static constexpr bool accepts = tensor_operand<A>;
    template <class A>
    static auto apply(const A& a, const std::vector<std::size_t>& sizes, std::ptrdiff_t dim = 0) {
        const engine::input<A> in(op::name, a);
        const std::size_t axis = shape_detail::axis_of(op::name, dim, in.ref().rank());
        check_sizes(sizes, dim, in.ref().shape[axis]);
        return shape_detail::split_pieces<A>(op::name, in.ref(), sizes, axis);
    }
    /// `sizes` must sum to the extent of dim.
    static void check_sizes(const std::vector<std::size_t>& sizes, std::ptrdiff_t dim, std::size_t extent);
};
struct chunk_shifted_dim {
    using op = ::realify::op::chunk;
    static constexpr std::string_view name = "chunk_shifted_dim";
    static constexpr std::string_view formula = "split with split_size = ceil(size / chunks)";
    template <class A, class... P>
    static constexpr bool accepts = tensor_operand<A>;
    template <class A>
    static auto apply(const A& a, std::size_t chunks, std::ptrdiff_t dim = 0) {
        check_chunks(chunks);
        const engine::input<A> in(op::name, a);
        const std::size_t size = in.ref().shape[shape_detail::axis_of(op::name, dim, in.ref().rank())];
        const std::size_t split_size = size == 0 ? 1 : (size - 1) / chunks + 1;  // ceil, without size + chunks − 1
        return split_shifted_dim::apply(a, split_size, dim);
    }
    static void check_chunks(std::size_t chunks);
};

// ---- roll ------------------------------------------------------------------------------------------------

/// roll: along each rolled axis the two segments [0, n − k) and [n − k, n)
/// swap places; one copy per combination of segments. Without dims, the
/// flattened tensor is rolled.
struct roll_shifted_dims : shape_detail::written_lowering<roll_shifted_dims, rank_rule::same> {
    using op = ::realify::op::roll;
    static constexpr std::string_view name = "roll_shifted_dims";
    static constexpr std::string_view formula = "roll(layout, shifts, [d'…]); no dims: roll of the flattened pairs";
    template <class A, class... P>
    static constexpr bool accepts = tensor_operand<A>;

    /// The rolled copy of t along `axes` by `shifts` (in [0, extent)) into `to`.
    static void write_axes(const tensor_ref& t, std::span<const std::size_t> axes, std::span<const std::size_t> shifts,
                           const tensor_ref& to);
    static void write(const tensor_ref& to, const tensor_ref& t, const dim_list& shifts, const dim_list& dims = {});
    static engine::dims target(const tensor_ref& t, const dim_list&, const dim_list& = {}) { return t.shape; }
};

// ---- where, sym_size, alias ------------------------------------------------------------------------------

template <class... A>
inline constexpr bool where_operands = false;
template <class C, class A, class B>
inline constexpr bool where_operands<C, A, B> = real_tensor_operand<C> && elementwise_operand<A> && elementwise_operand<B> &&
                                                (complex_operand<A> || complex_operand<B> ||
                                                 promotion::is_floating(result_dtype_v<A, B>));

/// where(cond, a, b): cond broadcasts over elements, never over [re, im].
struct where_broadcast_cond {
    using op = ::realify::op::where;
    static constexpr std::string_view name = "where_broadcast_cond";
    static constexpr std::string_view formula = "cond ? a : b per element (cond never spreads over [re, im])";
    template <class... A>
    static constexpr bool accepts = where_operands<A...>;

    template <class C, class A, class B>
    using element = element_of<complex_operand<A> || complex_operand<B>, promoted_real_t<A, B>>;
    template <class C, class A, class B>
    static engine::block_kernel kernel() {
        const std::array<bool, 3> kinds{false, complex_operand<A>, complex_operand<B>};
        return engine::builtin_kernel(engine::builtin::where, engine::component_of<promoted_real_t<A, B>>(), kinds);
    }
    template <class C, class A, class B>
    static auto apply(const C& cond, const A& a, const B& b) {
        using R = result_t<element<C, A, B>, broadcast_rank_v<C, A, B>, C, A, B>;
        return allocate_and_evaluate<R>(op::name, kernel<C, A, B>(), cond, a, b);
    }
    template <class O, class C, class A, class B>
    static void apply_into(out_arg<O>& o, const C& cond, const A& a, const B& b) {
        evaluate_into<element<C, A, B>>(op::name, kernel<C, A, B>(), o, cond, a, b);
    }
};

struct sym_size_complex_dim {
    using op = ::realify::op::sym_size;
    static constexpr std::string_view name = "sym_size_complex_dim";
    static constexpr std::string_view formula = "layout.shape[d'] (the trailing 2 is not a dim of the complex tensor)";
    template <class A, class... P>
    static constexpr bool accepts = tensor_operand<A>;
    template <class A>
    static std::size_t apply(const A& a, std::ptrdiff_t dim) {
        const engine::input<A> in(op::name, a);
        return in.ref().shape[shape_detail::axis_of(op::name, dim, in.ref().rank())];
    }
};

struct alias_passthrough {
    using op = ::realify::op::alias;
    static constexpr std::string_view name = "alias_passthrough";
    static constexpr std::string_view formula = "the same layout (no copy)";
    template <class A>
    static constexpr bool accepts = complex_layout_operand<A>;
    template <class A>
    static auto apply(const A& a) {
        return as_complex_layout(a.real_layout());
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(permute, lowering::permute_append_last)
REALIFY_BUILTIN_CANDIDATES(reshape, lowering::reshape_append_two)
REALIFY_BUILTIN_CANDIDATES(view, lowering::view_append_two)
REALIFY_BUILTIN_CANDIDATES(unsafe_view, lowering::unsafe_view_append_two)
REALIFY_BUILTIN_CANDIDATES(flatten, lowering::flatten_keep_last)
REALIFY_BUILTIN_CANDIDATES(unsqueeze, lowering::unsqueeze_shifted_dim)
REALIFY_BUILTIN_CANDIDATES(squeeze, lowering::squeeze_keep_last)
REALIFY_BUILTIN_CANDIDATES(squeeze_dim, lowering::squeeze_dim_shifted)
REALIFY_BUILTIN_CANDIDATES(squeeze_dims, lowering::squeeze_dims_shifted)
REALIFY_BUILTIN_CANDIDATES(cat, lowering::cat_shifted_dim)
REALIFY_BUILTIN_CANDIDATES(stack, lowering::stack_shifted_dim)
REALIFY_BUILTIN_CANDIDATES(t, lowering::t_keep_last)
REALIFY_BUILTIN_CANDIDATES(transpose, lowering::transpose_shifted_dims)
REALIFY_BUILTIN_CANDIDATES(select, lowering::select_shifted_dim)
REALIFY_BUILTIN_CANDIDATES(getitem, lowering::getitem_select0)
REALIFY_BUILTIN_CANDIDATES(slice, lowering::slice_shifted_dim)
REALIFY_BUILTIN_CANDIDATES(narrow, lowering::narrow_shifted_dim)
REALIFY_BUILTIN_CANDIDATES(split, lowering::split_shifted_dim)
REALIFY_BUILTIN_CANDIDATES(split_with_sizes, lowering::split_with_sizes_shifted_dim)
REALIFY_BUILTIN_CANDIDATES(chunk, lowering::chunk_shifted_dim)
REALIFY_BUILTIN_CANDIDATES(expand, lowering::expand_append_two)
REALIFY_BUILTIN_CANDIDATES(repeat, lowering::repeat_append_one)
REALIFY_BUILTIN_CANDIDATES(flip, lowering::flip_shifted_dims)
REALIFY_BUILTIN_CANDIDATES(roll, lowering::roll_shifted_dims)
REALIFY_BUILTIN_CANDIDATES(where, lowering::where_broadcast_cond)
REALIFY_BUILTIN_CANDIDATES(hstack, lowering::hstack_cat)
REALIFY_BUILTIN_CANDIDATES(triu, lowering::triu_keep_upper)
REALIFY_BUILTIN_CANDIDATES(tril, lowering::tril_keep_lower)
REALIFY_BUILTIN_CANDIDATES(sym_size, lowering::sym_size_complex_dim)
REALIFY_BUILTIN_CANDIDATES(alias, lowering::alias_passthrough)

}  // namespace realify::dispatch
