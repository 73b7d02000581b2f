// realify/graph/kernel_ops.hpp: the shapes of the kernel ops, their calls of
// the engine, where their results go (a planned out= buffer, in place, or
// fresh memory), the sizes and the creation ops. The kernels take engine
// tensor_refs (any strides), so nothing here depends on a node's type: it
// is compiled once, for float and double, instead of in every unit.
#include "realify/graph/kernel_ops.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include "../engine/tensor_checks.hpp"
#include "realify/engine/attention.hpp"
#include "realify/engine/construction.hpp"
#include "realify/engine/elementwise.hpp"
#include "realify/engine/linear.hpp"
#include "realify/engine/rope.hpp"
#include "realify/errors.hpp"
#include "realify/graph/evaluate.hpp"
#include "realify/graph/infer_shapes.hpp"
#include "realify/graph/write_outputs.hpp"

namespace realify::graph::detail {

namespace {

/// A tensor of this shape as the shape rules read it (a record's kind and component type).
engine::tensor_ref shape_ref(const shape_vector& shape, const ir_node& record, std::string_view op) {
    engine::tensor_ref r;
    r.complex = record.is_complex;
    r.type = record.component_bytes == 1   ? engine::component::boolean
             : record.component_bytes == 4 ? engine::component::float32
                                           : engine::component::float64;
    r.shape = engine::make_dims(op, shape);
    return r;
}

/// x.size(dim)'s axis: dim counted from the end when negative; shape_error when out of range.
std::size_t size_axis(const ir_node& n, std::size_t rank) {
    const std::ptrdiff_t dim = n.attrs.i0, r = static_cast<std::ptrdiff_t>(rank);
    if (dim < -r || dim >= r || rank == 0)
        engine::throw_shape_error(n.entry_point, "dim " + std::to_string(dim) + " is out of range for a tensor of " +
                                                     std::to_string(rank) + " dims");
    return static_cast<std::size_t>(dim < 0 ? dim + r : dim);
}

/// The k-th number of a creation op (an extent, or arange's start, end,
/// step): its integer node's value (attrs.dims[k] = same(i): the i-th
/// child's), or the number it holds; nothing when an integer is unknown.
std::optional<double> creation_number(const ir_node& n, std::size_t k, double number,
                                      std::span<const std::optional<std::int64_t>> integers) {
    const std::ptrdiff_t d = k < n.attrs.dims.size() ? n.attrs.dims[k] : 0;
    if (!is_same_marker(d)) return number;
    const std::optional<std::int64_t>& i = integers[same_marker_dim(d)];
    if (!i) return std::nullopt;
    return static_cast<double>(*i);
}

/// out = value everywhere (the engine's copy of one number, converted once).
void fill(std::string_view op, const engine::tensor_ref& out, double value) {
    engine::tensor_ref number;
    number.data = &value;
    number.type = engine::component::float64;
    const engine::tensor_ref everywhere = engine::broadcast_to(number, out.shape);
    const std::array<bool, 1> kinds{false};
    engine::evaluate(op, std::span(&everywhere, 1), out, engine::builtin_kernel(engine::builtin::copy, out.type, kinds));
}

std::int64_t integer_of(const engine::tensor_ref& r) { return *static_cast<const std::int64_t*>(r.data); }

}  // namespace

bool kernel_in_place(const ir_node& n) { return n.tag == op_id::rope || n.tag == op_id::triu || n.tag == op_id::tril; }

std::string kernel_lowering(std::optional<op_id> tag) {
    if (!tag) return "realify's compiled code";
    switch (*tag) {
    case op_id::rope:
        return "the compiled RoPE kernel (realify/engine/rope.hpp) through the operands' and the output's strides: "
               "into the out= buffer, in place when it is x";
    case op_id::scaled_dot_product_attention:
        return "fused attention (realify/engine/attention.hpp): one pass over the keys per block of queries, online "
               "softmax, no L×S scores; q, k, v read through their strides";
    case op_id::linear:
        return "x · wᵀ + b: one GEMM, w read through its strides (no copy), into the out= buffer when packed";
    case op_id::triu:
    case op_id::tril: return "the triangle of the last two dims (realify/engine/construction.hpp), through any strides";
    case op_id::sym_size: return "the operand's extent (known before evaluation when its shape is)";
    case op_id::arange: return "start + i·step (realify/engine/construction.hpp), straight into its buffer";
    case op_id::empty: return "memory of the shape, not filled";
    default: return "one number broadcast by the engine's copy, straight into its buffer";
    }
}

std::optional<shape_vector> kernel_shape(const graph_ir& g, std::size_t slot,
                                         std::span<const std::optional<shape_vector>> shapes,
                                         std::span<const std::optional<std::int64_t>> integers) {
    const ir_node& n = g.nodes[slot];
    const std::string_view op = n.entry_point;
    if (n.tag == op_id::sym_size) return shape_vector{};
    if (n.tag == op_id::full || n.tag == op_id::zeros || n.tag == op_id::ones || n.tag == op_id::empty) {
        shape_vector shape;
        std::vector<std::ptrdiff_t> asked;
        for (std::size_t k = 0; k < n.attrs.dims.size(); ++k) {
            const std::optional<double> e = creation_number(n, k, static_cast<double>(n.attrs.dims[k]), integers);
            if (!e) return std::nullopt;
            asked.push_back(static_cast<std::ptrdiff_t>(*e));
        }
        for (std::ptrdiff_t e : asked) {
            if (e < 0)
                engine::throw_shape_error(op, "trying to create a tensor with negative dimension " + std::to_string(e) +
                                                  ": " + realify::detail::format_sequence(asked));
            shape.push_back(static_cast<std::size_t>(e));
        }
        return shape;
    }
    if (n.tag == op_id::arange) {
        std::array<double, 3> b{};
        for (std::size_t k = 0; k < 3; ++k) {
            const std::optional<double> v = creation_number(n, k, n.attrs.numbers[k], integers);
            if (!v) return std::nullopt;
            b[k] = *v;
        }
        return shape_vector{engine::arange_length(op, b[0], b[1], b[2], n.attrs.i0 != 0)};
    }
    for (const auto& s : shapes)
        if (!s) return std::nullopt;
    auto ref = [&](std::size_t k) { return shape_ref(*shapes[k], g.resolve(n.children[k]), op); };
    if (n.tag == op_id::rope) return shapes[0];
    if (n.tag == op_id::triu || n.tag == op_id::tril) {
        if (shapes[0]->size() < 2)
            engine::throw_shape_error(op, "the input must have at least 2 dims (a matrix, or a batch of them), got shape " +
                                              realify::detail::format_sequence(*shapes[0]));
        return shapes[0];
    }
    if (n.tag == op_id::linear) {
        const engine::tensor_ref x = ref(0), w = ref(1);
        const std::optional<engine::tensor_ref> b = shapes.size() > 2 ? std::optional(ref(2)) : std::nullopt;
        const engine::dims d = engine::linear_shape(op, x, w, b ? &*b : nullptr);
        return shape_vector(d.begin(), d.end());
    }
    if (n.tag == op_id::scaled_dot_product_attention) {
        const std::optional<engine::tensor_ref> mask = shapes.size() > 3 ? std::optional(ref(3)) : std::nullopt;
        const engine::attention_options options{mask ? &*mask : nullptr, n.attrs.i0 != 0, std::nullopt, n.attrs.i1 != 0};
        const engine::dims d = engine::attention_shape(op, ref(0), ref(1), ref(2), options);
        return shape_vector(d.begin(), d.end());
    }
    return std::nullopt;
}

std::optional<shape_vector> infer_kernel_shape(const eval_context& ctx, const std::vector<std::optional<shape_vector>>& shapes,
                                               std::size_t slot) {
    const graph_ir& g = *ctx.ir;
    const ir_node& n = g.nodes[slot];
    std::vector<std::optional<shape_vector>> operands;
    std::vector<std::optional<std::int64_t>> integers;
    for (std::size_t c : n.children) {
        operands.push_back(shapes[c]);
        const ir_node& child = g.resolve(c);
        std::optional<std::int64_t> value;
        if (child.folded) {
            if (const auto* v = std::get_if<tensor_value<std::int64_t>>(&child.folded_value)) value = v->data[0];
        } else if (child.is_input && ctx.inputs != nullptr) {
            if (const auto* v = std::get_if<tensor_value<std::int64_t>>(&(*ctx.inputs)[child.input_position].value))
                value = v->data[0];
        } else if (child.tag == op_id::sym_size && shapes[child.children[0]]) {
            const shape_vector& of = *shapes[child.children[0]];
            value = static_cast<std::int64_t>(of[size_axis(child, of.size())]);
        }
        integers.push_back(value);
    }
    return kernel_shape(g, slot, operands, integers);
}

void simd_kernel_call(const ir_node& self, std::span<const engine::tensor_ref> operands, const engine::tensor_ref& out) {
    const node_attrs& a = self.attrs;
    switch (*self.tag) {
    case op_id::rope: {
        if (operands.size() > 2 && operands[2].rank() != 0)  // a graph::input<std::int64_t> given another shape
            engine::throw_shape_error(self.entry_point, "start_pos must be a 0-d int64 tensor (one position), got shape " +
                                                            realify::detail::format_sequence(operands[2].shape));
        const std::ptrdiff_t start = operands.size() > 2 ? static_cast<std::ptrdiff_t>(integer_of(operands[2])) : a.i0;
        const auto layout = a.i1 != 0 ? realify::rope::pair_layout::half_split : realify::rope::pair_layout::interleaved;
        return engine::rope(self.entry_point, operands[0], operands[1], start, layout, out);
    }
    case op_id::scaled_dot_product_attention: {
        const engine::attention_options options{operands.size() > 3 ? &operands[3] : nullptr, a.i0 != 0,
                                                a.has_scalar ? std::optional(a.scalar.real()) : std::nullopt, a.i1 != 0};
        return engine::attention(self.entry_point, operands[0], operands[1], operands[2], options, out);
    }
    case op_id::triu:
    case op_id::tril: return engine::triangle(self.entry_point, operands[0], a.i0, self.tag == op_id::triu, out);
    default: throw error("realify::" + self.entry_point + ": not an op of the kernel rule");
    }
}

template <class T>
graph_value run_kernel(const ir_node& self, eval_context& ctx, const buffer_layout* target,
                    std::span<const engine::tensor_ref> operands, kernel_call call) {
    shape_vector shape;
    if (const auto* known = known_shape(self, ctx)) {
        shape = **known;
    } else {
        std::vector<std::optional<shape_vector>> shapes;
        std::vector<std::optional<std::int64_t>> integers;
        for (const engine::tensor_ref& r : operands) {
            shapes.emplace_back(shape_vector(r.shape.begin(), r.shape.end()));
            integers.push_back(r.type == engine::component::int64 && r.rank() == 0 ? std::optional(integer_of(r)) : std::nullopt);
        }
        shape = *kernel_shape(*ctx.ir, static_cast<std::size_t>(&self - ctx.ir->nodes.data()), shapes, integers);
    }
    const bool complex = self.is_complex;
    auto fresh = [&] {
        tensor_value<T> v = allocate_to_overwrite<T>(shape, complex);
        call(self, operands, ref_of(v));
        return v;
    };
    if (target == nullptr) return graph_value(fresh());
    std::optional<engine::tensor_ref> out = buffer_ref(*target, engine::component_of<T>(), complex);
    // straight into the buffer unless an operand shares its memory — except,
    // for an elementwise op, an operand that IS the buffer (in place)
    bool direct = out.has_value();
    for (const engine::tensor_ref& r : operands)
        if (direct && engine::detail::overlaps(engine::detail::range_of(r), engine::detail::range_of(*out)))
            direct = kernel_in_place(self) && engine::detail::same_tensor(r, *out, out->shape);
    if (direct) call(self, operands, *out);
    else copy_into(*target, layout_of(fresh()));
    return graph_value(value_in<T>(*target, shape, complex));
}

graph_value evaluate_size(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
    const std::size_t child = self.children[0];
    shape_vector of;
    if (const std::optional<shape_vector>* known = ctx.shapes != nullptr ? &(*ctx.shapes)[child] : nullptr; known && *known)
        of = **known;
    else of = shape_of(value_at(ctx, child));
    const auto extent = static_cast<std::int64_t>(of[size_axis(self, of.size())]);
    tensor_value<std::int64_t> v;
    if (target != nullptr) v = packed_value(static_cast<std::int64_t*>(target->data), {}, false, nullptr);
    else v = allocate<std::int64_t>({}, false);
    v.data[0] = extent;
    return graph_value(v);
}

template <class T>
graph_value evaluate_creation(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
    std::vector<std::optional<std::int64_t>> integers;
    for (std::size_t c : self.children) integers.push_back(std::get<tensor_value<std::int64_t>>(value_at(ctx, c)).data[0]);
    shape_vector shape;
    if (const auto* known = known_shape(self, ctx)) shape = **known;
    else shape = *kernel_shape(*ctx.ir, static_cast<std::size_t>(&self - ctx.ir->nodes.data()), {}, integers);
    tensor_value<T> result;
    engine::tensor_ref out;
    if (target != nullptr) {
        result = value_in<T>(*target, shape, false);
        out = *buffer_ref(*target, engine::component_of<T>(), false);
    } else {
        result = allocate<T>(shape, false);
        out = ref_of(result);
    }
    const node_attrs& a = self.attrs;
    if (self.tag == op_id::arange) {
        const double start = *creation_number(self, 0, a.numbers[0], integers);
        const double step = *creation_number(self, 2, a.numbers[2], integers);
        engine::arange(self.entry_point, start, step, a.i0 != 0, out);
    } else if (self.tag != op_id::empty) {
        fill(self.entry_point, out, a.scalar.real());
    }
    return graph_value(std::move(result));
}

REALIFY_GRAPH_KERNEL_CODE(, float)
REALIFY_GRAPH_KERNEL_CODE(, double)

}  // namespace realify::graph::detail
