// Counts the large allocations (≥ 64 KiB: tensors, not bookkeeping) made
// through operator new, for the tests that a call allocates no temporary.
// It REPLACES the global operator new/delete, so include it in exactly one
// translation unit of a test executable.
//
// The replacement pair is malloc/free on both sides; GCC's heuristic cannot
// see that once it inlines them, hence the pragma. The nothrow forms are
// replaced too (std::stable_sort's temporary buffer), and the aligned ones:
// every block that the deletes below free must come from malloc or
// aligned_alloc (AddressSanitizer checks it).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace realify_test {
inline std::atomic<std::size_t> large_allocations{0};
inline constexpr std::size_t large_block = 64 * 1024;
}  // namespace realify_test

void* operator new(std::size_t size) {
    if (size >= realify_test::large_block) realify_test::large_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return std::malloc(size == 0 ? 1 : size); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
// the aligned forms (realify's kept value memory, graph/value_memory.hpp): counted alike
void* operator new(std::size_t size, std::align_val_t align) {
    if (size >= realify_test::large_block) realify_test::large_allocations.fetch_add(1, std::memory_order_relaxed);
    const auto a = static_cast<std::size_t>(align);
    if (void* p = std::aligned_alloc(a, (std::max<std::size_t>(size, 1) + a - 1) / a * a)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
