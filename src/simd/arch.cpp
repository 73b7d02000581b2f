// The choice of instruction set (realify/simd/arch.hpp: run-time CPU
// detection, REALIFY_SIMD_ARCH, force_arch, scoped_arch), the active kernel
// table every compiled entry point calls through, and the other process-wide
// setting of the kernels, the streaming-store threshold
// (realify/simd/streaming.hpp). Compiled for the baseline ISA only.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <iterator>
#include <limits>
#include <cstdlib>
#include <ctime>
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
            of(kernel_family::elementwise).reductions, of(kernel_family::elementwise).attention};
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

// ---- the families measured at run time (docs/simd.md, "Choosing the level at run time") ----
//
// RoPE and the multiply family give the same bits at AVX2 and at AVX-512 —
// the same fused multiply-adds, lane for lane (tests/threads checks it) — so
// which of the two runs a call cannot change a result, and each takes the one
// that runs its calls faster on this CPU: the first calls of each size class
// (in cache, from memory) alternate between the two levels and are timed;
// once each level has `trial_samples` of them, the faster is kept for the rest
// of the process (AVX2 only when at least 3 % faster: a tie keeps the wider).
// The fastest sample of each level counts, in time per byte: a call that was
// interrupted, or paid page faults, only ever looks slower. A sample from
// memory runs on the calling thread alone, timed by its CPU time (`now`). The other families
// differ in the last bits between levels (xsimd's transcendental functions,
// Eigen's register tiles), so their level is fixed before their first call:
// the best supported.

constexpr bool measured(kernel_family f) noexcept {
    return f == kernel_family::rope || f == kernel_family::multiply;
}
/// Calls touching at most this many bytes are "in cache" (about a core's L2),
/// larger ones "from memory": a size class is measured on its own calls.
constexpr std::size_t in_cache_bytes = std::size_t{1} << 20;
/// Calls this small are too short to time: they take their class's level
/// once measured, the wider level before.
constexpr std::size_t smallest_timed_bytes = std::size_t{4} << 10;
constexpr int trial_samples = 4;

/// The trial of one family and size class. Candidate 0 is AVX-512, 1 AVX2.
struct trial {
    std::atomic<int> decided{-1};  // the level kept, once measured
    std::mutex mutex;
    int handed[2] = {0, 0};    // samples handed out
    int recorded[2] = {0, 0};  // samples timed
    double fastest[2] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};  // ns per byte

    void reset() noexcept {
        const std::lock_guard lock(mutex);
        decided.store(-1, std::memory_order_relaxed);
        handed[0] = handed[1] = recorded[0] = recorded[1] = 0;
        fastest[0] = fastest[1] = std::numeric_limits<double>::infinity();
    }
};
trial& trial_of(kernel_family f, bool from_memory) noexcept {
    static trial trials[std::size(kernel_families)][2];
    return trials[static_cast<std::size_t>(f)][from_memory ? 1 : 0];
}
bool from_memory(std::size_t bytes) noexcept { return bytes > in_cache_bytes; }

/// Whether this machine can try both candidates (AVX-512 is the best level, AVX2 runs).
bool two_candidates() noexcept {
    static const bool both = best_supported_arch() == arch::avx512 && is_supported(arch::avx2);
    return both;
}
constexpr arch candidate_level(int c) noexcept { return c == 0 ? arch::avx512 : arch::avx2; }

/// The clock of a sample, in ns. A call from memory (tens of microseconds
/// and more) is timed by the CPU time of its thread — it runs on the calling
/// thread alone — so that time the scheduler gave to other programs never
/// counts (on a machine whose cores are shared, wall times of both levels
/// were often interrupted); a call in cache, too short for that clock (a
/// system call), by the wall clock.
std::int64_t now(bool cpu_time) noexcept {
    if (cpu_time) {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
    }
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

namespace detail {

arch faster_level(double avx512_ns_per_byte, double avx2_ns_per_byte) noexcept {
    return avx2_ns_per_byte <= 0.97 * avx512_ns_per_byte ? arch::avx2 : arch::avx512;
}

void reset_level_trials_for_tests() noexcept {
    for (kernel_family f : kernel_families) {
        trial_of(f, false).reset();
        trial_of(f, true).reset();
    }
}

int level_trial_samples_for_tests(kernel_family f, bool large) noexcept {
    trial& t = trial_of(f, large);
    const std::lock_guard lock(t.mutex);
    return t.recorded[0] + t.recorded[1];
}

}  // namespace detail

namespace {
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

arch preferred_arch(kernel_family f, std::size_t bytes) noexcept {
    static const arch best = best_supported_arch();
    if (!measured(f) || !two_candidates()) return best;
    const int decided = trial_of(f, from_memory(bytes)).decided.load(std::memory_order_acquire);
    return decided >= 0 ? static_cast<arch>(decided) : best;
}

arch preferred_arch(kernel_family f) noexcept { return preferred_arch(f, SIZE_MAX); }

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

timed_level::timed_level(kernel_family f, std::size_t bytes)
    : m_family(f), m_bytes(bytes), m_exceptions(std::uncaught_exceptions()) {
    if (const std::optional<arch> forced = forced_level()) {
        m_table = &table_for(*forced);
        return;
    }
    const arch best = runnable_best();
    if (!measured(f) || !two_candidates()) {
        m_table = &preferred_table();
        return;
    }
    trial& t = trial_of(f, from_memory(bytes));
    if (const int decided = t.decided.load(std::memory_order_acquire); decided >= 0) {
        m_table = &table_for(static_cast<arch>(decided));
        return;
    }
    m_table = &table_for(best);
    if (bytes < smallest_timed_bytes) return;
    {
        const std::lock_guard lock(t.mutex);
        // the level with fewer samples handed out (AVX-512 first), while any is wanted
        const int c = t.handed[1] < t.handed[0] ? 1 : 0;
        if (t.decided.load(std::memory_order_relaxed) >= 0 || t.handed[c] >= trial_samples) return;
        ++t.handed[c];
        m_candidate = c;
    }
    m_table = &table_for(candidate_level(m_candidate));
    m_start = now(from_memory(bytes));
}

timed_level::~timed_level() {
    if (m_candidate < 0) return;
    const auto ns = static_cast<double>(now(from_memory(m_bytes)) - m_start);
    trial& t = trial_of(m_family, from_memory(m_bytes));
    const std::lock_guard lock(t.mutex);
    if (std::uncaught_exceptions() > m_exceptions) {  // the call threw: not a sample, hand it out again
        --t.handed[m_candidate];
        return;
    }
    t.fastest[m_candidate] = std::min(t.fastest[m_candidate], ns / static_cast<double>(m_bytes));
    if (++t.recorded[m_candidate] == trial_samples && t.recorded[1 - m_candidate] == trial_samples)
        t.decided.store(static_cast<int>(faster_level(t.fastest[0], t.fastest[1])), std::memory_order_release);
}
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
