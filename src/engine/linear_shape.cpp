// realify/engine/linear.hpp's shape rule and checks, in realify_simd: the
// graph knows a linear node's shape before evaluating it without linking the
// GEMM (src/gemm/linear.cpp computes the product).
#include <string>

#include "realify/engine/linear.hpp"
#include "realify/errors.hpp"

namespace realify::engine {

namespace {

std::string shapes_of(const tensor_ref& x, const tensor_ref& w, const tensor_ref* b) {
    std::string s = "x " + realify::detail::format_sequence(x.shape) + ", w " + realify::detail::format_sequence(w.shape);
    if (b != nullptr) s += ", b " + realify::detail::format_sequence(b->shape);
    return s;
}

}  // namespace

dims linear_shape(std::string_view op, const tensor_ref& x, const tensor_ref& w, const tensor_ref* b) {
    const bool complex = x.complex;
    auto bad_type = [&] {
        throw error("realify::" + std::string(op) + ": x, w and b must be float or double tensors of one type, all real "
                                                   "or all complex");
    };
    if (!is_floating(x.type) || w.type != x.type || w.complex != complex) bad_type();
    if (b != nullptr && (b->type != x.type || b->complex != complex)) bad_type();
    if (x.rank() < 1 || w.rank() != 2)
        throw_shape_error(op, "x must be (…, in_features) and w (out_features, in_features) (" + shapes_of(x, w, b) + ")");
    if (w.shape[1] != x.shape[x.rank() - 1])
        throw_shape_error(op, "x's last dim and w's dim 1 (in_features) differ (" + shapes_of(x, w, b) + ")");
    if (b != nullptr && (b->rank() != 1 || b->shape[0] != w.shape[0]))
        throw_shape_error(op, "b must be (out_features) (" + shapes_of(x, w, b) + ")");
    dims result = x.shape;
    result.extent[result.rank - 1] = w.shape[0];
    return result;
}

}  // namespace realify::engine
