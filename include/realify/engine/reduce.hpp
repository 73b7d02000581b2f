// The reductions and the scan of the eager API — sum, mean, prod, amax,
// amin, var and std over dims, cumsum along one — on tensor_refs: any
// layout, real or complex, into any output layout. Compiled once in
// realify_simd (src/engine/reduce.cpp, on the per-instruction-set kernels of
// src/simd/isa/reduce_kernels.hpp); this header is cheap.
//
// Every result is computed in one fixed order (docs/numerics.md,
// "Reductions"): blocks of the reduced elements (2048 reals in 64 lanes
// along the reduced axis, 32 rows across), combined pairwise — the same bits
// on every instruction set and any number of threads.
//
//   sum, mean   per component, accumulated in double (float inputs widened
//               exactly); mean of no elements is NaN (0/0), as PyTorch; the
//               empty sum +0, a sum of −0s −0
//   prod        complex: the pair product element<op::mul>, never per
//               component; real: the product; in the input's type
//   amax, amin  real only: element<op::maximum> / <op::minimum> (NaN
//               propagates, +0 above −0); no elements: a shape_error, as
//               PyTorch
//   var, std    Σ|x − mean|² / max(0, N − correction) (complex: both parts,
//               a real result, as PyTorch), std its square root; in double,
//               two passes per block, blocks combined by Chan's formula —
//               stable for any offset of the values
//   cumsum      running sum along the axis, in double for float inputs
//
// Large calls run on several threads with the same results as on one
// (realify/threads.hpp): outputs (or strips of them) are split between
// threads; the blocks of a single output in aligned groups, subtrees of its
// pairwise tree. cumsum is split over the lines it scans.
//
// Inputs and outputs are float or double (outputs of either, converted on
// the store). The output must have the result's shape (shape_error naming
// the op and both shapes), no internal overlap, and no partial overlap with
// the input (layout_error); being exactly the input is allowed where the
// shapes agree (cumsum in place).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "realify/engine/tensor_ref.hpp"

namespace realify::engine {

enum class reduction : std::uint8_t { sum, mean, prod, amax, amin };

/// The shape of a reduction over `axes` (sorted, unique, in range): the
/// reduced axes dropped, or kept as extent 1 with keepdim.
dims reduced_shape(const dims& in, std::span<const std::size_t> axes, bool keepdim) noexcept;

/// out = r(in) over `axes` (sorted, unique, in range; all axes of a rank-0 input: none).
void reduce(std::string_view op, reduction r, const tensor_ref& in, std::span<const std::size_t> axes, bool keepdim,
            const tensor_ref& out);

/// out = the variance of in over `axes` (sorted, unique, in range), or with
/// `root` its square root (the standard deviation); out is real.
void variance(std::string_view op, const tensor_ref& in, std::span<const std::size_t> axes, double correction,
              bool keepdim, bool root, const tensor_ref& out);

/// out = the running sum of in along `axis` (< rank; a rank-0 input is copied).
void cumsum(std::string_view op, const tensor_ref& in, std::size_t axis, const tensor_ref& out);

/// The elements of a row-major tensor made on demand instead of read from
/// memory: a fused loop's result (realify/engine/fused_loop.hpp) reduced as
/// its blocks are made, with no tensor of it in memory.
class produced_values {
public:
    virtual ~produced_values() = default;
    virtual const dims& shape() const noexcept = 0;
    virtual component type() const noexcept = 0;  // float32 or float64
    virtual bool complex() const noexcept = 0;
    /// Elements [first, first + n) in row-major order, packed at `to`
    /// (n or 2n components). Called concurrently, on disjoint ranges.
    virtual void produce(std::size_t first, std::size_t n, void* to) const = 0;
    /// Whether `out` shares memory with what produce reads (refused as out).
    virtual bool reads(const tensor_ref& out) const noexcept = 0;
};

/// reduce / variance of produced values, with the results, to the bit, of
/// the same call on the values packed in memory (the same blocks, combined in
/// the same order, at any thread count): when the reduced elements of each
/// output are one contiguous run of the packed tensor (the reduced axes are
/// its trailing ones, axes of extent 1 aside). Otherwise false, nothing
/// written: the caller makes the tensor and reduces it. The checks are
/// reduce's / variance's; out sharing memory with what `in` reads is a
/// layout_error.
bool reduce_produced(std::string_view op, reduction r, const produced_values& in, std::span<const std::size_t> axes,
                     bool keepdim, const tensor_ref& out);
bool variance_produced(std::string_view op, const produced_values& in, std::span<const std::size_t> axes,
                       double correction, bool keepdim, bool root, const tensor_ref& out);

}  // namespace realify::engine
