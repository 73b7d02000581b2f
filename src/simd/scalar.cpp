// The element kernels' scalar forms as raw kernels
// (src/simd/isa/scalar_kernels.hpp): plain loops, compiled for the
// x86-64 baseline with IEEE semantics (realify_isa_sources). The per-
// instruction-set kernels call them for the lanes their batch forms hand
// back; the kernel table points at them for forms without a batch form.
#include <cstddef>
#include <limits>
#include <type_traits>

#include "kernel_table.hpp"
#include "realify/kernels.hpp"
#include "isa/scalar_kernels.hpp"

namespace realify::simd::detail {
namespace {

template <operand_kind K, class T>
auto load(const T* p, std::size_t i) noexcept {
    if constexpr (K == operand_kind::complex) return kernels::cpair<T>{p[2 * i], p[2 * i + 1]};
    else return p[i];
}
template <class T>
void store(T* out, std::size_t i, kernels::cpair<T> v) noexcept {
    out[2 * i] = v.re;
    out[2 * i + 1] = v.im;
}
template <class T>
void store(T* out, std::size_t i, T v) noexcept {
    out[i] = v;
}

/// Runs f(operands(i)..., [parameters]) for i < n; the parameters object is
/// built once. Without params an op that needs them (pow_scalar's
/// exponent) writes NaN: a violated precondition never reads a null pointer.
template <class F, class T, class O, class... Load>
void loop(const T* params, T* out, std::size_t n, const Load&... load) noexcept {
    const F f;
    if constexpr (requires { typename F::template parameters<T>; }) {
        if (params != nullptr) {
            const typename F::template parameters<T> p(params);
            for (std::size_t i = 0; i < n; ++i) store(out, i, f(load(i)..., p));
            return;
        }
    }
    if constexpr (std::is_invocable_v<const F&, decltype(load(0))...>) {
        for (std::size_t i = 0; i < n; ++i) store(out, i, f(load(i)...));
    } else {
        constexpr std::size_t reals = std::is_same_v<O, T> ? 1 : 2;
        for (std::size_t i = 0; i < reals * n; ++i) out[i] = std::numeric_limits<T>::quiet_NaN();
    }
}

}  // namespace

template <elementwise_op Op, operand_kind X, class T>
void scalar_unary(const T* x, T* out, std::size_t n, const T* params, bool) noexcept {
    using F = kernels::element<elementwise_tag_t<Op>>;
    using O = std::conditional_t<*result_kind(Op, X) == operand_kind::complex, kernels::cpair<T>, T>;
    loop<F, T, O>(params, out, n, [x](std::size_t i) { return load<X>(x, i); });
}

template <elementwise_op Op, operand_kind X, operand_kind Y, class T>
void scalar_binary(const T* x, bool x_broadcast, const T* y, bool y_broadcast, T* out, std::size_t n,
                   const T* params, bool) noexcept {
    using F = kernels::element<elementwise_tag_t<Op>>;
    using O = std::conditional_t<*result_kind(Op, X, Y) == operand_kind::complex, kernels::cpair<T>, T>;
    const std::size_t xs = x_broadcast ? 0 : 1, ys = y_broadcast ? 0 : 1;
    loop<F, T, O>(params, out, n, [x, xs](std::size_t i) { return load<X>(x, i * xs); },
                  [y, ys](std::size_t i) { return load<Y>(y, i * ys); });
}

namespace {

template <class T, elementwise_op Op>
constexpr void add_scalar_kernels(elementwise_set<T>& set) noexcept {
    constexpr operand_kind C = operand_kind::complex, R = operand_kind::real;
    constexpr std::size_t i = static_cast<std::size_t>(Op);
    if constexpr (result_kind(Op, C).has_value()) set.unary[i][0] = &scalar_unary<Op, C, T>;
    if constexpr (result_kind(Op, R).has_value()) set.unary[i][1] = &scalar_unary<Op, R, T>;
    if constexpr (result_kind(Op, C, C).has_value()) set.binary[i][binary_index(C, C)] = &scalar_binary<Op, C, C, T>;
    if constexpr (result_kind(Op, C, R).has_value()) set.binary[i][binary_index(C, R)] = &scalar_binary<Op, C, R, T>;
    if constexpr (result_kind(Op, R, C).has_value()) set.binary[i][binary_index(R, C)] = &scalar_binary<Op, R, C, T>;
    if constexpr (result_kind(Op, R, R).has_value()) set.binary[i][binary_index(R, R)] = &scalar_binary<Op, R, R, T>;
}

template <class T>
constexpr elementwise_set<T> make_scalar_set() noexcept {
    elementwise_set<T> set{};
#define REALIFY_SIMD_ADD(name, forms) add_scalar_kernels<T, elementwise_op::name>(set);
    REALIFY_SIMD_ELEMENTWISE_OPS(REALIFY_SIMD_ADD)
#undef REALIFY_SIMD_ADD
    return set;
}

}  // namespace

// Every scalar kernel, by op and kinds: instantiates them all here.
template <>
const elementwise_set<float>& scalar_kernels<float>() noexcept {
    static constexpr elementwise_set<float> set = make_scalar_set<float>();
    return set;
}
template <>
const elementwise_set<double>& scalar_kernels<double>() noexcept {
    static constexpr elementwise_set<double> set = make_scalar_set<double>();
    return set;
}

}  // namespace realify::simd::detail
