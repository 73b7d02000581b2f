// Comparing realify's results with an oracle (PyTorch goldens or the
// std::complex reference), with tolerances and special-value rules.
//
// Rules (docs/numerics.md explains them):
// - finite expected value e, result g: both components of g finite and
//   |g - e| <= atol + rtol * |e| (complex magnitudes, i.e. a normwise relative
//   error: a component that is tiny next to the other is not held to a
//   relative accuracy of its own, which no complex algorithm provides).
// - an expected component that is NaN requires NaN there; one that is ±inf
//   requires exactly that inf; the other component, if finite, must then be
//   within atol + rtol * |e_component|.
// - with check_zero_sign (special-value cases), an expected ±0 component that
//   comes out as zero must carry the same sign.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>

#include "realify/errors.hpp"

namespace realify::testing {

struct tolerance {
    double rtol = 0;
    double atol = 0;
    bool check_zero_sign = false;
};

/// The project's default tolerances: float32 rtol 1e-5, atol 1e-6;
/// float64 rtol 1e-12 (atol 1e-14 for results that cancel to near zero).
template <class T>
constexpr tolerance default_tolerance() {
    if constexpr (std::is_same_v<T, float>) {
        return {1e-5, 1e-6, false};
    } else {
        return {1e-12, 1e-14, false};
    }
}

template <class T>
std::string format_value(const T& v) {
    std::ostringstream s;
    s << std::setprecision(std::numeric_limits<double>::max_digits10);
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
        s << "(" << static_cast<double>(v.real()) << (std::signbit(v.imag()) ? " - " : " + ")
          << std::fabs(static_cast<double>(v.imag())) << "i)";  // the sign (also of -0) is printed above
    } else if constexpr (std::is_same_v<T, bool>) {
        s << (v ? "true" : "false");
    } else {
        s << static_cast<double>(v);
    }
    return s.str();
}

/// "(a, b, c)", the text realify's error messages use for shapes.
template <class Shape>
std::string format_shape(const Shape& shape) {
    return realify::detail::format_sequence(shape);
}

/// The multi-index of flat (row-major) position k in shape.
template <class Shape>
std::string format_index(const Shape& shape, std::size_t k) {
    std::vector<std::size_t> index(shape.size());
    for (std::size_t axis = shape.size(); axis-- > 0;) {
        index[axis] = shape[axis] ? k % shape[axis] : 0;
        k = shape[axis] ? k / shape[axis] : 0;
    }
    return format_shape(index);
}

/// An array in full: shape, then every element with its index.
template <class A>
std::string format_array(const A& a) {
    std::ostringstream s;
    s << "shape " << format_shape(a.shape()) << ":";
    for (std::size_t k = 0; k < a.size(); ++k) {
        s << (k % 4 == 0 ? "\n      " : "  ") << format_index(a.shape(), k) << "=" << format_value(a.flat(k));
    }
    return s.str();
}

namespace detail {

inline bool component_ok(double g, double e, const tolerance& tol, std::string& why) {
    if (std::isnan(e)) {
        if (!std::isnan(g)) { why = "expected NaN"; return false; }
        return true;
    }
    if (std::isinf(e)) {
        if (g != e) { why = e > 0 ? "expected +inf" : "expected -inf"; return false; }
        return true;
    }
    if (!std::isfinite(g)) { why = "expected a finite value"; return false; }
    if (std::fabs(g - e) > tol.atol + tol.rtol * std::fabs(e)) { why = "outside tolerance"; return false; }
    if (tol.check_zero_sign && e == 0 && g == 0 && std::signbit(e) != std::signbit(g)) {
        why = "sign of zero differs";
        return false;
    }
    return true;
}

}  // namespace detail

/// Whether one result element matches; `why` says how it does not.
template <class T>
bool element_matches(std::complex<T> got, std::complex<T> expected, const tolerance& tol, std::string& why) {
    const double er = expected.real(), ei = expected.imag();
    const double gr = got.real(), gi = got.imag();
    if (std::isfinite(er) && std::isfinite(ei)) {
        if (!std::isfinite(gr) || !std::isfinite(gi)) { why = "expected a finite value"; return false; }
        const double err = std::hypot(gr - er, gi - ei);
        if (err > tol.atol + tol.rtol * std::hypot(er, ei)) {
            std::ostringstream s;
            s << "outside tolerance: |got - expected| = " << err << ", relative " << err / std::hypot(er, ei);
            why = s.str();
            return false;
        }
        if (tol.check_zero_sign) {
            if ((er == 0 && gr == 0 && std::signbit(er) != std::signbit(gr)) ||
                (ei == 0 && gi == 0 && std::signbit(ei) != std::signbit(gi))) {
                why = "sign of zero differs";
                return false;
            }
        }
        return true;
    }
    // A finite component beside an infinite or NaN one: |expected| gives no
    // scale, so the finite part is compared relative to max(1, |part|). It is
    // typically a cancellation a·c − b·d of products whose own size is the
    // natural scale; an FMA kernel returns the exactly rounded residual
    // (e.g. 1.8e-8) where non-fused arithmetic returns 0 (docs/numerics.md).
    tolerance part_tol = tol;
    part_tol.atol = std::max(tol.atol, tol.rtol);
    std::string w;
    if (!detail::component_ok(gr, er, part_tol, w)) { why = "real part: " + w; return false; }
    if (!detail::component_ok(gi, ei, part_tol, w)) { why = "imag part: " + w; return false; }
    return true;
}

template <class T>
    requires std::is_floating_point_v<T>
bool element_matches(T got, T expected, const tolerance& tol, std::string& why) {
    return detail::component_ok(got, expected, tol, why);
}

inline bool element_matches(bool got, bool expected, const tolerance&, std::string& why) {
    if (got != expected) { why = "boolean differs"; return false; }
    return true;
}

/// Compares a result array with the expected one element by element. On
/// failure the message lists every mismatching element (index, expected,
/// got, reason) and then `context()` — the case's op, parameters and
/// inputs in full.
/// `oracle` (optional, same shape as expected): a second opinion printed
/// next to each mismatch (the std::complex reference beside PyTorch's value).
template <class G, class E>
::testing::AssertionResult arrays_match(const G& got, const E& expected, const tolerance& tol,
                                        const std::function<std::string()>& context, const E* oracle = nullptr) {
    std::ostringstream failure;
    bool ok = true;
    const auto& gs = got.shape();
    const auto& es = expected.shape();
    if (gs.size() != es.size() || !std::equal(gs.begin(), gs.end(), es.begin())) {
        failure << "shape differs: expected " << format_shape(es) << ", got " << format_shape(gs) << "\n";
        ok = false;
    } else {
        std::size_t shown = 0, bad = 0;
        for (std::size_t k = 0; k < expected.size(); ++k) {
            std::string why;
            if (!element_matches(got.flat(k), expected.flat(k), tol, why)) {
                ++bad;
                ok = false;
                if (shown++ < 40) {
                    failure << "  at " << format_index(es, k) << ": expected " << format_value(expected.flat(k));
                    if (oracle) failure << " (std::complex: " << format_value(oracle->flat(k)) << ")";
                    failure << ", got " << format_value(got.flat(k)) << " — " << why << "\n";
                }
            }
        }
        if (bad) failure << "  " << bad << " of " << expected.size() << " elements differ (rtol " << tol.rtol
                         << ", atol " << tol.atol << (tol.check_zero_sign ? ", zero signs checked" : "") << ")\n";
    }
    if (ok) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << failure.str() << context() << "\n  expected: " << format_array(expected)
                                         << "\n  got: " << format_array(got);
}

}  // namespace realify::testing
