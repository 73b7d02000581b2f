// The std::complex competitor of bench_ops.cpp: a plain loop over
// std::complex<T> per op, compiled for the host (realify_host_sources) with
// the default floating-point semantics (C99 Annex G multiply and divide).
#include <cmath>
#include <complex>
#include <cstddef>

#include "bench_kernels_common.hpp"

namespace realify_bench_kernels {
namespace {

template <class T, class F>
bool each(std::complex<T>* out, std::size_t n, F f) {
    for (std::size_t i = 0; i < n; ++i) out[i] = f(i);
    return true;
}
template <class T, class F>
bool each_real(T* out, std::size_t n, F f) {
    for (std::size_t i = 0; i < n; ++i) out[i] = f(i);
    return true;
}

/// false when there is no std::complex loop of the op.
template <class T>
bool run(op_id op, const std::complex<T>* x, const std::complex<T>* y, std::complex<T>* out, T* rout, std::size_t n) {
    using C = std::complex<T>;
    switch (op) {
        case op_id::add: return each(out, n, [&](std::size_t i) { return x[i] + y[i]; });
        case op_id::sub: return each(out, n, [&](std::size_t i) { return x[i] - y[i]; });
        case op_id::mul: return each(out, n, [&](std::size_t i) { return x[i] * y[i]; });
        case op_id::div: return each(out, n, [&](std::size_t i) { return x[i] / y[i]; });
        case op_id::mul_real_scalar: return each(out, n, [&](std::size_t i) { return x[i] * T(2.5); });
        case op_id::add_scalar: return each(out, n, [&](std::size_t i) { return x[i] + C(T(0.5), T(-1.5)); });
        case op_id::conj: return each(out, n, [&](std::size_t i) { return std::conj(x[i]); });
        case op_id::neg: return each(out, n, [&](std::size_t i) { return -x[i]; });
        case op_id::square: return each(out, n, [&](std::size_t i) { return x[i] * x[i]; });
        case op_id::reciprocal: return each(out, n, [&](std::size_t i) { return T(1) / x[i]; });
        case op_id::exp: return each(out, n, [&](std::size_t i) { return std::exp(x[i]); });
        case op_id::log: return each(out, n, [&](std::size_t i) { return std::log(x[i]); });
        case op_id::sqrt: return each(out, n, [&](std::size_t i) { return std::sqrt(x[i]); });
        case op_id::abs: return each_real(rout, n, [&](std::size_t i) { return std::abs(x[i]); });
        case op_id::angle: return each_real(rout, n, [&](std::size_t i) { return std::arg(x[i]); });
        case op_id::sin: return each(out, n, [&](std::size_t i) { return std::sin(x[i]); });
        case op_id::cos: return each(out, n, [&](std::size_t i) { return std::cos(x[i]); });
        case op_id::tanh: return each(out, n, [&](std::size_t i) { return std::tanh(x[i]); });
        case op_id::expm1: return each(out, n, [&](std::size_t i) { return std::exp(x[i]) - T(1); });
        case op_id::log1p: return each(out, n, [&](std::size_t i) { return std::log(T(1) + x[i]); });
        case op_id::log2: return each(out, n, [&](std::size_t i) { return std::log(x[i]) / std::log(T(2)); });
        case op_id::log10: return each(out, n, [&](std::size_t i) { return std::log10(x[i]); });
        case op_id::rsqrt: return each(out, n, [&](std::size_t i) { return T(1) / std::sqrt(x[i]); });
        case op_id::tan: return each(out, n, [&](std::size_t i) { return std::tan(x[i]); });
        case op_id::sinh: return each(out, n, [&](std::size_t i) { return std::sinh(x[i]); });
        case op_id::cosh: return each(out, n, [&](std::size_t i) { return std::cosh(x[i]); });
        case op_id::asin: return each(out, n, [&](std::size_t i) { return std::asin(x[i]); });
        case op_id::acos: return each(out, n, [&](std::size_t i) { return std::acos(x[i]); });
        case op_id::atan: return each(out, n, [&](std::size_t i) { return std::atan(x[i]); });
        case op_id::asinh: return each(out, n, [&](std::size_t i) { return std::asinh(x[i]); });
        case op_id::acosh: return each(out, n, [&](std::size_t i) { return std::acosh(x[i]); });
        case op_id::atanh: return each(out, n, [&](std::size_t i) { return std::atanh(x[i]); });
        case op_id::pow_scalar: return each(out, n, [&](std::size_t i) { return std::pow(x[i], C(T(2.5), T(0))); });
        case op_id::pow_tensor: return each(out, n, [&](std::size_t i) { return std::pow(x[i], y[i]); });
        case op_id::sgn: return each(out, n, [&](std::size_t i) { return x[i] / std::abs(x[i]); });
        case op_id::real: return each_real(rout, n, [&](std::size_t i) { return x[i].real(); });
        case op_id::imag: return each_real(rout, n, [&](std::size_t i) { return x[i].imag(); });
        default: return false;
    }
}

template <class T>
void chain(chain_id id, const std::complex<T>* x, const std::complex<T>* y, std::complex<T>* out, std::size_t n) {
    switch (id) {
        case chain_id::exp_mul_add: each(out, n, [&](std::size_t i) { return std::exp(x[i]) * y[i] + x[i]; }); return;
        case chain_id::chain5:
            each(out, n, [&](std::size_t i) { return (std::exp(x[i]) * y[i] + x[i]) * std::conj(y[i]); });
            return;
    }
}

}  // namespace

void std_chain(chain_id id, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out,
               std::size_t n) {
    chain(id, x, y, out, n);
}
void std_chain(chain_id id, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
               std::size_t n) {
    chain(id, x, y, out, n);
}

bool std_run(op_id op, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out, float* rout,
             std::size_t n) {
    return run(op, x, y, out, rout, n);
}
bool std_run(op_id op, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
             double* rout, std::size_t n) {
    return run(op, x, y, out, rout, n);
}

}  // namespace realify_bench_kernels
