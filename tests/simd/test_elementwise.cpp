// realify::simd's compiled elementwise kernels (realify/simd/elementwise.hpp):
// every op and operand-kind form, on every instruction set this CPU has
// (scoped_arch), against the op's scalar element formula (realify/kernels,
// evaluated here): lengths that hit the empty case, the partial blocks and the
// unrolled loop, unaligned, in place, with broadcast operands and with
// streaming stores; results independent of position and store path; special
// values (signed zeros, subnormals, the smallest normal, values near overflow
// and at the exp thresholds, infinities, NaN) equal to the scalar form on
// every instruction set; the checked span API's errors; and the
// instruction-set controls under threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "realify/engine/fused_loop.hpp"
#include "realify/engine/rows.hpp"
#include "realify/errors.hpp"
#include "realify/kernels.hpp"
#include "realify/simd.hpp"
#include "../support/arch_levels.hpp"
#include "../support/error_message.hpp"

namespace rs = realify::simd;
namespace rk = realify::kernels;
using rs::elementwise_op;
using rs::operand_kind;

namespace {

constexpr operand_kind C = operand_kind::complex;
constexpr operand_kind R = operand_kind::real;

const char* kind_name(operand_kind k) { return k == C ? "complex" : "real"; }

// ---- the reference: the scalar form, evaluated in this translation unit ----------

template <class T, operand_kind K>
auto element_at(const T* p, std::size_t i) {
    if constexpr (K == C) return rk::cpair<T>{p[2 * i], p[2 * i + 1]};
    else return p[i];
}

template <class F, class T>
inline constexpr bool has_parameters = requires { typename F::template parameters<T>; };

/// The scalar form of Op on the operands (with its parameters when given).
template <elementwise_op Op, class T, class... X>
auto scalar_form(const T* params, X... x) {
    using F = rk::element<rs::elementwise_tag_t<Op>>;
    // (has_parameters, not a requires-expression on the local F: GCC 12
    // evaluates that one as false.)
    if constexpr (!std::is_invocable_v<const F&, X...>) {
        return F{}(x..., typename F::template parameters<T>(params));  // a constant is required
    } else if constexpr (has_parameters<F, T>) {
        if (params != nullptr) return F{}(x..., typename F::template parameters<T>(params));
        return F{}(x...);
    } else {
        return F{}(x...);
    }
}

// ---- comparison -----------------------------------------------------------------------

template <class T>
struct tolerance {
    long double rtol = sizeof(T) == 4 ? 1e-5L : 1e-12L;
    long double atol = sizeof(T) == 4 ? 1e-6L : 1e-14L;
};

/// The condition of an op at an element, by which its rounding errors grow:
/// 1, except for pow = exp(w·log z), whose relative error is |w·log z|
/// times that of the logarithm.
template <elementwise_op Op, class T, class... X>
long double condition(const T* params, X... x) {
    if constexpr (Op == elementwise_op::pow_scalar || Op == elementwise_op::pow_tensor) {
        using W = std::complex<long double>;
        auto wide = [](auto v) {
            if constexpr (std::is_floating_point_v<decltype(v)>) return W(v, 0);
            else return W(v.re, v.im);
        };
        const W operands[] = {wide(x)...};
        const W w = Op == elementwise_op::pow_scalar ? W(params[0], params[1]) : operands[1];
        if (operands[0] == W(0)) return 1;
        const long double k = 1 + std::abs(w * std::log(operands[0]));
        return std::isfinite(k) ? k : 1;
    } else {
        return 1;
    }
}

template <class T>
bool same_special(T got, T want) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    return std::isfinite(got);
}

/// got against the scalar form's want: non-finite parts exactly (NaN for
/// NaN, the same infinity), finite values within the normwise tolerance.
template <class T>
bool close(rk::cpair<T> got, rk::cpair<T> want, long double rtol, long double atol) {
    if (!std::isfinite(want.re) || !std::isfinite(want.im)) {
        if (!same_special(got.re, want.re) || !same_special(got.im, want.im)) return false;
        // the finite part of a half-infinite result, relative to max(1, |part|)
        auto part = [&](T g, T w) {
            return !std::isfinite(w) ||
                   std::abs(static_cast<long double>(g) - w) <= atol + rtol * std::max(1.0L, std::abs((long double)w));
        };
        return part(got.re, want.re) && part(got.im, want.im);
    }
    if (!std::isfinite(got.re) || !std::isfinite(got.im)) return false;
    const long double dr = static_cast<long double>(got.re) - want.re, di = static_cast<long double>(got.im) - want.im;
    const long double norm = std::hypot(static_cast<long double>(want.re), static_cast<long double>(want.im));
    return std::hypot(dr, di) <= atol + rtol * norm;
}
template <class T>
bool close(T got, T want, long double rtol, long double atol) {
    if (!std::isfinite(want)) return same_special(got, want);
    return std::isfinite(got) && std::abs(static_cast<long double>(got) - want) <= atol + rtol * std::abs((long double)want);
}

template <class T>
std::string show(rk::cpair<T> z) {
    std::ostringstream s;
    s.precision(std::numeric_limits<T>::max_digits10);
    s << "(" << z.re << ", " << z.im << ")";
    return s.str();
}
template <class T>
std::string show(T x) {
    std::ostringstream s;
    s.precision(std::numeric_limits<T>::max_digits10);
    s << x;
    return s.str();
}

// ---- inputs ------------------------------------------------------------------------------

/// Mostly moderate values, some spread over many magnitudes, some exact zeros
/// and small integers: the batch forms' range checks and both paths get hit.
template <class T>
std::vector<T> random_reals(std::size_t count, unsigned seed, bool positive = false) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<T> moderate(T(-3), T(3));
    std::uniform_real_distribution<T> exponent(T(-25), T(25));
    std::uniform_int_distribution<int> pick(0, 19);
    std::vector<T> v(count);
    for (auto& x : v) {
        const int k = pick(rng);
        if (k < 15) x = moderate(rng);
        else if (k < 18) x = std::pow(T(10), exponent(rng)) * (pick(rng) % 2 ? T(1) : T(-1));
        else if (k == 18) x = T(0);
        else x = T(pick(rng) - 10);
        if (positive) x = std::abs(x);
    }
    return v;
}

/// The op's constants to test with: none, and for the ops that take one
/// (α of add/sub, pow_scalar's exponent) a few.
template <class T>
std::vector<std::optional<std::complex<T>>> constants(elementwise_op op) {
    using Z = std::complex<T>;
    if (op == elementwise_op::add || op == elementwise_op::sub) return {std::nullopt, Z(T(0.5), T(-1.5)), Z(T(2), T(0))};
    if (op == elementwise_op::pow_scalar)
        return {Z(T(2), T(0)), Z(T(3), T(0)), Z(T(-1), T(0)), Z(T(0.5), T(0)), Z(T(-0.5), T(0)), Z(T(2.5), T(0)),
                Z(T(1.5), T(0.5))};
    if (op == elementwise_op::gelu) return {std::nullopt, Z(T(1), T(0)), Z(T(0), T(0))};  // 'none', 'tanh', 'none'
    return {std::nullopt};
}

std::string describe(elementwise_op op, rs::arch a, const char* type, std::size_t n, std::size_t offset,
                     const char* where) {
    std::ostringstream s;
    s << rs::name(op) << " on " << rs::arch_name(a) << ", " << type << ", n=" << n << ", offset=" << offset << ", "
      << where;
    return s.str();
}

// ---- one kernel run against the scalar form ----------------------------------------------

enum class placement { out_of_place, in_place_x, in_place_y };

// The checks of one op and operand form are kept out of line
// ([[gnu::noinline]]): inlined into the loops over every op, they made
// functions so large that the sanitizer build spent a fifth more time
// compiling this unit.

template <elementwise_op Op, class T, operand_kind X>
[[gnu::noinline]] void check_unary(rs::arch a, std::size_t n, std::size_t offset, placement where, bool stream,
                                   unsigned seed) {
    constexpr operand_kind O = *rs::result_kind(Op, X);
    constexpr std::size_t xw = X == C ? 2 : 1, ow = O == C ? 2 : 1;
    if (where == placement::in_place_x && X != O && !(X == C && O == R)) return;
    if (where == placement::in_place_y) return;
    const auto kernel = rs::unary_kernel_for<T>(Op, X);
    ASSERT_NE(kernel, nullptr) << rs::name(Op);
    for (const auto& constant : constants<T>(Op)) {
        const T parts[2] = {constant ? constant->real() : T(0), constant ? constant->imag() : T(0)};
        const T* params = constant ? parts : nullptr;
        std::vector<T> x = random_reals<T>(xw * (n + offset + 1), seed);
        const std::vector<T> x0 = x;
        const T sentinel = T(7.25);
        std::vector<T> out_buffer(ow * (n + offset + 1), sentinel);
        T* xp = x.data() + xw * offset;
        T* op = where == placement::in_place_x ? xp : out_buffer.data() + ow * offset;
        kernel(xp, op, n, params, stream);
        std::size_t failures = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const auto in = element_at<T, X>(x0.data() + xw * offset, i);
            const auto want = scalar_form<Op, T>(params, in);
            const auto got = element_at<T, O>(op, i);
            const tolerance<T> tol;
            const long double k = condition<Op, T>(params, in);
            if (!close(got, want, k * tol.rtol, tol.atol) && failures++ < 5)
                ADD_FAILURE() << describe(Op, a, sizeof(T) == 4 ? "float" : "double", n, offset,
                                          where == placement::out_of_place ? "out of place" : "in place")
                              << (constant ? " constant " + show(rk::cpair<T>{parts[0], parts[1]}) : "") << ": "
                              << kind_name(X) << " element " << i << " = " << show(in) << ": got " << show(got)
                              << ", scalar form " << show(want);
        }
        EXPECT_EQ(failures, 0u) << rs::name(Op) << " on " << rs::arch_name(a);
        if (where == placement::out_of_place) {
            EXPECT_EQ(out_buffer.back(), sentinel) << rs::name(Op) << " wrote past the end";
            for (std::size_t k = 0; k < ow * offset; ++k) EXPECT_EQ(out_buffer[k], sentinel) << rs::name(Op);
        }
    }
}

template <elementwise_op Op, class T, operand_kind X, operand_kind Y>
[[gnu::noinline]] void check_binary(rs::arch a, std::size_t n, std::size_t offset, placement where, bool stream,
                                    unsigned seed, bool x_broadcast, bool y_broadcast) {
    constexpr operand_kind O = *rs::result_kind(Op, X, Y);
    constexpr std::size_t xw = X == C ? 2 : 1, yw = Y == C ? 2 : 1, ow = O == C ? 2 : 1;
    if (where == placement::in_place_x && (X != O || x_broadcast)) return;
    if (where == placement::in_place_y && (Y != O || y_broadcast)) return;
    const auto kernel = rs::binary_kernel_for<T>(Op, X, Y);
    ASSERT_NE(kernel, nullptr) << rs::name(Op);
    for (const auto& constant : constants<T>(Op)) {
        const T parts[2] = {constant ? constant->real() : T(0), constant ? constant->imag() : T(0)};
        const T* params = constant ? parts : nullptr;
        std::vector<T> x = random_reals<T>(xw * (n + offset + 1), seed);
        std::vector<T> y = random_reals<T>(yw * (n + offset + 1), seed + 1);
        const std::vector<T> x0 = x, y0 = y;
        const T sentinel = T(7.25);
        std::vector<T> out_buffer(ow * (n + offset + 1), sentinel);
        T* xp = x.data() + xw * offset;
        T* yp = y.data() + yw * offset;
        T* op = where == placement::in_place_x   ? xp
                : where == placement::in_place_y ? yp
                                                 : out_buffer.data() + ow * offset;
        kernel(xp, x_broadcast, yp, y_broadcast, op, n, params, stream);
        std::size_t failures = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const auto xi = element_at<T, X>(x0.data() + xw * offset, x_broadcast ? 0 : i);
            const auto yi = element_at<T, Y>(y0.data() + yw * offset, y_broadcast ? 0 : i);
            const auto want = scalar_form<Op, T>(params, xi, yi);
            const auto got = element_at<T, O>(op, i);
            const tolerance<T> tol;
            const long double k = condition<Op, T>(params, xi, yi);
            if (!close(got, want, k * tol.rtol, tol.atol) && failures++ < 5)
                ADD_FAILURE() << describe(Op, a, sizeof(T) == 4 ? "float" : "double", n, offset,
                                          where == placement::out_of_place ? "out of place" : "in place")
                              << (x_broadcast ? " x broadcast" : "") << (y_broadcast ? " y broadcast" : "")
                              << (constant ? " constant " + show(rk::cpair<T>{parts[0], parts[1]}) : "") << ": "
                              << kind_name(X) << " × " << kind_name(Y) << " element " << i << " = " << show(xi)
                              << ", " << show(yi) << ": got " << show(got) << ", scalar form " << show(want);
        }
        EXPECT_EQ(failures, 0u) << rs::name(Op) << " on " << rs::arch_name(a);
        if (where == placement::out_of_place) {
            EXPECT_EQ(out_buffer.back(), sentinel) << rs::name(Op) << " wrote past the end";
        }
    }
}

constexpr std::size_t lengths[] = {0, 1, 3, 7, 15, 16, 17, 131071};

template <elementwise_op Op, class T>
void check_op_all_forms(rs::arch a) {
    unsigned seed = 100 + static_cast<unsigned>(Op) * 7;
    for (std::size_t n : lengths)
        for (std::size_t offset : {0, 1})
            for (placement where : {placement::out_of_place, placement::in_place_x, placement::in_place_y}) {
                if (n == 131071 && (offset != 1 || where == placement::in_place_y)) continue;
                const bool stream = n == 131071 && where == placement::out_of_place;
                seed += 3;
                if constexpr (rs::result_kind(Op, C).has_value()) check_unary<Op, T, C>(a, n, offset, where, stream, seed);
                if constexpr (rs::result_kind(Op, R).has_value()) check_unary<Op, T, R>(a, n, offset, where, stream, seed);
                auto binary = [&]<operand_kind X, operand_kind Y>() {
                    if constexpr (rs::result_kind(Op, X, Y).has_value()) {
                        check_binary<Op, T, X, Y>(a, n, offset, where, stream, seed, false, false);
                        if (n < 1000 && where == placement::out_of_place) {
                            check_binary<Op, T, X, Y>(a, n, offset, where, false, seed, true, false);
                            check_binary<Op, T, X, Y>(a, n, offset, where, false, seed, false, true);
                        }
                    }
                };
                binary.template operator()<C, C>();
                binary.template operator()<C, R>();
                binary.template operator()<R, C>();
                binary.template operator()<R, R>();
            }
}

template <class T>
void check_every_op(rs::arch a) {
#define REALIFY_TEST_OP(name, forms) check_op_all_forms<elementwise_op::name, T>(a);
    REALIFY_SIMD_ELEMENTWISE_OPS(REALIFY_TEST_OP)
#undef REALIFY_TEST_OP
}

class ElementwiseKernels : public ::testing::TestWithParam<rs::arch> {
protected:
    void SetUp() override {
        if (!rs::is_supported(GetParam()))
            GTEST_SKIP() << "this CPU (or build) lacks " << rs::arch_name(GetParam())
                         << "; its kernels are tested on machines that have it";
        forced_.emplace(GetParam());
    }
    void TearDown() override {
        forced_.reset();
        rs::set_streaming_threshold(rs::default_streaming_threshold);
    }
    std::optional<rs::scoped_arch> forced_;
};

TEST_P(ElementwiseKernels, FloatMatchesTheScalarForm) { check_every_op<float>(GetParam()); }
TEST_P(ElementwiseKernels, DoubleMatchesTheScalarForm) { check_every_op<double>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(AllArchs, ElementwiseKernels, ::testing::Values(rs::arch::sse2, rs::arch::avx2, rs::arch::avx512),
                         [](const ::testing::TestParamInfo<rs::arch>& info) {
                             return std::string(rs::arch_name(info.param));
                         });

// ---- the API's description and errors ---------------------------------------------------

TEST(ElementwiseApi, DescribesItsFormsAndMapsTheOpTags) {
    EXPECT_EQ(rs::name(elementwise_op::exp), "exp");
    EXPECT_EQ(rs::arity(elementwise_op::exp), 1);
    EXPECT_EQ(rs::arity(elementwise_op::div), 2);
    EXPECT_EQ(rs::result_kind(elementwise_op::exp, C), C);
    EXPECT_EQ(rs::result_kind(elementwise_op::exp, R), R);
    EXPECT_EQ(rs::result_kind(elementwise_op::abs, C), R);
    EXPECT_EQ(rs::result_kind(elementwise_op::abs, C, C), std::nullopt);
    EXPECT_EQ(rs::result_kind(elementwise_op::div, C, R), C);
    EXPECT_EQ(rs::result_kind(elementwise_op::div, R, R), R);
    EXPECT_EQ(rs::result_kind(elementwise_op::polar, R, R), C);
    EXPECT_EQ(rs::result_kind(elementwise_op::polar, C, C), std::nullopt);
    EXPECT_EQ(rs::result_kind(elementwise_op::add, C), std::nullopt);
    static_assert(rs::elementwise_op_of<realify::op::tanh> == elementwise_op::tanh);
    static_assert(!rs::elementwise_op_of<realify::op::mm>.has_value());
    static_assert(std::is_same_v<rs::elementwise_tag_t<elementwise_op::sqrt>, realify::op::sqrt>);
    for (const elementwise_op op : rs::elementwise_ops) {
        // Every op tag name is an op of the table, and every form has a kernel.
        EXPECT_TRUE(std::any_of(realify::op::op_table.begin(), realify::op::op_table.end(),
                                [&](const auto& o) { return o.name == rs::name(op); }))
            << rs::name(op);
        for (operand_kind x : {C, R}) {
            EXPECT_EQ(rs::unary_kernel_for<float>(op, x) != nullptr, rs::result_kind(op, x).has_value());
            for (operand_kind y : {C, R})
                EXPECT_EQ(rs::binary_kernel_for<double>(op, x, y) != nullptr, rs::result_kind(op, x, y).has_value());
        }
    }
}

using realify::testing::error_message;

TEST(ElementwiseApi, SpanFormsCheckSizesOverlapsAndForms) {
    using Z = std::complex<float>;
    std::vector<Z> x(4, Z(1, 2)), y(4, Z(3, -1)), out(4), three(3);
    std::vector<float> r(4, 2.0f), rout(4);
    rs::elementwise(elementwise_op::mul, x, y, out);
    for (const auto& z : out) EXPECT_EQ(z, Z(1, 2) * Z(3, -1));
    // A size-1 operand broadcasts.
    rs::elementwise(elementwise_op::div, x, std::vector<float>{2.0f}, out);
    for (const auto& z : out) EXPECT_EQ(z, Z(0.5f, 1.0f));
    rs::elementwise(elementwise_op::abs, x, rout);
    for (float v : rout) EXPECT_FLOAT_EQ(v, std::abs(Z(1, 2)));
    rs::elementwise(elementwise_op::pow_scalar, x, out, Z(2, 0));
    for (const auto& z : out) EXPECT_EQ(z, Z(-3, 4));
    rs::elementwise(elementwise_op::add, x, y, out, Z(2, 0));
    for (const auto& z : out) EXPECT_EQ(z, Z(7, 0));
    // In place.
    rs::elementwise(elementwise_op::conj, x, x);
    EXPECT_EQ(x[0], Z(1, -2));

    EXPECT_THROW(rs::elementwise(elementwise_op::mul, x, three, out), realify::shape_error);
    EXPECT_EQ(error_message([&] { rs::elementwise(elementwise_op::mul, x, three, out); }),
              "realify::simd::elementwise(mul): sizes differ: x has 4, y has 3, out has 4 elements (an operand of "
              "size 1 is broadcast)");
    EXPECT_THROW(rs::elementwise(elementwise_op::exp, x, std::span(out).first(3)), realify::shape_error);
    EXPECT_THROW(rs::elementwise(elementwise_op::exp, std::span<const Z>(x).first(3), std::span(x).subspan(1)),
                 realify::layout_error);
    EXPECT_NE(error_message([&] { rs::elementwise(elementwise_op::exp, std::span<const Z>(x).first(3), std::span(x).subspan(1)); })
                  .find("partially overlaps x"),
              std::string::npos);
    // A form the op lacks.
    EXPECT_THROW(rs::elementwise(elementwise_op::add, x, out), realify::error);
    EXPECT_NE(error_message([&] { rs::elementwise(elementwise_op::abs, x, out); }).find("no complex → complex kernel"),
              std::string::npos);
    EXPECT_THROW(rs::elementwise(elementwise_op::pow_scalar, x, out), realify::error);
    // out over an operand of the other kind.
    std::vector<float> reals(8, 1.0f);
    EXPECT_THROW(rs::elementwise(elementwise_op::mul, std::span<const Z>(reinterpret_cast<const Z*>(reals.data()), 4),
                                 std::span<const float>(reals).first(4), std::span(reinterpret_cast<Z*>(reals.data()), 4)),
                 realify::layout_error);
    // Empty is fine.
    std::vector<Z> none;
    EXPECT_NO_THROW(rs::elementwise(elementwise_op::exp, none, none));
}


// ---- special values ------------------------------------------------------------------------

namespace special {

/// The grid of parts: signed zeros, the smallest subnormal, the smallest
/// normal, ordinary values, the exp thresholds, values near overflow,
/// infinities and NaN.
template <class T>
std::vector<T> parts() {
    using L = std::numeric_limits<T>;
    const bool f = sizeof(T) == 4;
    return {T(0),
            T(-0.0),
            L::denorm_min(),
            -L::denorm_min(),
            L::min(),
            -L::min(),
            T(0.5),
            T(1),
            T(-1),
            T(-2.5),
            f ? T(88.7) : T(709),
            f ? T(89) : T(710),
            f ? T(-104) : T(-745),
            f ? T(3e38) : T(1.7e308),
            f ? T(-3e38) : T(-1.7e308),
            L::infinity(),
            -L::infinity(),
            L::quiet_NaN()};
}
/// A smaller grid for the binary ops (their grid is its square, twice).
template <class T>
std::vector<T> binary_parts() {
    using L = std::numeric_limits<T>;
    const bool f = sizeof(T) == 4;
    return {T(0), T(-0.0), L::denorm_min(), L::min(), T(1), T(-2.5), f ? T(3e38) : T(1.7e308),
            L::infinity(), -L::infinity(), L::quiet_NaN()};
}

/// The ops whose special values specify the sign of a zero (docs/numerics.md).
constexpr bool zero_sign_specified(elementwise_op op) {
    using E = elementwise_op;
    switch (op) {
        case E::conj: case E::exp: case E::log: case E::log2: case E::log10: case E::sqrt: case E::sin:
        case E::cos: case E::tan: case E::sinh: case E::cosh: case E::tanh: case E::asin: case E::acos:
        case E::atan: case E::asinh: case E::acosh: case E::atanh: case E::real: case E::imag:
        case E::erf: case E::silu: case E::gelu: case E::maximum: case E::minimum: case E::clamp_min:
        case E::clamp_max:
            return true;
        default:
            return false;
    }
}

template <class T>
bool same_bits_of_special(T got, T want, bool zero_sign) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    if (want == T(0) && got == T(0) && zero_sign) return std::signbit(got) == std::signbit(want);
    return true;
}

/// A kernel result on the grid against the scalar form: the same special
/// values (NaN, the same infinity, the same signed zero where specified),
/// finite values within the tolerance (absolute to a few subnormal units).
template <class T>
bool agrees(rk::cpair<T> got, rk::cpair<T> want, bool zero_sign, long double rtol) {
    if (!same_bits_of_special(got.re, want.re, zero_sign) || !same_bits_of_special(got.im, want.im, zero_sign))
        return false;
    return close(got, want, rtol, 4.0L * std::numeric_limits<T>::denorm_min());
}
template <class T>
bool agrees(T got, T want, bool zero_sign, long double rtol) {
    return same_bits_of_special(got, want, zero_sign) &&
           close(got, want, rtol, 4.0L * std::numeric_limits<T>::denorm_min());
}

// (Out of line, as check_unary: see the note above it.)
template <elementwise_op Op, class T>
[[gnu::noinline]] void check_unary_grid(rs::arch a) {
    const auto values = parts<T>();
    const tolerance<T> tol;
    for (const auto& constant : constants<T>(Op)) {
        const T pc[2] = {constant ? constant->real() : T(0), constant ? constant->imag() : T(0)};
        const T* params = constant ? pc : nullptr;
        auto run = [&]<operand_kind X>() {
            if constexpr (rs::result_kind(Op, X).has_value()) {
                constexpr operand_kind O = *rs::result_kind(Op, X);
                std::vector<T> x;
                for (T re : values) {
                    if (X == C)
                        for (T im : values) {
                            x.push_back(re);
                            x.push_back(im);
                        }
                    else
                        x.push_back(re);
                }
                const std::size_t n = X == C ? x.size() / 2 : x.size();
                std::vector<T> out((O == C ? 2 : 1) * n);
                rs::unary_kernel_for<T>(Op, X)(x.data(), out.data(), n, params, false);
                std::size_t failures = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    const auto in = element_at<T, X>(x.data(), i);
                    const auto want = scalar_form<Op, T>(params, in);
                    const auto got = element_at<T, O>(out.data(), i);
                    if (!agrees(got, want, zero_sign_specified(Op), condition<Op, T>(params, in) * tol.rtol) &&
                        failures++ < 5)
                        ADD_FAILURE() << rs::name(Op) << " on " << rs::arch_name(a) << ", "
                                      << (sizeof(T) == 4 ? "float" : "double")
                                      << (constant ? " constant " + show(rk::cpair<T>{pc[0], pc[1]}) : "") << ": "
                                      << show(in) << " gives " << show(got) << ", the scalar form " << show(want);
                }
            }
        };
        run.template operator()<C>();
        run.template operator()<R>();
    }
}

template <elementwise_op Op, class T>
[[gnu::noinline]] void check_binary_grid(rs::arch a) {
    const auto values = binary_parts<T>();
    const tolerance<T> tol;
    for (const auto& constant : constants<T>(Op)) {
        const T pc[2] = {constant ? constant->real() : T(0), constant ? constant->imag() : T(0)};
        const T* params = constant ? pc : nullptr;
        auto run = [&]<operand_kind X, operand_kind Y>() {
            if constexpr (rs::result_kind(Op, X, Y).has_value()) {
                constexpr operand_kind O = *rs::result_kind(Op, X, Y);
                std::vector<T> singles_x, singles_y;
                for (T re : values)
                    for (T im : values) {
                        if (X == C) singles_x.insert(singles_x.end(), {re, im});
                        if (Y == C) singles_y.insert(singles_y.end(), {re, im});
                    }
                if (X == R) singles_x = values;
                if (Y == R) singles_y = values;
                const std::size_t nx = singles_x.size() / (X == C ? 2 : 1), ny = singles_y.size() / (Y == C ? 2 : 1);
                std::vector<T> x, y;
                for (std::size_t i = 0; i < nx; ++i)
                    for (std::size_t j = 0; j < ny; ++j) {
                        x.insert(x.end(), singles_x.begin() + i * (X == C ? 2 : 1), singles_x.begin() + (i + 1) * (X == C ? 2 : 1));
                        y.insert(y.end(), singles_y.begin() + j * (Y == C ? 2 : 1), singles_y.begin() + (j + 1) * (Y == C ? 2 : 1));
                    }
                const std::size_t n = nx * ny;
                std::vector<T> out((O == C ? 2 : 1) * n);
                rs::binary_kernel_for<T>(Op, X, Y)(x.data(), false, y.data(), false, out.data(), n, params, false);
                std::size_t failures = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    const auto xi = element_at<T, X>(x.data(), i);
                    const auto yi = element_at<T, Y>(y.data(), i);
                    const auto want = scalar_form<Op, T>(params, xi, yi);
                    const auto got = element_at<T, O>(out.data(), i);
                    if (!agrees(got, want, zero_sign_specified(Op), condition<Op, T>(params, xi, yi) * tol.rtol) &&
                        failures++ < 5)
                        ADD_FAILURE() << rs::name(Op) << " on " << rs::arch_name(a) << ", "
                                      << (sizeof(T) == 4 ? "float" : "double")
                                      << (constant ? " constant " + show(rk::cpair<T>{pc[0], pc[1]}) : "") << ": "
                                      << show(xi) << ", " << show(yi) << " gives " << show(got) << ", the scalar form "
                                      << show(want);
                }
            }
        };
        run.template operator()<C, C>();
        run.template operator()<C, R>();
        run.template operator()<R, C>();
        run.template operator()<R, R>();
    }
}

template <class T>
void check_every_grid(rs::arch a) {
#define REALIFY_TEST_GRID(name, forms)                                                      \
    if constexpr (rs::arity(elementwise_op::name) == 1) check_unary_grid<elementwise_op::name, T>(a); \
    else check_binary_grid<elementwise_op::name, T>(a);
    REALIFY_SIMD_ELEMENTWISE_OPS(REALIFY_TEST_GRID)
#undef REALIFY_TEST_GRID
}

}  // namespace special

TEST_P(ElementwiseKernels, FloatSpecialValuesEqualTheScalarForm) { special::check_every_grid<float>(GetParam()); }
TEST_P(ElementwiseKernels, DoubleSpecialValuesEqualTheScalarForm) { special::check_every_grid<double>(GetParam()); }

// Tails and heads go through the same instructions as full registers: a
// result depends neither on its position nor on the store path.
TEST_P(ElementwiseKernels, ResultsAreBitIdenticalAcrossOffsetsAndStorePaths) {
    const std::size_t n = 1001;
    const auto x = random_reals<float>(2 * (n + 1), 5);
    for (elementwise_op op : {elementwise_op::exp, elementwise_op::div, elementwise_op::abs, elementwise_op::add}) {
        std::vector<float> aligned(2 * n), shifted(2 * (n + 1)), streamed(2 * (n + 1));
        auto run = [&](float* out, bool stream) {
            if (rs::arity(op) == 1)
                rs::unary_kernel_for<float>(op, C)(x.data(), out, n, nullptr, stream);
            else
                rs::binary_kernel_for<float>(op, C, C)(x.data(), false, x.data() + 2, false, out, n, nullptr, stream);
        };
        run(aligned.data(), false);
        run(shifted.data() + 2, false);
        run(streamed.data() + 2, true);
        const std::size_t reals = rs::result_kind(op, C).value_or(C) == C && op != elementwise_op::abs ? 2 * n : n;
        for (std::size_t i = 0; i < reals; ++i) {
            ASSERT_EQ(std::memcmp(&aligned[i], &shifted[i + 2], sizeof(float)), 0) << rs::name(op) << " real " << i;
            ASSERT_EQ(std::memcmp(&aligned[i], &streamed[i + 2], sizeof(float)), 0) << rs::name(op) << " real " << i;
        }
    }
}

// ---- fused loops: chains of kernels in one pass (realify/engine/fused_loop.hpp) ------------

namespace program_check {

namespace re = realify::engine;

template <class T>
re::tensor_ref vector_ref(const T* data, std::size_t n, bool complex, std::ptrdiff_t step = 1) {
    re::tensor_ref r;
    r.data = const_cast<T*>(data);
    r.type = re::component_of<T>();
    r.complex = complex;
    r.shape.rank = 1;
    r.shape.extent[0] = n;
    r.strides[0] = step * (complex ? 2 : 1);
    return r;
}

/// Whether n values are the same bits (memcmp, which may not see a null pointer, not even for 0 bytes).
template <class T>
bool same_bits(const std::vector<T>& got, const std::vector<T>& want) {
    return got.size() == want.size() && (got.empty() || std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0);
}

/// exp(a)·b + a, then |…|·2 − c: two programs against their ops run one by
/// one through the same kernels — equal to the bit, on every length (blocks
/// of the program, partial ones, the kernels' tails), unaligned, strided, in
/// place, with a broadcast input and with numbers.
template <class T>
void check_chains() {
    using std::size_t;
    const T number = T(2);
    for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(7), size_t(15), size_t(16), size_t(17), size_t(255),
                     size_t(256), size_t(257), size_t(131071)}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto a = random_reals<T>(2 * n + 1, 11), b = random_reals<T>(2 * n + 1, 12), c = random_reals<T>(n + 1, 13);
        const T* a1 = a.data() + 1;  // unaligned
        // reference: one op at a time
        std::vector<T> t0(2 * n), t1(2 * n), want(2 * n), m(n), want_real(n);
        auto un = [&](elementwise_op op, operand_kind k, const T* x, T* out) {
            rs::unary_kernel_for<T>(op, k)(x, out, n, nullptr, false);
        };
        auto bin = [&](elementwise_op op, operand_kind kx, const T* x, bool xb, operand_kind ky, const T* y, bool yb, T* out) {
            rs::binary_kernel_for<T>(op, kx, ky)(x, xb, y, yb, out, n, nullptr, false);
        };
        un(elementwise_op::exp, C, a1, t0.data());
        bin(elementwise_op::mul, C, t0.data(), false, C, b.data(), false, t1.data());
        bin(elementwise_op::add, C, t1.data(), false, C, a1, false, want.data());
        un(elementwise_op::abs, C, want.data(), m.data());
        bin(elementwise_op::mul, R, m.data(), false, R, &number, true, t0.data());
        bin(elementwise_op::sub, R, t0.data(), false, R, c.data(), false, want_real.data());

        const bool cc[] = {true, true};
        re::fused_loop chain(re::component_of<T>(), cc);
        const re::step_operand in0 = chain.input(0);
        const re::step_operand e = chain.append(elementwise_op::exp, std::array{in0});
        const re::step_operand p = chain.append(elementwise_op::mul, std::array{e, chain.input(1)});
        chain.append(elementwise_op::add, std::array{p, in0});
        EXPECT_EQ(chain.text(), "t0 = exp(in0); t1 = mul(t0, in1); out = add(t1, in0)");
        std::vector<T> got(2 * n, T(-1));
        const std::array ins{vector_ref(a1, n, true), vector_ref(b.data(), n, true)};
        re::evaluate_loop("chain", chain, ins, vector_ref(got.data(), n, true));
        ASSERT_TRUE(same_bits(got, want));
        // in place: out is input 0
        std::vector<T> inplace(a1, a1 + 2 * n);
        const std::array ins_inplace{vector_ref(inplace.data(), n, true), vector_ref(b.data(), n, true)};
        re::evaluate_loop("chain", chain, ins_inplace, vector_ref(inplace.data(), n, true));
        ASSERT_TRUE(same_bits(inplace, want));
        // strided out (every other element of a buffer twice as long)
        std::vector<T> strided(4 * n, T(-7));
        re::evaluate_loop("chain", chain, ins, vector_ref(strided.data(), n, true, 2));
        for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(std::memcmp(&strided[4 * i], &want[2 * i], 2 * sizeof(T)), 0) << i;  // NaN included
            ASSERT_EQ(strided[4 * i + 2], T(-7));                                           // untouched between
        }

        // a real result, a number, a complex → real step
        const bool cr[] = {true, false};
        re::fused_loop norm(re::component_of<T>(), cr);
        const re::step_operand absolute = norm.append(elementwise_op::abs, std::array{norm.input(0)});
        const re::step_operand twice =
            norm.append(elementwise_op::mul, std::array{absolute, re::fused_loop::number(2.0, false)});
        norm.append(elementwise_op::sub, std::array{twice, norm.input(1)});
        EXPECT_FALSE(norm.complex_result());
        std::vector<T> got_real(n);
        const std::array ins_norm{vector_ref(want.data(), n, true), vector_ref(c.data(), n, false)};
        re::evaluate_loop("norm", norm, ins_norm, vector_ref(got_real.data(), n, false));
        ASSERT_TRUE(same_bits(got_real, want_real));

        // a broadcast input: a step on it alone computes once, the output repeats it
        re::tensor_ref scalar = vector_ref(c.data(), 1, false);
        scalar.shape.rank = 0;
        const bool r1[] = {false, false};
        re::fused_loop shifted(re::component_of<T>(), r1);
        const re::step_operand once = shifted.append(elementwise_op::exp, std::array{shifted.input(0)});
        shifted.append(elementwise_op::add, std::array{once, shifted.input(1)});
        std::vector<T> got_shift(n);
        const std::array ins_shift{scalar, vector_ref(c.data(), n, false)};
        re::evaluate_loop("shifted", shifted, ins_shift, vector_ref(got_shift.data(), n, false));
        T e0;
        rs::unary_kernel_for<T>(elementwise_op::exp, R)(c.data(), &e0, 1, nullptr, false);
        for (size_t i = 0; i < n; ++i) {
            const T want_shift = e0 + c[i];
            ASSERT_EQ(std::memcmp(&got_shift[i], &want_shift, sizeof(T)), 0) << i;
        }
    }
}

}  // namespace program_check

TEST_P(ElementwiseKernels, BlockProgramsEqualTheirOpsRunOneByOne) {
    program_check::check_chains<float>();
    program_check::check_chains<double>();
}

TEST(BlockProgram, RefusesWhatItCannotRun) {
    namespace re = realify::engine;
    const bool c1[] = {true};
    re::fused_loop p(re::component::float32, c1);
    // abs of a real number exists, add of one operand does not, angle × complex neither
    EXPECT_THROW(p.append(elementwise_op::add, std::array{p.input(0)}), realify::error);
    EXPECT_THROW(p.append(elementwise_op::polar, std::array{p.input(0), p.input(0)}), realify::error);
    EXPECT_THROW((void)p.input(1), realify::error);
    const re::step_operand e = p.append(elementwise_op::exp, std::array{p.input(0)});
    p.append(elementwise_op::neg, std::array{e});
    EXPECT_THROW(p.append(elementwise_op::conj, std::array{e}), realify::error);  // a tree: e is read once
    EXPECT_THROW(re::fused_loop(re::component::int32, c1), realify::error);
    const bool five[] = {true, true, true, true, true};
    EXPECT_THROW(re::fused_loop(re::component::float64, five), realify::error);
    // more results alive than scratch blocks: a balanced tree deeper than max_live
    re::fused_loop deep(re::component::float32, c1);
    std::vector<re::step_operand> pending;
    EXPECT_THROW(
        for (std::size_t i = 0; i <= re::fused_loop::max_live; ++i) pending.push_back(
            deep.append(elementwise_op::exp, std::array{deep.input(0)})),
        realify::error);
    // the inputs given must be the inputs declared
    std::vector<float> x(2);
    const std::array none = std::array<re::tensor_ref, 0>{};
    re::tensor_ref out = program_check::vector_ref(x.data(), 1, true);
    EXPECT_THROW(re::evaluate_loop("p", p, none, out), realify::error);
}

// ---- the ordering ops' semantics, at every position of every instruction set -------------

TEST_P(ElementwiseKernels, OrderingOpsOrderSignedZerosAndPropagateNaN) {
    // every case at each of 37 positions: in the registers and in the scalar tail
    constexpr std::size_t n = 37;
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    struct expectation {
        elementwise_op op;
        float x, y, want;
    };
    const expectation cases[] = {
        {elementwise_op::maximum, -0.0f, 0.0f, 0.0f},   {elementwise_op::maximum, 0.0f, -0.0f, 0.0f},
        {elementwise_op::minimum, -0.0f, 0.0f, -0.0f},  {elementwise_op::minimum, 0.0f, -0.0f, -0.0f},
        {elementwise_op::maximum, nan, 1.0f, nan},      {elementwise_op::maximum, 1.0f, nan, nan},
        {elementwise_op::minimum, -inf, nan, nan},      {elementwise_op::maximum, -inf, 2.0f, 2.0f},
        {elementwise_op::clamp_min, -0.0f, 0.0f, -0.0f}, {elementwise_op::clamp_min, 0.0f, -0.0f, 0.0f},
        {elementwise_op::clamp_max, 0.0f, -0.0f, 0.0f}, {elementwise_op::clamp_min, 1.0f, nan, nan},
        {elementwise_op::clamp_max, nan, 1.0f, nan},    {elementwise_op::clamp_min, -3.0f, -1.0f, -1.0f},
        {elementwise_op::clamp_max, inf, 5.0f, 5.0f}};
    for (const expectation& e : cases) {
        std::vector<float> x(n, e.x), y(n, e.y), out(n, 7.0f);
        rs::binary_kernel_for<float>(e.op, R, R)(x.data(), false, y.data(), false, out.data(), n, nullptr, false);
        for (std::size_t i = 0; i < n; ++i) {
            const bool same = std::isnan(e.want) ? std::isnan(out[i]) : std::memcmp(&out[i], &e.want, sizeof(float)) == 0;
            EXPECT_TRUE(same) << rs::name(e.op) << "(" << show(e.x) << ", " << show(e.y) << ") at " << i << " on "
                              << rs::arch_name(GetParam()) << ": " << show(out[i]) << ", want " << show(e.want);
        }
    }
}

// ---- sigmoid, silu and gelu('tanh') over the whole range, against long double ---------------

namespace activation_sweep {

using LD = long double;

/// Inputs over the whole range of T: bit patterns spread evenly over the
/// finite values of both signs, a dense stretch where the results leave the
/// normal range (from −(max exponent + 20) up), and the special values.
template <class T>
std::vector<T> sweep() {
    using limits = std::numeric_limits<T>;
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    std::vector<T> x;
    const U last = [] {
        const T m = limits::max();
        U b;
        std::memcpy(&b, &m, sizeof b);
        return b;
    }();
    const U step = last / U(200000);
    for (U b = 0; b <= last - step; b += step) {
        T v;
        std::memcpy(&v, &b, sizeof v);
        x.push_back(v);
        x.push_back(-v);
    }
    const T edge = T(limits::max_exponent) * T(0.7) + T(20);  // beyond ln(max) + a margin
    for (int i = 0; i <= 100000; ++i) x.push_back(-edge + T(2) * edge * T(i) / T(100000));
    for (T v : {T(0), -T(0), limits::infinity(), -limits::infinity(), limits::quiet_NaN(), limits::denorm_min(),
                -limits::denorm_min(), limits::min(), -limits::min(), limits::max(), -limits::max()})
        x.push_back(v);
    return x;
}

/// The op's value in long double; gelu('tanh') from its argument u rounded
/// as T computes it (PyTorch's u: docs/numerics.md).
template <elementwise_op Op, class T>
LD reference(T x) {
    if constexpr (Op == elementwise_op::sigmoid) return 1 / (1 + std::exp(-LD(x)));
    else if constexpr (Op == elementwise_op::silu) return LD(x) / (1 + std::exp(-LD(x)));
    else return LD(x) / (1 + std::exp(-2 * LD(rk::element<realify::op::gelu>::tanh_argument<T>(x))));
}

/// |got − want| in units of T's spacing at want (subnormal spacing below
/// the normal range); 0 for equal non-finite values, huge otherwise.
template <class T>
LD ulps(T got, LD want) {
    if (std::isnan(want) || std::isinf(want)) return (std::isnan(want) ? std::isnan(got) : LD(got) == want) ? 0 : 1e30L;
    if (!std::isfinite(got)) return 1e30L;
    int e = 0;
    std::frexp(std::max<LD>(std::abs(want), std::numeric_limits<T>::min()), &e);
    return std::abs(LD(got) - want) / std::ldexp(LD(1), e - std::numeric_limits<T>::digits);
}

/// The largest error of the compiled kernel of the active instruction set
/// and of the scalar form over the sweep; both within the documented bound,
/// zeros' signs and special values exact.
template <elementwise_op Op, class T>
void check(rs::arch a) {
    const std::vector<T> x = sweep<T>();
    const T tanh_param = T(1);
    const T* params = Op == elementwise_op::gelu ? &tanh_param : nullptr;
    std::vector<T> out(x.size());
    rs::unary_kernel_for<T>(Op, R)(x.data(), out.data(), x.size(), params, false);
    LD worst_kernel = 0, worst_scalar = 0;
    T at_kernel = 0, at_scalar = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const LD want = reference<Op>(x[i]);
        const T scalar = scalar_form<Op, T>(params, x[i]);
        const LD k = ulps(out[i], want), s = ulps(scalar, want);
        if (k > worst_kernel) worst_kernel = k, at_kernel = x[i];
        if (s > worst_scalar) worst_scalar = s, at_scalar = x[i];
        if (want == 0) {
            EXPECT_EQ(std::signbit(out[i]), std::signbit(T(want))) << rs::name(Op) << "(" << show(x[i]) << ") on " << rs::arch_name(a);
        }
    }
    const char* type = sizeof(T) == 4 ? "float" : "double";
    // the documented bounds (docs/numerics.md, "Accuracy of the formulas")
    const LD kernel_bound = 2.5, scalar_bound = sizeof(T) == 4 ? 0.51L : 2.5L;
    EXPECT_LE(worst_kernel, kernel_bound) << rs::name(Op) << " " << type << " on " << rs::arch_name(a) << ": "
                                          << worst_kernel << " ulp at " << show(at_kernel);
    EXPECT_LE(worst_scalar, scalar_bound) << rs::name(Op) << " " << type << " scalar form: " << worst_scalar
                                          << " ulp at " << show(at_scalar);
    std::cout << "[ accuracy ] " << rs::name(Op) << " " << type << ": " << rs::arch_name(a) << " kernel "
              << double(worst_kernel) << " ulp (at " << show(at_kernel) << "), scalar form " << double(worst_scalar)
              << " ulp (at " << show(at_scalar) << ")\n";
}

}  // namespace activation_sweep

TEST_P(ElementwiseKernels, ActivationsAreWithinTheirUlpsOverTheWholeRange) {
    activation_sweep::check<elementwise_op::sigmoid, float>(GetParam());
    activation_sweep::check<elementwise_op::silu, float>(GetParam());
    activation_sweep::check<elementwise_op::gelu, float>(GetParam());
    activation_sweep::check<elementwise_op::sigmoid, double>(GetParam());
    activation_sweep::check<elementwise_op::silu, double>(GetParam());
    activation_sweep::check<elementwise_op::gelu, double>(GetParam());
    // where e^−x overflows, the result is still the normal number it is
    EXPECT_LE(activation_sweep::ulps(rk::element<realify::op::silu>{}(-89.0f), -89.0L * std::exp(-89.0L)), 1);
    EXPECT_LE(activation_sweep::ulps(rk::element<realify::op::silu>{}(-710.0), -710.0L * std::exp(-710.0L)), 1);
    EXPECT_LE(activation_sweep::ulps(rk::element<realify::op::sigmoid>{}(-100.0f), std::exp(-100.0L)), 1);
}

// ---- the row kernels of softmax and the normalisations (realify/engine/rows.hpp) -----------

namespace rows_check {

namespace re = realify::engine;
using LD = long double;

template <class T>
re::tensor_ref matrix_ref(const T* data, std::size_t rows, std::size_t n) {
    re::tensor_ref r;
    r.data = const_cast<T*>(data);
    r.type = re::component_of<T>();
    r.shape.rank = 2;
    r.shape.extent = {rows, n};
    r.strides[0] = static_cast<std::ptrdiff_t>(n);
    r.strides[1] = 1;
    return r;
}

/// The op on every row in long double.
std::vector<LD> reference(const std::string& op, const std::vector<LD>& x, std::size_t rows, std::size_t n,
                          const std::vector<LD>& w, const std::vector<LD>& b, LD eps) {
    std::vector<LD> y(x.size());
    for (std::size_t r = 0; r < rows; ++r) {
        const LD* row = x.data() + r * n;
        LD* out = y.data() + r * n;
        if (op == "softmax" || op == "log_softmax") {
            LD m = -INFINITY;
            for (std::size_t i = 0; i < n; ++i) m = std::max(m, row[i]);
            LD s = 0;
            for (std::size_t i = 0; i < n; ++i) s += std::exp(row[i] - m);
            for (std::size_t i = 0; i < n; ++i) out[i] = op == "softmax" ? std::exp(row[i] - m) / s : row[i] - m - std::log(s);
        } else if (op == "layer_norm") {
            // deviations from the first pass's mean c, less their own mean: every digit, even where
            // the mean itself has more than long double holds (rows like 1, 1 + ε, 1 + 2ε)
            LD center = 0, shift = 0, var = 0;
            for (std::size_t i = 0; i < n; ++i) center += row[i];
            center /= LD(n);
            for (std::size_t i = 0; i < n; ++i) shift += row[i] - center;
            shift /= LD(n);
            auto deviation = [&](std::size_t i) { return (row[i] - center) - shift; };
            for (std::size_t i = 0; i < n; ++i) var += deviation(i) * deviation(i);
            var /= LD(n);
            for (std::size_t i = 0; i < n; ++i) out[i] = deviation(i) / std::sqrt(var + eps) * w[i] + b[i];
        } else {
            LD ms = 0;
            for (std::size_t i = 0; i < n; ++i) ms += row[i] * row[i];
            ms /= LD(n);
            for (std::size_t i = 0; i < n; ++i) out[i] = row[i] / std::sqrt(ms + eps) * w[i];
        }
    }
    return y;
}

/// Rows of odd lengths — partial registers, every tail — against long
/// double, on the instruction set in force; values offset by 1e3 for the
/// normalisations (their two passes must keep the digits).
template <class T>
void check_ops(rs::arch a) {
    const T rtol = sizeof(T) == 4 ? T(2e-5) : T(1e-12);
    for (std::size_t n : {1, 3, 7, 15, 16, 17, 33, 257, 4099}) {
        for (const std::string op : {"softmax", "log_softmax", "layer_norm", "rms_norm"}) {
            const std::size_t rows = 3;
            std::vector<T> x = random_reals<T>(rows * n, static_cast<unsigned>(n) + 3);
            for (T& v : x) v = std::clamp(v, T(-50), T(50)) + (op == "layer_norm" ? T(1000) : T(0));
            std::vector<T> w = random_reals<T>(n, 7), b = random_reals<T>(n, 8);
            for (T& v : w) v = T(1) + std::clamp(v, T(-1), T(1)) / T(4);
            for (T& v : b) v = std::clamp(v, T(-1), T(1));
            std::vector<T> y(rows * n, T(-7));
            const re::tensor_ref in = matrix_ref(x.data(), rows, n), out = matrix_ref(y.data(), rows, n);
            re::tensor_ref wr = matrix_ref(w.data(), 1, n), br = matrix_ref(b.data(), 1, n);
            wr.shape.rank = br.shape.rank = 1;
            wr.shape.extent[0] = br.shape.extent[0] = n;
            wr.strides[0] = br.strides[0] = 1;
            const double eps = 1e-5;
            if (op == "softmax" || op == "log_softmax") re::softmax(op, in, 1, op == "log_softmax", out);
            else if (op == "layer_norm") re::normalize(op, re::norm::layer, in, 1, &wr, &br, eps, out);
            else re::normalize(op, re::norm::rms, in, 1, &wr, nullptr, eps, out);
            const std::vector<LD> want =
                reference(op, std::vector<LD>(x.begin(), x.end()), rows, n, std::vector<LD>(w.begin(), w.end()),
                          op == "layer_norm" ? std::vector<LD>(b.begin(), b.end()) : std::vector<LD>(n, 0), LD(eps));
            std::size_t failures = 0;
            for (std::size_t i = 0; i < y.size(); ++i) {
                // log_softmax and the normalisations: relative to the row's scale (their results cancel)
                const LD scale = op == "softmax" ? std::abs(want[i]) : std::max<LD>(1, std::abs(want[i]));
                if (!(std::abs(LD(y[i]) - want[i]) <= rtol * scale + (op == "softmax" ? LD(1e-30) : 0)) && failures++ < 5)
                    ADD_FAILURE() << op << " on " << rs::arch_name(a) << ", " << (sizeof(T) == 4 ? "float" : "double")
                                  << ", n = " << n << ", element " << i << ": " << show(y[i]) << ", want "
                                  << show(T(want[i]));
            }
        }
    }
}

/// Rows with special values: NaN or +inf makes the row NaN, a row of −inf
/// is NaN (softmax), −inf entries give 0 (softmax) and −inf (log_softmax);
/// the same on every instruction set and at every position.
template <class T>
void check_special(rs::arch a) {
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    for (std::size_t n : {5, 19, 67}) {
        for (std::size_t at : {std::size_t(0), n / 2, n - 1}) {
            auto row = [&](T special) {
                std::vector<T> v(n, T(0.5));
                v[at] = special;
                return v;
            };
            for (const T special : {nan, inf}) {
                std::vector<T> x = row(special), y(n);
                re::softmax("softmax", matrix_ref(x.data(), 1, n), 1, false, matrix_ref(y.data(), 1, n));
                for (T v : y) EXPECT_TRUE(std::isnan(v)) << "softmax of a row with " << show(special) << " on " << rs::arch_name(a);
                re::normalize("layer_norm", re::norm::layer, matrix_ref(x.data(), 1, n), 1, nullptr, nullptr, 1e-5,
                              matrix_ref(y.data(), 1, n));
                for (T v : y) EXPECT_TRUE(std::isnan(v)) << "layer_norm of a row with " << show(special);
            }
            std::vector<T> x = row(-inf), y(n), z(n);
            re::softmax("softmax", matrix_ref(x.data(), 1, n), 1, false, matrix_ref(y.data(), 1, n));
            re::softmax("log_softmax", matrix_ref(x.data(), 1, n), 1, true, matrix_ref(z.data(), 1, n));
            for (std::size_t i = 0; i < n; ++i) {
                EXPECT_EQ(y[i], i == at ? T(0) : T(1) / T(n - 1)) << rs::arch_name(a) << " n " << n << " at " << i;
                if (i == at) {
                    EXPECT_EQ(z[i], -inf);
                }
            }
            std::vector<T> all(n, -inf);
            re::softmax("softmax", matrix_ref(all.data(), 1, n), 1, false, matrix_ref(y.data(), 1, n));
            for (T v : y) EXPECT_TRUE(std::isnan(v));
        }
    }
    // the subnormal band of e^d (the scalar form's values) and rounding to 0 below it
    const std::vector<T> x = {T(0), T(sizeof(T) == 4 ? -95 : -720), T(sizeof(T) == 4 ? -110 : -760), T(-1)};
    std::vector<T> y(4);
    re::softmax("softmax", matrix_ref(x.data(), 1, 4), 1, false, matrix_ref(y.data(), 1, 4));
    const T s = T(1) / T(LD(1) + std::exp(LD(-1)) + std::exp(LD(x[1])));
    EXPECT_EQ(y[1], std::exp(x[1]) * s) << rs::arch_name(a);
    EXPECT_EQ(y[2], T(0)) << rs::arch_name(a);
}

/// layer_norm and rms_norm of rows at the ends of T's range, where the
/// chunked sums in T would overflow or their squares underflow: the moments
/// stay finite wherever they are (docs/numerics.md), so the results are
/// the long double ones — huge rows (a float row of ±5e18 is ±1, not 0),
/// rows near √max and max/√n, subnormal rows (with eps 0: the variance is
/// then all there is), and huge values mixed with ordinary and tiny ones.
template <class T>
void check_extremes(rs::arch a) {
    using limits = std::numeric_limits<T>;
    const T rtol = sizeof(T) == 4 ? T(2e-5) : T(1e-12);
    const T root_max = std::sqrt(limits::max());
    struct row_case {
        const char* what;
        std::vector<T> x;
    };
    std::vector<row_case> cases;
    for (std::size_t n : {2, 5, 16, 33, 67, 1031}) {
        auto make = [&](const char* what, auto value) {
            std::vector<T> x(n);
            for (std::size_t i = 0; i < n; ++i) x[i] = value(i);
            cases.push_back({what, std::move(x)});
        };
        const T sign[2] = {T(1), T(-1)};
        make("±5e18 (float) / ±1e153 (double)", [&](std::size_t i) { return sign[i % 2] * T(sizeof(T) == 4 ? 5e18 : 1e153); });
        make("±√max", [&](std::size_t i) { return sign[i % 3 == 0] * root_max * T(1 - 0.01 * double(i % 7)); });
        make("±max/√n", [&](std::size_t i) {
            return sign[i % 2] * (limits::max() / std::sqrt(T(n))) * T(1 - 0.001 * double(i % 5));
        });
        make("all max/4", [&](std::size_t) { return limits::max() / T(4); });
        make("huge, ordinary and tiny", [&](std::size_t i) {  // beyond √max in float, just below it in double
            return i % 3 == 0 ? T(sizeof(T) == 4 ? 3 : 0.9) * root_max : i % 3 == 1 ? T(-0.5) : limits::denorm_min() * T(i);
        });
        make("subnormal", [&](std::size_t i) { return limits::denorm_min() * T(1 + i % 11) * sign[i % 2]; });
        make("smallest normal", [&](std::size_t i) { return limits::min() * T(1 + i % 4) * sign[i % 3 == 1]; });
        make("tiny offset by 1", [&](std::size_t i) { return T(1) + limits::epsilon() * T(i % 3); });
    }
    for (const row_case& c : cases) {
        const std::size_t n = c.x.size();
        const std::vector<LD> xl(c.x.begin(), c.x.end()), ones(n, 1), zeros(n, 0);
        for (const double eps : {1e-5, 0.0}) {
            for (const std::string op : {"layer_norm", "rms_norm"}) {
                std::vector<T> y(n, T(-7));
                re::normalize(op, op == "layer_norm" ? re::norm::layer : re::norm::rms, matrix_ref(c.x.data(), 1, n), 1,
                              nullptr, nullptr, eps, matrix_ref(y.data(), 1, n));
                const std::vector<LD> want = reference(op, xl, 1, n, ones, zeros, LD(eps));
                // the documented range: the row's mean square (rms_norm) or variance (layer_norm),
                // plus eps, is a normal double, and the scale 1/√(· + eps) does not overflow T
                LD mean = 0, moment = 0;
                for (LD v : xl) mean += v / LD(n);
                for (LD v : xl) moment += (op == "rms_norm" ? v * v : (v - mean) * (v - mean)) / LD(n);
                const LD spread = moment + LD(eps);
                if (spread < LD(std::numeric_limits<double>::min()) || spread > LD(std::numeric_limits<double>::max()) ||
                    1 / std::sqrt(spread) > LD(limits::max()))
                    continue;
                std::size_t failures = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    if (!std::isfinite(want[i])) {  // a constant row with eps 0: 0/0, as the formula gives
                        EXPECT_TRUE(std::isnan(y[i])) << op << " of a row " << c.what << ": " << show(y[i]);
                        continue;
                    }
                    if (!(std::abs(LD(y[i]) - want[i]) <= rtol * std::max<LD>(1, std::abs(want[i]))) && failures++ < 3)
                        ADD_FAILURE() << op << " of a row " << c.what << " on " << rs::arch_name(a) << ", "
                                      << (sizeof(T) == 4 ? "float" : "double") << ", n = " << n << ", eps " << eps
                                      << ", element " << i << " (" << show(c.x[i]) << "): " << show(y[i]) << ", want "
                                      << show(T(want[i]));
                }
            }
        }
    }
}

}  // namespace rows_check

TEST_P(ElementwiseKernels, RowKernelsKeepTheMomentsFiniteAtTheEndsOfTheRange) {
    rows_check::check_extremes<float>(GetParam());
    rows_check::check_extremes<double>(GetParam());
}
TEST_P(ElementwiseKernels, RowKernelsMatchLongDoubleOnEveryTail) {
    rows_check::check_ops<float>(GetParam());
    rows_check::check_ops<double>(GetParam());
}
TEST_P(ElementwiseKernels, RowKernelsGiveTheSpecialValuesEverywhere) {
    rows_check::check_special<float>(GetParam());
    rows_check::check_special<double>(GetParam());
}

// ---- the scalar forms against std::complex (glibc), special values included -------------

namespace reference_check {

template <class T>
using Z = std::complex<T>;

/// a / b: std::complex for non-finite operands (C99 Annex G), NaN + NaN·i for
/// a zero divisor of finite operands (PyTorch), else the quotient computed in
/// long double and rounded — exact where std::complex<double>'s division
/// (libgcc's __divdc3) gives NaN in a part next to an overflowing one, e.g.
/// 1/(4.9e-324i) = (nan, −inf) instead of (0, −inf).
template <class T>
Z<T> reference_div(Z<T> a, Z<T> b) {
    const bool finite = std::isfinite(a.real()) && std::isfinite(a.imag()) && std::isfinite(b.real()) &&
                        std::isfinite(b.imag());
    if (!finite) return a / b;
    if (b == Z<T>(0)) return {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN()};
    using L = long double;
    const L c = b.real(), d = b.imag(), den = c * c + d * d;
    return {static_cast<T>((a.real() * c + a.imag() * d) / den), static_cast<T>((a.imag() * c - a.real() * d) / den)};
}

/// The scalar form of a unary op against glibc's std::complex: special
/// values exactly (NaN, infinities, signed zeros where specified), finite
/// values within the tolerance.
template <class T, class Form, class Ref>
void unary(const char* name, Form form, Ref ref, bool zero_sign) {
    const auto values = special::parts<T>();
    const tolerance<T> tol;
    std::size_t failures = 0;
    for (T re : values)
        for (T im : values) {
            const auto got = form(rk::cpair<T>{re, im});
            const Z<T> w = ref(Z<T>(re, im));
            const rk::cpair<T> want{w.real(), w.imag()};
            if (!special::agrees(got, want, zero_sign, tol.rtol) && failures++ < 10)
                ADD_FAILURE() << name << (sizeof(T) == 4 ? " float " : " double ") << show(rk::cpair<T>{re, im})
                              << ": the scalar form gives " << show(got) << ", std::complex " << show(want);
        }
}

template <class T>
void every_unary() {
    unary<T>("exp", rk::element<realify::op::exp>{}, [](Z<T> z) { return std::exp(z); }, true);
    unary<T>("log", rk::element<realify::op::log>{}, [](Z<T> z) { return std::log(z); }, true);
    unary<T>("log10", rk::element<realify::op::log10>{}, [](Z<T> z) { return std::log10(z); }, true);
    unary<T>("sqrt", rk::element<realify::op::sqrt>{}, [](Z<T> z) { return std::sqrt(z); }, true);
    unary<T>("sin", rk::element<realify::op::sin>{}, [](Z<T> z) { return std::sin(z); }, true);
    unary<T>("cos", rk::element<realify::op::cos>{}, [](Z<T> z) { return std::cos(z); }, true);
    unary<T>("tan", rk::element<realify::op::tan>{}, [](Z<T> z) { return std::tan(z); }, true);
    unary<T>("sinh", rk::element<realify::op::sinh>{}, [](Z<T> z) { return std::sinh(z); }, true);
    unary<T>("cosh", rk::element<realify::op::cosh>{}, [](Z<T> z) { return std::cosh(z); }, true);
    unary<T>("tanh", rk::element<realify::op::tanh>{}, [](Z<T> z) { return std::tanh(z); }, true);
    unary<T>("asin", rk::element<realify::op::asin>{}, [](Z<T> z) { return std::asin(z); }, true);
    unary<T>("acos", rk::element<realify::op::acos>{}, [](Z<T> z) { return std::acos(z); }, true);
    unary<T>("atan", rk::element<realify::op::atan>{}, [](Z<T> z) { return std::atan(z); }, true);
    unary<T>("asinh", rk::element<realify::op::asinh>{}, [](Z<T> z) { return std::asinh(z); }, true);
    unary<T>("acosh", rk::element<realify::op::acosh>{}, [](Z<T> z) { return std::acosh(z); }, true);
    unary<T>("atanh", rk::element<realify::op::atanh>{}, [](Z<T> z) { return std::atanh(z); }, true);
    // |z| and arg z as pairs (x, 0)
    unary<T>("abs", [](rk::cpair<T> z) { return rk::cpair<T>{rk::element<realify::op::abs>{}(z), T(0)}; },
             [](Z<T> z) { return Z<T>(std::abs(z), T(0)); }, false);
    unary<T>("angle", [](rk::cpair<T> z) { return rk::cpair<T>{rk::element<realify::op::angle>{}(z), T(0)}; },
             [](Z<T> z) { return Z<T>(std::arg(z), T(0)); }, true);
    // z·z: std::complex's operator* recovers infinities (C99 Annex G), the
    // plain formula does not (PyTorch's mul and square): compare the
    // finite-input cases only.
    unary<T>(
        "square",
        [](rk::cpair<T> z) {
            return std::isfinite(z.re) && std::isfinite(z.im) ? rk::element<realify::op::square>{}(z) : rk::cpair<T>{T(0), T(0)};
        },
        [](Z<T> z) { return std::isfinite(z.real()) && std::isfinite(z.imag()) ? z * z : Z<T>(0); }, false);
    // 1/z: a zero gives NaN + NaN·i as PyTorch (std::complex: an infinity).
    unary<T>("reciprocal", rk::element<realify::op::reciprocal>{}, [](Z<T> z) { return reference_div(Z<T>(1), z); },
             false);
    unary<T>("rsqrt", rk::element<realify::op::rsqrt>{},
             [](Z<T> z) {
                 if (!std::isfinite(z.real()) || !std::isfinite(z.imag())) return Z<T>(1) / std::sqrt(z);
                 return reference_div(Z<T>(1), std::sqrt(z));
             },
             false);
}

}  // namespace reference_check

TEST(ElementKernels, FloatScalarFormsEqualStdComplexOnSpecialValues) { reference_check::every_unary<float>(); }
TEST(ElementKernels, DoubleScalarFormsEqualStdComplexOnSpecialValues) { reference_check::every_unary<double>(); }

TEST(ElementKernels, DivisionEqualsStdComplexOnSpecialValues) {
    auto check = []<class T>(T) {
        const auto values = special::binary_parts<T>();
        const tolerance<T> tol;
        std::size_t failures = 0;
        for (T a : values)
            for (T b : values)
                for (T c : values)
                    for (T d : values) {
                        const auto got = rk::element<realify::op::div>{}(rk::cpair<T>{a, b}, rk::cpair<T>{c, d});
                        const auto w = reference_check::reference_div(std::complex<T>(a, b), std::complex<T>(c, d));
                        if (!special::agrees(got, rk::cpair<T>{w.real(), w.imag()}, false, tol.rtol) && failures++ < 10)
                            ADD_FAILURE() << "div " << show(rk::cpair<T>{a, b}) << " / " << show(rk::cpair<T>{c, d})
                                          << ": " << show(got) << ", std::complex " << show(rk::cpair<T>{w.real(), w.imag()});
                    }
    };
    check(0.0f);
    check(0.0);
}

// ---- the subnormal and near-overflow defects, one test each ------------------------------

template <class T>
::testing::AssertionResult near(rk::cpair<T> got, std::complex<T> want) {
    const tolerance<T> tol;
    if (special::agrees(got, rk::cpair<T>{want.real(), want.imag()}, false, tol.rtol)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << show(got) << ", std::complex " << show(rk::cpair<T>{want.real(), want.imag()});
}

/// The scalar form, and every instruction set's kernel on a register's worth
/// of copies of z (so the batch path and its fix-up both run).
template <elementwise_op Op, class T>
void expect_everywhere(rk::cpair<T> z, std::complex<T> want) {
    EXPECT_TRUE(near(rk::element<rs::elementwise_tag_t<Op>>{}(z), want)) << rs::name(Op) << " scalar form";
    for (rs::arch a : {rs::arch::sse2, rs::arch::avx2, rs::arch::avx512}) {
        if (!rs::is_supported(a)) continue;
        const rs::scoped_arch forced(a);
        std::vector<T> x(2 * 19), out(2 * 19);
        for (std::size_t i = 0; i < 19; ++i) {
            x[2 * i] = z.re;
            x[2 * i + 1] = z.im;
        }
        rs::unary_kernel_for<T>(Op, C)(x.data(), out.data(), 19, nullptr, false);
        for (std::size_t i = 0; i < 19; ++i)
            EXPECT_TRUE(near(rk::cpair<T>{out[2 * i], out[2 * i + 1]}, want)) << rs::name(Op) << " on " << rs::arch_name(a);
    }
}

TEST(SubnormalAndNearOverflow, DivisionByASubnormalDivisor) {
    // 1/max(|c|, |d|) overflowed: 1e-39f / 1e-39f gave (inf, nan).
    EXPECT_TRUE(near(rk::element<realify::op::div>{}(rk::cpair<float>{1e-39f, 0}, rk::cpair<float>{1e-39f, 0}),
                     std::complex<float>(1, 0)));
    EXPECT_TRUE(near(rk::element<realify::op::div>{}(rk::cpair<float>{3e-39f, 4e-39f}, rk::cpair<float>{1e-39f, 2e-39f}),
                     std::complex<float>(3e-39f, 4e-39f) / std::complex<float>(1e-39f, 2e-39f)));
    EXPECT_TRUE(near(rk::element<realify::op::div>{}(rk::cpair<double>{1e-310, 1e-310}, rk::cpair<double>{2e-310, 0}),
                     std::complex<double>(0.5, 0.5)));
    // near overflow: c² + d² and the numerator's products would overflow
    EXPECT_TRUE(near(rk::element<realify::op::div>{}(rk::cpair<float>{3e38f, 3e38f}, rk::cpair<float>{2e38f, 1e38f}),
                     std::complex<float>(3e38f, 3e38f) / std::complex<float>(2e38f, 1e38f)));
    for (rs::arch a : {rs::arch::sse2, rs::arch::avx2, rs::arch::avx512}) {
        if (!rs::is_supported(a)) continue;
        const rs::scoped_arch forced(a);
        std::vector<std::complex<float>> x(17, {1e-39f, 0}), out(17);
        rs::elementwise(elementwise_op::div, x, x, out);
        for (const auto& q : out) EXPECT_EQ(q, std::complex<float>(1, 0)) << rs::arch_name(a);
    }
}

TEST(SubnormalAndNearOverflow, ReciprocalOfASubnormal) {
    // gave (inf, nan): the imaginary part is 0·inf
    expect_everywhere<elementwise_op::reciprocal, float>({1e-39f, 0}, std::complex<float>(1) / std::complex<float>(1e-39f, 0));
    expect_everywhere<elementwise_op::reciprocal, double>({1e-310, 2e-310},
                                                          std::complex<double>(1) / std::complex<double>(1e-310, 2e-310));
}

TEST(SubnormalAndNearOverflow, SqrtOfASubnormal) {
    // halving underflowed: sqrt(1.4e-45i) gave (0, inf)
    const float d = std::numeric_limits<float>::denorm_min();
    expect_everywhere<elementwise_op::sqrt, float>({0, d}, std::sqrt(std::complex<float>(0, d)));
    expect_everywhere<elementwise_op::sqrt, float>({-d, d}, std::sqrt(std::complex<float>(-d, d)));
    expect_everywhere<elementwise_op::sqrt, double>({0, std::numeric_limits<double>::denorm_min()},
                                                    std::sqrt(std::complex<double>(0, std::numeric_limits<double>::denorm_min())));
    // near overflow: hypot of the parts overflowed
    expect_everywhere<elementwise_op::sqrt, float>({3e38f, 3e38f}, std::sqrt(std::complex<float>(3e38f, 3e38f)));
}

TEST(SubnormalAndNearOverflow, SqrtDependants) {
    const float d = std::numeric_limits<float>::denorm_min();
    expect_everywhere<elementwise_op::rsqrt, float>({0, d}, std::complex<float>(1) / std::sqrt(std::complex<float>(0, d)));
    expect_everywhere<elementwise_op::asin, float>({1, d}, std::asin(std::complex<float>(1, d)));
    expect_everywhere<elementwise_op::acos, float>({1, d}, std::acos(std::complex<float>(1, d)));
    expect_everywhere<elementwise_op::asinh, float>({d, 1}, std::asinh(std::complex<float>(d, 1)));
    expect_everywhere<elementwise_op::acosh, float>({1, d}, std::acosh(std::complex<float>(1, d)));
}

TEST(SubnormalAndNearOverflow, ScaledHyperbolicBranchKeepsTinyParts) {
    // sin(y)/2 underflowed: sinh(100 + 1.4e-45i) gave (inf, 0), the imaginary part is 0.0188
    const float d = std::numeric_limits<float>::denorm_min();
    expect_everywhere<elementwise_op::sinh, float>({100, d}, std::sinh(std::complex<float>(100, d)));
    expect_everywhere<elementwise_op::cosh, float>({-100, d}, std::cosh(std::complex<float>(-100, d)));
    expect_everywhere<elementwise_op::sin, float>({d, 100}, std::sin(std::complex<float>(d, 100)));
    expect_everywhere<elementwise_op::cos, float>({d, -100}, std::cos(std::complex<float>(d, -100)));
    // e^(x/2)·cos y·e^(x/2) overflowed before the halving: cosh(89 + 0.5i) is finite
    expect_everywhere<elementwise_op::cosh, float>({89, 0.5f}, std::cosh(std::complex<float>(89, 0.5f)));
    // three factors: x beyond 2·log(max) with a subnormal sine
    expect_everywhere<elementwise_op::sinh, double>({1430, 4.9e-324}, std::sinh(std::complex<double>(1430, 4.9e-324)));
}

TEST(SubnormalAndNearOverflow, ExpNearOverflow) {
    // e^89 overflows in float, e^89·sin 0.001 does not: gave (inf, inf), std::complex (inf, 4.49e35)
    expect_everywhere<elementwise_op::exp, float>({89, 0.001f}, std::exp(std::complex<float>(89, 0.001f)));
    expect_everywhere<elementwise_op::exp, float>({100, 1e-20f}, std::exp(std::complex<float>(100, 1e-20f)));
    expect_everywhere<elementwise_op::exp, double>({710, 1e-10}, std::exp(std::complex<double>(710, 1e-10)));
    expect_everywhere<elementwise_op::expm1, float>({89, 0.001f},
                                                    std::exp(std::complex<float>(89, 0.001f)) - std::complex<float>(1));
}

TEST(SubnormalAndNearOverflow, LogOfSubnormals) {
    // |z| of subnormal parts rounds to the subnormal grid: log was ~0.35 off
    const float d = std::numeric_limits<float>::denorm_min();
    expect_everywhere<elementwise_op::log, float>({d, d}, std::log(std::complex<float>(d, d)));
    expect_everywhere<elementwise_op::log, float>({3 * d, -2 * d}, std::log(std::complex<float>(3 * d, -2 * d)));
    expect_everywhere<elementwise_op::log, double>({4.9e-324, 4.9e-324}, std::log(std::complex<double>(4.9e-324, 4.9e-324)));
    // near overflow: hypot overflowed
    expect_everywhere<elementwise_op::log, float>({3e38f, 3e38f}, std::log(std::complex<float>(3e38f, 3e38f)));
    expect_everywhere<elementwise_op::log2, float>({d, d}, std::log(std::complex<float>(d, d)) / std::log(2.0f));
    // sgn = z/|z|: exact directions for subnormal parts too
    expect_everywhere<elementwise_op::sgn, float>({d, d}, std::complex<float>(0.70710678f, 0.70710678f));
    expect_everywhere<elementwise_op::sgn, float>({3e38f, 3e38f}, std::complex<float>(0.70710678f, 0.70710678f));
}

TEST(SubnormalAndNearOverflow, LogOfOneNaNPartIsNaN) {
    // the near-|z| = 1 branch took fmax/fmin of the parts, which drop a NaN:
    // log(NaN + 0.64i) gave a finite real part (C99 Annex G: NaN + NaN·i)
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::complex<float> both_nan(nan, nan);
    expect_everywhere<elementwise_op::log, float>({nan, 0.64f}, both_nan);
    expect_everywhere<elementwise_op::log, float>({-0.9f, nan}, both_nan);
    expect_everywhere<elementwise_op::log10, float>({nan, 0.64f}, both_nan);
    expect_everywhere<elementwise_op::log2, double>({0.7, std::numeric_limits<double>::quiet_NaN()},
                                                    std::complex<double>(nan, nan));
}

// ---- the instruction-set controls under threads -------------------------------------------

TEST(SubnormalAndNearOverflow, Expm1OfASubnormalImaginaryPartIsExact) {
    // sin y came from 2·sin(y/2)·cos(y/2), and y/2 rounds for an odd subnormal
    // y: 323 units gave 324 (found by the libFuzzer target through a sqrt,
    // which turns one unit into a relative error of 1e-3).
    for (double y : {-1.5958320360672263e-321, 3 * std::numeric_limits<double>::denorm_min(), 1e-310}) {
        std::vector<double> x(2 * 9), out(2 * 9);
        for (std::size_t i = 0; i < 9; ++i) {
            x[2 * i] = -0.0;
            x[2 * i + 1] = y;
        }
        for (rs::arch a : {rs::arch::sse2, rs::arch::avx2, rs::arch::avx512}) {
            if (!rs::is_supported(a)) continue;
            const rs::scoped_arch forced(a);
            rs::unary_kernel_for<double>(elementwise_op::expm1, C)(x.data(), out.data(), 9, nullptr, false);
            for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(out[2 * i + 1], y) << rs::arch_name(a) << " y = " << y;
        }
    }
    const float yf = 5 * std::numeric_limits<float>::denorm_min();
    std::vector<float> xf(2 * 17), outf(2 * 17);
    for (std::size_t i = 0; i < 17; ++i) xf[2 * i + 1] = yf;
    rs::unary_kernel_for<float>(elementwise_op::expm1, C)(xf.data(), outf.data(), 17, nullptr, false);
    for (std::size_t i = 0; i < 17; ++i) EXPECT_EQ(outf[2 * i + 1], yf);
}

/// z = (1.03 + 0.42i)·√max: z·z has the parts (1.03² − 0.42²)·max and
/// 2·1.03·0.42·max, both finite, but 1.03²·max alone overflows. The plain
/// formula rounds that product to inf first, so its real part is inf (as
/// std::complex's); a fused multiply-subtract would keep it finite.
template <class T>
rk::cpair<T> square_root_of_max_times(T re, T im) {
    const T r = std::sqrt(std::numeric_limits<T>::max());
    return {re * r, im * r};
}

/// mul: z·z; add and sub with α = z: 0 ± z·z (α·y is mul's formula). On
/// a register's worth of copies, at every instruction set.
template <class T>
void expect_fused_overflow_as_plain_formula() {
    const rk::cpair<T> z = square_root_of_max_times<T>(T(1.03), T(0.42));
    const T alpha[2] = {z.re, z.im};
    constexpr std::size_t n = 19;
    std::vector<T> zeros(2 * n, T(0)), copies(2 * n), out(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        copies[2 * i] = z.re;
        copies[2 * i + 1] = z.im;
    }
    for (elementwise_op op : {elementwise_op::mul, elementwise_op::add, elementwise_op::sub}) {
        const bool mul = op == elementwise_op::mul;
        const T want = (op == elementwise_op::sub ? T(-1) : T(1)) * std::numeric_limits<T>::infinity();
        for (rs::arch a : {rs::arch::sse2, rs::arch::avx2, rs::arch::avx512}) {
            if (!rs::is_supported(a)) continue;
            const rs::scoped_arch forced(a);
            rs::binary_kernel_for<T>(op, C, C)(mul ? copies.data() : zeros.data(), false, copies.data(), false,
                                               out.data(), n, mul ? nullptr : alpha, false);
            for (std::size_t i = 0; i < n; ++i) {
                EXPECT_EQ(out[2 * i], want) << rs::name(op) << " on " << rs::arch_name(a) << ", element " << i;
                EXPECT_TRUE(std::isfinite(out[2 * i + 1])) << rs::name(op) << " on " << rs::arch_name(a);
            }
        }
    }
}

TEST(SubnormalAndNearOverflow, AProductThatOverflowsAloneIsInfiniteOnEveryArch) {
    expect_fused_overflow_as_plain_formula<float>();
    expect_fused_overflow_as_plain_formula<double>();
    // the scalar form, which the kernels' redone lanes use
    const auto z = square_root_of_max_times<double>(1.03, 0.42);
    EXPECT_EQ(rk::element<realify::op::mul>{}(z, z).re, std::numeric_limits<double>::infinity());
}

TEST(SimdArchThreads, OverlappingScopesInTwoThreadsDoNotLeakTheirLevel) {
    // Thread 1 forces sse2, thread 2 then forces another level, thread 1's
    // scope ends first: once both have ended nothing is forced any more.
    const rs::arch before = rs::active_arch_id();
    const rs::arch lowest = realify::test::lowest_supported_level();
    const rs::arch other = rs::is_supported(rs::arch::avx2) ? rs::arch::avx2 : lowest;
    std::optional<rs::scoped_arch> first, second;
    std::thread([&] { first.emplace(lowest); }).join();
    std::thread([&] { second.emplace(other); }).join();
    EXPECT_EQ(rs::active_arch_id(), other);
    std::thread([&] { first.reset(); }).join();
    EXPECT_EQ(rs::active_arch_id(), other);  // the newest live scope
    std::thread([&] { second.reset(); }).join();
    EXPECT_EQ(rs::active_arch_id(), before);
}

TEST(SimdArchThreads, NestedScopesAndForcingInsideAScope) {
    const rs::arch before = rs::active_arch_id();
    const rs::arch lowest = realify::test::lowest_supported_level();
    {
        const rs::scoped_arch outer(lowest);
        EXPECT_EQ(rs::active_arch_id(), lowest);
        if (rs::is_supported(rs::arch::avx2)) {
            rs::force_arch(rs::arch::avx2);  // changes the live scope's level
            EXPECT_EQ(rs::active_arch_id(), rs::arch::avx2);
        }
        {
            const rs::scoped_arch inner(lowest);
            EXPECT_EQ(rs::active_arch_id(), lowest);
        }
        EXPECT_EQ(rs::active_arch_id(), rs::is_supported(rs::arch::avx2) ? rs::arch::avx2 : lowest);
    }
    EXPECT_EQ(rs::active_arch_id(), before);
}

TEST(SimdArchThreads, KernelsRunWhileScopesComeAndGo) {
    const rs::arch before = rs::active_arch_id();
    const auto x = random_reals<double>(2 * 4099, 41);
    std::vector<std::thread> threads;
    std::vector<int> bad(3, 0);
    for (int t = 0; t < 3; ++t)
        threads.emplace_back([&, t] {
            std::vector<double> out(2 * 4099);
            for (int rep = 0; rep < 20; ++rep) {
                const rs::scoped_arch forced(rep % 2 ? realify::test::lowest_supported_level() : rs::best_supported_arch());
                rs::unary_kernel_for<double>(elementwise_op::exp, C)(x.data(), out.data(), 4099, nullptr, false);
                for (std::size_t i = 0; i < 4099; i += 97) {
                    const auto want = rk::element<realify::op::exp>{}(rk::cpair<double>{x[2 * i], x[2 * i + 1]});
                    if (!close(rk::cpair<double>{out[2 * i], out[2 * i + 1]}, want, 1e-12L, 1e-14L)) ++bad[t];
                }
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 3; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
    EXPECT_EQ(rs::active_arch_id(), before) << "no scope leaked its level";
}

}  // namespace
