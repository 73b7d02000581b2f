// The simd layer: interleaved complex multiply kernels and the matrix
// products, with runtime dispatch. None of these headers includes xsimd or
// Eigen (the kernels live in realify_simd).
#pragma once

#include "realify/simd/arch.hpp"
#include "realify/simd/complex_mul.hpp"
#include "realify/simd/gemm.hpp"
#include "realify/simd/streaming.hpp"
