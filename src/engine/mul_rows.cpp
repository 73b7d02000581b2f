// The SIMD row route of a lone complex × complex multiply
// (realify/engine/elementwise.hpp, mul_rows): realify::simd::mul_block_rows
// over the pieces of the output the layout allows, the pieces found with the
// engine's axis walker. Compiled for the baseline ISA: the arithmetic is the
// kernel's.
#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <span>
#include <string_view>

#include "realify/engine/elementwise.hpp"
#include "realify/simd/complex_mul.hpp"
#include "../simd/parallel.hpp"
#include "realify/threads.hpp"
#include "walk.hpp"

namespace realify::engine {

namespace {

template <class T>
bool run_rows(const tensor_ref& x, const tensor_ref& y, const tensor_ref& out) {
    const dims& shape = out.shape;
    const std::size_t rank = shape.rank;
    const bool x_full = x.shape == shape && packed_from(x, 0);
    if (!x_full && !(y.shape == shape && packed_from(y, 0))) return false;
    const tensor_ref& full = x_full ? x : y;
    const tensor_ref other = broadcast_to(x_full ? y : x, shape);  // stride 0 where it broadcasts
    std::size_t row_start = rank, row = 1;  // trailing axes `other` holds packed
    for (std::ptrdiff_t packed = 2; row_start > 0; --row_start) {
        const std::size_t a = row_start - 1;
        if (shape[a] != 1 && other.strides[a] != packed) break;
        packed *= static_cast<std::ptrdiff_t>(shape[a]);
        row *= shape[a];
    }
    if (row < mul_rows_min_row) return false;
    std::size_t repeat_start = row_start, repeats = 1;  // axes before them that repeat the row
    for (; repeat_start > 0 && (shape[repeat_start - 1] == 1 || other.strides[repeat_start - 1] == 0); --repeat_start)
        repeats *= shape[repeat_start - 1];
    std::size_t outer_rank = repeat_start, blocks = 1;  // one row per step of the axis before
    if (outer_rank > 0 && other.strides[outer_rank - 1] == static_cast<std::ptrdiff_t>(2 * row)) {
        blocks = shape[outer_rank - 1];
        --outer_rank;
    }
    // each call writes its piece in one run: out must be packed over the axes a call covers
    if (!packed_from(out, outer_rank)) return false;
    const std::size_t chunk = blocks * repeats * row;  // complex elements per call
    // the calls: one per position of the outer axes (stride 0: other's rows, 1: out)
    walk::axes<2> outer;
    for (std::size_t a = 0; a < outer_rank; ++a) outer.push({shape[a], {other.strides[a], out.strides[a]}});
    const std::size_t calls = outer.count();
    // Units of work: one repeat of one block of one call, in memory order
    // (cut into `parts` column ranges when there are too few of them). A
    // thread runs a range of units with as few kernel calls as it can:
    // whole blocks at once, partial blocks as repeats of one row.
    const std::size_t threads = parallel::threads_for(calls * chunk, grain::elementwise);
    const std::size_t rows_per_call = blocks * repeats;
    const std::size_t parts =
        threads > 1 && calls * rows_per_call < 4 * threads ? std::min(row / mul_rows_min_row, 4 * threads) : 1;
    using C = std::complex<T>;
    const T* const full_data = static_cast<const T*>(full.data);
    const T* const rows_data = static_cast<const T*>(other.data);
    T* const out_data = static_cast<T*>(out.data);
    // out[i … i + n) = full[…] · the row at `rows` repeated (n a multiple of `length`), in call `call`
    auto multiply = [&](const walk::odometer<2>& position, std::size_t call, std::size_t first, const T* rows,
                        std::size_t length, std::size_t block_count, std::size_t n) {
        const std::size_t offset = 2 * (call * chunk + first);
        simd::mul_block_rows(std::span<const C>(reinterpret_cast<const C*>(full_data + offset), n),
                             std::span<const C>(reinterpret_cast<const C*>(rows), block_count * length), block_count,
                             std::span<C>(reinterpret_cast<C*>(out_data + position[1] + 2 * first), n));
    };
    const std::size_t per_call = rows_per_call * parts;
    parallel::for_ranges(calls * per_call, threads, [&](std::size_t u, std::size_t last) {
        std::size_t call = u / per_call;
        walk::odometer<2> position(outer.all(), call);
        while (u < last) {
            if (u / per_call != call) {  // the pieces below never cross a call's end
                ++call;
                position.next();
            }
            const std::size_t in_call = u % per_call, unit = in_call / parts;
            const std::size_t block = unit / repeats, repeat = unit % repeats;
            const T* const block_row = rows_data + position[0] + 2 * block * row;
            if (parts > 1) {  // one column range of one repeat
                const std::size_t part = in_call % parts, c0 = row * part / parts, c1 = row * (part + 1) / parts;
                multiply(position, call, unit * row + c0, block_row + 2 * c0, c1 - c0, 1, c1 - c0);
                ++u;
            } else if (repeat != 0 || last - u < repeats) {  // repeats of one block's row
                const std::size_t n = std::min(repeats - repeat, last - u);
                multiply(position, call, unit * row, block_row, row, 1, n * row);
                u += n;
            } else {  // whole blocks
                const std::size_t n = std::min(blocks - block, (last - u) / repeats);
                multiply(position, call, unit * row, block_row, row, n, n * repeats * row);
                u += n * repeats;
            }
        }
    });
    return true;
}

}  // namespace

bool mul_rows(const tensor_ref& x, const tensor_ref& y, const tensor_ref& out) {
    const bool same_type = x.type == out.type && y.type == out.type && is_floating(out.type);
    if (!same_type || !x.complex || !y.complex || !out.complex) return false;
    if (out.rank() == 0 || out.count() == 0) return false;
    const std::array<tensor_ref, 2> inputs{x, y};
    if (!(broadcast_shape("mul", inputs) == out.shape)) return false;
    return out.type == component::float64 ? run_rows<double>(x, y, out) : run_rows<float>(x, y, out);
}

}  // namespace realify::engine
