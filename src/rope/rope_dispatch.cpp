// Chooses the RoPE kernel for the instruction set realify::simd is using, so
// REALIFY_SIMD_ARCH and realify::simd::force_arch govern RoPE too. A level
// the compiler could not build (REALIFY_SIMD_HAVE_*) is never reported as
// supported by realify::simd, so the sse2 fallback is then unreachable for it.
#include "realify/rope/dispatch.hpp"

#include "realify/simd/arch.hpp"
#include "rope_arch.hpp"

namespace realify::rope {

std::string_view active_arch() { return simd::active_arch(); }

namespace detail {

namespace {
template <class T>
void run(const rope_call<T>& call) {
    switch (simd::active_arch_id()) {
#if defined(REALIFY_SIMD_HAVE_AVX512)
        case simd::arch::avx512: rope_avx512(call); return;
#endif
#if defined(REALIFY_SIMD_HAVE_AVX2)
        case simd::arch::avx2: rope_avx2(call); return;
#endif
        default: break;
    }
    rope_sse2(call);
}
}  // namespace

void rope_compiled(const rope_call<float>& call) { run(call); }
void rope_compiled(const rope_call<double>& call) { run(call); }

}  // namespace detail
}  // namespace realify::rope
