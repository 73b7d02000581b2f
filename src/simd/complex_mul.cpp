// The span API of the multiply family (realify/simd/complex_mul.hpp):
// argument checks, the choice of streaming stores, then one indirect call
// into the kernel table of the family's level for this call (arch.cpp's
// timed_level: the multiply family's level is measured at run time).
// Compiled for the baseline ISA only.
#include <complex>
#include <cstddef>
#include <span>
#include <string>

#include "kernel_table.hpp"
#include "realify/errors.hpp"
#include "realify/simd/complex_mul.hpp"
#include "span_checks.hpp"

namespace realify::simd {
namespace {

/// The bytes a call reads and writes: what its level is measured by (arch.cpp).
template <class... S>
std::size_t bytes_of(const S&... spans) noexcept {
    return (spans.size_bytes() + ...);
}

using detail::check_alias;
using detail::overlaps;
using detail::reals;
using detail::sizes_message;
using detail::use_streaming;

bool strict(nan_policy policy) noexcept { return policy == nan_policy::strict; }

template <class T>
void mul_impl(const char* function, bool conjugate, std::span<const std::complex<T>> a,
              std::span<const std::complex<T>> b, std::span<std::complex<T>> out, nan_policy policy) {
    if (a.size() != b.size() || a.size() != out.size())
        throw shape_error(sizes_message(function, {{"a", a.size()}, {"b", b.size()}, {"out", out.size()}}));
    const bool aliased = check_alias(function, "a", a, out) | check_alias(function, "b", b, out);
    const detail::timed_level level(kernel_family::multiply, bytes_of(a, b, out));
    const auto& k = level.table().of<T>().multiply;
    const bool stream = use_streaming(out, aliased, a, b);
    (conjugate ? k.mul_conj : k.mul)(reals(a), reals(b), reals(out), 2 * out.size(), stream, strict(policy));
}

template <class T>
void mul_real_impl(std::span<const std::complex<T>> a, std::span<const T> r, std::span<std::complex<T>> out) {
    if (a.size() != r.size() || a.size() != out.size())
        throw shape_error(sizes_message("mul_real", {{"a", a.size()}, {"r", r.size()}, {"out", out.size()}}));
    const bool aliased = check_alias("mul_real", "a", a, out);
    if (overlaps(r, out))
        throw layout_error("realify::simd::mul_real: out overlaps the real array r");
    const detail::timed_level level(kernel_family::multiply, bytes_of(a, r, out));
    const auto& k = level.table().of<T>().multiply;
    k.mul_real(reals(a), r.data(), reals(out), 2 * out.size(), use_streaming(out, aliased, a, r));
}

template <class T>
void mul_scalar_impl(std::span<const std::complex<T>> a, std::complex<T> s, std::span<std::complex<T>> out,
                     nan_policy policy) {
    if (a.size() != out.size())
        throw shape_error(sizes_message("mul_scalar", {{"a", a.size()}, {"out", out.size()}}));
    const bool aliased = check_alias("mul_scalar", "a", a, out);
    const detail::timed_level level(kernel_family::multiply, bytes_of(a, out));
    const auto& k = level.table().of<T>().multiply;
    k.mul_scalar(reals(a), s, reals(out), 2 * out.size(), use_streaming(out, aliased, a), strict(policy));
}

template <class T>
void mul_add_impl(std::span<const std::complex<T>> a, std::span<const std::complex<T>> b,
                  std::span<const std::complex<T>> c, std::span<std::complex<T>> out, nan_policy policy) {
    if (a.size() != b.size() || a.size() != c.size() || a.size() != out.size())
        throw shape_error(sizes_message(
            "mul_add", {{"a", a.size()}, {"b", b.size()}, {"c", c.size()}, {"out", out.size()}}));
    const bool aliased = check_alias("mul_add", "a", a, out) | check_alias("mul_add", "b", b, out) |
                         check_alias("mul_add", "c", c, out);
    const detail::timed_level level(kernel_family::multiply, bytes_of(a, b, c, out));
    const auto& k = level.table().of<T>().multiply;
    const bool stream = use_streaming(out, aliased, a, b, c);
    k.mul_add(reals(a), reals(b), reals(c), reals(out), 2 * out.size(), stream, strict(policy));
}

// a and out: (blocks × reps × n); rows: (blocks × n). mul_rows is blocks = 1.
template <class T>
void mul_rows_impl(const char* function, std::span<const std::complex<T>> a, std::span<const std::complex<T>> rows,
                   std::size_t blocks, std::span<std::complex<T>> out, nan_policy policy) {
    const bool whole_blocks = blocks == 0 ? rows.empty() : rows.size() % blocks == 0;  // 0 blocks: all empty
    const std::size_t n = whole_blocks && blocks != 0 ? rows.size() / blocks : 0;
    const std::size_t one_repeat = blocks * n;  // elements of a covered by one repeat of every block
    if (!whole_blocks || a.size() != out.size() || (one_repeat == 0 ? !a.empty() : a.size() % one_repeat != 0)) {
        std::string message = std::string("realify::simd::") + function + ": a has " + std::to_string(a.size()) +
                              " elements, out has " + std::to_string(out.size());
        if (blocks == 1)
            message += ", row has " + std::to_string(rows.size()) + "; need a.size() == out.size() == rows * row.size()";
        else
            message += ", rows has " + std::to_string(rows.size()) + " in " + std::to_string(blocks) +
                       " blocks; need blocks to divide rows.size() and a.size() == out.size() == repeats * rows.size()";
        throw shape_error(message);
    }
    const bool aliased = check_alias(function, "a", a, out) | check_alias(function, blocks == 1 ? "row" : "rows", rows, out);
    if (a.empty()) return;
    const bool stream = use_streaming(out, aliased, a, rows);
    const detail::timed_level level(kernel_family::multiply, bytes_of(a, rows, out));
    level.table().of<T>().multiply.mul_rows(reals(a), reals(rows), reals(out), 2 * n, a.size() / one_repeat, blocks,
                                            stream, strict(policy));
}

}  // namespace

void mul(std::span<const std::complex<float>> a, std::span<const std::complex<float>> b,
         std::span<std::complex<float>> out, nan_policy policy) {
    mul_impl("mul", false, a, b, out, policy);
}
void mul(std::span<const std::complex<double>> a, std::span<const std::complex<double>> b,
         std::span<std::complex<double>> out, nan_policy policy) {
    mul_impl("mul", false, a, b, out, policy);
}
void mul_conj(std::span<const std::complex<float>> a, std::span<const std::complex<float>> b,
              std::span<std::complex<float>> out, nan_policy policy) {
    mul_impl("mul_conj", true, a, b, out, policy);
}
void mul_conj(std::span<const std::complex<double>> a, std::span<const std::complex<double>> b,
              std::span<std::complex<double>> out, nan_policy policy) {
    mul_impl("mul_conj", true, a, b, out, policy);
}
void mul_real(std::span<const std::complex<float>> a, std::span<const float> r, std::span<std::complex<float>> out) {
    mul_real_impl(a, r, out);
}
void mul_real(std::span<const std::complex<double>> a, std::span<const double> r,
              std::span<std::complex<double>> out) {
    mul_real_impl(a, r, out);
}
void mul_scalar(std::span<const std::complex<float>> a, std::complex<float> s, std::span<std::complex<float>> out,
                nan_policy policy) {
    mul_scalar_impl(a, s, out, policy);
}
void mul_scalar(std::span<const std::complex<double>> a, std::complex<double> s,
                std::span<std::complex<double>> out, nan_policy policy) {
    mul_scalar_impl(a, s, out, policy);
}
void mul_add(std::span<const std::complex<float>> a, std::span<const std::complex<float>> b,
             std::span<const std::complex<float>> c, std::span<std::complex<float>> out, nan_policy policy) {
    mul_add_impl(a, b, c, out, policy);
}
void mul_add(std::span<const std::complex<double>> a, std::span<const std::complex<double>> b,
             std::span<const std::complex<double>> c, std::span<std::complex<double>> out, nan_policy policy) {
    mul_add_impl(a, b, c, out, policy);
}
void mul_rows(std::span<const std::complex<float>> a, std::span<const std::complex<float>> row,
              std::span<std::complex<float>> out, nan_policy policy) {
    mul_rows_impl("mul_rows", a, row, 1, out, policy);
}
void mul_rows(std::span<const std::complex<double>> a, std::span<const std::complex<double>> row,
              std::span<std::complex<double>> out, nan_policy policy) {
    mul_rows_impl("mul_rows", a, row, 1, out, policy);
}
void mul_block_rows(std::span<const std::complex<float>> a, std::span<const std::complex<float>> rows,
                    std::size_t blocks, std::span<std::complex<float>> out, nan_policy policy) {
    mul_rows_impl("mul_block_rows", a, rows, blocks, out, policy);
}
void mul_block_rows(std::span<const std::complex<double>> a, std::span<const std::complex<double>> rows,
                    std::size_t blocks, std::span<std::complex<double>> out, nan_policy policy) {
    mul_rows_impl("mul_block_rows", a, rows, blocks, out, policy);
}

}  // namespace realify::simd
