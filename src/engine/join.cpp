// cat and stack on refs (realify/engine/join.hpp).
#include "realify/engine/join.hpp"

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "realify/checked_size.hpp"
#include "realify/engine/elementwise.hpp"
#include "realify/ops/shape_inference.hpp"
#include "tensor_checks.hpp"

namespace realify::engine {

std::pair<dims, std::size_t> joined_shape(std::string_view op, std::span<const tensor_ref> parts, std::ptrdiff_t dim,
                                          bool stack) {
    if (parts.empty()) realify::detail::throw_size_error(op, "expected a non-empty list of tensors");
    const dims first = parts[0].shape;
    const std::size_t axis = realify::detail::wrap_dim(op, dim, first.rank + (stack ? 1 : 0));
    std::size_t joined = 0;
    for (const tensor_ref& part : parts) {
        const dims& s = part.shape;
        bool ok = s.rank == first.rank;
        for (std::size_t i = 0; ok && i < s.rank; ++i) ok = s[i] == first[i] || (!stack && i == axis);
        if (!ok) {
            realify::detail::throw_size_error(op, "tensors of shapes " + realify::detail::format_sequence(first) + " and " +
                                                      realify::detail::format_sequence(s) +
                                                      (stack ? std::string(" differ") : " differ outside dimension " + std::to_string(dim)));
        }
        joined = realify::detail::checked_add(op, "joined extent", joined, stack ? 1 : s[axis]);
    }
    dims result = first;
    if (stack) {
        if (result.rank == max_rank) throw_rank_error(op);  // the new axis would not fit
        for (std::size_t i = result.rank; i > axis; --i) result.extent[i] = result.extent[i - 1];
        ++result.rank;
    }
    result.extent[axis] = joined;
    realify::detail::checked_element_count(op, "shape", result,
                                           static_cast<std::size_t>(parts[0].width()) * size_of(parts[0].type));
    return {result, axis};
}

void join(std::string_view op, std::span<const tensor_ref> parts, std::ptrdiff_t dim, bool stack, const tensor_ref& to) {
    const auto [shape, axis] = joined_shape(op, parts, dim, stack);
    detail::check_out_shape(op, to, shape);
    check_disjoint(op, parts, to);
    std::size_t offset = 0;
    for (const tensor_ref& part : parts) {
        if (stack) {
            copy_ref(op, part, selected(to, axis, offset++));
        } else {
            copy_ref(op, part, sliced(to, axis, offset, part.shape[axis], 1));
            offset += part.shape[axis];
        }
    }
}

}  // namespace realify::engine
