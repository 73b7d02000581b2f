// Private: the matrix-product methods (realify/simd/gemm.hpp) over Eigen's
// real GEMM, written once and compiled once per instruction set: each
// src/gemm/gemm_isa.cpp (one unit per level) defines REALIFY_GEMM_EIGEN_NAMESPACE and includes
// this file.
//
// Why Eigen's namespace is renamed: Eigen is header-only, so its templates
// and its inline non-template functions are compiled into every translation
// unit that uses them, under the same symbol names, and the linker keeps ONE
// copy. The gemm_isa.cpp units are built with different instruction sets,
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
#error "gemm_kernels.hpp is included by src/gemm/gemm_isa.cpp, whose units name Eigen's namespace for their ISA"
#endif

// What Eigen/Core includes, before the rename.
#include <algorithm>
#include <array>
#include <bit>
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
#include "libraries.hpp"

#define EIGEN_DONT_PARALLELIZE  // one thread, like the rest of realify (and the benchmarks' competitors)
#define Eigen REALIFY_GEMM_EIGEN_NAMESPACE
#include <Eigen/Core>

#include "complex_gemm.hpp"

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

/// One product the methods compute: `rows` rows of A — rows first_row,
/// first_row + 1, … of the group's stacked rows (row r is row r % m of batch
/// r / m: several batches only when they share B) — times `n` columns of one
/// B, into `rows` rows of out, `ldc` elements (pairs, when complex) apart.
/// Offsets are in components.
template <class T>
struct product {
    const gemm_matrix<T>& a;
    std::size_t first_row, m;
    index rows, n, k;
    const T* b;
    std::ptrdiff_t b_row_stride, b_col_stride;
    bool conjugate_b;
    T* out;
    index ldc;

    const T* a_row(index r) const {
        const std::size_t row = first_row + static_cast<std::size_t>(r);
        return a.data + a.batch_offsets[row / m] + static_cast<std::ptrdiff_t>(row % m) * a.row_stride;
    }
    const T* b_row(index p) const { return b + p * b_row_stride; }
    /// Whether the rows are those of one batch's matrix.
    bool single_matrix() const { return first_row / m == (first_row + static_cast<std::size_t>(rows) - 1) / m; }

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

/// A real rows × cols operand as a GEMM reads it: element (r, c) at
/// data[r·ld + c], or at data[c·ld + r] when `transposed` (column-major).
template <class T>
struct real_matrix {
    const T* data;
    index ld;
    bool transposed;
};

/// How a real operand is handed to the GEMM: as it lies in memory, or copied.
enum class real_storage { row_major, col_major, copy };

/// Row-major when its rows are contiguous at one spacing, column-major when
/// its columns are (a single matrix only: stacked batches are rows), else a copy.
inline real_storage storage_of(index rows, index cols, std::ptrdiff_t row_spacing, std::ptrdiff_t col_stride,
                               bool single_matrix) {
    if (col_stride == 1 && (rows == 1 || row_spacing >= cols)) return real_storage::row_major;
    if (single_matrix && row_spacing == 1 && (cols == 1 || col_stride >= rows)) return real_storage::col_major;
    return real_storage::copy;
}

/// The rows × cols real operand whose row r is at row(r), in place as
/// `storage` says, or its contiguous copy in `scratch`.
template <class T, class RowOf>
real_matrix<T> real_operand(real_storage storage, index rows, index cols, const RowOf& row,
                            std::ptrdiff_t row_spacing, std::ptrdiff_t col_stride, T* scratch) {
    switch (storage) {
        case real_storage::row_major: return {row(0), rows == 1 ? cols : row_spacing, false};
        case real_storage::col_major: return {row(0), cols == 1 ? rows : col_stride, true};
        case real_storage::copy: break;
    }
    return {gather(rows, cols, 1, row, col_stride, scratch), cols, false};
}

/// C = A·B, C += A·B (accumulate +1) or C −= A·B (−1), C rows × n row-major
/// with leading dimension ldc, on Eigen's real GEMM: the real products of
/// every method without a BLAS.
struct eigen_gemm {
    template <class T>
    void operator()(index rows, index n, index k, const real_matrix<T>& a, const real_matrix<T>& b, T* c,
                    index ldc, int accumulate = 0) const {
        output<T> out(c, rows, n, Eigen::OuterStride<>(ldc));
        const auto times_b = [&](const auto& lhs) {
            const auto into = [&](const auto& rhs) {
                if (accumulate > 0) out.noalias() += lhs * rhs;
                else if (accumulate < 0) out.noalias() -= lhs * rhs;
                else out.noalias() = lhs * rhs;
            };
            if (b.transposed) into(input<col_major<T>>(b.data, k, n, Eigen::OuterStride<>(b.ld)));
            else into(input<row_major<T>>(b.data, k, n, Eigen::OuterStride<>(b.ld)));
        };
        if (a.transposed) times_b(input<col_major<T>>(a.data, rows, k, Eigen::OuterStride<>(a.ld)));
        else times_b(input<row_major<T>>(a.data, rows, k, Eigen::OuterStride<>(a.ld)));
    }
};

/// The same on a library's sgemm / dgemm (libraries.hpp: the CBLAS, oneDNN).
struct library_real_gemm {
    gemm_library library;
    template <class T>
    void operator()(index rows, index n, index k, const real_matrix<T>& a, const real_matrix<T>& b, T* c, index ldc,
                    int accumulate = 0) const {
        library_gemm(library, a.transposed, b.transposed, rows, n, k, accumulate < 0 ? T(-1) : T(1), a.data, a.ld,
                     b.data, b.ld, accumulate != 0 ? T(1) : T(0), c, ldc);
    }
};

/// Runs body(gemm) with the real GEMM of `library`.
template <class Body>
void with_real_gemm(gemm_library library, const Body& body) {
    if (library == gemm_library::eigen) return body(eigen_gemm{});
    body(library_real_gemm{library});
}

template <class T, class Gemm>
void real_product(const product<T>& p, gemm_workspace& workspace, const Gemm& gemm) {
    const std::ptrdiff_t a_spacing = p.a_row_spacing();
    const real_storage a_storage = storage_of(p.rows, p.k, a_spacing, p.a.col_stride, p.single_matrix());
    const real_storage b_storage = storage_of(p.k, p.n, p.b_row_stride, p.b_col_stride, true);
    const index a_copy = a_storage == real_storage::copy ? p.rows * p.k : 0;
    const index b_copy = b_storage == real_storage::copy ? p.k * p.n : 0;
    arena<T> scratch(workspace, a_copy, b_copy);
    const auto a = real_operand(a_storage, p.rows, p.k, [&](index r) { return p.a_row(r); }, a_spacing,
                                p.a.col_stride, scratch.take(a_copy));
    const auto b = real_operand(b_storage, p.k, p.n, [&](index r) { return p.b_row(r); }, p.b_row_stride,
                                p.b_col_stride, scratch.take(b_copy));
    gemm(p.rows, p.n, p.k, a, b, p.out, p.ldc);
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
void gemv_rows(const T* const* a, const T* b, const expansion<T>& e, index length, T* out, index out_stride) {
    using reg = vector_register<T>;
    using vec = typename reg::type;
    constexpr index lanes = reg::lanes;
    vec x0_signs{}, x1_signs{};  // every lane set below; initialised so GCC sees no uninitialised read
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
        out[r * out_stride] = sum_re;
        out[r * out_stride + 1] = sum_im;
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
            gemv_rows<group>(rows, b, e, length, p.out + 2 * r0 * p.ldc, 2 * p.ldc);
        } else {
            for (index i = 0; i < count; ++i) gemv_rows<1>(rows + i, b, e, length, p.out + 2 * (r0 + i) * p.ldc, 0);
        }
    }
}

/// The 1m method: one real product (rows × 2k) · (2k × 2n) on A as it lies in
/// memory (a copy only when its rows are not contiguous pairs at one spacing)
/// and the expanded B, straight into the interleaved output.
template <class T, class Gemm>
void product_1m(const product<T>& p, gemm_workspace& workspace, const Gemm& gemm) {
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
    gemm(p.rows, n2, k2, real_matrix<T>{a, a_stride, false}, real_matrix<T>{expanded, n2, false}, p.out, 2 * p.ldc);
}

/// |x| as an unsigned bit pattern: ordered as the magnitudes, inf and NaN
/// above every finite value — so the largest over an array is a vectorised
/// max, tested once (`< infinite_bits<T>`: all finite).
template <class T>
using bits_of = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
template <class T>
constexpr bits_of<T> magnitude_bits(T x) noexcept {
    return std::bit_cast<bits_of<T>>(x) & (~bits_of<T>(0) >> 1);
}
template <class T>
constexpr bits_of<T> infinite_bits = magnitude_bits(std::numeric_limits<T>::infinity());

/// Deinterleaves a rows × cols complex matrix into its real and imaginary
/// parts (the imaginary part times `imag_sign`: −1 conjugates) and, when
/// `sum` is not null, their sum — the parts m4 and m3 multiply. Returns the
/// scale of the sums: 1, or ½ when two finite parts overflowed in a sum
/// (1e308 + 1e308i), which 3m would turn into an infinite entry of a finite
/// product; every sum is then (re + im)·½ — exact but for a subnormal part's
/// last bit — and 3m scales its third product back.
template <class T, class RowOf>
T split(index rows, index cols, const RowOf& row, std::ptrdiff_t col_stride, T imag_sign, T* re, T* im, T* sum) {
    for (index r = 0; r < rows; ++r) {
        const T* from = row(r);
        T* re_row = re + r * cols;
        T* im_row = im + r * cols;
        if (col_stride == 2) {  // contiguous pairs: a loop the compiler vectorises
            for (index j = 0; j < cols; ++j) {
                re_row[j] = from[2 * j];
                im_row[j] = imag_sign * from[2 * j + 1];
            }
        } else {
            for (index j = 0; j < cols; ++j) {
                re_row[j] = from[j * col_stride];
                im_row[j] = imag_sign * from[j * col_stride + 1];
            }
        }
    }
    if (sum == nullptr) return T(1);
    const index count = rows * cols;
    bits_of<T> largest = 0;  // of the sums: their cause is looked for only when one is not finite
    for (index e = 0; e < count; ++e) {
        sum[e] = re[e] + im[e];
        largest = std::max(largest, magnitude_bits(sum[e]));
    }
    if (largest < infinite_bits<T>) return T(1);
    bool overflowed = false;
    for (index e = 0; e < count && !overflowed; ++e)
        overflowed = std::isinf(sum[e]) && std::isfinite(re[e]) && std::isfinite(im[e]);
    if (!overflowed) return T(1);
    for (index e = 0; e < count; ++e) sum[e] = re[e] * T(0.5) + im[e] * T(0.5);
    return T(0.5);
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
        T* out = p.out + 2 * r * p.ldc;
        for (index j = 0; j < p.n; ++j) {
            out[2 * j] = re[j];
            out[2 * j + 1] = im[j];
        }
    }
}

/// The 4m method: Cᵣ = AᵣBᵣ − AᵢBᵢ, Cᵢ = AᵣBᵢ + AᵢBᵣ, four real products.
template <class T, class Gemm>
void product_4m(const product<T>& p, gemm_workspace& workspace, const Gemm& gemm) {
    const index a_size = p.rows * p.k, b_size = p.k * p.n, c_size = p.rows * p.n;
    arena<T> scratch(workspace, a_size, a_size, b_size, b_size, c_size, c_size);
    T* const ar = scratch.take(a_size);
    T* const ai = scratch.take(a_size);
    T* const br = scratch.take(b_size);
    T* const bi = scratch.take(b_size);
    split(p.rows, p.k, [&](index r) { return p.a_row(r); }, p.a.col_stride, sign<T>(p.a.conjugate), ar, ai,
          static_cast<T*>(nullptr));
    split(p.k, p.n, [&](index r) { return p.b_row(r); }, p.b_col_stride, sign<T>(p.conjugate_b), br, bi,
          static_cast<T*>(nullptr));
    T* cr = scratch.take(c_size);
    T* ci = scratch.take(c_size);
    const real_matrix<T> a_re{ar, p.k, false}, a_im{ai, p.k, false}, b_re{br, p.n, false}, b_im{bi, p.n, false};
    gemm(p.rows, p.n, p.k, a_re, b_re, cr, p.n);
    gemm(p.rows, p.n, p.k, a_im, b_im, cr, p.n, -1);
    gemm(p.rows, p.n, p.k, a_re, b_im, ci, p.n);
    gemm(p.rows, p.n, p.k, a_im, b_re, ci, p.n, 1);
    for (index r = 0; r < p.rows; ++r) {
        T* out = p.out + 2 * r * p.ldc;
        for (index j = 0; j < p.n; ++j) {
            out[2 * j] = cr[r * p.n + j];
            out[2 * j + 1] = ci[r * p.n + j];
        }
    }
}

/// 3m's scratch: B's parts in panels of at most this many bytes (all three),
/// A's likewise, and the three products of a tile: about 24 MiB in all, kept
/// by the thread's workspace between calls (a fresh 36 MiB per call, a
/// 1024 × 1024 complex<float> product unblocked, cost 9000 page faults). A's
/// panels have at most m3_rows rows, so that a tile's parts and products
/// stay near the cache between the three products and the combination.
constexpr std::size_t m3_b_panel_bytes = std::size_t(12) << 20;
constexpr std::size_t m3_a_panel_bytes = std::size_t(6) << 20;
constexpr std::size_t m3_tile_bytes = std::size_t(6) << 20;
constexpr index m3_rows = 128;

/// How many of `extent` rows or columns fit in `bytes` at `per_item` bytes
/// each: all, or a multiple of 64 (at least 64), or at least 1 for `small`.
inline index panel_extent(index extent, std::size_t per_item, std::size_t bytes, index smallest) {
    const auto fits = static_cast<index>(bytes / (per_item == 0 ? 1 : per_item));
    if (fits >= extent) return extent;
    return std::max(smallest, fits >= 64 ? fits / 64 * 64 : fits);
}

/// The 3m method: T₁ = AᵣBᵣ, T₂ = AᵢBᵢ, T₃ = (Aᵣ + Aᵢ)(Bᵣ + Bᵢ),
/// Cᵣ = T₁ − T₂, Cᵢ = T₃ − T₁ − T₂: three real products, tile by tile of C
/// (panels of B's columns, then of A's rows, each split into its parts once
/// per tile, with the whole of k), so the scratch stays bounded. Where a
/// panel's sums were halved (split), T₃ is s·(Aᵣ + Aᵢ)(Bᵣ + Bᵢ), s ∈ {½, ¼},
/// and Cᵢ = (T₃ − s·T₁ − s·T₂)/s, which overflows only if Cᵢ does.
template <class T, class Gemm>
void product_3m(const product<T>& p, gemm_workspace& workspace, const Gemm& gemm) {
    const index k = p.k;
    const std::size_t per_row = 3 * static_cast<std::size_t>(k) * sizeof(T);
    const index nb = panel_extent(p.n, per_row, m3_b_panel_bytes, 64);
    const index mb = std::min({m3_rows, panel_extent(p.rows, per_row, m3_a_panel_bytes, 16),
                               panel_extent(p.rows, 3 * static_cast<std::size_t>(nb) * sizeof(T), m3_tile_bytes, 1)});
    const index b_size = k * nb, a_size = mb * k, t_size = mb * nb;
    arena<T> scratch(workspace, b_size, b_size, b_size, a_size, a_size, a_size, t_size, t_size, t_size);
    T* const br = scratch.take(b_size);
    T* const bi = scratch.take(b_size);
    T* const bs = scratch.take(b_size);
    T* const ar = scratch.take(a_size);
    T* const ai = scratch.take(a_size);
    T* const as = scratch.take(a_size);
    T* const t1 = scratch.take(t_size);
    T* const t2 = scratch.take(t_size);
    T* const t3 = scratch.take(t_size);
    for (index j0 = 0; j0 < p.n; j0 += nb) {
        const index cols = std::min(nb, p.n - j0);
        const T sb = split(k, cols, [&](index q) { return p.b_row(q) + j0 * p.b_col_stride; }, p.b_col_stride,
                           sign<T>(p.conjugate_b), br, bi, bs);
        for (index i0 = 0; i0 < p.rows; i0 += mb) {
            const index rows = std::min(mb, p.rows - i0);
            const T sa = split(rows, k, [&](index r) { return p.a_row(i0 + r); }, p.a.col_stride,
                               sign<T>(p.a.conjugate), ar, ai, as);
            gemm(rows, cols, k, real_matrix<T>{ar, k, false}, real_matrix<T>{br, cols, false}, t1, cols);
            gemm(rows, cols, k, real_matrix<T>{ai, k, false}, real_matrix<T>{bi, cols, false}, t2, cols);
            gemm(rows, cols, k, real_matrix<T>{as, k, false}, real_matrix<T>{bs, cols, false}, t3, cols);
            const T s = sa * sb;
            for (index r = 0; r < rows; ++r) {
                T* out = p.out + 2 * ((i0 + r) * p.ldc + j0);
                const T *x1 = t1 + r * cols, *x2 = t2 + r * cols, *x3 = t3 + r * cols;
                if (s == T(1)) {
                    for (index j = 0; j < cols; ++j) {
                        out[2 * j] = x1[j] - x2[j];
                        out[2 * j + 1] = x3[j] - x1[j] - x2[j];
                    }
                } else {
                    for (index j = 0; j < cols; ++j) {
                        out[2 * j] = x1[j] - x2[j];
                        out[2 * j + 1] = (x3[j] - s * x1[j] - s * x2[j]) / s;
                    }
                }
            }
        }
    }
}

template <class T>
using complex_matrix = complex_view<T>;

/// The rows × cols complex operand whose row r is at row(r) (elements
/// col_stride components apart) in place when its pairs are rows or columns
/// at one spacing — a conjugated transposed one as its adjoint — else copied
/// (conjugated if asked) into `scratch`.
template <class T, class RowOf>
complex_matrix<T> complex_operand(index rows, index cols, const RowOf& row, std::ptrdiff_t row_spacing,
                                  std::ptrdiff_t col_stride, bool conjugate, bool single_matrix, T* scratch) {
    if (!conjugate && col_stride == 2 && (rows == 1 || (row_spacing >= 2 * cols && row_spacing % 2 == 0)))
        return {row(0), rows == 1 ? cols : row_spacing / 2, complex_op::none};
    if (single_matrix && row_spacing == 2 && (cols == 1 || (col_stride >= 2 * rows && col_stride % 2 == 0)))
        return {row(0), cols == 1 ? rows : col_stride / 2, conjugate ? complex_op::adjoint : complex_op::transpose};
    gather(rows, cols, 2, row, col_stride, scratch);
    if (conjugate)
        for (index e = 0; e < rows * cols; ++e) scratch[2 * e + 1] = -scratch[2 * e + 1];
    return {scratch, cols, complex_op::none};
}

/// Every component of the operand finite: rows × cols pairs as stored
/// (transposed storage: cols lines of rows pairs), `ld` pairs apart.
template <class T>
bool all_finite(const complex_matrix<T>& m, index rows, index cols) {
    const bool stored_transposed = m.op != complex_op::none;
    const index lines = stored_transposed ? cols : rows, length = 2 * (stored_transposed ? rows : cols);
    bits_of<T> largest = 0;
    for (index l = 0; l < lines; ++l) {
        const T* line = m.data + 2 * l * m.ld;
        for (index e = 0; e < length; ++e) largest = std::max(largest, magnitude_bits(line[e]));
    }
    return largest < infinite_bits<T>;
}

/// The native method: the backend's complex GEMM — the BLAS's cgemm / zgemm,
/// else Eigen's complex product — on the operands in place where they are
/// rows or columns of pairs. Complex GEMM kernels scale by α = 1 + 0i as a
/// complex product, where an infinite part meets the 0 and becomes NaN in
/// the other part, and compute inf/NaN otherwise than the pair formula: an
/// operand with a non-finite component runs 1m instead (returns false,
/// nothing written), so the special values are the documented ones.
template <class T>
bool product_native(const product<T>& p, gemm_workspace& workspace, gemm_library library) {
    const std::ptrdiff_t a_spacing = p.a_row_spacing();
    const bool single = p.single_matrix();
    arena<T> scratch(workspace, 2 * p.rows * p.k, 2 * p.k * p.n);
    const auto a = complex_operand(p.rows, p.k, [&](index r) { return p.a_row(r); }, a_spacing, p.a.col_stride,
                                   p.a.conjugate, single, scratch.take(2 * p.rows * p.k));
    const auto b = complex_operand(p.k, p.n, [&](index r) { return p.b_row(r); }, p.b_row_stride, p.b_col_stride,
                                   p.conjugate_b, true, scratch.take(2 * p.k * p.n));
    if (!all_finite(a, p.rows, p.k) || !all_finite(b, p.k, p.n)) return false;
    if (library == gemm_library::blas) {
        library_complex_gemm(p.rows, p.n, p.k, a, b, p.out, p.ldc);
        return true;
    }
#ifdef REALIFY_GEMM_NATIVE
    REALIFY_GEMM_NATIVE(p.rows, p.n, p.k, a, b, p.out, p.ldc);
#else
    eigen_complex_gemm(p.rows, p.n, p.k, a, b, p.out, p.ldc);
#endif
    return true;
}

/// One tile of a call: the product of its rows of A and its columns of B,
/// by the call's method, in place into its block of C.
template <class T>
void run(const gemm_call<T>& call, const gemm_tile& tile, gemm_workspace& workspace) {
    const std::size_t width = call.complex ? 2 : 1;
    // the group's first batch: its rows of C are contiguous from there
    const std::size_t first_batch = call.shared_b ? 0 : tile.group;
    const gemm_matrix<T> a{call.a.data, call.a.row_stride, call.a.col_stride, call.a.batch_offsets + first_batch,
                           call.a.conjugate};
    const product<T> p{a,
                       tile.row0,
                       call.m,
                       static_cast<index>(tile.rows),
                       static_cast<index>(tile.cols),
                       static_cast<index>(call.k),
                       call.b.data + call.b.batch_offsets[first_batch] +
                           static_cast<std::ptrdiff_t>(tile.col0) * call.b.col_stride,
                       call.b.row_stride,
                       call.b.col_stride,
                       call.b.conjugate,
                       call.out + (first_batch * call.m * call.n + tile.row0 * call.n + tile.col0) * width,
                       static_cast<index>(call.n)};
    with_real_gemm(call.real_library, [&](const auto& gemm) {
        if (!call.complex) return real_product(p, workspace, gemm);
        switch (call.method) {
            case gemm_method::m3: return product_3m(p, workspace, gemm);
            case gemm_method::m4: return product_4m(p, workspace, gemm);
            case gemm_method::direct: return product_direct(p, workspace);
            case gemm_method::native:
                if (product_native(p, workspace, call.complex_library)) return;
                [[fallthrough]];  // an inf or NaN in an operand: 1m's special values
            default: return product_1m(p, workspace, gemm);
        }
    });
}

}  // namespace
}  // namespace realify::simd::detail
