// Which instruction set the realify::simd kernels run on, and how to force a
// lower one. The kernels of each x86-64 level live in the compiled
// realify_simd library (one translation unit per instruction set, each built
// with its own -m flags) — every level by default, or those the CMake option
// REALIFY_SIMD_ARCHS names (native: the building machine's best only); the
// best one the CPU supports is picked on first use.
// This header is cheap: it does not include xsimd.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "realify/version.hpp"

namespace realify::simd {

/// Instruction-set levels realify_simd carries kernels for, lowest first.
/// avx2 means AVX2 + FMA3; avx512 means AVX-512F (+ AVX2 + FMA3).
enum class arch : int { sse2 = 0, avx2 = 1, avx512 = 2 };

/// "sse2", "avx2" or "avx512".
constexpr std::string_view arch_name(arch a) noexcept {
    switch (a) {
        case arch::sse2: return "sse2";
        case arch::avx2: return "avx2";
        case arch::avx512: return "avx512";
    }
    return "unknown";
}

/// Inverse of arch_name; std::nullopt for anything else.
constexpr std::optional<arch> parse_arch(std::string_view name) noexcept {
    if (name == "sse2") return arch::sse2;
    if (name == "avx2") return arch::avx2;
    if (name == "avx512") return arch::avx512;
    return std::nullopt;
}

/// True when the kernels for `a` were compiled into realify_simd AND this CPU
/// (and OS) can run them.
bool is_supported(arch a) noexcept;

/// The best supported level, ignoring REALIFY_SIMD_ARCH and force_arch. If the
/// CPU supports none of the levels realify_simd was built with (a native build
/// moved to an older machine), the lowest level built, which is_supported()
/// denies: then active_arch_id(), and so every kernel call, throws
/// realify::error saying so.
arch best_supported_arch() noexcept;

/// The level forced for every kernel: force_arch() if set, else the
/// environment variable REALIFY_SIMD_ARCH=sse2|avx2|avx512 (read once, on
/// first use); when neither is, best_supported_arch() — the widest level the
/// run-time choice may use, which a family may leave for a narrower one
/// (active_arch_id(kernel_family)). Throws realify::error if
/// REALIFY_SIMD_ARCH names an unknown or unsupported level, or if no level
/// built runs on this CPU.
arch active_arch_id();

/// arch_name(active_arch_id()), e.g. "avx2".
std::string_view active_arch();

/// The families of compiled kernels. Unless a level is forced, realify
/// chooses one per family: the widest the CPU supports; RoPE and the
/// multiply family, whose AVX2 and AVX-512 kernels give the same bits, take
/// whichever of the two runs their calls faster on this CPU, timed on their
/// first calls (preferred_arch, docs/simd.md).
enum class kernel_family : int {
    elementwise = 0,  ///< the elementwise kernels (realify/simd/elementwise.hpp), the eager ops and graph loops, and the row kernels of softmax and the norms
    multiply = 1,     ///< the multiply family (realify/simd/complex_mul.hpp)
    rope = 2,         ///< RoPE (realify/rope)
    gemm = 3,         ///< the matrix products (realify/simd/gemm.hpp)
};
inline constexpr kernel_family kernel_families[] = {kernel_family::elementwise, kernel_family::multiply,
                                                    kernel_family::rope, kernel_family::gemm};

/// "elementwise", "multiply", "rope", "gemm".
constexpr std::string_view family_name(kernel_family f) noexcept {
    switch (f) {
        case kernel_family::elementwise: return "elementwise";
        case kernel_family::multiply: return "multiply";
        case kernel_family::rope: return "rope";
        case kernel_family::gemm: return "gemm";
    }
    return "unknown";
}

/// The level a call of family `f` that reads and writes `bytes` runs on when
/// nothing is forced: best_supported_arch(); for RoPE and the multiply
/// family on a CPU with AVX-512, the faster of AVX-512 and AVX2 for calls of
/// that size class — in cache (at most 1 MiB) or from memory — once the
/// class's first calls have measured both, AVX-512 until then. A result never
/// depends on which: the two give the same bits.
arch preferred_arch(kernel_family f, std::size_t bytes) noexcept;

/// preferred_arch(f, bytes) for large calls (from memory).
arch preferred_arch(kernel_family f) noexcept;

/// The level family `f` runs on now: the forced level (force_arch,
/// scoped_arch, REALIFY_SIMD_ARCH) if any, else preferred_arch(f). Throws as
/// active_arch_id().
arch active_arch_id(kernel_family f);

/// arch_name(active_arch_id(f)).
std::string_view active_arch(kernel_family f);

/// Forces every later kernel call (all threads, every family) onto `a`; inside a live
/// scoped_arch it changes that scope's level (undone when the scope ends).
/// Throws realify::error if `a` is not supported here — forcing a level the
/// CPU lacks is refused rather than left to crash with an illegal instruction.
void force_arch(arch a);

/// Undoes force_arch(): back to REALIFY_SIMD_ARCH or the best level (inside a
/// live scoped_arch: for the rest of that scope).
void reset_arch() noexcept;

/// RAII forcing for tests: every kernel call (all threads) runs on `a` while
/// the scope lives. Scopes may nest and may overlap across threads: the
/// newest live scope's level is in force, and once all have ended the
/// forcing is what it was before the first (a scope that ends removes only
/// itself, so overlapping scopes never leak a level). Thread-safe.
class scoped_arch {
public:
    explicit scoped_arch(arch a);
    ~scoped_arch();
    scoped_arch(const scoped_arch&) = delete;
    scoped_arch& operator=(const scoped_arch&) = delete;

private:
    unsigned long long token_;  // identifies this scope among the live ones
};

}  // namespace realify::simd
