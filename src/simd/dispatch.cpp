// The public span API of realify/simd: argument checks, the choice of
// architecture (runtime CPU detection, REALIFY_SIMD_ARCH, force_arch) and of
// streaming stores, then one indirect call into the per-arch kernels.
// Compiled for the baseline ISA only.
#include <atomic>
#include <complex>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "kernel_table.hpp"
#include "realify/errors.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/complex_mul.hpp"
#include "realify/simd/streaming.hpp"

namespace realify::simd {
namespace {

constexpr bool compiled_in(arch a) noexcept {
    switch (a) {
        case arch::sse2: return true;
        case arch::avx2:
#ifdef REALIFY_SIMD_HAVE_AVX2
            return true;
#else
            return false;
#endif
        case arch::avx512:
#ifdef REALIFY_SIMD_HAVE_AVX512
            return true;
#else
            return false;
#endif
    }
    return false;
}

// __builtin_cpu_supports also checks that the OS saves the wider registers
// (XGETBV), which xsimd 8.1's cpuid probe does not.
bool cpu_has(arch a) noexcept {
    switch (a) {
        case arch::sse2: return true;  // x86-64 baseline
        case arch::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        case arch::avx512:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
                   __builtin_cpu_supports("fma");
    }
    return false;
}

std::string supported_list() {
    std::string names;
    for (arch a : {arch::sse2, arch::avx2, arch::avx512}) {
        if (!is_supported(a)) continue;
        if (!names.empty()) names += ", ";
        names += arch_name(a);
    }
    return names;
}

// REALIFY_SIMD_ARCH if set, else the best level; read once.
arch environment_or_best() {
    static const arch chosen = [] {
        const char* value = std::getenv("REALIFY_SIMD_ARCH");
        if (value == nullptr || *value == '\0') return best_supported_arch();
        const auto parsed = parse_arch(value);
        if (!parsed)
            throw error(std::string("realify::simd: REALIFY_SIMD_ARCH=") + value +
                        " is not one of sse2, avx2, avx512");
        if (!is_supported(*parsed))
            throw error(std::string("realify::simd: REALIFY_SIMD_ARCH=") + value +
                        " is not supported on this machine (supported: " + supported_list() + ")");
        return *parsed;
    }();
    return chosen;
}

std::atomic<int> forced_arch{-1};
std::atomic<std::size_t> stream_threshold{default_streaming_threshold};

const detail::kernel_table& table_for(arch a) noexcept {
    switch (a) {
#ifdef REALIFY_SIMD_HAVE_AVX512
        case arch::avx512: return detail::avx512_kernels();
#endif
#ifdef REALIFY_SIMD_HAVE_AVX2
        case arch::avx2: return detail::avx2_kernels();
#endif
        default: return detail::sse2_kernels();
    }
}

// The table in use, cached so a kernel call costs one load: null until first
// resolved (from force_arch, REALIFY_SIMD_ARCH or the CPU), set directly by
// force_arch, cleared by reset_arch.
std::atomic<const detail::kernel_table*> current_table{nullptr};

const detail::kernel_table& resolve_table() {
    const detail::kernel_table* table = &table_for(active_arch_id());
    const detail::kernel_table* expected = nullptr;
    // A concurrent force_arch wins: only fill the cache if it is still empty.
    if (!current_table.compare_exchange_strong(expected, table, std::memory_order_acq_rel)) return *expected;
    return *table;
}

template <class T>
const detail::kernel_set<T>& active_kernels() {
    const detail::kernel_table* table = current_table.load(std::memory_order_acquire);
    const detail::kernel_table& t = table != nullptr ? *table : resolve_table();
    if constexpr (sizeof(T) == sizeof(float))
        return t.f32;
    else
        return t.f64;
}

template <class T>
const T* reals(std::span<const std::complex<T>> s) noexcept {
    return reinterpret_cast<const T*>(s.data());
}
template <class T>
T* reals(std::span<std::complex<T>> s) noexcept {
    return reinterpret_cast<T*>(s.data());
}

template <class X, class Y>
bool overlaps(std::span<X> x, std::span<Y> y) noexcept {
    if (x.empty() || y.empty()) return false;
    const std::less<const void*> before;
    const void* x_end = x.data() + x.size();
    const void* y_end = y.data() + y.size();
    return before(static_cast<const void*>(x.data()), y_end) && before(static_cast<const void*>(y.data()), x_end);
}

// out must be exactly `in` (same start, same size) or disjoint from it.
template <class T, class U>
void check_alias(const char* function, const char* name, std::span<const T> in, std::span<U> out) {
    if (!overlaps(in, out)) return;
    if (static_cast<const void*>(in.data()) == static_cast<const void*>(out.data()) &&
        in.size_bytes() == out.size_bytes())
        return;
    throw layout_error(std::string("realify::simd::") + function + ": out partially overlaps " + name +
                       " (out may be the same range as an input, or disjoint from it)");
}

std::string sizes_message(const char* function, std::initializer_list<std::pair<const char*, std::size_t>> sizes) {
    std::string message = std::string("realify::simd::") + function + ": sizes differ:";
    bool first = true;
    for (const auto& [name, size] : sizes) {
        message += first ? " " : ", ";
        message += name;
        message += " has " + std::to_string(size);
        first = false;
    }
    return message + " elements";
}

// Streaming only pays when what the call touches does not fit in cache, and
// never when out is an input (its lines are already cached: nothing to save).
template <class T, class... In>
bool use_streaming(std::span<std::complex<T>> out, bool aliases_input, const In&... inputs) noexcept {
    const std::size_t touched = (out.size_bytes() + ... + inputs.size_bytes());
    return !aliases_input && touched >= stream_threshold.load(std::memory_order_relaxed);
}

bool strict(nan_policy policy) noexcept { return policy == nan_policy::strict; }

template <class T>
void mul_impl(const char* function, bool conjugate, std::span<const std::complex<T>> a,
              std::span<const std::complex<T>> b, std::span<std::complex<T>> out, nan_policy policy) {
    if (a.size() != b.size() || a.size() != out.size())
        throw shape_error(sizes_message(function, {{"a", a.size()}, {"b", b.size()}, {"out", out.size()}}));
    check_alias(function, "a", a, out);
    check_alias(function, "b", b, out);
    const auto& k = active_kernels<T>();
    const bool stream = use_streaming(out, overlaps(a, out) || overlaps(b, out), a, b);
    (conjugate ? k.mul_conj : k.mul)(reals(a), reals(b), reals(out), 2 * out.size(), stream, strict(policy));
}

template <class T>
void mul_real_impl(std::span<const std::complex<T>> a, std::span<const T> r, std::span<std::complex<T>> out) {
    if (a.size() != r.size() || a.size() != out.size())
        throw shape_error(sizes_message("mul_real", {{"a", a.size()}, {"r", r.size()}, {"out", out.size()}}));
    check_alias("mul_real", "a", a, out);
    if (overlaps(r, out))
        throw layout_error("realify::simd::mul_real: out overlaps the real array r");
    const auto& k = active_kernels<T>();
    k.mul_real(reals(a), r.data(), reals(out), 2 * out.size(), use_streaming(out, overlaps(a, out), a, r));
}

template <class T>
void mul_scalar_impl(std::span<const std::complex<T>> a, std::complex<T> s, std::span<std::complex<T>> out,
                     nan_policy policy) {
    if (a.size() != out.size())
        throw shape_error(sizes_message("mul_scalar", {{"a", a.size()}, {"out", out.size()}}));
    check_alias("mul_scalar", "a", a, out);
    const auto& k = active_kernels<T>();
    k.mul_scalar(reals(a), s, reals(out), 2 * out.size(), use_streaming(out, overlaps(a, out), a), strict(policy));
}

template <class T>
void mul_add_impl(std::span<const std::complex<T>> a, std::span<const std::complex<T>> b,
                  std::span<const std::complex<T>> c, std::span<std::complex<T>> out, nan_policy policy) {
    if (a.size() != b.size() || a.size() != c.size() || a.size() != out.size())
        throw shape_error(sizes_message(
            "mul_add", {{"a", a.size()}, {"b", b.size()}, {"c", c.size()}, {"out", out.size()}}));
    check_alias("mul_add", "a", a, out);
    check_alias("mul_add", "b", b, out);
    check_alias("mul_add", "c", c, out);
    const auto& k = active_kernels<T>();
    const bool stream = use_streaming(out, overlaps(a, out) || overlaps(b, out) || overlaps(c, out), a, b, c);
    k.mul_add(reals(a), reals(b), reals(c), reals(out), 2 * out.size(), stream, strict(policy));
}

// a and out: (blocks × reps × n); rows: (blocks × n). mul_rows is blocks = 1.
template <class T>
void mul_rows_impl(const char* function, std::span<const std::complex<T>> a, std::span<const std::complex<T>> rows,
                   std::size_t blocks, std::span<std::complex<T>> out, nan_policy policy) {
    const bool whole_blocks = blocks == 0 ? rows.empty() : rows.size() % blocks == 0;  // 0 blocks: all empty
    const std::size_t n = whole_blocks && blocks != 0 ? rows.size() / blocks : 0;
    const std::size_t one_repeat = blocks * n;  // elements of a covered by one repeat of every block
    if (!whole_blocks || a.size() != out.size() || (one_repeat == 0 ? !a.empty() : a.size() % one_repeat != 0)) {
        std::string message = std::string("realify::simd::") + function + ": a has " + std::to_string(a.size()) +
                              " elements, out has " + std::to_string(out.size());
        if (blocks == 1)
            message += ", row has " + std::to_string(rows.size()) + "; need a.size() == out.size() == rows * row.size()";
        else
            message += ", rows has " + std::to_string(rows.size()) + " in " + std::to_string(blocks) +
                       " blocks; need blocks to divide rows.size() and a.size() == out.size() == repeats * rows.size()";
        throw shape_error(message);
    }
    check_alias(function, "a", a, out);
    check_alias(function, blocks == 1 ? "row" : "rows", rows, out);
    if (a.empty()) return;
    const bool stream = use_streaming(out, overlaps(a, out) || overlaps(rows, out), a, rows);
    active_kernels<T>().mul_rows(reals(a), reals(rows), reals(out), 2 * n, a.size() / one_repeat, blocks, stream,
                                 strict(policy));
}

}  // namespace

// ---- architecture selection ----

bool is_supported(arch a) noexcept { return compiled_in(a) && cpu_has(a); }

arch best_supported_arch() noexcept {
    for (arch a : {arch::avx512, arch::avx2})
        if (is_supported(a)) return a;
    return arch::sse2;
}

arch active_arch_id() {
    const int forced = forced_arch.load(std::memory_order_acquire);
    return forced >= 0 ? static_cast<arch>(forced) : environment_or_best();
}

std::string_view active_arch() { return arch_name(active_arch_id()); }

void force_arch(arch a) {
    if (!is_supported(a))
        throw error(std::string("realify::simd::force_arch: ") + std::string(arch_name(a)) +
                    " is not supported on this machine (supported: " + supported_list() + ")");
    forced_arch.store(static_cast<int>(a), std::memory_order_release);
    current_table.store(&table_for(a), std::memory_order_release);
}

void reset_arch() noexcept {
    forced_arch.store(-1, std::memory_order_release);
    current_table.store(nullptr, std::memory_order_release);
}

scoped_arch::scoped_arch(arch a) : previous_(forced_arch.load(std::memory_order_acquire)) { force_arch(a); }

scoped_arch::~scoped_arch() {
    forced_arch.store(previous_, std::memory_order_release);
    current_table.store(previous_ >= 0 ? &table_for(static_cast<arch>(previous_)) : nullptr,
                        std::memory_order_release);
}

// ---- streaming threshold ----

std::size_t streaming_threshold() noexcept { return stream_threshold.load(std::memory_order_relaxed); }

void set_streaming_threshold(std::size_t bytes) noexcept {
    stream_threshold.store(bytes, std::memory_order_relaxed);
}

// ---- the span API ----

void mul(std::span<const std::complex<float>> a, std::span<const std::complex<float>> b,
         std::span<std::complex<float>> out, nan_policy policy) {
    mul_impl("mul", false, a, b, out, policy);
}
void mul(std::span<const std::complex<double>> a, std::span<const std::complex<double>> b,
         std::span<std::complex<double>> out, nan_policy policy) {
    mul_impl("mul", false, a, b, out, policy);
}
void mul_conj(std::span<const std::complex<float>> a, std::span<const std::complex<float>> b,
              std::span<std::complex<float>> out, nan_policy policy) {
    mul_impl("mul_conj", true, a, b, out, policy);
}
void mul_conj(std::span<const std::complex<double>> a, std::span<const std::complex<double>> b,
              std::span<std::complex<double>> out, nan_policy policy) {
    mul_impl("mul_conj", true, a, b, out, policy);
}
void mul_real(std::span<const std::complex<float>> a, std::span<const float> r, std::span<std::complex<float>> out) {
    mul_real_impl(a, r, out);
}
void mul_real(std::span<const std::complex<double>> a, std::span<const double> r,
              std::span<std::complex<double>> out) {
    mul_real_impl(a, r, out);
}
void mul_scalar(std::span<const std::complex<float>> a, std::complex<float> s, std::span<std::complex<float>> out,
                nan_policy policy) {
    mul_scalar_impl(a, s, out, policy);
}
void mul_scalar(std::span<const std::complex<double>> a, std::complex<double> s,
                std::span<std::complex<double>> out, nan_policy policy) {
    mul_scalar_impl(a, s, out, policy);
}
void mul_add(std::span<const std::complex<float>> a, std::span<const std::complex<float>> b,
             std::span<const std::complex<float>> c, std::span<std::complex<float>> out, nan_policy policy) {
    mul_add_impl(a, b, c, out, policy);
}
void mul_add(std::span<const std::complex<double>> a, std::span<const std::complex<double>> b,
             std::span<const std::complex<double>> c, std::span<std::complex<double>> out, nan_policy policy) {
    mul_add_impl(a, b, c, out, policy);
}
void mul_rows(std::span<const std::complex<float>> a, std::span<const std::complex<float>> row,
              std::span<std::complex<float>> out, nan_policy policy) {
    mul_rows_impl("mul_rows", a, row, 1, out, policy);
}
void mul_rows(std::span<const std::complex<double>> a, std::span<const std::complex<double>> row,
              std::span<std::complex<double>> out, nan_policy policy) {
    mul_rows_impl("mul_rows", a, row, 1, out, policy);
}
void mul_block_rows(std::span<const std::complex<float>> a, std::span<const std::complex<float>> rows,
                    std::size_t blocks, std::span<std::complex<float>> out, nan_policy policy) {
    mul_rows_impl("mul_block_rows", a, rows, blocks, out, policy);
}
void mul_block_rows(std::span<const std::complex<double>> a, std::span<const std::complex<double>> rows,
                    std::size_t blocks, std::span<std::complex<double>> out, nan_policy policy) {
    mul_rows_impl("mul_block_rows", a, rows, blocks, out, policy);
}

}  // namespace realify::simd
