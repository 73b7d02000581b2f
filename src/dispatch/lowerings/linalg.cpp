// The matrix products' type-independent work
// (realify/dispatch/lowerings/linalg.hpp): the batched product's plan and its
// checks on the operands' refs, compiled once here rather than in every unit
// that multiplies.
#include "realify/dispatch/lowerings/linalg.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "realify/checked_size.hpp"

namespace realify::dispatch::lowering {

void linalg_detail::mismatch(std::string_view op, const dims& a, const dims& b) {
    throw shape_error("realify::" + std::string(op) + ": shapes " + realify::detail::format_sequence(a) + " and " +
                      realify::detail::format_sequence(b) + " cannot be multiplied");
}

linalg_detail::product_plan linalg_detail::plan_product(std::string_view op, const tensor_ref& a, const tensor_ref& b, const dims& shown_a, const dims& shown_b) {
    const std::size_t ra = a.rank(), rb = b.rank();
    product_plan plan;
    plan.m = a.shape[ra - 2];
    plan.k = a.shape[ra - 1];
    plan.n = b.shape[rb - 1];
    if (b.shape[rb - 2] != plan.k) mismatch(op, shown_a, shown_b);
    // the batch dims: NumPy's broadcast of the operands' leading dims
    const std::size_t batch_rank = std::max(ra, rb) - 2;
    plan.batch.rank = batch_rank;
    std::size_t count = 1;
    for (std::size_t d = 0; d < batch_rank; ++d) {
        std::size_t& out = plan.batch.extent[d];
        out = 1;
        for (const tensor_ref* operand : {&a, &b}) {
            const std::size_t r = operand->rank() - 2;
            if (d + r < batch_rank) continue;  // the operand has no such dim: broadcast
            const std::size_t extent = operand->shape[d + r - batch_rank];
            if (extent == out || extent == 1) continue;
            if (out == 1) out = extent;
            else mismatch(op, shown_a, shown_b);
        }
        count *= out;
    }
    plan.a_offsets.resize(count);
    plan.b_offsets.resize(count);
    std::array<std::size_t, engine::max_rank> index{};
    auto offset_of = [&](const tensor_ref& operand) {
        const std::size_t r = operand.rank() - 2;
        std::ptrdiff_t offset = 0;
        for (std::size_t i = 0; i < r; ++i)
            if (operand.shape[i] != 1)
                offset += static_cast<std::ptrdiff_t>(index[batch_rank - r + i]) * operand.strides[i];
        return offset;
    };
    for (std::size_t done = 0; done < count; ++done) {
        plan.a_offsets[done] = offset_of(a);
        plan.b_offsets[done] = offset_of(b);
        for (std::size_t i = batch_rank; i-- > 0;) {
            if (++index[i] < plan.batch[i]) break;
            index[i] = 0;
        }
    }
    return plan;
}

}  // namespace realify::dispatch::lowering
