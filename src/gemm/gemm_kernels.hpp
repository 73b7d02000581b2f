// Private: the matrix-product methods (realify/simd/gemm.hpp) over Eigen's
// real GEMM, written once and compiled once per instruction set: each
// src/gemm/gemm_<isa>.cpp defines REALIFY_GEMM_EIGEN_NAMESPACE and includes
// this file.
//
// Why Eigen's namespace is renamed: Eigen is header-only, so its templates
// and its inline non-template functions are compiled into every translation
// unit that uses them, under the same symbol names, and the linker keeps ONE
// copy. The gemm_<isa>.cpp units are built with different instruction sets,
// so the kept copy could be the AVX-512 one on an AVX2-only CPU (illegal
// instruction) or the SSE2 one on the AVX2 path (slow). `#define Eigen …`
// replaces the token everywhere in Eigen's headers, giving each unit's copy
// its own names (header names in #include directives are not
// macro-expanded, so the includes still find Eigen). The standard headers
// Eigen includes come first, so the macro never reaches them. Everything of
// realify's below has internal linkage (unnamed namespace) for the same
// reason.
#pragma once

#ifndef REALIFY_GEMM_EIGEN_NAMESPACE
#error "gemm_kernels.hpp is included by src/gemm/gemm_<isa>.cpp, which name Eigen's namespace for their ISA"
#endif

// What Eigen/Core includes, before the rename.
#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <cfloat>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <immintrin.h>
#include <iosfwd>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "gemm_arch.hpp"

#define EIGEN_DONT_PARALLELIZE  // one thread, like the rest of realify (and the benchmarks' competitors)
#define Eigen REALIFY_GEMM_EIGEN_NAMESPACE
#include <Eigen/Core>

namespace realify::simd::detail {
namespace {

using index = Eigen::Index;
template <class T>
using row_major = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using col_major = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
template <class Matrix>
using input = Eigen::Map<const Matrix, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T>
using output = Eigen::Map<row_major<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

/// Hands out 64-byte aligned arrays from one reservation of the workspace.
template <class T>
class arena {
public:
    static constexpr std::size_t padded(std::size_t count) {
        constexpr std::size_t line = 64 / sizeof(T);
        return (count + line - 1) / line * line;
    }
    template <class... Counts>
    arena(gemm_workspace& workspace, Counts... counts)
        : next_(static_cast<T*>(workspace.reserve((padded(counts) + ... + 0) * sizeof(T)))) {}
    T* take(std::size_t count) {
        T* result = next_;
        next_ += padded(count);
        return result;
    }

private:
    T* next_;
};

/// One product the methods compute: `rows` rows of A — the m rows of each of
/// the batches first_batch, first_batch + 1, … (several only when they share
/// B, so they stack into one taller product) — times one B, into `rows`
/// contiguous rows of out. Offsets are in components.
template <class T>
struct product {
    const gemm_matrix<T>& a;
    std::size_t first_batch, m;
    index rows, n, k;
    const T* b;
    std::ptrdiff_t b_row_stride, b_col_stride;
    bool conjugate_b;
    T* out;

    const T* a_row(index r) const {
        const auto batch = static_cast<std::size_t>(r) / m, row = static_cast<std::size_t>(r) % m;
        return a.data + a.batch_offsets[first_batch + batch] + static_cast<std::ptrdiff_t>(row) * a.row_stride;
    }
    const T* b_row(index p) const { return b + p * b_row_stride; }

    /// The distance between consecutive rows of A when it is the same for all
    /// of them (so A is one strided matrix), else 0.
    std::ptrdiff_t a_row_spacing() const {
        if (rows == 1) return 0;
        const std::ptrdiff_t spacing = a_row(1) - a_row(0);
        for (index r = 2; r < rows; ++r)
            if (a_row(r) - a_row(r - 1) != spacing) return 0;
        return spacing;
    }
};

/// Copies `rows` rows of `cols` elements of `width` components (element j of
/// row r at row(r) + j·col_stride) into contiguous row-major memory.
template <class T, class RowOf>
T* gather(index rows, index cols, int width, const RowOf& row, std::ptrdiff_t col_stride, T* to) {
    T* out = to;
    for (index r = 0; r < rows; ++r) {
        const T* from = row(r);
        for (index j = 0; j < cols; ++j)
            for (int c = 0; c < width; ++c) *out++ = from[j * col_stride + c];
    }
    return to;
}

/// One vector register of the instruction set this unit is built for, as a
/// GCC/Clang vector type: arithmetic on it is the scalar arithmetic lane by
/// lane (no contraction: the unit has -ffp-contract=off), and sums declared
/// as such stay in registers, which GCC did not reliably do for loops over
/// small arrays (the direct loop and the matrix-vector kernel use it).
constexpr std::size_t register_bytes =
#if defined(__AVX512F__)
    64;
#elif defined(__AVX__)
    32;
#else
    16;
#endif
template <class T>
struct vector_register {
    typedef T type __attribute__((vector_size(register_bytes)));
    static constexpr index lanes = register_bytes / sizeof(T);
    static type load(const T* p) {
        type v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    static void store(T* p, type v) { std::memcpy(p, &v, sizeof v); }
    /// [v1, v0, v3, v2, …]: one in-lane shuffle.
    static type swap_pairs(type v) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return __builtin_shufflevector(v, v, static_cast<int>(I ^ 1)...);
        }(std::make_index_sequence<lanes>{});
    }
};

/// Σ over the lanes of a register.
template <class T>
T lane_sum(typename vector_register<T>::type v) {
    T sum = T(0);
    for (index i = 0; i < vector_register<T>::lanes; ++i) sum += v[i];
    return sum;
}

// ---- real products -------------------------------------------------------------------

/// How a real operand is handed to Eigen: as it lies in memory, or copied.
enum class real_storage { row_major, col_major, copy };

/// Row-major when its rows are contiguous at one spacing, column-major when
/// its columns are (a single matrix only: stacked batches are rows), else a copy.
inline real_storage storage_of(index rows, index cols, std::ptrdiff_t row_spacing, std::ptrdiff_t col_stride,
                               bool single_matrix) {
    if (col_stride == 1 && (rows == 1 || row_spacing >= cols)) return real_storage::row_major;
    if (single_matrix && row_spacing == 1 && (cols == 1 || col_stride >= rows)) return real_storage::col_major;
    return real_storage::copy;
}

/// Runs `body(map)` with a map of the rows × cols real matrix whose row r is
/// at row(r): in place as `storage` says, or its contiguous copy in `scratch`.
template <class T, class RowOf, class Body>
void with_real_matrix(real_storage storage, index rows, index cols, const RowOf& row, std::ptrdiff_t row_spacing,
                      std::ptrdiff_t col_stride, T* scratch, const Body& body) {
    switch (storage) {
        case real_storage::row_major:
            body(input<row_major<T>>(row(0), rows, cols, Eigen::OuterStride<>(rows == 1 ? cols : row_spacing)));
            break;
        case real_storage::col_major:
            body(input<col_major<T>>(row(0), rows, cols, Eigen::OuterStride<>(cols == 1 ? rows : col_stride)));
            break;
        case real_storage::copy:
            body(input<row_major<T>>(gather(rows, cols, 1, row, col_stride, scratch), rows, cols,
                                     Eigen::OuterStride<>(cols)));
            break;
    }
}

template <class T>
void real_product(const product<T>& p, gemm_workspace& workspace) {
    const std::ptrdiff_t a_spacing = p.a_row_spacing();
    const real_storage a_storage =
        storage_of(p.rows, p.k, a_spacing, p.a.col_stride, p.rows == static_cast<index>(p.m));
    const real_storage b_storage = storage_of(p.k, p.n, p.b_row_stride, p.b_col_stride, true);
    const index a_copy = a_storage == real_storage::copy ? p.rows * p.k : 0;
    const index b_copy = b_storage == real_storage::copy ? p.k * p.n : 0;
    arena<T> scratch(workspace, a_copy, b_copy);
    T* a_scratch = scratch.take(a_copy);
    T* b_scratch = scratch.take(b_copy);
    output<T> c(p.out, p.rows, p.n, Eigen::OuterStride<>(p.n));
    const auto a_row = [&](index r) { return p.a_row(r); };
    const auto b_row = [&](index r) { return p.b_row(r); };
    with_real_matrix(a_storage, p.rows, p.k, a_row, a_spacing, p.a.col_stride, a_scratch, [&](const auto& a) {
        with_real_matrix(b_storage, p.k, p.n, b_row, p.b_row_stride, p.b_col_stride, b_scratch,
                         [&](const auto& b) { c.noalias() = a * b; });
    });
}

// ---- complex products ----------------------------------------------------------------

template <class T>
constexpr T sign(bool negative) {
    return negative ? T(-1) : T(1);
}

/// 1m's right operand: B (k × n complex) expanded to the real 2k × 2n matrix
/// whose 2 × 2 block (p, j) is [[bᵣ, s_b·bᵢ], [−s_a·s_b·bᵢ, s_a·bᵣ]], s = −1
/// for a conjugated operand. Then row i of A read as reals,
/// [aᵣ₀, aᵢ₀, aᵣ₁, aᵢ₁, …], times columns 2j and 2j + 1 is
/// Σ aᵣbᵣ − s_a·s_b·aᵢbᵢ and Σ s_b·aᵣbᵢ + s_a·aᵢbᵣ: the real and imaginary
/// parts of c_ij, already interleaved. These are the block's three factors.
template <class T>
struct expansion {
    T re_im, im_re, im_im;
    explicit expansion(const product<T>& p) {
        const T sa = sign<T>(p.a.conjugate), sb = sign<T>(p.conjugate_b);
        re_im = sb;
        im_re = -sa * sb;
        im_im = sa;
    }
};

/// The expanded B, row-major (2k × 2n).
template <class T>
void expand_b(const product<T>& p, T* expanded) {
    const expansion<T> e(p);
    const index width = 2 * p.n;
    const std::ptrdiff_t step = p.b_col_stride;
    for (index q = 0; q < p.k; ++q) {
        const T* b = p.b_row(q);
        T* upper = expanded + 2 * q * width;
        T* lower = upper + width;
        for (index j = 0; j < p.n; ++j) {
            const T br = b[j * step], bi = b[j * step + 1];
            upper[2 * j] = br;
            upper[2 * j + 1] = e.re_im * bi;
            lower[2 * j] = e.im_re * bi;
            lower[2 * j + 1] = e.im_im * br;
        }
    }
}

/// Rows rows of a matrix-vector product in 1m form. With a single column the
/// expanded B is two real columns, x0 = [bᵣ, −s_a·s_b·bᵢ, …] and
/// x1 = [s_b·bᵢ, s_a·bᵣ, …]: b and b with its pairs swapped, times a sign
/// pattern, so they are formed in registers from B's interleaved column
/// (length reals) instead of being stored. Row r of C is then the two real
/// dot products of A's interleaved row a[r] with x0 and x1; the rows go side
/// by side so b is loaded once for all of them, and the sums stay in registers.
template <index Rows, class T>
void gemv_rows(const T* const* a, const T* b, const expansion<T>& e, index length, T* out) {
    using reg = vector_register<T>;
    using vec = typename reg::type;
    constexpr index lanes = reg::lanes;
    vec x0_signs, x1_signs;
    for (index i = 0; i < lanes; i += 2) {
        x0_signs[i] = T(1);
        x0_signs[i + 1] = e.im_re;
        x1_signs[i] = e.re_im;
        x1_signs[i + 1] = e.im_im;
    }
    vec re[Rows] = {}, im[Rows] = {};
    index q = 0;
    for (; q + lanes <= length; q += lanes) {
        const vec pairs = reg::load(b + q);
        const vec x0 = pairs * x0_signs, x1 = reg::swap_pairs(pairs) * x1_signs;
#pragma GCC unroll 8
        for (index r = 0; r < Rows; ++r) {
            const vec row = reg::load(a[r] + q);
            re[r] += row * x0;
            im[r] += row * x1;
        }
    }
    for (index r = 0; r < Rows; ++r) {
        T sum_re = lane_sum<T>(re[r]), sum_im = lane_sum<T>(im[r]);
        for (index t = q; t < length; t += 2) {
            const T br = b[t], bi = b[t + 1];
            sum_re += a[r][t] * br + a[r][t + 1] * (e.im_re * bi);
            sum_im += a[r][t] * (e.re_im * bi) + a[r][t + 1] * (e.im_im * br);
        }
        out[2 * r] = sum_re;
        out[2 * r + 1] = sum_im;
    }
}

/// 1m with a single column (matrix-vector, dot): one pass over A, four rows
/// at a time (a general GEMM would pack A first). Rows of A and the column
/// of B that are not contiguous pairs are copied first.
template <class T>
void gemv_1m(const product<T>& p, gemm_workspace& workspace) {
    constexpr index group = 4;
    const index length = 2 * p.k;
    const bool rows_in_place = p.a.col_stride == 2, column_in_place = p.b_row_stride == 2;
    const index row_copies = rows_in_place ? 0 : group * length, column_copy = column_in_place ? 0 : length;
    arena<T> scratch(workspace, row_copies, column_copy);
    T* const rows_scratch = scratch.take(row_copies);
    T* const column_scratch = scratch.take(column_copy);
    const T* b = column_in_place ? p.b
                                 : gather(p.k, 1, 2, [&](index q) { return p.b_row(q); }, p.b_col_stride, column_scratch);
    const expansion<T> e(p);
    const T* rows[group];
    for (index r0 = 0; r0 < p.rows; r0 += group) {
        const index count = std::min(group, p.rows - r0);
        for (index i = 0; i < count; ++i) {
            rows[i] = rows_in_place ? p.a_row(r0 + i)
                                    : gather(1, p.k, 2, [&](index) { return p.a_row(r0 + i); }, p.a.col_stride,
                                             rows_scratch + i * length);
        }
        if (count == group) {
            gemv_rows<group>(rows, b, e, length, p.out + 2 * r0);
        } else {
            for (index i = 0; i < count; ++i) gemv_rows<1>(rows + i, b, e, length, p.out + 2 * (r0 + i));
        }
    }
}

/// The 1m method: one real product (rows × 2k) · (2k × 2n) on A as it lies in
/// memory (a copy only when its rows are not contiguous pairs at one spacing)
/// and the expanded B, straight into the interleaved output.
template <class T>
void product_1m(const product<T>& p, gemm_workspace& workspace) {
    const index k2 = 2 * p.k, n2 = 2 * p.n;
    if (p.n == 1) return gemv_1m(p, workspace);
    const std::ptrdiff_t spacing = p.a_row_spacing();
    const bool a_in_place = p.a.col_stride == 2 && (p.rows == 1 || spacing >= k2);
    arena<T> scratch(workspace, k2 * n2, a_in_place ? 0 : p.rows * k2);
    T* expanded = scratch.take(k2 * n2);
    expand_b(p, expanded);
    const T* a = a_in_place ? p.a_row(0)
                            : gather(p.rows, p.k, 2, [&](index r) { return p.a_row(r); }, p.a.col_stride,
                                     scratch.take(p.rows * k2));
    const index a_stride = a_in_place && p.rows > 1 ? spacing : k2;
    const input<row_major<T>> a_real(a, p.rows, k2, Eigen::OuterStride<>(a_stride));
    const input<row_major<T>> b_real(expanded, k2, n2, Eigen::OuterStride<>(n2));
    output<T> c(p.out, p.rows, n2, Eigen::OuterStride<>(n2));
    c.noalias() = a_real * b_real;
}

/// Deinterleaves a rows × cols complex matrix into its real and imaginary
/// parts (the imaginary part times `imag_sign`: −1 conjugates) and, when
/// `sum` is not null, their sum — the parts m4 and m3 multiply.
template <class T, class RowOf>
void split(index rows, index cols, const RowOf& row, std::ptrdiff_t col_stride, T imag_sign, T* re, T* im, T* sum) {
    for (index r = 0; r < rows; ++r) {
        const T* from = row(r);
        T* re_row = re + r * cols;
        T* im_row = im + r * cols;
        for (index j = 0; j < cols; ++j) {
            re_row[j] = from[j * col_stride];
            im_row[j] = imag_sign * from[j * col_stride + 1];
        }
        if (sum != nullptr)
            for (index j = 0; j < cols; ++j) sum[r * cols + j] = re_row[j] + im_row[j];
    }
}

/// Columns [j0, j0 + 2·lanes) of row r of the direct loop, summed in four
/// registers; br and bi are B's parts with rows of `stride` columns.
template <class T>
void direct_block(const product<T>& p, index r, const T* br, const T* bi, index stride, index j0, T* re, T* im) {
    using reg = vector_register<T>;
    using vec = typename reg::type;
    constexpr index lanes = reg::lanes;
    vec re0{}, re1{}, im0{}, im1{};
    const T* a = p.a_row(r);
    const T sa = sign<T>(p.a.conjugate);
    for (index q = 0; q < p.k; ++q) {
        const vec ar = a[q * p.a.col_stride] - vec{}, ai = sa * a[q * p.a.col_stride + 1] - vec{};
        const T* b_re = br + q * stride + j0;
        const T* b_im = bi + q * stride + j0;
        const vec r0 = reg::load(b_re), r1 = reg::load(b_re + lanes);
        const vec i0 = reg::load(b_im), i1 = reg::load(b_im + lanes);
        re0 += ar * r0 - ai * i0;
        re1 += ar * r1 - ai * i1;
        im0 += ar * i0 + ai * r0;
        im1 += ar * i1 + ai * r1;
    }
    reg::store(re, re0);
    reg::store(re + lanes, re1);
    reg::store(im, im0);
    reg::store(im + lanes, im1);
}

/// The direct loop: c_ij = Σ_p a_ip·b_pj in p order, each term the pair
/// formula (aᵣbᵣ − aᵢbᵢ, aᵣbᵢ + aᵢbᵣ), without fused multiply-adds. B is split
/// into its parts once, its rows padded with zeros to whole blocks of two
/// registers, and each block of a row sums in registers (interleaved pairs
/// would need shuffles); the arithmetic is the pair formula's, operation for
/// operation, and the padding columns are never written out.
template <class T>
void product_direct(const product<T>& p, gemm_workspace& workspace) {
    constexpr index block = 2 * vector_register<T>::lanes;
    const index stride = (p.n + block - 1) / block * block, b_size = p.k * stride;
    arena<T> scratch(workspace, b_size, b_size, stride, stride);
    T* const br = scratch.take(b_size);
    T* const bi = scratch.take(b_size);
    T* const re = scratch.take(stride);
    T* const im = scratch.take(stride);
    const T sb = sign<T>(p.conjugate_b);
    for (index q = 0; q < p.k; ++q) {
        const T* b = p.b_row(q);
        for (index j = 0; j < stride; ++j) {
            const bool inside = j < p.n;
            br[q * stride + j] = inside ? b[j * p.b_col_stride] : T(0);
            bi[q * stride + j] = inside ? sb * b[j * p.b_col_stride + 1] : T(0);
        }
    }
    for (index r = 0; r < p.rows; ++r) {
        for (index j0 = 0; j0 < stride; j0 += block) direct_block(p, r, br, bi, stride, j0, re + j0, im + j0);
        T* out = p.out + 2 * r * p.n;
        for (index j = 0; j < p.n; ++j) {
            out[2 * j] = re[j];
            out[2 * j + 1] = im[j];
        }
    }
}

/// The parts of A and B the m4 and m3 methods multiply, in scratch.
template <class T>
struct parts {
    T *ar, *ai, *as, *br, *bi, *bs;
};

template <class T>
parts<T> split_operands(const product<T>& p, arena<T>& scratch, bool with_sums) {
    const index a_size = p.rows * p.k, b_size = p.k * p.n;
    parts<T> result{scratch.take(a_size), scratch.take(a_size), with_sums ? scratch.take(a_size) : nullptr,
                    scratch.take(b_size), scratch.take(b_size), with_sums ? scratch.take(b_size) : nullptr};
    split(p.rows, p.k, [&](index r) { return p.a_row(r); }, p.a.col_stride, sign<T>(p.a.conjugate), result.ar,
          result.ai, result.as);
    split(p.k, p.n, [&](index r) { return p.b_row(r); }, p.b_col_stride, sign<T>(p.conjugate_b), result.br,
          result.bi, result.bs);
    return result;
}

template <class T>
input<row_major<T>> contiguous(const T* data, index rows, index cols) {
    return input<row_major<T>>(data, rows, cols, Eigen::OuterStride<>(cols));
}
template <class T>
output<T> contiguous(T* data, index rows, index cols) {
    return output<T>(data, rows, cols, Eigen::OuterStride<>(cols));
}

/// The 4m method: Cᵣ = AᵣBᵣ − AᵢBᵢ, Cᵢ = AᵣBᵢ + AᵢBᵣ, four real products.
template <class T>
void product_4m(const product<T>& p, gemm_workspace& workspace) {
    const index a_size = p.rows * p.k, b_size = p.k * p.n, c_size = p.rows * p.n;
    arena<T> scratch(workspace, a_size, a_size, b_size, b_size, c_size, c_size);
    const parts<T> x = split_operands(p, scratch, false);
    T* cr = scratch.take(c_size);
    T* ci = scratch.take(c_size);
    const auto ar = contiguous<T>(x.ar, p.rows, p.k), ai = contiguous<T>(x.ai, p.rows, p.k);
    const auto br = contiguous<T>(x.br, p.k, p.n), bi = contiguous<T>(x.bi, p.k, p.n);
    auto c_re = contiguous(cr, p.rows, p.n), c_im = contiguous(ci, p.rows, p.n);
    c_re.noalias() = ar * br;
    c_re.noalias() -= ai * bi;
    c_im.noalias() = ar * bi;
    c_im.noalias() += ai * br;
    for (index e = 0; e < c_size; ++e) {
        p.out[2 * e] = cr[e];
        p.out[2 * e + 1] = ci[e];
    }
}

/// The 3m method: T₁ = AᵣBᵣ, T₂ = AᵢBᵢ, T₃ = (Aᵣ + Aᵢ)(Bᵣ + Bᵢ),
/// Cᵣ = T₁ − T₂, Cᵢ = T₃ − T₁ − T₂: three real products.
template <class T>
void product_3m(const product<T>& p, gemm_workspace& workspace) {
    const index a_size = p.rows * p.k, b_size = p.k * p.n, c_size = p.rows * p.n;
    arena<T> scratch(workspace, a_size, a_size, a_size, b_size, b_size, b_size, c_size, c_size, c_size);
    const parts<T> x = split_operands(p, scratch, true);
    T* t1 = scratch.take(c_size);
    T* t2 = scratch.take(c_size);
    T* t3 = scratch.take(c_size);
    contiguous(t1, p.rows, p.n).noalias() = contiguous<T>(x.ar, p.rows, p.k) * contiguous<T>(x.br, p.k, p.n);
    contiguous(t2, p.rows, p.n).noalias() = contiguous<T>(x.ai, p.rows, p.k) * contiguous<T>(x.bi, p.k, p.n);
    contiguous(t3, p.rows, p.n).noalias() = contiguous<T>(x.as, p.rows, p.k) * contiguous<T>(x.bs, p.k, p.n);
    for (index e = 0; e < c_size; ++e) {
        p.out[2 * e] = t1[e] - t2[e];
        p.out[2 * e + 1] = t3[e] - t1[e] - t2[e];
    }
}

/// Every product of a call: one when the batches share B (their rows of A
/// stack), else one per batch.
template <class T>
void run(const gemm_call<T>& call) {
    const std::size_t groups = call.shared_b ? 1 : call.batch;
    const std::size_t per_group = call.batch / groups;
    const std::size_t out_width = call.complex ? 2 : 1;
    for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t first = g * per_group;
        const product<T> p{call.a,
                           first,
                           call.m,
                           static_cast<index>(per_group * call.m),
                           static_cast<index>(call.n),
                           static_cast<index>(call.k),
                           call.b.data + call.b.batch_offsets[first],
                           call.b.row_stride,
                           call.b.col_stride,
                           call.b.conjugate,
                           call.out + first * call.m * call.n * out_width};
        if (!call.complex) {
            real_product(p, *call.workspace);
            continue;
        }
        switch (call.method) {
            case gemm_method::m4: product_4m(p, *call.workspace); break;
            case gemm_method::m3: product_3m(p, *call.workspace); break;
            case gemm_method::direct: product_direct(p, *call.workspace); break;
            default: product_1m(p, *call.workspace); break;
        }
    }
}

}  // namespace
}  // namespace realify::simd::detail
