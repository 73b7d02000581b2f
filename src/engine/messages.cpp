// The messages the headers' checks report, formatted and thrown once here
// rather than in every unit that can report a shape (realify/errors.hpp,
// realify/checked_size.hpp, realify/engine/tensor_ref.hpp,
// realify/layout/view_as_complex.hpp).
#include <cstddef>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include "realify/checked_size.hpp"
#include "realify/engine/tensor_ref.hpp"
#include "realify/errors.hpp"
#include "realify/layout/view_as_complex.hpp"

namespace realify {

namespace detail {

[[noreturn]] void throw_size_error(std::string_view op, const std::string& what) {
    std::string message = "realify::";
    message.append(op).append(": ").append(what);
    throw shape_error(message);
}

void append_integer(std::string& list, long long value) {
    if (list.size() > 1) list += ", ";
    list += std::to_string(value);
}

namespace {

/// Why a real layout cannot be viewed as complex, or an empty string if it can.
std::string complex_view_obstacle(std::span<const std::size_t> shape, std::span<const std::ptrdiff_t> strides,
                                  std::size_t offset) {
    const std::size_t rank = shape.size();
    if (rank == 0) return "it has rank 0 (a complex view needs a trailing axis of extent 2)";
    if (shape[rank - 1] != 2) return "its last dimension is " + std::to_string(shape[rank - 1]) + ", not 2";
    // xtensor reports stride 0 for an axis of extent 1 or when broadcasting; a
    // trailing extent of 2 with stride 0 would alias re and im.
    if (strides[rank - 1] != 1) return "the stride of its last dimension is " + std::to_string(strides[rank - 1]) + ", not 1";
    for (std::size_t axis = 0; axis + 1 < rank; ++axis) {
        if (strides[axis] % 2 != 0) {
            return "the stride of dimension " + std::to_string(axis) + " is " + std::to_string(strides[axis]) +
                   ", which is odd";
        }
    }
    if (offset % 2 != 0) return "it starts at offset " + std::to_string(offset) + " in its storage, which is odd (misaligned start)";
    return {};
}

}  // namespace

void check_complex_viewable(const char* where, std::span<const std::size_t> shape,
                            std::span<const std::ptrdiff_t> strides, std::size_t offset) {
    const std::string obstacle = complex_view_obstacle(shape, strides, offset);
    if (obstacle.empty()) return;
    std::ostringstream message;
    message << where << ": cannot view a real tensor of shape " << format_sequence(shape) << " with strides "
            << format_sequence(strides) << " and offset " << offset << " as complex: " << obstacle;
    throw layout_error(message.str());
}

[[noreturn]] void throw_not_complex_layout(std::span<const std::size_t> real_shape) {
    throw layout_error(
        "realify::complex_layout: a complex layout needs a trailing axis of extent 2 ([real, imag]); got a real "
        "expression of shape " +
        format_sequence(real_shape));
}

}  // namespace detail

namespace engine {

[[noreturn]] void throw_shape_error(std::string_view op, const std::string& what) {
    throw shape_error("realify::" + std::string(op) + ": " + what);
}
[[noreturn]] void throw_layout_error(std::string_view op, const std::string& what) {
    throw layout_error("realify::" + std::string(op) + ": " + what);
}

tensor_ref output_pairs(std::string_view op, const tensor_ref& memory) {
    if (auto r = pairs_as_complex(memory)) return *r;
    const std::ptrdiff_t stride = memory.rank() == 0 ? 0 : memory.strides[memory.rank() - 1];
    throw_layout_error(op, "out's [re, im] axis is not contiguous (stride " + std::to_string(stride) + ")");
}

[[noreturn]] void throw_rank_error(std::string_view op) {
    throw_shape_error(op, "tensors of more than " + std::to_string(max_rank) + " dimensions are not supported");
}

}  // namespace engine

}  // namespace realify
