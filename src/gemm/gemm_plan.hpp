// Private: how a product runs (gemm_plan.cpp) — which library and method
// (measured once per process: docs/numerics.md, "Which backend runs"), and
// how it is cut into pieces fixed by its sizes (docs/parallel.md).
#pragma once

#include <cstddef>
#include <string>

#include "gemm_arch.hpp"
#include "realify/errors.hpp"
#include "realify/simd/arch.hpp"
#include "realify/simd/gemm.hpp"

namespace realify::simd::detail {

/// The products of one level: the tiles of the GEMM and its methods, the
/// skinny products.
template <class T>
struct level_products {
    gemm_kernel<T> gemm;
    skinny_kernel<T> skinny;
};

/// Those of the level the gemm family runs on now (forced, else its
/// preferred level; throws where no level built runs on this CPU).
template <class T>
level_products<T> active_products() {
    switch (active_arch_id(kernel_family::gemm)) {
#ifdef REALIFY_SIMD_HAVE_AVX512
        case arch::avx512: return {&gemm_avx512, &skinny_avx512};
#endif
#ifdef REALIFY_SIMD_HAVE_AVX2
        case arch::avx2: return {&gemm_avx2, &skinny_avx2};
#endif
#ifdef REALIFY_SIMD_HAVE_SSE2
        case arch::sse2: return {&gemm_sse2, &skinny_sse2};
#endif
        default: break;
    }
    // not reached: active_arch_id returns a level built in
    throw error("realify::simd: no matrix products were built for the active instruction set");
}

/// The method and libraries of one call (gemm_call's fields).
struct gemm_choice {
    gemm_method method;            // resolved: never automatic
    gemm_library real_library;     // real products, 1m, 4m, 3m
    gemm_library complex_library;  // native: eigen or blas
};

/// The choice for a product (libraries_fit: its sizes and strides fit the
/// libraries' int arguments). Throws realify::error when REALIFY_GEMM_BACKEND
/// cannot be honoured.
gemm_choice choose(const gemm_dims& dims, gemm_type type, bool shared_b, gemm_method method, bool libraries_fit);

/// Real products below this many multiply-adds (m·n·k) run on the library
/// measured fastest on a small product (32 × 32 × 32), where a call's setup
/// counts; larger ones on the one measured on a tile-sized product.
inline constexpr std::size_t small_product = std::size_t(1) << 18;

/// A dot product's chunks of k (one row times one column): their products
/// are added in order.
inline constexpr std::size_t dot_chunk = 16384;

/// The tiles of one product (rows × cols of C, `depth` real multiply-adds per
/// entry): 2-D blocks fixed by the sizes, listed column block by column
/// block (tiles that read the same columns of B are neighbours).
struct tile_grid {
    std::size_t rows, cols, tile_rows, tile_cols, row_blocks, col_blocks;

    static tile_grid of(std::size_t rows, std::size_t cols, std::size_t depth);
    std::size_t count() const noexcept { return row_blocks * col_blocks; }
    gemm_tile tile(std::size_t group, std::size_t index) const noexcept;
};

/// The outputs of one piece of a skinny product: about skinny_piece_bytes of
/// the weight, whole blocks of the kernel.
std::size_t skinny_piece_outputs(std::size_t outputs, std::size_t k, std::size_t element_bytes, bool dot_form);

/// Skinny products read a weight of at least this many elements (1 MiB of
/// floats: beyond a core's L2, where memory decides), or have one output (a
/// dot product, a column of a matrix-vector product). Smaller weights stay in
/// the cache, and the libraries' GEMM kernels did more per cycle there: on
/// one Zen 5 core, 16 × 256 × 256 x·Wᵀ ran at 98 GFLOP/s on the skinny kernel
/// and 130 on oneDNN, 4 × 64 × 64 at 40 and 136 (OpenBLAS); 16 × 1024 × 1024
/// at 97 against 71, 1 × 4096 × 4096 at 16 against 15.
inline constexpr std::size_t skinny_least_weight = std::size_t(1) << 18;

/// The skinny product's shape: x the operand of at most skinny_rows rows,
/// `transposed` when that is Bᵀ (then the weight is A, its outputs the rows
/// of C), `stacked` when the batches share B and their rows form one x.
/// False when the product is not skinny (or its weight is small: above).
struct skinny_shape {
    bool transposed, stacked;
    std::size_t x_rows, outputs, groups;
};
bool skinny_shape_of(const gemm_dims& dims, bool shared_b, skinny_shape& shape);

}  // namespace realify::simd::detail
