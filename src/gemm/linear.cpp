// realify/engine/linear.hpp: x's rows and wᵀ as the GEMM's operands
// (strides, no copy of the weight), the product into out or a temporary, the
// bias row added in one pass. (The shape and its checks: realify_simd,
// src/engine/linear_shape.cpp, where the graph's shape inference reads it.)
#include "realify/engine/linear.hpp"

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "../engine/tensor_checks.hpp"
#include "realify/engine/elementwise.hpp"
#include "realify/errors.hpp"
#include "realify/simd/gemm.hpp"

namespace realify::engine {

namespace {

/// The GEMM of out (rows × features, packed, components of T) = x · wᵀ.
template <class T>
void product(const tensor_ref& rows, const tensor_ref& w, std::size_t m, T* out) {
    simd::gemm_dims d;
    d.m = m;
    d.n = w.shape[0];
    d.k = w.shape[1];
    simd::gemm_operand<T> a, bt;
    a.data = static_cast<const T*>(rows.data);
    a.row_stride = rows.strides[0];
    a.col_stride = rows.strides[1];
    bt.data = static_cast<const T*>(w.data);  // wᵀ: the strides swapped
    bt.row_stride = w.strides[1];
    bt.col_stride = w.strides[0];
    if (rows.complex) simd::complex_gemm(d, a, bt, out);
    else simd::real_gemm(d, a, bt, out);
}

/// out (rows × features, packed) += b on every row.
template <class T>
void add_bias(const tensor_ref& b, std::size_t m, std::size_t n, bool complex, T* out) {
    const std::size_t width = complex ? 2 : 1;
    const T* bias = static_cast<const T*>(b.data);
    const std::ptrdiff_t step = n > 1 ? b.strides[0] : 0;
    for (std::size_t i = 0; i < m; ++i) {
        T* row = out + i * n * width;
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t c = 0; c < width; ++c) row[j * width + c] += bias[static_cast<std::ptrdiff_t>(j) * step + static_cast<std::ptrdiff_t>(c)];
    }
}

}  // namespace

void linear(std::string_view op, const tensor_ref& x, const tensor_ref& w, const tensor_ref* b, const tensor_ref& out) {
    const dims shape = linear_shape(op, x, w, b);
    std::array<tensor_ref, 3> inputs{x, w, b != nullptr ? *b : tensor_ref{}};
    const bool shared = check_result_out(op, std::span(inputs.data(), b != nullptr ? 3 : 2), out, shape);
    if (out.complex != x.complex || !is_floating(out.type))
        throw error("realify::" + std::string(op) + ": out must be a " + (x.complex ? "complex" : "real") +
                    " float or double tensor");
    const std::size_t n = w.shape[0], k = w.shape[1];
    std::size_t m = 1;  // x's rows: its leading dims
    for (std::size_t a = 0; a + 1 < x.rank(); ++a) m *= x.shape[a];
    if (shape.count() == 0) return;
    // x as rows × in_features: in place when its leading dims are one stride apart
    dims matrix;
    matrix.rank = 2;
    matrix.extent[0] = m;
    matrix.extent[1] = k;
    packed_copy x_copy;
    std::optional<tensor_ref> rows = reshaped_view(x, matrix);
    if (!rows) rows = reshaped_view(x_copy.pack(op, x), matrix);
    // out as rows × features: written by the GEMM directly when packed, of
    // x's type and not read by the product
    const tensor_ref packed = [&] {
        tensor_ref r = out;
        r.strides = row_major_strides(out.shape, out.width());
        return r;
    }();
    const bool direct = !shared && out.type == x.type && detail::same_tensor(packed, out, shape);
    std::unique_ptr<std::byte[]> temporary;
    void* target = out.data;
    if (!direct) {
        temporary.reset(new std::byte[shape.count() * static_cast<std::size_t>(x.width()) * size_of(x.type)]);
        target = temporary.get();
    }
    if (x.type == component::float64) {
        product<double>(*rows, w, m, static_cast<double*>(target));
        if (b != nullptr) add_bias(*b, m, n, x.complex, static_cast<double*>(target));
    } else {
        product<float>(*rows, w, m, static_cast<float*>(target));
        if (b != nullptr) add_bias(*b, m, n, x.complex, static_cast<float*>(target));
    }
    if (!direct) {
        tensor_ref from = packed;
        from.data = target;
        from.type = x.type;
        copy_ref(op, from, out);
    }
}

}  // namespace realify::engine
