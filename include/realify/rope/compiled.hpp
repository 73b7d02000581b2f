// The compiled RoPE kernels (in the realify_simd library's kernel table, one
// translation unit per instruction set: src/simd/isa_kernels.cpp, one unit per level), chosen at
// run time with the same level as realify::simd (REALIFY_SIMD_ARCH,
// realify::simd::force_arch, scoped_arch).
// This header does not include xsimd.
#pragma once

#include <string_view>

#include "realify/rope/call.hpp"

namespace realify::rope {

/// The instruction set the RoPE kernels run on now ("sse2", "avx2", "avx512"):
/// realify::simd::active_arch(realify::simd::kernel_family::rope).
std::string_view active_arch();

namespace detail {

/// Runs `call` on the active instruction set. Precondition: `call` has been
/// validated by the front end (rope/apply_rotary_emb.hpp).
void rope_compiled(const rope_call<float>& call);
void rope_compiled(const rope_call<double>& call);

}  // namespace detail
}  // namespace realify::rope
