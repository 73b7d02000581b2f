// Private: the per-instruction-set RoPE entry points that rope_dispatch.cpp
// chooses between. Each is defined in src/rope/rope_<arch>.cpp.
#pragma once

#include "realify/rope/kernels/rope_call.hpp"

namespace realify::rope::detail {

void rope_sse2(const rope_call<float>& call);
void rope_sse2(const rope_call<double>& call);
void rope_avx2(const rope_call<float>& call);
void rope_avx2(const rope_call<double>& call);
void rope_avx512(const rope_call<float>& call);
void rope_avx512(const rope_call<double>& call);

}  // namespace realify::rope::detail
