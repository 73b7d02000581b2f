// When the realify::simd kernels (and the RoPE kernels) switch from ordinary
// stores to streaming (non-temporal) stores. Streaming stores bypass the
// cache: they save the read-for-ownership of the output when the data a call
// touches does not fit in the last-level cache anyway, and cost 2-4x when it
// would have (the next reader misses). So the threshold is on the bytes a call
// touches — its inputs plus its output — not on the output alone (glibc's
// memcpy decides the same way). See docs/simd.md for the measurement behind
// the default. They are never used when the output aliases an input: the
// input's lines are already in cache, so nothing is saved.
#pragma once

#include <cstddef>

#include "realify/version.hpp"

namespace realify::simd {

/// Bytes touched by one call (inputs read + output written) from which kernels
/// use streaming stores (default: default_streaming_threshold). Process-wide;
/// thread-safe.
std::size_t streaming_threshold() noexcept;

/// Sets the threshold (0 = always stream when allowed; SIZE_MAX = never).
/// Meant for tests and tuning.
void set_streaming_threshold(std::size_t bytes) noexcept;

/// The measured default: 24 MiB touched (a 1 M complex<float> multiply: two
/// inputs and the output of 8 MiB each), see docs/simd.md.
inline constexpr std::size_t default_streaming_threshold = std::size_t{24} << 20;

}  // namespace realify::simd
