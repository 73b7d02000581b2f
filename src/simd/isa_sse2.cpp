// SSE2 kernels: the x86-64 baseline, always present (every x86-64 CPU has
// SSE2). CMake compiles this file for plain x86-64 (realify_isa_sources),
// whatever the project's flags say.
#include "isa_table.hpp"

#if !XSIMD_WITH_SSE2
#error "isa_sse2.cpp must be compiled for x86-64 (SSE2)"
#endif

namespace realify::simd::detail {
const kernel_table& sse2_kernels() noexcept {
    static constexpr kernel_table table = make_kernel_table<xsimd::sse2>();
    return table;
}
}  // namespace realify::simd::detail
