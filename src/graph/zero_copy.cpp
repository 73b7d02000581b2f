// realify/graph/zero_copy.hpp: the views — transpose, permute, select,
// slice, expand, reshape where the strides allow it, view_as_complex, … —
// evaluated by re-describing their operand's memory (new shape, strides and
// first element), as PyTorch's views are; a reshape the strides do not allow
// makes one packed copy. Also which views keep the elements' order, which
// the out= planning reads to write through a view.
#include "realify/graph/zero_copy.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <string>

#include "realify/checked_size.hpp"
#include "realify/dispatch/lowerings/shape.hpp"
#include "realify/errors.hpp"
#include "realify/ops/shape_inference.hpp"

namespace realify::graph::detail {

namespace {

namespace lowering = realify::dispatch::lowering;

/// The requested reshape dims with every same(k) replaced by from[k].
dim_list resolve_same(std::string_view where, const dim_list& requested, const shape_vector& from) {
    dim_list dims = requested;
    for (std::ptrdiff_t& d : dims) {
        if (!is_same_marker(d)) continue;
        const std::size_t k = same_marker_dim(d);
        if (k >= from.size())
            throw shape_error("realify::" + std::string(where) + ": same(" + std::to_string(k) +
                              ") refers past the rank of a tensor of shape " + realify::detail::format_sequence(from));
        d = static_cast<std::ptrdiff_t>(from[k]);
    }
    return dims;
}

/// The reshape-likes' shapes (the eager ops' routines).
shape_vector reshaped_shape(const ir_node& n, const shape_vector& from) {
    const node_attrs& a = n.attrs;
    const std::string_view where = n.entry_point;
    switch (n.shape) {
    case shape_rule::reshape:
        if (std::none_of(a.dims.begin(), a.dims.end(), is_same_marker)) return realify::detail::reshape_extents(where, a.dims, from);
        return realify::detail::reshape_extents(where, resolve_same(where, a.dims, from), from);
    case shape_rule::flatten: return realify::detail::flatten_extents(where, from, a.i0, a.i1);
    case shape_rule::unsqueeze: return realify::detail::unsqueeze_extents(where, from, a.i0);
    case shape_rule::squeeze_dim: return realify::detail::squeeze_extents(where, from, {a.i0});
    case shape_rule::squeeze_dims: return realify::detail::squeeze_extents(where, from, a.dims);
    case shape_rule::squeeze_all: return realify::detail::squeeze_all_extents(from);
    default: return from;  // the operand itself
    }
}

std::size_t non_negative(const ir_node& n, std::string_view what, std::ptrdiff_t v) {
    return realify::detail::to_size(n.entry_point, what, v);
}

/// Piece attrs.i2 of split / split_with_sizes / chunk (attrs.i1: the dim) of t.
engine::tensor_ref piece_of(const ir_node& n, const engine::tensor_ref& t) {
    const node_attrs& a = n.attrs;
    const std::size_t axis = lowering::shape_detail::axis_of(n.op, a.i1, t.rank());
    const std::size_t extent = t.shape[axis];
    std::vector<std::size_t> sizes;
    if (n.tag == op_id::split_with_sizes) {
        for (std::ptrdiff_t d : a.dims) sizes.push_back(non_negative(n, "size", d));
        lowering::split_with_sizes_shifted_dim::check_sizes(sizes, a.i1, extent);
    } else if (n.tag == op_id::chunk) {
        const std::size_t chunks = non_negative(n, "chunk count", a.i0);
        lowering::chunk_shifted_dim::check_chunks(chunks);
        const std::size_t split_size = extent == 0 ? 1 : (extent - 1) / chunks + 1;  // ceil, as the eager chunk
        sizes = lowering::split_shifted_dim::sizes(extent, split_size);
    } else {
        sizes = lowering::split_shifted_dim::sizes(extent, non_negative(n, "split size", a.i0));
    }
    const std::size_t index = non_negative(n, "piece index", a.i2);
    if (index >= sizes.size())
        throw shape_error("realify::" + n.entry_point + ": piece " + std::to_string(index) + " asked for, the tensor splits into " +
                          std::to_string(sizes.size()));
    const std::size_t start = std::accumulate(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(index), std::size_t{0});
    return engine::sliced(t, axis, start, sizes[index], 1);
}

/// A strided view of t: the eager op's view (its checks and errors).
engine::tensor_ref strided_view(const ir_node& n, const engine::tensor_ref& t) {
    const node_attrs& a = n.attrs;
    switch (*n.tag) {
    case op_id::permute: return lowering::permute_append_last::view(t, a.dims);
    case op_id::transpose: return lowering::transpose_shifted_dims::view(t, a.i0, a.i1);
    case op_id::t: return lowering::t_keep_last::view(t);
    case op_id::select: return lowering::select_shifted_dim::view(t, a.i0, a.i1);
    case op_id::getitem: return lowering::getitem_select0::view(t, a.i0);
    case op_id::narrow: return lowering::narrow_shifted_dim::view(t, a.i0, a.i1, a.i2);
    case op_id::slice: return lowering::slice_shifted_dim::view(t, a.i0, a.i1, a.i2, a.i3);
    case op_id::expand: return lowering::expand_append_two::view(t, a.dims);
    case op_id::split:
    case op_id::split_with_sizes:
    case op_id::chunk: return piece_of(n, t);
    default: throw error("realify::graph: " + n.op + " is not a strided view");
    }
}

engine::component component_of_bytes(std::size_t bytes) {
    return bytes == 8 ? engine::component::float64 : bytes == 4 ? engine::component::float32 : engine::component::boolean;
}

}  // namespace

shape_vector view_shape(const ir_node& n, const shape_vector& from) {
    if (n.shape != shape_rule::strided_view) return reshaped_shape(n, from);
    // the view of a probe: shape only, all strides 0 (so no offset is ever formed)
    static const char probe_memory = 0;
    engine::tensor_ref probe;
    probe.data = const_cast<char*>(&probe_memory);
    probe.type = component_of_bytes(n.component_bytes);
    probe.complex = n.is_complex;
    probe.shape = engine::make_dims(n.entry_point, from);
    const engine::tensor_ref v = strided_view(n, probe);
    return shape_vector(v.shape.begin(), v.shape.end());
}

std::optional<engine::tensor_ref> view_of(const ir_node& n, const engine::tensor_ref& in, const shape_vector* known) {
    if (n.shape == shape_rule::strided_view) return strided_view(n, in);
    if (n.shape == shape_rule::same_as_child) return in;
    const shape_vector shape = known != nullptr ? *known : reshaped_shape(n, shape_vector(in.shape.begin(), in.shape.end()));
    return engine::reshaped_view(in, engine::make_dims(n.entry_point, shape));
}

bool keeps_order(const ir_node& n) {
    return n.rule == node_rule::erased || (n.rule == node_rule::cast && n.erased) ||
           (n.rule == node_rule::zero_copy && n.shape != shape_rule::strided_view);
}

std::optional<std::vector<std::size_t>> axis_order(const ir_node& n, std::size_t rank) {
    if (n.rule != node_rule::zero_copy || n.shape != shape_rule::strided_view) return std::nullopt;
    if (n.tag != op_id::permute && n.tag != op_id::transpose && n.tag != op_id::t) return std::nullopt;
    // the view of a probe whose stride at each axis is that axis' number
    static const char probe_memory = 0;
    engine::tensor_ref probe;
    probe.data = const_cast<char*>(&probe_memory);
    probe.type = component_of_bytes(n.component_bytes);
    probe.complex = n.is_complex;
    probe.shape.rank = rank;
    for (std::size_t a = 0; a < rank; ++a) {
        probe.shape.extent[a] = 1;
        probe.strides[a] = static_cast<std::ptrdiff_t>(a);
    }
    const engine::tensor_ref v = strided_view(n, probe);
    std::vector<std::size_t> order(rank);
    for (std::size_t a = 0; a < rank; ++a) order[a] = static_cast<std::size_t>(v.strides[a]);
    return order;
}

}  // namespace realify::graph::detail
