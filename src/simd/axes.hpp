// The axes of a walk over an input and an output of the same index space (a
// reduction's kept axes, a row op's rows): each axis's extent and its strides
// in both, and the merging of adjacent axes that step over each other in one
// stride. Shared by reduce.cpp and rows.cpp.
#pragma once

#include <array>
#include <cstddef>

#include "realify/engine/tensor_ref.hpp"

namespace realify::engine::detail {

struct axis {
    std::size_t extent;
    std::ptrdiff_t in;   // input stride (components)
    std::ptrdiff_t out;  // output stride (components); 0 for a reduced axis
};

/// Adjacent axes (in index order) merged where the inner steps over the
/// outer in one stride, for both the input and the output; extent-1 axes
/// dropped. Returns how many are left.
inline std::size_t coalesce(std::array<axis, max_rank>& axes, std::size_t n) noexcept {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (axes[i].extent == 1) continue;
        if (kept > 0) {
            axis& outer = axes[kept - 1];
            const auto extent = static_cast<std::ptrdiff_t>(axes[i].extent);
            if (outer.in == axes[i].in * extent && outer.out == axes[i].out * extent) {
                outer = {outer.extent * axes[i].extent, axes[i].in, axes[i].out};
                continue;
            }
        }
        axes[kept++] = axes[i];
    }
    return kept;
}

}  // namespace realify::engine::detail
