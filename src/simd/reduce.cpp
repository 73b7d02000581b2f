// The reductions and the scan (realify/engine/reduce.hpp). Two walks, both
// reading the input in long runs whatever its layout:
//
//   along   the reduced (or scanned) axis is the input's innermost in
//           memory: each output element reduces a run of its own
//           (pairwise summation of the run for sum and mean);
//   across  an axis that is kept is innermost: up to block_width output
//           elements along it are accumulated together, reading the input
//           row by row.
//
// Compiled for the baseline ISA with IEEE semantics (realify_isa_sources);
// the complex product is element<op::mul>'s (realify/kernels).
#include "realify/engine/reduce.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <type_traits>

#include "realify/errors.hpp"
#include "realify/kernels/arithmetic.hpp"
#include "tensor_checks.hpp"
#include "walk.hpp"

namespace realify::engine {

dims reduced_shape(const dims& in, std::span<const std::size_t> axes, bool keepdim) noexcept {
    dims result;
    for (std::size_t a = 0; a < in.rank; ++a) {
        const bool reduced = std::find(axes.begin(), axes.end(), a) != axes.end();
        if (!reduced) result.extent[result.rank++] = in[a];
        else if (keepdim) result.extent[result.rank++] = 1;
    }
    return result;
}

namespace {

using kernel::cpair;

constexpr std::size_t block_width = 256;

/// Runs f(S*, D*) with the C++ types of the input's and the output's components (float or double).
template <class F>
void with_types(std::string_view op, const tensor_ref& in, const tensor_ref& out, F&& f) {
    if (!is_floating(in.type) || !is_floating(out.type))
        throw error("realify::" + std::string(op) + ": reductions read and write float or double components");
    if (in.complex != out.complex)
        throw error("realify::" + std::string(op) + ": out must be " + (in.complex ? "complex" : "real") + " like the input");
    auto with_out = [&]<class S>(S*) {
        if (out.type == component::float64) f(static_cast<S*>(nullptr), static_cast<double*>(nullptr));
        else f(static_cast<S*>(nullptr), static_cast<float*>(nullptr));
    };
    if (in.type == component::float64) with_out(static_cast<double*>(nullptr));
    else with_out(static_cast<float*>(nullptr));
}

/// What is accumulated per output element: sums in double, products in the
/// input's type (the pair product of the element kernel).
template <class S, bool Complex, reduction R>
struct accumulator {
    using part = std::conditional_t<R == reduction::prod, S, double>;
    using value = std::conditional_t<Complex, cpair<part>, part>;

    static value init() noexcept {
        const part one = R == reduction::prod ? part(1) : part(0);
        if constexpr (Complex) return {one, part(0)};
        else return one;
    }
    static void add(value& acc, const S* p) noexcept {
        if constexpr (R == reduction::prod) {
            if constexpr (Complex) acc = kernel::element<op::mul>{}(acc, cpair<S>{p[0], p[1]});
            else acc *= p[0];
        } else {
            if constexpr (Complex) {
                acc.re += static_cast<double>(p[0]);
                acc.im += static_cast<double>(p[1]);
            } else {
                acc += static_cast<double>(p[0]);
            }
        }
    }
    static value combine(value a, value b) noexcept {  // sums only
        if constexpr (Complex) return {a.re + b.re, a.im + b.im};
        else return a + b;
    }
    /// The run of n elements at p (stride in components): pairwise for sums.
    static value run(const S* p, std::ptrdiff_t stride, std::size_t n) noexcept {
        if (R == reduction::prod || n <= 32) {
            value acc = init();
            for (std::size_t i = 0; i < n; ++i, p += stride) add(acc, p);
            return acc;
        }
        const std::size_t half = n / 2;
        return combine(run(p, stride, half), run(p + static_cast<std::ptrdiff_t>(half) * stride, stride, n - half));
    }
    template <class D>
    static void store(value acc, std::size_t count, D* out) noexcept {
        auto finish = [&](part x) {
            if constexpr (R == reduction::mean) return static_cast<D>(x / static_cast<double>(count));  // 0/0: NaN
            else return static_cast<D>(x);
        };
        if constexpr (Complex) {
            out[0] = finish(acc.re);
            out[1] = finish(acc.im);
        } else {
            out[0] = finish(acc);
        }
    }
};

/// Axes of a reduction: stride 0 the input's, stride 1 the output's (0 along
/// a reduced axis), in components.
using axis = walk::axis<2>;
using axis_list = walk::axes<2>;
using odometer = walk::odometer<2>;

template <class S, class D, bool Complex, reduction R>
void reduce_impl(const tensor_ref& in, std::span<const std::size_t> reduced_axes, const tensor_ref& out) {
    using acc = accumulator<S, Complex, R>;
    // kept axes (with their output strides) and reduced axes, in index order
    axis_list kept, reduced;
    std::size_t out_axis = 0;
    const bool keepdim = out.rank() == in.rank();
    std::size_t count = 1;
    for (std::size_t a = 0; a < in.rank(); ++a) {
        const bool is_reduced = std::find(reduced_axes.begin(), reduced_axes.end(), a) != reduced_axes.end();
        if (is_reduced) {
            reduced.push({in.shape[a], {in.strides[a], 0}});
            count *= in.shape[a];
            if (keepdim) ++out_axis;
        } else {
            kept.push({in.shape[a], {in.strides[a], out.strides[out_axis++]}});
        }
    }
    kept.coalesce();
    reduced.coalesce();
    const S* const in_base = static_cast<const S*>(in.data);
    D* const out_base = static_cast<D*>(out.data);

    // the innermost reduced run; the outer reduced axes are walked by an odometer
    const axis run = reduced.rank > 0 ? reduced.back() : axis{1, {0, 0}};
    const std::span<const axis> outer_reduced = reduced.outer();
    std::size_t outer_count = 1;
    for (const axis& x : outer_reduced) outer_count *= x.extent;
    // the runs' results combined in order (a product starts from the first
    // run: (1 + 0i)·z is not z when z is not finite)
    auto reduce_at = [&](const S* p) {
        odometer position(outer_reduced);
        typename acc::value total = acc::init();
        for (std::size_t r = 0; r < outer_count; ++r, position.next()) {
            const auto part = acc::run(p + position[0], run.stride[0], run.extent);
            if constexpr (R == reduction::prod) {
                if (r == 0) total = part;
                else if constexpr (Complex) total = kernel::element<op::mul>{}(total, part);
                else total *= part;
            } else {
                total = acc::combine(total, part);
            }
        }
        return total;
    };

    // across: a kept axis is the input's innermost — accumulate a block of outputs together
    std::size_t inner_kept = kept.rank;
    for (std::size_t i = 0; i < kept.rank; ++i)
        if (inner_kept == kept.rank || std::abs(kept[i].stride[0]) < std::abs(kept[inner_kept].stride[0])) inner_kept = i;
    const bool across = inner_kept < kept.rank && std::abs(kept[inner_kept].stride[0]) < std::abs(run.stride[0]) &&
                        R != reduction::prod;

    if (!across) {
        odometer position(kept.all());
        do {
            acc::store(reduce_at(in_base + position[0]), count, out_base + position[1]);
        } while (position.next());
        return;
    }
    // the other kept axes by odometer; blocks of block_width along inner_kept
    axis_list others = kept;
    const axis inner = others.take(inner_kept);
    std::array<typename acc::value, block_width> block;
    odometer position(others.all());
    do {
        for (std::size_t j0 = 0; j0 < inner.extent; j0 += block_width) {
            const std::size_t n = std::min(block_width, inner.extent - j0);
            block.fill(acc::init());
            const S* const q = in_base + position[0] + static_cast<std::ptrdiff_t>(j0) * inner.stride[0];
            if (count > 0) {
                odometer row(reduced.all());
                do {
                    const S* x = q + row[0];
                    for (std::size_t j = 0; j < n; ++j, x += inner.stride[0]) acc::add(block[j], x);
                } while (row.next());
            }
            D* y = out_base + position[1] + static_cast<std::ptrdiff_t>(j0) * inner.stride[1];
            for (std::size_t j = 0; j < n; ++j, y += inner.stride[1]) acc::store(block[j], count, y);
        }
    } while (position.next());
}

template <class S, class D, bool Complex>
void cumsum_impl(const tensor_ref& in, std::size_t scan_axis, const tensor_ref& out) {
    using acc = accumulator<S, Complex, reduction::sum>;
    axis_list others;
    for (std::size_t a = 0; a < in.rank(); ++a)
        if (a != scan_axis) others.push({in.shape[a], {in.strides[a], out.strides[a]}});
    others.coalesce();
    const axis scan{in.shape[scan_axis], {in.strides[scan_axis], out.strides[scan_axis]}};
    std::size_t inner = others.rank;  // the other axis innermost in the input, if it is inner to the scan
    for (std::size_t i = 0; i < others.rank; ++i)
        if (inner == others.rank || std::abs(others[i].stride[0]) < std::abs(others[inner].stride[0])) inner = i;
    const bool across = inner < others.rank && std::abs(others[inner].stride[0]) < std::abs(scan.stride[0]);
    const axis line = across ? others.take(inner) : axis{1, {0, 0}};
    std::array<typename acc::value, block_width> block;
    const S* const in_base = static_cast<const S*>(in.data);
    D* const out_base = static_cast<D*>(out.data);
    odometer position(others.all());
    do {
        for (std::size_t j0 = 0; j0 < line.extent; j0 += block_width) {
            const std::size_t n = std::min(block_width, line.extent - j0);
            block.fill(acc::init());
            const S* x = in_base + position[0] + static_cast<std::ptrdiff_t>(j0) * line.stride[0];
            D* y = out_base + position[1] + static_cast<std::ptrdiff_t>(j0) * line.stride[1];
            for (std::size_t k = 0; k < scan.extent; ++k, x += scan.stride[0], y += scan.stride[1]) {
                const S* xj = x;
                D* yj = y;
                for (std::size_t j = 0; j < n; ++j, xj += line.stride[0], yj += line.stride[1]) {
                    acc::add(block[j], xj);  // read before the write: in place is safe
                    acc::store(block[j], 1, yj);
                }
            }
        }
    } while (position.next());
}

void check_output(std::string_view op, const tensor_ref& in, const tensor_ref& out, const dims& expected) {
    detail::check_out_shape(op, out, expected);
    detail::check_no_internal_overlap(op, out);
    if (detail::overlaps(detail::range_of(in), detail::range_of(out)) && !(in.shape == out.shape && detail::same_tensor(in, out, out.shape)))
        throw_layout_error(op, "out overlaps the input (out may be exactly the input, in place, where the shapes agree)");
}

}  // namespace

void reduce(std::string_view op, reduction r, const tensor_ref& in, std::span<const std::size_t> axes, bool keepdim,
            const tensor_ref& out) {
    with_types(op, in, out, [&]<class S, class D>(S*, D*) {
        check_output(op, in, out, reduced_shape(in.shape, axes, keepdim));
        if (out.count() == 0) return;
        auto run = [&]<bool Complex>(std::bool_constant<Complex>) {
            switch (r) {
                case reduction::sum: reduce_impl<S, D, Complex, reduction::sum>(in, axes, out); break;
                case reduction::mean: reduce_impl<S, D, Complex, reduction::mean>(in, axes, out); break;
                case reduction::prod: reduce_impl<S, D, Complex, reduction::prod>(in, axes, out); break;
            }
        };
        if (in.complex) run(std::true_type{});
        else run(std::false_type{});
    });
}

void cumsum(std::string_view op, const tensor_ref& in, std::size_t axis, const tensor_ref& out) {
    with_types(op, in, out, [&]<class S, class D>(S*, D*) {
        check_output(op, in, out, in.shape);
        if (in.count() == 0) return;
        if (in.rank() == 0) {
            const std::array<std::size_t, 0> none{};
            if (in.complex) reduce_impl<S, D, true, reduction::sum>(in, none, out);
            else reduce_impl<S, D, false, reduction::sum>(in, none, out);
            return;
        }
        if (in.complex) cumsum_impl<S, D, true>(in, axis, out);
        else cumsum_impl<S, D, false>(in, axis, out);
    });
}

}  // namespace realify::engine
