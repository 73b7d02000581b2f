// The instruction-set axis of the benchmarks: a realify case runs on what the
// level chosen at run time (its plain name) and on every level this machine supports,
// forced for every kernel family through realify::simd::scoped_arch (the name
// with the suffix "@sse2", "@avx2", "@avx512"). The JSON context records the
// level chosen at run time per family (realify_arch_<family>) and the levels
// supported (realify_archs), for the report tools in tools/.
#pragma once

#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <vector>

#include "realify/simd/arch.hpp"

namespace realify_bench {

/// One column of the axis: the level chosen at run time (no level) or a forced level.
struct isa {
    std::optional<realify::simd::arch> level;
    std::string suffix;  ///< "" or "@<level>"
};

/// The level chosen at run time, then every supported level, lowest first.
inline std::vector<isa> isas() {
    std::vector<isa> result{{std::nullopt, ""}};
    for (auto level : {realify::simd::arch::sse2, realify::simd::arch::avx2, realify::simd::arch::avx512}) {
        if (!realify::simd::is_supported(level)) continue;
        std::string suffix = "@";  // appended, not "@" + name: GCC 12's -Wrestrict misfires on that
        suffix.append(realify::simd::arch_name(level));
        result.push_back({level, suffix});
    }
    return result;
}

/// Forces realify's kernels onto `level` for the life of a benchmark, when given.
struct arch_scope {
    std::optional<realify::simd::scoped_arch> scope;
    explicit arch_scope(std::optional<realify::simd::arch> level) {
        if (level) scope.emplace(*level);
    }
};

/// Records the level chosen at run time per family and the supported levels.
inline void record_levels() {
    std::string supported;
    for (const isa& column : isas()) {
        if (!column.level) continue;
        if (!supported.empty()) supported += ',';
        supported.append(realify::simd::arch_name(*column.level));
    }
    benchmark::AddCustomContext("realify_archs", supported);
    for (auto family : realify::simd::kernel_families) {
        std::string key = "realify_arch_";
        key.append(realify::simd::family_name(family));
        benchmark::AddCustomContext(key, std::string(realify::simd::active_arch(family)));
    }
}

}  // namespace realify_bench
