// The hook of realify/simd/gemm_report.hpp: realify_simd keeps the pointer,
// realify_gemm sets it.
#include "realify/simd/gemm_report.hpp"

#include <atomic>

namespace realify::simd {

namespace {
// Constant-initialised: valid before any static initialiser of realify_gemm runs.
constinit std::atomic<gemm_report_function> registered{nullptr};
}  // namespace

void set_gemm_report(gemm_report_function report) noexcept { registered.store(report, std::memory_order_release); }

std::string gemm_report() {
    const gemm_report_function report = registered.load(std::memory_order_acquire);
    return report != nullptr ? report() : std::string();
}

}  // namespace realify::simd
