// The memory of the values a program computes, kept from one call to the
// next. A decoder layer's prefill makes some 40 MB of intermediates per call;
// whether glibc's malloc serves them from memory the process already touched
// or from fresh pages depends on its history (its mmap threshold moves with
// the sizes freed so far), and a fresh page costs a fault, 10–20 µs, on every
// call: the same layer took 150 ms in one process and 280 ms in the next.
// Large values' memory is therefore kept for the next call (a bounded cache,
// by size), so a program called again touches no fresh page.
#pragma once

#include <cstddef>
#include <memory>

#include "realify/version.hpp"

namespace realify::graph {

/// Frees the memory kept for the values of later calls (it is also reused
/// by any program, and bounded: docs/graph.md, "Evaluation").
void release_value_memory() noexcept;

/// The bytes kept now for later calls.
std::size_t kept_value_memory() noexcept;

namespace detail {

/// `bytes` of uninitialised memory, 64-byte aligned: a kept block of the
/// same (rounded) size when there is one, else fresh; kept again or freed
/// when its last owner lets go.
std::shared_ptr<void> value_memory(std::size_t bytes);

}  // namespace detail
}  // namespace realify::graph
