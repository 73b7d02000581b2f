// realify/engine/construction.hpp: arange's length rule and values, and the
// triangles of triu / tril (each row of each matrix: the part kept copied,
// the rest zeroed, through any strides).
#include "realify/engine/construction.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include "realify/errors.hpp"
#include "tensor_checks.hpp"
#include "walk.hpp"

namespace realify::engine {

namespace {

std::string bounds(double start, double end, double step) {
    std::ostringstream s;
    s << " (start " << start << ", end " << end << ", step " << step << ")";
    return s.str();
}

template <class T>
void fill_arange(const tensor_ref& out, double start, double step, bool integral) {
    T* data = static_cast<T*>(out.data);
    const std::ptrdiff_t stride = out.strides[0];
    const std::size_t n = out.shape[0];
    if (integral) {
        const auto first = static_cast<std::int64_t>(start), by = static_cast<std::int64_t>(step);
        for (std::size_t i = 0; i < n; ++i)
            data[static_cast<std::ptrdiff_t>(i) * stride] = static_cast<T>(first + static_cast<std::int64_t>(i) * by);
    } else {
        for (std::size_t i = 0; i < n; ++i)
            data[static_cast<std::ptrdiff_t>(i) * stride] = static_cast<T>(start + static_cast<double>(i) * step);
    }
}

}  // namespace

std::size_t arange_length(std::string_view op, double start, double end, double step, bool integral) {
    auto fail = [&](const char* what) { throw error("realify::" + std::string(op) + ": " + what + bounds(start, end, step)); };
    if (!std::isfinite(start) || !std::isfinite(end)) fail("unsupported range: the bounds must be finite");
    if (step == 0 || std::isnan(step)) fail("step must be nonzero");
    if ((step > 0 && end < start) || (step < 0 && end > start)) fail("upper bound and larger bound inconsistent with step sign");
    double size;
    if (integral) {  // PyTorch's int64 rule: exact, no rounding of the quotient
        const auto s = static_cast<std::int64_t>(start), e = static_cast<std::int64_t>(end), d = static_cast<std::int64_t>(step);
        const std::int64_t sign = d > 0 ? 1 : -1;
        size = static_cast<double>((e - s + d - sign) / d);
    } else {
        size = std::ceil((end - start) / step);
    }
    if (!(size >= 0) || size > static_cast<double>(std::numeric_limits<std::int64_t>::max()))
        fail("invalid size, possible overflow");
    return static_cast<std::size_t>(size);
}

void arange(std::string_view op, double start, double step, bool integral, const tensor_ref& out) {
    if (out.rank() != 1 || out.complex) throw_shape_error(op, "out must be a real 1-D tensor");
    detail::check_no_internal_overlap(op, out);
    switch (out.type) {
    case component::float32: return fill_arange<float>(out, start, step, integral);
    case component::float64: return fill_arange<double>(out, start, step, integral);
    case component::int64: return fill_arange<std::int64_t>(out, start, step, integral);
    case component::int32: return fill_arange<std::int32_t>(out, start, step, integral);
    default: throw error("realify::" + std::string(op) + ": out must be a float, double, int32 or int64 tensor");
    }
}

void check_out_shape(std::string_view op, const tensor_ref& out, const dims& shape) { detail::check_out_shape(op, out, shape); }

void triangle(std::string_view op, const tensor_ref& in, std::ptrdiff_t diagonal, bool upper, const tensor_ref& out) {
    if (in.rank() < 2)
        throw_shape_error(op, "the input must have at least 2 dims (a matrix, or a batch of them), got shape " +
                                  realify::detail::format_sequence(in.shape));
    if (out.type != in.type || out.complex != in.complex)
        throw error("realify::" + std::string(op) + ": out must have the input's element type");
    detail::check_out_shape(op, out, in.shape);
    detail::check_no_internal_overlap(op, out);
    detail::check_alias(op, in, 0, out, in.shape);
    if (in.count() == 0) return;
    const std::size_t rank = in.rank(), rows = in.shape[rank - 2], cols = in.shape[rank - 1];
    const std::size_t bytes = size_of(in.type) * static_cast<std::size_t>(in.width());
    const std::ptrdiff_t unit = static_cast<std::ptrdiff_t>(size_of(in.type));
    walk::axes<2> outer;
    for (std::size_t a = 0; a + 2 < rank; ++a) outer.push({in.shape[a], {in.strides[a], out.strides[a]}});
    walk::odometer<2> matrix(outer.all());
    const std::size_t matrices = in.count() / (rows * cols);
    for (std::size_t m = 0; m < matrices; ++m, matrix.next()) {
        for (std::size_t i = 0; i < rows; ++i) {
            const char* from = static_cast<const char*>(in.data) + (matrix[0] + static_cast<std::ptrdiff_t>(i) * in.strides[rank - 2]) * unit;
            char* to = static_cast<char*>(out.data) + (matrix[1] + static_cast<std::ptrdiff_t>(i) * out.strides[rank - 2]) * unit;
            // kept: j ≥ i + diagonal (triu) or j ≤ i + diagonal (tril)
            const std::ptrdiff_t edge = static_cast<std::ptrdiff_t>(i) + diagonal;
            for (std::size_t j = 0; j < cols; ++j) {
                const std::ptrdiff_t jj = static_cast<std::ptrdiff_t>(j);
                const bool keep = upper ? jj >= edge : jj <= edge;
                char* element = to + static_cast<std::ptrdiff_t>(j) * out.strides[rank - 1] * unit;
                if (keep) std::memmove(element, from + static_cast<std::ptrdiff_t>(j) * in.strides[rank - 1] * unit, bytes);
                else std::memset(element, 0, bytes);
            }
        }
    }
}

}  // namespace realify::engine
