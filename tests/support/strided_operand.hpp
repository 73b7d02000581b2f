// Test operands with arbitrary memory layouts: the same logical values stored
// contiguously, transposed (axes permuted in memory), stepped (every other
// element along some axes) or reversed (negative strides), all exposed as ONE
// view type — an xt::strided_view over a flat buffer — so a test instantiates
// each op once per dtype however many layouts it tries.
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xstrided_view.hpp>

#include "complex_compare.hpp"

namespace realify::testing {

enum class memory_layout { contiguous, transposed, stepped, reversed };

inline const char* layout_name(memory_layout l) {
    switch (l) {
        case memory_layout::contiguous: return "contiguous";
        case memory_layout::transposed: return "transposed";
        case memory_layout::stepped: return "stepped";
        case memory_layout::reversed: return "reversed";
    }
    return "?";
}

/// Logical values `value` placed in a flat buffer with some layout. The
/// buffer has padding (stepped) or a permuted order (transposed); view()
/// gives the logical tensor back without copying.
template <class V>
class strided_operand {
public:
    strided_operand(const xt::xarray<V>& value, memory_layout layout, std::mt19937_64& rng) : m_layout(layout) {
        const std::size_t rank = value.dimension();
        m_shape.assign(value.shape().begin(), value.shape().end());
        std::vector<std::size_t> step(rank, 1), order(rank);
        std::iota(order.begin(), order.end(), std::size_t{0});  // memory order of the axes, outermost first
        if (layout == memory_layout::transposed && rank >= 2) {
            // A random permutation that is not the identity.
            do { std::shuffle(order.begin(), order.end(), rng); } while (std::is_sorted(order.begin(), order.end()));
        } else if (layout == memory_layout::stepped) {
            for (auto& s : step) s = 1 + rng() % 3;  // 1..3
            if (rank) step[rng() % rank] = 2;        // at least one stepped axis
        }
        // Strides (in elements) for the memory order `order`, with steps.
        m_strides.assign(rank, 0);
        std::ptrdiff_t running = 1;
        for (std::size_t k = rank; k-- > 0;) {
            const std::size_t axis = order[k];
            m_strides[axis] = running * static_cast<std::ptrdiff_t>(step[axis]);
            running *= static_cast<std::ptrdiff_t>(std::max<std::size_t>(m_shape[axis], 1) * step[axis]);
        }
        const std::size_t storage = static_cast<std::size_t>(running) + 1;  // +1: offset slack below
        m_offset = (layout == memory_layout::stepped) ? 1 : 0;              // data not at the buffer start
        if (layout == memory_layout::reversed) {
            // Negative strides on a random non-empty set of axes.
            for (std::size_t axis = 0; axis < rank; ++axis) {
                if (rng() % 2 || axis + 1 == rank) {
                    if (m_shape[axis] > 0) m_offset += (m_shape[axis] - 1) * static_cast<std::size_t>(m_strides[axis]);
                    m_strides[axis] = -m_strides[axis];
                }
            }
        }
        // Fill the padding with a recognisable junk value, then the data.
        m_buffer = xt::xarray<V>::from_shape({storage});
        std::fill(m_buffer.begin(), m_buffer.end(), junk());
        for (std::size_t k = 0; k < value.size(); ++k) m_buffer(position(k)) = value.flat(k);
    }

    strided_operand(const strided_operand&) = delete;
    strided_operand& operator=(const strided_operand&) = delete;

    /// The logical tensor, a strided view over the buffer (same type for every layout).
    auto view() {
        // Shape and strides by value: xt::strided_view deduces their types from the arguments.
        return xt::strided_view(m_buffer, std::vector<std::size_t>(m_shape), std::vector<std::ptrdiff_t>(m_strides),
                                m_offset, xt::layout_type::dynamic);
    }

    const std::vector<std::size_t>& shape() const { return m_shape; }
    const std::vector<std::ptrdiff_t>& strides() const { return m_strides; }
    memory_layout layout() const { return m_layout; }

    std::string describe() const {
        std::ostringstream s;
        s << layout_name(m_layout) << " shape " << format_shape(m_shape) << " strides " << format_shape(m_strides)
          << " offset " << m_offset << " (elements)";
        return s.str();
    }

private:
    static V junk() {
        if constexpr (std::is_same_v<V, bool>) return true;
        else return V(12345);
    }

    std::size_t position(std::size_t flat) const {
        std::ptrdiff_t pos = static_cast<std::ptrdiff_t>(m_offset);
        for (std::size_t axis = m_shape.size(); axis-- > 0;) {
            const std::size_t i = flat % m_shape[axis];
            flat /= m_shape[axis];
            pos += static_cast<std::ptrdiff_t>(i) * m_strides[axis];
        }
        return static_cast<std::size_t>(pos);
    }

    memory_layout m_layout;
    std::vector<std::size_t> m_shape;
    std::vector<std::ptrdiff_t> m_strides;
    std::size_t m_offset = 0;
    xt::xarray<V> m_buffer;
};

}  // namespace realify::testing
