// The strict special-value fix-ups (see complex_mul_kernels.hpp). Compiled
// with no architecture flags on purpose: it instantiates std::complex's
// operators, and an inline function instantiated in an AVX-512 TU could be the
// copy the linker keeps.
#include <cmath>
#include <complex>
#include <cstddef>

#include "isa/complex_mul_kernels.hpp"

namespace realify::simd::detail {
namespace {

template <class T>
bool both_nan(const std::complex<T>& z) noexcept {
    return std::isnan(z.real()) && std::isnan(z.imag());
}

}  // namespace

void fix_mul(const std::complex<float>* a, const std::complex<float>* b, std::complex<float>* r,
             std::size_t n) noexcept {
    for (std::size_t k = 0; k < n; ++k)
        if (both_nan(r[k])) r[k] = a[k] * b[k];
}
void fix_mul(const std::complex<double>* a, const std::complex<double>* b, std::complex<double>* r,
             std::size_t n) noexcept {
    for (std::size_t k = 0; k < n; ++k)
        if (both_nan(r[k])) r[k] = a[k] * b[k];
}
void fix_mul_conj(const std::complex<float>* a, const std::complex<float>* b,
                  std::complex<float>* r, std::size_t n) noexcept {
    for (std::size_t k = 0; k < n; ++k)
        if (both_nan(r[k])) r[k] = a[k] * std::conj(b[k]);
}
void fix_mul_conj(const std::complex<double>* a, const std::complex<double>* b,
                  std::complex<double>* r, std::size_t n) noexcept {
    for (std::size_t k = 0; k < n; ++k)
        if (both_nan(r[k])) r[k] = a[k] * std::conj(b[k]);
}
void fix_mul_scalar(const std::complex<float>* a, std::complex<float> s, std::complex<float>* r,
                    std::size_t n) noexcept {
    for (std::size_t k = 0; k < n; ++k)
        if (both_nan(r[k])) r[k] = a[k] * s;
}
void fix_mul_scalar(const std::complex<double>* a, std::complex<double> s,
                    std::complex<double>* r, std::size_t n) noexcept {
    for (std::size_t k = 0; k < n; ++k)
        if (both_nan(r[k])) r[k] = a[k] * s;
}
// If the plain product is NaN in both parts, so is product + c, so every lane
// std::complex would recover is recomputed; a lane recomputed needlessly gets
// the same value std::complex gives anyway. Hence the result equals
// std::complex's a * b + c.
void fix_mul_add(const std::complex<float>* a, const std::complex<float>* b,
                 const std::complex<float>* c, std::complex<float>* r, std::size_t n) noexcept {
    for (std::size_t k = 0; k < n; ++k)
        if (both_nan(r[k])) r[k] = a[k] * b[k] + c[k];
}
void fix_mul_add(const std::complex<double>* a, const std::complex<double>* b,
                 const std::complex<double>* c, std::complex<double>* r, std::size_t n) noexcept {
    for (std::size_t k = 0; k < n; ++k)
        if (both_nan(r[k])) r[k] = a[k] * b[k] + c[k];
}

}  // namespace realify::simd::detail
