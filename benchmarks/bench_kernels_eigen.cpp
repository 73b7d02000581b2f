// The competitor of bench_kernels.cpp: Eigen 3.4 arrays of complex numbers
// (ArrayXcf / ArrayXcd through Eigen::Map) evaluated into preallocated
// storage. Compiled for the host (realify_host_sources: -march=native), so
// Eigen gets its widest packets.
#include <Eigen/Core>

#include "bench_kernels_common.hpp"

namespace realify_bench_kernels {
namespace {

template <class T>
bool run(op_id op, const std::complex<T>* xp, const std::complex<T>* yp, std::complex<T>* outp, T* routp,
         std::size_t count) {
    using A = Eigen::Array<std::complex<T>, Eigen::Dynamic, 1>;
    using R = Eigen::Array<T, Eigen::Dynamic, 1>;
    const auto n = static_cast<Eigen::Index>(count);
    const Eigen::Map<const A> x(xp, n), y(yp, n);
    Eigen::Map<A> out(outp, n);
    Eigen::Map<R> rout(routp, n);
    switch (op) {
        case op_id::add: out = x + y; return true;
        case op_id::sub: out = x - y; return true;
        case op_id::mul: out = x * y; return true;
        case op_id::div: out = x / y; return true;
        case op_id::mul_real_scalar: out = x * T(2.5); return true;
        case op_id::add_scalar: out = x + std::complex<T>(T(0.5), T(-1.5)); return true;
        case op_id::conj: out = x.conjugate(); return true;
        case op_id::neg: out = -x; return true;
        case op_id::square: out = x.square(); return true;
        case op_id::reciprocal: out = x.inverse(); return true;
        case op_id::exp: out = x.exp(); return true;
        case op_id::log: out = x.log(); return true;
        case op_id::sqrt: out = x.sqrt(); return true;
        case op_id::abs: rout = x.abs(); return true;
        case op_id::angle: rout = x.arg(); return true;
        case op_id::sin: out = x.sin(); return true;
        case op_id::cos: out = x.cos(); return true;
        case op_id::tanh: out = x.tanh(); return true;
        case op_id::expm1: out = x.expm1(); return true;
        case op_id::log1p: out = x.log1p(); return true;
        case op_id::log2: out = x.log() / std::log(T(2)); return true;
        case op_id::log10: out = x.log10(); return true;
        case op_id::rsqrt: out = x.rsqrt(); return true;
        case op_id::tan: out = x.tan(); return true;
        case op_id::sinh: out = x.sinh(); return true;
        case op_id::cosh: out = x.cosh(); return true;
        case op_id::asin: out = x.asin(); return true;
        case op_id::acos: out = x.acos(); return true;
        case op_id::atan: out = x.atan(); return true;
        case op_id::asinh: out = x.asinh(); return true;
        case op_id::acosh: out = x.acosh(); return true;
        case op_id::atanh: out = x.atanh(); return true;
        case op_id::pow_scalar: out = x.pow(std::complex<T>(T(2.5), T(0))); return true;
        case op_id::pow_tensor: out = x.pow(y); return true;
        case op_id::sgn: out = x / x.abs().template cast<std::complex<T>>(); return true;
        case op_id::real: rout = x.real(); return true;
        case op_id::imag: rout = x.imag(); return true;
        default: return false;
    }
}

template <class T>
void chain(chain_id id, const std::complex<T>* xp, const std::complex<T>* yp, std::complex<T>* outp, std::size_t count) {
    using A = Eigen::Array<std::complex<T>, Eigen::Dynamic, 1>;
    const auto n = static_cast<Eigen::Index>(count);
    const Eigen::Map<const A> x(xp, n), y(yp, n);
    Eigen::Map<A> out(outp, n);
    switch (id) {
        case chain_id::exp_mul_add: out = x.exp() * y + x; break;
        case chain_id::chain5: out = (x.exp() * y + x) * y.conjugate(); break;
    }
}

}  // namespace

void eigen_chain(chain_id id, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out,
                 std::size_t n) {
    chain(id, x, y, out, n);
}
void eigen_chain(chain_id id, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
                 std::size_t n) {
    chain(id, x, y, out, n);
}

bool eigen_run(op_id op, const std::complex<float>* x, const std::complex<float>* y, std::complex<float>* out,
               float* rout, std::size_t n) {
    return run(op, x, y, out, rout, n);
}
bool eigen_run(op_id op, const std::complex<double>* x, const std::complex<double>* y, std::complex<double>* out,
               double* rout, std::size_t n) {
    return run(op, x, y, out, rout, n);
}

}  // namespace realify_bench_kernels
