// The public matrix-product API (realify/simd/gemm.hpp): argument checks, the
// choice of method and of library (gemm_choice.cpp measures them), the cut of
// a product into tiles fixed by its sizes, the skinny products (a few rows:
// realify's own kernel, one pass over the weight), the threads, each thread's
// scratch memory — then calls into the products built for the level the gemm
// family runs on (realify::simd::active_arch_id), so REALIFY_SIMD_ARCH and
// realify::simd::force_arch govern them as every other compiled kernel.
// Compiled for the baseline ISA only.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "../simd/parallel.hpp"
#include "gemm_arch.hpp"
#include "gemm_plan.hpp"
#include "realify/errors.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/gemm.hpp"
#include "realify/simd/gemm_report.hpp"
#include "realify/threads.hpp"

namespace realify {

namespace {
thread_local gemm_method thread_method = gemm_method::automatic;
}  // namespace

gemm_method current_gemm_method() noexcept { return thread_method; }

scoped_gemm_method::scoped_gemm_method(gemm_method method) noexcept : previous_(thread_method) {
    thread_method = method;
}
scoped_gemm_method::~scoped_gemm_method() { thread_method = previous_; }

namespace simd {

namespace detail {

// Scratch up to this size stays allocated between calls (a 1024 × 1024
// complex<float> product's expanded B is 16 MiB); larger is freed after the
// call, where the allocation is cheap next to the product anyway.
constexpr std::size_t kept_workspace_bytes = std::size_t(32) << 20;

gemm_workspace::~gemm_workspace() { std::free(data_); }

void* gemm_workspace::reserve(std::size_t bytes) {
    if (bytes <= size_ && data_ != nullptr) return data_;
    std::free(data_);
    data_ = nullptr;
    size_ = 0;
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    data_ = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (data_ == nullptr) throw std::bad_alloc();
    size_ = rounded;
    return data_;
}

void gemm_workspace::trim() noexcept {
    if (size_ <= kept_workspace_bytes) return;
    std::free(data_);
    data_ = nullptr;
    size_ = 0;
}

}  // namespace detail

namespace {

using detail::gemm_library;

thread_local detail::gemm_workspace workspace;

/// The libraries beside Eigen take int dimensions and leading dimensions:
/// products whose sizes, strides or batch offsets (the spacing of stacked
/// rows) do not stay well within an int stay on Eigen.
template <class T>
bool fits_int(const gemm_dims& dims, const gemm_operand<T>& a, const gemm_operand<T>& b) {
    constexpr std::size_t limit = INT_MAX / 4;
    auto small = [](std::ptrdiff_t v) { return static_cast<std::size_t>(v < 0 ? -v : v) < limit; };
    bool offsets = true;
    for (std::ptrdiff_t o : a.batch_offsets) offsets = offsets && small(o);
    for (std::ptrdiff_t o : b.batch_offsets) offsets = offsets && small(o);
    return offsets && dims.batch * dims.m < limit && dims.n < limit && dims.k < limit && dims.m * dims.k < limit &&
           dims.k * dims.n < limit && small(a.row_stride) && small(a.col_stride) && small(b.row_stride) &&
           small(b.col_stride);
}

bool same_offsets(std::span<const std::ptrdiff_t> offsets) {
    for (std::ptrdiff_t offset : offsets)
        if (offset != offsets[0]) return false;
    return true;
}

/// The operand as the products read it. Where an extent is 1 its stride is
/// never used: it is set to what a contiguous matrix would have, so such an
/// operand (a row, a column, a 1 × 1) counts as contiguous.
template <class T>
detail::gemm_matrix<T> matrix_of(const gemm_operand<T>& operand, std::size_t rows, std::size_t cols, int width,
                                 const std::ptrdiff_t* single_offset) {
    detail::gemm_matrix<T> result{operand.data, operand.row_stride, operand.col_stride,
                                  operand.batch_offsets.empty() ? single_offset : operand.batch_offsets.data(),
                                  operand.conjugate && width == 2};
    if (cols == 1) result.col_stride = width;
    if (rows == 1) result.row_stride = static_cast<std::ptrdiff_t>(cols) * width;
    return result;
}

void check_offsets(const char* function, const char* name, const gemm_dims& dims, std::size_t count) {
    if (count == dims.batch || (count == 0 && dims.batch == 1)) return;
    throw shape_error(std::string("realify::simd::") + function + ": " + name + ".batch_offsets has " +
                      std::to_string(count) + " entries for " + std::to_string(dims.batch) + " batches");
}

// ---- the cut (docs/parallel.md) --------------------------------------------------------------
//
// A product is cut into pieces that depend on its sizes only — never on the
// thread count — so its bits are the same on any number of threads, and one
// thread computes exactly the pieces N threads compute:
//   tiles     2-D blocks of C (detail::tile_grid), each one call of the
//             library on one thread, written in place into C (its leading
//             dimension C's row length); per batch when the batches do not
//             share B; batches on a shared B stack their rows into one product;
//   skinny    a product of at most detail::skinny_rows rows (or columns):
//             pieces of the outputs, each one pass over its part of the
//             weight (the bits of an output do not depend on the cut at all);
//   k chunks  a dot product (one row times one column): fixed chunks of k,
//             their products added in order.
// Each piece runs on the calling or a worker thread with that thread's
// scratch memory.

/// Runs body(piece) for pieces [0, count) on up to `threads` threads.
template <class Body>
void run_pieces(std::size_t count, std::size_t threads, const Body& body) {
    parallel::for_ranges(count, threads, [&](std::size_t first, std::size_t last) {
        for (std::size_t piece = first; piece < last; ++piece) body(piece);
        workspace.trim();
    });
}

template <class T>
void run_tiles(const detail::gemm_call<T>& call) {
    const detail::gemm_kernel<T> kernel = detail::active_products<T>().gemm;
    const std::size_t groups = call.shared_b ? 1 : call.batch;
    const std::size_t rows = call.shared_b ? call.batch * call.m : call.m;
    const std::size_t depth = call.k * (call.complex ? 4 : 1);  // real multiply-adds per entry of C
    const detail::tile_grid grid = detail::tile_grid::of(rows, call.n, depth);
    const std::size_t per_group = grid.count();
    run_pieces(groups * per_group, parallel::threads_for(groups * rows * call.n * depth, grain::gemm),
               [&](std::size_t piece) { kernel(call, grid.tile(piece / per_group, piece % per_group), workspace); });
}

/// A dot product of any method: chunks of k (detail::dot_chunk), each a
/// product of its own, added in order.
template <class T>
void run_dot(const detail::gemm_call<T>& call) {
    const detail::gemm_kernel<T> kernel = detail::active_products<T>().gemm;
    const std::size_t width = call.complex ? 2 : 1;
    const std::size_t chunks = parallel::pieces_of(call.k, detail::dot_chunk);
    if (chunks == 1) return kernel(call, {0, 0, 1, 0, 1}, workspace);
    std::vector<T> parts(chunks * width);
    run_pieces(chunks, parallel::threads_for(2 * call.k * width, grain::reduction), [&](std::size_t c) {
        const std::size_t k0 = c * detail::dot_chunk, k1 = std::min(call.k, k0 + detail::dot_chunk);
        detail::gemm_call<T> piece = call;
        piece.k = k1 - k0;
        piece.a.data += static_cast<std::ptrdiff_t>(k0) * call.a.col_stride;
        piece.b.data += static_cast<std::ptrdiff_t>(k0) * call.b.row_stride;
        piece.out = parts.data() + width * c;
        kernel(piece, {0, 0, 1, 0, 1}, workspace);
    });
    for (std::size_t c = 0; c < width; ++c) {
        T sum = parts[c];
        for (std::size_t r = 1; r < chunks; ++r) sum += parts[width * r + c];
        call.out[c] = sum;
    }
}

// ---- skinny real products ---------------------------------------------------------------------

/// A real product as a skinny product: x the operand of at most skinny_rows
/// rows (A, or Bᵀ when B has at most skinny_rows columns), w the other read
/// in place (dot form: its p-stride is 1; axpy form: its other stride is 1).
/// Returns false, having done nothing, when the product is not skinny or
/// the weight is neither (then the GEMM runs it).
template <class T>
bool run_skinny(const gemm_dims& dims, const gemm_operand<T>& a, const gemm_operand<T>& b, T* out, bool shared_b) {
    detail::skinny_shape shape{};
    if (!detail::skinny_shape_of(dims, shared_b, shape)) return false;
    static constexpr std::ptrdiff_t zero_offset = 0;
    const detail::gemm_matrix<T> ma = matrix_of(a, dims.m, dims.k, 1, &zero_offset);
    const detail::gemm_matrix<T> mb = matrix_of(b, dims.k, dims.n, 1, &zero_offset);
    const bool transposed = shape.transposed, stacked = shape.stacked;
    // the weight's strides along p (k) and along its outputs
    const std::ptrdiff_t w_p = transposed ? ma.col_stride : mb.row_stride;
    const std::ptrdiff_t w_j = transposed ? ma.row_stride : mb.col_stride;
    const std::size_t outputs = shape.outputs, x_rows = shape.x_rows, groups = shape.groups;
    const bool dot_form = w_p == 1 || dims.k == 1, axpy_form = w_j == 1 || outputs == 1;
    if (!dot_form && !axpy_form) return false;
    const std::ptrdiff_t x_p = transposed ? mb.row_stride : ma.col_stride;
    const bool pack = x_p != 1 && dims.k > 1;
    std::vector<T> packed(pack ? groups * x_rows * dims.k : 0);
    const detail::skinny_kernel<T> kernel = detail::active_products<T>().skinny;
    std::vector<detail::skinny_call<T>> calls(groups);
    for (std::size_t g = 0; g < groups; ++g) {
        detail::skinny_call<T>& c = calls[g];
        c.rows = x_rows;
        c.k = dims.k;
        c.outputs = outputs;
        c.dot_form = dot_form;
        if (transposed) {
            c.w = ma.data + ma.batch_offsets[g];
            c.out = out + g * dims.m * dims.n;
            c.out_row_stride = 1;
            c.out_col_stride = static_cast<std::ptrdiff_t>(dims.n);
        } else {
            c.w = mb.data + mb.batch_offsets[stacked ? 0 : g];
            c.out = out + (stacked ? 0 : g * dims.m * dims.n);
            c.out_row_stride = static_cast<std::ptrdiff_t>(dims.n);
            c.out_col_stride = 1;
        }
        c.ldw = dot_form ? w_j : w_p;
        for (std::size_t r = 0; r < x_rows; ++r) {
            const T* row = transposed ? mb.data + mb.batch_offsets[g] + static_cast<std::ptrdiff_t>(r) * mb.col_stride
                           : stacked  ? ma.data + ma.batch_offsets[r / dims.m] +
                                           static_cast<std::ptrdiff_t>(r % dims.m) * ma.row_stride
                                      : ma.data + ma.batch_offsets[g] + static_cast<std::ptrdiff_t>(r) * ma.row_stride;
            if (pack) {
                T* to = packed.data() + (g * x_rows + r) * dims.k;
                for (std::size_t p = 0; p < dims.k; ++p) to[p] = row[static_cast<std::ptrdiff_t>(p) * x_p];
                row = to;
            }
            c.x[r] = row;
        }
    }
    if (x_rows == 1 && outputs == 1 && dims.k > detail::dot_chunk) {  // a dot product: chunks of k
        for (const detail::skinny_call<T>& c : calls) {
            const std::size_t chunks = parallel::pieces_of(dims.k, detail::dot_chunk);
            std::vector<T> parts(chunks);
            run_pieces(chunks, parallel::threads_for(2 * dims.k, grain::reduction), [&](std::size_t piece) {
                const std::size_t k0 = piece * detail::dot_chunk;
                detail::skinny_call<T> chunk = c;
                chunk.k = std::min(dims.k, k0 + detail::dot_chunk) - k0;
                chunk.x[0] = c.x[0] + k0;
                chunk.w = c.w + static_cast<std::ptrdiff_t>(k0) * (c.dot_form ? 1 : c.ldw);
                chunk.out = parts.data() + piece;
                kernel(chunk, 0, 1);
            });
            T sum = parts[0];
            for (std::size_t piece = 1; piece < chunks; ++piece) sum += parts[piece];
            *c.out = sum;
        }
        return true;
    }
    const std::size_t per_piece = detail::skinny_piece_outputs(outputs, dims.k, sizeof(T), dot_form);
    const std::size_t pieces = parallel::pieces_of(outputs, per_piece);
    const std::size_t work = groups * outputs * dims.k * std::max<std::size_t>(1, x_rows / 4);
    run_pieces(groups * pieces, parallel::threads_for(work, grain::reduction), [&](std::size_t piece) {
        const std::size_t first = piece % pieces * per_piece;
        kernel(calls[piece / pieces], first, std::min(outputs, first + per_piece));
    });
    return true;
}

// ---- the call -------------------------------------------------------------------------------

template <class T>
void gemm_impl(const char* function, bool complex, const gemm_dims& dims, const gemm_operand<T>& a,
               const gemm_operand<T>& b, T* out, gemm_method method) {
    check_offsets(function, "a", dims, a.batch_offsets.size());
    check_offsets(function, "b", dims, b.batch_offsets.size());
    const int width = complex ? 2 : 1;
    if (dims.batch == 0 || dims.m == 0 || dims.n == 0) return;
    if (dims.k == 0) {  // an empty sum: zeros
        std::memset(out, 0, dims.batch * dims.m * dims.n * static_cast<std::size_t>(width) * sizeof(T));
        return;
    }
    const bool shared_b = dims.batch > 1 && same_offsets(b.batch_offsets);
    if (!complex && run_skinny(dims, a, b, out, shared_b)) return;
    const gemm_type type = complex ? (sizeof(T) == 4 ? gemm_type::complex64 : gemm_type::complex128)
                                   : (sizeof(T) == 4 ? gemm_type::float32 : gemm_type::float64);
    const detail::gemm_choice choice = detail::choose(dims, type, shared_b, method, fits_int(dims, a, b));
    static constexpr std::ptrdiff_t zero_offset = 0;
    const detail::gemm_call<T> call{dims.batch,
                                    dims.m,
                                    dims.n,
                                    dims.k,
                                    matrix_of(a, dims.m, dims.k, width, &zero_offset),
                                    matrix_of(b, dims.k, dims.n, width, &zero_offset),
                                    out,
                                    complex,
                                    shared_b,
                                    choice.method,
                                    choice.real_library,
                                    choice.complex_library};
    if (dims.batch == 1 && dims.m == 1 && dims.n == 1) return run_dot(call);
    run_tiles(call);
}

}  // namespace

namespace {
// graph::explain() (realify_simd) describes the products through this hook:
// registered here, in the unit every product links, so that explain() itself
// needs nothing of realify_gemm (realify/simd/gemm_report.hpp).
const bool gemm_report_registered = (set_gemm_report([] { return std::string(gemm_backend()); }), true);
}  // namespace

gemm_method resolve_gemm_method(const gemm_dims& dims, bool shared_b, gemm_method method) noexcept {
    if (method != gemm_method::automatic) return method;
    if (dims.n == 1) return gemm_method::m1;  // a matrix-vector product: 1m's single pass over A
    const std::size_t rows = shared_b ? dims.batch * dims.m : dims.m;
    return rows * dims.n * dims.k <= gemm_direct_threshold ? gemm_method::direct : gemm_method::native;
}

void complex_gemm(const gemm_dims& dims, const gemm_operand<float>& a, const gemm_operand<float>& b, float* out,
                  gemm_method method) {
    gemm_impl("complex_gemm", true, dims, a, b, out, method);
}
void complex_gemm(const gemm_dims& dims, const gemm_operand<double>& a, const gemm_operand<double>& b, double* out,
                  gemm_method method) {
    gemm_impl("complex_gemm", true, dims, a, b, out, method);
}
void real_gemm(const gemm_dims& dims, const gemm_operand<float>& a, const gemm_operand<float>& b, float* out) {
    gemm_impl("real_gemm", false, dims, a, b, out, gemm_method::automatic);
}
void real_gemm(const gemm_dims& dims, const gemm_operand<double>& a, const gemm_operand<double>& b, double* out) {
    gemm_impl("real_gemm", false, dims, a, b, out, gemm_method::automatic);
}

}  // namespace simd
}  // namespace realify
