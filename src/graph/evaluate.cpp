// realify/graph/evaluate.hpp: the evaluators that need no op code — an
// input's bound value, a value passed on unchanged, a component cast — and
// what is done with a graph_value whatever its component type (its shape,
// its layout, a copy with memory of its own: one std::visit each). The value
// code of float and double (REALIFY_GRAPH_VALUE_CODE) is instantiated here,
// once, so that a unit lowering a graph does not generate it.
#include "realify/graph/evaluate.hpp"

#include <array>
#include <span>

#include "realify/engine/elementwise.hpp"

namespace realify::graph::detail {

graph_value evaluate_input(const ir_node& self, eval_context& ctx, const buffer_layout*) {
    return (*ctx.inputs)[self.input_position].value;
}

graph_value evaluate_same(const ir_node& self, eval_context& ctx, const buffer_layout*) {
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

shape_vector shape_of(const graph_value& value) {
    return std::visit([](const auto& v) -> shape_vector {
        if constexpr (requires { v.shape; }) return v.shape;
        else throw error("realify::graph: a value read before it was computed");
    }, value);
}

buffer_layout layout_of(const graph_value& value) {
    return std::visit([](const auto& v) -> buffer_layout {
        if constexpr (requires { v.shape; }) return layout_of(v);
        else throw error("realify::graph: a value read before it was computed");
    }, value);
}

graph_value owned(const graph_value& value) {
    return std::visit([&](const auto& v) -> graph_value {
        if constexpr (requires { v.shape; }) {
            if (v.keep != nullptr) return value;
            return graph_value(packed_copy(v));
        } else {
            throw error("realify::graph: a value read before it was computed");
        }
    }, value);
}

REALIFY_GRAPH_VALUE_CODE(, float)
REALIFY_GRAPH_VALUE_CODE(, double)
REALIFY_GRAPH_VIEW_EVALUATORS(, float)
REALIFY_GRAPH_VIEW_EVALUATORS(, double)
template graph_value evaluate_cast<float, double>(const ir_node&, eval_context&, const buffer_layout*);
template graph_value evaluate_cast<double, float>(const ir_node&, eval_context&, const buffer_layout*);

}  // namespace realify::graph::detail
