// The elementwise engine: evaluates a kernel over the broadcast of its
// operands into an output, for any memory layout of either. Compiled once in
// realify_simd (src/engine/engine.cpp); this header is cheap (no xtensor, no
// xsimd).
//
// ---- What a call does ------------------------------------------------------------
// evaluate(op, inputs, out, kernel):
//
//  1. checks: the broadcast shape of the inputs (NumPy's rule; shape_error
//     naming the op and the shapes), out's shape equal to it (shape_error
//     naming both), out free of internal overlap (an axis of extent > 1 with
//     stride 0, or strides that make two elements share memory: layout_error)
//     and of partial overlap with an input (layout_error). An input that is
//     exactly out — the same memory, type and layout, not broadcast — is
//     allowed: the op runs in place, as PyTorch's `out=`;
//  2. orders the axes as out's memory runs (the axes of negative stride in
//     out reversed for every operand, then sorted by out's stride) and
//     coalesces adjacent axes every operand can merge, so most calls become
//     one long row, whatever the layout (row-major, transposed,
//     column-major, reversed);
//  3. walks the rows. A row where every operand is contiguous along it and
//     already of the compute type, or constant along it (a number, a
//     broadcast operand: the kernel's broadcast flag; converted once per row
//     when of another type), goes to the kernel in one call, by pointer.
//     Otherwise the row is cut into blocks that stay in L1
//     (block_elements): the operands that are strided, or of another
//     component type (int/bool tensors, a double operand of a float op),
//     are gathered — and converted — into stack scratch; a strided output,
//     or one of another type (bool for isnan), is written through scratch
//     and scattered.
//
// Nothing is allocated. Streaming (non-temporal) stores are used when the
// whole call is one row and large (realify/simd/streaming.hpp). Large calls
// run on several threads (see Threads below).
//
// ---- Kernels -------------------------------------------------------------------
// A block_kernel is a type-erased function on blocks of the compute type T
// (float or double): in[k] points at n elements of input k (2n reals for a
// complex input, n for a real one) or, when broadcast[k], at one element
// repeated; it writes n elements to out. Inputs keep their kinds (complex or
// real, as the tensor_ref says); only the component type is converted. The
// kernels of the elementwise ops (realify/simd/elementwise.hpp) and a few
// built-ins (copy, casts, where, isnan, isinf) come from the factories below;
// any other function of that signature works too (a user's element loop,
// the graph's fused regions).
//
// ---- Threads -------------------------------------------------------------------
// A call of at least 2 · grain::elementwise / cost output elements (the
// kernel's cost per element, below) is cut into pieces of a size fixed by
// the cost that several threads walk at once (realify/threads.hpp): a kernel
// is then called concurrently, on disjoint blocks, and must be safe to call
// so — a function of its blocks (and of its constants), as every built-in is.
// Results do not depend on the cut, because kernels never see a block's
// position.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "realify/engine/tensor_ref.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::engine {

/// At most this many inputs per call (where takes three; a graph's fused
/// region, realify/engine/fused_loop.hpp, up to four).
inline constexpr std::size_t max_inputs = 4;
/// Elements per block when a row goes through scratch: 512 complex doubles
/// are 8 KiB, so three inputs and the output stay in a 32 KiB L1.
inline constexpr std::size_t block_elements = 512;

struct block_kernel;
/// Runs the kernel on one block; `stream`: the output may be written with
/// streaming stores (only offered for one long contiguous row).
using block_function = void (*)(const block_kernel& self, const void* const* in, const bool* broadcast, void* out,
                                std::size_t n, bool stream);

struct block_kernel {
    block_function run = nullptr;
    /// T of every block: float32 or float64 (any type for builtin::copy,
    /// which then moves the values exactly).
    component compute = component::float32;
    /// The kinds of the blocks (true: complex); the engine checks them
    /// against the operands.
    std::array<bool, max_inputs> complex_inputs{};
    bool complex_output = false;
    /// What `run` calls: a function (a compiled kernel) or an object (a
    /// user's functor), and the op's constants.
    void (*function)() = nullptr;
    const void* object = nullptr;
    std::array<double, 2> params{};
    bool has_params = false;
    /// The work of one element in copies (≥ 1): a call is split over
    /// threads from 2 · grain::elementwise / cost elements on
    /// (realify/threads.hpp). kernel_of and the fused loops set the measured
    /// cost of their ops (docs/parallel.md); a kernel of the user's own that
    /// does much more per element than a copy may say so here.
    std::size_t cost = 1;
};

/// The broadcast shape of the inputs (NumPy's rule), or a shape_error
/// "realify::<op>: operands of shapes (…) and (…) cannot be broadcast together".
dims broadcast_shape(std::string_view op, std::span<const tensor_ref> inputs);

/// Runs `kernel` over the broadcast of `inputs` into `out` (see the header comment).
void evaluate(std::string_view op, std::span<const tensor_ref> inputs, const tensor_ref& out, const block_kernel& kernel);

/// Rows shorter than this lose more to per-call overhead than the SIMD row
/// kernel gains (mul_rows).
inline constexpr std::size_t mul_rows_min_row = 16;

/// The SIMD row route of a lone complex × complex multiply (the graph's
/// RoPE `xq_ * freqs_cis`): out = x · y by realify::simd::mul_block_rows when
/// the layout fits — one operand has out's shape and is packed, the other is
/// packed along the trailing axes ("rows", at least mul_rows_min_row
/// elements), repeated by the axes just before them (stride 0) and,
/// optionally, advancing one row per step of the axis before those
/// ("blocks"); any axes further out are walked one call each, and out must be
/// packed over the axes a call covers (a slice of a KV cache is). RoPE's
/// freqs_cis (1, S, 1, D/2) against xq_ (B, S, H, D/2) is B calls of S blocks
/// × H repeats × D/2. All three complex, of one component type. Returns
/// false, having written nothing, when the layout does not fit. The kernel's
/// formula is the element kernel's (the plain one, nan_policy::fast); it
/// rounds with FMA. out may be exactly the full operand (in place).
bool mul_rows(const tensor_ref& x, const tensor_ref& y, const tensor_ref& out);

/// to = from, element for element (same shape), in from's own component
/// type: the copy of the shape ops, cat and stack.
void copy_ref(std::string_view op, const tensor_ref& from, const tensor_ref& to);

/// A packed copy of a tensor, owned: where memory must be read packed — a
/// complex_layout whose [re, im] axis is not contiguous, a reshape no view
/// fits, a graph argument — it is copied once into one of these, by code
/// compiled once (not per operand type).
class packed_copy {
public:
    /// Copies `from` (any layout, its own component type and kind) row-major
    /// into this object's memory, replacing what it held; the ref of the copy.
    tensor_ref pack(std::string_view op, const tensor_ref& from);

    /// Whether it holds a copy (pack has been called).
    bool holds_copy() const noexcept { return m_memory != nullptr; }

private:
    std::unique_ptr<std::byte[]> m_memory;
};

/// Refuses (layout_error) an out that overlaps any input at all: for ops
/// that write out in several steps (cat, stack, roll), where even an input
/// equal to out would be read after being overwritten.
void check_disjoint(std::string_view op, std::span<const tensor_ref> inputs, const tensor_ref& out);

/// For ops that compute their whole result before writing any of it (the
/// matrix products): checks out as evaluate does — its shape equal to `shape`
/// (shape_error), no internal overlap (layout_error) — and returns whether out
/// shares memory with an input. Any overlap is then correct (the caller
/// computes into a temporary and copies), so none is refused.
bool check_result_out(std::string_view op, std::span<const tensor_ref> inputs, const tensor_ref& out, const dims& shape);

/// The compiled kernel of an elementwise op for inputs of these kinds
/// (true: complex) in compute type `compute`; `constant` is α for add/sub
/// (nullopt: α = 1) and the exponent for pow_scalar. Throws realify::error
/// when the op has no such form (see realify::simd::result_kind).
block_kernel kernel_of(simd::elementwise_op op, component compute, std::span<const bool> complex_inputs,
                       std::optional<std::complex<double>> constant = std::nullopt);

/// Kernels that are not ops of realify/simd/elementwise.hpp.
enum class builtin : std::uint8_t {
    copy,        // out = x (same kind): clone, fills, shape ops (compute: the tensor's own type), casts
    to_complex,  // real x → x + 0i
    nonzero,     // x ≠ 0 (complex: either part), as 1 or 0 — the cast to bool
    isnan,       // element<op::isnan>, as 1 or 0
    isinf,       // element<op::isinf>, as 1 or 0
    where,       // (c, a, b) → c ≠ 0 ? a : b; a real a or b is lifted to a + 0i when the other is complex
};
block_kernel builtin_kernel(builtin op, component compute, std::span<const bool> complex_inputs);


}  // namespace realify::engine
