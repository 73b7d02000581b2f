// The fuzzer's case generator and runner, shared by the seeded gtest driver
// (test_fuzz.cpp) and the libFuzzer entry point (libfuzzer_main.cpp).
//
// A case is drawn from a `source` of random numbers — a seeded
// std::mt19937_64, or the bytes libFuzzer hands us — so both drivers explore
// the same space: an op family (eager unary / binary, reductions and shape
// ops, graph chains fused and unfused, RoPE, PyTorch's real-tensor ops,
// invalid calls), float or double,
// shapes with broadcasting, operands stored contiguous / transposed / stepped
// (with an offset) / reversed, values from a mix of ordinary numbers and
// special ones (±0, subnormals, the smallest normal, near overflow, huge,
// ±inf, NaN), and an instruction set forced with realify::simd::scoped_arch.
//
// Oracle: std::complex<long double> element loops (realify::reference at
// long double, glibc), rounded to the case's type and compared with the
// documented tolerances and special-value rules (tests/support/complex_compare.hpp,
// docs/numerics.md). Where an element misses it, it still passes if it matches
// the same computation in the case's own type — std::complex<T>, the truth
// for special values and for intermediate overflow — or, for mul/square and
// division by zero, the documented PyTorch semantics (plain formula without
// C99 Annex G recovery; NaN + NaN·i). Those elements are counted, never hidden.
// Invalid calls must throw a realify::error, nothing else.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xcomplex.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xview.hpp>

#include <realify/eager.hpp>
#include <realify/graph.hpp>
#include <realify/realify.hpp>
#include <realify/rope.hpp>
#include <realify/simd/arch.hpp>

#include "../support/complex_compare.hpp"
#include "../support/op_records.hpp"
#include "../support/reference.hpp"
#include "../support/strided_operand.hpp"

namespace realify::fuzz {

using realify::testing::memory_layout;
using realify::testing::strided_operand;
using realify::testing::tolerance;
using shape_t = std::vector<std::size_t>;
using LD = long double;
using CLD = std::complex<LD>;

// ---- the source of randomness ------------------------------------------------------------

/// Random numbers from a seeded engine, or from fuzzer bytes (zeros once the
/// bytes run out, so every input decodes to a case).
class source {
public:
    explicit source(std::uint64_t seed) : m_engine(seed) {}
    source(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size), m_bytes(true) {}

    std::uint64_t next() {
        if (!m_bytes) return m_engine();
        std::uint64_t v = 0;
        const std::size_t n = std::min<std::size_t>(8, m_size - m_pos);
        if (n) std::memcpy(&v, m_data + m_pos, n);
        m_pos += n;
        return v;
    }
    /// 0 … n−1 (0 for n = 0).
    std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    bool chance(double p) { return uniform() < p; }

private:
    std::mt19937_64 m_engine;
    const std::uint8_t* m_data = nullptr;
    std::size_t m_size = 0, m_pos = 0;
    bool m_bytes = false;
};

/// What one case found: empty when it passed.
struct outcome {
    std::string failure;       // the whole report of a failing case
    std::size_t elements = 0;  // result elements compared
    std::size_t own_type = 0;  // elements that matched only the std::complex<T> / documented route
    std::string family;
};

// ---- values ---------------------------------------------------------------------------------

/// One component. `special`: a value mix with ±0, subnormals, the smallest
/// normal, near-overflow, huge, ±inf and NaN; otherwise ordinary values (with
/// exact zeros, small integers and halves, so axes and branch cuts are hit).
template <class T>
T component(source& src, bool special, double scale) {
    using L = std::numeric_limits<T>;
    const double sign = src.chance(0.5) ? -1.0 : 1.0;
    if (special && src.chance(0.35)) {
        switch (src.below(9)) {
            case 0: return static_cast<T>(sign * 0.0);
            case 1: return static_cast<T>(sign) * L::denorm_min() * static_cast<T>(1 + src.below(1000));
            case 2: return static_cast<T>(sign) * L::min();
            case 3: return static_cast<T>(sign) * L::max() * static_cast<T>(0.25 + 0.75 * src.uniform());
            case 4: return static_cast<T>(sign * (std::is_same_v<T, float> ? 1e30 : 1e300) * (1 + src.uniform()));
            case 5: return static_cast<T>(sign) * L::infinity();
            case 6: return L::quiet_NaN();
            case 7: return static_cast<T>(sign * (std::is_same_v<T, float> ? 1e-30 : 1e-300));
            default: return static_cast<T>(sign) * L::min() / static_cast<T>(2);  // largest-ish subnormal
        }
    }
    const double u = src.uniform();
    if (u < 0.04) return static_cast<T>(sign * 0.0);
    if (u < 0.07) return static_cast<T>(static_cast<int>(src.below(7)) - 3);
    if (u < 0.09) return static_cast<T>(sign * 0.5);
    // roughly normal: the sum of three uniforms, centred
    return static_cast<T>(scale * (src.uniform() + src.uniform() + src.uniform() - 1.5) * 2.0);
}

template <class T>
xt::xarray<std::complex<T>> random_complex(source& src, const shape_t& shape, bool special, double scale,
                                           bool nonzero = false) {
    auto a = xt::xarray<std::complex<T>>::from_shape(shape);
    for (auto& z : a) {
        z = {component<T>(src, special, scale), component<T>(src, special, scale)};
        if (nonzero && z == std::complex<T>(0)) z = {T(0.5), z.imag()};
    }
    return a;
}

/// Rank 0..max_rank, extents 1..max_extent (sometimes 0), at most ~200 elements.
inline shape_t random_shape(source& src, std::size_t max_rank = 4, std::size_t max_extent = 6) {
    shape_t shape(src.below(max_rank + 1));
    for (auto& e : shape) e = 1 + src.below(max_extent);
    while (std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>()) > 200) {
        auto it = std::max_element(shape.begin(), shape.end());
        *it = std::max<std::size_t>(1, *it / 2);
    }
    if (!shape.empty() && src.chance(0.03)) shape[src.below(shape.size())] = 0;
    return shape;
}

/// A shape that broadcasts to `out`: a suffix of it with some extents set to 1.
inline shape_t broadcast_operand(source& src, const shape_t& out) {
    const std::size_t drop = src.chance(0.3) ? src.below(out.size() + 1) : 0;
    shape_t shape(out.begin() + static_cast<std::ptrdiff_t>(drop), out.end());
    for (auto& e : shape)
        if (src.chance(0.25)) e = 1;
    return shape;
}

inline memory_layout random_layout(source& src) {
    static constexpr memory_layout layouts[] = {memory_layout::contiguous, memory_layout::transposed,
                                                memory_layout::stepped, memory_layout::reversed};
    return layouts[src.below(4)];
}

/// The instruction sets this machine runs (AVX-512 included when present).
inline std::vector<realify::simd::arch> supported_archs() {
    std::vector<realify::simd::arch> r;
    for (auto a : {realify::simd::arch::sse2, realify::simd::arch::avx2, realify::simd::arch::avx512})
        if (realify::simd::is_supported(a)) r.push_back(a);
    return r;
}

// ---- comparison -------------------------------------------------------------------------------

template <class T>
std::complex<T> round_to(CLD z) {
    return {static_cast<T>(z.real()), static_cast<T>(z.imag())};
}
template <class T>
CLD widen(std::complex<T> z) {
    return {static_cast<LD>(z.real()), static_cast<LD>(z.imag())};
}
inline CLD as_cld(CLD z) { return z; }
inline CLD as_cld(LD x) { return {x, 0}; }
inline CLD as_cld(bool x) { return {x ? LD(1) : LD(0), 0}; }
template <class T>
std::complex<T> as_c(std::complex<T> z) { return z; }
template <class T>
std::complex<T> as_c(T x) { return {x, 0}; }

/// Both components of a result element against the oracles, in order: the
/// long double reference, then (if given) the same in the case's type, then
/// (if given) the documented alternative. 0: no match, 1: first, 2: later.
template <class T>
int match(std::complex<T> got, std::complex<T> primary, const std::optional<std::complex<T>>& own,
          const std::optional<std::complex<T>>& documented, const tolerance& tol, std::string& why) {
    if (realify::testing::element_matches(got, primary, tol, why)) return 1;
    std::string other;
    if (own && realify::testing::element_matches(got, *own, tol, other)) return 2;
    if (documented && realify::testing::element_matches(got, *documented, tol, other)) return 2;
    return 0;
}

/// Tolerance of a case: the documented one; in special-value cases atol is
/// 0 as in the goldens' special cases (plus a few subnormal steps: a
/// subnormal result keeps only the bits it has).
template <class T>
tolerance case_tolerance(bool special, double rtol_scale = 1, double atol_scale = 1) {
    tolerance tol = realify::testing::default_tolerance<T>();
    tol.rtol *= rtol_scale;
    tol.atol = special ? 64 * static_cast<double>(std::numeric_limits<T>::denorm_min()) : tol.atol * atol_scale;
    return tol;
}

/// Collects a case's mismatches and its description.
template <class T>
class checker {
public:
    checker(outcome& out, tolerance tol) : m_out(out), m_tol(tol) {}
    void element(const std::string& where, std::complex<T> got, std::complex<T> primary,
                 std::optional<std::complex<T>> own = std::nullopt,
                 std::optional<std::complex<T>> documented = std::nullopt) {
        ++m_out.elements;
        std::string why;
        const int m = match(got, primary, own, documented, m_tol, why);
        if (m == 2) ++m_out.own_type;
        if (m == 0 && m_bad++ < 12) {
            m_report << "  at " << where << ": expected " << realify::testing::format_value(primary);
            if (own) m_report << " (in the case's type: " << realify::testing::format_value(*own) << ")";
            m_report << ", got " << realify::testing::format_value(got) << " — " << why << "\n";
        }
    }
    void fail(const std::string& what) {
        ++m_bad;
        m_report << "  " << what << "\n";
    }
    bool failed() const { return m_bad != 0; }
    std::string report() const {
        std::ostringstream s;
        s << m_report.str() << "  " << m_bad << " mismatch(es); rtol " << m_tol.rtol << ", atol " << m_tol.atol << "\n";
        return s.str();
    }

private:
    outcome& m_out;
    tolerance m_tol;
    std::ostringstream m_report;
    std::size_t m_bad = 0;
};

template <class A>
std::string describe_values(const char* name, const A& a) {
    return std::string("\n  ") + name + " " + realify::testing::format_array(a);
}

/// Any eager result as xt::xarray<std::complex<T>> (real results as x + 0i).
template <class T, class R>
xt::xarray<std::complex<T>> to_complex_array(const R& r) {
    using D = std::remove_cvref_t<R>;
    if constexpr (realify::is_complex_layout_v<D>) {
        return xt::xarray<std::complex<T>>(realify::to_complex_tensor(r));
    } else {
        const xt::xarray<typename D::value_type> real(r);
        auto c = xt::xarray<std::complex<T>>::from_shape(real.shape());
        for (std::size_t k = 0; k < real.size(); ++k) c.flat(k) = {static_cast<T>(real.flat(k)), T(0)};
        return c;
    }
}

template <class T>
using operand_view = decltype(std::declval<strided_operand<std::complex<T>>&>().view());

// ---- family: eager unary ------------------------------------------------------------------

template <class T>
struct unary_entry {
    std::string name;
    std::function<xt::xarray<std::complex<T>>(operand_view<T>)> run;
    std::function<CLD(CLD)> wide;
    std::function<std::complex<T>(std::complex<T>)> own;
    double sample_scale;    // the op's record (realify/ops/tags.hpp)
    bool singular_at_zero;  // 1/z-like: the documented PyTorch value NaN + NaN·i at 0
    double tolerance;
};

namespace R = realify::reference;

/// The entry of `Tag` when the op takes a complex tensor.
template <class T, class Tag, class Run, class Ref>
void add_unary_entry(std::vector<unary_entry<T>>& table, Run run, Ref ref) {
    if constexpr (realify::testing::has_complex_form<Tag>) {
        table.push_back({std::string(Tag::name),
                         [run](operand_view<T> v) { return to_complex_array<T>(run(realify::complex_layout_of(v))); },
                         [ref](CLD z) { return as_cld(ref(z)); }, [ref](std::complex<T> z) { return as_c<T>(ref(z)); },
                         Tag::record.sample_scale, Tag::record.singular_at_zero, Tag::record.tolerance});
    }
}

/// Every op with unary kernels and a complex form, from the op list.
template <class T>
const std::vector<unary_entry<T>>& unary_table() {
    static const std::vector<unary_entry<T>> table = [] {
        std::vector<unary_entry<T>> t;
#define REALIFY_FUZZ_UNARY(NAME) \
    add_unary_entry<T, realify::op::NAME>(t, [](auto&& x) { return realify::NAME(x); }, [](auto z) { return R::NAME(z); });
        REALIFY_UNARY_KERNEL_OPS(REALIFY_FUZZ_UNARY)
#undef REALIFY_FUZZ_UNARY
        return t;
    }();
    return table;
}

/// a·b with the plain formula, no Annex G recovery (mul's documented
/// semantics), products rounded to T one by one so no contraction applies.
template <class T>
std::complex<T> plain_mul(std::complex<T> a, std::complex<T> b) {
    volatile T ac = a.real() * b.real(), bd = a.imag() * b.imag(), ad = a.real() * b.imag(), bc = a.imag() * b.real();
    return {ac - bd, ad + bc};
}

template <class T>
void unary_case(source& src, outcome& out, std::ostringstream& log) {
    const auto& table = unary_table<T>();
    const unary_entry<T>& e = table[src.below(table.size())];
    const bool special = src.chance(0.5);
    out.family = std::string("unary ") + e.name;
    const auto a = random_complex<T>(src, random_shape(src), special, e.sample_scale);
    std::mt19937_64 layout_rng(src.next());
    strided_operand<std::complex<T>> op(a, random_layout(src), layout_rng);
    log << "\n  op " << e.name << (special ? ", special values" : "") << "\n  a: " << op.describe()
        << describe_values("values", a);
    const auto got = e.run(op.view());
    checker<T> check(out, case_tolerance<T>(special, e.tolerance, e.tolerance));
    if (got.shape() != a.shape()) {
        check.fail("shape differs: " + realify::testing::format_shape(got.shape()));
    } else {
        const std::string name = e.name;
        for (std::size_t k = 0; k < a.size(); ++k) {
            const std::complex<T> z = a.flat(k);
            std::optional<std::complex<T>> documented;
            if (e.singular_at_zero && z == std::complex<T>(0)) documented = std::complex<T>(NAN, NAN);
            if (name == "square") documented = plain_mul(z, z);
            check.element(realify::testing::format_index(a.shape(), k), got.flat(k), round_to<T>(e.wide(widen(z))),
                          e.own(z), documented);
        }
    }
    if (check.failed()) out.failure = check.report() + log.str();
}

// ---- family: eager binary with broadcasting ------------------------------------------------

inline shape_t broadcast_shapes(const shape_t& a, const shape_t& b) {
    shape_t out(std::max(a.size(), b.size()), 1);
    for (std::size_t k = 0; k < out.size(); ++k) {
        const std::size_t ea = k < a.size() ? a[a.size() - 1 - k] : 1, eb = k < b.size() ? b[b.size() - 1 - k] : 1;
        out[out.size() - 1 - k] = ea == 1 ? eb : ea;
    }
    return out;
}

/// One way to call an op with binary kernels on two complex tensors: the
/// op itself, or with PyTorch's alpha (a ± α·b) where the op takes one.
template <class T>
struct binary_entry {
    std::string name;
    bool alpha;
    std::function<xt::xarray<std::complex<T>>(operand_view<T>, operand_view<T>, T)> run;
    std::function<CLD(CLD, CLD, LD)> wide;
    std::function<std::complex<T>(std::complex<T>, std::complex<T>, T)> own;
    double scale_a, scale_b;  // the op's record (realify/ops/tags.hpp)
};

template <class T, class Tag, class Run, class Ref>
void add_binary_entries(std::vector<binary_entry<T>>& table, Run run, Ref ref) {
    if constexpr (realify::testing::binary_has_complex_form<Tag>) {
        const double sa = Tag::record.sample_scale, sb = realify::testing::second_operand_scale<Tag>;
        auto lay = [](operand_view<T> v) { return realify::complex_layout_of(v); };
        table.push_back({std::string(Tag::name), false,
                         [run, lay](operand_view<T> a, operand_view<T> b, T) { return to_complex_array<T>(run(lay(a), lay(b))); },
                         [ref](CLD x, CLD y, LD) { return ref(x, y); },
                         [ref](std::complex<T> x, std::complex<T> y, T) { return ref(x, y); }, sa, sb});
        if constexpr (realify::testing::takes_alpha<Tag>) {
            table.push_back({std::string(Tag::name) + "_alpha", true,
                             [run, lay](operand_view<T> a, operand_view<T> b, T alpha) {
                                 return to_complex_array<T>(run(lay(a), lay(b), alpha));
                             },
                             [ref](CLD x, CLD y, LD alpha) { return ref(x, y, alpha); },
                             [ref](std::complex<T> x, std::complex<T> y, T alpha) { return ref(x, y, alpha); }, sa, sb});
        }
    }
}

/// Every op with binary kernels and complex forms, from the op list.
template <class T>
const std::vector<binary_entry<T>>& binary_table() {
    static const std::vector<binary_entry<T>> table = [] {
        std::vector<binary_entry<T>> t;
#define REALIFY_FUZZ_BINARY(NAME)                                                                 \
    add_binary_entries<T, realify::op::NAME>(t, [](auto&&... a) { return realify::NAME(a...); }, \
                                             [](auto... z) { return R::NAME(z...); });
        REALIFY_BINARY_KERNEL_OPS(REALIFY_FUZZ_BINARY)
#undef REALIFY_FUZZ_BINARY
        return t;
    }();
    return table;
}

template <class T>
void binary_case(source& src, outcome& out, std::ostringstream& log) {
    const auto& table = binary_table<T>();
    const binary_entry<T>& e = table[src.below(table.size())];
    const std::string& name = e.name;
    const bool pow = name == "pow_tensor";
    const bool special = !pow && src.chance(0.5);  // pow: ordinary values (0^w and pow(x, 0) follow PyTorch)
    out.family = "binary " + name;
    const shape_t full = random_shape(src);
    shape_t sa = broadcast_operand(src, full), sb = broadcast_operand(src, full);
    if (src.chance(0.5)) sa = full;
    else sb = full;
    const shape_t shape = broadcast_shapes(sa, sb);
    const auto a = random_complex<T>(src, sa, special, e.scale_a, pow);
    const auto b = random_complex<T>(src, sb, special, e.scale_b);
    const T alpha = static_cast<T>(0.5 + static_cast<double>(src.below(4)));
    std::mt19937_64 layout_rng(src.next());
    strided_operand<std::complex<T>> oa(a, random_layout(src), layout_rng), ob(b, random_layout(src), layout_rng);
    log << "\n  op " << name << (special ? ", special values" : "") << ", alpha " << alpha << "\n  a: " << oa.describe()
        << describe_values("values", a) << "\n  b: " << ob.describe() << describe_values("values", b);
    const xt::xarray<std::complex<T>> got = e.run(oa.view(), ob.view(), alpha);
    checker<T> check(out, case_tolerance<T>(special));
    if (got.shape() != shape) {
        check.fail("shape differs: " + realify::testing::format_shape(got.shape()));
    } else {
        const xt::xarray<std::complex<T>> ba = xt::broadcast(a, shape), bb = xt::broadcast(b, shape);
        for (std::size_t k = 0; k < ba.size(); ++k) {
            const std::complex<T> x = ba.flat(k), y = bb.flat(k);
            // documented (kernels/arithmetic.hpp): mul's plain formula, PyTorch's NaN + NaN·i
            // for a division by 0, α·y by mul's formula with α lifted to α + 0i
            std::optional<std::complex<T>> documented;
            if (name == "mul") documented = plain_mul(x, y);
            if (name == "div" && y == std::complex<T>(0)) documented = std::complex<T>(NAN, NAN);
            if (e.alpha) documented = e.own(x, plain_mul(std::complex<T>(alpha, 0), y), T(1));
            check.element(realify::testing::format_index(shape, k), got.flat(k), round_to<T>(e.wide(widen(x), widen(y), LD(alpha))),
                          e.own(x, y, alpha), documented);
        }
    }
    if (check.failed()) out.failure = check.report() + log.str();
}

// ---- family: PyTorch's real-tensor ops ------------------------------------------------------

/// One op of a real tensor x (any layout) along `dim`, against the same op in
/// long double and in the case's own type (the truth for intermediate
/// overflow): the activations and the ordering ops elementwise, softmax,
/// log_softmax, amax and var along dim, layer_norm and rms_norm over the
/// last dim.
template <class T>
void real_ops_case(source& src, outcome& out, std::ostringstream& log) {
    static const char* const names[] = {"clamp", "maximum", "sigmoid", "silu", "erf", "gelu", "gelu_tanh",
                                        "softmax", "log_softmax", "amax", "var", "layer_norm", "rms_norm"};
    const std::size_t which = src.below(std::size(names));
    const std::string name = names[which];
    const bool special = src.chance(0.4);
    out.family = "real " + name;
    shape_t shape = random_shape(src);
    if (shape.empty()) shape = {1 + src.below(5)};
    const std::size_t rank = shape.size(), dim = which >= 11 ? rank - 1 : src.below(rank);
    xt::xarray<T> a = xt::xarray<T>::from_shape(shape);
    for (auto& v : a) v = component<T>(src, special, 3.0);
    std::mt19937_64 layout_rng(src.next());
    strided_operand<T> op(a, random_layout(src), layout_rng);
    const T lo = T(-1.5), hi = component<T>(src, special, 2.0);
    log << "\n  op " << name << " dim " << dim << (special ? ", special values" : "") << " (lo " << lo << ", hi " << hi
        << ")\n  a: " << op.describe() << describe_values("values", a);
    const auto x = op.view();
    xt::xarray<T> got;
    switch (which) {
        case 0: got = realify::clamp(x, lo, hi); break;
        case 1: got = realify::maximum(x, hi); break;
        case 2: got = realify::sigmoid(x); break;
        case 3: got = realify::silu(x); break;
        case 4: got = realify::erf(x); break;
        case 5: got = realify::gelu(x); break;
        case 6: got = realify::gelu(x, "tanh"); break;
        case 7: got = realify::softmax(x, static_cast<std::ptrdiff_t>(dim)); break;
        case 8: got = realify::log_softmax(x, static_cast<std::ptrdiff_t>(dim)); break;
        case 9: got = a.size() == 0 ? xt::xarray<T>() : xt::xarray<T>(realify::amax(x, {static_cast<std::ptrdiff_t>(dim)}, true)); break;
        case 10: got = realify::var(x, {static_cast<std::ptrdiff_t>(dim)}, 1.0, true); break;
        case 11: got = realify::layer_norm(x, {static_cast<std::ptrdiff_t>(shape.back())}); break;
        default: got = realify::rms_norm(x, {static_cast<std::ptrdiff_t>(shape.back())}, std::nullopt, 1e-6); break;
    }
    if (which == 9 && a.size() == 0) return;  // a maximum of nothing: an error, checked elsewhere
    // the reference, in type W, of the whole tensor (rows along dim for the row ops)
    auto reference = [&]<class W>(W*) {
        const std::size_t n = shape[dim];
        std::size_t inner = 1;
        for (std::size_t d = dim + 1; d < rank; ++d) inner *= shape[d];
        std::size_t outer = 1;
        for (std::size_t d = 0; d < dim; ++d) outer *= shape[d];
        auto at = [&](std::size_t o, std::size_t i, std::size_t j) { return static_cast<W>(a.flat((o * n + i) * inner + j)); };
        const bool reduces = which == 9 || which == 10;
        std::vector<W> r(reduces ? outer * inner : a.size());
        const W sqrt1_2 = W(0.70710678118654752440L), beta = W(0.79788456080286535588L);
        for (std::size_t k = 0; which <= 6 && k < a.size(); ++k) {
            const W v = static_cast<W>(a.flat(k));
            if (which == 0) {  // clamp_max(clamp_min(v, lo), hi): NaN from any operand, x kept on a bound
                const W t = v != v ? v : (v < W(lo) ? W(lo) : v);
                r[k] = t != t || hi != hi ? t + W(hi) : (W(hi) < t ? W(hi) : t);
            } else if (which == 1) {  // IEEE maximum: NaN propagates, +0 above −0
                r[k] = v != v || hi != hi ? v + W(hi) : (v < W(hi) ? W(hi) : (W(hi) < v ? v : (std::signbit(v) ? W(hi) : v)));
            }
            else if (which == 2) r[k] = W(1) / (W(1) + std::exp(-v));
            else if (which == 3) r[k] = v / (W(1) + std::exp(-v));
            else if (which == 4) r[k] = std::erf(v);
            else if (which == 5) r[k] = v * W(0.5) * std::erfc(-(v * sqrt1_2));
            else r[k] = v / (W(1) + std::exp(W(-2) * (beta * (v + W(0.044715) * (v * v * v)))));
        }
        for (std::size_t o = 0; which > 6 && o < outer; ++o)
            for (std::size_t j = 0; j < inner; ++j) {
                W m = -std::numeric_limits<W>::infinity(), sum = 0, sum2 = 0;
                bool nan = false;
                for (std::size_t i = 0; i < n; ++i) {
                    const W v = at(o, i, j);
                    nan = nan || v != v;
                    m = v > m ? v : m;
                    sum += v;
                }
                if (nan) m = std::numeric_limits<W>::quiet_NaN();
                const W mean = sum / W(n);
                for (std::size_t i = 0; i < n; ++i) sum2 += (at(o, i, j) - mean) * (at(o, i, j) - mean);
                W s = 0, squares = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    s += std::exp(at(o, i, j) - m);
                    squares += at(o, i, j) * at(o, i, j);
                }
                if (which == 9) r[o * inner + j] = m;
                if (which == 10) r[o * inner + j] = sum2 / (W(n) - W(1));
                for (std::size_t i = 0; !reduces && i < n; ++i) {
                    const W v = at(o, i, j);
                    W& y = r[(o * n + i) * inner + j];
                    if (which == 7) y = std::exp(v - m) / s;
                    else if (which == 8) y = (v - m) - std::log(s);
                    else if (which == 11) y = (v - mean) / std::sqrt(sum2 / W(n) + W(1e-5));
                    else y = v / std::sqrt(squares / W(n) + W(1e-6));
                }
            }
        return r;
    };
    const std::vector<LD> wide = reference(static_cast<LD*>(nullptr));
    const std::vector<T> own = reference(static_cast<T*>(nullptr));
    // the row ops' results are relative to their rows' scale: log_softmax and the norms cancel
    checker<T> check(out, case_tolerance<T>(special, which >= 7 ? 10 : 1, which >= 7 ? 10 : 1));
    if (got.size() != wide.size()) {
        check.fail("size differs: " + realify::testing::format_shape(got.shape()));
    } else {
        for (std::size_t k = 0; k < wide.size(); ++k)
            check.element(realify::testing::format_index(got.shape(), k), std::complex<T>(got.flat(k)),
                          std::complex<T>(static_cast<T>(wide[k])), std::complex<T>(own[k]));
    }
    if (check.failed()) out.failure = check.report() + log.str();
}

// ---- family: reductions and shape ops ------------------------------------------------------

/// The reference result of a view (flip, transpose) of w: the view itself,
/// or for an empty w only the expected shape — xtensor 0.24's strided views
/// step a null pointer (undefined behaviour) over an empty array.
template <class View>
xt::xarray<std::complex<long double>> view_reference(const xt::xarray<std::complex<long double>>& w, View&& view,
                                                     const shape_t& expected_shape) {
    if (w.size() == 0) return xt::xarray<std::complex<long double>>::from_shape(expected_shape);
    return view(w);
}
inline shape_t permuted(const shape_t& shape, const std::vector<std::size_t>& p) {
    shape_t r(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) r[i] = shape[p[i]];
    return r;
}

/// Σ over axis d, by index loops on the storage: xtensor 0.24's reducers
/// step a null pointer (undefined behaviour) when the array is empty.
inline xt::xarray<std::complex<long double>> sum_axis(const xt::xarray<std::complex<long double>>& w, std::size_t d,
                                                      bool keepdim) {
    shape_t kept(w.shape().begin(), w.shape().end());
    std::size_t outer = 1, inner = 1;
    for (std::size_t k = 0; k < kept.size(); ++k) (k < d ? outer : inner) *= k == d ? 1 : kept[k];
    const std::size_t extent = kept[d];
    kept[d] = 1;
    auto r = xt::xarray<std::complex<long double>>::from_shape(kept);
    std::fill(r.storage().begin(), r.storage().end(), std::complex<long double>(0));
    for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t e = 0; e < extent; ++e)
            for (std::size_t i = 0; i < inner; ++i) r.storage()[o * inner + i] += w.storage()[(o * extent + e) * inner + i];
    if (!keepdim) {
        kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(d));
        r.reshape(kept);
    }
    return r;
}

template <class T>
void shape_case(source& src, outcome& out, std::ostringstream& log) {
    static const char* names[] = {"sum_dim", "mean", "cumsum", "flip", "permute", "transpose"};
    const std::size_t which = src.below(6);
    out.family = std::string("shape ") + names[which];
    const bool special = src.chance(0.3);
    shape_t shape = random_shape(src);
    if (shape.empty()) shape = {1 + src.below(5)};
    const auto a = random_complex<T>(src, shape, special, 2.0);
    std::mt19937_64 layout_rng(src.next());
    strided_operand<std::complex<T>> oa(a, random_layout(src), layout_rng);
    const auto la = realify::complex_layout_of(oa.view());
    const std::size_t rank = shape.size();
    const auto dim = static_cast<std::ptrdiff_t>(src.below(rank)) - (src.chance(0.5) ? static_cast<std::ptrdiff_t>(rank) : 0);
    const std::size_t d = static_cast<std::size_t>(dim < 0 ? dim + static_cast<std::ptrdiff_t>(rank) : dim);
    const bool keepdim = src.chance(0.5);
    std::vector<std::ptrdiff_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), layout_rng);
    const std::size_t d1 = src.below(rank);
    log << "\n  op " << names[which] << (special ? ", special values" : "") << ", dim " << dim << ", keepdim "
        << keepdim << ", perm " << realify::detail::format_sequence(perm) << "\n  a: " << oa.describe()
        << describe_values("values", a);

    // The expected result in long double (reductions) or exactly (shape ops).
    xt::xarray<CLD> wide;
    xt::xarray<std::complex<T>> got;
    bool exact = false, overflow_in_type = false;  // mean: the sum overflows T, not long double
    const xt::xarray<CLD> wa = xt::cast<CLD>(a);
    switch (which) {
        case 0: {
            got = to_complex_array<T>(realify::sum(la, {dim}, keepdim));
            wide = sum_axis(wa, d, keepdim);
            break;
        }
        case 1: {
            got = to_complex_array<T>(realify::mean(la));
            CLD s = 0;
            for (const CLD& z : wa) s += z;
            wide = xt::xarray<CLD>::from_shape(shape_t{});
            wide() = wa.size() ? s / LD(wa.size()) : CLD(NAN, NAN);
            std::complex<T> t = 0;
            for (const auto& z : a) t += z;
            overflow_in_type = !(std::isfinite(t.real()) && std::isfinite(t.imag()));
            break;
        }
        case 2: {
            got = to_complex_array<T>(realify::cumsum(la, dim));
            wide = wa;
            const std::size_t n = shape[d];
            std::size_t inner = 1;
            for (std::size_t k = d + 1; k < rank; ++k) inner *= shape[k];
            for (std::size_t k = 0; k < wide.size(); ++k)
                if ((k / inner) % n) wide.flat(k) += wide.flat(k - inner);
            break;
        }
        case 3:
            exact = true;
            got = to_complex_array<T>(realify::flip(la, {dim}));
            wide = view_reference(wa, [&](const auto& w) { return xt::flip(w, d); }, shape);
            break;
        case 4: {
            exact = true;
            got = to_complex_array<T>(realify::permute(la, perm));
            const std::vector<std::size_t> p(perm.begin(), perm.end());
            wide = view_reference(wa, [&](const auto& w) { return xt::transpose(w, p); }, permuted(shape, p));
            break;
        }
        default: {
            exact = true;
            got = to_complex_array<T>(realify::transpose(la, dim, static_cast<std::ptrdiff_t>(d1)));
            std::vector<std::size_t> p(rank);
            std::iota(p.begin(), p.end(), std::size_t{0});
            std::swap(p[d], p[d1]);
            wide = view_reference(wa, [&](const auto& w) { return xt::transpose(w, p); }, permuted(shape, p));
            break;
        }
    }
    // Reductions: up to ~200 rounded terms (docs/numerics.md: atol × 256, rtol × 8).
    tolerance tol = exact ? tolerance{0, 0, true} : case_tolerance<T>(special, 8, 256);
    checker<T> check(out, tol);
    if (!std::equal(got.shape().begin(), got.shape().end(), wide.shape().begin(), wide.shape().end())) {
        check.fail("shape differs: got " + realify::testing::format_shape(got.shape()) + ", expected " +
                   realify::testing::format_shape(wide.shape()));
    } else {
        for (std::size_t k = 0; k < wide.size(); ++k) {
            const auto want = round_to<T>(wide.flat(k));
            // Sums in the case's type may overflow, or meet inf − inf in another order, where long double does not.
            if (!exact && special && !(std::isfinite(got.flat(k).real()) && std::isfinite(got.flat(k).imag())) &&
                (overflow_in_type || !(std::isfinite(want.real()) && std::isfinite(want.imag())))) {
                // both non-finite: an inf − inf in another summation order is a NaN in this one
                ++out.elements;
                continue;
            }
            check.element(realify::testing::format_index(wide.shape(), k), got.flat(k), want);
        }
    }
    if (check.failed()) out.failure = check.report() + log.str();
}

// ---- family: graph chains (fused, SIMD and table routes) ---------------------------------------

namespace graph = realify::graph;

/// The programs, lowered once per type: a lone multiply (the SIMD row route
/// when the layout fits), a fused chain of four ops, and a chain through a
/// table op (expm1 and a complex division are not fused).
template <class T>
struct graph_programs {
    using C = std::complex<T>;
    // Inputs are made one statement at a time: they bind in creation order.
    static auto make_lone() {
        auto x = graph::input<C>("x");
        auto y = graph::input<C>("y");
        return graph::lower(x * y);
    }
    static auto make_fused() {
        auto x = graph::input<C>("x");
        auto y = graph::input<C>("y");
        auto z = graph::input<C>("z");
        return graph::lower(graph::exp(x * y) + graph::conj(z) * T(0.5));
    }
    static auto make_unfused() {
        auto x = graph::input<C>("x");
        auto y = graph::input<C>("y");
        auto z = graph::input<C>("z");
        return graph::lower(graph::sqrt(graph::expm1(x) / y) - z);
    }
    decltype(make_lone()) lone = make_lone();
    decltype(make_fused()) fused = make_fused();
    decltype(make_unfused()) unfused = make_unfused();
    static const graph_programs& get() {
        static const graph_programs p;
        return p;
    }
};

template <class T>
void graph_case(source& src, outcome& out, std::ostringstream& log) {
    using C = std::complex<T>;
    const std::size_t which = src.below(3);
    static const char* names[] = {"x*y", "exp(x*y) + conj(z)*0.5", "sqrt(expm1(x)/y) - z"};
    out.family = std::string("graph ") + names[which];
    const bool special = src.chance(0.3);
    // Shapes: RoPE-like rows (the SIMD route needs rows of >= 16) or any broadcast.
    shape_t full = random_shape(src, 4, 6);
    if (src.chance(0.4)) full = {1 + src.below(3), 1 + src.below(4), 16 + src.below(20)};
    shape_t sx = full, sy = broadcast_operand(src, full), sz = broadcast_operand(src, full);
    if (src.chance(0.3)) std::swap(sx, sy);
    const shape_t shape = which == 0 ? broadcast_shapes(sx, sy) : broadcast_shapes(broadcast_shapes(sx, sy), sz);
    const double scale = which == 0 ? 2.0 : 0.7;  // exp(x·y): keep |x·y| moderate in ordinary cases
    const auto xa = random_complex<T>(src, sx, special, scale);
    const auto ya = random_complex<T>(src, sy, special, scale, which == 2);
    const auto za = random_complex<T>(src, sz, special, scale);
    const std::size_t form = src.below(4);  // new tensor, out= buffer, in place, strided inputs
    log << "\n  graph " << names[which] << (special ? ", special values" : "") << ", form " << form
        << describe_values("x", xa) << describe_values("y", ya) << describe_values("z", za);

    xt::xarray<C> got;
    auto run = [&](const auto& prog, const auto&... args) {
        if (form != 1) {
            got = prog(args...);
        } else {
            got = xt::xarray<C>::from_shape(shape);
            std::fill(got.begin(), got.end(), C(12345, 12345));
            prog(graph::out(got), args...);
        }
    };
    const auto& p = graph_programs<T>::get();
    std::mt19937_64 layout_rng(src.next());
    if (form == 3) {  // inputs as strided views (copied once by the program)
        strided_operand<C> ox(xa, random_layout(src), layout_rng), oy(ya, random_layout(src), layout_rng),
            oz(za, random_layout(src), layout_rng);
        log << "\n  x: " << ox.describe() << "\n  y: " << oy.describe() << "\n  z: " << oz.describe();
        if (which == 0) run(p.lone, ox.view(), oy.view());
        else if (which == 1) run(p.fused, ox.view(), oy.view(), oz.view());
        else run(p.unfused, ox.view(), oy.view(), oz.view());
    } else if (form == 2 && sx == shape) {  // in place: x is the output
        got = xa;
        if (which == 0) p.lone(graph::out(got), got, ya);
        else if (which == 1) p.fused(graph::out(got), got, ya, za);
        else p.unfused(graph::out(got), got, ya, za);
    } else {
        if (which == 0) run(p.lone, xa, ya);
        else if (which == 1) run(p.fused, xa, ya, za);
        else run(p.unfused, xa, ya, za);
    }
    // The chain's rounding errors compound: each op's tolerance once more.
    const tolerance check_tol = case_tolerance<T>(special, which == 0 ? 1 : 4, which == 0 ? 1 : 4);
    checker<T> check(out, check_tol);
    const shape_t& want_shape = shape;
    if (!std::equal(got.shape().begin(), got.shape().end(), want_shape.begin(), want_shape.end())) {
        check.fail("shape differs: got " + realify::testing::format_shape(got.shape()) + ", expected " +
                   realify::testing::format_shape(want_shape));
    } else {
        const xt::xarray<C> bx = xt::broadcast(xa, want_shape), by = xt::broadcast(ya, want_shape),
                            bz = xt::broadcast(za, want_shape);
        // x·y as realify's compiled multiply rounds it (fused multiply-add on FMA machines): exp of
        // a product with a huge imaginary part is as ill-conditioned as can be (one unit of the
        // product turns cos and sin around), so the chain is also checked from that product.
        const xt::xarray<C> realify_product = which == 1 ? xt::xarray<C>(realify::mul(bx, by)) : xt::xarray<C>();
        for (std::size_t k = 0; k < bx.size(); ++k) {
            const CLD x = widen(bx.flat(k)), y = widen(by.flat(k)), z = widen(bz.flat(k));
            CLD wide;
            std::complex<T> own;
            std::optional<C> documented;
            const C tx = bx.flat(k), ty = by.flat(k), tz = bz.flat(k);
            if (which == 0) {
                wide = x * y;
                own = tx * ty;
                documented = plain_mul(tx, ty);
            } else if (which == 1) {
                wide = std::exp(x * y) + std::conj(z) * LD(0.5);
                own = std::exp(plain_mul(tx, ty)) + std::conj(tz) * T(0.5);
                documented = std::exp(tx * ty) + std::conj(tz) * T(0.5);
                const C product = realify_product.flat(k);
                if (std::isfinite(product.real()) && std::isfinite(product.imag()) && product != plain_mul(tx, ty))
                    documented = std::exp(product) + std::conj(tz) * T(0.5);
            } else {
                wide = std::sqrt(R::expm1(x) / y) - z;
                const C q = R::expm1(tx) / ty;
                own = std::sqrt(q) - tz;
                // The sign of a zero made by arithmetic (the quotient's imaginary part) is not
                // specified (docs/numerics.md); on sqrt's branch cut it picks the side.
                if (q.imag() == 0) documented = std::sqrt(C(q.real(), -q.imag())) - tz;
            }
            const C want = round_to<T>(wide);
            // The chain in T overflows where long double does not (expm1 of a large x, then a division).
            if ((std::isfinite(want.real()) && !std::isfinite(own.real())) ||
                (std::isfinite(want.imag()) && !std::isfinite(own.imag()))) {
                // An intermediate overflow leaves the components it reaches meaningless in T (std::complex<T>
                // gives NaN, realify inf or a finite part): the overflow must show, as a non-finite component.
                const C g = got.flat(k);
                if (!(std::isfinite(g.real()) && std::isfinite(g.imag()))) {
                    ++out.elements;
                    ++out.own_type;
                    continue;
                }
            }
            check.element(realify::testing::format_index(want_shape, k), got.flat(k), want, own, documented);
        }
    }
    if (check.failed()) out.failure = check.report() + log.str();
}

// ---- family: RoPE ---------------------------------------------------------------------------

template <class T>
void rope_case(source& src, outcome& out, std::ostringstream& log) {
    using C = std::complex<T>;
    out.family = "rope";
    const bool special = src.chance(0.3);
    const std::size_t batch = 1 + src.below(2), seq = 1 + src.below(5), kh = 1 + src.below(3);
    const std::size_t qh = kh * (1 + src.below(3));
    const std::size_t head_dim = 2 * (1 + src.below(src.chance(0.5) ? 8 : 40));
    const std::size_t start = src.below(6), end = start + seq + src.below(3);
    const auto layout = src.chance(0.5) ? realify::rope::pair_layout::interleaved : realify::rope::pair_layout::half_split;
    const std::size_t form = src.below(3);  // new tensors, out= into strided views, in place
    xt::xarray<T> xq = xt::real(random_complex<T>(src, {batch, seq, qh, head_dim}, special, 2.0));
    xt::xarray<T> xk = xt::real(random_complex<T>(src, {batch, seq, kh, head_dim}, special, 2.0));
    xt::xtensor<C, 2> freqs = xt::xtensor<C, 2>::from_shape({end, head_dim / 2});
    for (auto& f : freqs) f = std::polar(T(1), component<T>(src, false, 3.0));
    log << "\n  rope (" << batch << ", " << seq << ", " << qh << "/" << kh << ", " << head_dim << "), start_pos "
        << start << ", end " << end << (layout == realify::rope::pair_layout::interleaved ? ", interleaved" : ", half_split")
        << ", form " << form << (special ? ", special values" : "") << describe_values("xq", xq)
        << describe_values("xk", xk);

    xt::xarray<T> gq, gk;
    std::mt19937_64 layout_rng(src.next());
    if (form == 0) {
        auto [q, k] = realify::rope::apply_rotary_emb(xq, xk, freqs, static_cast<std::ptrdiff_t>(start), layout);
        gq = q;
        gk = k;
    } else if (form == 1) {
        const xt::xarray<T> zq = xt::zeros<T>(xq.shape()), zk = xt::zeros<T>(xk.shape());
        strided_operand<T> oq(zq, random_layout(src), layout_rng), ok(zk, random_layout(src), layout_rng);
        log << "\n  out_q: " << oq.describe() << "\n  out_k: " << ok.describe();
        auto vq = oq.view();
        auto vk = ok.view();
        realify::rope::apply_rotary_emb(xq, xk, freqs, static_cast<std::ptrdiff_t>(start), vq, vk, layout);
        gq = vq;
        gk = vk;
    } else {
        gq = xq;
        gk = xk;
        realify::rope::apply_rotary_emb(gq, gk, freqs, static_cast<std::ptrdiff_t>(start), gq, gk, layout);
    }
    const tolerance check_tol = case_tolerance<T>(special);
    checker<T> check(out, check_tol);
    auto verify = [&](const xt::xarray<T>& x, const xt::xarray<T>& g, const char* which) {
        const std::size_t heads = x.shape()[2], half = head_dim / 2;
        for (std::size_t b = 0; b < batch; ++b)
            for (std::size_t s = 0; s < seq; ++s)
                for (std::size_t h = 0; h < heads; ++h)
                    for (std::size_t j = 0; j < half; ++j) {
                        const bool il = layout == realify::rope::pair_layout::interleaved;
                        const std::size_t i0 = il ? 2 * j : j, i1 = il ? 2 * j + 1 : j + half;
                        const C xv(x(b, s, h, i0), x(b, s, h, i1));
                        const C f = freqs(start + s, j);
                        const C gv(g(b, s, h, i0), g(b, s, h, i1));
                        const C want = round_to<T>(widen(xv) * widen(f)), plain = plain_mul(xv, f);
                        // Beside a non-finite part, a finite one is the sum of two products that may cancel:
                        // held to rtol times the products' size (the kernel rounds with FMA).
                        auto part_ok = [&](T g, T w, T p, T size) {
                            if (!std::isfinite(w) || !std::isfinite(p)) return g == w || g == p || (g != g && (w != w || p != p));
                            return std::abs(g - w) <= check_tol.atol + check_tol.rtol * size;
                        };
                        const T re_size = std::abs(xv.real() * f.real()) + std::abs(xv.imag() * f.imag());
                        const T im_size = std::abs(xv.real() * f.imag()) + std::abs(xv.imag() * f.real());
                        if (!(std::isfinite(want.real()) && std::isfinite(want.imag())) &&
                            part_ok(gv.real(), want.real(), plain.real(), re_size) &&
                            part_ok(gv.imag(), want.imag(), plain.imag(), im_size)) {
                            ++out.elements;
                            continue;
                        }
                        std::ostringstream where;
                        where << which << "(" << b << ", " << s << ", " << h << ", pair " << j << ")";
                        check.element(where.str(), gv, want, xv * f, plain);
                    }
    };
    verify(xq, gq, "q");
    verify(xk, gk, "k");
    if (check.failed()) out.failure = check.report() + log.str();
}

// ---- family: invalid calls --------------------------------------------------------------------

/// Runs f, which must throw a realify::error (any subclass); anything else
/// thrown, or nothing, is a failure.
template <class F>
std::string expect_realify_error(const char* what, F&& f) {
    try {
        f();
    } catch (const realify::error&) {
        return {};
    } catch (const std::exception& e) {
        return std::string("  ") + what + ": threw a non-realify exception: " + e.what() + "\n";
    } catch (...) {
        return std::string("  ") + what + ": threw something that is not an exception\n";
    }
    return std::string("  ") + what + ": did not throw\n";
}

template <class T>
void invalid_case(source& src, outcome& out, std::ostringstream& log) {
    using C = std::complex<T>;
    const std::size_t which = src.below(10);
    out.family = "invalid " + std::to_string(which);
    const std::size_t n = 2 + src.below(5);
    const xt::xarray<C> a = random_complex<T>(src, {n, n + 1}, false, 1.0);
    const xt::xarray<C> b = random_complex<T>(src, {n + 2}, false, 1.0);
    const auto la = realify::complex_layout_of(a), lb = realify::complex_layout_of(b);
    const auto huge = std::numeric_limits<std::ptrdiff_t>::max();
    std::string r;
    switch (which) {
        case 0: r = expect_realify_error("mul of (n, n+1) and (n+2)", [&] { (void)realify::mul(la, lb); }); break;
        case 1:
            r = expect_realify_error("reshape to a wrong size", [&] {
                (void)realify::reshape(la, {static_cast<std::ptrdiff_t>(n), static_cast<std::ptrdiff_t>(n)});
            });
            break;
        case 2: r = expect_realify_error("permute with a repeated dim", [&] { (void)realify::permute(la, {0, 0}); }); break;
        case 3:
            r = expect_realify_error("sum over a dim out of range",
                                     [&] { (void)realify::sum(la, {static_cast<std::ptrdiff_t>(2 + src.below(5))}); });
            break;
        case 4:
            r = expect_realify_error("expand to overflowing sizes", [&] {
                (void)realify::expand(la, {huge / 2, huge / 2, static_cast<std::ptrdiff_t>(n), static_cast<std::ptrdiff_t>(n + 1)});
            });
            break;
        case 5:
            r = expect_realify_error("graph out= of the wrong shape", [&] {
                xt::xarray<C> wrong = xt::zeros<C>({n + 1, n});
                graph_programs<T>::get().lone(graph::out(wrong), a, a);
            });
            break;
        case 6: {
            // RoPE: negative start_pos, a table too short, an odd head_dim, q/k mismatch, overlapping outputs.
            xt::xarray<T> xq = xt::zeros<T>({1, 2, 2, 4}), xk = xt::zeros<T>({1, 2, 1, 4});
            const auto freqs = realify::rope::precompute_freqs_cis<T>(4, 3);
            const std::size_t sub = src.below(5);
            if (sub == 0) r = expect_realify_error("rope start_pos < 0", [&] { (void)realify::rope::apply_rotary_emb(xq, xk, freqs, -1); });
            if (sub == 1) r = expect_realify_error("rope start_pos + seq > end", [&] { (void)realify::rope::apply_rotary_emb(xq, xk, freqs, 2); });
            if (sub == 2) {
                xt::xarray<T> odd = xt::zeros<T>({1, 2, 2, 3});
                r = expect_realify_error("rope odd head_dim", [&] { (void)realify::rope::apply_rotary_emb(odd, xk, freqs, 0); });
            }
            if (sub == 3) {
                xt::xarray<T> other = xt::zeros<T>({2, 2, 1, 4});
                r = expect_realify_error("rope batch mismatch", [&] { (void)realify::rope::apply_rotary_emb(xq, other, freqs, 0); });
            }
            if (sub == 4) {
                xt::xarray<T> both = xt::zeros<T>({1, 2, 2, 4});
                auto k_view = xt::view(both, xt::all(), xt::all(), xt::range(0, 1), xt::all());
                r = expect_realify_error("rope out_q overlapping out_k", [&] {
                    realify::rope::apply_rotary_emb(xq, xk, freqs, 0, both, k_view);
                });
            }
            break;
        }
        case 7: {
            // The span form with dims whose products overflow.
            std::vector<T> q(8), k(8), oq(8), okk(8);
            std::vector<C> table(2);
            realify::rope::rope_dims d{huge / 4 + static_cast<std::ptrdiff_t>(src.below(1000)), 4, 2, 1, 4};
            r = expect_realify_error("rope span form with overflowing dims", [&] {
                realify::rope::apply_rotary_emb(d, std::span<const T>(q), std::span<const T>(k),
                                                std::span<const C>(table), 0, std::span<T>(oq), std::span<T>(okk));
            });
            break;
        }
        case 8:
            r = expect_realify_error("precompute_freqs_cis with an overflowing table",
                                     [&] { (void)realify::rope::precompute_freqs_cis<T>(huge - 1, huge / 2); });
            break;
        default:
            r = expect_realify_error("cat of mismatched shapes", [&] {
                const xt::xarray<C> c = random_complex<T>(src, {n + 1, n}, false, 1.0);
                (void)realify::cat(std::vector{la, realify::complex_layout_of(c)}, 0);
            });
            break;
    }
    if (!r.empty()) out.failure = r + log.str();
}

// ---- one case -----------------------------------------------------------------------------------

template <class T>
void run_typed(source& src, outcome& out, std::ostringstream& log) {
    switch (src.below(13)) {
        case 0: case 1: case 2: case 3: unary_case<T>(src, out, log); break;
        case 4: case 5: binary_case<T>(src, out, log); break;
        case 6: shape_case<T>(src, out, log); break;
        case 7: case 8: graph_case<T>(src, out, log); break;
        case 9: case 10: rope_case<T>(src, out, log); break;
        case 11: real_ops_case<T>(src, out, log); break;
        default: invalid_case<T>(src, out, log); break;
    }
}

/// Draws one case from src and runs it at a random instruction set.
/// Unexpected exceptions are failures too.
inline outcome run_case(source& src) {
    outcome out;
    static const std::vector<realify::simd::arch> archs = supported_archs();
    const realify::simd::arch a = archs[src.below(archs.size())];
    const bool is_double = src.chance(0.5);
    std::ostringstream log;
    log << "\n  dtype " << (is_double ? "complex128" : "complex64") << ", instruction set "
        << realify::simd::arch_name(a);
    try {
        const realify::simd::scoped_arch forced(a);
        if (is_double) run_typed<double>(src, out, log);
        else run_typed<float>(src, out, log);
    } catch (const std::exception& e) {
        out.failure = std::string("  unexpected exception: ") + e.what() + "\n" + log.str();
    }
    return out;
}

}  // namespace realify::fuzz
