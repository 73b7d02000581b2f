// Property tests: realify's eager ops against the std::complex oracle
// (realify::reference, xtensor on std::complex for reductions and shape ops)
// on generated cases — rank 0..5, NumPy broadcasting, size-0 extents, inputs
// stored contiguous / transposed / stepped / reversed in memory, float and
// double. Fixed seeds: every case is reproducible from (op, dtype, index),
// and a failing case prints op, dtype, shapes, strides, inputs, expected and
// got in full.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xcomplex.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>

#include <realify/eager.hpp>
#include <realify/realify.hpp>

#include "../support/complex_compare.hpp"
#include "../support/op_records.hpp"
#include "../support/reference.hpp"
#include "../support/strided_operand.hpp"

namespace {

using namespace realify::testing;
namespace R = realify::reference;

template <class T>
using cxarray = xt::xarray<std::complex<T>>;
using shape_t = std::vector<std::size_t>;

constexpr std::uint64_t base_seed = 0x5EED2026;
constexpr int cases_per_op = 100;  // per op and dtype
constexpr int max_failures_printed = 3;

// ---- generation ------------------------------------------------------------------

class case_rng {
public:
    case_rng(const std::string& op, int dtype, int index) {
        std::seed_seq seq{static_cast<std::uint32_t>(base_seed), static_cast<std::uint32_t>(std::hash<std::string>{}(op)),
                          static_cast<std::uint32_t>(dtype), static_cast<std::uint32_t>(index)};
        engine.seed(seq);
    }
    double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(engine); }
    std::size_t below(std::size_t n) { return n ? engine() % n : 0; }
    double normal() { return std::normal_distribution<double>(0.0, 1.0)(engine); }
    std::mt19937_64 engine;
};

/// A random shape: rank 0..max_rank, extents 1..4, sometimes a 0 extent,
/// at most ~128 elements.
shape_t random_shape(case_rng& rng, std::size_t max_rank = 5) {
    shape_t shape(rng.below(max_rank + 1));
    for (auto& e : shape) e = 1 + rng.below(4);
    while (std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>()) > 128) {
        auto it = std::max_element(shape.begin(), shape.end());
        *it = std::max<std::size_t>(1, *it / 2);
    }
    if (!shape.empty() && rng.uniform() < 0.03) shape[rng.below(shape.size())] = 0;
    return shape;
}

/// A shape that broadcasts to `out`: a suffix of it with some extents set to 1.
shape_t broadcast_operand_shape(case_rng& rng, const shape_t& out) {
    const std::size_t drop = rng.uniform() < 0.4 ? rng.below(out.size() + 1) : 0;  // fewer leading dims
    shape_t shape(out.begin() + static_cast<std::ptrdiff_t>(drop), out.end());
    for (auto& e : shape) if (rng.uniform() < 0.3) e = 1;
    return shape;
}

/// NumPy's broadcast of two shapes (they are compatible by construction).
shape_t broadcast_shapes(const shape_t& a, const shape_t& b) {
    shape_t out(std::max(a.size(), b.size()), 1);
    for (std::size_t k = 0; k < out.size(); ++k) {
        const std::size_t ea = k < a.size() ? a[a.size() - 1 - k] : 1, eb = k < b.size() ? b[b.size() - 1 - k] : 1;
        out[out.size() - 1 - k] = ea == 1 ? eb : ea;
    }
    return out;
}

/// One component: mostly normal(0, scale), with exact zeros of both signs,
/// small integers and halves (axes and branch cuts are hit).
double component(case_rng& rng, double scale) {
    const double u = rng.uniform();
    if (u < 0.04) return rng.uniform() < 0.5 ? 0.0 : -0.0;
    if (u < 0.07) return static_cast<double>(static_cast<int>(rng.below(7)) - 3);
    if (u < 0.09) return rng.uniform() < 0.5 ? 0.5 : -0.5;
    return rng.normal() * scale;
}

/// `nonzero`: no element is exactly 0 — for the operands where an op is
/// singular (divisors, pow bases, reciprocal/rsqrt). Division by zero and 0^w
/// follow PyTorch there, not std::complex, and the goldens test them.
template <class T>
cxarray<T> random_complex(case_rng& rng, const shape_t& shape, double scale, bool nonzero = false) {
    cxarray<T> a = cxarray<T>::from_shape(shape);
    for (auto& z : a) {
        z = {static_cast<T>(component(rng, scale)), static_cast<T>(component(rng, scale))};
        if (nonzero && z == std::complex<T>(0)) z = {T(0.5), z.imag()};
    }
    return a;
}

template <class T>
xt::xarray<T> random_real(case_rng& rng, const shape_t& shape, double scale, bool nonzero = false) {
    xt::xarray<T> a = xt::xarray<T>::from_shape(shape);
    for (auto& x : a) {
        x = static_cast<T>(component(rng, scale));
        if (nonzero && x == T(0)) x = T(-0.5);
    }
    return a;
}

memory_layout random_layout(case_rng& rng) {
    static constexpr memory_layout layouts[] = {memory_layout::contiguous, memory_layout::transposed,
                                                memory_layout::stepped, memory_layout::reversed};
    return layouts[rng.below(4)];
}

template <class T>
const char* dtype_name() {
    return std::is_same_v<T, float> ? "complex64" : "complex128";
}

template <class T>
int dtype_index() {
    return std::is_same_v<T, float> ? 0 : 1;
}

// ---- results -----------------------------------------------------------------------

template <class T, class R>
auto evaluate(const R& r) {
    using D = std::remove_cvref_t<R>;
    if constexpr (realify::is_complex_layout_v<D>) {
        return cxarray<T>(realify::to_complex_tensor(r));
    } else {
        using V = typename D::value_type;
        return xt::xarray<V>(r);
    }
}

/// Runs the check of one case, printing it in full on the first failures;
/// every one of the op's cases_per_op cases is checked or skipped (skip()).
class case_log {
public:
    case_log(std::string op, const char* dtype) : m_op(std::move(op)), m_dtype(dtype) {}
    ~case_log() {
        EXPECT_EQ(m_failures, 0) << m_op << " (" << m_dtype << "): " << m_failures << " of " << m_cases
                                 << " generated cases failed";
        EXPECT_EQ(m_cases + m_skipped, cases_per_op) << m_op << " (" << m_dtype << "): cases neither checked nor skipped";
    }
    /// A case outside the op's domain here (the goldens cover it).
    void skip() { ++m_skipped; }
    template <class G, class E>
    void check(int index, const G& got, const E& expected, const tolerance& tol,
               const std::function<std::string()>& operands) {
        ++m_cases;
        auto context = [&] {
            std::ostringstream s;
            s << "\n  property case: op " << m_op << ", dtype " << m_dtype << ", index " << index << " (seed "
              << base_seed << ")" << operands();
            return s.str();
        };
        auto result = arrays_match(got, expected, tol, context);
        if (!result) {
            if (m_failures < max_failures_printed) ADD_FAILURE() << result.message();
            ++m_failures;
        }
    }
    int cases() const { return m_cases; }

private:
    std::string m_op;
    const char* m_dtype;
    int m_cases = 0;
    int m_skipped = 0;
    int m_failures = 0;
};

template <class V>
std::string describe_operand(const char* name, strided_operand<V>& op, const xt::xarray<V>& value) {
    return std::string("\n  ") + name + ": " + op.describe() + "\n    values " + format_array(value);
}

template <class T>
tolerance property_tolerance(double atol_scale = 1.0, double rtol_scale = 1.0) {
    tolerance tol = default_tolerance<T>();
    tol.atol *= atol_scale;
    tol.rtol *= rtol_scale;
    return tol;
}

// ---- elementwise families ----------------------------------------------------------------

/// f(a) vs ref applied to each element.
template <class T, class F, class Ref>
int unary_property(const std::string& name, F f, Ref ref, double scale, bool singular_at_zero, double tolerance) {
    case_log log(name, dtype_name<T>());
    for (int i = 0; i < cases_per_op; ++i) {
        case_rng rng(name, dtype_index<T>(), i);
        const cxarray<T> a = random_complex<T>(rng, random_shape(rng), scale, singular_at_zero);
        strided_operand<std::complex<T>> op(a, random_layout(rng), rng.engine);
        const auto got = evaluate<T>(f(realify::complex_layout_of(op.view())));
        using V = decltype(ref(std::complex<T>{}));
        xt::xarray<V> expected = xt::xarray<V>::from_shape(a.shape());
        for (std::size_t k = 0; k < a.size(); ++k) expected.flat(k) = ref(a.flat(k));
        log.check(i, got, expected, property_tolerance<T>(tolerance, tolerance), [&] { return describe_operand("a", op, a); });
    }
    return log.cases();
}

/// f(a, b) with broadcasting vs ref on the broadcast elements. `real_b`:
/// b is a real tensor (the complex × real capability paths).
template <class T, class F, class Ref>
int binary_property(const std::string& name, F f, Ref ref, double scale_a, double scale_b, bool real_b = false) {
    case_log log(name, dtype_name<T>());
    for (int i = 0; i < cases_per_op; ++i) {
        case_rng rng(name, dtype_index<T>(), i);
        const shape_t full = random_shape(rng);
        // One side has the full shape, the other broadcasts (or both do, sometimes).
        shape_t sa = broadcast_operand_shape(rng, full), sb = broadcast_operand_shape(rng, full);
        const double u = rng.uniform();
        if (u < 0.45) sa = full;
        else if (u < 0.9) sb = full;
        const shape_t out = broadcast_shapes(sa, sb);
        const bool pow_base = name.rfind("pow", 0) == 0, divisor = name.rfind("div", 0) == 0;
        const cxarray<T> a = random_complex<T>(rng, sa, scale_a, pow_base);
        strided_operand<std::complex<T>> opa(a, random_layout(rng), rng.engine);
        if (!real_b) {
            const cxarray<T> b = random_complex<T>(rng, sb, scale_b, divisor);
            strided_operand<std::complex<T>> opb(b, random_layout(rng), rng.engine);
            const auto got = evaluate<T>(f(realify::complex_layout_of(opa.view()), realify::complex_layout_of(opb.view())));
            const cxarray<T> ba = xt::broadcast(a, out), bb = xt::broadcast(b, out);
            cxarray<T> expected = cxarray<T>::from_shape(out);
            for (std::size_t k = 0; k < expected.size(); ++k) expected.flat(k) = ref(ba.flat(k), bb.flat(k));
            log.check(i, got, expected, property_tolerance<T>(),
                      [&] { return describe_operand("a", opa, a) + describe_operand("b", opb, b); });
        } else {
            const xt::xarray<T> b = random_real<T>(rng, sb, scale_b, divisor);
            strided_operand<T> opb(b, random_layout(rng), rng.engine);
            const auto got = evaluate<T>(f(realify::complex_layout_of(opa.view()), opb.view()));
            const cxarray<T> ba = xt::broadcast(a, out);
            const xt::xarray<T> bb = xt::broadcast(b, out);
            cxarray<T> expected = cxarray<T>::from_shape(out);
            for (std::size_t k = 0; k < expected.size(); ++k) expected.flat(k) = ref(ba.flat(k), std::complex<T>(bb.flat(k)));
            log.check(i, got, expected, property_tolerance<T>(),
                      [&] { return describe_operand("a", opa, a) + describe_operand("b (real)", opb, b); });
        }
    }
    return log.cases();
}

/// f(a, s) for a scalar s drawn per case: a complex one, or a real one
/// (passed to the reference as T: a real number is no complex number of
/// zero imaginary part, e.g. add.Scalar moves only the real part).
template <class T, class F, class Ref>
int scalar_property(const std::string& name, F f, Ref ref, bool complex_scalar, double scale) {
    case_log log(name, dtype_name<T>());
    for (int i = 0; i < cases_per_op; ++i) {
        case_rng rng(name, dtype_index<T>(), i);
        const cxarray<T> a = random_complex<T>(rng, random_shape(rng), scale, name.rfind("pow", 0) == 0);
        strided_operand<std::complex<T>> op(a, random_layout(rng), rng.engine);
        std::complex<double> s(component(rng, 2.0), complex_scalar ? component(rng, 2.0) : 0.0);
        if (name.rfind("div", 0) == 0 && s == 0.0) s = 1.5;
        cxarray<T> expected = cxarray<T>::from_shape(a.shape());
        const std::complex<T> st(static_cast<T>(s.real()), static_cast<T>(s.imag()));
        for (std::size_t k = 0; k < a.size(); ++k)
            expected.flat(k) = complex_scalar ? ref(a.flat(k), st) : ref(a.flat(k), st.real());
        auto describe = [&] {
            std::ostringstream m;
            m << describe_operand("a", op, a) << "\n  scalar " << (complex_scalar ? format_value(st) : format_value(st.real()));
            return m.str();
        };
        if (complex_scalar) {
            log.check(i, evaluate<T>(f(realify::complex_layout_of(op.view()), s)), expected, property_tolerance<T>(), describe);
        } else {
            log.check(i, evaluate<T>(f(realify::complex_layout_of(op.view()), s.real())), expected, property_tolerance<T>(),
                      describe);
        }
    }
    return log.cases();
}

// ---- the tests -----------------------------------------------------------------------

/// The op `Tag` against its reference, with its record's sample scale,
/// domain and tolerance; nothing for an op without a complex form.
template <class T, class Tag, class F, class Ref>
int unary_property_of(F f, Ref ref) {
    if constexpr (has_complex_form<Tag>) {
        constexpr auto rec = Tag::record;
        return unary_property<T>(std::string(Tag::name), f, ref, rec.sample_scale, rec.singular_at_zero, rec.tolerance);
    } else {
        return 0;
    }
}

template <class T>
int run_unary_family() {
    int total = 0;
    // every op with unary kernels, from the op list
#define UNARY_PROP(NAME) \
    total += unary_property_of<T, realify::op::NAME>([](auto&& a) { return realify::NAME(a); }, [](auto z) { return R::NAME(z); });
    REALIFY_UNARY_KERNEL_OPS(UNARY_PROP)
#undef UNARY_PROP
    // the two predicates, which have no kernels (bool results)
    total += unary_property<T>("isnan", [](auto&& a) { return realify::isnan(a); }, [](std::complex<T> z) { return R::isnan(z); },
                               realify::op::isnan::record.sample_scale, false, 1.0);
    total += unary_property<T>("isinf", [](auto&& a) { return realify::isinf(a); }, [](std::complex<T> z) { return R::isinf(z); },
                               realify::op::isinf::record.sample_scale, false, 1.0);
    return total;
}

TEST(property, unary_elementwise_ops_match_std_complex) {
    const int n = run_unary_family<float>() + run_unary_family<double>();
    EXPECT_EQ(n, 2 * int(unary_kernel_ops_with_complex_form + 2) * cases_per_op);
}

/// The op `Tag` with binary kernels against its reference: complex × complex,
/// complex × real tensor (the real tensor broadcasts over complex elements
/// only), and with alpha where the op takes one; nothing for an op of real
/// operands only (maximum, clamp_min: the golden and eager suites).
template <class T, class Tag, class F, class Ref>
int binary_property_of(F f, Ref ref) {
    if constexpr (binary_has_complex_form<Tag>) {
        const std::string name(Tag::name);
        const double scale_a = Tag::record.sample_scale, scale_b = second_operand_scale<Tag>;
        int n = binary_property<T>(name, f, ref, scale_a, scale_b) +
                binary_property<T>(name + "_real_tensor", f, ref, scale_a, scale_b, true);
        if constexpr (takes_alpha<Tag>) {
            n += binary_property<T>(
                name + "_alpha", [f](auto&& a, auto&& b) { return f(a, b, 0.75); },
                [ref](auto a, auto b) { return ref(a, b, T(0.75)); }, scale_a, scale_b);
        }
        return n;
    } else {
        return 0;
    }
}

template <class T>
int run_binary_family() {
    int total = 0;
    // every op with binary kernels, from the op list
#define BINARY_PROP(NAME)                                                                                     \
    total += binary_property_of<T, realify::op::NAME>([](auto&&... a) { return realify::NAME(a...); },       \
                                                      [](auto... z) { return R::NAME(z...); });
    REALIFY_BINARY_KERNEL_OPS(BINARY_PROP)
#undef BINARY_PROP
    return total;
}

TEST(property, binary_elementwise_ops_broadcast_and_match_std_complex) {
    const int n = run_binary_family<float>() + run_binary_family<double>();
    // each op: complex × complex and × real tensor, and with alpha where it takes one
    EXPECT_EQ(n, 2 * int(2 * binary_kernel_ops_with_complex_form + binary_kernel_ops_with_alpha) * cases_per_op);
}

/// The tensor-number op `Tag` against its reference, with a real number and
/// with a complex one.
template <class T, class Tag, class F, class Ref>
int scalar_property_of(F f, Ref ref) {
    const std::string name(Tag::name);
    const double scale = Tag::record.sample_scale;
    return scalar_property<T>(name + "_real", f, ref, false, scale) + scalar_property<T>(name + "_complex", f, ref, true, scale);
}

template <class T>
int run_scalar_family() {
    int total = 0;
    // every tensor-number op, from the op list
#define SCALAR_PROP(NAME) \
    total += scalar_property_of<T, realify::op::NAME>([](auto&& a, auto s) { return realify::NAME(a, s); }, \
                                                      [](auto a, auto s) { return R::NAME(a, s); });
    REALIFY_SCALAR_OPS(SCALAR_PROP)
#undef SCALAR_PROP
    return total;
}

TEST(property, tensor_scalar_ops_match_std_complex) {
    const int n = run_scalar_family<float>() + run_scalar_family<double>();
    EXPECT_EQ(n, 2 * 2 * int(scalar_op_count) * cases_per_op);
}

template <class T>
int run_polar_where() {
    int total = 0;
    {
        case_log log("polar", dtype_name<T>());
        for (int i = 0; i < cases_per_op; ++i) {
            case_rng rng("polar", dtype_index<T>(), i);
            const shape_t out = random_shape(rng);
            const shape_t sr = rng.uniform() < 0.5 ? out : broadcast_operand_shape(rng, out);
            const shape_t st = sr == out ? broadcast_operand_shape(rng, out) : out;
            const xt::xarray<T> r = xt::abs(random_real<T>(rng, sr, 2.0)), t = random_real<T>(rng, st, 3.0);
            strided_operand<T> opr(r, random_layout(rng), rng.engine), opt(t, random_layout(rng), rng.engine);
            const auto got = evaluate<T>(realify::polar(opr.view(), opt.view()));
            const xt::xarray<T> br = xt::broadcast(r, out), bt = xt::broadcast(t, out);
            cxarray<T> expected = cxarray<T>::from_shape(out);
            for (std::size_t k = 0; k < expected.size(); ++k) expected.flat(k) = R::polar(br.flat(k), bt.flat(k));
            log.check(i, got, expected, property_tolerance<T>(),
                      [&] { return describe_operand("abs", opr, r) + describe_operand("angle", opt, t); });
        }
        total += log.cases();
    }
    {
        case_log log("where", dtype_name<T>());
        for (int i = 0; i < cases_per_op; ++i) {
            case_rng rng("where", dtype_index<T>(), i);
            const shape_t out = random_shape(rng);
            xt::xarray<bool> cond = xt::xarray<bool>::from_shape(broadcast_operand_shape(rng, out));
            for (auto&& b : cond) b = rng.uniform() < 0.5;
            const cxarray<T> a = random_complex<T>(rng, broadcast_operand_shape(rng, out), 2.0);
            const cxarray<T> b = random_complex<T>(rng, out, 2.0);
            strided_operand<std::complex<T>> opa(a, random_layout(rng), rng.engine), opb(b, random_layout(rng), rng.engine);
            const auto got = evaluate<T>(realify::where(cond, realify::complex_layout_of(opa.view()),
                                                        realify::complex_layout_of(opb.view())));
            const xt::xarray<bool> bc = xt::broadcast(cond, out);
            const cxarray<T> ba = xt::broadcast(a, out);
            cxarray<T> expected = cxarray<T>::from_shape(out);
            for (std::size_t k = 0; k < expected.size(); ++k) expected.flat(k) = bc.flat(k) ? ba.flat(k) : b.flat(k);
            log.check(i, got, expected, property_tolerance<T>(), [&] {
                return "\n  cond " + format_array(cond) + describe_operand("a", opa, a) + describe_operand("b", opb, b);
            });
        }
        total += log.cases();
    }
    return total;
}

TEST(property, polar_and_where_match_reference) {
    // each op's cases are counted by its case_log
    EXPECT_GT(run_polar_where<float>() + run_polar_where<double>(), 0);
}

// ---- reductions and shape ops: std::complex loops and xtensor views are the reference -----

std::size_t normalize_dim(std::ptrdiff_t d, std::size_t rank) {
    return static_cast<std::size_t>(d < 0 ? d + static_cast<std::ptrdiff_t>(rank) : d);
}

/// Distinct random dims of a rank-`rank` tensor, some written negative.
std::vector<std::ptrdiff_t> random_dims(case_rng& rng, std::size_t rank, std::size_t count) {
    std::vector<std::ptrdiff_t> all(rank);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng.engine);
    all.resize(std::min(count, rank));
    for (auto& d : all) if (rng.uniform() < 0.3) d -= static_cast<std::ptrdiff_t>(rank);
    return all;
}

/// Reduction reference with std::complex loops (xtensor's reducers hit
/// undefined behaviour on size-0 inputs): folds `a` over the sorted `axes`
/// with `op` from `init`; the result has the reduced axes removed.
template <class T, class Op>
cxarray<T> reduce_reference(const cxarray<T>& a, const std::vector<std::size_t>& axes, std::complex<T> init, Op op) {
    const std::size_t rank = a.dimension();
    shape_t out_shape;
    std::vector<bool> reduced(rank, false);
    for (auto ax : axes) reduced[ax] = true;
    for (std::size_t d = 0; d < rank; ++d) if (!reduced[d]) out_shape.push_back(a.shape()[d]);
    cxarray<T> out = cxarray<T>::from_shape(out_shape);
    std::fill(out.begin(), out.end(), init);
    for (std::size_t k = 0; k < a.size(); ++k) {
        std::size_t rest = k, out_index = 0, out_stride = 1;
        for (std::size_t d = rank; d-- > 0;) {
            const std::size_t i = rest % a.shape()[d];
            rest /= a.shape()[d];
            if (!reduced[d]) {
                out_index += i * out_stride;
                out_stride *= a.shape()[d];
            }
        }
        out.flat(out_index) = op(out.flat(out_index), a.flat(k));
    }
    return out;
}

template <class T>
std::vector<std::size_t> all_axes(const cxarray<T>& a) {
    std::vector<std::size_t> axes(a.dimension());
    std::iota(axes.begin(), axes.end(), std::size_t{0});
    return axes;
}

template <class T>
cxarray<T> sum_reference(const cxarray<T>& a, const std::vector<std::size_t>& axes) {
    return reduce_reference<T>(a, axes, std::complex<T>(0), std::plus<>());
}

template <class T>
cxarray<T> mean_reference(const cxarray<T>& a, const std::vector<std::size_t>& axes) {
    std::size_t count = 1;
    for (auto ax : axes) count *= a.shape()[ax];
    cxarray<T> s = sum_reference<T>(a, axes);
    for (auto& z : s) z /= static_cast<T>(count);
    return s;
}

/// Running sums along `axis`.
template <class T>
cxarray<T> cumsum_reference(const cxarray<T>& a, std::size_t axis) {
    cxarray<T> out = a;
    std::size_t inner = 1;
    for (std::size_t d = axis + 1; d < a.dimension(); ++d) inner *= a.shape()[d];
    const std::size_t n = a.shape()[axis];
    for (std::size_t k = 0; k < out.size(); ++k) {
        if ((k / inner) % n != 0) out.flat(k) += out.flat(k - inner);
    }
    return out;
}

/// xt::transpose, except for size-0 arrays (xtensor 0.24 steps a null pointer there).
template <class T>
cxarray<T> transpose_reference(const cxarray<T>& a, const std::vector<std::size_t>& perm) {
    if (a.size() != 0) return xt::transpose(a, perm);
    shape_t shape;
    for (auto p : perm) shape.push_back(a.shape()[p]);
    return cxarray<T>::from_shape(shape);
}

template <class T, class Shape>
cxarray<T> keep_dims(const cxarray<T>& reduced, const Shape& in_shape, const std::vector<std::size_t>& axes) {
    shape_t kept(in_shape.begin(), in_shape.end());
    for (auto ax : axes) kept[ax] = 1;
    cxarray<T> r = reduced;
    r.reshape(kept);
    return r;
}

template <class T>
int run_reduction_family() {
    int total = 0;
    auto reduction = [&](const std::string& name, auto body) {
        case_log log(name, dtype_name<T>());
        for (int i = 0; i < cases_per_op; ++i) {
            case_rng rng(name, dtype_index<T>(), i);
            shape_t shape = random_shape(rng);
            if (name != "sum" && name != "mean" && shape.empty()) shape.push_back(1 + rng.below(3));
            const cxarray<T> a = random_complex<T>(rng, shape, 2.0);
            strided_operand<std::complex<T>> op(a, random_layout(rng), rng.engine);
            body(log, i, rng, a, op);
        }
        total += log.cases();
    };
    // Accumulations of up to ~128 terms of size ~2: allow their rounding.
    const tolerance tol = property_tolerance<T>(256.0, 8.0);
    auto describe = [](auto& op, const auto& a, std::string extra) {
        return [&op, &a, extra] { return describe_operand("a", op, a) + "\n  " + extra; };
    };

    reduction("sum", [&](case_log& log, int i, case_rng&, const cxarray<T>& a, auto& op) {
        const cxarray<T> expected = sum_reference<T>(a, all_axes(a));
        log.check(i, evaluate<T>(realify::sum(realify::complex_layout_of(op.view()))), expected, tol, describe(op, a, ""));
    });
    reduction("mean", [&](case_log& log, int i, case_rng&, const cxarray<T>& a, auto& op) {
        if (a.size() == 0) return log.skip();  // NaN by definition; the golden covers it
        const cxarray<T> expected = mean_reference<T>(a, all_axes(a));
        log.check(i, evaluate<T>(realify::mean(realify::complex_layout_of(op.view()))), expected, tol, describe(op, a, ""));
    });
    reduction("sum_dim", [&](case_log& log, int i, case_rng& rng, const cxarray<T>& a, auto& op) {
        const auto dims = random_dims(rng, a.dimension(), 1 + rng.below(a.dimension()));
        const bool keep = rng.uniform() < 0.5;
        std::vector<std::size_t> axes;
        for (auto d : dims) axes.push_back(normalize_dim(d, a.dimension()));
        std::sort(axes.begin(), axes.end());  // xtensor's reducers want sorted axes
        cxarray<T> expected = sum_reference<T>(a, axes);
        if (keep) expected = keep_dims(expected, a.shape(), axes);
        std::ostringstream m;
        m << "dims " << format_shape(dims) << " keepdim " << keep;
        log.check(i, evaluate<T>(realify::sum(realify::complex_layout_of(op.view()), dims, keep)), expected, tol,
                  describe(op, a, m.str()));
    });
    reduction("mean_dim", [&](case_log& log, int i, case_rng& rng, const cxarray<T>& a, auto& op) {
        if (a.size() == 0) return log.skip();
        const auto dims = random_dims(rng, a.dimension(), 1 + rng.below(a.dimension()));
        const bool keep = rng.uniform() < 0.5;
        std::vector<std::size_t> axes;
        for (auto d : dims) axes.push_back(normalize_dim(d, a.dimension()));
        std::sort(axes.begin(), axes.end());
        cxarray<T> expected = mean_reference<T>(a, axes);
        if (keep) expected = keep_dims(expected, a.shape(), axes);
        std::ostringstream m;
        m << "dims " << format_shape(dims) << " keepdim " << keep;
        log.check(i, evaluate<T>(realify::mean(realify::complex_layout_of(op.view()), dims, keep)), expected, tol,
                  describe(op, a, m.str()));
    });
    reduction("prod_dim", [&](case_log& log, int i, case_rng& rng, const cxarray<T>& a, auto& op) {
        const auto d = random_dims(rng, a.dimension(), 1).at(0);
        const bool keep = rng.uniform() < 0.5;
        const std::size_t axis = normalize_dim(d, a.dimension());
        // The complex product, element by element with std::complex.
        cxarray<T> expected = reduce_reference<T>(a, {axis}, std::complex<T>(1), std::multiplies<>());
        if (keep) expected = keep_dims(expected, a.shape(), {axis});
        std::ostringstream m;
        m << "dim " << d << " keepdim " << keep;
        log.check(i, evaluate<T>(realify::prod(realify::complex_layout_of(op.view()), d, keep)), expected, tol,
                  describe(op, a, m.str()));
    });
    reduction("cumsum", [&](case_log& log, int i, case_rng& rng, const cxarray<T>& a, auto& op) {
        const auto d = random_dims(rng, a.dimension(), 1).at(0);
        const cxarray<T> expected = cumsum_reference<T>(a, normalize_dim(d, a.dimension()));
        log.check(i, evaluate<T>(realify::cumsum(realify::complex_layout_of(op.view()), d)), expected, tol,
                  describe(op, a, "dim " + std::to_string(d)));
    });
    reduction("permute", [&](case_log& log, int i, case_rng& rng, const cxarray<T>& a, auto& op) {
        auto dims = random_dims(rng, a.dimension(), a.dimension());
        std::vector<std::size_t> perm;
        for (auto d : dims) perm.push_back(normalize_dim(d, a.dimension()));
        const cxarray<T> expected = transpose_reference<T>(a, perm);
        log.check(i, evaluate<T>(realify::permute(realify::complex_layout_of(op.view()), dims)), expected, tolerance{},
                  describe(op, a, "dims " + format_shape(dims)));
    });
    reduction("transpose", [&](case_log& log, int i, case_rng& rng, const cxarray<T>& a, auto& op) {
        const auto d0 = random_dims(rng, a.dimension(), 1).at(0), d1 = random_dims(rng, a.dimension(), 1).at(0);
        std::vector<std::size_t> perm(a.dimension());
        std::iota(perm.begin(), perm.end(), std::size_t{0});
        std::swap(perm[normalize_dim(d0, a.dimension())], perm[normalize_dim(d1, a.dimension())]);
        const cxarray<T> expected = transpose_reference<T>(a, perm);
        log.check(i, evaluate<T>(realify::transpose(realify::complex_layout_of(op.view()), d0, d1)), expected,
                  tolerance{}, describe(op, a, "dims " + std::to_string(d0) + ", " + std::to_string(d1)));
    });
    reduction("flip", [&](case_log& log, int i, case_rng& rng, const cxarray<T>& a, auto& op) {
        const auto dims = random_dims(rng, a.dimension(), rng.below(a.dimension() + 1));
        cxarray<T> expected = a;
        // xt::flip of a size-0 array is undefined behaviour in xtensor 0.24 (null data + offset).
        if (a.size() != 0)
            for (auto d : dims) expected = xt::flip(expected, normalize_dim(d, a.dimension()));
        log.check(i, evaluate<T>(realify::flip(realify::complex_layout_of(op.view()), dims)), expected, tolerance{},
                  describe(op, a, "dims " + format_shape(dims)));
    });
    return total;
}

TEST(property, reductions_and_shape_ops_match_xtensor_on_std_complex) {
    // each op's cases are counted by its case_log (mean/mean_dim skip their few empty ones)
    EXPECT_GT(run_reduction_family<float>() + run_reduction_family<double>(), 0);
}

// ---- linear algebra: std::complex triple loops are the reference ------------------------

/// torch.matmul semantics: 1-D operands are promoted (and the added dim
/// dropped again), batch dims broadcast.
template <class T>
cxarray<T> matmul_reference(const cxarray<T>& a, const cxarray<T>& b) {
    shape_t sa(a.shape().begin(), a.shape().end()), sb(b.shape().begin(), b.shape().end());
    const bool a_vector = sa.size() == 1, b_vector = sb.size() == 1;
    if (a_vector) sa.insert(sa.begin(), 1);
    if (b_vector) sb.push_back(1);
    const std::size_t n = sa[sa.size() - 2], k = sa.back(), m = sb.back();
    const shape_t batch = broadcast_shapes(shape_t(sa.begin(), sa.end() - 2), shape_t(sb.begin(), sb.end() - 2));
    shape_t full_a = batch, full_b = batch, out = batch;
    full_a.insert(full_a.end(), {n, k});
    full_b.insert(full_b.end(), {k, m});
    out.insert(out.end(), {n, m});
    cxarray<T> ra = a, rb = b;
    ra.reshape(sa);
    rb.reshape(sb);
    const cxarray<T> A = xt::broadcast(ra, full_a), B = xt::broadcast(rb, full_b);
    cxarray<T> c = cxarray<T>::from_shape(out);
    const std::size_t batches = std::accumulate(batch.begin(), batch.end(), std::size_t{1}, std::multiplies<>());
    for (std::size_t q = 0; q < batches; ++q)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < m; ++j) {
                std::complex<T> acc(0);
                for (std::size_t p = 0; p < k; ++p) acc += A.flat((q * n + i) * k + p) * B.flat((q * k + p) * m + j);
                c.flat((q * n + i) * m + j) = acc;
            }
    shape_t final_shape = batch;
    if (!a_vector) final_shape.push_back(n);
    if (!b_vector) final_shape.push_back(m);
    c.reshape(final_shape);
    return c;
}

template <class T>
int run_linalg_family() {
    int total = 0;
    const tolerance tol = property_tolerance<T>(256.0, 8.0);  // sums of up to 4 products
    auto family = [&](const std::string& name, auto make_shapes, auto call) {
        case_log log(name, dtype_name<T>());
        for (int i = 0; i < cases_per_op; ++i) {
            case_rng rng(name, dtype_index<T>(), i);
            auto extent = [&] { return rng.uniform() < 0.05 ? std::size_t{0} : 1 + rng.below(4); };
            const auto [sa, sb] = make_shapes(rng, extent);
            const cxarray<T> a = random_complex<T>(rng, sa, 1.0), b = random_complex<T>(rng, sb, 1.0);
            strided_operand<std::complex<T>> opa(a, random_layout(rng), rng.engine), opb(b, random_layout(rng), rng.engine);
            cxarray<T> expected = matmul_reference<T>(name == "vdot" ? cxarray<T>(xt::conj(a)) : a, b);
            const auto got = evaluate<T>(call(realify::complex_layout_of(opa.view()), realify::complex_layout_of(opb.view())));
            log.check(i, got, expected, tol, [&] { return describe_operand("a", opa, a) + describe_operand("b", opb, b); });
        }
        total += log.cases();
    };
    family("mm", [](case_rng&, auto extent) {
        const std::size_t n = extent(), k = extent(), m = extent();
        return std::pair{shape_t{n, k}, shape_t{k, m}};
    }, [](auto&& a, auto&& b) { return realify::mm(a, b); });
    family("bmm", [](case_rng&, auto extent) {
        const std::size_t q = extent(), n = extent(), k = extent(), m = extent();
        return std::pair{shape_t{q, n, k}, shape_t{q, k, m}};
    }, [](auto&& a, auto&& b) { return realify::bmm(a, b); });
    family("dot", [](case_rng&, auto extent) {
        const std::size_t n = extent() * 3;
        return std::pair{shape_t{n}, shape_t{n}};
    }, [](auto&& a, auto&& b) { return realify::dot(a, b); });
    family("vdot", [](case_rng&, auto extent) {
        const std::size_t n = extent() * 3;
        return std::pair{shape_t{n}, shape_t{n}};
    }, [](auto&& a, auto&& b) { return realify::vdot(a, b); });
    family("matmul", [](case_rng& rng, auto extent) {
        // 1-D or matrix operands with broadcast batch dims (total rank up to 5).
        const std::size_t n = extent(), k = extent(), m = extent();
        shape_t batch(rng.below(4));
        for (auto& e : batch) e = 1 + rng.below(3);
        shape_t sa = broadcast_operand_shape(rng, batch), sb = broadcast_operand_shape(rng, batch);
        const double u = rng.uniform();
        if (u < 0.15) { sa = {k}; }
        else sa.insert(sa.end(), {n, k});
        if (u > 0.85 || (u > 0.1 && u < 0.15)) { sb = {k}; }
        else sb.insert(sb.end(), {k, m});
        return std::pair{sa, sb};
    }, [](auto&& a, auto&& b) { return realify::matmul(a, b); });
    return total;
}

TEST(property, linear_algebra_matches_std_complex_loops) {
    // each op's cases are counted by its case_log
    EXPECT_GT(run_linalg_family<float>() + run_linalg_family<double>(), 0);
}

// ---- the comparison helpers themselves -----------------------------------------------------

TEST(property_support, comparison_rules) {
    using C = std::complex<double>;
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    tolerance tol{1e-12, 0, true};
    std::string why;
    EXPECT_TRUE(element_matches(C(1, 1e-20), C(1, 0), tol, why)) << "normwise: a tiny component needs no own accuracy";
    EXPECT_FALSE(element_matches(C(1 + 1e-9, 0), C(1, 0), tol, why));
    EXPECT_TRUE(element_matches(C(nan, inf), C(nan, inf), tol, why));
    EXPECT_FALSE(element_matches(C(inf, nan), C(nan, nan), tol, why)) << "inf where PyTorch gives NaN";
    EXPECT_FALSE(element_matches(C(-inf, 0), C(inf, 0), tol, why));
    EXPECT_FALSE(element_matches(C(0, -0.0), C(0, 0.0), tol, why)) << "zero signs are checked in special cases";
    tol.check_zero_sign = false;
    EXPECT_TRUE(element_matches(C(0, -0.0), C(0, 0.0), tol, why));
    EXPECT_FALSE(element_matches(C(1e300, 0), C(inf, 0), tol, why));
}

TEST(property_support, strided_operands_view_the_logical_values) {
    std::mt19937_64 rng(7);
    cxarray<double> a = cxarray<double>::from_shape({2, 3, 4});
    for (std::size_t k = 0; k < a.size(); ++k) a.flat(k) = {double(k), -double(k)};
    for (auto layout : {memory_layout::contiguous, memory_layout::transposed, memory_layout::stepped, memory_layout::reversed}) {
        strided_operand<std::complex<double>> op(a, layout, rng);
        EXPECT_EQ(cxarray<double>(op.view()), a) << op.describe();
        if (layout != memory_layout::contiguous) {
            const auto& s = op.strides();
            const bool row_major = s[0] == 12 && s[1] == 4 && s[2] == 1;
            EXPECT_FALSE(row_major) << op.describe();
        }
    }
}

}  // namespace
