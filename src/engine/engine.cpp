// The elementwise engine (realify/engine/elementwise.hpp): checks, axis
// ordering and coalescing (walk.hpp), the row and block walk with
// gather/convert and scatter — cut into ranges of elements for several
// threads when large (parallel.hpp) — and the block kernels of the compiled
// elementwise ops and of the built-ins. Compiled for the baseline ISA with IEEE semantics
// (realify_isa_sources): the only arithmetic here is in the built-ins,
// whose formulas are the element kernels' (realify/kernels).
#include "realify/engine/elementwise.hpp"
#include "realify/engine/operands.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "realify/checked_size.hpp"
#include "realify/errors.hpp"
#include "realify/kernels/real_output.hpp"
#include "realify/simd/elementwise.hpp"
#include "realify/simd/streaming.hpp"
#include "../simd/parallel.hpp"
#include "op_cost.hpp"
#include "realify/threads.hpp"
#include "tensor_checks.hpp"
#include "walk.hpp"

namespace realify::engine {

dims broadcast_shape(std::string_view op, std::span<const tensor_ref> inputs) {
    dims result;
    for (const tensor_ref& in : inputs) result.rank = std::max(result.rank, in.rank());
    std::fill(result.extent.begin(), result.extent.begin() + static_cast<std::ptrdiff_t>(result.rank), std::size_t{1});
    bool ok = true;
    for (const tensor_ref& in : inputs) {
        const std::size_t lead = result.rank - in.rank();
        for (std::size_t a = 0; a < in.rank(); ++a) {
            std::size_t& r = result.extent[lead + a];
            const std::size_t e = in.shape[a];
            if (e == r || e == 1) continue;
            if (r == 1) r = e;
            else ok = false;
        }
    }
    if (!ok) {
        std::string message = "operands of shapes";
        const char* separator = " ";
        for (const tensor_ref& in : inputs) {
            message += separator + realify::detail::format_sequence(in.shape);
            separator = " and ";
        }
        throw_shape_error(op, message + " cannot be broadcast together");
    }
    return result;
}

namespace {

// ---- conversions between component types ------------------------------------------------

/// v as D: bool is v ≠ 0 (NaN is true, as PyTorch); an integer saturates (NaN: 0).
template <class D, class T>
D convert(T v) noexcept {
    if constexpr (std::is_same_v<D, bool>) {
        return !(v == T(0));
    } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<T>) {
        if (v != v) return D(0);
        constexpr T low = T(std::numeric_limits<D>::min());                               // 0 or −2^k: exact
        constexpr T high = T(2) * T(std::numeric_limits<D>::max() / 2 + 1);              // 2^k: exact
        if (v <= low) return std::numeric_limits<D>::min();
        if (v >= high) return std::numeric_limits<D>::max();
        return static_cast<D>(v);
    } else {
        return static_cast<D>(v);
    }
}

/// Calls f with a null pointer of the C++ type of component c.
template <class F>
decltype(auto) with_type(component c, F&& f) {
    switch (c) {
        case component::boolean: return f(static_cast<bool*>(nullptr));
        case component::int8: return f(static_cast<std::int8_t*>(nullptr));
        case component::uint8: return f(static_cast<std::uint8_t*>(nullptr));
        case component::int16: return f(static_cast<std::int16_t*>(nullptr));
        case component::uint16: return f(static_cast<std::uint16_t*>(nullptr));
        case component::int32: return f(static_cast<std::int32_t*>(nullptr));
        case component::uint32: return f(static_cast<std::uint32_t*>(nullptr));
        case component::int64: return f(static_cast<std::int64_t*>(nullptr));
        case component::uint64: return f(static_cast<std::uint64_t*>(nullptr));
        case component::float32: return f(static_cast<float*>(nullptr));
        case component::float64: break;
    }
    return f(static_cast<double*>(nullptr));
}

/// n elements from src (stride in components) into dst, contiguous, converted to T.
template <class T>
void gather(const void* src, component type, std::ptrdiff_t stride, std::size_t n, bool complex, T* dst) {
    with_type(type, [&]<class S>(S*) {
        const S* s = static_cast<const S*>(src);
        if (complex) {
            for (std::size_t i = 0; i < n; ++i, s += stride) {
                dst[2 * i] = static_cast<T>(s[0]);
                dst[2 * i + 1] = static_cast<T>(s[1]);
            }
        } else {
            for (std::size_t i = 0; i < n; ++i, s += stride) dst[i] = static_cast<T>(*s);
        }
    });
}

/// n contiguous elements of T from src into dst (stride in components), converted.
template <class T>
void scatter(const T* src, std::size_t n, bool complex, void* dst, component type, std::ptrdiff_t stride) {
    with_type(type, [&]<class D>(D*) {
        D* d = static_cast<D*>(dst);
        if (complex) {
            for (std::size_t i = 0; i < n; ++i, d += stride) {
                d[0] = convert<D>(src[2 * i]);
                d[1] = convert<D>(src[2 * i + 1]);
            }
        } else {
            for (std::size_t i = 0; i < n; ++i, d += stride) *d = convert<D>(src[i]);
        }
    });
}

// ---- the walk ------------------------------------------------------------------------------

constexpr std::size_t max_operands = max_inputs + 1;  // operand 0 is out
using walk_axes = walk::axes<max_operands>;

/// The axes of the walk: extent-1 axes dropped, out's negative strides
/// reversed for every operand (moving `base`), sorted by out's stride
/// (outermost first) and coalesced. Never empty: a single element is one
/// axis of extent 1 with contiguous strides.
walk_axes axes_of(const dims& shape, const tensor_ref& out, std::span<const tensor_ref> inputs,
                  std::array<char*, max_operands>& base) {
    const std::size_t operands = inputs.size() + 1;
    auto operand = [&](std::size_t k) -> const tensor_ref& { return k == 0 ? out : inputs[k - 1]; };
    walk_axes axes;
    for (std::size_t a = 0; a < shape.rank; ++a) {
        if (shape[a] == 1) continue;
        walk::axis<max_operands> x;
        x.extent = shape[a];
        for (std::size_t k = 0; k < operands; ++k) {
            const tensor_ref& t = operand(k);
            const std::size_t lead = shape.rank - t.rank();
            x.stride[k] = a >= lead && t.shape[a - lead] != 1 ? t.strides[a - lead] : 0;
        }
        axes.push(x);
    }
    const auto moved = axes.make_forward(0);
    for (std::size_t k = 0; k < operands; ++k)
        base[k] = static_cast<char*>(operand(k).data) + moved[k] * static_cast<std::ptrdiff_t>(size_of(operand(k).type));
    axes.sort_by(0);
    axes.coalesce();
    if (axes.rank == 0) {
        walk::axis<max_operands> one;
        for (std::size_t k = 0; k < operands; ++k) one.stride[k] = operand(k).width();
        axes.push(one);
    }
    return axes;
}

template <class T>
void run(std::span<const tensor_ref> inputs, const tensor_ref& out, const block_kernel& kernel, const dims& shape) {
    constexpr component compute = component_of<T>();
    const std::size_t operands = inputs.size() + 1;
    auto operand = [&](std::size_t k) -> const tensor_ref& { return k == 0 ? out : inputs[k - 1]; };

    std::array<char*, max_operands> base{};
    const walk_axes axes = axes_of(shape, out, inputs, base);
    const walk::axis<max_operands>& row = axes.back();
    const std::size_t length = row.extent;

    std::array<std::ptrdiff_t, max_operands> bytes{};  // bytes per component
    std::array<bool, max_operands> direct{}, constant{};
    // whole_rows: every row goes to the kernel in one call — each operand is
    // read in place, or constant along the row (a number, a broadcast
    // operand), which is converted once per row when of another type: a
    // float op with a double number must not run block by block.
    bool whole_rows = true;
    for (std::size_t k = 0; k < operands; ++k) {
        const tensor_ref& t = operand(k);
        bytes[k] = static_cast<std::ptrdiff_t>(size_of(t.type));
        constant[k] = k > 0 && row.stride[k] == 0;
        direct[k] = t.type == compute && (row.stride[k] == t.width() || constant[k]);
        whole_rows = whole_rows && (direct[k] || constant[k]);
    }
    const std::size_t rows = axes.count() / length;

    // Tiles of short rows: where an input repeats its row along the axis
    // outside the rows (stride 0 there: RoPE's freqs_cis over the heads, a
    // bias over a batch) and every other operand runs on contiguously from
    // one row into the next, up to `tile` rows go to the kernel in one call,
    // the repeated rows copied side by side into scratch (again only when
    // the row they repeat changes). A short row would otherwise pay a kernel
    // call per row, which costs as much as its arithmetic. The kernel sees
    // the same values, and never an element's position: the results are the
    // row-by-row ones.
    std::size_t tile = 1, tile_axis = 1;  // rows per call; the extent of the axis they lie along (the last outer one)
    std::array<bool, max_operands> repeated{};
    if (whole_rows && axes.rank >= 2) {
        const walk::axis<max_operands>& across = axes[axes.rank - 2];
        bool fits = true, any = false;
        for (std::size_t k = 0; k < operands && fits; ++k) {
            const std::ptrdiff_t w = operand(k).width();
            const bool runs_on = row.stride[k] == w && across.stride[k] == static_cast<std::ptrdiff_t>(length) * w;
            const bool number = constant[k] && across.stride[k] == 0;
            repeated[k] = k > 0 && direct[k] && row.stride[k] == w && across.stride[k] == 0;
            any = any || repeated[k];
            fits = runs_on || number || repeated[k];
        }
        if (fits && any) {
            tile_axis = across.extent;
            tile = std::min(tile_axis, block_elements / length);
        }
    }

    // Streaming stores: only for one long contiguous row that no input
    // overlaps (a kernel fences its streaming stores at the end of each
    // call: per row, or per tile, that fence costs more than streaming saves).
    bool stream = false;
    if (rows == 1 && whole_rows) {
        std::size_t touched = length * static_cast<std::size_t>(out.width()) * sizeof(T);
        bool aliased = false;
        for (std::size_t k = 1; k < operands; ++k) {
            if (!constant[k]) touched += length * static_cast<std::size_t>(operand(k).width()) * sizeof(T);
            aliased = aliased || detail::overlaps(detail::range_of(operand(k)), detail::range_of(out));
        }
        stream = !aliased && touched >= simd::streaming_threshold();
    }

    // The elements [first, last) of the walk (row-major over its axes: rows
    // one after the other), row piece by row piece; each thread of a split
    // call runs one such range, with scratch of its own.
    auto walk_range = [&](std::size_t first, std::size_t last) {
        alignas(64) std::array<std::array<T, 2 * block_elements>, max_operands> scratch;
        std::array<const void*, max_inputs> in{};
        std::array<bool, max_inputs> broadcast{};
        // the row piece [j0, j1) of the row whose operands start at p
        auto row_piece = [&](const std::array<char*, max_operands>& p, std::size_t j0, std::size_t j1) {
            for (std::size_t k = 1; k < operands; ++k) {  // constant and converted: once per piece
                if (constant[k] && !direct[k]) gather(p[k], operand(k).type, 0, 1, operand(k).complex, scratch[k].data());
            }
            if (whole_rows) {
                const auto offset = static_cast<std::ptrdiff_t>(j0);
                for (std::size_t k = 1; k < operands; ++k) {
                    in[k - 1] = constant[k] ? (direct[k] ? static_cast<const void*>(p[k]) : scratch[k].data())
                                            : static_cast<const void*>(p[k] + offset * row.stride[k] * bytes[k]);
                    broadcast[k - 1] = constant[k] && j1 - j0 > 1;
                }
                kernel.run(kernel, in.data(), broadcast.data(), p[0] + offset * row.stride[0] * bytes[0], j1 - j0, stream);
                return;
            }
            for (std::size_t j = j0; j < j1; j += block_elements) {
                const std::size_t n = std::min(block_elements, j1 - j);
                const auto offset = static_cast<std::ptrdiff_t>(j);
                for (std::size_t k = 1; k < operands; ++k) {
                    const tensor_ref& t = operand(k);
                    broadcast[k - 1] = constant[k] && n > 1;
                    if (constant[k]) {
                        in[k - 1] = direct[k] ? static_cast<const void*>(p[k]) : scratch[k].data();
                    } else if (direct[k]) {
                        in[k - 1] = p[k] + offset * row.stride[k] * bytes[k];
                    } else {
                        gather(p[k] + offset * row.stride[k] * bytes[k], t.type, row.stride[k], n, t.complex, scratch[k].data());
                        in[k - 1] = scratch[k].data();
                    }
                }
                char* const target = p[0] + offset * row.stride[0] * bytes[0];
                kernel.run(kernel, in.data(), broadcast.data(), direct[0] ? static_cast<void*>(target) : scratch[0].data(), n,
                           false);
                if (!direct[0]) scatter(scratch[0].data(), n, out.complex, target, out.type, row.stride[0]);
            }
        };
        // `count` whole rows from p in one call, each repeated input's row
        // copied count times into its scratch (unless it holds them already)
        std::array<const char*, max_operands> copied{};  // the row a repeated input's scratch holds
        std::array<std::size_t, max_operands> copies{};  // and how many times
        auto row_tile = [&](const std::array<char*, max_operands>& p, std::size_t count) {
            for (std::size_t k = 1; k < operands; ++k) {
                if (constant[k] && !direct[k]) gather(p[k], operand(k).type, 0, 1, operand(k).complex, scratch[k].data());
                if (repeated[k] && (copied[k] != p[k] || copies[k] < count)) {
                    const std::size_t row_bytes = length * static_cast<std::size_t>(operand(k).width()) * sizeof(T);
                    for (std::size_t r = 0; r < count; ++r)
                        std::memcpy(reinterpret_cast<char*>(scratch[k].data()) + r * row_bytes, p[k], row_bytes);
                    copied[k] = p[k];
                    copies[k] = count;
                }
                in[k - 1] = repeated[k] ? scratch[k].data()
                            : constant[k] ? (direct[k] ? static_cast<const void*>(p[k]) : scratch[k].data())
                                          : static_cast<const void*>(p[k]);
                broadcast[k - 1] = constant[k];
            }
            kernel.run(kernel, in.data(), broadcast.data(), p[0], count * length, false);
        };
        walk::odometer<max_operands> position(axes.outer(), first / length);
        std::array<char*, max_operands> p{};
        for (std::size_t j = first % length; first < last; j = 0) {
            for (std::size_t k = 0; k < operands; ++k) p[k] = base[k] + position[k] * bytes[k];
            if (tile > 1 && j == 0) {
                // whole rows, up to the end of the tile's axis and of the range
                std::size_t count = std::min(tile, tile_axis - position.index(axes.rank - 2));
                if (count * length > last - first) count = (last - first) / length;
                if (count > 1) {
                    row_tile(p, count);
                    first += count * length;
                    position.advance(count);
                    continue;
                }
            }
            const std::size_t end = std::min(length, j + (last - first));
            row_piece(p, j, end);
            first += end - j;
            position.next();
        }
    };

    // Large walks are cut into pieces of a size set by the kernel's cost per
    // element (parallel::piece_elements: a multiple of 64 elements, whole
    // cache lines of a contiguous out), which the threads claim. The kernels
    // never see an element's position, so any cut gives the same results.
    const std::size_t total = rows * length;
    const std::size_t threads = parallel::threads_for(parallel::weighted(total, kernel.cost), grain::elementwise);
    if (threads == 1) return walk_range(0, total);
    const std::size_t piece = parallel::piece_elements(grain::elementwise, kernel.cost);
    parallel::for_ranges(parallel::pieces_of(total, piece), threads, [&](std::size_t a, std::size_t b) {
        walk_range(a * piece, std::min(total, b * piece));
    });
}

}  // namespace

void evaluate(std::string_view op, std::span<const tensor_ref> inputs, const tensor_ref& out, const block_kernel& kernel) {
    if (inputs.size() > max_inputs) throw error("realify::engine::evaluate: at most " + std::to_string(max_inputs) + " inputs");
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        if (inputs[k].complex != kernel.complex_inputs[k])
            throw error("realify::" + std::string(op) + ": input " + std::to_string(k) + " is " +
                        (inputs[k].complex ? "complex" : "real") + ", the kernel expects it " +
                        (kernel.complex_inputs[k] ? "complex" : "real"));
    }
    if (out.complex != kernel.complex_output)
        throw error("realify::" + std::string(op) + ": out is " + (out.complex ? "complex" : "real") + ", the result is " +
                    (kernel.complex_output ? "complex" : "real"));
    if (out.complex && !is_floating(out.type))
        throw error("realify::" + std::string(op) + ": a complex out must have float or double components");
    const dims shape = broadcast_shape(op, inputs);
    detail::check_out_shape(op, out, shape);
    detail::check_no_internal_overlap(op, out);
    for (std::size_t k = 0; k < inputs.size(); ++k) detail::check_alias(op, inputs[k], k, out, shape);
    if (shape.count() == 0) return;
    with_type(kernel.compute, [&]<class T>(T*) { run<T>(inputs, out, kernel, shape); });
}

void check_disjoint(std::string_view op, std::span<const tensor_ref> inputs, const tensor_ref& out) {
    const detail::byte_range written = detail::range_of(out);
    for (std::size_t k = 0; k < inputs.size(); ++k)
        if (detail::overlaps(detail::range_of(inputs[k]), written))
            throw_layout_error(op, "out overlaps input " + std::to_string(k) + " (this op cannot run in place)");
}

void copy_ref(std::string_view op, const tensor_ref& from, const tensor_ref& to) {
    const std::array<bool, 1> kinds{from.complex};
    evaluate(op, std::span(&from, 1), to, builtin_kernel(builtin::copy, from.type, kinds));
}

tensor_ref packed_copy::pack(std::string_view op, const tensor_ref& from) {
    const std::size_t bytes = static_cast<std::size_t>(from.width()) * size_of(from.type);
    const std::size_t count = realify::detail::checked_element_count(op, "the packed copy of shape", from.shape, bytes);
    m_memory.reset(new std::byte[std::max<std::size_t>(count * bytes, 1)]);  // operator new: aligned for any component
    tensor_ref to = from;
    to.data = m_memory.get();
    to.strides = row_major_strides(from.shape, from.width());
    copy_ref(op, from, to);
    return to;
}

tensor_ref strided_ref(std::string_view op, void* data, component type, bool complex, std::span<const std::size_t> extents,
                       std::span<const std::ptrdiff_t> strides) {
    tensor_ref r;
    r.data = data;
    r.type = type;
    r.complex = complex;
    r.shape = make_dims(op, extents);
    for (std::size_t a = 0; a < r.rank(); ++a) r.strides[a] = r.width() * strides[a];
    return r;
}

operand_memory::~operand_memory() = default;

const tensor_ref& operand_memory::pack(std::string_view op) {
    m_ref = m_packed.pack(op, m_ref);
    return m_ref;
}

void operand_memory::read_pairs(std::string_view op) {
    // a complex layout's trailing extent is 2 by its type's check: packed, the pairs are contiguous
    if (auto r = pairs_as_complex(m_ref)) m_ref = *r;
    else m_ref = *pairs_as_complex(pack(op));
}

operand_list::operand_list(std::string_view op, std::span<const operand> operands) {
    std::byte* memory = m_inline_memory;
    std::byte* refs = m_inline_refs;
    if (operands.size() > inline_count) {
        // one block: the memories, then the refs (operator new aligns for both)
        static_assert(sizeof(operand_memory) % alignof(tensor_ref) == 0);
        m_heap.reset(new std::byte[operands.size() * (sizeof(operand_memory) + sizeof(tensor_ref))]);
        memory = m_heap.get();
        refs = memory + operands.size() * sizeof(operand_memory);
    }
    m_memory = reinterpret_cast<operand_memory*>(memory);
    m_refs = reinterpret_cast<tensor_ref*>(refs);
    try {
        for (const operand& o : operands) {
            // counted once constructed, so that a read that throws frees it with the others
            operand_memory& m = *::new (static_cast<void*>(m_memory + m_count++)) operand_memory;
            o.read(op, o.object, m);
            ::new (static_cast<void*>(&m_refs[m_count - 1])) tensor_ref(m.ref());
        }
    } catch (...) {
        destroy();
        throw;
    }
}

operand_list::~operand_list() { destroy(); }

void operand_list::destroy() noexcept {
    static_assert(std::is_trivially_destructible_v<tensor_ref>);
    for (std::size_t i = m_count; i-- > 0;) m_memory[i].~operand_memory();
    m_count = 0;
}

bool check_result_out(std::string_view op, std::span<const tensor_ref> inputs, const tensor_ref& out, const dims& shape) {
    detail::check_out_shape(op, out, shape);
    detail::check_no_internal_overlap(op, out);
    const detail::byte_range written = detail::range_of(out);
    return std::any_of(inputs.begin(), inputs.end(),
                       [&](const tensor_ref& in) { return detail::overlaps(detail::range_of(in), written); });
}

// ---- block kernels -------------------------------------------------------------------------

namespace {

template <class T>
struct params_of {
    T values[2];
    const T* pointer;
    explicit params_of(const block_kernel& k) noexcept
        : values{static_cast<T>(k.params[0]), static_cast<T>(k.params[1])}, pointer(k.has_params ? values : nullptr) {}
};

/// out[1 … n) = out[0] (a result computed once for a broadcast input).
template <class T>
void replicate(T* out, std::size_t n, bool complex) {
    const std::size_t w = complex ? 2 : 1;
    for (std::size_t i = 1; i < n; ++i) std::memcpy(out + w * i, out, w * sizeof(T));
}

template <class T>
void run_unary(const block_kernel& self, const void* const* in, const bool* broadcast, void* out, std::size_t n,
               bool stream) {
    const auto kernel = reinterpret_cast<simd::unary_kernel<T>>(self.function);
    const params_of<T> p(self);
    T* o = static_cast<T*>(out);
    if (broadcast[0]) {
        kernel(static_cast<const T*>(in[0]), o, 1, p.pointer, false);
        replicate(o, n, self.complex_output);
    } else {
        kernel(static_cast<const T*>(in[0]), o, n, p.pointer, stream);
    }
}

template <class T>
void run_binary(const block_kernel& self, const void* const* in, const bool* broadcast, void* out, std::size_t n,
                bool stream) {
    const auto kernel = reinterpret_cast<simd::binary_kernel<T>>(self.function);
    const params_of<T> p(self);
    kernel(static_cast<const T*>(in[0]), broadcast[0], static_cast<const T*>(in[1]), broadcast[1], static_cast<T*>(out), n,
           p.pointer, stream);
}

template <class T>
void run_copy(const block_kernel& self, const void* const* in, const bool* broadcast, void* out, std::size_t n, bool) {
    const std::size_t w = self.complex_output ? 2 : 1;
    T* o = static_cast<T*>(out);
    if (broadcast[0]) {
        std::memcpy(o, in[0], w * sizeof(T));
        replicate(o, n, self.complex_output);
    } else if (in[0] != out) {
        std::memcpy(o, in[0], n * w * sizeof(T));
    }
}

/// One element of input k as the scalar forms take it (cpair or T).
template <class T, bool Complex>
auto load(const void* p, bool broadcast, std::size_t i) noexcept {
    const T* x = static_cast<const T*>(p) + (broadcast ? 0 : (Complex ? 2 * i : i));
    if constexpr (Complex) return kernels::cpair<T>{x[0], x[1]};
    else return x[0];
}

/// Runs f(loaded inputs…) → T per element, for the kinds of self.
template <class T, class F>
void per_element_real_result(const block_kernel& self, const void* const* in, const bool* broadcast, void* out,
                             std::size_t n, F f) {
    T* o = static_cast<T*>(out);
    if (self.complex_inputs[0])
        for (std::size_t i = 0; i < n; ++i) o[i] = f(load<T, true>(in[0], broadcast[0], i));
    else
        for (std::size_t i = 0; i < n; ++i) o[i] = f(load<T, false>(in[0], broadcast[0], i));
}

template <class T>
void run_to_complex(const block_kernel&, const void* const* in, const bool* broadcast, void* out, std::size_t n, bool) {
    T* o = static_cast<T*>(out);
    for (std::size_t i = 0; i < n; ++i) {
        const kernels::cpair<T> z = kernels::to_pair(load<T, false>(in[0], broadcast[0], i));
        o[2 * i] = z.re;
        o[2 * i + 1] = z.im;
    }
}

template <class T>
void run_nonzero(const block_kernel& self, const void* const* in, const bool* broadcast, void* out, std::size_t n, bool) {
    per_element_real_result<T>(self, in, broadcast, out, n, []<class X>(X x) {
        if constexpr (std::is_floating_point_v<X>) return T(x == T(0) ? 0 : 1);
        else return T(x.re == T(0) && x.im == T(0) ? 0 : 1);
    });
}

template <class T, class Tag>
void run_predicate(const block_kernel& self, const void* const* in, const bool* broadcast, void* out, std::size_t n, bool) {
    per_element_real_result<T>(self, in, broadcast, out, n, [](auto x) { return T(kernels::element<Tag>{}(x) ? 1 : 0); });
}

template <class T>
void run_where(const block_kernel& self, const void* const* in, const bool* broadcast, void* out, std::size_t n, bool) {
    T* o = static_cast<T*>(out);
    auto pick = [&]<bool A, bool B>(std::bool_constant<A>, std::bool_constant<B>) {
        for (std::size_t i = 0; i < n; ++i) {
            const bool c = !(load<T, false>(in[0], broadcast[0], i) == T(0));
            if constexpr (A || B) {
                const kernels::cpair<T> z =
                    c ? kernels::to_pair(load<T, A>(in[1], broadcast[1], i)) : kernels::to_pair(load<T, B>(in[2], broadcast[2], i));
                o[2 * i] = z.re;
                o[2 * i + 1] = z.im;
            } else {
                o[i] = c ? load<T, false>(in[1], broadcast[1], i) : load<T, false>(in[2], broadcast[2], i);
            }
        }
    };
    const bool a = self.complex_inputs[1], b = self.complex_inputs[2];
    if (a && b) pick(std::true_type{}, std::true_type{});
    else if (a) pick(std::true_type{}, std::false_type{});
    else if (b) pick(std::false_type{}, std::true_type{});
    else pick(std::false_type{}, std::false_type{});
}

template <template <class> class Run>
block_function for_compute(component compute) {
    return compute == component::float64 ? &Run<double>::call : &Run<float>::call;
}
#define REALIFY_ENGINE_RUNNER(NAME, FUNCTION)                                                                       \
    template <class T>                                                                                              \
    struct NAME {                                                                                                   \
        static void call(const block_kernel& s, const void* const* i, const bool* b, void* o, std::size_t n, bool st) { \
            FUNCTION(s, i, b, o, n, st);                                                                            \
        }                                                                                                           \
    };
REALIFY_ENGINE_RUNNER(unary_runner, run_unary<T>)
REALIFY_ENGINE_RUNNER(binary_runner, run_binary<T>)
REALIFY_ENGINE_RUNNER(copy_runner, run_copy<T>)
REALIFY_ENGINE_RUNNER(to_complex_runner, run_to_complex<T>)
REALIFY_ENGINE_RUNNER(nonzero_runner, run_nonzero<T>)
REALIFY_ENGINE_RUNNER(where_runner, run_where<T>)
template <class T>
struct isnan_runner {
    static void call(const block_kernel& s, const void* const* i, const bool* b, void* o, std::size_t n, bool st) {
        run_predicate<T, op::isnan>(s, i, b, o, n, st);
    }
};
template <class T>
struct isinf_runner {
    static void call(const block_kernel& s, const void* const* i, const bool* b, void* o, std::size_t n, bool st) {
        run_predicate<T, op::isinf>(s, i, b, o, n, st);
    }
};
#undef REALIFY_ENGINE_RUNNER

simd::operand_kind kind(bool complex) noexcept { return complex ? simd::operand_kind::complex : simd::operand_kind::real; }

[[noreturn]] void no_form(std::string_view what, std::span<const bool> complex_inputs) {
    std::string kinds;
    for (bool c : complex_inputs) kinds += std::string(kinds.empty() ? "" : " × ") + (c ? "complex" : "real");
    throw error("realify::" + std::string(what) + ": no kernel for " + kinds + " operands");
}

block_kernel base_kernel(component compute, std::span<const bool> complex_inputs, bool any_type = false) {
    if (!any_type && !is_floating(compute)) throw error("realify::engine: kernels compute in float or double");
    if (complex_inputs.size() > max_inputs) throw error("realify::engine: at most " + std::to_string(max_inputs) + " inputs");
    block_kernel k;
    k.compute = compute;
    std::copy(complex_inputs.begin(), complex_inputs.end(), k.complex_inputs.begin());
    return k;
}

}  // namespace

block_kernel kernel_of(simd::elementwise_op op, component compute, std::span<const bool> complex_inputs,
                       std::optional<std::complex<double>> constant) {
    block_kernel k = base_kernel(compute, complex_inputs);
    const bool f64 = compute == component::float64;
    std::optional<simd::operand_kind> result;
    if (complex_inputs.size() == 1 && simd::arity(op) == 1) {
        const simd::operand_kind x = kind(complex_inputs[0]);
        result = simd::result_kind(op, x);
        if (!result) no_form(simd::name(op), complex_inputs);
        k.function = f64 ? reinterpret_cast<void (*)()>(simd::unary_kernel_for<double>(op, x))
                         : reinterpret_cast<void (*)()>(simd::unary_kernel_for<float>(op, x));
        k.run = for_compute<unary_runner>(compute);
    } else if (complex_inputs.size() == 2 && simd::arity(op) == 2) {
        const simd::operand_kind x = kind(complex_inputs[0]), y = kind(complex_inputs[1]);
        result = simd::result_kind(op, x, y);
        if (!result) no_form(simd::name(op), complex_inputs);
        k.function = f64 ? reinterpret_cast<void (*)()>(simd::binary_kernel_for<double>(op, x, y))
                         : reinterpret_cast<void (*)()>(simd::binary_kernel_for<float>(op, x, y));
        k.run = for_compute<binary_runner>(compute);
    } else {
        no_form(simd::name(op), complex_inputs);
    }
    k.complex_output = *result == simd::operand_kind::complex;
    k.cost = op_cost(op);
    if (op == simd::elementwise_op::pow_scalar && !constant)
        throw error("realify::pow_scalar: the exponent is required");
    if (simd::takes_constant(op) && constant) {
        k.params = {constant->real(), constant->imag()};
        k.has_params = true;
    }
    return k;
}

block_kernel builtin_kernel(builtin op, component compute, std::span<const bool> complex_inputs) {
    block_kernel k = base_kernel(compute, complex_inputs, op == builtin::copy);
    const std::size_t arity = op == builtin::where ? 3 : 1;
    if (complex_inputs.size() != arity) no_form("engine builtin", complex_inputs);
    switch (op) {
        case builtin::copy:
            k.run = with_type(compute, []<class T>(T*) -> block_function { return &copy_runner<T>::call; });
            k.complex_output = complex_inputs[0];
            break;
        case builtin::to_complex:
            if (complex_inputs[0]) no_form("engine to_complex", complex_inputs);
            k.run = for_compute<to_complex_runner>(compute);
            k.complex_output = true;
            break;
        case builtin::nonzero: k.run = for_compute<nonzero_runner>(compute); break;
        case builtin::isnan: k.run = for_compute<isnan_runner>(compute); break;
        case builtin::isinf: k.run = for_compute<isinf_runner>(compute); break;
        case builtin::where:
            if (complex_inputs[0]) no_form("where", complex_inputs);
            k.run = for_compute<where_runner>(compute);
            k.complex_output = complex_inputs[1] || complex_inputs[2];
            break;
    }
    return k;
}

}  // namespace realify::engine
