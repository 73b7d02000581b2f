// realify/engine/rows.hpp: the walk over the rows of softmax and the
// normalisations, the checks, and each row's arithmetic around the row
// kernels of the active instruction set (kernel_table.hpp). Compiled for
// the baseline ISA with IEEE semantics (realify_isa_sources): the per-element
// arithmetic is all in the row kernels; here are per-row scalars (the max's
// shift, 1 / Σ, the mean and 1 / √(var + eps), in double) and loops over rows
// (walk.hpp's axes and odometer; ranges of rows on several threads when large).
#include "realify/engine/rows.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "../simd/kernel_table.hpp"
#include "realify/errors.hpp"
#include "../simd/parallel.hpp"
#include "op_cost.hpp"
#include "realify/threads.hpp"
#include "tensor_checks.hpp"
#include "walk.hpp"

namespace realify::engine {

namespace {

/// The axes of a row (row-major order within it) and the other axes; stride
/// 0 is in's, stride 1 out's (components).
struct row_walk {
    walk::axes<2> row, outer;
    std::size_t n = 1;  // elements per row
    /// Whether the row is n contiguous elements of operand o.
    bool contiguous(std::size_t o) const noexcept { return row.rank == 0 || (row.rank == 1 && row[0].stride[o] == 1); }
};

/// Rows over the axes [first, last) of in (and out, of the same shape).
row_walk make_walk(const tensor_ref& in, const tensor_ref& out, std::size_t first, std::size_t last) noexcept {
    row_walk w;
    for (std::size_t a = 0; a < in.rank(); ++a) {
        const walk::axis<2> step{in.shape[a], {in.strides[a], out.strides[a]}};
        if (a >= first && a < last) {
            w.row.push(step);
            w.n *= in.shape[a];
        } else {
            w.outer.push(step);
        }
    }
    w.row.coalesce();
    w.outer.coalesce();
    return w;
}

/// Visits the n elements of a row at (in, out) offsets, row-major.
template <class F>
void for_each_element(const row_walk& w, std::ptrdiff_t in, std::ptrdiff_t out, F&& f) {
    walk::odometer<2> element(w.row.all());
    for (std::size_t i = 0; i < w.n; ++i, element.next()) f(i, in + element[0], out + element[1]);
}

template <class T>
T read(const tensor_ref& t, std::ptrdiff_t offset) noexcept {
    if (t.type == component::float64) return static_cast<T>(static_cast<const double*>(t.data)[offset]);
    return static_cast<T>(static_cast<const float*>(t.data)[offset]);
}
template <class T>
void write(const tensor_ref& t, std::ptrdiff_t offset, T v) noexcept {
    if (t.type == component::float64) static_cast<double*>(t.data)[offset] = static_cast<double>(v);
    else static_cast<float*>(t.data)[offset] = static_cast<float>(v);
}

/// Runs row(x, y, n) on every row: x and y point at n contiguous Ts —
/// the tensors' own memory where the row is contiguous and of type T there,
/// else a scratch row gathered from in (and scattered to out afterwards).
/// Rows are independent: large calls give ranges of rows to several threads
/// (realify/threads.hpp, from the work of `op`'s elements: op_cost.hpp),
/// with the same results as one.
template <class T, class Row>
void for_rows(op_id op, const tensor_ref& in, const tensor_ref& out, const row_walk& w, Row&& row) {
    const component type = component_of<T>();
    const bool in_direct = in.type == type && w.contiguous(0);
    const bool out_direct = out.type == type && w.contiguous(1);
    const std::size_t threads = parallel::threads_for(parallel::weighted(in.count(), op_cost(op)), grain::elementwise);
    parallel::for_ranges(w.outer.count(), threads, [&](std::size_t first, std::size_t last) {
        std::vector<T> scratch(in_direct && out_direct ? 0 : w.n);
        walk::odometer<2> position(w.outer.all(), first);
        for (std::size_t r = first; r < last; ++r, position.next()) {
            const std::ptrdiff_t in_at = position[0], out_at = position[1];
            const T* x = in_direct ? static_cast<const T*>(in.data) + in_at : scratch.data();
            T* y = out_direct ? static_cast<T*>(out.data) + out_at : scratch.data();
            if (!in_direct)
                for_each_element(w, in_at, out_at, [&](std::size_t i, std::ptrdiff_t p, std::ptrdiff_t) { scratch[i] = read<T>(in, p); });
            row(x, y, w.n);
            if (!out_direct)
                for_each_element(w, in_at, out_at, [&](std::size_t i, std::ptrdiff_t, std::ptrdiff_t q) { write(out, q, y[i]); });
        }
    });
}

void check_real_floating(std::string_view op, const tensor_ref& t, const char* what) {
    if (t.complex || !is_floating(t.type))
        throw error("realify::" + std::string(op) + ": " + what + " must be a real float or double tensor");
}

/// out: in's shape, no internal overlap, and in itself or disjoint from it.
void check_out(std::string_view op, const tensor_ref& in, const tensor_ref& out) {
    check_real_floating(op, out, "out");
    detail::check_out_shape(op, out, in.shape);
    detail::check_no_internal_overlap(op, out);
    detail::check_alias(op, in, 0, out, in.shape);
}

template <class F>
void with_type(const tensor_ref& in, F&& f) {
    if (in.type == component::float64) f(static_cast<double*>(nullptr));
    else f(static_cast<float*>(nullptr));
}

/// A weight or bias as n contiguous Ts (its own memory when it is already).
template <class T>
const T* contiguous(std::string_view op, const tensor_ref* t, const char* what, const dims& shape,
                    std::vector<T>& storage) {
    if (t == nullptr) return nullptr;
    check_real_floating(op, *t, what);
    if (!(t->shape == shape))
        throw_shape_error(op, std::string(what) + " has shape " + realify::detail::format_sequence(t->shape) +
                                  ", normalized_shape is " + realify::detail::format_sequence(shape));
    const row_walk w = make_walk(*t, *t, 0, t->rank());
    if (t->type == component_of<T>() && w.contiguous(0))
        return static_cast<const T*>(t->data);
    storage.resize(w.n);
    for_each_element(w, 0, 0, [&](std::size_t i, std::ptrdiff_t p, std::ptrdiff_t) { storage[i] = read<T>(*t, p); });
    return storage.data();
}

}  // namespace

void softmax(std::string_view op, const tensor_ref& in, std::size_t axis, bool log, const tensor_ref& out) {
    check_real_floating(op, in, "the input");
    check_out(op, in, out);
    if (in.count() == 0) return;
    const row_walk w = in.rank() == 0 ? make_walk(in, out, 0, 0) : make_walk(in, out, axis, axis + 1);
    with_type(in, [&]<class T>(T*) {
        const auto& k = simd::detail::active_table().of<T>().rows;
        for_rows<T>(log ? op_id::log_softmax : op_id::softmax, in, out, w, [&](const T* x, T* y, std::size_t n) {
            const T m = k.max(x, n);
            if (log) {
                const double sum = k.exp_sum(x, m, nullptr, n);
                k.normalize(x, m, static_cast<T>(std::log(sum)), T(1), nullptr, nullptr, y, n);
            } else {
                const double sum = k.exp_sum(x, m, y, n);
                k.normalize(y, T(0), T(0), static_cast<T>(1.0 / sum), nullptr, nullptr, y, n);
            }
        });
    });
}

void normalize(std::string_view op, norm kind, const tensor_ref& in, std::size_t normalized, const tensor_ref* weight,
               const tensor_ref* bias, double eps, const tensor_ref& out) {
    check_real_floating(op, in, "the input");
    if (normalized > in.rank())
        throw_shape_error(op, "normalized_shape has " + std::to_string(normalized) + " dims, the input of shape " +
                                  realify::detail::format_sequence(in.shape) + " only " + std::to_string(in.rank()));
    check_out(op, in, out);
    dims shape;
    for (std::size_t a = in.rank() - normalized; a < in.rank(); ++a) append_extent(op, shape, in.shape[a]);
    for (const tensor_ref* t : {weight, bias})
        if (t != nullptr && detail::overlaps(detail::range_of(*t), detail::range_of(out)))
            throw_layout_error(op, "out overlaps the weight or the bias");
    if (in.count() == 0) return;
    const row_walk w = make_walk(in, out, in.rank() - normalized, in.rank());
    with_type(in, [&]<class T>(T*) {
        std::vector<T> weight_storage, bias_storage;
        const T* wp = contiguous<T>(op, weight, "weight", shape, weight_storage);
        const T* bp = contiguous<T>(op, bias, "bias", shape, bias_storage);
        const auto& k = simd::detail::active_table().of<T>().rows;
        for_rows<T>(kind == norm::rms ? op_id::rms_norm : op_id::layer_norm, in, out, w, [&](const T* x, T* y, std::size_t n) {
            double means[2];  // mean(x − c), mean((x − c)²): finite wherever they are
            k.moments(x, T(0), n, eps, means);
            if (kind == norm::rms) {
                const double scale = 1.0 / std::sqrt(means[1] + eps);
                k.normalize(x, T(0), T(0), static_cast<T>(scale), wp, nullptr, y, n);
                return;
            }
            // the mean rounded to T, then the deviations from it: var = E[d²] − E[d]²
            const T center = static_cast<T>(means[0]);
            k.moments(x, center, n, eps, means);
            const double shift = means[0];  // mean − center
            const double squares = means[1];  // an infinite variance stays inf (never inf − inf)
            const double var = std::isfinite(squares) ? std::max(0.0, squares - shift * shift) : squares;
            const double scale = 1.0 / std::sqrt(var + eps);
            k.normalize(x, center, static_cast<T>(shift), static_cast<T>(scale), wp, bp, y, n);
        });
    });
}

}  // namespace realify::engine
