// What runs the matrix products, as graph::explain() prints it: a hook that
// realify_gemm fills in when it is linked.
//
// explain() is compiled into realify_simd (src/graph/explain.cpp), which
// realify::core links without realify_gemm. Were it to call
// realify::simd::gemm_backend() (realify_gemm's) or take its address, every
// program using explain() would need realify_gemm. Instead the dependency
// points the other way: realify_gemm registers its report function at
// static initialisation, from the unit that every matrix product links
// (src/gemm/gemm.cpp), and explain() prints what it returns. A graph with
// matrix products cannot link without realify_gemm, so the report is there
// whenever explain() has products to describe; without realify_gemm there is
// none, and nothing to describe.
#pragma once

#include <string>

#include "realify/version.hpp"

namespace realify::simd {

/// A function describing what runs the matrix products (a library name
/// today, e.g. "openblas" or "eigen"; any text the products choose).
using gemm_report_function = std::string (*)();

/// Registers the report (realify_gemm does, before main); the last one wins.
void set_gemm_report(gemm_report_function report) noexcept;

/// What the registered report returns; "" when none is registered (the
/// program does not link realify_gemm).
std::string gemm_report();

}  // namespace realify::simd
