// The RoPE entry points (realify/rope/dispatch.hpp): the active kernel
// table's RoPE kernel, so REALIFY_SIMD_ARCH, force_arch and scoped_arch
// govern RoPE exactly as every other kernel; unforced, the RoPE family's
// preferred level (realify::simd::preferred_arch).
#include "realify/rope/dispatch.hpp"

#include "kernel_table.hpp"
#include "realify/simd/arch.hpp"

namespace realify::rope {

std::string_view active_arch() { return simd::active_arch(simd::kernel_family::rope); }

namespace detail {

void rope_compiled(const rope_call<float>& call) { simd::detail::active_table().f32.rope(call); }
void rope_compiled(const rope_call<double>& call) { simd::detail::active_table().f64.rope(call); }

}  // namespace detail
}  // namespace realify::rope
