// realify/graph/node.hpp: what the node types share at run time — the
// identity counter (every node gets a program-unique id when built; copies
// keep it, which is how shared subexpressions are recognised) and the
// reference-counted blocks holding a node's attributes and text, shared by
// its copies so that copying a graph copies no attributes.
#include "realify/graph/node.hpp"

#include <atomic>

namespace realify::graph::detail {

std::uint64_t next_node_id() noexcept {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

static_assert(std::atomic_ref<std::size_t>::required_alignment == alignof(std::size_t),
              "shared_block::references is counted through std::atomic_ref");

void retain(const shared_block* b) noexcept {
    std::atomic_ref<std::size_t>(b->references).fetch_add(1, std::memory_order_relaxed);
}

void release(const shared_block* b) noexcept {
    if (std::atomic_ref<std::size_t>(b->references).fetch_sub(1, std::memory_order_acq_rel) == 1) b->destroy(b);
}

namespace {
struct attrs_block : shared_block {
    node_attrs attrs;
    explicit attrs_block(node_attrs&& a) : attrs(std::move(a)) { destroy = &destroy_block; }
    static void destroy_block(const shared_block* b) noexcept { delete static_cast<const attrs_block*>(b); }
};

struct text_block : shared_block {
    std::string text;
    explicit text_block(std::string&& t) : text(std::move(t)) { destroy = &destroy_block; }
    static void destroy_block(const shared_block* b) noexcept { delete static_cast<const text_block*>(b); }
};

/// The attributes of every node without any, one block.
const shared_attrs& none() {
    static const shared_attrs attrs(node_attrs{});
    return attrs;
}
}  // namespace

shared_attrs::shared_attrs() : m_block(none().m_block) {}

shared_attrs::shared_attrs(node_attrs&& a) : m_block(new attrs_block(std::move(a))) {}

const node_attrs& shared_attrs::get() const noexcept { return static_cast<const attrs_block*>(m_block.get())->attrs; }

const node_attrs& no_attrs() noexcept {
    static const node_attrs none;  // no allocation: safe where nothing may throw
    return none;
}

shared_text::shared_text(std::string text) : m_block(new text_block(std::move(text))) {}

const std::string& shared_text::get() const noexcept { return static_cast<const text_block*>(m_block.get())->text; }

shared_attrs with_dims(dim_list d) {
    node_attrs a;
    a.dims = std::move(d);
    return a;
}

shared_attrs roll_attrs(dim_list shifts, const dim_list& dims) {
    node_attrs a;
    a.dims = std::move(shifts);
    a.i0 = static_cast<std::ptrdiff_t>(dims.size());
    a.dims.insert(a.dims.end(), dims.begin(), dims.end());
    return a;
}

shared_attrs with_ints(std::ptrdiff_t i0, std::ptrdiff_t i1, std::ptrdiff_t i2, std::ptrdiff_t i3) {
    node_attrs a;
    a.i0 = i0;
    a.i1 = i1;
    a.i2 = i2;
    a.i3 = i3;
    return a;
}

shared_attrs with_scalar(std::complex<double> s) {
    node_attrs a;
    a.scalar = s;
    a.has_scalar = true;
    return a;
}

}  // namespace realify::graph::detail
