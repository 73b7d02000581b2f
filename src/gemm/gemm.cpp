// The public matrix-product API (realify/simd/gemm.hpp): argument checks, the
// choice of method and of backend (the BLAS, when realify_gemm was built with
// one and it suits this CPU, else Eigen), the thread's scratch memory, then
// one call into the products built for the level the gemm family runs on
// (realify::simd::active_arch_id), so REALIFY_SIMD_ARCH and
// realify::simd::force_arch govern them as every other compiled kernel.
// Compiled for the baseline ISA only.
#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#ifdef REALIFY_SIMD_HAVE_BLAS
#include REALIFY_CBLAS_HEADER
#endif

#include "../simd/kernel_table.hpp"
#include "../simd/parallel.hpp"
#include "gemm_arch.hpp"
#include "realify/errors.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/gemm.hpp"
#include "realify/simd/gemm_report.hpp"
#include "realify/threads.hpp"

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

// ---- the backend: Eigen's real GEMM (per instruction set), or the BLAS ----

#ifdef REALIFY_SIMD_HAVE_BLAS
constexpr bool have_blas = true;
constexpr std::string_view blas_name = REALIFY_BLAS_NAME;
#else
constexpr bool have_blas = false;
constexpr std::string_view blas_name = "none";
#endif

// REALIFY_GEMM_BACKEND=eigen|blas, read once (nullopt: unset). Like
// REALIFY_SIMD_ARCH, a value that cannot be honoured makes every product
// throw rather than silently run elsewhere.
std::optional<bool> environment_blas() {
    static const std::optional<bool> chosen = []() -> std::optional<bool> {
        const char* value = std::getenv("REALIFY_GEMM_BACKEND");
        if (value == nullptr || *value == '\0') return std::nullopt;
        const std::string_view name(value);
        if (name == "eigen") return false;
        if (name == "blas") {
            if (!have_blas)
                throw error("realify::simd: REALIFY_GEMM_BACKEND=blas, but realify_simd was built without a BLAS "
                            "(REALIFY_BLAS=OFF, or none was found)");
            return true;
        }
        throw error("realify::simd: REALIFY_GEMM_BACKEND=" + std::string(name) + " is not one of eigen, blas");
    }();
    return chosen;
}

// Whether the BLAS suits this CPU (docs/numerics.md, "Which backend runs"):
// OpenBLAS picks its kernels at load time and falls back to old generic ones
// for a CPU it does not know — 0.3.21 runs its Prescott kernels on an
// Emerald Rapids Xeon, 30 GFLOP/s where Eigen's AVX-512 GEMM reaches about
// 120 — and with AVX2 kernels on an Intel AVX-512 CPU (Haswell, forced with
// OPENBLAS_CORETYPE) it reached 81. Then Eigen runs the products. Other
// BLAS libraries are taken as they are.
bool blas_suited() {
#if defined(REALIFY_SIMD_HAVE_BLAS) && defined(REALIFY_BLAS_OPENBLAS)
    static const bool suited = [] {
        std::string core = openblas_get_corename();
        for (char& c : core) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        const bool avx512_kernels = core == "skylakex" || core == "cooperlake" || core == "sapphirerapids";
        const bool avx2_kernels = avx512_kernels || core == "haswell" || core == "zen";
        if (__builtin_cpu_is("intel") && __builtin_cpu_supports("avx512f")) return avx512_kernels;
        return avx2_kernels;
    }();
    return suited;
#else
    return have_blas;
#endif
}

bool use_blas() {
    if (const std::optional<bool> chosen = environment_blas()) return *chosen;
    return have_blas && !detail::level_forced() && blas_suited();
}

// The BLAS runs each product on one thread. Its own threading changes
// results: OpenBLAS 0.3.21 on 1 and 2 threads differs in the last bits of
// 1-6 % of the entries (edge tiles go to other kernels), and realify's
// results do not depend on the thread count. OpenBLAS before 0.3.27 has only
// a process-wide setting, so it is set to 1 whenever a product finds it
// otherwise. (MKL is linked sequential; BLIS threads only loops over m and
// n, with one kernel for every tile, which does not change results.)
void one_blas_thread() {
#if defined(REALIFY_SIMD_HAVE_BLAS) && defined(REALIFY_BLAS_OPENBLAS)
    if (openblas_get_num_threads() == 1) return;
    static std::mutex mutex;
    const std::lock_guard lock(mutex);
    if (openblas_get_num_threads() != 1) openblas_set_num_threads(1);
#endif
}

/// What `automatic` runs where resolve_gemm_method says native: the backend's
/// complex GEMM where it is the faster — a BLAS's cgemm/zgemm, Eigen's complex
/// product built for AVX-512 — else 1m: built for AVX2 Eigen's complex GEMM
/// ran at about 31 GFLOP/s where its real GEMM, which 1m runs on, kept 85
/// (docs/numerics.md, "Which method runs").
gemm_method automatic_on_backend(gemm_method resolved, gemm_method asked, bool blas) {
    if (asked != gemm_method::automatic || resolved != gemm_method::native || blas) return resolved;
    return active_arch_id(kernel_family::gemm) == arch::avx512 ? gemm_method::native : gemm_method::m1;
}

/// The BLAS takes int dimensions and leading dimensions: products whose
/// sizes, strides or batch offsets (the spacing of stacked rows) do not
/// stay well within an int stay on Eigen.
template <class T>
bool fits_blas(const gemm_dims& dims, const gemm_operand<T>& a, const gemm_operand<T>& b) {
    constexpr std::size_t limit = INT_MAX / 4;
    auto small = [](std::ptrdiff_t v) { return static_cast<std::size_t>(v < 0 ? -v : v) < limit; };
    bool offsets = true;
    for (std::ptrdiff_t o : a.batch_offsets) offsets = offsets && small(o);
    for (std::ptrdiff_t o : b.batch_offsets) offsets = offsets && small(o);
    return offsets && dims.batch * dims.m < limit && dims.n < limit && dims.k < limit && dims.m * dims.k < limit &&
           dims.k * dims.n < limit && small(a.row_stride) && small(a.col_stride) && small(b.row_stride) &&
           small(b.col_stride);
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

// ---- several threads (realify/threads.hpp) -------------------------------------------------
//
// A product of at least 2 · grain::gemm real multiply-adds (a dot product:
// 2 · grain::reduction elements read) is cut into pieces that depend on its
// sizes only — never on the thread count — so its bits are the same on any
// number of threads:
//   batches     (bmm, no shared B) one piece per batch: the products are per
//               batch anyway, so the bits are those of the uncut call;
//   columns     (one product, or batches stacked on a shared B) at most
//               max_panels panels of columns of B and C, each at least
//               min_panel_columns wide: a product of its own (1m expands
//               only its columns of B), written to the thread's scratch and
//               copied into its columns of out;
//   k           (a dot product: one row times one column) at most max_panels
//               ranges of k, their products added in order.
// Each piece runs on the calling or a worker thread with that thread's
// scratch memory (a BLAS backend on one thread of its own).

constexpr std::size_t max_panels = 8;
// Every panel packs all of A again (the GEMM under it packs its operands per
// call), checks it for the native method and copies its columns into C: on
// one thread, cn × cn complex<float> products took 1.15–1.30 × Eigen's time
// with panels two columns wide (eight panels), 1.07–1.12 × with 128, 1.00–1.09 ×
// uncut (n = 128–1024). 128 keeps two panels, two threads' worth, from n = 256.
constexpr std::size_t min_panel_columns = 128;
thread_local detail::gemm_workspace panel_scratch;

/// Runs `call` (its workspace replaced by the running thread's) and trims the scratch.
template <class T>
void run_piece(const detail::gemm_call<T>& call, detail::gemm_kernel<T> kernel) {
    detail::gemm_call<T> own = call;
    own.workspace = &workspace;
    kernel(own);
    workspace.trim();
}

/// The products of the level the gemm family runs on now (forced, else its
/// preferred level; throws where no level built runs on this CPU).
template <class T>
detail::gemm_kernel<T> active_products() {
    switch (active_arch_id(kernel_family::gemm)) {
#ifdef REALIFY_SIMD_HAVE_AVX512
        case arch::avx512: return &detail::gemm_avx512;
#endif
#ifdef REALIFY_SIMD_HAVE_AVX2
        case arch::avx2: return &detail::gemm_avx2;
#endif
#ifdef REALIFY_SIMD_HAVE_SSE2
        case arch::sse2: return &detail::gemm_sse2;
#endif
        default: break;
    }
    // not reached: active_arch_id returns a level built in
    throw error("realify::simd: no matrix products were built for the active instruction set");
}

template <class T>
void run_split(const detail::gemm_call<T>& call) {
    const detail::gemm_kernel<T> kernel = active_products<T>();
    const std::size_t width = call.complex ? 2 : 1;
    const std::size_t rows = call.batch * call.m;  // C's rows (batches on a shared B stack theirs)
    const bool dot = rows == 1 && call.n == 1;     // a reduction of 2k elements read: its own grain
    const std::size_t work = dot ? 2 * call.k : call.batch * call.m * call.n * call.k * (call.complex ? 4 : 1);
    const std::size_t grain = dot ? grain::reduction : grain::gemm;
    const std::size_t threads = parallel::threads_for(work, grain);
    if (work / grain < 2) return run_piece(call, kernel);
    const std::size_t matrix = call.m * call.n * width;  // reals of one batch's C
    if (call.batch > 1 && !call.shared_b) {
        parallel::for_ranges(call.batch, threads, [&](std::size_t first, std::size_t last) {
            detail::gemm_call<T> piece = call;
            piece.batch = last - first;
            piece.a.batch_offsets += first;
            piece.b.batch_offsets += first;
            piece.out = call.out + first * matrix;
            run_piece(piece, kernel);
        });
        return;
    }
    if (dot) {  // ranges of k, their products added in order
        const std::size_t ranges = std::min(max_panels, work / grain);
        std::array<T, 2 * max_panels> parts{};
        parallel::for_ranges(ranges, threads, [&](std::size_t first, std::size_t last) {
            for (std::size_t r = first; r < last; ++r) {
                const std::size_t k0 = call.k * r / ranges, k1 = call.k * (r + 1) / ranges;
                detail::gemm_call<T> piece = call;
                piece.k = k1 - k0;
                piece.a.data += static_cast<std::ptrdiff_t>(k0) * call.a.col_stride;
                piece.b.data += static_cast<std::ptrdiff_t>(k0) * call.b.row_stride;
                piece.out = parts.data() + width * r;
                run_piece(piece, kernel);
            }
        });
        for (std::size_t c = 0; c < width; ++c) {
            T sum = parts[c];
            for (std::size_t r = 1; r < ranges; ++r) sum += parts[width * r + c];
            call.out[c] = sum;
        }
        return;
    }
    const std::size_t panels = std::min({max_panels, call.n / min_panel_columns, work / grain});
    if (panels < 2) return run_piece(call, kernel);
    parallel::for_ranges(panels, threads, [&](std::size_t first, std::size_t last) {
        for (std::size_t p = first; p < last; ++p) {
            const std::size_t j0 = call.n * p / panels, columns = call.n * (p + 1) / panels - j0;
            T* const scratch = static_cast<T*>(panel_scratch.reserve(rows * columns * width * sizeof(T)));
            detail::gemm_call<T> piece = call;
            piece.n = columns;
            piece.b.data += static_cast<std::ptrdiff_t>(j0) * call.b.col_stride;
            piece.out = scratch;
            run_piece(piece, kernel);
            for (std::size_t r = 0; r < rows; ++r)
                std::memcpy(call.out + (r * call.n + j0) * width, scratch + r * columns * width, columns * width * sizeof(T));
        }
        panel_scratch.trim();
    });
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
    const bool blas = use_blas() && fits_blas(dims, a, b);
    const detail::gemm_call<T> call{dims.batch,
                                    dims.m,
                                    dims.n,
                                    dims.k,
                                    matrix_of(a, dims.m, dims.k, width, &zero_offset),
                                    matrix_of(b, dims.k, dims.n, width, &zero_offset),
                                    out,
                                    complex,
                                    shared_b,
                                    automatic_on_backend(resolve_gemm_method(dims, shared_b, method), method, blas),
                                    &workspace,
                                    blas};
    if (call.blas) one_blas_thread();
    run_split(call);
}

}  // namespace

std::string_view gemm_backend() { return use_blas() ? blas_name : std::string_view("eigen"); }

namespace {
// graph::explain() (realify_simd) describes the products through this hook:
// registered here, in the unit every product links, so that explain() itself
// needs nothing of realify_gemm (realify/simd/gemm_report.hpp).
const bool gemm_report_registered = (set_gemm_report([] { return std::string(gemm_backend()); }), true);
}  // namespace

gemm_method resolve_gemm_method(const gemm_dims& dims, bool shared_b, gemm_method method) noexcept {
    if (method != gemm_method::automatic) return method;
    if (dims.n == 1) return gemm_method::m1;  // a matrix-vector product: 1m's single pass over A
    const std::size_t rows = shared_b ? dims.batch * dims.m : dims.m;
    return rows * dims.n * dims.k <= gemm_direct_threshold ? gemm_method::direct : gemm_method::native;
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
