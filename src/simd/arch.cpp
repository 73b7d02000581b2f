// The choice of instruction set (realify/simd/arch.hpp: run-time CPU
// detection, REALIFY_SIMD_ARCH, force_arch, scoped_arch), the active kernel
// table every compiled entry point calls through, and the other process-wide
// setting of the kernels, the streaming-store threshold
// (realify/simd/streaming.hpp). Compiled for the baseline ISA only.
#include <cpuid.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernel_table.hpp"
#include "realify/errors.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/streaming.hpp"

namespace realify::simd {
namespace {

// The levels realify_simd carries kernel tables for (REALIFY_SIMD_ARCHS in
// CMake: all of them, the building machine's best, or a list): any non-empty
// subset, the baseline included or not.
constexpr bool compiled_in(arch a) noexcept {
    switch (a) {
        case arch::sse2:
#ifdef REALIFY_SIMD_HAVE_SSE2
            return true;
#else
            return false;
#endif
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

constexpr arch all_levels[] = {arch::sse2, arch::avx2, arch::avx512};

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

/// The levels for which `keep` holds, comma-separated.
template <class Keep>
std::string level_list(Keep keep) {
    std::string names;
    for (arch a : all_levels) {
        if (!keep(a)) continue;
        if (!names.empty()) names += ", ";
        names += arch_name(a);
    }
    return names.empty() ? "none" : names;
}

std::string supported_list() { return level_list([](arch a) { return is_supported(a); }); }

/// Why `a` cannot run here: not built into realify_simd, or not on this CPU.
std::string unsupported(arch a) {
    if (!compiled_in(a))
        return std::string(arch_name(a)) + " is not built into realify_simd (built: " +
               level_list(compiled_in) + "; see the CMake option REALIFY_SIMD_ARCHS)";
    return std::string(arch_name(a)) + " is not supported on this machine (supported: " + supported_list() + ")";
}

// REALIFY_SIMD_ARCH if set (it forces every family), else nullopt; read once.
std::optional<arch> environment_arch() {
    static const std::optional<arch> chosen = []() -> std::optional<arch> {
        const char* value = std::getenv("REALIFY_SIMD_ARCH");
        if (value == nullptr || *value == '\0') return std::nullopt;
        const auto parsed = parse_arch(value);
        if (!parsed)
            throw error(std::string("realify::simd: REALIFY_SIMD_ARCH=") + value +
                        " is not one of sse2, avx2, avx512");
        if (!is_supported(*parsed))
            throw error(std::string("realify::simd: REALIFY_SIMD_ARCH=") + value + ": " + unsupported(*parsed));
        return *parsed;
    }();
    return chosen;
}

// Which level is forced, as ONE atomic word (-1: none). Every kernel call
// reads it once and derives the table from that value (table_for is a switch
// over three static tables), so what a call runs and what active_arch()
// reports can never disagree. (A second atomic caching the table pointer,
// filled by a compare-exchange after reading the level, could be published
// after a concurrent reset_arch and pin the old level while active_arch()
// reported the new one.)
std::atomic<int> forced_arch{-1};
std::atomic<std::size_t> stream_threshold{default_streaming_threshold};

// The writers (force_arch, reset_arch, scoped_arch) serialise on a mutex and
// keep the live scopes in a list: the forced level is the newest live
// scope's, else the one force_arch/reset_arch set outside any scope. A scope
// ending removes exactly its own entry, so scopes that overlap without
// nesting (two threads) restore what was forced before the first of them —
// never the level of a scope that has already ended.
struct forcing {
    std::mutex mutex;
    int outside = -1;  // force_arch/reset_arch with no live scope
    std::vector<std::pair<unsigned long long, int>> scopes;  // (token, level), oldest first
    unsigned long long next_token = 1;

    void publish() noexcept { forced_arch.store(scopes.empty() ? outside : scopes.back().second, std::memory_order_release); }
    /// force_arch/reset_arch: the innermost live scope's level, or the outside one.
    void set(int level) noexcept {
        const std::lock_guard lock(mutex);
        (scopes.empty() ? outside : scopes.back().second) = level;
        publish();
    }
};
forcing& writers() {
    static forcing state;
    return state;
}

/// The table of a compiled level (every caller has checked is_supported).
const detail::kernel_table& table_for(arch a) noexcept {
    switch (a) {
#ifdef REALIFY_SIMD_HAVE_AVX512
        case arch::avx512: return detail::avx512_kernels();
#endif
#ifdef REALIFY_SIMD_HAVE_AVX2
        case arch::avx2: return detail::avx2_kernels();
#endif
#ifdef REALIFY_SIMD_HAVE_SSE2
        case arch::sse2: return detail::sse2_kernels();
#endif
        default: break;
    }
    // not reached: the lowest level built
#ifdef REALIFY_SIMD_HAVE_SSE2
    return detail::sse2_kernels();
#elif defined(REALIFY_SIMD_HAVE_AVX2)
    return detail::avx2_kernels();
#else
    return detail::avx512_kernels();
#endif
}

// The table when no level is forced: each family's kernels from the table of
// its preferred level.
template <class T>
detail::kernel_set<T> preferred_set() noexcept {
    auto of = [](kernel_family f) -> const detail::kernel_set<T>& { return table_for(preferred_arch(f)).of<T>(); };
    return {of(kernel_family::multiply).multiply, of(kernel_family::rope).rope,
            of(kernel_family::elementwise).elementwise, of(kernel_family::elementwise).rows,
            of(kernel_family::elementwise).attention};
}

// best_supported_arch() when it runs here; else (a native build moved to an
// older CPU) the error every kernel call gives instead of an illegal
// instruction.
arch runnable_best() {
    static const std::optional<arch> best = []() -> std::optional<arch> {
        const arch b = best_supported_arch();
        return is_supported(b) ? std::optional<arch>(b) : std::nullopt;
    }();
    if (!best)
        throw error("realify::simd: this CPU supports none of the instruction sets realify_simd was built for (" +
                    level_list(compiled_in) +
                    "); build realify with the CMake option REALIFY_SIMD_ARCHS=all (or native on this machine)");
    return *best;
}

// Built on first use where a level runs here; elsewhere every use throws
// runnable_best's error (a throwing initialiser runs again on the next use),
// so a kernel call pays no check of its own.
const detail::kernel_table& preferred_table() {
    static const detail::kernel_table table = [] {
        runnable_best();
        return detail::kernel_table{preferred_set<float>(), preferred_set<double>()};
    }();
    return table;
}

// The level forced now, if any: force_arch/scoped_arch, else REALIFY_SIMD_ARCH.
std::optional<arch> forced_level() {
    const int forced = forced_arch.load(std::memory_order_acquire);
    if (forced >= 0) return static_cast<arch>(forced);
    return environment_arch();
}

// ---- the per-family rule (docs/simd.md, "Choosing the level at run time") ----

// AMD family 19h with AVX-512 is Zen 4, whose vector units are 256 bits wide:
// a 512-bit instruction runs as two halves. (Zen 3, also family 19h, has no
// AVX-512; Zen 5 is family 1Ah.)
bool is_zen4() noexcept {
    if (!__builtin_cpu_is("amd") || !__builtin_cpu_supports("avx512f")) return false;
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
    const unsigned base = (eax >> 8) & 0xf, extended = (eax >> 20) & 0xff;
    return (base == 0xf ? base + extended : base) == 0x19;
}

}  // namespace

// ---- architecture selection ----

bool is_supported(arch a) noexcept { return compiled_in(a) && cpu_has(a); }

arch best_supported_arch() noexcept {
    for (arch a : {arch::avx512, arch::avx2, arch::sse2})
        if (is_supported(a)) return a;
    for (arch a : all_levels)  // none runs here: the lowest built (active_arch_id() throws)
        if (compiled_in(a)) return a;
    return arch::sse2;
}

arch preferred_arch(kernel_family f) noexcept {
    static const arch best = best_supported_arch();
    // Zen 4: the AVX-512 RoPE kernel measured 1.31-1.53x memcpy's time out of
    // place and 1.17-1.41x in place at Llama-3-8B prefill, the AVX2 one 1.00x
    // and 0.84x (docs/simd.md).
    static const bool zen4 = is_zen4();
    if (f == kernel_family::rope && best == arch::avx512 && zen4 && is_supported(arch::avx2)) return arch::avx2;
    return best;
}

arch active_arch_id() {
    const std::optional<arch> forced = forced_level();
    return forced ? *forced : runnable_best();
}

arch active_arch_id(kernel_family f) {
    const std::optional<arch> forced = forced_level();
    if (forced) return *forced;
    runnable_best();
    return preferred_arch(f);
}

namespace detail {
const kernel_table& active_table() {
    const std::optional<arch> forced = forced_level();
    return forced ? table_for(*forced) : preferred_table();
}
bool level_forced() { return forced_level().has_value(); }
}  // namespace detail

std::string_view active_arch() { return arch_name(active_arch_id()); }

std::string_view active_arch(kernel_family f) { return arch_name(active_arch_id(f)); }

void force_arch(arch a) {
    if (!is_supported(a)) throw error("realify::simd::force_arch: " + unsupported(a));
    writers().set(static_cast<int>(a));
}

void reset_arch() noexcept { writers().set(-1); }

scoped_arch::scoped_arch(arch a) {
    if (!is_supported(a)) throw error("realify::simd::scoped_arch: " + unsupported(a));
    forcing& state = writers();
    const std::lock_guard lock(state.mutex);
    token_ = state.next_token++;
    state.scopes.emplace_back(token_, static_cast<int>(a));
    state.publish();
}

scoped_arch::~scoped_arch() {
    forcing& state = writers();
    const std::lock_guard lock(state.mutex);
    std::erase_if(state.scopes, [this](const auto& scope) { return scope.first == token_; });
    state.publish();
}

// ---- streaming threshold ----

std::size_t streaming_threshold() noexcept { return stream_threshold.load(std::memory_order_relaxed); }

void set_streaming_threshold(std::size_t bytes) noexcept {
    stream_threshold.store(bytes, std::memory_order_relaxed);
}

}  // namespace realify::simd
