// The simd layer: the compiled kernels with run-time dispatch — the
// interleaved complex multiply family and every elementwise op.
// None of these headers includes xsimd (the kernels live in realify_simd).
#pragma once

#include "realify/simd/arch.hpp"
#include "realify/simd/complex_mul.hpp"
#include "realify/simd/elementwise.hpp"
#include "realify/simd/streaming.hpp"
