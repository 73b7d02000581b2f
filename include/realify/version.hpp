// realify — version of the library. CMake reads these three macros to stamp the
// package version file, so they are the single source of truth.
#pragma once

#define REALIFY_VERSION_MAJOR 0
#define REALIFY_VERSION_MINOR 1
#define REALIFY_VERSION_PATCH 0

#define REALIFY_VERSION \
    (REALIFY_VERSION_MAJOR * 10000 + REALIFY_VERSION_MINOR * 100 + REALIFY_VERSION_PATCH)

namespace realify {
inline constexpr int version_major = REALIFY_VERSION_MAJOR;
inline constexpr int version_minor = REALIFY_VERSION_MINOR;
inline constexpr int version_patch = REALIFY_VERSION_PATCH;
}  // namespace realify
