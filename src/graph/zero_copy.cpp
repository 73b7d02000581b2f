#include "realify/graph/zero_copy.hpp"

#include <algorithm>

#include "realify/errors.hpp"
#include "realify/ops/shape_inference.hpp"

namespace realify::graph::detail {

namespace {

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

}  // namespace

shape_vector view_shape(shape_rule rule, std::string_view where, const node_attrs& a, const shape_vector& from) {
    switch (rule) {
    case shape_rule::reshape:
        if (std::none_of(a.dims.begin(), a.dims.end(), is_same_marker)) return realify::detail::reshape_extents(where, a.dims, from);
        return realify::detail::reshape_extents(where, resolve_same(where, a.dims, from), from);
    case shape_rule::flatten: return realify::detail::flatten_extents(where, from, a.i0, a.i1);
    case shape_rule::unsqueeze: return realify::detail::unsqueeze_extents(where, from, a.i0);
    case shape_rule::squeeze_dim: return realify::detail::squeeze_extents(where, from, {a.i0});
    case shape_rule::squeeze_all: return realify::detail::squeeze_all_extents(from);
    default: return from;  // alias, detach, clone: values are never written in place
    }
}

}  // namespace realify::graph::detail
