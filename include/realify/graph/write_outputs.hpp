// Writing outputs into memory: the caller's out= buffers, or the containers
// program(inputs...) returns. This module owns the out= planning and the
// writing: what a buffer's layout allows (it overlaps itself, two buffers
// share memory, a view re-strides it: PyTorch's view rule), the route and
// the order of the writes, and the copy between two layouts; the layouts
// themselves are only described by graph/buffer_layout.hpp. Everything is
// decided before anything is written (plan_writes), on the IR records and
// the buffers' layouts — no typed code:
//
//   checks   every buffer has the output's shape (shape_error), no buffer
//            overlaps itself (a stride 0: layout_error) and no two buffers
//            share memory (layout_error);
//   route    per output: the node that writes it (the output, or the loop
//            under its views — views re-stride the buffer, PyTorch's view
//            rule) and how:
//              direct     the loop fills the buffer's packed memory (zero
//                         copy; in place when an operand IS the buffer) —
//                         or a tensor_op with a declared shape writes it,
//                         when no operand shares its memory, or a kernel op
//                         (graph/kernel_ops.hpp);
//              rows       the loop (or a kernel op) fills it through its
//                         strides (a slice of a KV cache), no temporary;
//              temporary  the loop fills a temporary, copied in through the
//                         buffer's strides (a transposed or column-major
//                         buffer, or one an operand overlaps otherwise);
//              copied     the output's value is made anyway (a table op, a
//                         shared node, a view of an input) and copied in;
//   order    an output whose buffer is memory another output still reads
//            (an input) is written after that output has read it; when the
//            outputs wait on one another in a cycle, one of them is
//            evaluated aside first and copied in at its turn.
//
// write_output (typed) then follows the route of one output.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "realify/graph/buffer_layout.hpp"
#include "realify/graph/ir.hpp"

namespace realify::graph {

/// How one output is written (see the header comment).
enum class write_route : unsigned char { direct, rows, temporary, copied };

/// The plan of one output.
struct output_plan {
    write_route route = write_route::copied;
    std::size_t writer = 0;  // the IR slot that writes: the output node, or the loop under its views
    buffer_layout target;    // the memory as the writer sees it (re-strided through the views)
    bool in_place = false;   // the loop reads an input that IS the buffer, element for element
    bool aside = false;      // evaluated before the others write, copied in at its turn
};

/// One step of writing the outputs.
struct write_step {
    enum kind_t : unsigned char { evaluate_aside, write } kind = write;
    std::size_t output = 0;
};

/// Everything program(out(buffers…), inputs…) does, decided before it
/// writes anything (program::plan returns it).
struct write_plan {
    std::vector<output_plan> outputs;
    std::vector<write_step> steps;

    /// One line per step, e.g. "output 0 <- %7 mul: direct (in place)".
    std::string describe(const graph_ir& g) const;
};

namespace detail {

/// The inputs (positions) a node's evaluation reads, through everything it depends on.
std::vector<std::size_t> inputs_read(const graph_ir& g, std::size_t slot);

/// The route of one output into `target` (its buffer's layout), decided
/// on the records: the output's private views are walked down while the
/// buffer's strides allow them (each re-strides the buffer); a loop root
/// then writes directly, row by row or through a temporary; anything else
/// is evaluated and copied.
output_plan plan_route(const eval_context& ctx, const std::vector<std::optional<shape_vector>>& shapes,
                       std::size_t slot, buffer_layout target);

/// Writes one output as its plan says: the loop at the writer fills the
/// buffer (directly, row by row, or through a temporary), or the writer's
/// value is copied in.
void write_output(eval_context& ctx, const output_plan& plan);

/// Copies `from` into `to` (the same component shape and size), element for
/// element through both layouts' strides — the engine's copy
/// (realify/engine/elementwise.hpp: any strides, several threads when large);
/// a source that overlaps `to` other than exactly is copied aside first.
/// What every route that does not write in place ends with (a loop's
/// temporary, a kernel's fresh result, a value copied in).
void copy_into(const buffer_layout& to, const buffer_layout& from);

/// program(out(buffers…), inputs…): outputs whose shape is known only once
/// evaluated are evaluated first; then every buffer is checked and every
/// route and the order decided (plan_writes) — all before anything is
/// written; then, when `write`, the steps run.
write_plan write_outputs(eval_context& ctx, const std::vector<std::optional<shape_vector>>& node_shapes,
                         std::span<const buffer_layout> buffers, bool write);

}  // namespace detail
}  // namespace realify::graph
