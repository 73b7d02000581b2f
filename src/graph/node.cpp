#include "realify/graph/node.hpp"

namespace realify::graph::detail {

block_ptr share_attrs(node_attrs&& a) {
    auto* block = new attrs_block;
    block->attrs = std::move(a);
    block->destroy = [](const shared_block* b) noexcept { delete static_cast<const attrs_block*>(b); };
    return block_ptr(block);
}

const node_attrs& no_attrs() noexcept {
    static const node_attrs none;
    return none;
}

}  // namespace realify::graph::detail
