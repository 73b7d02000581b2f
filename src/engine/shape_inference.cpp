// The shapes of PyTorch's shape ops (realify/ops/shape_inference.hpp),
// compiled once rather than in every unit that includes the header.
#include "realify/ops/shape_inference.hpp"

#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "realify/checked_size.hpp"
#include "realify/errors.hpp"

namespace realify::detail {

std::size_t wrap_dim(std::string_view op, std::ptrdiff_t dim, std::size_t rank) {
    const auto r = static_cast<std::ptrdiff_t>(rank);
    const std::ptrdiff_t axis = dim < 0 ? dim + r : dim;
    if (axis < 0 || axis >= r) {
        std::ostringstream message;
        message << "dimension " << dim << " is out of range for a tensor of rank " << rank;
        if (rank > 0) message << " (expected in [" << -r << ", " << r - 1 << "])";
        throw_size_error(op, message.str());
    }
    return static_cast<std::size_t>(axis);
}

std::vector<std::size_t> reduction_axes(std::string_view op, const std::vector<std::ptrdiff_t>& dims,
                                        std::size_t rank) {
    const std::size_t wrap_rank = rank == 0 ? 1 : rank;
    std::vector<bool> named(wrap_rank, dims.empty());
    for (std::ptrdiff_t d : dims) {
        const std::size_t axis = wrap_dim(op, d, wrap_rank);
        if (named[axis]) throw_size_error(op, "dim " + std::to_string(axis) + " appears multiple times in the list of dims");
        named[axis] = true;
    }
    std::vector<std::size_t> axes;
    for (std::size_t axis = 0; axis < rank; ++axis)
        if (named[axis]) axes.push_back(axis);
    return axes;
}

dim_vector reshape_extents(std::string_view op, const std::vector<std::ptrdiff_t>& requested,
                           const dim_vector& from) {
    const std::size_t count = checked_element_count(op, "input shape", from);
    dim_vector result(requested.size(), 1);  // the −1 slot counts as 1 in `known`
    std::ptrdiff_t infer = -1;
    bool ok = true;
    for (std::size_t i = 0; i < requested.size(); ++i) {
        if (requested[i] == -1 && infer < 0) infer = static_cast<std::ptrdiff_t>(i);
        else if (requested[i] < 0) ok = false;
        else result[i] = static_cast<std::size_t>(requested[i]);
    }
    const std::size_t known = ok ? checked_element_count(op, "shape", result) : 0;
    if (ok && infer >= 0) {
        if (known == 0 || count % known != 0) ok = false;
        else result[static_cast<std::size_t>(infer)] = count / known;
    } else if (ok && known != count) {
        ok = false;
    }
    if (!ok) {
        std::ostringstream message;
        message << "shape " << format_sequence(requested) << " is invalid for a tensor of shape " << format_sequence(from)
                << " (" << count << " elements)";
        throw_size_error(op, message.str());
    }
    return result;
}

dim_vector flatten_extents(std::string_view op, const dim_vector& from, std::ptrdiff_t start, std::ptrdiff_t end) {
    if (from.empty()) return dim_vector{1};
    const std::size_t s = wrap_dim(op, start, from.size()), e = wrap_dim(op, end, from.size());
    if (s > e) throw_size_error(op, "start dim must not be after end dim");
    dim_vector result(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(s));
    result.push_back(checked_element_count(
        op, "merged dims", dim_vector(from.begin() + static_cast<std::ptrdiff_t>(s), from.begin() + static_cast<std::ptrdiff_t>(e) + 1)));
    for (std::size_t i = e + 1; i < from.size(); ++i) result.push_back(from[i]);
    return result;
}

dim_vector unsqueeze_extents(std::string_view op, const dim_vector& from, std::ptrdiff_t dim) {
    const std::size_t axis = wrap_dim(op, dim, from.size() + 1);
    dim_vector result;
    for (std::size_t i = 0; i <= from.size(); ++i) {
        if (i == axis) result.push_back(1);
        if (i < from.size()) result.push_back(from[i]);
    }
    return result;
}

dim_vector squeeze_extents(std::string_view op, const dim_vector& from, const std::vector<std::ptrdiff_t>& dims) {
    std::vector<bool> drop(from.size(), false);
    for (std::ptrdiff_t d : dims) drop[wrap_dim(op, d, from.size())] = true;
    dim_vector result;
    for (std::size_t i = 0; i < from.size(); ++i)
        if (!(drop[i] && from[i] == 1)) result.push_back(from[i]);
    return result;
}

dim_vector squeeze_all_extents(const dim_vector& from) {
    dim_vector result;
    for (std::size_t extent : from)
        if (extent != 1) result.push_back(extent);
    return result;
}

}  // namespace realify::detail
