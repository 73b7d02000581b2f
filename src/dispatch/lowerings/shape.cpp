// The shape ops' work on the engine's refs (realify/dispatch/lowerings/shape.hpp):
// checking their arguments, the views they take and the copies they write.
// Compiled once here rather than in every unit that uses a shape op: none of
// it depends on an operand's type.
#include "realify/dispatch/lowerings/shape.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "realify/checked_size.hpp"
#include "realify/engine/elementwise.hpp"
#include "realify/ops/shape_inference.hpp"

namespace realify::dispatch::lowering {

namespace {
/// The extents of t as the shape-inference routines take them.
realify::detail::dim_vector extents_of(const tensor_ref& t) { return realify::detail::dim_vector(t.shape.begin(), t.shape.end()); }
}  // namespace

void shape_detail::check_result_shape(std::string_view op, const tensor_ref& to, const engine::dims& expected) {
    if (to.shape == expected) return;
    realify::detail::throw_size_error(op, "out has shape " + realify::detail::format_sequence(to.shape) + ", the result has shape " +
                                              realify::detail::format_sequence(expected));
}

std::size_t shape_detail::axis_of(std::string_view op, std::ptrdiff_t dim, std::size_t rank) {
    return realify::detail::wrap_dim(op, dim, rank);
}

void shape_detail::reshape_into(std::string_view op, const tensor_ref& in, const engine::dims& target, const tensor_ref& to) {
    check_result_shape(op, to, target);
    if (const auto v = engine::reshaped_view(in, target)) return copy_ref(op, *v, to);
    if (const auto w = engine::reshaped_view(to, in.shape)) return copy_ref(op, in, *w);
    engine::packed_copy copy;
    copy_ref(op, *engine::reshaped_view(copy.pack(op, in), target), to);
}

tensor_ref permute_append_last::view(const tensor_ref& t, const dim_list& dims) {
    const std::size_t n = t.rank();
    if (dims.size() != n)
        realify::detail::throw_size_error(op::name, std::to_string(dims.size()) + " dims given for a tensor of rank " + std::to_string(n));
    std::array<std::size_t, engine::max_rank> perm{};
    std::array<bool, engine::max_rank> seen{};
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t axis = shape_detail::axis_of(op::name, dims[i], n);
        if (seen[axis]) realify::detail::throw_size_error(op::name, "dims " + realify::detail::format_sequence(dims) + " repeat a dimension");
        seen[axis] = true;
        perm[i] = axis;
    }
    return engine::permuted(t, std::span(perm.data(), n));
}

tensor_ref transpose_shifted_dims::view(const tensor_ref& t, std::ptrdiff_t dim0, std::ptrdiff_t dim1) {
    std::array<std::size_t, engine::max_rank> perm{};
    std::iota(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(t.rank()), std::size_t{0});
    std::swap(perm[shape_detail::axis_of(op::name, dim0, t.rank())], perm[shape_detail::axis_of(op::name, dim1, t.rank())]);
    return engine::permuted(t, std::span(perm.data(), t.rank()));
}

tensor_ref t_keep_last::view(const tensor_ref& t) {
    if (t.rank() > 2) realify::detail::throw_size_error(op::name, "expects a tensor of rank <= 2, got rank " + std::to_string(t.rank()));
    if (t.rank() < 2) return t;
    const std::array<std::size_t, 2> perm{1, 0};
    return engine::permuted(t, perm);
}

tensor_ref select_shifted_dim::view(const tensor_ref& t, std::ptrdiff_t dim, std::ptrdiff_t index) {
    const std::size_t axis = shape_detail::axis_of(op::name, dim, t.rank());
    return engine::selected(t, axis, realify::detail::wrap_index(op::name, "index", index, t.shape[axis], dim));
}

tensor_ref getitem_select0::view(const tensor_ref& t, std::ptrdiff_t index) { return select_shifted_dim::view(t, 0, index); }

tensor_ref slice_shifted_dim::view(const tensor_ref& t, std::ptrdiff_t dim, std::ptrdiff_t start, std::ptrdiff_t end, std::ptrdiff_t step) {
    const std::size_t axis = shape_detail::axis_of(op::name, dim, t.rank());
    if (step <= 0) realify::detail::throw_size_error(op::name, "step must be positive, got " + std::to_string(step));
    const std::size_t first = realify::detail::clamp_slice_bound(start, t.shape[axis]);
    const std::size_t stop = realify::detail::clamp_slice_bound(end, t.shape[axis]);
    const auto stride = static_cast<std::size_t>(step);
    return engine::sliced(t, axis, first, realify::detail::slice_length(first, stop, stride), stride);
}

tensor_ref narrow_shifted_dim::view(const tensor_ref& t, std::ptrdiff_t dim, std::ptrdiff_t start, std::ptrdiff_t length) {
    const std::size_t axis = shape_detail::axis_of(op::name, dim, t.rank());
    const auto size = static_cast<std::ptrdiff_t>(t.shape[axis]);
    // PyTorch: start in [−size, size], 0 ≤ length ≤ size − start (never start + length: it may overflow).
    const std::ptrdiff_t first = start < 0 && start >= -size ? start + size : start;
    if (first < 0 || first > size || length < 0 || length > size - first) {
        realify::detail::throw_size_error(op::name, "start " + std::to_string(start) + " and length " + std::to_string(length) +
                                                        " do not fit dimension " + std::to_string(dim) + " of size " + std::to_string(size));
    }
    return engine::sliced(t, axis, static_cast<std::size_t>(first), static_cast<std::size_t>(length), 1);
}

tensor_ref expand_append_two::view(const tensor_ref& t, const dim_list& sizes) {
    const auto shape = extents_of(t);
    if (sizes.size() < shape.size()) {
        realify::detail::throw_size_error(op::name, std::to_string(sizes.size()) + " sizes given for a tensor of rank " +
                                                        std::to_string(shape.size()));
    }
    std::vector<std::size_t> target(sizes.size());
    const std::size_t lead = sizes.size() - shape.size();
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const bool existing = i >= lead;
        if (sizes[i] == -1) {
            if (!existing) realify::detail::throw_size_error(op::name, "-1 is not allowed for a new leading dimension");
            target[i] = shape[i - lead];
        } else if (sizes[i] < 0) {
            realify::detail::throw_size_error(op::name, "size " + std::to_string(sizes[i]) + " in " + realify::detail::format_sequence(sizes) +
                                                            " is negative (only -1, keep the dim, is allowed)");
        } else {
            target[i] = static_cast<std::size_t>(sizes[i]);
            if (existing && shape[i - lead] != 1 && shape[i - lead] != target[i]) {
                realify::detail::throw_size_error(op::name, "cannot expand shape " + realify::detail::format_sequence(shape) + " to " +
                                                                realify::detail::format_sequence(sizes));
            }
        }
    }
    realify::detail::checked_element_count(op::name, "shape", target, static_cast<std::size_t>(t.width()) * engine::size_of(t.type));
    return engine::broadcast_to(t, engine::make_dims(op::name, target));
}

tensor_ref flip_shifted_dims::view(const tensor_ref& t, const dim_list& dims) {
    tensor_ref r = t;
    for (std::ptrdiff_t d : dims) r = engine::flipped(r, shape_detail::axis_of(op::name, d, t.rank()));
    return r;
}

engine::dims repeat_append_one::target(const tensor_ref& t, const std::vector<std::size_t>& repeats) {
    if (repeats.size() < t.rank()) {
        realify::detail::throw_size_error(op::name, std::to_string(repeats.size()) + " repeats given for a tensor of rank " +
                                                        std::to_string(t.rank()));
    }
    if (2 * repeats.size() > engine::max_rank)
        realify::detail::throw_size_error(op::name, "more than " + std::to_string(engine::max_rank / 2) + " repeats are not supported");
    const std::size_t lead = repeats.size() - t.rank();
    std::vector<std::size_t> result;
    for (std::size_t i = 0; i < repeats.size(); ++i) {
        const std::size_t r = realify::detail::checked_signed_size(op::name, "repeat count", repeats[i]);
        result.push_back(realify::detail::checked_mul(op::name, "repeated extent", r, i < lead ? 1 : t.shape[i - lead]));
    }
    realify::detail::checked_element_count(op::name, "shape", result, static_cast<std::size_t>(t.width()) * engine::size_of(t.type));
    return engine::make_dims(op::name, result);
}

void repeat_append_one::write(const tensor_ref& to, const tensor_ref& t, const std::vector<std::size_t>& repeats) {
    shape_detail::check_result_shape(op::name, to, target(t, repeats));
    const std::size_t lead = repeats.size() - t.rank();
    tensor_ref from = t, into = to;
    from.shape.rank = into.shape.rank = 2 * repeats.size();
    for (std::size_t i = 0; i < repeats.size(); ++i) {
        const std::size_t s = i < lead ? 1 : t.shape[i - lead];
        from.shape.extent[2 * i] = into.shape.extent[2 * i] = repeats[i];
        from.shape.extent[2 * i + 1] = into.shape.extent[2 * i + 1] = s;
        from.strides[2 * i] = 0;
        from.strides[2 * i + 1] = i < lead ? 0 : t.strides[i - lead];
        into.strides[2 * i] = to.strides[i] * static_cast<std::ptrdiff_t>(s);
        into.strides[2 * i + 1] = to.strides[i];
    }
    const std::array<tensor_ref, 1> sources{t};
    engine::check_disjoint(op::name, sources, to);
    shape_detail::copy_ref(op::name, from, into);
}

void roll_shifted_dims::write_axes(const tensor_ref& t, std::span<const std::size_t> axes, std::span<const std::size_t> shifts, const tensor_ref& to) {
    const std::size_t combinations = std::size_t{1} << axes.size();
    for (std::size_t mask = 0; mask < combinations; ++mask) {
        tensor_ref from = t, into = to;
        bool empty = false;
        for (std::size_t j = 0; j < axes.size(); ++j) {
            const std::size_t n = t.shape[axes[j]], k = shifts[j];
            const bool tail = (mask >> j) & 1;  // the last k elements move to the front
            const std::size_t length = tail ? k : n - k;
            empty = empty || length == 0;
            from = engine::sliced(from, axes[j], tail ? n - k : 0, length, 1);
            into = engine::sliced(into, axes[j], tail ? 0 : k, length, 1);
        }
        if (!empty) shape_detail::copy_ref(op::name, from, into);
    }
}

void roll_shifted_dims::write(const tensor_ref& to, const tensor_ref& t, const dim_list& shifts, const dim_list& dims) {
    shape_detail::check_result_shape(op::name, to, t.shape);
    const std::array<tensor_ref, 1> source{t};
    engine::check_disjoint(op::name, source, to);
    if (t.count() == 0) return;
    if (dims.empty()) {
        if (shifts.size() != 1) realify::detail::throw_size_error(op::name, "without dims, exactly one shift is expected");
        const engine::dims flat = engine::make_dims(op::name, std::array<std::size_t, 1>{t.count()});
        const std::array<std::size_t, 1> axis{0}, shift{realify::detail::reduce_shift(shifts[0], t.count())};
        const auto from = engine::reshaped_view(t, flat);
        const auto into = engine::reshaped_view(to, flat);
        if (from && into) return write_axes(*from, axis, shift, *into);
        // a layout that does not flatten: roll a packed copy into another, then copy it out
        engine::packed_copy source_copy, rolled_copy;
        const tensor_ref source_ref = source_copy.pack(op::name, t), rolled_ref = rolled_copy.pack(op::name, t);
        write_axes(*engine::reshaped_view(source_ref, flat), axis, shift, *engine::reshaped_view(rolled_ref, flat));
        return shape_detail::copy_ref(op::name, rolled_ref, to);
    }
    if (shifts.size() != dims.size()) {
        realify::detail::throw_size_error(op::name, std::to_string(shifts.size()) + " shifts for " + std::to_string(dims.size()) + " dims");
    }
    // shifts of a repeated dim add up (applied one after the other)
    std::array<std::size_t, engine::max_rank> total{};
    for (std::size_t i = 0; i < dims.size(); ++i) {
        const std::size_t axis = shape_detail::axis_of(op::name, dims[i], t.rank());
        const std::size_t n = t.shape[axis];
        total[axis] = (total[axis] + realify::detail::reduce_shift(shifts[i], n)) % n;
    }
    std::array<std::size_t, engine::max_rank> axes{}, amounts{};
    std::size_t rolled = 0;
    for (std::size_t a = 0; a < t.rank(); ++a) {
        if (total[a] == 0) continue;
        axes[rolled] = a;
        amounts[rolled++] = total[a];
    }
    write_axes(t, std::span(axes.data(), rolled), std::span(amounts.data(), rolled), to);
}

engine::dims flatten_keep_last::target(const tensor_ref& t, std::ptrdiff_t start, std::ptrdiff_t end) {
    return engine::make_dims(op::name, realify::detail::flatten_extents(op::name, extents_of(t), start, end));
}

engine::dims unsqueeze_shifted_dim::target(const tensor_ref& t, std::ptrdiff_t dim) {
    return engine::make_dims(op::name, realify::detail::unsqueeze_extents(op::name, extents_of(t), dim));
}

engine::dims squeeze_keep_last::target(const tensor_ref& t) {
    return engine::make_dims(op::name, realify::detail::squeeze_all_extents(extents_of(t)));
}

engine::dims squeeze_dim_shifted::target(const tensor_ref& t, std::ptrdiff_t dim) {
    return engine::make_dims(op::name, realify::detail::squeeze_extents(op::name, extents_of(t), {dim}));
}

engine::dims squeeze_dims_shifted::target(const tensor_ref& t, const dim_list& dims) {
    return engine::make_dims(op::name, realify::detail::squeeze_extents(op::name, extents_of(t), dims));
}

engine::dims shape_detail::reshape_target(std::string_view op, const tensor_ref& t, const dim_list& shape) {
    return engine::make_dims(op, realify::detail::reshape_extents(op, shape, extents_of(t)));
}

std::vector<std::size_t> split_shifted_dim::sizes(std::size_t extent, std::size_t split_size) {
    if (split_size == 0 && extent != 0) realify::detail::throw_size_error(op::name, "split_size must be positive");
    std::vector<std::size_t> sizes;  // never done + split_size: split_size may be near SIZE_MAX
    for (std::size_t done = 0; done < extent; done += sizes.back()) sizes.push_back(std::min(split_size, extent - done));
    if (sizes.empty()) sizes.push_back(0);
    return sizes;
}

void split_with_sizes_shifted_dim::check_sizes(const std::vector<std::size_t>& sizes, std::ptrdiff_t dim, std::size_t extent) {
    std::size_t total = 0;
    for (std::size_t size : sizes) {
        total = realify::detail::checked_add(op::name, "sum of sizes", total, realify::detail::checked_signed_size(op::name, "size", size));
    }
    if (total != extent) {
        realify::detail::throw_size_error(op::name, "sizes " + realify::detail::format_sequence(sizes) + " do not sum to dimension " +
                                                        std::to_string(dim) + " of size " + std::to_string(extent));
    }
}

void chunk_shifted_dim::check_chunks(std::size_t chunks) {
    if (chunks == 0) realify::detail::throw_size_error(op::name, "chunks must be positive");
}

}  // namespace realify::dispatch::lowering
