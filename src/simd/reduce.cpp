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
#include "realify/kernels/ordering.hpp"
#include "axes.hpp"
#include "tensor_checks.hpp"

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
using detail::axis;
using detail::coalesce;

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

/// What is accumulated per output element: sums in double, products and
/// extrema in the input's type (the pair product of the element kernel;
/// element<op::maximum> / <op::minimum>, real only).
template <class S, bool Complex, reduction R>
struct accumulator {
    static constexpr bool extremum = R == reduction::amax || R == reduction::amin;
    static_assert(!(Complex && extremum), "complex values have no ordering");
    using part = std::conditional_t<R == reduction::prod || extremum, S, double>;
    using value = std::conditional_t<Complex, cpair<part>, part>;
    using ordering = kernel::element<std::conditional_t<R == reduction::amax, op::maximum, op::minimum>>;
    /// The walk may accumulate a block of outputs together, row by row.
    static constexpr bool across = R != reduction::prod;
    /// Runs are multiplied, the first one kept as it is.
    static constexpr bool product = R == reduction::prod;

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
    static value combine(value a, value b) noexcept {  // sums and extrema
        if constexpr (extremum) return ordering{}(a, b);
        else if constexpr (Complex) return {a.re + b.re, a.im + b.im};
        else return a + b;
    }
    /// The run of n elements at p (stride in components): pairwise for sums.
    static value run(const S* p, std::ptrdiff_t stride, std::size_t n) noexcept {
        if (R == reduction::prod || extremum || n <= 32) {
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

/// The moments of the elements seen: their count, mean and sum of squared
/// deviations from it (complex: both parts' deviations, |z − mean|²), in
/// double. A run is reduced by two passes (its pairwise sum, then its
/// pairwise squared deviations from the mean, corrected by the rounding of
/// the mean: Σd² − (Σd)²/n); runs are combined by Chan's formula; elements
/// added one by one (outputs accumulated together) by Welford's update.
template <class S, bool Complex>
struct moments {
    static constexpr bool across = true;
    static constexpr bool product = false;
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

/// Advances an odometer over `axes` (all but the last `skip`), moving the
/// pointers; false when it wrapped around.
template <class S, class D>
bool advance(std::span<const axis> axes, std::array<std::size_t, max_rank>& index, const S*& in, D*& out) noexcept {
    for (std::size_t a = axes.size(); a-- > 0;) {
        in += axes[a].in;
        out += axes[a].out;
        if (++index[a] < axes[a].extent) return true;
        in -= static_cast<std::ptrdiff_t>(axes[a].extent) * axes[a].in;
        out -= static_cast<std::ptrdiff_t>(axes[a].extent) * axes[a].out;
        index[a] = 0;
    }
    return false;
}


template <class S, class D, class acc, class Store = default_store<acc>>
void reduce_impl(const tensor_ref& in, std::span<const std::size_t> reduced_axes, const tensor_ref& out,
                 const Store& store = {}) {
    // kept axes (with their output strides) and reduced axes, in index order
    std::array<axis, max_rank> kept{}, reduced{};
    std::size_t n_kept = 0, n_reduced = 0, out_axis = 0;
    const bool keepdim = out.rank() == in.rank();
    std::size_t count = 1;
    for (std::size_t a = 0; a < in.rank(); ++a) {
        const bool is_reduced = std::find(reduced_axes.begin(), reduced_axes.end(), a) != reduced_axes.end();
        if (is_reduced) {
            reduced[n_reduced++] = {in.shape[a], in.strides[a], 0};
            count *= in.shape[a];
            if (keepdim) ++out_axis;
        } else {
            kept[n_kept++] = {in.shape[a], in.strides[a], out.strides[out_axis++]};
        }
    }
    n_kept = coalesce(kept, n_kept);
    n_reduced = coalesce(reduced, n_reduced);
    const S* const in_base = static_cast<const S*>(in.data);
    D* const out_base = static_cast<D*>(out.data);

    // the innermost reduced run; the outer reduced axes are walked by an odometer
    const axis run = n_reduced > 0 ? reduced[n_reduced - 1] : axis{1, 0, 0};
    const std::span<const axis> outer_reduced(reduced.data(), n_reduced > 0 ? n_reduced - 1 : 0);
    std::size_t outer_count = 1;
    for (const axis& x : outer_reduced) outer_count *= x.extent;
    // the runs' results combined in order (a product starts from the first
    // run: (1 + 0i)·z is not z when z is not finite)
    auto reduce_at = [&](const S* p) {
        std::array<std::size_t, max_rank> index{};
        D* unused = nullptr;
        typename acc::value total = acc::init();
        for (std::size_t r = 0; r < outer_count; ++r) {
            const auto part = acc::run(p, run.in, run.extent);
            if constexpr (acc::product) {
                if (r == 0) total = part;
                else if constexpr (requires { part.re; }) total = kernel::element<op::mul>{}(total, part);
                else total *= part;
            } else {
                total = acc::combine(total, part);
            }
            advance(outer_reduced, index, p, unused);
        }
        return total;
    };

    // across: a kept axis is the input's innermost — accumulate a block of outputs together
    std::size_t inner_kept = n_kept;
    for (std::size_t i = 0; i < n_kept; ++i)
        if (inner_kept == n_kept || std::abs(kept[i].in) < std::abs(kept[inner_kept].in)) inner_kept = i;
    const bool across = inner_kept < n_kept && std::abs(kept[inner_kept].in) < std::abs(run.in) && acc::across;

    if (!across) {
        std::array<std::size_t, max_rank> index{};
        const S* p = in_base;
        D* o = out_base;
        do {
            store(reduce_at(p), count, o);
        } while (advance(std::span<const axis>(kept.data(), n_kept), index, p, o));
        return;
    }
    // the other kept axes by odometer; blocks of block_width along inner_kept
    const axis inner = kept[inner_kept];
    std::array<axis, max_rank> others{};
    std::size_t n_others = 0;
    for (std::size_t i = 0; i < n_kept; ++i)
        if (i != inner_kept) others[n_others++] = kept[i];
    std::array<typename acc::value, block_width> block;
    std::array<std::size_t, max_rank> index{};
    const S* p = in_base;
    D* o = out_base;
    do {
        for (std::size_t j0 = 0; j0 < inner.extent; j0 += block_width) {
            const std::size_t n = std::min(block_width, inner.extent - j0);
            block.fill(acc::init());
            std::array<std::size_t, max_rank> r_index{};
            const S* q = p + static_cast<std::ptrdiff_t>(j0) * inner.in;
            D* unused = nullptr;
            if (count > 0) {
                do {
                    const S* x = q;
                    for (std::size_t j = 0; j < n; ++j, x += inner.in) acc::add(block[j], x);
                } while (advance(std::span<const axis>(reduced.data(), n_reduced), r_index, q, unused));
            }
            D* y = o + static_cast<std::ptrdiff_t>(j0) * inner.out;
            for (std::size_t j = 0; j < n; ++j, y += inner.out) store(block[j], count, y);
        }
    } while (advance(std::span<const axis>(others.data(), n_others), index, p, o));
}

template <class S, class D, bool Complex>
void cumsum_impl(const tensor_ref& in, std::size_t scan_axis, const tensor_ref& out) {
    using acc = accumulator<S, Complex, reduction::sum>;
    std::array<axis, max_rank> others{};
    std::size_t n_others = 0;
    for (std::size_t a = 0; a < in.rank(); ++a)
        if (a != scan_axis) others[n_others++] = {in.shape[a], in.strides[a], out.strides[a]};
    n_others = coalesce(others, n_others);
    const axis scan{in.shape[scan_axis], in.strides[scan_axis], out.strides[scan_axis]};
    std::size_t inner = n_others;  // the other axis innermost in the input, if it is inner to the scan
    for (std::size_t i = 0; i < n_others; ++i)
        if (inner == n_others || std::abs(others[i].in) < std::abs(others[inner].in)) inner = i;
    const bool across = inner < n_others && std::abs(others[inner].in) < std::abs(scan.in);
    const axis line = across ? others[inner] : axis{1, 0, 0};
    if (across) {
        for (std::size_t i = inner; i + 1 < n_others; ++i) others[i] = others[i + 1];
        --n_others;
    }
    std::array<typename acc::value, block_width> block;
    std::array<std::size_t, max_rank> index{};
    const S* p = static_cast<const S*>(in.data);
    D* o = static_cast<D*>(out.data);
    do {
        for (std::size_t j0 = 0; j0 < line.extent; j0 += block_width) {
            const std::size_t n = std::min(block_width, line.extent - j0);
            block.fill(acc::init());
            const S* x = p + static_cast<std::ptrdiff_t>(j0) * line.in;
            D* y = o + static_cast<std::ptrdiff_t>(j0) * line.out;
            for (std::size_t k = 0; k < scan.extent; ++k, x += scan.in, y += scan.out) {
                const S* xj = x;
                D* yj = y;
                for (std::size_t j = 0; j < n; ++j, xj += line.in, yj += line.out) {
                    acc::add(block[j], xj);  // read before the write: in place is safe
                    acc::store(block[j], 1, yj);
                }
            }
        }
    } while (advance(std::span<const axis>(others.data(), n_others), index, p, o));
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
    auto run = [&]<class S, class D>(S*, D*) {
        if (in.complex) reduce_impl<S, D, moments<S, true>>(in, axes, out, store);
        else reduce_impl<S, D, moments<S, false>>(in, axes, out, store);
    };
    auto with_out = [&]<class S>(S*) {
        if (out.type == component::float64) run(static_cast<S*>(nullptr), static_cast<double*>(nullptr));
        else run(static_cast<S*>(nullptr), static_cast<float*>(nullptr));
    };
    if (in.type == component::float64) with_out(static_cast<double*>(nullptr));
    else with_out(static_cast<float*>(nullptr));
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
