#include "realify/graph/evaluate.hpp"

#include <array>
#include <span>

#include "realify/engine/elementwise.hpp"

namespace realify::graph::detail {

std::any evaluate_input(const ir_node& self, eval_context& ctx, const buffer_layout*) {
    return (*ctx.inputs)[self.input_position].value;
}

std::any evaluate_same(const ir_node& self, eval_context& ctx, const buffer_layout*) {
    return value_at(ctx, self.children[0]);
}

void convert_into(const engine::tensor_ref& from, const engine::tensor_ref& to) {
    const std::array<bool, 1> kinds{from.complex};
    engine::evaluate("graph::to", std::span(&from, 1), to, engine::builtin_kernel(engine::builtin::copy, to.type, kinds));
}

const std::optional<shape_vector>* known_shape(const ir_node& self, const eval_context& ctx) {
    if (ctx.shapes == nullptr) return nullptr;
    const std::optional<shape_vector>& s = (*ctx.shapes)[static_cast<std::size_t>(&self - ctx.ir->nodes.data())];
    return s ? &s : nullptr;
}

REALIFY_GRAPH_VALUE_CODE(, float)
REALIFY_GRAPH_VALUE_CODE(, double)
REALIFY_GRAPH_VIEW_EVALUATORS(, float)
REALIFY_GRAPH_VIEW_EVALUATORS(, double)
template std::any evaluate_cast<float, double>(const ir_node&, eval_context&, const buffer_layout*);
template std::any evaluate_cast<double, float>(const ir_node&, eval_context&, const buffer_layout*);

}  // namespace realify::graph::detail
