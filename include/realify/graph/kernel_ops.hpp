// The kernel rule (graph/rules.hpp): the ops of realify's own compiled code
// in a graph — rope, scaled_dot_product_attention, linear, triu, tril, the
// creation ops (full, zeros, ones, empty, arange) and sizes — evaluated on
// their operands' values by the engine functions the eager API runs
// (realify/engine/rope.hpp, attention.hpp, linear.hpp, construction.hpp),
// writing their result through any strides:
//
//   * into fresh memory, or straight into the buffer the out= plan hands
//     them (graph/write_outputs.hpp: route direct for packed memory, rows
//     for any other strided buffer) — the graph allocates nothing then;
//   * in place when the op allows it (rope, triu, tril: each element read
//     before it is written) and the operand IS the buffer; any other overlap
//     of an operand with the buffer goes through fresh memory, copied in.
//
// Their shapes follow from their operands' shapes and the integer nodes'
// values (graph/sizes.hpp), known before evaluation wherever those are
// (shape rule kernel, graph/infer_shapes.hpp), so what they feed writes
// out= buffers directly too. Everything but the call of linear's GEMM
// (realify_gemm) is compiled once, in realify_simd (src/graph/kernel_ops.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "realify/engine/linear.hpp"
#include "realify/engine/tensor_ref.hpp"
#include "realify/graph/buffer_layout.hpp"
#include "realify/graph/fusion.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/sizes.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"

namespace realify::graph::detail {

/// The call of a kernel op: its operands' refs, its result's ref.
using kernel_call = void (*)(const ir_node& self, std::span<const engine::tensor_ref> operands, const engine::tensor_ref& out);

/// The ops of realify_simd (rope, attention, triu, tril), by the record's op.
void simd_kernel_call(const ir_node& self, std::span<const engine::tensor_ref> operands, const engine::tensor_ref& out);

/// linear: x · wᵀ + b on the GEMM of realify_gemm (in the unit that lowers a
/// graph with a linear node, which links realify::realify).
inline void linear_call(const ir_node& self, std::span<const engine::tensor_ref> operands, const engine::tensor_ref& out) {
    engine::linear(self.entry_point, operands[0], operands[1], operands.size() > 2 ? &operands[2] : nullptr, out);
}

/// The shape of a kernel op's result from its operands' shapes and, for the
/// integer nodes among them, their values; nothing when one is unknown.
/// shape_error (naming the op) for shapes the op refuses.
std::optional<shape_vector> kernel_shape(const graph_ir& g, std::size_t slot,
                                         std::span<const std::optional<shape_vector>> shapes,
                                         std::span<const std::optional<std::int64_t>> integers);

/// kernel_shape before evaluation, at `slot`: the children's shapes known
/// so far, the integers of the arguments and of the sizes of known shapes.
std::optional<shape_vector> infer_kernel_shape(const eval_context& ctx, const std::vector<std::optional<shape_vector>>& shapes,
                                               std::size_t slot);

/// The result of a kernel op of component type T: its shape, then `call`
/// into `target` (the out= buffer planned) or fresh memory (see the header
/// comment). Defined for float and double, in realify_simd.
template <class T>
graph_value run_kernel(const ir_node& self, eval_context& ctx, const buffer_layout* target,
                    std::span<const engine::tensor_ref> operands, kernel_call call);

/// The evaluator of a kernel op node<Tag, C…>: its operands' values, then run_kernel.
template <class Tag, class T, class... C>
graph_value evaluate_kernel(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        // the values, held: evaluating one never moves another's memory
        const std::tuple<tensor_value<typename traits_t<C>::real_type>...> values{
            value_as<typename traits_t<C>::real_type>(ctx, self.children[I])...};
        const std::array<engine::tensor_ref, sizeof...(C)> refs{ref_of(std::get<I>(values))...};
        // linear_call named only where a graph has a linear node: realify::core links no GEMM
        if constexpr (std::is_same_v<Tag, op::linear>) return run_kernel<T>(self, ctx, target, refs, &linear_call);
        else return run_kernel<T>(self, ctx, target, refs, &simd_kernel_call);
    }(std::index_sequence_for<C...>{});
}

/// The evaluators compiled in realify_simd: a size (x.size(dim), an int64
/// 0-d value) and a creation op (its integer children's values, then the
/// fill or arange into `target` or fresh memory).
graph_value evaluate_size(const ir_node& self, eval_context& ctx, const buffer_layout* target);
template <class T>
graph_value evaluate_creation(const ir_node& self, eval_context& ctx, const buffer_layout* target);

template <class N>
struct kernel_evaluator;
template <class Tag, class... C>
struct kernel_evaluator<node<Tag, C...>> {
    static constexpr evaluator_fn value = &evaluate_kernel<Tag, typename traits_t<node<Tag, C...>>::real_type, C...>;
};
template <class X>
struct kernel_evaluator<node<op::sym_size, X>> {
    static constexpr evaluator_fn value = &evaluate_size;
};
template <class Tag, class T>
struct kernel_evaluator<creation_node<Tag, T>> {
    static constexpr evaluator_fn value = &evaluate_creation<T>;
};

#define REALIFY_GRAPH_KERNEL_CODE(EXTERN, T)                                                                              \
    EXTERN template graph_value run_kernel<T>(const ir_node&, eval_context&, const buffer_layout*,                         \
                                           std::span<const engine::tensor_ref>, kernel_call);                            \
    EXTERN template graph_value evaluate_creation<T>(const ir_node&, eval_context&, const buffer_layout*);
REALIFY_GRAPH_KERNEL_CODE(extern, float)
REALIFY_GRAPH_KERNEL_CODE(extern, double)

/// Whether a kernel op may write over its operand element for element (rope,
/// triu, tril: each element read before it is written).
bool kernel_in_place(const ir_node& n);

/// What explain() says a kernel op runs.
std::string kernel_lowering(std::optional<op_id> tag);

}  // namespace realify::graph::detail
