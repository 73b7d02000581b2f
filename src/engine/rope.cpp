// realify/engine/rope.hpp: the checks of a one-tensor RoPE call and its
// description for the compiled kernel (realify/rope/call.hpp: the strides of
// every row); the rotation is the kernel's.
#include "realify/engine/rope.hpp"

#include <cstddef>
#include <memory>
#include <string>

#include "realify/engine/elementwise.hpp"
#include "realify/errors.hpp"
#include "realify/rope/compiled.hpp"
#include "realify/simd/streaming.hpp"
#include "tensor_checks.hpp"

namespace realify::engine {

namespace {

std::string call_shapes(const tensor_ref& x, const tensor_ref& freqs, std::ptrdiff_t start_pos) {
    return "(x " + realify::detail::format_sequence(x.shape) + ", freqs_cis " +
           realify::detail::format_sequence(freqs.shape) + ", start_pos " + std::to_string(start_pos) + ")";
}

template <class T>
void rotate(const tensor_ref& x, const tensor_ref& freqs, std::size_t first_row, realify::rope::pair_layout layout,
            const tensor_ref& out) {
    realify::rope::detail::rope_call<T> call;
    call.xq = call.xk = static_cast<const T*>(x.data);
    call.out_q = call.out_k = static_cast<T*>(out.data);
    call.freqs = static_cast<const T*>(freqs.data);
    call.batch = x.shape[0];
    call.seq = x.shape[1];
    call.q_heads = x.shape[2];
    call.k_heads = 0;
    call.head_dim = x.shape[3];
    call.start_pos = first_row;
    call.layout = layout;
    call.xq_strides = call.xk_strides = {x.strides[0], x.strides[1], x.strides[2]};
    call.out_q_strides = call.out_k_strides = {out.strides[0], out.strides[1], out.strides[2]};
    const std::size_t bytes = (2 * x.count() + call.seq * call.head_dim) * sizeof(T);
    call.stream = x.data != out.data && bytes >= simd::streaming_threshold();
    realify::rope::detail::rope_compiled(call);
}

}  // namespace

void rope(std::string_view op, const tensor_ref& x, const tensor_ref& freqs, std::ptrdiff_t start_pos,
          realify::rope::pair_layout layout, const tensor_ref& out) {
    if (x.complex || !is_floating(x.type)) throw error("realify::" + std::string(op) + ": x must be a real float or double tensor");
    if (!freqs.complex || freqs.type != x.type)
        throw error("realify::" + std::string(op) + ": freqs_cis must be complex with x's component type "
                    "(std::complex<float> for float x, std::complex<double> for double)");
    if (out.complex || out.type != x.type) throw error("realify::" + std::string(op) + ": out must have x's element type");
    if (x.rank() != 4)
        throw_shape_error(op, "x must be (batch, seq, heads, head_dim), got shape " + realify::detail::format_sequence(x.shape));
    if (freqs.rank() != 2)
        throw_shape_error(op, "freqs_cis must be (end, head_dim/2) complex, got shape " + realify::detail::format_sequence(freqs.shape));
    const std::size_t seq = x.shape[1], head_dim = x.shape[3];
    if (head_dim % 2 != 0) throw_shape_error(op, "head_dim must be even (pairs of components) " + call_shapes(x, freqs, start_pos));
    if (freqs.shape[1] != head_dim / 2)
        throw_shape_error(op, "freqs_cis must have head_dim/2 columns " + call_shapes(x, freqs, start_pos));
    if (start_pos < 0) throw_shape_error(op, "start_pos must be non-negative " + call_shapes(x, freqs, start_pos));
    const auto first_row = static_cast<std::size_t>(start_pos);
    if (first_row > freqs.shape[0] || seq > freqs.shape[0] - first_row)  // never start_pos + seq: it may wrap
        throw_shape_error(op, "freqs_cis has fewer rows than start_pos + seq " + call_shapes(x, freqs, start_pos));
    detail::check_out_shape(op, out, x.shape);
    detail::check_no_internal_overlap(op, out);
    if (detail::overlaps(detail::range_of(freqs), detail::range_of(out)))
        throw_layout_error(op, "out overlaps freqs_cis (outputs must not overwrite the table)");
    if (x.count() == 0) return;
    // the kernel reads pairs and rows of freqs contiguous, and x where out is
    // not: anything else is copied first
    packed_copy x_copy, table_copy, out_copy;
    const bool in_place = detail::same_tensor(x, out, x.shape);
    tensor_ref from = x;
    if ((head_dim > 1 && x.strides[3] != 1) || (!in_place && detail::overlaps(detail::range_of(x), detail::range_of(out))))
        from = x_copy.pack(op, x);
    const tensor_ref table = packed_from(freqs, 0) ? freqs : table_copy.pack(op, freqs);
    const bool direct = head_dim <= 1 || out.strides[3] == 1;
    const tensor_ref to = direct ? out : out_copy.pack(op, from);
    if (x.type == component::float64) rotate<double>(from, table, first_row, layout, to);
    else rotate<float>(from, table, first_row, layout, to);
    if (!direct) copy_ref(op, to, out);
}

}  // namespace realify::engine
