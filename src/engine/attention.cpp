// realify/engine/attention.hpp: the checks, the plan of a call (the leading
// dims broadcast, grouped-query heads, each operand's strides), its cut into
// pieces of query rows that share keys and values, and the pieces run by the
// active instruction set's attention kernel (src/simd/isa/attention_kernels.hpp),
// on several threads when large. Compiled for the baseline ISA: the
// arithmetic is all in the kernel.
#include "realify/engine/attention.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../simd/attention_call.hpp"
#include "../simd/kernel_table.hpp"
#include "../simd/parallel.hpp"
#include "realify/engine/elementwise.hpp"
#include "realify/errors.hpp"
#include "realify/threads.hpp"
#include "tensor_checks.hpp"

namespace realify::engine {

namespace {

using simd::detail::attention_max_rows;
using simd::detail::attention_piece;

std::string shapes_of(const tensor_ref& q, const tensor_ref& k, const tensor_ref& v) {
    return "q " + realify::detail::format_sequence(q.shape) + ", k " + realify::detail::format_sequence(k.shape) + ", v " +
           realify::detail::format_sequence(v.shape);
}

[[noreturn]] void type_error(std::string_view op, const std::string& what) {
    throw error("realify::" + std::string(op) + ": " + what);
}

/// The leading axis `a` (of `rank` leading axes, right-aligned) of an operand
/// whose leading dims are its first `own` axes: its extent (1 when it has none).
std::size_t extent_at(const tensor_ref& t, std::size_t own, std::size_t rank, std::size_t a) noexcept {
    return a + own < rank ? 1 : t.shape[a + own - rank];
}
std::ptrdiff_t stride_at(const tensor_ref& t, std::size_t own, std::size_t rank, std::size_t a) noexcept {
    return a + own < rank || t.shape[a + own - rank] == 1 ? 0 : t.strides[a + own - rank];
}

/// A call, checked: the result's leading dims and every operand's strides on
/// them (0 where broadcast), the sizes, grouped-query heads.
struct plan {
    std::size_t lead_rank = 0;
    dims lead;
    std::array<std::ptrdiff_t, max_rank> q_lead{}, k_lead{}, v_lead{}, m_lead{};
    std::size_t L = 0, S = 0, E = 0, Ev = 0;
    std::size_t rep = 0;  // q heads per kv head (enable_gqa on the head axis); 0: none
    // the mask's strides along L and S (0 where it broadcasts, or none)
    std::ptrdiff_t m_row = 0, m_col = 0;
    simd::detail::attention_mask mask = simd::detail::attention_mask::none;

    dims result() const {
        dims r = lead;
        r.extent[r.rank++] = L;
        r.extent[r.rank++] = Ev;
        return r;
    }
};

plan make_plan(std::string_view op, const tensor_ref& q, const tensor_ref& k, const tensor_ref& v,
               const attention_options& o) {
    for (const auto& [t, name] : {std::pair{&q, "q"}, std::pair{&k, "k"}, std::pair{&v, "v"}}) {
        if (t->complex || !is_floating(t->type))
            type_error(op, std::string(name) + " must be a real float or double tensor");
        if (t->rank() < 2)
            throw_shape_error(op, std::string(name) + " must have at least 2 dims (…, L or S, E) (" + shapes_of(q, k, v) + ")");
    }
    if (k.type != q.type || v.type != q.type) type_error(op, "q, k and v must have one dtype (float or double)");
    plan p;
    p.L = q.shape[q.rank() - 2];
    p.E = q.shape[q.rank() - 1];
    p.S = k.shape[k.rank() - 2];
    p.Ev = v.shape[v.rank() - 1];
    if (k.shape[k.rank() - 1] != p.E)
        throw_shape_error(op, "q and k must have the same last dim E (" + shapes_of(q, k, v) + ")");
    if (v.shape[v.rank() - 2] != p.S)
        throw_shape_error(op, "k and v must have the same number of keys, dim -2 (" + shapes_of(q, k, v) + ")");
    const std::size_t rq = q.rank() - 2, rk = k.rank() - 2, rv = v.rank() - 2;
    p.lead_rank = std::max({rq, rk, rv});
    p.lead.rank = p.lead_rank;
    for (std::size_t a = 0; a < p.lead_rank; ++a) {
        const std::size_t eq = extent_at(q, rq, p.lead_rank, a), ek = extent_at(k, rk, p.lead_rank, a),
                          ev = extent_at(v, rv, p.lead_rank, a);
        p.q_lead[a] = stride_at(q, rq, p.lead_rank, a);
        p.k_lead[a] = stride_at(k, rk, p.lead_rank, a);
        p.v_lead[a] = stride_at(v, rv, p.lead_rank, a);
        const bool heads = a + 1 == p.lead_rank;
        const bool grouped = heads && ek == ev && ek > 1 && eq != ek && eq % ek == 0;
        if (grouped && o.enable_gqa) {
            p.lead.extent[a] = eq;
            p.rep = eq / ek;
            continue;
        }
        const std::size_t e = std::max({eq, ek, ev});
        if ((eq != 1 && eq != e) || (ek != 1 && ek != e) || (ev != 1 && ev != e)) {
            if (grouped)
                throw_shape_error(op, "q has " + std::to_string(eq) + " heads (dim -3), k and v " + std::to_string(ek) +
                                          ": grouped-query attention needs enable_gqa = true (" + shapes_of(q, k, v) + ")");
            if (heads && o.enable_gqa && ek != ev)
                throw_shape_error(op, "enable_gqa: k and v must have the same number of heads, dim -3 (" + shapes_of(q, k, v) + ")");
            throw_shape_error(op, "the leading dims of q, k and v do not broadcast (" + shapes_of(q, k, v) + ")");
        }
        p.lead.extent[a] = e;
    }
    if (o.mask != nullptr) {
        const tensor_ref& m = *o.mask;
        if (o.causal)
            type_error(op, "an attn_mask and is_causal = true cannot be given together (PyTorch refuses them too)");
        if (m.complex || (m.type != component::boolean && m.type != q.type))
            type_error(op, "attn_mask must be a bool tensor or of q's dtype");
        p.mask = m.type == component::boolean ? simd::detail::attention_mask::boolean : simd::detail::attention_mask::additive;
        const dims target = p.result();
        std::array<std::size_t, max_rank> want{};
        for (std::size_t a = 0; a < target.rank; ++a) want[a] = target[a];
        want[target.rank - 1] = p.S;
        bool fits = m.rank() <= target.rank;
        for (std::size_t a = 0; fits && a < m.rank(); ++a) {
            const std::size_t t = want[target.rank - m.rank() + a];
            fits = m.shape[a] == 1 || m.shape[a] == t;
        }
        if (!fits)
            throw_shape_error(op, "attn_mask of shape " + realify::detail::format_sequence(m.shape) +
                                      " does not broadcast to (…, L, S) = " +
                                      realify::detail::format_sequence(std::span(want.data(), target.rank)));
        // m's axes right-aligned on (lead…, L, S)
        const std::size_t total = target.rank;
        auto stride = [&](std::size_t a) -> std::ptrdiff_t {  // a: axis of (lead…, L, S)
            if (a + m.rank() < total) return 0;
            const std::size_t own = a + m.rank() - total;
            return m.shape[own] == 1 ? 0 : m.strides[own];
        };
        for (std::size_t a = 0; a < p.lead_rank; ++a) p.m_lead[a] = stride(a);
        p.m_row = stride(total - 2);
        p.m_col = stride(total - 1);
    }
    return p;
}

/// The pieces of a call: per index of the leading dims but the head axis,
/// per group of heads that read one kv head, the group's rows (query major,
/// head minor) in pieces of at most attention_max_rows.
struct cut {
    std::size_t outer = 1;      // indices of the leading dims but the head axis
    std::size_t heads = 1;      // the head axis' extent (1 when there is none)
    std::size_t group = 1;      // q heads per group
    std::size_t per_group = 0;  // pieces per group
    std::size_t count() const noexcept { return outer * (heads / group) * per_group; }
};

cut make_cut(const plan& p) {
    cut c;
    const std::size_t head_axis = p.lead_rank - 1;
    if (p.lead_rank > 0) {
        c.heads = p.lead[head_axis];
        for (std::size_t a = 0; a < head_axis; ++a) c.outer *= p.lead[a];
        if (p.rep > 0) c.group = p.rep;
        else if (p.k_lead[head_axis] == 0 && p.v_lead[head_axis] == 0 && c.heads > 0) c.group = c.heads;  // k, v broadcast over the heads
    }
    c.per_group = parallel::pieces_of(c.group * p.L, attention_max_rows);
    return c;
}

template <class T>
void run_attention(std::string_view, const plan& p, const tensor_ref& q, const tensor_ref& k, const tensor_ref& v,
                   const attention_options& o, const tensor_ref& out) {
    const cut c = make_cut(p);
    const std::size_t head_axis = p.lead_rank - 1;
    const double scale = o.scale ? *o.scale : 1.0 / std::sqrt(static_cast<double>(p.E));
    const auto kernel = simd::detail::active_table().of<T>().attention;
    const std::size_t groups = c.heads / c.group;
    // multiply-adds: L·S·(E + Ev) per leading index
    const std::size_t work = p.lead.count() * p.L * p.S * (p.E + p.Ev);
    const std::size_t threads = parallel::threads_for(work, grain::gemm);
    parallel::for_ranges(c.count(), threads, [&](std::size_t first, std::size_t last) {
        const std::size_t size = simd::detail::attention_scratch(p.E, p.Ev) + 64 / sizeof(T);
        const std::unique_ptr<T[]> memory(new T[size]);
        T* scratch = memory.get();
        while (reinterpret_cast<std::uintptr_t>(scratch) % 64 != 0) ++scratch;
        std::array<const T*, attention_max_rows> q_rows{};
        std::array<T*, attention_max_rows> out_rows{};
        std::array<const void*, attention_max_rows> mask_rows{};
        std::array<std::size_t, attention_max_rows> limits{};
        for (std::size_t index = first; index < last; ++index) {
            const std::size_t chunk = index % c.per_group, g = index / c.per_group % groups,
                              outer = index / c.per_group / groups;
            // the offsets (components) of the outer index and of the group's first head
            std::ptrdiff_t qo = 0, ko = 0, vo = 0, mo = 0, oo = 0;
            for (std::size_t a = head_axis, rest = outer; p.lead_rank > 0 && a-- > 0;) {
                const std::size_t i = rest % p.lead[a];
                rest /= p.lead[a];
                const auto at = static_cast<std::ptrdiff_t>(i);
                qo += at * p.q_lead[a];
                ko += at * p.k_lead[a];
                vo += at * p.v_lead[a];
                mo += at * p.m_lead[a];
                oo += at * out.strides[a];
            }
            const std::size_t h0 = g * c.group;
            if (p.lead_rank > 0) {
                const auto kv = static_cast<std::ptrdiff_t>(p.rep > 0 ? h0 / p.rep : h0);
                ko += kv * p.k_lead[head_axis];
                vo += kv * p.v_lead[head_axis];
            }
            attention_piece<T> piece;
            const std::size_t row0 = chunk * attention_max_rows;
            piece.rows = std::min(attention_max_rows, c.group * p.L - row0);
            for (std::size_t r = 0; r < piece.rows; ++r) {
                const std::size_t i = (row0 + r) / c.group, h = h0 + (row0 + r) % c.group;
                const auto hs = static_cast<std::ptrdiff_t>(h), is = static_cast<std::ptrdiff_t>(i);
                std::ptrdiff_t qh = 0, oh = 0, mh = 0;
                if (p.lead_rank > 0) {
                    qh = hs * p.q_lead[head_axis];
                    oh = hs * out.strides[head_axis];
                    mh = hs * p.m_lead[head_axis];
                }
                q_rows[r] = static_cast<const T*>(q.data) + qo + qh + is * q.strides[q.rank() - 2];
                out_rows[r] = static_cast<T*>(out.data) + oo + oh + is * out.strides[out.rank() - 2];
                if (o.mask != nullptr) {
                    const std::ptrdiff_t m = mo + mh + is * p.m_row;
                    mask_rows[r] = p.mask == simd::detail::attention_mask::boolean
                                       ? static_cast<const void*>(static_cast<const bool*>(o.mask->data) + m)
                                       : static_cast<const void*>(static_cast<const T*>(o.mask->data) + m);
                }
                limits[r] = std::min(i + 1, p.S);
            }
            piece.keys = p.S;
            piece.dim = p.E;
            piece.value_dim = p.Ev;
            piece.q = q_rows.data();
            piece.q_step = q.strides[q.rank() - 1];
            piece.out = out_rows.data();
            piece.out_step = out.strides[out.rank() - 1];
            piece.k = static_cast<const T*>(k.data) + ko;
            piece.k_row = k.strides[k.rank() - 2];
            piece.k_step = k.strides[k.rank() - 1];
            piece.v = static_cast<const T*>(v.data) + vo;
            piece.v_row = v.strides[v.rank() - 2];
            piece.v_step = v.strides[v.rank() - 1];
            piece.mask = p.mask;
            piece.mask_rows = mask_rows.data();
            piece.mask_step = p.m_col;
            piece.limit = o.causal ? limits.data() : nullptr;
            piece.scale = static_cast<T>(scale);
            piece.dot_form = c.group * p.L < 4;
            piece.scratch = scratch;
            kernel(piece);
        }
    });
}

}  // namespace

dims attention_shape(std::string_view op, const tensor_ref& q, const tensor_ref& k, const tensor_ref& v,
                     const attention_options& options) {
    return make_plan(op, q, k, v, options).result();
}

void attention(std::string_view op, const tensor_ref& q, const tensor_ref& k, const tensor_ref& v,
               const attention_options& options, const tensor_ref& out) {
    const plan p = make_plan(op, q, k, v, options);
    const dims shape = p.result();
    if (out.complex || !is_floating(out.type)) type_error(op, "out must be a real float or double tensor");
    detail::check_out_shape(op, out, shape);
    detail::check_no_internal_overlap(op, out);
    for (const tensor_ref* in : {&q, &k, &v, options.mask})
        if (in != nullptr && detail::overlaps(detail::range_of(*in), detail::range_of(out)))
            throw_layout_error(op, "out overlaps an operand (attention reads every key and value after writing the "
                                   "first rows: out must be memory of its own)");
    if (out.count() == 0) return;
    if (out.type != q.type) {  // computed in q's type, then converted
        tensor_ref temp = out;
        std::unique_ptr<double[]> memory(new double[out.count()]);
        temp.data = memory.get();
        temp.type = q.type;
        temp.strides = row_major_strides(shape, 1);
        attention(op, q, k, v, options, temp);
        copy_ref(op, temp, out);
        return;
    }
    if (p.S == 0) {  // softmax over no keys times no values: an empty sum
        const double zero = 0;
        tensor_ref number;
        number.data = const_cast<double*>(&zero);
        number.type = component::float64;
        const tensor_ref everywhere = broadcast_to(number, shape);
        const std::array<bool, 1> kinds{false};
        evaluate(op, std::span(&everywhere, 1), out, builtin_kernel(builtin::copy, out.type, kinds));
        return;
    }
    if (q.type == component::float64) run_attention<double>(op, p, q, k, v, options, out);
    else run_attention<float>(op, p, q, k, v, options, out);
}

}  // namespace realify::engine
