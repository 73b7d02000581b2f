// Fused elementwise loops: a chain of elementwise nodes evaluated as ONE
// loop over the broadcast shape, each element computed by the ops' element
// kernels (realify/kernels) — no temporaries between the ops.
//
// Which nodes share a loop is decided once, by the fuse_elementwise pass
// (graph/passes.hpp), and recorded in the loop root's ir_node::fusion:
//
//   region    the loop inlines every elementwise descendant of the root
//             (they are private to it); the kernel is the root's whole
//             expression (region_kernel);
//   own_loop  the loop is the root's op alone over its operands' values; the
//             kernel depends on the op and the operand kinds only
//             (op_kernel<Tag>), so every node of one op and operand kinds, in
//             every graph of a translation unit, shares one instantiation.
//
// The loop itself (row_loop) and the SIMD route of a lone complex multiply
// (graph/simd_rows.hpp) write either a fresh value or a caller's buffer whose
// rows are contiguous (graph/buffer_layout.hpp). This is the part the
// compiled block kernels will replace; nothing outside this header depends
// on how a loop is run.
#pragma once

#include <any>
#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "realify/dispatch/elementwise.hpp"
#include "realify/errors.hpp"
#include "realify/graph/buffer_layout.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/loop_operands.hpp"
#include "realify/graph/node.hpp"
#include "realify/graph/rules.hpp"
#include "realify/graph/simd_rows.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/value.hpp"
#include "realify/kernels.hpp"

namespace realify::graph::detail {

// ---- which children a region inlines ------------------------------------------------

/// A region inlines every elementwise child (the pass checked they are private).
template <class C>
inline constexpr bool inlined_v = fusable_v<C>;

/// Whether a fused node has an elementwise child at all (else it has no region).
template <class N>
inline constexpr bool has_inline_child_v = false;
template <class Tag, class... C>
inline constexpr bool has_inline_child_v<node<Tag, C...>> = (fusable_v<C> || ...);

/// How many operands the region of N reads.
template <class N>
inline constexpr std::size_t region_operand_count_v = 1;
template <class Tag, class... C>
inline constexpr std::size_t region_operand_count_v<node<Tag, C...>> =
    ((inlined_v<C> ? region_operand_count_v<C> : std::size_t(1)) + ... + 0);

/// Where each child's operands start among its parent's.
template <class... C>
constexpr auto operand_offsets() {
    constexpr std::array<std::size_t, sizeof...(C)> counts{(inlined_v<C> ? region_operand_count_v<C> : std::size_t(1))...};
    std::array<std::size_t, sizeof...(C)> offsets{};
    std::size_t next = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        offsets[i] = next;
        next += counts[i];
    }
    return offsets;
}

/// Up to this many operands a loop runs row by row with loaders chosen at
/// compile time (2^operands instantiations); more take the engine's general
/// path, which writes packed memory only.
inline constexpr std::size_t max_row_loop_operands = 4;

// ---- per-element kernels of the fusable ops: their element kernels ------------------

/// One element of a fused op: the op's element kernel (realify/kernels) on
/// pairs or reals; mul_scalar / div_scalar take their number from the node.
template <class Tag, class... X>
auto apply_elem(const node_attrs& attrs, X... x) {
    if constexpr (std::is_same_v<Tag, op::mul_scalar> || std::is_same_v<Tag, op::div_scalar>) {
        using T = decltype(kernel::to_pair(x...).re);
        return kernel::element<Tag>{}(x..., static_cast<T>(attrs.scalar.real()));
    } else {
        return kernel::element<Tag>{}(x...);
    }
}

/// The kernel of an own_loop: one op over its operands (shared by every node
/// of the op with the same operand kinds).
template <class Tag>
struct op_kernel {
    const node_attrs* attrs;
    template <class... X>
    auto operator()(X... x) const {
        return apply_elem<Tag>(*attrs, x...);
    }
};

/// One element of a region: the node's op over its children's elements,
/// inlined children computed in place, the others read from the leaves
/// (vals, in leaf order from Off).
template <std::size_t Off, class Tag, class... C, class Vals>
auto region_elem(const node<Tag, C...>& m, const Vals& vals);

template <std::size_t Off, class C, class Vals>
auto region_child(const C& c, const Vals& vals) {
    if constexpr (inlined_v<C>) return region_elem<Off>(c, vals);
    else return std::get<Off>(vals);
}

template <std::size_t Off, class Tag, class... C, class Vals>
auto region_elem(const node<Tag, C...>& m, const Vals& vals) {
    constexpr auto offsets = operand_offsets<C...>();
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return apply_elem<Tag>(m.attrs, region_child<Off + offsets[I]>(std::get<I>(m.children), vals)...);
    }(std::index_sequence_for<C...>{});
}

/// The kernel of a region: the root's whole expression.
template <class N>
struct region_kernel {
    const N* root;
    template <class... X>
    auto operator()(X... x) const {
        return region_elem<0>(*root, std::tuple<X...>(x...));
    }
};

// ---- the leaves of a region ------------------------------------------------------------

template <class... L>
struct join_kinds;
template <>
struct join_kinds<> {
    using type = type_list<>;
};
template <class... A, class... B, class... Rest>
struct join_kinds<type_list<A...>, type_list<B...>, Rest...> {
    using type = typename join_kinds<type_list<A..., B...>, Rest...>::type;
};
template <class... A>
struct join_kinds<type_list<A...>> {
    using type = type_list<A...>;
};

/// The operand kinds a region's loop reads, in the order it reads them:
/// each child of the root, an inlined (elementwise) child replaced by its own.
template <class C, bool Inline = inlined_v<C>>
struct region_operands {
    using type = type_list<operand_kind_t<C>>;
};
template <class Tag, class... C>
struct region_operands<node<Tag, C...>, true> {
    using type = typename join_kinds<typename region_operands<C>::type...>::type;
};
template <class N>
struct root_operands;
template <class Tag, class... C>
struct root_operands<node<Tag, C...>> {
    using type = typename join_kinds<typename region_operands<C>::type...>::type;
};

// ---- the loop -----------------------------------------------------------------------------

template <class T, bool C>
constexpr bool ref_is_complex(const realify::detail::operand_ref<T, C>&) {
    return C;
}
/// The loader of one operand for the row at `index` (outer axes only).
template <class T, bool C, bool Contiguous>
auto make_row_loader(const realify::detail::operand_ref<T, C>& ref, const realify::detail::stride_vector& strides,
                     const shape_vector& index, std::bool_constant<Contiguous>) {
    const T* p = ref.data;
    for (std::size_t a = 0; a + 1 < index.size(); ++a) p += static_cast<std::ptrdiff_t>(index[a]) * strides[a];
    if constexpr (Contiguous) return realify::detail::contiguous_loader<T, C>{p};
    else return realify::detail::constant_loader<T, C>{p};
}

/// The loop of a fused region over the broadcast shape, row by row: every
/// operand is contiguous along the last axis or constant along it (RoPE's
/// freqs_cis (1, S, 1, D/2) against (B, S, H, D/2)), with loaders chosen at
/// compile time, so the inner loop is the same tight, vectorisable loop as
/// the contiguous path. Row r is written at out + Σ index·out_strides (the
/// outer axes); its elements are contiguous.
template <std::size_t Width, class O, class Kernel, class Refs, std::size_t I = 0, class... Kinds>
void row_loop(O* out, const stride_vector& out_strides, const shape_vector& shape, const Kernel& kernel, const Refs& refs,
              const std::array<realify::detail::stride_vector, std::tuple_size_v<Refs>>& strides, Kinds... kinds) {
    if constexpr (I < std::tuple_size_v<Refs>) {
        if (strides[I].back() == 0)
            row_loop<Width, O, Kernel, Refs, I + 1>(out, out_strides, shape, kernel, refs, strides, kinds..., std::false_type{});
        else
            row_loop<Width, O, Kernel, Refs, I + 1>(out, out_strides, shape, kernel, refs, strides, kinds..., std::true_type{});
    } else {
        const std::size_t rank = shape.size();
        const std::size_t inner = shape[rank - 1];
        std::size_t total = 1;
        for (std::size_t e : shape) total *= e;
        shape_vector index(rank, 0);
        for (std::size_t done = 0; done < total; done += inner) {
            O* row = out;
            for (std::size_t a = 0; a + 1 < rank; ++a) row += static_cast<std::ptrdiff_t>(index[a]) * out_strides[a];
            [&]<std::size_t... J>(std::index_sequence<J...>) {
                realify::detail::tight_loop(row, inner, kernel, make_row_loader(std::get<J>(refs), strides[J], index, Kinds{})...);
            }(std::make_index_sequence<std::tuple_size_v<Refs>>{});
            for (std::size_t a = rank - 1; a-- > 0;) {
                if (++index[a] < shape[a]) break;
                index[a] = 0;
            }
        }
    }
}

/// Runs a fused kernel over the broadcast of refs into out: packed, or with
/// `out_strides` per axis of shape (in components; the last axis steps
/// Width). Up to max_row_loop_operands operands, every case is the row loop
/// (a packed output with operands of its shape is one row) — the operands
/// are values, packed, so each is contiguous or constant along the last axis
/// — and each kernel is instantiated at most 2^operands times; more operands
/// take the engine's general path (one instantiation), which writes packed
/// outputs only.
template <std::size_t Width, class O, class Kernel, class... Refs>
void fused_loop(O* out, bool packed, const stride_vector& out_strides, const shape_vector& shape, const Kernel& kernel,
                const Refs&... refs) {
    std::size_t total = 1;
    for (std::size_t e : shape) total *= e;
    if (total == 0) return;
    if constexpr (sizeof...(Refs) <= max_row_loop_operands) {
        const bool all_contiguous = ((refs.shape.empty() || realify::detail::is_contiguous_as(refs, shape)) && ...);
        if (shape.empty() || (packed && all_contiguous)) {
            const std::array<realify::detail::stride_vector, sizeof...(Refs)> strides{
                realify::detail::stride_vector(1, refs.shape.empty() ? 0 : (ref_is_complex(refs) ? 2 : 1))...};
            return row_loop<Width>(out, stride_vector{static_cast<std::ptrdiff_t>(Width)}, shape_vector{total}, kernel,
                                   std::make_tuple(refs...), strides);
        }
        const std::array<realify::detail::stride_vector, sizeof...(Refs)> strides{realify::detail::aligned_strides(refs, shape)...};
        return row_loop<Width>(out, out_strides, shape, kernel, std::make_tuple(refs...), strides);
    } else {
        realify::detail::general_path<Width>(out, shape.empty() ? shape_vector{1} : shape, kernel, refs...);
    }
}

/// Packed per-axis strides, in components, of a result of shape `shape`.
inline stride_vector packed_row_strides(const shape_vector& shape, std::size_t width) {
    stride_vector strides = packed_strides(shape);
    for (std::ptrdiff_t& s : strides) s *= static_cast<std::ptrdiff_t>(width);
    return strides;
}

/// Whether a loop of `operands` operands can write `target` (component
/// layout of a result of logical shape `shape`, complex when Width is 2)
/// directly: its elements along the last axis must be contiguous; a packed
/// target always can be written.
inline bool loop_writes(const buffer_layout& target, std::size_t operands, bool complex) {
    if (is_packed(target)) return true;
    if (operands > max_row_loop_operands) return false;
    const std::size_t rank = target.shape.size();
    if (complex) return target.strides[rank - 1] == 1 && (rank < 2 || target.shape[rank - 2] <= 1 || target.strides[rank - 2] == 2);
    return rank == 0 || target.shape[rank - 1] <= 1 || target.strides[rank - 1] == 1;
}

/// The per-axis strides (in components) of a result of logical rank `rank`
/// in `target` (its component layout: the logical axes, then [2] when complex).
inline stride_vector logical_strides(const buffer_layout& target, std::size_t rank) {
    return stride_vector(target.strides.begin(), target.strides.begin() + static_cast<std::ptrdiff_t>(rank));
}

/// Runs a loop (kernel over the broadcast of its leaves) into `target`
/// (nullptr: a fresh value). The SIMD route is tried first when the pass
/// recorded it for the loop. A target that overlaps a leaf is written in
/// place when the leaf IS the target, element for element (the loop reads
/// element i before it writes it); any other overlap, or a layout whose rows
/// are not contiguous, goes through a temporary copied in. Templated on the
/// kernel and the leaf kinds only: every own loop of one op and operand
/// kinds, in every graph of a translation unit, is this one function.
template <class Kernel, class T, bool... C>
tensor_value<T> run_loop(const Kernel& kernel, bool simd_rows, std::string_view op, const buffer_layout* target,
                         const leaf<T, C>&... leaves) {
    using result_element = decltype(kernel(realify::detail::load_at<T, C>(static_cast<const T*>(nullptr))...));
    constexpr bool complex_result = is_pair_v<result_element>;
    constexpr std::size_t width = complex_result ? 2 : 1;
    constexpr bool simd_mul = std::is_same_v<Kernel, op_kernel<op::mul>> && sizeof...(C) == 2 && (C && ...);
    const auto refs = std::make_tuple(make_ref(leaves)...);
    const shape_vector shape = realify::detail::broadcast_shapes(op, make_ref(leaves)...);
    auto run = [&](T* out, bool packed, const stride_vector& out_strides) {
        if constexpr (simd_mul) {
            if (simd_rows && mul_by_simd_rows(out, out_strides, shape, std::get<0>(refs), std::get<1>(refs))) return;
        }
        std::apply([&](const auto&... r) { fused_loop<width>(out, packed, out_strides, shape, kernel, r...); }, refs);
    };
    if (target == nullptr) {
        auto result = allocate<T>(shape, complex_result);
        run(result.data, true, packed_row_strides(shape, width));
        return result;
    }
    tensor_value<T> result{static_cast<T*>(target->data), shape, complex_result, nullptr};
    const byte_range written = bytes_of(*target);
    const bool packed = is_packed(*target);
    // every leaf that overlaps the target IS the target
    const bool in_place_only =
        ((!written.overlaps(bytes_of(leaves.value.data, leaves.value.components() * sizeof(T))) ||
          (packed && static_cast<const void*>(leaves.value.data) == target->data && leaves.value.shape == shape &&
           leaves.value.complex == complex_result)) &&
         ...);
    if (in_place_only && loop_writes(*target, sizeof...(C), complex_result)) {
        run(result.data, packed, logical_strides(*target, shape.size()));
    } else {
        auto temp = allocate<T>(shape, complex_result);
        run(temp.data, true, packed_row_strides(shape, width));
        copy_into(*target, temp.data);
    }
    return result;
}

/// The evaluator of an own loop: the op of the record alone, over its
/// children's values (numbers from their records). One function per op,
/// component type and operand kinds — shared by every such node of every
/// graph in a translation unit.
template <class Tag, class T, class... Kinds>
std::any evaluate_own_loop(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
    return std::apply(
        [&](const auto&... l) { return std::any(run_loop(op_kernel<Tag>{&self.attrs}, self.simd_rows, Tag::name, target, l...)); },
        leaves_from<T, Kinds...>(ctx, self.children));
}

template <class N, class T, class Kinds>
struct region_loop;
template <class N, class T, class... Kinds>
struct region_loop<N, T, type_list<Kinds...>> {
    static std::any evaluate(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
        if (self.loop_operands.size() != sizeof...(Kinds))
            throw error("realify::graph: the fusion record of a " + self.op + " node does not match its region (" +
                        std::to_string(self.loop_operands.size()) + " operands recorded, " +
                        std::to_string(sizeof...(Kinds)) + " in the loop)");
        return std::apply(
            [&](const auto&... l) {
                return std::any(run_loop(region_kernel<N>{static_cast<const N*>(self.object)}, false, N::tag::name, target, l...));
            },
            leaves_from<T, Kinds...>(ctx, self.loop_operands));
    }
};

/// The evaluator of a region rooted at a node of type N: N's whole
/// expression, its elementwise descendants inlined, over the operands the
/// pass recorded (ir_node::loop_operands).
template <class N>
std::any evaluate_region(const ir_node& self, eval_context& ctx, const buffer_layout* target) {
    return region_loop<N, typename traits_t<N>::real_type, typename root_operands<N>::type>::evaluate(self, ctx, target);
}

}  // namespace realify::graph::detail
