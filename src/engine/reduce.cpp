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
// What is accumulated is an accumulator type's: sums (pairwise per run),
// products, extrema (amax, amin: maximum / minimum, NaN propagating) and
// moments (var, std: each run's count, mean and squared deviations by two
// passes over the run, runs combined by Chan's formula; Welford's update
// where outputs are accumulated together) — a fixed order, whatever the
// thread count.
//
// Large calls run on several threads (realify/threads.hpp) with the same
// results as on one: outputs (along) or blocks of outputs (across, the scan)
// are split between threads; an output whose input is large is computed in
// pieces that depend on the sizes only — the subtrees of a run's pairwise
// sum, the chunks of a product, windows of runs — combined in the order one
// thread combines them.
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
#include <utility>

#include "realify/errors.hpp"
#include "realify/kernels/arithmetic.hpp"
#include "realify/kernels/ordering.hpp"
#include "../simd/parallel.hpp"
#include "realify/threads.hpp"
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

using kernels::cpair;

constexpr std::size_t block_width = 256;
/// Elements of a product computed in order before the next chunk starts (run).
constexpr std::size_t prod_chunk = std::size_t{1} << 14;
/// Partial results one split step holds at once (run_split, windows of runs).
constexpr std::size_t max_parts = 256;

/// Runs f(S*, D*) with the C++ types of the input's and the output's components
/// (float or double, checked by the caller).
template <class F>
void with_floating_types(const tensor_ref& in, const tensor_ref& out, F&& f) {
    auto with_out = [&]<class S>(S*) {
        if (out.type == component::float64) f(static_cast<S*>(nullptr), static_cast<double*>(nullptr));
        else f(static_cast<S*>(nullptr), static_cast<float*>(nullptr));
    };
    if (in.type == component::float64) with_out(static_cast<double*>(nullptr));
    else with_out(static_cast<float*>(nullptr));
}

/// with_floating_types after checking that out is complex exactly when the input is.
template <class F>
void with_types(std::string_view op, const tensor_ref& in, const tensor_ref& out, F&& f) {
    if (!is_floating(in.type) || !is_floating(out.type))
        throw error("realify::" + std::string(op) + ": reductions read and write float or double components");
    if (in.complex != out.complex)
        throw error("realify::" + std::string(op) + ": out must be " + (in.complex ? "complex" : "real") + " like the input");
    with_floating_types(in, out, std::forward<F>(f));
}

/// What is accumulated per output element: sums in double, products and
/// extrema in the input's type (the pair product of the element kernel;
/// element<op::maximum> / <op::minimum>, real only).
template <class S, bool Complex, reduction R>
struct accumulator {
    static constexpr bool extremum = R == reduction::amax || R == reduction::amin;
    static_assert(!(Complex && extremum), "complex values have no ordering");
    using part = std::conditional_t<R == reduction::prod || extremum, S, double>;
    using value = std::conditional_t<Complex, cpair<part>, part>;
    using ordering = kernels::element<std::conditional_t<R == reduction::amax, op::maximum, op::minimum>>;
    /// The walk may accumulate a block of outputs together, row by row.
    static constexpr bool across = R != reduction::prod;

    static value init() noexcept {
        if constexpr (extremum) {
            return R == reduction::amax ? -std::numeric_limits<S>::infinity() : std::numeric_limits<S>::infinity();
        } else {
            const part one = R == reduction::prod ? part(1) : part(0);
            if constexpr (Complex) return {one, part(0)};
            else return one;
        }
    }
    static void add(value& acc, const S* p) noexcept {
        if constexpr (extremum) {
            acc = ordering{}(acc, p[0]);
        } else if constexpr (R == reduction::prod) {
            if constexpr (Complex) acc = kernels::element<op::mul>{}(acc, cpair<S>{p[0], p[1]});
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
    static value combine(value a, value b) noexcept {  // sums and extrema
        if constexpr (extremum) return ordering{}(a, b);
        else if constexpr (Complex) return {a.re + b.re, a.im + b.im};
        else return a + b;
    }
    /// The next part of a sequence folded in order: added, or multiplied (a
    /// product starts from its first part: (1 + 0i)·z is not z when z is not
    /// finite).
    static value fold(value total, value part, bool first) noexcept {
        if constexpr (R != reduction::prod) return combine(total, part);
        else if (first) return part;
        else if constexpr (Complex) return kernels::element<op::mul>{}(total, part);
        else return total * part;
    }
    /// n elements at p (stride in components) accumulated in order from init().
    static value sequence(const S* p, std::ptrdiff_t stride, std::size_t n) noexcept {
        value acc = init();
        for (std::size_t i = 0; i < n; ++i, p += stride) add(acc, p);
        return acc;
    }
    /// The run of n elements at p: pairwise for sums (halves down to 32
    /// elements); for products, chunks of prod_chunk elements multiplied in
    /// order — pieces that do not depend on the thread count, so run_split
    /// gives the same value on any number of threads.
    static value run(const S* p, std::ptrdiff_t stride, std::size_t n) noexcept {
        if constexpr (R == reduction::prod) {
            value total = init();
            for (std::size_t c = 0; c == 0 || c < n; c += prod_chunk)
                total = fold(total, sequence(p + static_cast<std::ptrdiff_t>(c) * stride, stride, std::min(prod_chunk, n - c)), c == 0);
            return total;
        } else {
            if (n <= 32) return sequence(p, stride, n);
            const std::size_t half = n / 2;
            return combine(run(p, stride, half), run(p + static_cast<std::ptrdiff_t>(half) * stride, stride, n - half));
        }
    }
    /// run(p, stride, n) computed on up to `threads` threads: the subtrees of
    /// the pairwise sum at one depth, or the chunks of the product, at once,
    /// then combined as run combines them.
    static value run_split(const S* p, std::ptrdiff_t stride, std::size_t n, std::size_t threads) {
        std::array<value, max_parts> parts;
        if constexpr (R == reduction::prod) {
            value total = init();
            const std::size_t chunks = parallel::pieces_of(n, prod_chunk);
            for (std::size_t c0 = 0; c0 < chunks; c0 += max_parts) {
                const std::size_t m = std::min(max_parts, chunks - c0);
                parallel::for_ranges(m, threads, [&](std::size_t a, std::size_t b) {
                    for (std::size_t i = a; i < b; ++i) {
                        const std::size_t c = (c0 + i) * prod_chunk;
                        parts[i] = sequence(p + static_cast<std::ptrdiff_t>(c) * stride, stride, std::min(prod_chunk, n - c));
                    }
                });
                for (std::size_t i = 0; i < m; ++i) total = fold(total, parts[i], c0 + i == 0);
            }
            return total;
        } else {
            // the nodes at depth d of run's tree: every node above it splits (n / 2^d > 32)
            std::size_t depth = 0;
            while ((std::size_t{1} << depth) < 4 * threads && (std::size_t{2} << depth) <= max_parts &&
                   (n >> (depth + 1)) > 32)
                ++depth;
            const std::size_t leaves = std::size_t{1} << depth;
            parallel::for_ranges(leaves, threads, [&](std::size_t a, std::size_t b) {
                for (std::size_t i = a; i < b; ++i) {
                    std::size_t first = 0, size = n;  // leaf i: left (0) or right (1) at each level, from the top
                    for (std::size_t level = depth; level-- > 0;) {
                        const std::size_t half = size / 2;
                        if ((i >> level) & 1) {
                            first += half;
                            size -= half;
                        } else {
                            size = half;
                        }
                    }
                    parts[i] = run(p + static_cast<std::ptrdiff_t>(first) * stride, stride, size);
                }
            });
            for (std::size_t width = leaves; width > 1; width /= 2)
                for (std::size_t i = 0; i < width / 2; ++i) parts[i] = combine(parts[2 * i], parts[2 * i + 1]);
            return parts[0];
        }
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

/// The moments of the elements seen: their count, mean and sum of squared
/// deviations from it (complex: both parts' deviations, |z − mean|²), in
/// double. A run is reduced by two passes (its pairwise sum, then its
/// pairwise squared deviations from the mean, corrected by the rounding of
/// the mean: Σd² − (Σd)²/n); runs are combined by Chan's formula; elements
/// added one by one (outputs accumulated together) by Welford's update.
template <class S, bool Complex>
struct moments {
    static constexpr bool across = true;
    static constexpr std::size_t parts = Complex ? 2 : 1;
    struct value {
        double n = 0;
        std::array<double, parts> mean{};
        double m2 = 0;
    };
    static value init() noexcept { return {}; }
    static void add(value& acc, const S* p) noexcept {
        acc.n += 1;
        for (std::size_t c = 0; c < parts; ++c) {
            const double x = static_cast<double>(p[c]);
            const double d = x - acc.mean[c];
            acc.mean[c] += d / acc.n;
            acc.m2 += d * (x - acc.mean[c]);
        }
    }
    static value combine(const value& a, const value& b) noexcept {
        if (a.n == 0) return b;
        if (b.n == 0) return a;
        value r;
        r.n = a.n + b.n;
        r.m2 = a.m2 + b.m2;
        for (std::size_t c = 0; c < parts; ++c) {
            const double d = b.mean[c] - a.mean[c];
            r.mean[c] = a.mean[c] + d * (b.n / r.n);
            r.m2 += d * d * (a.n * b.n / r.n);
        }
        return r;
    }
    /// Σ f(element) over the run, pairwise.
    template <class F>
    static double pairwise(const S* p, std::ptrdiff_t stride, std::size_t n, const F& f) noexcept {
        if (n <= 32) {
            double s = 0;
            for (std::size_t i = 0; i < n; ++i, p += stride) s += f(p);
            return s;
        }
        const std::size_t half = n / 2;
        return pairwise(p, stride, half, f) + pairwise(p + static_cast<std::ptrdiff_t>(half) * stride, stride, n - half, f);
    }
    static value run(const S* p, std::ptrdiff_t stride, std::size_t n) noexcept {
        value r;
        if (n == 0) return r;
        r.n = static_cast<double>(n);
        for (std::size_t c = 0; c < parts; ++c)
            r.mean[c] = pairwise(p + c, stride, n, [](const S* q) { return static_cast<double>(*q); }) / r.n;
        for (std::size_t c = 0; c < parts; ++c) {
            const double mean = r.mean[c];
            const double d = pairwise(p + c, stride, n, [mean](const S* q) { return static_cast<double>(*q) - mean; });
            const double squares = pairwise(p + c, stride, n, [mean](const S* q) {
                const double e = static_cast<double>(*q) - mean;
                return e * e;
            });
            // d·(d/n) ≤ Σd² (Cauchy–Schwarz): no overflow of its own; an overflowed Σd² stays inf
            r.m2 += std::isfinite(squares) ? squares - d * (d / r.n) : squares;
        }
        return r;
    }
    static value fold(const value& total, const value& part, bool) noexcept { return combine(total, part); }
    /// A run is not split: its passes read it whole (so one var of a single
    /// long run stays on one thread, with the same value on any count).
    static value run_split(const S* p, std::ptrdiff_t stride, std::size_t n, std::size_t) noexcept {
        return run(p, stride, n);
    }
};

/// How a reduction's accumulated value is written: the accumulator's store,
/// or var / std (Σd² / max(0, n − correction), its square root).
template <class Acc>
struct default_store {
    template <class D>
    void operator()(const typename Acc::value& v, std::size_t count, D* out) const noexcept {
        Acc::store(v, count, out);
    }
};
struct variance_store {
    double correction;
    bool root;
    template <class Value, class D>
    void operator()(const Value& v, std::size_t, D* out) const noexcept {
        const double var = std::max(v.m2, 0.0) / std::max(0.0, v.n - correction);  // no degrees left: 0/0 or x/0, as PyTorch
        out[0] = static_cast<D>(root ? std::sqrt(var) : var);
    }
};

/// Axes of a reduction: stride 0 the input's, stride 1 the output's (0 along
/// a reduced axis), in components.
using axis = walk::axis<2>;
using axis_list = walk::axes<2>;
using odometer = walk::odometer<2>;

/// Runs f(position, j0, n) for every block [j0, j0 + n) of up to block_width
/// elements along a line of `extent` elements, at every position of
/// `others`: the pieces of work of the across walk and the scan, split over
/// `threads` (each piece's outputs are its own).
template <class F>
void for_line_blocks(const axis_list& others, std::size_t extent, std::size_t threads, const F& f) {
    const std::size_t blocks = parallel::pieces_of(extent, block_width);
    parallel::for_ranges(others.count() * blocks, threads, [&](std::size_t a, std::size_t b) {
        odometer position(others.all(), a / blocks);
        for (std::size_t piece = a; piece < b; ++piece) {
            const std::size_t j0 = piece % blocks * block_width;
            if (j0 == 0 && piece != a) position.next();
            f(position, j0, std::min(block_width, extent - j0));
        }
    });
}

template <class S, class D, class acc, class Store = default_store<acc>>
void reduce_impl(const tensor_ref& in, std::span<const std::size_t> reduced_axes, const tensor_ref& out,
                 const Store& store = {}) {
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
    const std::size_t threads = parallel::threads_for(count * kept.count(), grain::reduction);

    // across: a kept axis is the input's innermost — accumulate a block of outputs together
    std::size_t inner_kept = kept.rank;
    for (std::size_t i = 0; i < kept.rank; ++i)
        if (inner_kept == kept.rank || std::abs(kept[i].stride[0]) < std::abs(kept[inner_kept].stride[0])) inner_kept = i;
    const bool across = inner_kept < kept.rank && std::abs(kept[inner_kept].stride[0]) < std::abs(run.stride[0]) &&
                        acc::across;

    if (!across) {
        // One output: its runs reduced and folded in order. With `split`
        // threads, a long run is split inside (run_split), short runs are
        // reduced a window at a time — the same value either way.
        auto reduce_at = [&](const S* p, std::size_t split) {
            typename acc::value total = acc::init();
            if (split > 1 && run.extent >= 2 * grain::reduction) {
                odometer position(outer_reduced);
                for (std::size_t r = 0; r < outer_count; ++r, position.next())
                    total = acc::fold(total, acc::run_split(p + position[0], run.stride[0], run.extent, split), r == 0);
                return total;
            }
            if (split > 1 && outer_count > 1) {
                std::array<typename acc::value, max_parts> parts;
                for (std::size_t r0 = 0; r0 < outer_count; r0 += max_parts) {
                    const std::size_t m = std::min(max_parts, outer_count - r0);
                    parallel::for_ranges(m, split, [&](std::size_t a, std::size_t b) {
                        odometer position(outer_reduced, r0 + a);
                        for (std::size_t i = a; i < b; ++i, position.next())
                            parts[i] = acc::run(p + position[0], run.stride[0], run.extent);
                    });
                    for (std::size_t i = 0; i < m; ++i) total = acc::fold(total, parts[i], r0 + i == 0);
                }
                return total;
            }
            odometer position(outer_reduced);
            for (std::size_t r = 0; r < outer_count; ++r, position.next())
                total = acc::fold(total, acc::run(p + position[0], run.stride[0], run.extent), r == 0);
            return total;
        };
        // many outputs: ranges of them per thread; few: each split inside
        const std::size_t outputs = kept.count();
        const bool per_output = outputs >= 4 * threads;
        parallel::for_ranges(outputs, per_output ? threads : 1, [&](std::size_t a, std::size_t b) {
            odometer position(kept.all(), a);
            for (std::size_t i = a; i < b; ++i, position.next())
                store(reduce_at(in_base + position[0], per_output ? 1 : threads), count, out_base + position[1]);
        });
        return;
    }
    // the other kept axes by odometer; blocks of block_width along inner_kept
    axis_list others = kept;
    const axis inner = others.take(inner_kept);
    for_line_blocks(others, inner.extent, threads, [&](const odometer& position, std::size_t j0, std::size_t n) {
        std::array<typename acc::value, block_width> block;
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
        for (std::size_t j = 0; j < n; ++j, y += inner.stride[1]) store(block[j], count, y);
    });
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
    const S* const in_base = static_cast<const S*>(in.data);
    D* const out_base = static_cast<D*>(out.data);
    const std::size_t threads = parallel::threads_for(in.count(), grain::reduction);
    for_line_blocks(others, line.extent, threads, [&](const odometer& position, std::size_t j0, std::size_t n) {
        std::array<typename acc::value, block_width> block;
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
    });
}

std::size_t reduced_count(const tensor_ref& in, std::span<const std::size_t> axes) noexcept {
    std::size_t count = 1;
    for (std::size_t a : axes) count *= in.shape[a];
    return count;
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
    const bool extremum = r == reduction::amax || r == reduction::amin;
    if (extremum && in.complex) throw error("realify::" + std::string(op) + ": complex values have no ordering (PyTorch refuses them too)");
    with_types(op, in, out, [&]<class S, class D>(S*, D*) {
        check_output(op, in, out, reduced_shape(in.shape, axes, keepdim));
        if (out.count() == 0) return;
        if (extremum && reduced_count(in, axes) == 0)
            throw_shape_error(op, "the reduced dims of an input of shape " + realify::detail::format_sequence(in.shape) +
                                      " are empty: a maximum or minimum of no elements does not exist (as PyTorch)");
        auto run = [&]<bool Complex>(std::bool_constant<Complex>) {
            switch (r) {
                case reduction::sum: reduce_impl<S, D, accumulator<S, Complex, reduction::sum>>(in, axes, out); break;
                case reduction::mean: reduce_impl<S, D, accumulator<S, Complex, reduction::mean>>(in, axes, out); break;
                case reduction::prod: reduce_impl<S, D, accumulator<S, Complex, reduction::prod>>(in, axes, out); break;
                case reduction::amax:
                case reduction::amin:
                    if constexpr (!Complex) {
                        if (r == reduction::amax) reduce_impl<S, D, accumulator<S, false, reduction::amax>>(in, axes, out);
                        else reduce_impl<S, D, accumulator<S, false, reduction::amin>>(in, axes, out);
                    }
                    break;
            }
        };
        if (in.complex) run(std::true_type{});
        else run(std::false_type{});
    });
}

void variance(std::string_view op, const tensor_ref& in, std::span<const std::size_t> axes, double correction,
              bool keepdim, bool root, const tensor_ref& out) {
    if (!is_floating(in.type) || !is_floating(out.type) || out.complex)
        throw error("realify::" + std::string(op) + ": var and std read float or double components and write real ones");
    check_output(op, in, out, reduced_shape(in.shape, axes, keepdim));
    if (out.count() == 0) return;
    const variance_store store{correction, root};
    with_floating_types(in, out, [&]<class S, class D>(S*, D*) {
        if (in.complex) reduce_impl<S, D, moments<S, true>>(in, axes, out, store);
        else reduce_impl<S, D, moments<S, false>>(in, axes, out, store);
    });
}

void cumsum(std::string_view op, const tensor_ref& in, std::size_t axis, const tensor_ref& out) {
    with_types(op, in, out, [&]<class S, class D>(S*, D*) {
        check_output(op, in, out, in.shape);
        if (in.count() == 0) return;
        if (in.rank() == 0) {
            const std::array<std::size_t, 0> none{};
            if (in.complex) reduce_impl<S, D, accumulator<S, true, reduction::sum>>(in, none, out);
            else reduce_impl<S, D, accumulator<S, false, reduction::sum>>(in, none, out);
            return;
        }
        if (in.complex) cumsum_impl<S, D, true>(in, axis, out);
        else cumsum_impl<S, D, false>(in, axis, out);
    });
}

}  // namespace realify::engine
