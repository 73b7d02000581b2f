// realify/graph/fusion.hpp: running a fused loop — its operands' values
// gathered, the loop's steps run over them into fresh memory or straight
// into a planned out= buffer (packed, row by row, or through a temporary),
// and the SIMD row kernel taken for a lone complex × complex multiply when
// the layouts fit. The decisions were taken by the fuse_elementwise pass;
// this only follows the record.
#include "realify/graph/fusion.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "realify/engine/elementwise.hpp"
#include "realify/engine/fused_loop.hpp"
#include "realify/engine/reduce.hpp"
#include "realify/ops/shape_inference.hpp"
#include "realify/engine/tensor_ref.hpp"
#include "realify/graph/value.hpp"
#include "realify/graph/write_outputs.hpp"

namespace realify::graph::detail {

bool loop_writes(const buffer_layout& target, bool complex) { return !complex || target.strides.back() == 1; }

/// That buffer as the engine's out, when the loop can write it.
std::optional<engine::tensor_ref> buffer_ref(const buffer_layout& target, engine::component type, bool complex) {
    const std::size_t rank = target.shape.size() - (complex ? 1 : 0);
    if (!loop_writes(target, complex)) return std::nullopt;
    engine::tensor_ref r;
    r.data = target.data;
    r.type = type;
    r.complex = complex;
    r.shape.rank = rank;
    for (std::size_t a = 0; a < rank; ++a) {
        r.shape.extent[a] = target.shape[a];
        r.strides[a] = target.strides[a];
    }
    return r;
}

namespace {

/// The lone complex multiply on the SIMD row kernel, when the record allows
/// it and the layout fits; false when it did not run.
bool try_simd_rows(const ir_node& self, std::span<const engine::tensor_ref> inputs, const engine::tensor_ref& out) {
    if (!self.simd_rows || inputs.size() != 2) return false;
    return engine::mul_rows(inputs[0], inputs[1], out);
}

/// The values a loop reads (held in `leaves`, which keep their memory alive), as refs.
template <class T>
std::span<const engine::tensor_ref> loop_inputs(const ir_node& self, eval_context& ctx, std::vector<tensor_value<T>>& leaves,
                                                std::array<engine::tensor_ref, engine::max_inputs>& refs) {
    for (std::size_t k = 0; k < self.loop_operands.size(); ++k) {
        leaves.push_back(value_as<T>(ctx, self.loop_operands[k]));
        refs[k] = ref_of(leaves.back());
    }
    return {refs.data(), leaves.size()};
}

}  // namespace

/// The evaluator of a loop root: its loop over the values it reads, into
/// `target` (nullptr: a fresh value). A target that overlaps a value read is
/// written in place when that value IS the target, element for element (the
/// same memory, shape and strides: each block is read before it is written);
/// any other overlap — a transposed view of the target, a slice of it, an
/// expanded one — or a layout the engine cannot write, goes through a
/// temporary copied in.
template <class T>
graph_value evaluate_fused(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
    const engine::fused_loop& loop = *self.loop;
    std::vector<tensor_value<T>> leaves;
    std::array<engine::tensor_ref, engine::max_inputs> refs;
    const std::span<const engine::tensor_ref> inputs = loop_inputs(self, ctx, leaves, refs);
    const engine::dims dims = engine::broadcast_shape(self.entry_point, inputs);
    const shape_vector shape(dims.begin(), dims.end());
    const bool complex = loop.complex_result();
    auto run = [&](const engine::tensor_ref& ref) {
        if (try_simd_rows(self, inputs, ref)) return;
        engine::evaluate_loop(self.entry_point, loop, inputs, ref);
    };
    auto fresh = [&] {
        tensor_value<T> v = allocate_to_overwrite<T>(shape, complex);
        run(ref_of(v));
        return v;
    };
    if (target == nullptr) return fresh();
    const tensor_value<T> result = value_in<T>(*target, shape, complex);
    const byte_range written = bytes_of(*target);
    const bool packed = is_packed(*target);
    bool in_place_only = true;  // every value that overlaps the target IS the target
    for (const tensor_value<T>& v : leaves) {
        const bool same = packed && v.packed() && v.data == result.data && v.shape == shape && v.complex == complex;
        in_place_only = in_place_only && (same || !written.overlaps(bytes_of(layout_of(v))));
    }
    const std::optional<engine::tensor_ref> out = buffer_ref(*target, engine::component_of<T>(), complex);
    if (in_place_only && out) {
        run(*out);
    } else {
        const tensor_value<T> temp = fresh();
        copy_into(*target, layout_of(temp));
    }
    return result;
}

template graph_value evaluate_fused<float>(const ir_node&, eval_context&, const buffer_layout*);
template graph_value evaluate_fused<double>(const ir_node&, eval_context&, const buffer_layout*);

namespace {

/// What a reduction record computes, from its tag.
struct reduction_of_record {
    bool variance = false, root = false;
    engine::reduction r = engine::reduction::sum;
};

reduction_of_record reduction_of(const ir_node& n) {
    switch (n.tag.value_or(op_id::sum)) {
    case op_id::mean:
    case op_id::mean_dim: return {false, false, engine::reduction::mean};
    case op_id::amax: return {false, false, engine::reduction::amax};
    case op_id::amin: return {false, false, engine::reduction::amin};
    case op_id::var: return {true, false, engine::reduction::sum};
    case op_id::std_dev: return {true, true, engine::reduction::sum};
    default: return {false, false, engine::reduction::sum};  // sum, sum_dim
    }
}

}  // namespace

template <class T>
graph_value evaluate_fused_reduction(const ir_node& self, eval_context& ctx, const buffer_layout*) {
    const engine::fused_loop& loop = *self.loop;
    std::vector<tensor_value<T>> leaves;
    std::array<engine::tensor_ref, engine::max_inputs> refs;
    const std::span<const engine::tensor_ref> inputs = loop_inputs(self, ctx, leaves, refs);
    const engine::loop_values values(self.entry_point, loop, inputs);
    const engine::dims& shape = values.shape();
    // the table entry's arguments: dims (none: all), keepdim, var's correction
    const std::vector<std::size_t> axes = realify::detail::reduction_axes(self.op, self.attrs.dims, shape.rank);
    const bool keepdim = self.attrs.i1 != 0;
    const reduction_of_record what = reduction_of(self);
    const engine::dims reduced = engine::reduced_shape(shape, axes, keepdim);
    tensor_value<T> result = allocate<T>(shape_vector(reduced.begin(), reduced.end()), self.is_complex);
    const bool done = what.variance ? engine::variance_produced(self.op, values, axes, self.attrs.scalar.real(), keepdim,
                                                                what.root, ref_of(result))
                                    : engine::reduce_produced(self.op, what.r, values, axes, keepdim, ref_of(result));
    if (done) return result;
    // reduced dims that are not the trailing ones: the loop's result made, then reduced
    tensor_value<T> made = allocate_to_overwrite<T>(shape_vector(shape.begin(), shape.end()), loop.complex_result());
    engine::evaluate_loop(self.entry_point, loop, inputs, ref_of(made));
    if (what.variance)
        engine::variance(self.op, ref_of(made), axes, self.attrs.scalar.real(), keepdim, what.root, ref_of(result));
    else
        engine::reduce(self.op, what.r, ref_of(made), axes, keepdim, ref_of(result));
    return result;
}

template graph_value evaluate_fused_reduction<float>(const ir_node&, eval_context&, const buffer_layout*);
template graph_value evaluate_fused_reduction<double>(const ir_node&, eval_context&, const buffer_layout*);

}  // namespace realify::graph::detail
