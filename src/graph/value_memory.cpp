// realify/graph/value_memory.hpp: the cache of large values' memory.
//
// Blocks of at least kept_from bytes are rounded up to a multiple of 64 KiB
// and, when their last owner lets go, kept (up to kept_at_most bytes in all)
// instead of freed; a request takes a kept block of its rounded size if
// there is one. Programs repeat their sizes from call to call, so an exact
// size is what the next call asks for. Smaller blocks go to the allocator
// directly: its heap serves them from touched memory anyway.
//
// Under AddressSanitizer nothing is kept, so that a value read after its
// memory was let go is still reported.
#include "realify/graph/value_memory.hpp"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "realify/checked_size.hpp"

namespace realify::graph {
namespace {

#if defined(__SANITIZE_ADDRESS__)
#define REALIFY_KEEP_VALUE_MEMORY 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REALIFY_KEEP_VALUE_MEMORY 0
#endif
#endif
#ifndef REALIFY_KEEP_VALUE_MEMORY
#define REALIFY_KEEP_VALUE_MEMORY 1
#endif

constexpr std::size_t alignment = 64;
constexpr std::size_t kept_from = std::size_t{256} << 10;
constexpr std::size_t granule = std::size_t{64} << 10;
constexpr std::size_t kept_at_most = std::size_t{512} << 20;

void free_block(void* p) noexcept { ::operator delete(p, std::align_val_t{alignment}); }

class kept_blocks {
public:
    /// A kept block of exactly `bytes`, or nullptr.
    void* take(std::size_t bytes) {
        const std::lock_guard lock(m_mutex);
        const auto found = std::find_if(m_blocks.begin(), m_blocks.end(), [&](const block& b) { return b.bytes == bytes; });
        if (found == m_blocks.end()) return nullptr;
        void* p = found->data;
        m_total -= bytes;
        *found = m_blocks.back();
        m_blocks.pop_back();
        return p;
    }
    /// Keeps the block, or frees it when the cache is full.
    void give(void* p, std::size_t bytes) noexcept {
        {
            const std::lock_guard lock(m_mutex);
            if (REALIFY_KEEP_VALUE_MEMORY && m_total + bytes <= kept_at_most) {
                try {
                    m_blocks.push_back({p, bytes});
                    m_total += bytes;
                    return;
                } catch (const std::bad_alloc&) {  // no room for the books: freed below
                }
            }
        }
        free_block(p);
    }
    void release() noexcept {
        std::vector<block> blocks;
        {
            const std::lock_guard lock(m_mutex);
            blocks.swap(m_blocks);
            m_total = 0;
        }
        for (const block& b : blocks) free_block(b.data);
    }
    std::size_t total() noexcept {
        const std::lock_guard lock(m_mutex);
        return m_total;
    }

private:
    struct block {
        void* data;
        std::size_t bytes;
    };
    std::mutex m_mutex;
    std::vector<block> m_blocks;
    std::size_t m_total = 0;
};

// Never destroyed: values that outlive static destruction (a program's
// result held by another static) still give their block back.
kept_blocks& the_blocks() {
    static kept_blocks* blocks = new kept_blocks;
    return *blocks;
}

}  // namespace

void release_value_memory() noexcept { the_blocks().release(); }

std::size_t kept_value_memory() noexcept { return the_blocks().total(); }

namespace detail {

std::shared_ptr<void> value_memory(std::size_t bytes) {
    if (bytes > realify::detail::max_object_bytes - granule)
        realify::detail::throw_size_error("graph::program", "a value of " + std::to_string(bytes) + " bytes does not fit in memory");
    if (bytes < kept_from) {
        void* p = ::operator new(std::max<std::size_t>(bytes, 1), std::align_val_t{alignment});
        return std::shared_ptr<void>(p, free_block);
    }
    const std::size_t rounded = (bytes + granule - 1) / granule * granule;
    void* p = the_blocks().take(rounded);
    if (p == nullptr) p = ::operator new(rounded, std::align_val_t{alignment});
    // (should the owner's count find no memory, shared_ptr gives the block back itself)
    return std::shared_ptr<void>(p, [rounded](void* q) { the_blocks().give(q, rounded); });
}

}  // namespace detail
}  // namespace realify::graph
