// The public matrix-product API (realify/simd/gemm.hpp): argument checks, the
// choice of method, the thread's scratch memory, then one call into the
// products of the instruction set realify::simd is using, so
// REALIFY_SIMD_ARCH and realify::simd::force_arch govern them too. A level
// the compiler could not build (REALIFY_SIMD_HAVE_*) is never reported as
// supported by realify::simd, so the sse2 fallback is then unreachable for it.
// Compiled for the baseline ISA only.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "gemm_arch.hpp"
#include "realify/errors.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/gemm.hpp"

namespace realify {

namespace {
thread_local gemm_method thread_method = gemm_method::automatic;
}  // namespace

gemm_method current_gemm_method() noexcept { return thread_method; }

scoped_gemm_method::scoped_gemm_method(gemm_method method) noexcept : previous_(thread_method) {
    thread_method = method;
}
scoped_gemm_method::~scoped_gemm_method() { thread_method = previous_; }

namespace simd {

namespace detail {

// Scratch up to this size stays allocated between calls (a 1024 × 1024
// complex<float> product's expanded B is 16 MiB); larger is freed after the
// call, where the allocation is cheap next to the product anyway.
constexpr std::size_t kept_workspace_bytes = std::size_t(32) << 20;

gemm_workspace::~gemm_workspace() { std::free(data_); }

void* gemm_workspace::reserve(std::size_t bytes) {
    if (bytes <= size_ && data_ != nullptr) return data_;
    std::free(data_);
    data_ = nullptr;
    size_ = 0;
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    data_ = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (data_ == nullptr) throw std::bad_alloc();
    size_ = rounded;
    return data_;
}

void gemm_workspace::trim() noexcept {
    if (size_ <= kept_workspace_bytes) return;
    std::free(data_);
    data_ = nullptr;
    size_ = 0;
}

}  // namespace detail

namespace {

thread_local detail::gemm_workspace workspace;

template <class T>
void run(const detail::gemm_call<T>& call) {
    switch (active_arch_id()) {
#if defined(REALIFY_SIMD_HAVE_AVX512)
        case arch::avx512: detail::gemm_avx512(call); return;
#endif
#if defined(REALIFY_SIMD_HAVE_AVX2)
        case arch::avx2: detail::gemm_avx2(call); return;
#endif
        default: break;
    }
    detail::gemm_sse2(call);
}

bool same_offsets(std::span<const std::ptrdiff_t> offsets) {
    for (std::ptrdiff_t offset : offsets)
        if (offset != offsets[0]) return false;
    return true;
}

/// The operand as the products read it. Where an extent is 1 its stride is
/// never used: it is set to what a contiguous matrix would have, so such an
/// operand (a row, a column, a 1 × 1) counts as contiguous.
template <class T>
detail::gemm_matrix<T> matrix_of(const gemm_operand<T>& operand, std::size_t rows, std::size_t cols, int width,
                                 const std::ptrdiff_t* single_offset) {
    detail::gemm_matrix<T> result{operand.data, operand.row_stride, operand.col_stride,
                                  operand.batch_offsets.empty() ? single_offset : operand.batch_offsets.data(),
                                  operand.conjugate && width == 2};
    if (cols == 1) result.col_stride = width;
    if (rows == 1) result.row_stride = static_cast<std::ptrdiff_t>(cols) * width;
    return result;
}

void check_offsets(const char* function, const char* name, const gemm_dims& dims, std::size_t count) {
    if (count == dims.batch || (count == 0 && dims.batch == 1)) return;
    throw shape_error(std::string("realify::simd::") + function + ": " + name + ".batch_offsets has " +
                      std::to_string(count) + " entries for " + std::to_string(dims.batch) + " batches");
}

template <class T>
void gemm_impl(const char* function, bool complex, const gemm_dims& dims, const gemm_operand<T>& a,
               const gemm_operand<T>& b, T* out, gemm_method method) {
    check_offsets(function, "a", dims, a.batch_offsets.size());
    check_offsets(function, "b", dims, b.batch_offsets.size());
    const int width = complex ? 2 : 1;
    if (dims.batch == 0 || dims.m == 0 || dims.n == 0) return;
    if (dims.k == 0) {  // an empty sum: zeros
        std::memset(out, 0, dims.batch * dims.m * dims.n * static_cast<std::size_t>(width) * sizeof(T));
        return;
    }
    static constexpr std::ptrdiff_t zero_offset = 0;
    const bool shared_b = dims.batch > 1 && same_offsets(b.batch_offsets);
    const detail::gemm_call<T> call{dims.batch,
                                    dims.m,
                                    dims.n,
                                    dims.k,
                                    matrix_of(a, dims.m, dims.k, width, &zero_offset),
                                    matrix_of(b, dims.k, dims.n, width, &zero_offset),
                                    out,
                                    complex,
                                    shared_b,
                                    resolve_gemm_method(dims, shared_b, method),
                                    &workspace};
    run(call);
    workspace.trim();
}

}  // namespace

gemm_method resolve_gemm_method(const gemm_dims& dims, bool shared_b, gemm_method method) noexcept {
    if (method != gemm_method::automatic) return method;
    if (dims.n == 1) return gemm_method::m1;  // a matrix-vector product: 1m's single pass over A
    const std::size_t rows = shared_b ? dims.batch * dims.m : dims.m;
    return rows * dims.n * dims.k <= gemm_direct_threshold ? gemm_method::direct : gemm_method::m1;
}

void complex_gemm(const gemm_dims& dims, const gemm_operand<float>& a, const gemm_operand<float>& b, float* out,
                  gemm_method method) {
    gemm_impl("complex_gemm", true, dims, a, b, out, method);
}
void complex_gemm(const gemm_dims& dims, const gemm_operand<double>& a, const gemm_operand<double>& b, double* out,
                  gemm_method method) {
    gemm_impl("complex_gemm", true, dims, a, b, out, method);
}
void real_gemm(const gemm_dims& dims, const gemm_operand<float>& a, const gemm_operand<float>& b, float* out) {
    gemm_impl("real_gemm", false, dims, a, b, out, gemm_method::automatic);
}
void real_gemm(const gemm_dims& dims, const gemm_operand<double>& a, const gemm_operand<double>& b, double* out) {
    gemm_impl("real_gemm", false, dims, a, b, out, gemm_method::automatic);
}

}  // namespace simd
}  // namespace realify
