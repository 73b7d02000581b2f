// One piece of scaled dot-product attention as the compiled kernels see it
// (src/simd/isa/attention_kernels.hpp): a block of query rows that read the
// same keys and values — the rows of one query block of one (batch, head),
// or of every query head of a grouped-query group — described by pointers
// and strides, no xtensor, no xsimd. The engine (src/engine/attention.cpp)
// cuts a call into pieces by sizes alone and fills one per piece.
#pragma once

#include <cstddef>

namespace realify::simd::detail {

/// The most query rows one piece holds, and the keys one step of the online
/// softmax takes (a multiple of every register width).
inline constexpr std::size_t attention_max_rows = 64;
inline constexpr std::size_t attention_key_block = 64;

enum class attention_mask : unsigned char { none, boolean, additive };

template <class T>
struct attention_piece {
    std::size_t rows = 0;       // query rows, ≤ attention_max_rows
    std::size_t keys = 0;       // S
    std::size_t dim = 0;        // E: the length of a query and of a key
    std::size_t value_dim = 0;  // Ev
    // row r of the queries: element e at q[r][e · q_step]; of the output: out[r][e · out_step]
    const T* const* q = nullptr;
    std::ptrdiff_t q_step = 1;
    T* const* out = nullptr;
    std::ptrdiff_t out_step = 1;
    // key j: element e at k[j · k_row + e · k_step]; value j likewise
    const T* k = nullptr;
    std::ptrdiff_t k_row = 0, k_step = 1;
    const T* v = nullptr;
    std::ptrdiff_t v_row = 0, v_step = 1;
    // the mask of row r and key j at mask_rows[r] + j · mask_step (elements
    // of bool for a boolean mask, of T for an additive one)
    attention_mask mask = attention_mask::none;
    const void* const* mask_rows = nullptr;
    std::ptrdiff_t mask_step = 0;
    // is_causal: row r takes keys j < limit[r] only (nullptr: every key)
    const std::size_t* limit = nullptr;
    T scale = 1;
    // the scores as dot products of rows (few rows: decoding) rather than a
    // product with the transposed key block; chosen by the engine by sizes
    bool dot_form = false;
    // attention_scratch(dim, value_dim) Ts, 64-byte aligned, the piece's own
    T* scratch = nullptr;
};

/// Padding of a value row in the accumulators (the widest register, 16 floats).
constexpr std::size_t attention_padded(std::size_t n) noexcept { return (n + 15) / 16 * 16; }

/// The Ts of scratch a piece needs: the scaled queries, the transposed key
/// block, the scores, the accumulators, a packed value block, and each row's
/// running maximum and sum.
constexpr std::size_t attention_scratch(std::size_t dim, std::size_t value_dim) noexcept {
    const std::size_t rows = attention_max_rows, keys = attention_key_block;
    const std::size_t ev = attention_padded(value_dim);
    return rows * attention_padded(dim) + dim * keys + rows * keys + rows * ev + keys * ev + 2 * rows + 16;
}

}  // namespace realify::simd::detail
