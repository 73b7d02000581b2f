#include "realify/graph/node.hpp"

namespace realify::graph::detail {

namespace {
struct attrs_block : shared_block {
    node_attrs attrs;
    explicit attrs_block(node_attrs&& a) : attrs(std::move(a)) { destroy = &destroy_block; }
    static void destroy_block(const shared_block* b) noexcept { delete static_cast<const attrs_block*>(b); }
};
}  // namespace

shared_attrs::shared_attrs(node_attrs&& a) : m_block(new attrs_block(std::move(a))) {}

const node_attrs& shared_attrs::get() const noexcept { return static_cast<const attrs_block*>(m_block.get())->attrs; }

const node_attrs& no_attrs() noexcept {
    static const node_attrs none;
    return none;
}

}  // namespace realify::graph::detail
