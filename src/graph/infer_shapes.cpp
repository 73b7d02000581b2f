// realify/graph/infer_shapes.hpp: the shapes that follow from the inputs'
// shapes alone, computed on the records before anything is evaluated
// (broadcasts, views, reductions, kernel ops). The out= planning needs them
// to decide routes before it writes, and results can be allocated once, at
// their final size.
#include "realify/graph/infer_shapes.hpp"

#include <array>

#include "realify/engine/elementwise.hpp"
#include "realify/engine/tensor_ref.hpp"
#include "realify/graph/kernel_ops.hpp"
#include "realify/graph/zero_copy.hpp"

namespace realify::graph::detail {

namespace {

/// The broadcast of two shapes: the engine's (shape_error naming `op` when
/// they do not broadcast).
shape_vector broadcast_two(std::string_view op, const shape_vector& a, const shape_vector& b) {
    std::array<engine::tensor_ref, 2> operands;
    operands[0].shape = engine::make_dims(op, a);
    operands[1].shape = engine::make_dims(op, b);
    const engine::dims result = engine::broadcast_shape(op, operands);
    return shape_vector(result.begin(), result.end());
}

}  // namespace

std::optional<shape_vector> reduced_shape(shape_rule rule, std::string_view where, const node_attrs& a,
                                          const shape_vector& from) {
    std::vector<bool> reduced(from.size(), false);
    for (std::size_t axis : realify::detail::reduction_axes(where, rule == shape_rule::reduce_dim ? std::vector{a.i0} : a.dims,
                                                            from.size()))
        reduced[axis] = true;
    shape_vector shape;
    for (std::size_t i = 0; i < from.size(); ++i) {
        if (!reduced[i]) shape.push_back(from[i]);
        else if (a.i1 != 0) shape.push_back(1);
    }
    return shape;
}

std::vector<std::optional<shape_vector>> infer_shapes(const eval_context& ctx) {
    const graph_ir& g = *ctx.ir;
    std::vector<std::optional<shape_vector>> shapes(g.nodes.size());
    for (std::size_t s = 0; s < g.nodes.size(); ++s) {  // topological order: children first
        const ir_node& n = g.nodes[s];
        if (n.canonical != s) {
            shapes[s] = shapes[n.canonical];
            continue;
        }
        if (n.folded) {
            shapes[s] = n.folded_shape;
            continue;
        }
        if (!n.live) continue;
        const std::optional<shape_vector>* first = n.children.empty() ? nullptr : &shapes[n.children[0]];
        switch (n.shape) {
        case shape_rule::input: shapes[s] = (*ctx.inputs)[n.input_position].shape; break;
        case shape_rule::number: shapes[s] = shape_vector{}; break;
        case shape_rule::same_as_child: shapes[s] = *first; break;
        case shape_rule::view_as_complex:
            if (*first && !(*first)->empty() && (*first)->back() == 2) {  // else evaluation reports it
                shapes[s] = **first;
                shapes[s]->pop_back();
            }
            break;
        case shape_rule::view_as_real:
            if (*first) {
                shapes[s] = **first;
                shapes[s]->push_back(2);
            }
            break;
        case shape_rule::broadcast: {
            shape_vector result;
            bool known = true;
            for (std::size_t c : n.children) {
                if (!shapes[c]) known = false;
                else if (known) result = broadcast_two(n.op, result, *shapes[c]);
            }
            if (known) shapes[s] = result;
            break;
        }
        case shape_rule::reduce_dims:
        case shape_rule::reduce_dim:
            if (*first) shapes[s] = reduced_shape(n.shape, n.entry_point, n.attrs, **first);
            break;
        case shape_rule::declared: {
            std::vector<shape_vector> children;
            for (std::size_t c : n.children) {
                if (!shapes[c]) break;
                children.push_back(*shapes[c]);
            }
            if (children.size() == n.children.size()) shapes[s] = n.declared_shape(n, children);
            break;
        }
        case shape_rule::kernel: shapes[s] = infer_kernel_shape(ctx, shapes, s); break;
        case shape_rule::unknown: break;
        default:  // the zero-copy views
            if (*first) shapes[s] = view_shape(n, **first);
            break;
        }
    }
    return shapes;
}

shape_vector component_shape(shape_vector shape, bool complex) {
    if (complex) shape.push_back(2);
    return shape;
}

}  // namespace realify::graph::detail
