// The simd layer: the compiled kernels with a run-time choice of instruction set — the
// interleaved complex multiply family, every elementwise op and the matrix
// products. None of these headers includes xsimd or Eigen (the kernels live
// in realify_simd). The functions throw realify::shape_error and
// realify::layout_error.
#pragma once

#include "realify/errors.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/complex_mul.hpp"
#include "realify/simd/elementwise.hpp"
#include "realify/simd/gemm.hpp"
#include "realify/simd/gemm_report.hpp"
#include "realify/simd/streaming.hpp"
