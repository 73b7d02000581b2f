// Shared by the consumer projects: a program that needs no matrix product
// links realify::core (realify_simd without realify_gemm) and still has the
// eager ops and RoPE. Returns non-zero on a wrong result.
#include <array>
#include <complex>
#include <cstddef>
#include <cstdio>

#include <realify/eager.hpp>
#include <realify/rope.hpp>

int main() {
    xt::xtensor<std::complex<float>, 1> x = {{1.0f, 2.0f}, {-3.0f, 0.5f}};
    const auto y = realify::mul(x, x);
    // sum over a dims list: results of run-time rank (xt::xarray), which realify_simd allocates
    // unless this unit changed xtensor's defaults (the pkg-config test also builds it with
    // XTENSOR_USE_XSIMD: then the unit makes them itself)
    const auto total = realify::sum(x, {0});
    const auto total_pairs = realify::sum(realify::complex_layout_of(x), {0}).real_layout();
    const bool eager = y(0) == std::complex<float>(-3.0f, 4.0f) && y(1) == std::complex<float>(8.75f, -3.0f) &&
                       total.dimension() == 0 && total() == std::complex<float>(-2.0f, 2.5f) &&
                       total_pairs.dimension() == 1 && total_pairs(0) == -2.0f && total_pairs(1) == 2.5f;
    // position 0 rotates by angle 0: RoPE leaves the first position as it is
    xt::xtensor<float, 4> q(std::array<std::size_t, 4>{1, 2, 1, 4}), k(std::array<std::size_t, 4>{1, 2, 1, 4});
    for (std::size_t i = 0; i < q.size(); ++i) q.data()[i] = k.data()[i] = static_cast<float>(i + 1);
    const auto freqs = realify::rope::precompute_freqs_cis(4, 2, 10000.0f);
    xt::xtensor<float, 4> out_q(q.shape()), out_k(k.shape());
    realify::rope::apply_rotary_emb(q, k, freqs, 0, out_q, out_k);
    const bool rope = out_q(0, 0, 0, 3) == 4.0f && out_k(0, 0, 0, 0) == 1.0f && out_q(0, 1, 0, 0) != q(0, 1, 0, 0);
    std::printf("realify::core: eager %d, rope %d (on %.*s)\n", eager, rope,
                static_cast<int>(realify::rope::active_arch().size()), realify::rope::active_arch().data());
    return eager && rope ? 0 : 1;
}
