// realify/engine/einsum.hpp: the equation parsed into labels, the operands
// as labelled views (diagonals and permutations re-describe them), and each
// pair contracted by one batched product of the compiled GEMM. Compiled for
// the baseline ISA: the arithmetic is the GEMM's, the reductions' and the
// engine's copies.
#include "realify/engine/einsum.hpp"

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../engine/tensor_checks.hpp"
#include "realify/engine/elementwise.hpp"
#include "realify/engine/reduce.hpp"
#include "realify/errors.hpp"
#include "realify/simd/gemm.hpp"

namespace realify::engine {

namespace {

constexpr int letters = 52;  // A–Z then a–z (PyTorch's order); the ellipsis dims follow

int letter_id(char c) noexcept {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
    return -1;
}
char letter_of(int id) noexcept { return id < 26 ? static_cast<char>('A' + id) : static_cast<char>('a' + id - 26); }

[[noreturn]] void bad(std::string_view op, const std::string& what) {
    throw error("realify::" + std::string(op) + ": " + what);
}

/// The equation as labels: one per dim of each operand (the ellipsis dims
/// right-aligned among ids letters + k), and the output's.
struct equation_labels {
    std::vector<std::vector<int>> inputs;
    std::vector<int> output;
    std::vector<std::size_t> extent;  // per label id: the broadcast extent (1 when unseen)
};

/// One term: its letters and where "..." sits (−1: none).
struct term {
    std::vector<int> ids;
    std::ptrdiff_t ellipsis = -1;
};

term parse_term(std::string_view op, std::string_view text) {
    term t;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 3, "...") == 0) {
            if (t.ellipsis >= 0) bad(op, "more than one ellipsis in the subscripts '" + std::string(text) + "'");
            t.ellipsis = static_cast<std::ptrdiff_t>(t.ids.size());
            i += 2;
            continue;
        }
        const int id = letter_id(text[i]);
        if (id < 0) bad(op, std::string("'") + text[i] + "' is not a subscript (a–z, A–Z or ...)");
        t.ids.push_back(id);
    }
    return t;
}

equation_labels parse(std::string_view op, std::string_view equation, std::span<const dims> shapes) {
    std::string text;
    for (char c : equation)
        if (c != ' ') text += c;
    const std::size_t arrow = text.find("->");
    const std::string lhs = text.substr(0, arrow);
    std::vector<term> terms;
    for (std::size_t start = 0;;) {
        const std::size_t comma = lhs.find(',', start);
        terms.push_back(parse_term(op, std::string_view(lhs).substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (terms.size() != shapes.size())
        bad(op, "the equation has " + std::to_string(terms.size()) + " operand(s), " + std::to_string(shapes.size()) + " given");
    equation_labels r;
    std::size_t ellipsis_rank = 0;
    for (std::size_t k = 0; k < terms.size(); ++k) {
        const std::size_t rank = shapes[k].rank, named = terms[k].ids.size();
        if (terms[k].ellipsis < 0 ? rank != named : rank < named)
            bad(op, "operand " + std::to_string(k) + " has " + std::to_string(rank) + " dims, its subscripts name " +
                        std::to_string(named) + (terms[k].ellipsis < 0 ? " and no ellipsis" : ""));
        if (terms[k].ellipsis >= 0) ellipsis_rank = std::max(ellipsis_rank, rank - named);
    }
    r.extent.assign(static_cast<std::size_t>(letters) + ellipsis_rank, 1);
    std::vector<bool> seen(r.extent.size(), false);
    std::vector<int> count(r.extent.size(), 0);
    for (std::size_t k = 0; k < terms.size(); ++k) {
        std::vector<int> labels;
        const std::size_t spread = shapes[k].rank - terms[k].ids.size();
        for (std::size_t i = 0; i < terms[k].ids.size(); ++i) {
            if (static_cast<std::ptrdiff_t>(i) == terms[k].ellipsis)
                for (std::size_t e = 0; e < spread; ++e) labels.push_back(letters + static_cast<int>(ellipsis_rank - spread + e));
            labels.push_back(terms[k].ids[i]);
        }
        if (terms[k].ellipsis == static_cast<std::ptrdiff_t>(terms[k].ids.size()))
            for (std::size_t e = 0; e < spread; ++e) labels.push_back(letters + static_cast<int>(ellipsis_rank - spread + e));
        std::vector<std::size_t> own(r.extent.size(), 0);
        for (std::size_t d = 0; d < labels.size(); ++d) {
            const auto id = static_cast<std::size_t>(labels[d]);
            const std::size_t e = shapes[k][d];
            ++count[id];
            if (own[id] != 0 && own[id] != e + 1)
                throw_shape_error(op, std::string("subscript ") + letter_of(labels[d]) + " is repeated in operand " +
                                          std::to_string(k) + " with different sizes");
            own[id] = e + 1;
            if (e == 1) {
                seen[id] = true;
                continue;
            }
            if (seen[id] && r.extent[id] != 1 && r.extent[id] != e)
                throw_shape_error(op, "subscript " + (labels[d] < letters ? std::string(1, letter_of(labels[d])) : std::string("...")) +
                                          " has size " + std::to_string(e) + " for operand " + std::to_string(k) +
                                          ", which does not broadcast with size " + std::to_string(r.extent[id]));
            r.extent[id] = e;
            seen[id] = true;
        }
        r.inputs.push_back(std::move(labels));
    }
    if (arrow == std::string::npos) {  // implicit: the ellipsis dims, then the labels seen once, in order
        for (std::size_t e = 0; e < ellipsis_rank; ++e) r.output.push_back(letters + static_cast<int>(e));
        for (int id = 0; id < letters; ++id)
            if (count[static_cast<std::size_t>(id)] == 1) r.output.push_back(id);
    } else {
        const term out = parse_term(op, std::string_view(text).substr(arrow + 2));
        std::vector<bool> used(r.extent.size(), false);
        for (std::size_t i = 0; i <= out.ids.size(); ++i) {
            if (static_cast<std::ptrdiff_t>(i) == out.ellipsis)
                for (std::size_t e = 0; e < ellipsis_rank; ++e) r.output.push_back(letters + static_cast<int>(e));
            if (i == out.ids.size()) break;
            const int id = out.ids[i];
            if (!seen[static_cast<std::size_t>(id)])
                bad(op, std::string("output subscript ") + letter_of(id) + " does not appear in any operand");
            if (used[static_cast<std::size_t>(id)])
                bad(op, std::string("output subscript ") + letter_of(id) + " appears more than once");
            used[static_cast<std::size_t>(id)] = true;
            r.output.push_back(id);
        }
    }
    return r;
}

/// A tensor whose axes carry labels (unique within it).
struct labelled {
    tensor_ref t;
    std::vector<int> labels;
};

bool has(const std::vector<int>& labels, int id) { return std::find(labels.begin(), labels.end(), id) != labels.end(); }

/// Repeated labels folded into one axis (the diagonal: strides summed).
labelled diagonal(const tensor_ref& t, const std::vector<int>& labels) {
    labelled r{t, {}};
    r.t.shape.rank = 0;
    for (std::size_t d = 0; d < labels.size(); ++d) {
        const auto at = std::find(r.labels.begin(), r.labels.end(), labels[d]);
        if (at != r.labels.end()) {
            r.t.strides[static_cast<std::size_t>(at - r.labels.begin())] += t.strides[d];
            continue;
        }
        r.t.shape.extent[r.t.shape.rank] = t.shape[d];
        r.t.strides[r.t.shape.rank] = t.strides[d];
        ++r.t.shape.rank;
        r.labels.push_back(labels[d]);
    }
    return r;
}

/// The axes of x in the order of `order` (labels of x).
tensor_ref permuted(const labelled& x, const std::vector<int>& order) {
    tensor_ref r = x.t;
    r.shape.rank = order.size();
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto from = static_cast<std::size_t>(std::find(x.labels.begin(), x.labels.end(), order[i]) - x.labels.begin());
        r.shape.extent[i] = x.t.shape[from];
        r.strides[i] = x.t.strides[from];
    }
    return r;
}

/// Memory for intermediate results, alive for the whole call.
template <class T>
struct arena {
    std::vector<std::vector<T>> blocks;
    tensor_ref make(const tensor_ref& like, const dims& shape) {
        blocks.emplace_back(shape.count() * (like.complex ? 2 : 1));
        tensor_ref r;
        r.data = blocks.back().data();
        r.type = like.type;
        r.complex = like.complex;
        r.shape = shape;
        r.strides = row_major_strides(shape, r.width());
        return r;
    }
};

/// x summed over its labels not in `keep`.
template <class T>
labelled sum_out(std::string_view op, const labelled& x, const std::vector<int>& keep, arena<T>& memory) {
    std::vector<std::size_t> axes;
    labelled r;
    dims shape;
    for (std::size_t d = 0; d < x.labels.size(); ++d) {
        if (has(keep, x.labels[d])) {
            r.labels.push_back(x.labels[d]);
            append_extent(op, shape, x.t.shape[d]);
        } else {
            axes.push_back(d);
        }
    }
    if (axes.empty()) return x;
    r.t = memory.make(x.t, shape);
    reduce(op, reduction::sum, x.t, axes, false, r.t);
    return r;
}

/// The axes [first, last) of t as one: its extent and stride, when they
/// step over each other in memory (extent-1 axes ignored).
bool merge(const tensor_ref& t, std::size_t first, std::size_t last, std::size_t& extent, std::ptrdiff_t& stride) {
    extent = 1;
    stride = 0;
    bool any = false;
    std::ptrdiff_t next = 0;
    for (std::size_t a = last; a-- > first;) {
        if (t.shape[a] == 1) continue;
        if (any && t.strides[a] != next) return false;
        if (!any) stride = t.strides[a];
        any = true;
        extent *= t.shape[a];
        next = t.strides[a] * static_cast<std::ptrdiff_t>(t.shape[a]);
    }
    return true;
}

template <class T>
void gemm(const simd::gemm_dims& d, const simd::gemm_operand<T>& a, const simd::gemm_operand<T>& b, T* out, bool complex) {
    if (complex) simd::complex_gemm(d, a, b, out);
    else simd::real_gemm(d, a, b, out);
}

/// The labels of a product a · b: batch (shared, kept), rows (a's own),
/// inner (shared, summed) and cols (b's own).
struct groups {
    std::vector<int> batch, rows, inner, cols;
    /// The result's labels: batch, rows, cols.
    std::vector<int> result() const {
        std::vector<int> r = batch;
        r.insert(r.end(), rows.begin(), rows.end());
        r.insert(r.end(), cols.begin(), cols.end());
        return r;
    }
};
groups classify(const labelled& a, const labelled& b, const std::vector<int>& keep) {
    groups g;
    for (int id : a.labels) {
        if (!has(b.labels, id)) g.rows.push_back(id);
        else if (has(keep, id)) g.batch.push_back(id);
        else g.inner.push_back(id);
    }
    for (int id : b.labels)
        if (!has(a.labels, id)) g.cols.push_back(id);
    return g;
}

/// a · b over their shared labels not in `keep` (the labels of classify).
/// Written into `direct` when given (row-major, of the result's shape), else
/// into the arena.
template <class T>
labelled contract(std::string_view op, const labelled& a, const labelled& b, const std::vector<int>& keep,
                  const std::vector<std::size_t>& extent, arena<T>& memory, const tensor_ref* direct) {
    const groups g = classify(a, b, keep);
    const std::vector<int>&batch = g.batch, &rows = g.rows, &inner = g.inner, &cols = g.cols;
    if (const std::size_t rank = batch.size() + rows.size() + cols.size(); rank > max_rank) {
        std::string labels;
        for (int id : g.result()) labels += id < letters ? std::string(1, letter_of(id)) : std::string("(...)");
        throw_shape_error(op, "contracting the operands left to right makes an intermediate tensor of " + std::to_string(rank) +
                                  " dimensions (" + labels + "), more than the " + std::to_string(max_rank) +
                                  " supported: order the operands so that fewer labels are pending at once");
    }
    labelled r;
    dims shape;
    auto append = [&](const std::vector<int>& ids, const labelled& from) {
        for (int id : ids) {
            r.labels.push_back(id);
            const auto d = static_cast<std::size_t>(std::find(from.labels.begin(), from.labels.end(), id) - from.labels.begin());
            append_extent(op, shape, has(a.labels, id) && has(b.labels, id) ? extent[static_cast<std::size_t>(id)] : from.t.shape[d]);
        }
    };
    append(batch, a);
    append(rows, a);
    append(cols, b);
    // each operand's axes: batch, then its own, then the contraction (a) or the contraction, then its own (b)
    std::vector<int> order_a = batch, order_b = batch;
    order_a.insert(order_a.end(), rows.begin(), rows.end());
    order_a.insert(order_a.end(), inner.begin(), inner.end());
    order_b.insert(order_b.end(), inner.begin(), inner.end());
    order_b.insert(order_b.end(), cols.begin(), cols.end());
    tensor_ref ta = permuted(a, order_a), tb = permuted(b, order_b);
    // a shared label of extent 1 in one operand broadcasts: stride 0, the other's extent
    auto broadcast = [&](tensor_ref& t, std::size_t first, const std::vector<int>& ids) {
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const std::size_t e = extent[static_cast<std::size_t>(ids[i])];
            if (t.shape[first + i] != e) {
                t.shape.extent[first + i] = e;
                t.strides[first + i] = 0;
            }
        }
    };
    const std::size_t nb = batch.size();
    broadcast(ta, 0, batch);
    broadcast(ta, nb + rows.size(), inner);
    broadcast(tb, 0, batch);
    broadcast(tb, nb, inner);
    std::size_t m = 0, k = 0, n = 0, k_b = 0;
    std::ptrdiff_t sm = 0, sk = 0, sk_b = 0, sn = 0;
    // the matrix dims of an operand after its batch: [nb, split) and [split, rank), each one
    // stride — else the operand is copied, row-major, where they are
    auto matrices = [&](tensor_ref& t, std::size_t split, std::size_t& rows_, std::ptrdiff_t& row_stride,
                        std::size_t& cols_, std::ptrdiff_t& col_stride) {
        if (merge(t, nb, split, rows_, row_stride) && merge(t, split, t.rank(), cols_, col_stride)) return;
        const tensor_ref packed = memory.make(t, t.shape);
        copy_ref(op, t, packed);
        t = packed;
        merge(t, nb, split, rows_, row_stride);
        merge(t, split, t.rank(), cols_, col_stride);
    };
    matrices(ta, nb + rows.size(), m, sm, k, sk);
    matrices(tb, nb + inner.size(), k_b, sk_b, n, sn);
    // the batch offsets of every (batch index) in each operand
    std::size_t count = 1;
    for (std::size_t i = 0; i < nb; ++i) count *= ta.shape[i];
    std::vector<std::ptrdiff_t> offsets_a(count), offsets_b(count);
    std::array<std::size_t, max_rank> index{};
    for (std::size_t c = 0; c < count; ++c) {
        std::ptrdiff_t oa = 0, ob = 0;
        for (std::size_t i = 0; i < nb; ++i) {
            oa += static_cast<std::ptrdiff_t>(index[i]) * ta.strides[i];
            ob += static_cast<std::ptrdiff_t>(index[i]) * tb.strides[i];
        }
        offsets_a[c] = oa;
        offsets_b[c] = ob;
        for (std::size_t i = nb; i-- > 0;) {
            if (++index[i] < ta.shape[i]) break;
            index[i] = 0;
        }
    }
    r.t = direct != nullptr ? *direct : memory.make(ta, shape);
    r.t.shape = shape;
    const simd::gemm_dims d{count, m, n, k};
    const simd::gemm_operand<T> ga{static_cast<const T*>(ta.data), sm, sk, offsets_a};
    const simd::gemm_operand<T> gb{static_cast<const T*>(tb.data), sk_b, sn, offsets_b};
    gemm(d, ga, gb, static_cast<T*>(r.t.data), a.t.complex);
    return r;
}

bool row_major_packed(const tensor_ref& t) {
    const auto strides = row_major_strides(t.shape, t.width());
    for (std::size_t a = 0; a < t.rank(); ++a)
        if (t.shape[a] > 1 && t.strides[a] != strides[a]) return false;
    return true;
}

template <class T>
void run(std::string_view op, const equation_labels& eq, std::span<const tensor_ref> operands, const tensor_ref& out) {
    arena<T> memory;
    std::vector<labelled> xs;
    for (std::size_t k = 0; k < operands.size(); ++k) xs.push_back(diagonal(operands[k], eq.inputs[k]));
    // the labels still needed after operand k: the output's and the later operands'
    auto needed_after = [&](std::size_t k) {
        std::vector<int> keep = eq.output;
        for (std::size_t j = k + 1; j < xs.size(); ++j) keep.insert(keep.end(), xs[j].labels.begin(), xs[j].labels.end());
        return keep;
    };
    bool shares = false;  // out shares memory with an operand
    for (const tensor_ref& x : operands) shares = shares || detail::overlaps(detail::range_of(x), detail::range_of(out));
    // out itself takes the last product when the labels come out in its order
    // and it is packed, of the product's type, and shares no memory with an operand
    const bool out_direct = !shares && out.type == operands[0].type && out.complex == operands[0].complex && row_major_packed(out);
    labelled acc = xs[0];
    for (std::size_t k = 1; k < xs.size(); ++k) {
        const std::vector<int> keep = needed_after(k);
        std::vector<int> keep_a = keep, keep_b = keep;
        keep_a.insert(keep_a.end(), xs[k].labels.begin(), xs[k].labels.end());
        keep_b.insert(keep_b.end(), acc.labels.begin(), acc.labels.end());
        const labelled a = sum_out(op, acc, keep_a, memory), b = sum_out(op, xs[k], keep_b, memory);
        const bool into_out = k + 1 == xs.size() && out_direct && classify(a, b, keep).result() == eq.output;
        acc = contract(op, a, b, keep, eq.extent, memory, into_out ? &out : nullptr);
        if (into_out) return;
    }
    acc = sum_out(op, acc, eq.output, memory);
    // the labels in the output's order (an output label of extent 1 in acc broadcasts)
    tensor_ref result = permuted(acc, eq.output);
    for (std::size_t i = 0; i < eq.output.size(); ++i) {
        const std::size_t e = eq.extent[static_cast<std::size_t>(eq.output[i])];
        if (result.shape[i] != e) {
            result.shape.extent[i] = e;
            result.strides[i] = 0;
        }
    }
    const bool view_of_operand = std::none_of(memory.blocks.begin(), memory.blocks.end(),
                                              [&](const std::vector<T>& b) { return b.data() == acc.t.data; });
    if (shares && view_of_operand) {  // a view of an operand out overlaps: complete it first
        const tensor_ref packed = memory.make(result, result.shape);
        copy_ref(op, result, packed);
        result = packed;
    }
    copy_ref(op, result, out);
}

/// The parsed equation of einsum on these operands.
equation_labels parse_for(std::string_view op, std::string_view equation, std::span<const tensor_ref> operands) {
    std::vector<dims> shapes;
    for (const tensor_ref& x : operands) shapes.push_back(x.shape);
    return parse(op, equation, shapes);
}

dims output_shape(std::string_view op, const equation_labels& eq) {
    dims shape;
    for (int id : eq.output) append_extent(op, shape, eq.extent[static_cast<std::size_t>(id)]);
    return shape;
}

}  // namespace

dims einsum_shape(std::string_view op, std::string_view equation, std::span<const tensor_ref> operands) {
    return output_shape(op, parse_for(op, equation, operands));
}

void einsum(std::string_view op, std::string_view equation, std::span<const tensor_ref> operands, const tensor_ref& out) {
    if (operands.empty()) bad(op, "einsum needs at least one operand");
    for (const tensor_ref& x : operands) {
        if (!is_floating(x.type)) bad(op, "operands must be float or double tensors");
        if (x.type != operands[0].type || x.complex != operands[0].complex)
            bad(op, "operands must have one dtype (as PyTorch requires): all real or all complex, of one precision");
    }
    if (!is_floating(out.type) || out.complex != operands[0].complex)
        bad(op, std::string("out must be a ") + (operands[0].complex ? "complex" : "real") + " float or double tensor");
    const equation_labels eq = parse_for(op, equation, operands);
    detail::check_out_shape(op, out, output_shape(op, eq));
    detail::check_no_internal_overlap(op, out);
    if (operands[0].type == component::float64) run<double>(op, eq, operands, out);
    else run<float>(op, eq, operands, out);
}

}  // namespace realify::engine
