// realify/simd/elementwise.hpp: the lookup of the raw kernels in the active
// kernel table, and the checked span API (sizes, overlaps, the form from the
// span types, broadcasting of size-1 operands, streaming stores). Compiled
// for the baseline ISA only.
#include "realify/simd/elementwise.hpp"

#include <complex>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "kernel_table.hpp"
#include "realify/errors.hpp"
#include "span_checks.hpp"

namespace realify::simd {

template <class T>
unary_kernel<T> unary_kernel_for(elementwise_op op, operand_kind x) {
    if (!result_kind(op, x)) return nullptr;
    return detail::active_table().of<T>().elementwise.unary[static_cast<std::size_t>(op)][static_cast<std::size_t>(x)];
}
template <class T>
binary_kernel<T> binary_kernel_for(elementwise_op op, operand_kind x, operand_kind y) {
    if (!result_kind(op, x, y)) return nullptr;
    return detail::active_table().of<T>().elementwise.binary[static_cast<std::size_t>(op)][detail::binary_index(x, y)];
}
template unary_kernel<float> unary_kernel_for<float>(elementwise_op, operand_kind);
template unary_kernel<double> unary_kernel_for<double>(elementwise_op, operand_kind);
template binary_kernel<float> binary_kernel_for<float>(elementwise_op, operand_kind, operand_kind);
template binary_kernel<double> binary_kernel_for<double>(elementwise_op, operand_kind, operand_kind);

namespace {

template <class E>
constexpr operand_kind kind_of = operand_kind::real;
template <class T>
constexpr operand_kind kind_of<std::complex<T>> = operand_kind::complex;

constexpr std::string_view kind_name(operand_kind k) noexcept { return k == operand_kind::complex ? "complex" : "real"; }

template <class E>
auto as_reals(std::span<E> s) noexcept {
    using T = std::remove_cv_t<E>;
    if constexpr (kind_of<T> == operand_kind::complex) {
        using R = typename T::value_type;
        if constexpr (std::is_const_v<E>) return reinterpret_cast<const R*>(s.data());
        else return reinterpret_cast<R*>(s.data());
    } else {
        return s.data();
    }
}

std::string function_name(elementwise_op op) { return "elementwise(" + std::string(name(op)) + ")"; }

/// The constant as {re, im}; throws when pow_scalar has none.
template <class T>
const T* parameters(elementwise_op op, const std::optional<std::complex<T>>& constant, T (&storage)[2]) {
    if (op == elementwise_op::pow_scalar && !constant)
        throw error("realify::simd::elementwise(pow_scalar): the exponent (constant) is required");
    if (!constant || !takes_constant(op))
        return nullptr;
    storage[0] = constant->real();
    storage[1] = constant->imag();
    return storage;
}

[[noreturn]] void no_kernel(elementwise_op op, std::string_view form) {
    throw error("realify::simd::" + function_name(op) + ": no " + std::string(form) + " kernel (see result_kind)");
}

template <class T, class X, class O>
void run_unary(elementwise_op op, std::span<const X> x, std::span<O> out, std::optional<std::complex<T>> constant) {
    const std::string function = function_name(op);
    constexpr operand_kind xk = kind_of<X>, ok = kind_of<O>;
    const auto rk = result_kind(op, xk);
    if (!rk || *rk != ok) no_kernel(op, std::string(kind_name(xk)) + " → " + std::string(kind_name(ok)));
    if (x.size() != out.size()) throw shape_error(detail::sizes_message(function, {{"x", x.size()}, {"out", out.size()}}));
    // complex → real: out's n reals may start where x's 2n do.
    detail::check_alias(function, "x", x, out, xk != ok);
    T storage[2];
    const T* params = parameters(op, constant, storage);
    const bool stream = detail::use_streaming(out, detail::overlaps(x, out), x);
    unary_kernel_for<T>(op, xk)(as_reals(x), as_reals(out), out.size(), params, stream);
}

template <class T, class X, class Y, class O>
void run_binary(elementwise_op op, std::span<const X> x, std::span<const Y> y, std::span<O> out,
                std::optional<std::complex<T>> constant) {
    const std::string function = function_name(op);
    constexpr operand_kind xk = kind_of<X>, yk = kind_of<Y>, ok = kind_of<O>;
    const auto rk = result_kind(op, xk, yk);
    if (!rk || *rk != ok)
        no_kernel(op, std::string(kind_name(xk)) + " × " + std::string(kind_name(yk)) + " → " + std::string(kind_name(ok)));
    const std::size_t n = out.size();
    const bool xb = x.size() == 1 && n != 1, yb = y.size() == 1 && n != 1;
    if ((x.size() != n && !xb) || (y.size() != n && !yb))
        throw shape_error(detail::sizes_message(function, {{"x", x.size()}, {"y", y.size()}, {"out", n}}) +
                          " (an operand of size 1 is broadcast)");
    // out may be exactly an operand of its kind that is not broadcast;
    // anything else must be disjoint.
    auto check = [&](const char* name, auto in, operand_kind kind, bool broadcast) {
        if (kind == ok && !broadcast) {
            detail::check_alias(function, name, in, out);
        } else if (detail::overlaps(in, out)) {
            throw layout_error("realify::simd::" + function + ": out overlaps " + name +
                               (broadcast ? " (a broadcast operand)" : " (an operand of another kind)"));
        }
    };
    check("x", x, xk, xb);
    check("y", y, yk, yb);
    T storage[2];
    const T* params = parameters(op, constant, storage);
    const bool stream = detail::use_streaming(out, detail::overlaps(x, out) || detail::overlaps(y, out), x, y);
    if (n == 0) return;
    binary_kernel_for<T>(op, xk, yk)(as_reals(x), xb, as_reals(y), yb, as_reals(out), n, params, stream);
}

}  // namespace

#define REALIFY_SIMD_SPAN_API(T)                                                                                    \
    void elementwise(elementwise_op op, std::span<const std::complex<T>> x, std::span<std::complex<T>> out,          \
                     std::optional<std::complex<T>> constant) {                                                     \
        run_unary<T>(op, x, out, constant);                                                                         \
    }                                                                                                               \
    void elementwise(elementwise_op op, std::span<const std::complex<T>> x, std::span<T> out) {                     \
        run_unary<T>(op, x, out, std::nullopt);                                                                     \
    }                                                                                                               \
    void elementwise(elementwise_op op, std::span<const T> x, std::span<T> out,                                     \
                     std::optional<std::complex<T>> constant) {                                                     \
        run_unary<T>(op, x, out, constant);                                                                         \
    }                                                                                                               \
    void elementwise(elementwise_op op, std::span<const std::complex<T>> x, std::span<const std::complex<T>> y,      \
                     std::span<std::complex<T>> out, std::optional<std::complex<T>> constant) {                     \
        run_binary<T>(op, x, y, out, constant);                                                                     \
    }                                                                                                               \
    void elementwise(elementwise_op op, std::span<const std::complex<T>> x, std::span<const T> y,                   \
                     std::span<std::complex<T>> out, std::optional<std::complex<T>> constant) {                     \
        run_binary<T>(op, x, y, out, constant);                                                                     \
    }                                                                                                               \
    void elementwise(elementwise_op op, std::span<const T> x, std::span<const std::complex<T>> y,                   \
                     std::span<std::complex<T>> out, std::optional<std::complex<T>> constant) {                     \
        run_binary<T>(op, x, y, out, constant);                                                                     \
    }                                                                                                               \
    void elementwise(elementwise_op op, std::span<const T> x, std::span<const T> y, std::span<T> out,               \
                     std::optional<std::complex<T>> constant) {                                                     \
        run_binary<T>(op, x, y, out, constant);                                                                     \
    }                                                                                                               \
    void elementwise(elementwise_op op, std::span<const T> x, std::span<const T> y, std::span<std::complex<T>> out) { \
        run_binary<T>(op, x, y, out, std::nullopt);                                                                 \
    }
REALIFY_SIMD_SPAN_API(float)
REALIFY_SIMD_SPAN_API(double)
#undef REALIFY_SIMD_SPAN_API

}  // namespace realify::simd
