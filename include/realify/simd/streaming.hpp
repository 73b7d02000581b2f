// When the realify::simd kernels switch from ordinary stores to streaming
// (non-temporal) stores. Streaming stores bypass the cache: they save the
// read-for-ownership of the output when it does not fit in cache anyway, and
// cost 2-4x when it would have (see docs/simd.md for the measurement behind
// the default). They are never used when the output aliases an input: the
// input's lines are already in cache, so nothing is saved.
#pragma once

#include <cstddef>

namespace realify::simd {

/// Output size in bytes from which kernels use streaming stores (default:
/// default_streaming_threshold). Process-wide; thread-safe.
std::size_t streaming_threshold() noexcept;

/// Sets the threshold (0 = always stream when allowed; SIZE_MAX = never).
/// Meant for tests and tuning.
void set_streaming_threshold(std::size_t bytes) noexcept;

/// The measured default (bytes of output): 8 MiB, see docs/simd.md.
inline constexpr std::size_t default_streaming_threshold = std::size_t{8} << 20;

}  // namespace realify::simd
