// Lowerings of the shape ops on the (…,2) layout, with Torch-TensorRT's dim
// adjustments: permute appends the trailing axis (dims + [n]); a negative dim
// d becomes d − 1 (non-negative dims stay); reshape/view/expand append 2 to
// the shape; repeat appends 1 to the repeats. The real layout is then moved
// by xtensor's own functions and evaluated into an owning container (results
// never alias their input, except alias()).
//
// Rank-preserving ops return complex_layout<xt::xtensor<T, N+1>> when N is
// static; ops whose rank depends on run-time arguments return
// complex_layout<xt::xarray<T>>.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <numeric>
#include <string>
#include <sstream>
#include <string_view>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xstrided_view.hpp>

#include "realify/checked_size.hpp"
#include "realify/dispatch/lowerings/common.hpp"
#include "realify/ops/shape_inference.hpp"

namespace realify::dispatch {
namespace lowering {

using dim_list = std::vector<std::ptrdiff_t>;

namespace shape_detail {

/// A complex dim (negative allowed) as an axis of the real layout, checked:
/// Torch-TensorRT's rule (a negative dim moves by one, the trailing [re, im]
/// axis is appended last) lands on the axis PyTorch's wrap gives in the complex rank.
inline std::size_t layout_axis(std::string_view op, std::ptrdiff_t dim, std::size_t complex_rank) {
    return realify::detail::wrap_dim(op, dim, complex_rank);
}

template <class A>
auto shape_of(const A& a) {
    const auto s = a.shape();
    return realify::detail::dim_vector(s.begin(), s.end());
}

/// The real layout of a complex operand, evaluated contiguous.
template <class A>
auto evaluate(const A& a) {
    using T = typename A::real_type;
    return xt::xarray<T>(a.real_layout());
}

/// An owning layout of complex rank Rank from a real (…,2) expression.
template <std::size_t Rank, class E>
auto make_layout(E&& real_expression) {
    using T = typename std::decay_t<E>::value_type;
    using container = realify::detail::owning_tensor_t<std::remove_const_t<T>, rank_plus_one(Rank)>;
    return complex_layout<container>(container(std::forward<E>(real_expression)));
}

/// An empty owning layout of complex shape `shape`: xtensor's views and
/// reducers do pointer arithmetic on the null data of empty tensors (UB), so
/// ops on empty inputs build their (empty) result directly.
template <std::size_t Rank, class T, class Shape>
auto empty_layout(const Shape& shape) {
    using container = realify::detail::owning_tensor_t<T, rank_plus_one(Rank)>;
    realify::detail::dim_vector dims(shape.begin(), shape.end());
    return complex_layout<container>(realify::detail::make_container<container>(dims, 2));
}

/// Reshapes a contiguous real layout to complex shape `shape`.
template <class T, class Shape>
auto reshaped(xt::xarray<T>&& real, const Shape& shape) {
    std::vector<std::size_t> real_shape(shape.begin(), shape.end());
    real_shape.push_back(2);
    real.reshape(real_shape);
    return complex_layout<xt::xarray<T>>(std::move(real));
}

/// `length` elements start, start + step, … along `axis` (all in range, so
/// start + (length − 1)·step < extent), evaluated. Empty results are built
/// directly; a single element is taken with step 1, because xtensor's range
/// computes stop − start + step − 1 and a step near PTRDIFF_MAX would wrap.
template <class T>
auto slice_layout(const xt::xarray<T>& real, std::size_t axis, std::size_t start, std::size_t length,
                  std::size_t step) {
    if (length == 0 || real.size() == 0) {
        std::vector<std::size_t> shape(real.shape().begin(), real.shape().end());
        shape[axis] = length;
        return xt::xarray<T>::from_shape(shape);
    }
    if (length == 1) step = 1;
    const std::size_t stop = start + (length - 1) * step + 1;
    xt::xstrided_slice_vector slices(real.dimension(), xt::all());
    slices[axis] = xt::range(static_cast<std::ptrdiff_t>(start), static_cast<std::ptrdiff_t>(stop),
                             static_cast<std::ptrdiff_t>(step));
    return xt::xarray<T>(xt::strided_view(real, slices));
}

/// The layout with its axes in the order `perm` (a permutation of all its
/// real axes, the trailing [re, im] axis last), evaluated.
template <class A>
auto permuted(const A& a, const std::vector<std::size_t>& perm) {
    if (a.size() == 0) {
        const auto from = shape_of(a);
        std::vector<std::size_t> to;
        for (std::size_t i = 0, n = a.dimension(); i < n; ++i) to.push_back(from[perm[i]]);
        return empty_layout<A::rank, typename A::real_type>(to);
    }
    return make_layout<A::rank>(xt::transpose(evaluate(a), perm));
}

}  // namespace shape_detail

#define REALIFY_SHAPE_LOWERING_HEAD(OP, NAME, FORMULA)          \
    using op = ::realify::op::OP;                               \
    static constexpr std::string_view name = NAME;              \
    static constexpr std::string_view formula = FORMULA;        \
    template <class A, class... P>                              \
    static constexpr bool accepts = complex_tensor_operand<A>;

struct permute_append_last {
    REALIFY_SHAPE_LOWERING_HEAD(permute, "permute_append_last", "permute(layout, dims + [n])")
    template <class A>
    static auto apply(const A& a, const dim_list& dims) {
        const std::size_t n = a.dimension();
        if (dims.size() != n) {
            throw shape_error("realify::permute: " + std::to_string(dims.size()) + " dims given for a tensor of rank " +
                              std::to_string(n));
        }
        std::vector<std::size_t> perm;
        std::vector<bool> seen(n, false);
        for (std::ptrdiff_t d : dims) {
            const std::size_t axis = shape_detail::layout_axis("permute", d, n);
            if (seen[axis]) throw shape_error("realify::permute: dims " + realify::detail::format_sequence(dims) + " repeat a dimension");
            seen[axis] = true;
            perm.push_back(axis);
        }
        perm.push_back(n);
        return shape_detail::permuted(a, perm);
    }
};

template <class Tag>
struct reshape_append_two {
    using op = Tag;
    static constexpr std::string_view name =
        std::is_same_v<Tag, ::realify::op::reshape> ? "reshape_append_two"
        : std::is_same_v<Tag, ::realify::op::view> ? "view_append_two" : "unsafe_view_append_two";
    static constexpr std::string_view formula = "reshape(layout, shape + [2])";
    template <class A, class... P>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static auto apply(const A& a, const dim_list& shape) {
        const auto from = shape_detail::shape_of(a);
        const auto target = realify::detail::reshape_extents(Tag::name, shape, from);
        return shape_detail::reshaped(shape_detail::evaluate(a), target);
    }
};

struct flatten_range {
    REALIFY_SHAPE_LOWERING_HEAD(flatten, "flatten_keep_last", "reshape(layout, merged dims + [2])")
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t start = 0, std::ptrdiff_t end = -1) {
        const auto from = shape_detail::shape_of(a);
        const auto target = realify::detail::flatten_extents("flatten", from, start, end);
        return shape_detail::reshaped(shape_detail::evaluate(a), target);
    }
};

struct unsqueeze_layout {
    REALIFY_SHAPE_LOWERING_HEAD(unsqueeze, "unsqueeze_shifted_dim", "unsqueeze(layout, d < 0 ? d − 1 : d)")
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim) {
        const auto target = realify::detail::unsqueeze_extents("unsqueeze", shape_detail::shape_of(a), dim);
        return shape_detail::reshaped(shape_detail::evaluate(a), target);
    }
};

/// squeeze (all dims), squeeze.dim, squeeze.dims: drop extent-1 complex dims,
/// never the trailing [re, im] axis.
struct squeeze_keep_last {
    using op = ::realify::op::squeeze;
    static constexpr std::string_view name = "squeeze_keep_last";
    static constexpr std::string_view formula = "drop extent-1 dims except the trailing 2";
    template <class A>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static auto apply(const A& a) {
        return shape_detail::reshaped(shape_detail::evaluate(a), realify::detail::squeeze_all_extents(shape_detail::shape_of(a)));
    }
};
struct squeeze_dim_shifted {
    REALIFY_SHAPE_LOWERING_HEAD(squeeze_dim, "squeeze_dim_shifted", "squeeze(layout, d < 0 ? d − 1 : d)")
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim) {
        return shape_detail::reshaped(shape_detail::evaluate(a),
                                      realify::detail::squeeze_extents("squeeze_dim", shape_detail::shape_of(a), {dim}));
    }
};
struct squeeze_dims_shifted {
    REALIFY_SHAPE_LOWERING_HEAD(squeeze_dims, "squeeze_dims_shifted", "squeeze(layout, [d < 0 ? d − 1 : d …])")
    template <class A>
    static auto apply(const A& a, const dim_list& dims) {
        return shape_detail::reshaped(shape_detail::evaluate(a),
                                      realify::detail::squeeze_extents("squeeze_dims", shape_detail::shape_of(a), dims));
    }
};

/// cat / stack of a list of complex layouts of one type.
namespace shape_detail {
template <class A>
auto cat_impl(std::string_view op, const std::vector<A>& parts, std::ptrdiff_t dim) {
    using T = typename A::real_type;
    if (parts.empty()) throw shape_error("realify::" + std::string(op) + ": expected a non-empty list of tensors");
    const auto first = shape_of(parts[0]);
    const std::size_t axis = layout_axis(op, dim, first.size());
    auto out_shape = first;
    out_shape[axis] = 0;
    for (const A& part : parts) {
        const auto s = shape_of(part);
        bool ok = s.size() == first.size();
        for (std::size_t i = 0; ok && i < s.size(); ++i) ok = (i == axis || s[i] == first[i]);
        if (!ok) {
            throw shape_error("realify::" + std::string(op) + ": tensors of shapes " + realify::detail::format_sequence(first) + " and " +
                              realify::detail::format_sequence(s) + " differ outside dimension " + std::to_string(dim));
        }
        out_shape[axis] += s[axis];
    }
    std::vector<std::size_t> real_shape(out_shape.begin(), out_shape.end());
    real_shape.push_back(2);
    xt::xarray<T> out = xt::xarray<T>::from_shape(real_shape);
    // Row-major: each part contributes one contiguous block of
    // extent(axis)·inner reals per outer index.
    std::size_t outer = 1, inner = 2;
    for (std::size_t i = 0; i < axis; ++i) outer *= first[i];
    for (std::size_t i = axis + 1; i < first.size(); ++i) inner *= first[i];
    const std::size_t out_block = out_shape[axis] * inner;
    std::size_t offset = 0;
    for (const A& part : parts) {
        const xt::xarray<T> src = evaluate(part);
        const std::size_t block = src.shape()[axis] * inner;
        for (std::size_t o = 0; o < outer; ++o)
            std::copy_n(src.data() + o * block, block, out.data() + o * out_block + offset);
        offset += block;
    }
    return make_layout<A::rank>(std::move(out));
}
}  // namespace shape_detail

struct cat_blocks {
    using op = ::realify::op::cat;
    static constexpr std::string_view name = "cat_shifted_dim";
    static constexpr std::string_view formula = "cat(layouts, d < 0 ? d − 1 : d)";
    template <class L, class... P>
    static constexpr bool accepts = requires { typename L::value_type; } && complex_tensor_operand<typename L::value_type>;
    template <class A>
    static auto apply(const std::vector<A>& parts, std::ptrdiff_t dim = 0) {
        return shape_detail::cat_impl("cat", parts, dim);
    }
};
struct stack_blocks {
    using op = ::realify::op::stack;
    static constexpr std::string_view name = "stack_shifted_dim";
    static constexpr std::string_view formula = "stack(layouts, d < 0 ? d − 1 : d)";
    template <class L, class... P>
    static constexpr bool accepts = requires { typename L::value_type; } && complex_tensor_operand<typename L::value_type>;
    template <class A>
    static auto apply(const std::vector<A>& parts, std::ptrdiff_t dim = 0) {
        if (parts.empty()) throw shape_error("realify::stack: expected a non-empty list of tensors");
        const auto first = shape_detail::shape_of(parts[0]);
        for (const A& part : parts) {
            if (shape_detail::shape_of(part) != first) {
                throw shape_error("realify::stack: tensors of shapes " + realify::detail::format_sequence(first) + " and " +
                                  realify::detail::format_sequence(shape_detail::shape_of(part)) + " differ");
            }
        }
        const std::size_t axis = shape_detail::layout_axis("stack", dim, first.size() + 1);
        std::vector<complex_layout<xt::xarray<typename A::real_type>>> expanded;
        for (const A& part : parts) expanded.push_back(unsqueeze_layout::apply(part, static_cast<std::ptrdiff_t>(axis)));
        return shape_detail::cat_impl("stack", expanded, static_cast<std::ptrdiff_t>(axis));
    }
};

struct transpose_swap {
    REALIFY_SHAPE_LOWERING_HEAD(transpose, "transpose_shifted_dims", "swap(layout, d0', d1'), d' = d < 0 ? d − 1 : d")
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim0, std::ptrdiff_t dim1) {
        const std::size_t n = a.dimension();
        std::vector<std::size_t> perm(n + 1);
        std::iota(perm.begin(), perm.end(), 0);
        std::swap(perm[shape_detail::layout_axis("transpose", dim0, n)], perm[shape_detail::layout_axis("transpose", dim1, n)]);
        return shape_detail::permuted(a, perm);
    }
};
struct t_swap {
    REALIFY_SHAPE_LOWERING_HEAD(t, "t_keep_last", "rank ≤ 2: permute(layout, [1, 0, 2])")
    template <class A>
    static auto apply(const A& a) {
        if (a.dimension() > 2) throw shape_error("realify::t: expects a tensor of rank <= 2, got rank " + std::to_string(a.dimension()));
        if (a.dimension() < 2) return shape_detail::make_layout<A::rank>(shape_detail::evaluate(a));
        return transpose_swap::apply(a, 0, 1);
    }
};

struct select_index {
    REALIFY_SHAPE_LOWERING_HEAD(select, "select_shifted_dim", "layout[…, index, …, :] at d' = d < 0 ? d − 1 : d")
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim, std::ptrdiff_t index) {
        const auto shape = shape_detail::shape_of(a);
        const std::size_t axis = shape_detail::layout_axis("select", dim, shape.size());
        const std::size_t at = realify::detail::wrap_index("select", "index", index, shape[axis], dim);
        if (a.size() == 0) {
            std::vector<std::size_t> to(shape.begin(), shape.end());
            to.erase(to.begin() + static_cast<std::ptrdiff_t>(axis));
            return shape_detail::reshaped(xt::xarray<typename A::real_type>::from_shape({std::size_t(0)}), to);
        }
        const xt::xarray<typename A::real_type> real = shape_detail::evaluate(a);
        xt::xstrided_slice_vector slices(real.dimension(), xt::all());
        slices[axis] = at;
        return complex_layout<xt::xarray<typename A::real_type>>(xt::xarray<typename A::real_type>(xt::strided_view(real, slices)));
    }
};
struct getitem_first_dim {
    using op = ::realify::op::getitem;
    static constexpr std::string_view name = "getitem_select0";
    static constexpr std::string_view formula = "layout[index] (select along dim 0)";
    template <class A, class... P>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t index) { return select_index::apply(a, 0, index); }
};

struct slice_step {
    REALIFY_SHAPE_LOWERING_HEAD(slice, "slice_shifted_dim", "layout[…, start:end:step, …, :] at d' = d < 0 ? d − 1 : d")
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim = 0, std::ptrdiff_t start = 0,
                      std::ptrdiff_t end = std::numeric_limits<std::ptrdiff_t>::max(), std::ptrdiff_t step = 1) {
        const auto shape = shape_detail::shape_of(a);
        const std::size_t axis = shape_detail::layout_axis("slice", dim, shape.size());
        if (step <= 0) throw shape_error("realify::slice: step must be positive, got " + std::to_string(step));
        const std::size_t first = realify::detail::clamp_slice_bound(start, shape[axis]);
        const std::size_t stop = realify::detail::clamp_slice_bound(end, shape[axis]);
        const auto stride = static_cast<std::size_t>(step);
        return shape_detail::make_layout<A::rank>(shape_detail::slice_layout(
            shape_detail::evaluate(a), axis, first, realify::detail::slice_length(first, stop, stride), stride));
    }
};
struct narrow_range {
    REALIFY_SHAPE_LOWERING_HEAD(narrow, "narrow_shifted_dim", "layout[…, start:start+length, …, :]")
    template <class A>
    static auto apply(const A& a, std::ptrdiff_t dim, std::ptrdiff_t start, std::ptrdiff_t length) {
        const auto shape = shape_detail::shape_of(a);
        const std::size_t axis = shape_detail::layout_axis("narrow", dim, shape.size());
        const auto size = static_cast<std::ptrdiff_t>(shape[axis]);
        // PyTorch: start in [−size, size], 0 ≤ length ≤ size − start (never start + length: it may overflow).
        const std::ptrdiff_t first = start < 0 && start >= -size ? start + size : start;
        if (first < 0 || first > size || length < 0 || length > size - first) {
            throw shape_error("realify::narrow: start " + std::to_string(start) + " and length " + std::to_string(length) +
                              " do not fit dimension " + std::to_string(dim) + " of size " + std::to_string(size));
        }
        return shape_detail::make_layout<A::rank>(shape_detail::slice_layout(
            shape_detail::evaluate(a), axis, static_cast<std::size_t>(first), static_cast<std::size_t>(length), 1));
    }
};

/// split / split_with_sizes / chunk: a std::vector of owning layouts.
namespace shape_detail {
template <class A>
auto split_sizes(const A& a, const std::vector<std::size_t>& sizes, std::size_t axis) {
    using result = decltype(make_layout<A::rank>(std::declval<xt::xarray<typename A::real_type>>()));
    std::vector<result> pieces;
    const xt::xarray<typename A::real_type> real = evaluate(a);
    std::size_t start = 0;  // the sizes are checked to sum to the extent
    for (std::size_t size : sizes) {
        pieces.push_back(make_layout<A::rank>(slice_layout(real, axis, start, size, 1)));
        start += size;
    }
    return pieces;
}
}  // namespace shape_detail

struct split_even {
    REALIFY_SHAPE_LOWERING_HEAD(split, "split_shifted_dim", "narrow pieces of split_size along d'")
    template <class A>
    static auto apply(const A& a, std::size_t split_size, std::ptrdiff_t dim = 0) {
        const auto shape = shape_detail::shape_of(a);
        const std::size_t axis = shape_detail::layout_axis("split", dim, shape.size());
        if (split_size == 0 && shape[axis] != 0) throw shape_error("realify::split: split_size must be positive");
        std::vector<std::size_t> sizes;  // never done + split_size: split_size may be near SIZE_MAX
        for (std::size_t done = 0; done < shape[axis]; done += sizes.back()) sizes.push_back(std::min(split_size, shape[axis] - done));
        if (sizes.empty()) sizes.push_back(0);
        return shape_detail::split_sizes(a, sizes, axis);
    }
};
struct split_with_sizes_list {
    REALIFY_SHAPE_LOWERING_HEAD(split_with_sizes, "split_with_sizes_shifted_dim", "narrow pieces of the given sizes along d'")
    template <class A>
    static auto apply(const A& a, const std::vector<std::size_t>& sizes, std::ptrdiff_t dim = 0) {
        const auto shape = shape_detail::shape_of(a);
        const std::size_t axis = shape_detail::layout_axis("split_with_sizes", dim, shape.size());
        std::size_t total = 0;
        for (std::size_t size : sizes) {
            total = realify::detail::checked_add("split_with_sizes", "sum of sizes", total,
                                                 realify::detail::checked_signed_size("split_with_sizes", "size", size));
        }
        if (total != shape[axis]) {
            throw shape_error("realify::split_with_sizes: sizes " + realify::detail::format_sequence(sizes) + " do not sum to dimension " +
                              std::to_string(dim) + " of size " + std::to_string(shape[axis]));
        }
        return shape_detail::split_sizes(a, sizes, axis);
    }
};
struct chunk_even {
    REALIFY_SHAPE_LOWERING_HEAD(chunk, "chunk_shifted_dim", "split with split_size = ceil(size / chunks)")
    template <class A>
    static auto apply(const A& a, std::size_t chunks, std::ptrdiff_t dim = 0) {
        if (chunks == 0) throw shape_error("realify::chunk: chunks must be positive");
        const auto shape = shape_detail::shape_of(a);
        const std::size_t size = shape[shape_detail::layout_axis("chunk", dim, shape.size())];
        const std::size_t split_size = size == 0 ? 1 : (size - 1) / chunks + 1;  // ceil, without size + chunks − 1
        return split_even::apply(a, split_size, dim);
    }
};

struct expand_append_two {
    REALIFY_SHAPE_LOWERING_HEAD(expand, "expand_append_two", "broadcast(layout, sizes + [2]), −1 keeps a dim")
    template <class A>
    static auto apply(const A& a, const dim_list& sizes) {
        const auto shape = shape_detail::shape_of(a);
        if (sizes.size() < shape.size()) {
            throw shape_error("realify::expand: " + std::to_string(sizes.size()) + " sizes given for a tensor of rank " +
                              std::to_string(shape.size()));
        }
        std::vector<std::size_t> target(sizes.size() + 1, 2);
        const std::size_t lead = sizes.size() - shape.size();
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const bool existing = i >= lead;
            if (sizes[i] == -1) {
                if (!existing) throw shape_error("realify::expand: -1 is not allowed for a new leading dimension");
                target[i] = shape[i - lead];
            } else if (sizes[i] < 0) {
                throw shape_error("realify::expand: size " + std::to_string(sizes[i]) + " in " +
                                  realify::detail::format_sequence(sizes) + " is negative (only -1, keep the dim, is allowed)");
            } else {
                target[i] = static_cast<std::size_t>(sizes[i]);
                if (existing && shape[i - lead] != 1 && shape[i - lead] != target[i]) {
                    throw shape_error("realify::expand: cannot expand shape " + realify::detail::format_sequence(shape) + " to " + realify::detail::format_sequence(sizes));
                }
            }
        }
        realify::detail::checked_element_count("expand", "shape", target, sizeof(typename A::real_type));
        if (a.size() == 0) return complex_layout<xt::xarray<typename A::real_type>>(xt::xarray<typename A::real_type>::from_shape(target));
        return complex_layout<xt::xarray<typename A::real_type>>(
            xt::xarray<typename A::real_type>(xt::broadcast(shape_detail::evaluate(a), target)));
    }
};

struct repeat_append_one {
    REALIFY_SHAPE_LOWERING_HEAD(repeat, "repeat_append_one", "tile(layout, repeats + [1])")
    template <class A>
    static auto apply(const A& a, const std::vector<std::size_t>& repeats) {
        const auto shape = shape_detail::shape_of(a);
        if (repeats.size() < shape.size()) {
            throw shape_error("realify::repeat: " + std::to_string(repeats.size()) + " repeats given for a tensor of rank " +
                              std::to_string(shape.size()));
        }
        // out[i] = a[i mod s] per dim: view a as (1, s0, 1, s1, …, 2), broadcast
        // to (r0, s0, r1, s1, …, 2) and merge each (r, s) pair — repeats + [1].
        const std::size_t lead = repeats.size() - shape.size();
        std::vector<std::size_t> split_shape, broadcast_shape, target;
        for (std::size_t i = 0; i < repeats.size(); ++i) {
            const std::size_t s = i < lead ? 1 : shape[i - lead];
            split_shape.insert(split_shape.end(), {std::size_t(1), s});
            const std::size_t r = realify::detail::checked_signed_size("repeat", "repeat count", repeats[i]);
            broadcast_shape.insert(broadcast_shape.end(), {r, s});
            target.push_back(realify::detail::checked_mul("repeat", "repeated extent", r, s));
        }
        split_shape.push_back(2);
        broadcast_shape.push_back(2);
        using T = typename A::real_type;
        realify::detail::checked_element_count("repeat", "shape", target, 2 * sizeof(T));
        if (a.size() == 0) return shape_detail::empty_layout<dynamic_rank, T>(target);
        xt::xarray<T> real = shape_detail::evaluate(a);
        real.reshape(split_shape);
        return shape_detail::reshaped(xt::xarray<T>(xt::broadcast(real, broadcast_shape)), target);
    }
};

struct flip_shifted {
    REALIFY_SHAPE_LOWERING_HEAD(flip, "flip_shifted_dims", "flip(layout, [d < 0 ? d − 1 : d …])")
    template <class A>
    static auto apply(const A& a, const dim_list& dims) {
        xt::xarray<typename A::real_type> real = shape_detail::evaluate(a);
        for (std::ptrdiff_t d : dims) {
            const std::size_t axis = shape_detail::layout_axis("flip", d, a.dimension());  // checks the dim
            if (a.size() == 0) continue;
            real = xt::xarray<typename A::real_type>(xt::flip(real, axis));
        }
        return shape_detail::make_layout<A::rank>(std::move(real));
    }
};

struct roll_shifted {
    REALIFY_SHAPE_LOWERING_HEAD(roll, "roll_shifted_dims", "roll(layout, shifts, [d'…]); no dims: roll of the flattened pairs")
    template <class A>
    static auto apply(const A& a, const dim_list& shifts, const dim_list& dims = {}) {
        using T = typename A::real_type;
        xt::xarray<T> real = shape_detail::evaluate(a);
        if (a.size() == 0) return shape_detail::make_layout<A::rank>(std::move(real));
        if (dims.empty()) {
            if (shifts.size() != 1) throw shape_error("realify::roll: without dims, exactly one shift is expected");
            const auto shape = real.shape();
            const std::size_t n = a.size();
            real.reshape({n, std::size_t(2)});
            const auto shift = static_cast<std::ptrdiff_t>(realify::detail::reduce_shift(shifts[0], n));
            xt::xarray<T> rolled = xt::roll(real, shift, 0);
            rolled.reshape(shape);
            return shape_detail::make_layout<A::rank>(std::move(rolled));
        }
        if (shifts.size() != dims.size()) {
            throw shape_error("realify::roll: " + std::to_string(shifts.size()) + " shifts for " + std::to_string(dims.size()) + " dims");
        }
        for (std::size_t i = 0; i < dims.size(); ++i) {
            const std::size_t axis = shape_detail::layout_axis("roll", dims[i], a.dimension());
            // xt::roll steps a negative shift up by the extent until it is
            // non-negative: reduce it first (PTRDIFF_MIN would take forever).
            const auto shift = static_cast<std::ptrdiff_t>(realify::detail::reduce_shift(shifts[i], real.shape()[axis]));
            real = xt::xarray<T>(xt::roll(real, shift, static_cast<std::ptrdiff_t>(axis)));
        }
        return shape_detail::make_layout<A::rank>(std::move(real));
    }
};

/// where(cond, a, b): cond broadcasts over complex elements, never over [re, im].
struct where_pairs {
    using op = ::realify::op::where;
    static constexpr std::string_view name = "where_broadcast_cond";
    static constexpr std::string_view formula = "cond ? a : b per complex element (cond never spreads over [re, im])";
    template <class C, class A, class B>
    static constexpr bool accepts = real_tensor_operand<C> && (complex_operand<A> || complex_operand<B>) &&
                                    elementwise_operand<A> && elementwise_operand<B>;
    template <class C, class A, class B>
    static auto apply(const C& cond, const A& a, const B& b) {
        return dispatch::lowering::elementwise<op>(
            [](auto c, auto x, auto y) { return c != decltype(c)(0) ? to_pair(x) : to_pair(y); }, cond, a, b);
    }
};

struct sym_size_of {
    using op = ::realify::op::sym_size;
    static constexpr std::string_view name = "sym_size_complex_dim";
    static constexpr std::string_view formula = "layout.shape[d'] (the trailing 2 is not a dim of the complex tensor)";
    template <class A, class... P>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static std::size_t apply(const A& a, std::ptrdiff_t dim) {
        return a.shape()[shape_detail::layout_axis("sym_size", dim, a.dimension())];
    }
};

struct alias_same_memory {
    using op = ::realify::op::alias;
    static constexpr std::string_view name = "alias_passthrough";
    static constexpr std::string_view formula = "the same layout (no copy)";
    template <class A>
    static constexpr bool accepts = complex_tensor_operand<A>;
    template <class A>
    static auto apply(const A& a) {
        return as_complex_layout(a.real_layout());
    }
};

#undef REALIFY_SHAPE_LOWERING_HEAD
}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(permute, lowering::permute_append_last)
REALIFY_BUILTIN_CANDIDATES(reshape, lowering::reshape_append_two<op::reshape>)
REALIFY_BUILTIN_CANDIDATES(view, lowering::reshape_append_two<op::view>)
REALIFY_BUILTIN_CANDIDATES(unsafe_view, lowering::reshape_append_two<op::unsafe_view>)
REALIFY_BUILTIN_CANDIDATES(flatten, lowering::flatten_range)
REALIFY_BUILTIN_CANDIDATES(unsqueeze, lowering::unsqueeze_layout)
REALIFY_BUILTIN_CANDIDATES(squeeze, lowering::squeeze_keep_last)
REALIFY_BUILTIN_CANDIDATES(squeeze_dim, lowering::squeeze_dim_shifted)
REALIFY_BUILTIN_CANDIDATES(squeeze_dims, lowering::squeeze_dims_shifted)
REALIFY_BUILTIN_CANDIDATES(cat, lowering::cat_blocks)
REALIFY_BUILTIN_CANDIDATES(stack, lowering::stack_blocks)
REALIFY_BUILTIN_CANDIDATES(t, lowering::t_swap)
REALIFY_BUILTIN_CANDIDATES(transpose, lowering::transpose_swap)
REALIFY_BUILTIN_CANDIDATES(select, lowering::select_index)
REALIFY_BUILTIN_CANDIDATES(getitem, lowering::getitem_first_dim)
REALIFY_BUILTIN_CANDIDATES(slice, lowering::slice_step)
REALIFY_BUILTIN_CANDIDATES(narrow, lowering::narrow_range)
REALIFY_BUILTIN_CANDIDATES(split, lowering::split_even)
REALIFY_BUILTIN_CANDIDATES(split_with_sizes, lowering::split_with_sizes_list)
REALIFY_BUILTIN_CANDIDATES(chunk, lowering::chunk_even)
REALIFY_BUILTIN_CANDIDATES(expand, lowering::expand_append_two)
REALIFY_BUILTIN_CANDIDATES(repeat, lowering::repeat_append_one)
REALIFY_BUILTIN_CANDIDATES(flip, lowering::flip_shifted)
REALIFY_BUILTIN_CANDIDATES(roll, lowering::roll_shifted)
REALIFY_BUILTIN_CANDIDATES(where, lowering::where_pairs)
REALIFY_BUILTIN_CANDIDATES(sym_size, lowering::sym_size_of)
REALIFY_BUILTIN_CANDIDATES(alias, lowering::alias_same_memory)

}  // namespace realify::dispatch
