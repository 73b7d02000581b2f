// The reductions and the scan (realify/engine/reduce.hpp): the walks over
// the tensors, on the reduction kernels of the active instruction set
// (src/simd/isa/reduce_kernels.hpp, kernel_table.hpp's reduce_set), which all
// compute one fixed order (docs/numerics.md, "Reductions"):
//
//   along   the reduced elements of an output, in memory order (reversed
//           axes are read forwards), form its sequence; a sequence that is
//           not one contiguous run is copied a block at a time. The kernel
//           gives each block's value (reduce_block reals, 64 real lanes
//           halved).
//   across  a kept axis is innermost: strips of up to strip_width reals of
//           outputs are reduced together, row by row, in blocks of
//           across_block rows; the kernel gives each block's values.
//
// The values of the blocks are combined pairwise (block_tree: blocks 0 and
// 1, 2 and 3, then those pairs, …; the pieces left over from the right), by
// sums, products (element<op::mul> for complex), extrema
// (element<op::maximum> / <op::minimum>) or moments (counts, means and sums
// of squared deviations, by Chan's formula). Sums accumulate in double.
//
// Large calls run on several threads (realify/threads.hpp) with the same
// results as on one: outputs (or strips of outputs) are split between
// threads; the blocks of a single long sequence are split into aligned
// groups of 2^g blocks, each a subtree of the same pairwise tree, combined
// as one thread combines them.
//
// cumsum: along, the kernel's groups of scan_group reals; across, each
// output component adds its rows in order. Lines (or strips of lines) are
// split between threads, never a line.
//
// Compiled for the baseline ISA with IEEE semantics (realify_isa_sources).
#include "realify/engine/reduce.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "realify/errors.hpp"
#include "realify/kernels/arithmetic.hpp"
#include "realify/kernels/ordering.hpp"
#include "../simd/kernel_table.hpp"
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
using simd::detail::across_block;
using simd::detail::reduce_block;
using simd::detail::reduce_lanes;
using simd::detail::reduce_set;

/// Reals of outputs one strip of the across walk holds.
constexpr std::size_t strip_width = 256;
/// Pieces one split of a single sequence makes at most.
constexpr std::size_t max_parts = 256;
/// Elements of a line the scan copies at a time (strided lines).
constexpr std::size_t scan_chunk = 1024;

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

// ---- what is accumulated ----
//
// A policy names the kernels of one reduction (reduce_set's members) and how
// their values combine. Values come in slots: `width` reals of outputs (e per
// element), `Sets` values per real (moments: the means, then the sums of
// squared deviations).

template <class S, class V, auto Along, auto Across, std::size_t Sets = 1, bool OrderFree = false>
struct kernels_of {
    using value = V;
    static constexpr std::size_t sets = Sets;
    static constexpr bool order_free = OrderFree;  // the order of the values does not change the result
    static void along(const reduce_set<S>& k, const S* x, std::size_t n, std::ptrdiff_t next, std::size_t runs,
                      std::size_t e, V* out) noexcept {
        (k.*Along)(x, n, next, runs, e, out);
    }
    static void across(const reduce_set<S>& k, const S* x, const std::ptrdiff_t* offsets, std::size_t rows,
                       std::size_t width, std::size_t e, V* out) noexcept {
        (k.*Across)(x, offsets, rows, width, e, out);
    }
};

template <class S>
struct sums : kernels_of<S, double, &reduce_set<S>::sum, &reduce_set<S>::sum_rows> {
    static void combine(double* a, double, const double* b, double, std::size_t width, std::size_t) noexcept {
        for (std::size_t i = 0; i < width; ++i) a[i] += b[i];
    }
    static double empty() noexcept { return 0.0; }
};

template <class S>
struct products : kernels_of<S, S, &reduce_set<S>::prod, &reduce_set<S>::prod_rows> {
    static void combine(S* a, double, const S* b, double, std::size_t width, std::size_t e) noexcept {
        if (e == 1) {
            for (std::size_t i = 0; i < width; ++i) a[i] *= b[i];
            return;
        }
        for (std::size_t i = 0; i < width; i += 2) {
            const cpair<S> r = kernels::element<op::mul>{}(cpair<S>{a[i], a[i + 1]}, cpair<S>{b[i], b[i + 1]});
            a[i] = r.re;
            a[i + 1] = r.im;
        }
    }
    static S empty() noexcept { return S(1); }  // and 0 for the imaginary part: see empty_slot
};

template <class S, bool Max>
struct extrema : kernels_of<S, S, Max ? &reduce_set<S>::max : &reduce_set<S>::min,
                            Max ? &reduce_set<S>::max_rows : &reduce_set<S>::min_rows, 1, true> {
    using ordering = kernels::element<std::conditional_t<Max, op::maximum, op::minimum>>;
    static void combine(S* a, double, const S* b, double, std::size_t width, std::size_t) noexcept {
        for (std::size_t i = 0; i < width; ++i) a[i] = ordering{}(a[i], b[i]);
    }
    static S empty() noexcept { return S(0); }  // not reached: no extremum of no elements
};

template <class S>
struct moments : kernels_of<S, double, &reduce_set<S>::moments, &reduce_set<S>::moments_rows, 2> {
    /// Chan's formula: the means moved by their difference d weighted by the
    /// counts, the squared deviations added with d²·na·nb/n.
    static void combine(double* a, double na, const double* b, double nb, std::size_t width, std::size_t) noexcept {
        const double n = na + nb, move = nb / n, spread = na * nb / n;
        for (std::size_t i = 0; i < width; ++i) {
            const double d = b[i] - a[i];
            a[i] = a[i] + d * move;
            a[width + i] = a[width + i] + b[width + i] + d * d * spread;
        }
    }
    static double empty() noexcept { return 0.0; }
};

/// The value of every slot entry of no elements (the product 1 + 0i).
template <class P>
void empty_slot(typename P::value* v, std::size_t width, std::size_t e) noexcept {
    for (std::size_t i = 0; i < width * P::sets; ++i) v[i] = i % e == 0 ? P::empty() : typename P::value(0);
}

// ---- how an accumulated value is written ----

/// sum, prod, amax, amin: the value; mean: the sum over the count (0/0: NaN, as PyTorch).
struct plain_store {
    bool mean = false;
    template <class V, class D>
    void operator()(const V* slot, std::size_t j, std::size_t, std::size_t e, double count, D* out) const noexcept {
        for (std::size_t c = 0; c < e; ++c) {
            const V x = slot[j * e + c];
            out[c] = mean ? static_cast<D>(static_cast<double>(x) / count) : static_cast<D>(x);
        }
    }
};
/// var, std: Σ|x − mean|² / max(0, n − correction), its square root; out is real.
struct variance_store {
    double correction;
    bool root;
    template <class D>
    void operator()(const double* slot, std::size_t j, std::size_t width, std::size_t e, double count,
                    D* out) const noexcept {
        double m2 = 0;
        for (std::size_t c = 0; c < e; ++c) m2 += slot[width + j * e + c];
        const double var = std::max(m2, 0.0) / std::max(0.0, count - correction);  // no degrees left: 0/0 or x/0, as PyTorch
        out[0] = static_cast<D>(root ? std::sqrt(var) : var);
    }
};

// ---- the pairwise combination of the blocks' values ----

/// The blocks' values of one sequence combined pairwise: a stack of slots,
/// each a subtree of 2^level blocks; a block pushed merges with the subtrees
/// of its size below it (blocks 0 and 1, then 2 and 3 and the pair before
/// them, …), and finish() combines what is left from the top (the smallest,
/// rightmost) down. A group of 2^g aligned blocks pushed as one subtree at
/// level g, or the rest of the sequence pushed last as a `tail`, gives the
/// same value as its blocks pushed one by one.
template <class P>
class block_tree {
public:
    using value = typename P::value;
    static constexpr unsigned tail = 255;

    block_tree(std::size_t width, std::size_t e) : m_width(width), m_e(e), m_slot(width * P::sets) {}

    /// Where the next value goes (slot() entries).
    value* next() {
        if (m_slot <= small_slot) return m_small.data() + m_depth * m_slot;
        if (m_values.size() < (m_depth + 1) * m_slot) m_values.resize((m_depth + 1) * m_slot);
        return m_values.data() + m_depth * m_slot;
    }
    /// Commits the value written at next(): `count` elements, a subtree of 2^level blocks (or the tail).
    void push(double count, unsigned level = 0) {
        m_levels[m_depth] = level;
        m_counts[m_depth] = count;
        ++m_depth;
        while (m_depth >= 2 && m_levels[m_depth - 2] == m_levels[m_depth - 1] && level != tail) {
            merge();
            ++m_levels[m_depth - 1];
        }
    }
    /// The value of everything pushed (in slot 0), and its count.
    const value* finish(double& count) {
        while (m_depth > 1) merge();
        count = m_depth == 0 ? 0 : m_counts[0];
        return data();
    }
    std::size_t slot() const noexcept { return m_slot; }
    /// Empty again, keeping its memory (one tree serves a thread's outputs).
    void clear() noexcept { m_depth = 0; }

private:
    value* data() noexcept { return m_slot <= small_slot ? m_small.data() : m_values.data(); }
    void merge() {
        value* a = data() + (m_depth - 2) * m_slot;
        P::combine(a, m_counts[m_depth - 2], a + m_slot, m_counts[m_depth - 1], m_width, m_e);
        m_counts[m_depth - 2] += m_counts[m_depth - 1];
        --m_depth;
    }

    /// Entries at most: one subtree per level of a count of blocks below 2^64, and a tail.
    static constexpr std::size_t max_depth = 66;
    /// Slots of one output (along) live in the tree itself: no allocation per call.
    static constexpr std::size_t small_slot = 4;

    std::size_t m_width, m_e, m_slot;
    std::size_t m_depth = 0;
    std::array<value, max_depth * small_slot> m_small;
    std::vector<value> m_values;  // larger slots (a strip of outputs across)
    std::array<unsigned, max_depth> m_levels;
    std::array<double, max_depth> m_counts;
};

/// Pushes blocks [0, nb) into `tree` (empty) through leaves(first, last,
/// tree), on up to `threads` threads: aligned groups of 2^g blocks (g fixed
/// by nb) at once, each a subtree of the same tree, pushed in order.
template <class P, class Leaves>
void push_blocks(block_tree<P>& tree, std::size_t nb, std::size_t width, std::size_t e, std::size_t min_group,
                 std::size_t threads, const Leaves& leaves) {
    const std::size_t group = std::bit_ceil(std::max({min_group, parallel::pieces_of(nb, max_parts), std::size_t{1}}));
    const std::size_t pieces = parallel::pieces_of(nb, group);
    if (threads <= 1 || pieces <= 1) {
        leaves(0, nb, tree);
        return;
    }
    const std::size_t slot = tree.slot();
    std::vector<typename P::value> values(pieces * slot);
    std::vector<double> counts(pieces);
    parallel::for_ranges(pieces, threads, [&](std::size_t a, std::size_t b) {
        for (std::size_t i = a; i < b; ++i) {
            block_tree<P> part(width, e);
            leaves(i * group, std::min(nb, (i + 1) * group), part);
            const typename P::value* v = part.finish(counts[i]);
            std::copy(v, v + slot, values.begin() + static_cast<std::ptrdiff_t>(i * slot));
        }
    });
    const auto level = static_cast<unsigned>(std::countr_zero(group));
    for (std::size_t i = 0; i < pieces; ++i) {
        std::copy(values.begin() + static_cast<std::ptrdiff_t>(i * slot),
                  values.begin() + static_cast<std::ptrdiff_t>((i + 1) * slot), tree.next());
        tree.push(counts[i], (i + 1) * group <= nb ? level : block_tree<P>::tail);
    }
}

/// Axes of a reduction: stride 0 the input's, stride 1 the output's (0 along
/// a reduced axis), in components.
using axis = walk::axis<2>;
using axis_list = walk::axes<2>;
using odometer = walk::odometer<2>;

/// Reverses a kept axis along which the input steps backwards (its outputs
/// move with it); returns the offsets the first elements moved by.
std::array<std::ptrdiff_t, 2> make_forward(axis& a) noexcept {
    std::array<std::ptrdiff_t, 2> moved{};
    if (a.stride[0] >= 0) return moved;
    for (std::size_t o = 0; o < 2; ++o) {
        moved[o] = static_cast<std::ptrdiff_t>(a.extent - 1) * a.stride[o];
        a.stride[o] = -a.stride[o];
    }
    return moved;
}

/// The reduced elements of one output: runs of `run` along the odometer of
/// `outer`, in memory order.
template <class S>
struct sequence {
    const S* base;
    std::span<const axis> outer;
    axis run;
    std::size_t e;

    bool contiguous() const noexcept { return outer.empty() && (run.extent == 1 || run.stride[0] == static_cast<std::ptrdiff_t>(e)); }
    /// Elements [first, first + n) copied to buffer.
    void gather(std::size_t first, std::size_t n, S* buffer) const noexcept {
        odometer position(outer, first / run.extent);
        std::size_t i = first % run.extent;
        while (n > 0) {
            const std::size_t take = std::min(n, run.extent - i);
            const S* p = base + position[0] + static_cast<std::ptrdiff_t>(i) * run.stride[0];
            if (run.stride[0] == static_cast<std::ptrdiff_t>(e)) {
                buffer = std::copy(p, p + take * e, buffer);
            } else {
                for (std::size_t k = 0; k < take; ++k, p += run.stride[0], buffer += e)
                    for (std::size_t c = 0; c < e; ++c) buffer[c] = p[c];
            }
            n -= take;
            i = 0;
            position.next();
        }
    }
};

/// Pushes the blocks [b0, b1) of an along sequence of n reals into tree.
template <class P, class S>
void along_leaves(const reduce_set<S>& k, const sequence<S>& seq, std::size_t n, std::size_t b0, std::size_t b1,
                  block_tree<P>& tree) {
    const std::size_t e = seq.e;
    if (seq.contiguous() && P::order_free) {  // one value for the whole range
        const std::size_t first = b0 * reduce_block, m = std::min(n, b1 * reduce_block) - first;
        P::along(k, seq.base + first, m, 0, 1, e, tree.next());
        tree.push(static_cast<double>(m / e));
        return;
    }
    if (seq.contiguous()) {  // a few blocks per call, then their values pushed
        constexpr std::size_t chunk = 16;
        std::array<typename P::value, chunk * 2 * P::sets> values;
        const std::size_t slot = e * P::sets;
        for (std::size_t c0 = b0; c0 < b1; c0 += chunk) {
            const std::size_t c1 = std::min(b1, c0 + chunk), first = c0 * reduce_block;
            const std::size_t m = std::min(n, c1 * reduce_block) - first;
            P::along(k, seq.base + first, m, 0, 1, e, values.data());
            for (std::size_t b = c0; b < c1; ++b) {
                const typename P::value* v = values.data() + (b - c0) * slot;
                std::copy(v, v + slot, tree.next());
                tree.push(static_cast<double>(std::min(reduce_block, n - b * reduce_block) / e));
            }
        }
        return;
    }
    alignas(64) std::array<S, reduce_block> buffer;
    for (std::size_t b = b0; b < b1; ++b) {
        const std::size_t first = b * reduce_block, m = std::min(reduce_block, n - first);
        seq.gather(first / e, m / e, buffer.data());
        P::along(k, buffer.data(), m, 0, 1, e, tree.next());
        tree.push(static_cast<double>(m / e));
    }
}

/// How a reduction walks its input: the kept axes (with the output's
/// strides) and the reduced ones, coalesced, the reduced elements in memory
/// order (reversed axes read forwards, the smallest stride innermost), and
/// whether the kept axis innermost in the input is walked across.
struct reduction_plan {
    axis_list kept, reduced;
    std::ptrdiff_t first = 0;  // components from in.data to the first element read
    std::size_t count = 1;     // reduced elements per output
    std::size_t outputs = 1;
    axis run;                  // the innermost reduced axis
    std::size_t inner_kept = 0;
    bool across = false;
};

reduction_plan plan_of(const tensor_ref& in, std::span<const std::size_t> reduced_axes, const tensor_ref& out) {
    reduction_plan p;
    std::size_t out_axis = 0;
    const bool keepdim = out.rank() == in.rank();
    for (std::size_t a = 0; a < in.rank(); ++a) {
        const bool is_reduced = std::find(reduced_axes.begin(), reduced_axes.end(), a) != reduced_axes.end();
        if (is_reduced) {
            p.reduced.push({in.shape[a], {in.strides[a], 0}});
            p.count *= in.shape[a];
            if (keepdim) ++out_axis;
        } else {
            p.kept.push({in.shape[a], {in.strides[a], out.strides[out_axis++]}});
        }
    }
    p.first = p.reduced.make_forward(0)[0];
    p.reduced.sort_by(0);
    p.reduced.coalesce();
    p.kept.coalesce();
    p.outputs = p.kept.count();
    p.run = p.reduced.rank > 0 ? p.reduced.back() : axis{1, {in.width(), 0}};
    p.inner_kept = p.kept.rank;  // the kept axis innermost in the input
    for (std::size_t i = 0; i < p.kept.rank; ++i)
        if (p.inner_kept == p.kept.rank || std::abs(p.kept[i].stride[0]) < std::abs(p.kept[p.inner_kept].stride[0]))
            p.inner_kept = i;
    p.across = p.inner_kept < p.kept.rank &&
               (p.reduced.rank == 0 || std::abs(p.kept[p.inner_kept].stride[0]) < p.run.stride[0]);
    return p;
}

/// The values of no elements stored to every output: sum 0, mean NaN, prod
/// 1, var NaN (extrema refused before).
template <class D, class P, class Store>
void store_empty(const axis_list& kept, std::size_t e, D* out_base, const Store& store) {
    std::array<typename P::value, 2 * P::sets> none;
    empty_slot<P>(none.data(), e, e);
    odometer position(kept.all());
    for (std::size_t i = 0; i < kept.count(); ++i, position.next()) store(none.data(), 0, e, e, 0.0, out_base + position[1]);
}

template <class S, class D, class P, class Store>
void reduce_impl(const tensor_ref& in, std::span<const std::size_t> reduced_axes, const tensor_ref& out,
                 const Store& store) {
    const reduce_set<S>& k = simd::detail::active_table().of<S>().reductions;
    const std::size_t e = in.complex ? 2 : 1;
    const auto ew = static_cast<std::ptrdiff_t>(e);
    reduction_plan plan = plan_of(in, reduced_axes, out);
    axis_list& kept = plan.kept;
    const axis_list& reduced = plan.reduced;
    const S* in_base = static_cast<const S*>(in.data) + plan.first;
    D* out_base = static_cast<D*>(out.data);
    const std::size_t count = plan.count, outputs = plan.outputs;
    const std::size_t threads = parallel::threads_for(count * outputs, grain::reduction);
    if (count == 0) return store_empty<D, P>(kept, e, out_base, store);
    const axis run = plan.run;
    const std::size_t inner_kept = plan.inner_kept;
    const bool across = plan.across;
    const double total = static_cast<double>(count);

    if (!across) {
        const std::size_t n = count * e;  // reals of each sequence
        const std::size_t nb = parallel::pieces_of(n, reduce_block);
        const sequence<S> shape{in_base, reduced.outer(), run, e};
        // one contiguous run per output: the kernel takes many outputs at once when each is one value
        // — when that makes a piece per thread (an order-free reduction of one long run, amax of a
        // whole tensor, is cut into blocks below instead, or it would run on one thread)
        const axis last = kept.rank > 0 ? kept.back() : axis{1, {0, 0}};
        const std::span<const axis> rows = kept.outer();
        std::size_t row_count = 1;
        for (const axis& x : rows) row_count *= x.extent;
        constexpr std::size_t batch = 128;
        const std::size_t chunks = parallel::pieces_of(last.extent, batch);
        if (shape.contiguous() && (nb == 1 || (P::order_free && row_count * chunks >= threads))) {
            parallel::for_ranges(row_count * chunks, threads, [&](std::size_t a, std::size_t b) {
                std::array<typename P::value, batch * 2 * P::sets> values;
                for (std::size_t piece = a; piece < b; ++piece) {
                    const odometer position(rows, piece / chunks);
                    const std::size_t j0 = piece % chunks * batch, runs = std::min(batch, last.extent - j0);
                    const S* x = in_base + position[0] + static_cast<std::ptrdiff_t>(j0) * last.stride[0];
                    P::along(k, x, n, last.stride[0], runs, e, values.data());
                    const std::size_t slot = (P::order_free ? 1 : e) * P::sets;
                    for (std::size_t j = 0; j < runs; ++j)
                        store(values.data() + j * slot, 0, e, e, total,
                              out_base + position[1] + static_cast<std::ptrdiff_t>(j0 + j) * last.stride[1]);
                }
            });
            return;
        }
        // one output: its blocks pushed into its tree (split between `split` threads)
        auto reduce_at = [&](const odometer& position, std::size_t split, block_tree<P>& tree) {
            sequence<S> seq = shape;
            seq.base = in_base + position[0];
            tree.clear();
            const std::size_t min_group = std::bit_ceil(parallel::pieces_of(grain::reduction * e, reduce_block));
            push_blocks(tree, nb, e, e, min_group, split, [&](std::size_t b0, std::size_t b1, block_tree<P>& t) {
                along_leaves(k, seq, n, b0, b1, t);
            });
            double c = 0;
            store(tree.finish(c), 0, e, e, total, out_base + position[1]);
        };
        const bool per_output = outputs >= 4 * threads;
        parallel::for_ranges(outputs, per_output ? threads : 1, [&](std::size_t a, std::size_t b) {
            odometer position(kept.all(), a);
            block_tree<P> tree(e, e);
            for (std::size_t i = a; i < b; ++i, position.next()) reduce_at(position, per_output ? 1 : threads, tree);
        });
        return;
    }

    // across: strips of up to strip_width reals along the innermost kept axis, rows by the reduced axes
    axis_list others = kept;
    axis inner = others.take(inner_kept);
    const auto moved = make_forward(inner);
    in_base += moved[0];
    out_base += moved[1];
    const bool contiguous = inner.stride[0] == ew;
    const std::size_t width_total = inner.extent * e;
    const std::size_t strips = parallel::pieces_of(width_total, strip_width);
    const std::size_t tasks = others.count() * strips;
    const std::size_t nb = parallel::pieces_of(count, across_block);
    const std::span<const axis> row_axes = reduced.all();
    auto reduce_strip = [&](std::size_t task, std::size_t split) {
        const odometer position(others.all(), task / strips);
        const std::size_t j0 = task % strips * strip_width, width = std::min(strip_width, width_total - j0);
        const S* x = in_base + position[0] + static_cast<std::ptrdiff_t>(j0 / e) * inner.stride[0];
        D* y = out_base + position[1] + static_cast<std::ptrdiff_t>(j0 / e) * inner.stride[1];
        block_tree<P> tree(width, e);
        const std::size_t min_group = std::bit_ceil(parallel::pieces_of(grain::reduction, across_block * (width / e)));
        push_blocks(tree, nb, width, e, min_group, split, [&](std::size_t b0, std::size_t b1, block_tree<P>& t) {
            std::array<std::ptrdiff_t, across_block> offsets;
            std::vector<S> scratch(contiguous ? 0 : across_block * width);
            odometer row(row_axes, b0 * across_block);
            for (std::size_t b = b0; b < b1; ++b) {
                const std::size_t nr = std::min(across_block, count - b * across_block);
                const S* rows = x;
                for (std::size_t r = 0; r < nr; ++r, row.next()) offsets[r] = row[0];
                if (!contiguous) {  // the rows copied, one after the other
                    for (std::size_t r = 0; r < nr; ++r) {
                        const S* p = x + offsets[r];
                        S* q = scratch.data() + r * width;
                        for (std::size_t j = 0; j < width / e; ++j, p += inner.stride[0])
                            for (std::size_t c = 0; c < e; ++c) q[j * e + c] = p[c];
                        offsets[r] = static_cast<std::ptrdiff_t>(r * width);
                    }
                    rows = scratch.data();
                }
                P::across(k, rows, offsets.data(), nr, width, e, t.next());
                t.push(static_cast<double>(nr));
            }
        });
        double c = 0;
        const typename P::value* v = tree.finish(c);
        for (std::size_t j = 0; j < width / e; ++j)
            store(v, j, width, e, total, y + static_cast<std::ptrdiff_t>(j) * inner.stride[1]);
    };
    const bool per_task = tasks >= 4 * threads;
    parallel::for_ranges(tasks, per_task ? threads : 1, [&](std::size_t a, std::size_t b) {
        for (std::size_t task = a; task < b; ++task) reduce_strip(task, per_task ? 1 : threads);
    });
}

// ---- reductions of produced values (a fused loop's result) ----
//
// The along walk of reduce_impl over the packed tensor the values would fill,
// where each output's reduced elements are one contiguous run of it: the same
// blocks given to the same kernel calls, their values pushed into the same
// trees, split between threads the same way. Only where the blocks come from
// differs: made, a few blocks at a time, into a buffer of the thread's.

/// Blocks made at once: 4096 reals, a buffer of 16 KiB (float) or 32 KiB
/// (double) that stays in L1 while the kernel reads it.
constexpr std::size_t produced_blocks = 2;
constexpr std::size_t produced_reals = produced_blocks * reduce_block;

/// Pushes the blocks [b0, b1) of the sequence of n reals starting at element
/// `first` of `in` into tree: along_leaves' contiguous form.
template <class P, class S>
void produced_leaves(const reduce_set<S>& k, const produced_values& in, std::size_t first, std::size_t n,
                     std::size_t e, std::size_t b0, std::size_t b1, std::vector<S>& buffer, block_tree<P>& tree) {
    std::array<typename P::value, produced_blocks * 2 * P::sets> values;
    const std::size_t slot = e * P::sets;
    for (std::size_t c0 = b0; c0 < b1; c0 += produced_blocks) {
        const std::size_t c1 = std::min(b1, c0 + produced_blocks), begin = c0 * reduce_block;
        const std::size_t m = std::min(n, c1 * reduce_block) - begin;
        in.produce(first + begin / e, m / e, buffer.data());
        P::along(k, buffer.data(), m, 0, 1, e, values.data());
        for (std::size_t b = c0; b < c1; ++b) {
            const typename P::value* v = values.data() + (b - c0) * slot;
            std::copy(v, v + slot, tree.next());
            tree.push(static_cast<double>(std::min(reduce_block, n - b * reduce_block) / e));
        }
    }
}

template <class S, class D, class P, class Store>
bool reduce_produced_impl(const produced_values& in, const tensor_ref& packed, std::span<const std::size_t> reduced_axes,
                          const tensor_ref& out, const Store& store) {
    const reduce_set<S>& k = simd::detail::active_table().of<S>().reductions;
    const std::size_t e = in.complex() ? 2 : 1;
    const reduction_plan plan = plan_of(packed, reduced_axes, out);
    const axis_list& kept = plan.kept;
    D* out_base = static_cast<D*>(out.data);
    const std::size_t count = plan.count, outputs = plan.outputs;
    if (count == 0) {
        store_empty<D, P>(kept, e, out_base, store);
        return true;
    }
    const sequence<S> shape{nullptr, plan.reduced.outer(), plan.run, e};
    if (plan.across || !shape.contiguous()) return false;
    // the outputs' runs follow one another in the packed tensor: output i's is elements [i·count, (i + 1)·count)
    const std::size_t threads = parallel::threads_for(count * outputs, grain::reduction);
    const double total = static_cast<double>(count);
    const std::size_t n = count * e;
    const std::size_t nb = parallel::pieces_of(n, reduce_block);
    if (nb == 1) {  // one block per output: many outputs per kernel call, each its own value
        const std::size_t batch = std::clamp<std::size_t>(produced_reals / n, 1, 128);
        parallel::for_ranges(parallel::pieces_of(outputs, batch), threads, [&](std::size_t a, std::size_t b) {
            std::vector<S> buffer(batch * n);
            std::array<typename P::value, 128 * 2 * P::sets> values;
            const std::size_t slot = (P::order_free ? 1 : e) * P::sets;
            for (std::size_t piece = a; piece < b; ++piece) {
                const std::size_t i0 = piece * batch, runs = std::min(batch, outputs - i0);
                in.produce(i0 * count, runs * count, buffer.data());
                P::along(k, buffer.data(), n, static_cast<std::ptrdiff_t>(n), runs, e, values.data());
                odometer position(kept.all(), i0);
                for (std::size_t j = 0; j < runs; ++j, position.next())
                    store(values.data() + j * slot, 0, e, e, total, out_base + position[1]);
            }
        });
        return true;
    }
    if constexpr (P::order_free) {
        // one value per output: its pieces' values combined — the same value in any order, but for
        // which NaN a NaN result is (x + y keeps the first operand's): then the whole run is made and
        // given to the kernel in one call, as reduce_impl gives it
        parallel::for_ranges(outputs, threads, [&](std::size_t a, std::size_t b) {
            std::vector<S> buffer(produced_reals);
            odometer position(kept.all(), a);
            for (std::size_t i = a; i < b; ++i, position.next()) {
                typename P::value value{}, piece{};
                for (std::size_t begin = 0; begin < n; begin += produced_reals) {
                    const std::size_t m = std::min(produced_reals, n - begin);
                    in.produce(i * count + begin / e, m / e, buffer.data());
                    P::along(k, buffer.data(), m, 0, 1, e, begin == 0 ? &value : &piece);
                    if (begin > 0) P::combine(&value, 0, &piece, 0, 1, e);
                }
                if (n > produced_reals && std::isnan(value)) {
                    std::vector<S> run(n);
                    in.produce(i * count, count, run.data());
                    P::along(k, run.data(), n, 0, 1, e, &value);
                }
                store(&value, 0, e, e, total, out_base + position[1]);
            }
        });
        return true;
    }
    // one output: its blocks pushed into its tree (split between `split` threads), as reduce_impl's reduce_at
    const std::size_t min_group = std::bit_ceil(parallel::pieces_of(grain::reduction * e, reduce_block));
    const bool per_output = outputs >= 4 * threads;
    parallel::for_ranges(outputs, per_output ? threads : 1, [&](std::size_t a, std::size_t b) {
        odometer position(kept.all(), a);
        block_tree<P> tree(e, e);
        for (std::size_t i = a; i < b; ++i, position.next()) {
            tree.clear();
            push_blocks(tree, nb, e, e, min_group, per_output ? 1 : threads,
                        [&](std::size_t b0, std::size_t b1, block_tree<P>& t) {
                            std::vector<S> buffer(produced_reals);
                            produced_leaves(k, in, i * count, n, e, b0, b1, buffer, t);
                        });
            double c = 0;
            store(tree.finish(c), 0, e, e, total, out_base + position[1]);
        }
    });
    return true;
}

template <class S, class D>
void cumsum_impl(const tensor_ref& in, std::size_t scan_axis, const tensor_ref& out) {
    const reduce_set<S>& k = simd::detail::active_table().of<S>().reductions;
    const std::size_t e = in.complex ? 2 : 1;
    const auto ew = static_cast<std::ptrdiff_t>(e);
    constexpr bool out_double = std::is_same_v<D, double>;
    axis_list others;
    for (std::size_t a = 0; a < in.rank(); ++a)
        if (a != scan_axis) others.push({in.shape[a], {in.strides[a], out.strides[a]}});
    others.coalesce();
    const axis scan{in.shape[scan_axis], {in.strides[scan_axis], out.strides[scan_axis]}};
    std::size_t inner = others.rank;  // the other axis innermost in the input, if it is inner to the scan
    for (std::size_t i = 0; i < others.rank; ++i)
        if (inner == others.rank || std::abs(others[i].stride[0]) < std::abs(others[inner].stride[0])) inner = i;
    const bool across = inner < others.rank && std::abs(others[inner].stride[0]) < std::abs(scan.stride[0]);
    const S* in_base = static_cast<const S*>(in.data);
    D* out_base = static_cast<D*>(out.data);
    const std::size_t threads = parallel::threads_for(in.count(), grain::reduction);

    if (!across) {
        const std::size_t n = scan.extent * e;
        if (scan.stride[0] == ew && scan.stride[1] == ew) {  // contiguous lines: many at once
            const axis last = others.rank > 0 ? others.back() : axis{1, {0, 0}};
            const std::span<const axis> rows = others.outer();
            std::size_t row_count = 1;
            for (const axis& x : rows) row_count *= x.extent;
            const std::size_t per_piece = std::max<std::size_t>(1, grain::reduction / 4 / scan.extent);
            const std::size_t chunks = parallel::pieces_of(last.extent, per_piece);
            parallel::for_ranges(row_count * chunks, threads, [&](std::size_t a, std::size_t b) {
                for (std::size_t piece = a; piece < b; ++piece) {
                    const odometer position(rows, piece / chunks);
                    const std::size_t j0 = piece % chunks * per_piece, runs = std::min(per_piece, last.extent - j0);
                    k.scan(in_base + position[0] + static_cast<std::ptrdiff_t>(j0) * last.stride[0], last.stride[0],
                           out_base + position[1] + static_cast<std::ptrdiff_t>(j0) * last.stride[1], last.stride[1],
                           out_double, runs, n, e, nullptr);
                }
            });
            return;
        }
        // strided lines: copied a chunk at a time, the carry passed on
        parallel::for_ranges(others.count(), threads, [&](std::size_t a, std::size_t b) {
            std::vector<S> source(scan_chunk * e);
            std::vector<D> result(scan_chunk * e);
            odometer position(others.all(), a);
            for (std::size_t line = a; line < b; ++line, position.next()) {
                double carry[2] = {-0.0, -0.0};
                const S* x = in_base + position[0];
                D* y = out_base + position[1];
                for (std::size_t i0 = 0; i0 < scan.extent; i0 += scan_chunk) {
                    const std::size_t m = std::min(scan_chunk, scan.extent - i0);
                    for (std::size_t i = 0; i < m; ++i, x += scan.stride[0])
                        for (std::size_t c = 0; c < e; ++c) source[i * e + c] = x[c];
                    k.scan(source.data(), 0, result.data(), 0, out_double, 1, m * e, e, carry);
                    for (std::size_t i = 0; i < m; ++i, y += scan.stride[1])  // after the reads: in place is safe
                        for (std::size_t c = 0; c < e; ++c) y[c] = result[i * e + c];
                }
            }
        });
        return;
    }
    // across: strips of the innermost other axis scanned down the rows together
    axis line = others.take(inner);
    const auto moved = make_forward(line);
    in_base += moved[0];
    out_base += moved[1];
    const bool contiguous = line.stride[0] == ew && line.stride[1] == ew;
    const std::size_t width_total = line.extent * e;
    const std::size_t strips = parallel::pieces_of(width_total, strip_width);
    parallel::for_ranges(others.count() * strips, threads, [&](std::size_t a, std::size_t b) {
        constexpr std::size_t rows_at_once = 64;
        std::array<std::ptrdiff_t, rows_at_once> in_offsets, out_offsets;
        std::array<double, strip_width> carry;
        std::vector<S> source(contiguous ? 0 : rows_at_once * strip_width);
        std::vector<D> result(contiguous ? 0 : rows_at_once * strip_width);
        for (std::size_t task = a; task < b; ++task) {
            const odometer position(others.all(), task / strips);
            const std::size_t j0 = task % strips * strip_width, width = std::min(strip_width, width_total - j0);
            const S* x = in_base + position[0] + static_cast<std::ptrdiff_t>(j0 / e) * line.stride[0];
            D* y = out_base + position[1] + static_cast<std::ptrdiff_t>(j0 / e) * line.stride[1];
            carry.fill(-0.0);
            for (std::size_t r0 = 0; r0 < scan.extent; r0 += rows_at_once) {
                const std::size_t nr = std::min(rows_at_once, scan.extent - r0);
                for (std::size_t r = 0; r < nr; ++r) {
                    in_offsets[r] = static_cast<std::ptrdiff_t>(r0 + r) * scan.stride[0];
                    out_offsets[r] = static_cast<std::ptrdiff_t>(r0 + r) * scan.stride[1];
                }
                if (contiguous) {
                    k.scan_rows(x, in_offsets.data(), y, out_offsets.data(), out_double, nr, width, carry.data());
                    continue;
                }
                for (std::size_t r = 0; r < nr; ++r) {
                    const S* p = x + in_offsets[r];
                    for (std::size_t j = 0; j < width / e; ++j, p += line.stride[0])
                        for (std::size_t c = 0; c < e; ++c) source[r * width + j * e + c] = p[c];
                    in_offsets[r] = out_offsets[r] = static_cast<std::ptrdiff_t>(r * width);
                }
                k.scan_rows(source.data(), in_offsets.data(), result.data(), out_offsets.data(), out_double, nr, width,
                            carry.data());
                for (std::size_t r = 0; r < nr; ++r) {
                    D* q = y + static_cast<std::ptrdiff_t>(r0 + r) * scan.stride[1];
                    for (std::size_t j = 0; j < width / e; ++j, q += line.stride[1])
                        for (std::size_t c = 0; c < e; ++c) q[c] = result[r * width + j * e + c];
                }
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
    if (in.data == nullptr) return;  // produced values: nothing in memory to overlap
    if (detail::overlaps(detail::range_of(in), detail::range_of(out)) && !(in.shape == out.shape && detail::same_tensor(in, out, out.shape)))
        throw_layout_error(op, "out overlaps the input (out may be exactly the input, in place, where the shapes agree)");
}

}  // namespace

namespace {

/// The checks of a reduction, then run.template operator()<S, D, P>(store) with
/// its types, kernels and store; returns what run returns. `in.data` null:
/// produced values (packed_ref).
template <class Run>
bool checked_reduction(std::string_view op, reduction r, const tensor_ref& in, std::span<const std::size_t> axes,
                       bool keepdim, const tensor_ref& out, const Run& run) {
    const bool extremum = r == reduction::amax || r == reduction::amin;
    if (extremum && in.complex) throw error("realify::" + std::string(op) + ": complex values have no ordering (PyTorch refuses them too)");
    bool done = true;
    with_types(op, in, out, [&]<class S, class D>(S*, D*) {
        check_output(op, in, out, reduced_shape(in.shape, axes, keepdim));
        if (out.count() == 0) return;
        if (extremum && reduced_count(in, axes) == 0)
            throw_shape_error(op, "the reduced dims of an input of shape " + realify::detail::format_sequence(in.shape) +
                                      " are empty: a maximum or minimum of no elements does not exist (as PyTorch)");
        switch (r) {
            case reduction::sum: done = run.template operator()<S, D, sums<S>>(plain_store{}); break;
            case reduction::mean: done = run.template operator()<S, D, sums<S>>(plain_store{true}); break;
            case reduction::prod: done = run.template operator()<S, D, products<S>>(plain_store{}); break;
            case reduction::amax: done = run.template operator()<S, D, extrema<S, true>>(plain_store{}); break;
            case reduction::amin: done = run.template operator()<S, D, extrema<S, false>>(plain_store{}); break;
        }
    });
    return done;
}

/// The checks of var / std, then run.template operator()<S, D, moments<S>>(store).
template <class Run>
bool checked_variance(std::string_view op, const tensor_ref& in, std::span<const std::size_t> axes, double correction,
                      bool keepdim, bool root, const tensor_ref& out, const Run& run) {
    if (!is_floating(in.type) || !is_floating(out.type) || out.complex)
        throw error("realify::" + std::string(op) + ": var and std read float or double components and write real ones");
    check_output(op, in, out, reduced_shape(in.shape, axes, keepdim));
    if (out.count() == 0) return true;
    bool done = true;
    with_floating_types(in, out, [&]<class S, class D>(S*, D*) {
        done = run.template operator()<S, D, moments<S>>(variance_store{correction, root});
    });
    return done;
}

/// The packed, row-major tensor produced values would fill, with no memory (data null).
tensor_ref packed_ref(const produced_values& in) {
    tensor_ref t;
    t.type = in.type();
    t.complex = in.complex();
    t.shape = in.shape();
    std::ptrdiff_t stride = t.width();
    for (std::size_t a = t.rank(); a-- > 0;) {
        t.strides[a] = stride;
        stride *= static_cast<std::ptrdiff_t>(t.shape[a]);
    }
    return t;
}

}  // namespace

void reduce(std::string_view op, reduction r, const tensor_ref& in, std::span<const std::size_t> axes, bool keepdim,
            const tensor_ref& out) {
    checked_reduction(op, r, in, axes, keepdim, out, [&]<class S, class D, class P, class Store>(const Store& store) {
        reduce_impl<S, D, P>(in, axes, out, store);
        return true;
    });
}

void variance(std::string_view op, const tensor_ref& in, std::span<const std::size_t> axes, double correction,
              bool keepdim, bool root, const tensor_ref& out) {
    checked_variance(op, in, axes, correction, keepdim, root, out, [&]<class S, class D, class P, class Store>(const Store& store) {
        reduce_impl<S, D, P>(in, axes, out, store);
        return true;
    });
}

bool reduce_produced(std::string_view op, reduction r, const produced_values& in, std::span<const std::size_t> axes,
                     bool keepdim, const tensor_ref& out) {
    const tensor_ref packed = packed_ref(in);
    if (in.reads(out)) throw_layout_error(op, "out overlaps an operand of the values it reduces");
    return checked_reduction(op, r, packed, axes, keepdim, out, [&]<class S, class D, class P, class Store>(const Store& store) {
        return reduce_produced_impl<S, D, P>(in, packed, axes, out, store);
    });
}

bool variance_produced(std::string_view op, const produced_values& in, std::span<const std::size_t> axes,
                       double correction, bool keepdim, bool root, const tensor_ref& out) {
    const tensor_ref packed = packed_ref(in);
    if (in.reads(out)) throw_layout_error(op, "out overlaps an operand of the values it reduces");
    return checked_variance(op, packed, axes, correction, keepdim, root, out,
                            [&]<class S, class D, class P, class Store>(const Store& store) {
                                return reduce_produced_impl<S, D, P>(in, packed, axes, out, store);
                            });
}

void cumsum(std::string_view op, const tensor_ref& in, std::size_t axis, const tensor_ref& out) {
    with_types(op, in, out, [&]<class S, class D>(S*, D*) {
        check_output(op, in, out, in.shape);
        if (in.count() == 0) return;
        if (in.rank() == 0) {
            const std::array<std::size_t, 0> none{};
            reduce_impl<S, D, sums<S>>(in, none, out, plain_store{});
            return;
        }
        cumsum_impl<S, D>(in, axis, out);
    });
}

}  // namespace realify::engine
