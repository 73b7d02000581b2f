// The reductions and the scan of the eager API — sum, mean, prod, amax,
// amin, var and std over dims, cumsum along one — on tensor_refs: any
// layout, real or complex, into any output layout. Compiled once in
// realify_simd (src/engine/reduce.cpp); this header is cheap.
//
//   sum, mean   per component; accumulated in double (float inputs) or by
//               pairwise summation of each contiguous run (double inputs);
//               mean of no elements is NaN (0/0), as PyTorch
//   prod        complex: the pair product element<op::mul> (realify/kernels)
//               left to right, never per component; real: the product. A
//               run of more than 16384 elements is multiplied in chunks of
//               16384, left to right, whose products are then multiplied
//               left to right (pieces that do not depend on the threads)
//   amax, amin  real only: element<op::maximum> / <op::minimum> (NaN
//               propagates, +0 above −0); no elements: a shape_error, as
//               PyTorch
//   var, std    Σ|x − mean|² / max(0, N − correction) (complex: both parts,
//               a real result, as PyTorch), std its square root; in double,
//               two passes per contiguous run (pairwise sums), runs combined
//               by Chan's formula — stable for any offset of the values
//   cumsum      running sum along the axis, accumulated as sum
//
// Large calls run on several threads with the same results as on one
// (realify/threads.hpp): outputs are split between threads; the input of a
// single output is split into the pieces above (the halves of the pairwise
// sum, the chunks of a product) and combined in the same order. cumsum is
// split over the positions it does not scan.
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

}  // namespace realify::engine
