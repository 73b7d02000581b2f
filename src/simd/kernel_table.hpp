// The one kernel table: every compiled kernel of realify_simd — the multiply
// family (realify/simd/complex_mul.hpp), RoPE (realify/rope), the
// elementwise kernels (realify/simd/elementwise.hpp), the row kernels of
// softmax and the normalisations (realify/engine/rows.hpp), the
// reduction kernels (realify/engine/reduce.hpp) and the fused attention
// (realify/engine/attention.hpp) — for one
// instruction set, as function pointers. (The matrix products are a library
// of their own, realify_gemm: src/gemm/gemm.cpp picks their level the same way.)
// Each per-instruction-set translation unit (isa_kernels.cpp, built once per
// level) fills one table; the public entry points (complex_mul.cpp,
// elementwise.cpp, rope.cpp) read the active one, which arch.cpp chooses.
// Deliberately free of xsimd: those entry points are compiled for the
// baseline and must not see any instruction set's kernels.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>

#include "attention_call.hpp"
#include "realify/rope/call.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::simd::detail {

/// The elementwise kernels of one element type; nullptr where a form does
/// not exist (result_kind is nullopt).
template <class T>
struct elementwise_set {
    std::array<std::array<unary_kernel<T>, 2>, op::op_count> unary{};    // [op id][x kind]
    std::array<std::array<binary_kernel<T>, 4>, op::op_count> binary{};  // [op id][2·x kind + y kind]
};

constexpr std::size_t binary_index(operand_kind x, operand_kind y) noexcept {
    return 2 * static_cast<std::size_t>(x) + static_cast<std::size_t>(y);
}

/// The row kernels of softmax and the normalisations (src/simd/isa/row_kernels.hpp).
template <class T>
struct row_set {
    T (*max)(const T* x, std::size_t n) noexcept;  // n ≥ 1
    double (*exp_sum)(const T* x, T shift, T* out, std::size_t n) noexcept;
    void (*moments)(const T* x, T center, std::size_t n, double eps, double* means) noexcept;
    void (*normalize)(const T* x, T center, T center_low, T scale, const T* w, const T* b, T* out, std::size_t n) noexcept;
};

/// The fixed orders of the reductions (docs/numerics.md, "Reductions"),
/// which every instruction set's kernels (src/simd/isa/reduce_kernels.hpp)
/// compute exactly, and src/engine/reduce.cpp builds on:
///
///   along   a sequence of reals (e = 1 or 2 components per element,
///           interleaved) is cut into blocks of reduce_block reals; in a
///           block, real lane l (l < reduce_lanes) accumulates the reals at
///           l, l + reduce_lanes, l + 2·reduce_lanes, … in order, and the
///           lanes are combined by halving: lane l with lane l + h for
///           h = reduce_lanes/2, …, e (so lane c ends with component c).
///   across  each output component accumulates its rows in order, in blocks
///           of across_block rows.
///   blocks  the values of the blocks are combined pairwise
///           (src/engine/reduce.cpp: aligned pairs, then pairs of pairs, …).
///   scan    along: groups of scan_group reals, each an inclusive prefix by
///           doubling steps, plus the running total; across: each output
///           component adds its rows in order.
inline constexpr std::size_t reduce_lanes = 64;
inline constexpr std::size_t reduce_block = 2048;
inline constexpr std::size_t across_block = 32;
inline constexpr std::size_t scan_group = 8;

/// The reduction kernels of one element type. Along: `runs` runs of n reals
/// (e components per element, e divides n), the first at x, each `next`
/// reals after the one before; for every block of every run, in order, the
/// block's value. Across: the rows x + offsets[r] (r < rows) of `width`
/// reals (whole elements); for every block of rows, width values. The
/// extrema, whose order does not matter, give one value per run (along) and
/// one set of width values for all the rows (across). Values: sums in double; products and extrema in T; moments two
/// sets in double, the means of the block's components, then their sums of
/// squared deviations from those means. Complex products are the plain
/// formula, element<op::mul>'s.
template <class T>
struct reduce_set {
    void (*sum)(const T* x, std::size_t n, std::ptrdiff_t next, std::size_t runs, std::size_t e, double* values) noexcept;
    void (*prod)(const T* x, std::size_t n, std::ptrdiff_t next, std::size_t runs, std::size_t e, T* values) noexcept;
    void (*max)(const T* x, std::size_t n, std::ptrdiff_t next, std::size_t runs, std::size_t e, T* values) noexcept;
    void (*min)(const T* x, std::size_t n, std::ptrdiff_t next, std::size_t runs, std::size_t e, T* values) noexcept;
    void (*moments)(const T* x, std::size_t n, std::ptrdiff_t next, std::size_t runs, std::size_t e, double* values) noexcept;
    void (*sum_rows)(const T* x, const std::ptrdiff_t* offsets, std::size_t rows, std::size_t width, std::size_t e,
                     double* values) noexcept;
    void (*prod_rows)(const T* x, const std::ptrdiff_t* offsets, std::size_t rows, std::size_t width, std::size_t e,
                      T* values) noexcept;
    void (*max_rows)(const T* x, const std::ptrdiff_t* offsets, std::size_t rows, std::size_t width, std::size_t e,
                     T* values) noexcept;
    void (*min_rows)(const T* x, const std::ptrdiff_t* offsets, std::size_t rows, std::size_t width, std::size_t e,
                     T* values) noexcept;
    void (*moments_rows)(const T* x, const std::ptrdiff_t* offsets, std::size_t rows, std::size_t width, std::size_t e,
                         double* values) noexcept;
    /// The running sums of `runs` runs of n reals (x and out `x_next` and
    /// `out_next` reals apart), written as double (out_double) or as T; each
    /// run starts from carry (e values, updated: one run) or from zero (carry
    /// nullptr). out may be exactly x.
    void (*scan)(const T* x, std::ptrdiff_t x_next, void* out, std::ptrdiff_t out_next, bool out_double, std::size_t runs,
                 std::size_t n, std::size_t e, double* carry) noexcept;
    /// The running sums down rows of `width` reals: out row r = carry +
    /// x rows 0..r, carry (width values) updated.
    void (*scan_rows)(const T* x, const std::ptrdiff_t* x_offsets, void* out, const std::ptrdiff_t* out_offsets,
                      bool out_double, std::size_t rows, std::size_t width, double* carry) noexcept;
};

// Multiply family: pointers to interleaved reals; n counts reals.
template <class T>
struct multiply_set {
    void (*mul)(const T* a, const T* b, T* out, std::size_t n, bool stream, bool strict) noexcept;
    void (*mul_conj)(const T* a, const T* b, T* out, std::size_t n, bool stream, bool strict) noexcept;
    // blocks × repeats rows of n reals; the rows of block b times row b of `rows`
    void (*mul_rows)(const T* a, const T* rows, T* out, std::size_t n, std::size_t repeats, std::size_t blocks,
                     bool stream, bool strict) noexcept;
    void (*mul_real)(const T* a, const T* r, T* out, std::size_t n, bool stream) noexcept;
    void (*mul_scalar)(const T* a, std::complex<T> s, T* out, std::size_t n, bool stream, bool strict) noexcept;
    void (*mul_add)(const T* a, const T* b, const T* c, T* out, std::size_t n, bool stream, bool strict) noexcept;
};

/// One member per kernel family (realify::simd::kernel_family), so that the
/// level choice can take each family from another instruction set's table.
template <class T>
struct kernel_set {
    multiply_set<T> multiply;
    // RoPE (src/simd/isa/rope_kernels.hpp); may allocate its patterns
    void (*rope)(const rope::detail::rope_call<T>& call);
    elementwise_set<T> elementwise;
    row_set<T> rows;
    reduce_set<T> reductions;
    // scaled dot-product attention, one piece (src/simd/isa/attention_kernels.hpp)
    void (*attention)(const attention_piece<T>& piece) noexcept;
};

struct kernel_table {
    kernel_set<float> f32;
    kernel_set<double> f64;

    template <class T>
    const kernel_set<T>& of() const noexcept {
        if constexpr (sizeof(T) == sizeof(float)) return f32;
        else return f64;
    }
};

// One per instruction-set TU; only those compiled in are defined
// (REALIFY_SIMD_HAVE_AVX2 / REALIFY_SIMD_HAVE_AVX512 tell arch.cpp).
const kernel_table& sse2_kernels() noexcept;
const kernel_table& avx2_kernels() noexcept;
const kernel_table& avx512_kernels() noexcept;

/// The scalar kernels of every form (scalar.cpp, compiled for the baseline).
template <class T>
const elementwise_set<T>& scalar_kernels() noexcept;

/// The table calls use now (arch.cpp): the forced instruction set's, or
/// each family's preferred one's. Throws realify::error when
/// REALIFY_SIMD_ARCH names a level this machine lacks.
const kernel_table& active_table();

/// Whether a level is forced now (force_arch, scoped_arch, REALIFY_SIMD_ARCH).
bool level_forced();

/// The table one call of `family`, touching `bytes`, runs on: the forced
/// level's; else, for a family measured at run time (RoPE, the multiply
/// family: the same bits at AVX2 and AVX-512), the level its size class
/// settled on — and while it has not, one of the two, timed from here to the
/// end of this object's life (arch.cpp); else the family's preferred level's.
/// Hold it across the kernel call. Throws as active_table().
class timed_level {
public:
    timed_level(kernel_family family, std::size_t bytes);
    ~timed_level();
    timed_level(const timed_level&) = delete;
    timed_level& operator=(const timed_level&) = delete;
    const kernel_table& table() const noexcept { return *m_table; }
    /// Whether this call is a sample of the trial: then it must run on the
    /// calling thread alone (its CPU time is what counts).
    bool timed() const noexcept { return m_candidate >= 0; }

private:
    const kernel_table* m_table = nullptr;
    kernel_family m_family;
    std::size_t m_bytes;
    int m_exceptions;      // std::uncaught_exceptions() when the call began
    int m_candidate = -1;  // the trial's level this call is a sample of (0: AVX-512, 1: AVX2), -1: none
    std::int64_t m_start = 0;  // ns (arch.cpp's now())
};

/// The level a measured family keeps: AVX2 when its fastest time per byte
/// is at least 3 % below AVX-512's, else AVX-512.
arch faster_level(double avx512_ns_per_byte, double avx2_ns_per_byte) noexcept;

/// For tests: forget every measurement (the next calls measure again), and
/// the samples a family's size class has timed so far.
void reset_level_trials_for_tests() noexcept;
int level_trial_samples_for_tests(kernel_family family, bool large) noexcept;

}  // namespace realify::simd::detail
