// Fused elementwise loops: a chain of elementwise nodes evaluated as ONE
// pass over the broadcast shape — no temporaries between the ops.
//
// Which nodes share a loop is decided once, by the fuse_elementwise pass
// (graph/passes.hpp), and recorded on the loop root: its fused loop
// (realify/engine/fused_loop.hpp, built by graph/build_loop.hpp) and the
// values it reads (ir_node::loop_operands). Evaluation runs that program
// through the elementwise engine: block by block, each step the op's compiled
// kernel at the machine's best instruction set, picked at run time — whatever
// flags the user compiles the graph with, and with the same results as the
// eager API, which runs the same kernels. A lone complex multiply may take the
// SIMD row kernel first (engine::mul_rows, realify/engine/elementwise.hpp).
//
// The evaluator is compiled once per component type (float, double), not per
// op or graph — and once for every user, in realify_simd (src/graph/fusion.cpp):
// the program is data.
#pragma once

#include <any>
#include <optional>

#include "realify/engine/tensor_ref.hpp"
#include "realify/graph/buffer_layout.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/value.hpp"

namespace realify::graph::detail {

/// Whether a loop can write a caller's buffer (its component layout)
/// directly: the engine writes any strides, but a complex result needs its
/// [re, im] components adjacent.
bool loop_writes(const buffer_layout& target, bool complex);

/// The value a loop or kernel op wrote into `target` (a caller's buffer, its
/// component layout): `shape`, the target's strides.
template <class T>
tensor_value<T> value_in(const buffer_layout& target, shape_vector shape, bool complex) {
    tensor_value<T> v;
    v.data = static_cast<T*>(target.data);
    v.strides.assign(target.strides.begin(), target.strides.begin() + static_cast<std::ptrdiff_t>(shape.size()));
    v.shape = std::move(shape);
    v.complex = complex;
    return v;
}

/// A buffer to write as the engine's out, when the engine can write it (loop_writes).
std::optional<engine::tensor_ref> buffer_ref(const buffer_layout& target, engine::component type, bool complex);

/// The evaluator of a loop root: its program over the values it reads, into
/// `target` (nullptr: a fresh value). A target that overlaps a value read is
/// written in place when that value IS the target, element for element (each
/// block is read before it is written); any other overlap, or a layout the
/// engine cannot write, goes through a temporary copied in. Defined for
/// float and double components, in realify_simd (src/graph/fusion.cpp).
template <class T>
std::any evaluate_fused(const ir_node& self, eval_context& ctx, const buffer_layout* target);

/// The evaluator of a reduction that runs its operand's loop (fusion_mode
/// reduced; the fuse_elementwise pass sets it in place of the table's): the
/// loop's blocks reduced as they are made (engine::loop_values,
/// engine::reduce_produced), no tensor of the loop's result — where the
/// reduced dims are the result's trailing ones; else the result is made and
/// reduced. The same engine calls as the table's entry on the result made,
/// so the same bits. The value is the reduction's own memory (`target` is
/// not written: a reduction's output is copied, as the table route's).
template <class T>
std::any evaluate_fused_reduction(const ir_node& self, eval_context& ctx, const buffer_layout* target);

}  // namespace realify::graph::detail
