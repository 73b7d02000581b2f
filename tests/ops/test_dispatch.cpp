// Op tags, the dispatch table (priorities, validators, a user override),
// type promotion, the lowering structs' names, and the defects of
// Torch-TensorRT's complex lowering — each with a test.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/dispatch.hpp"
#include "realify/eager.hpp"
#include "realify/ops.hpp"

#include "../support/tensor_reference.hpp"

// ---- a user's override of mul, defined before any use of the op -------------------------
namespace user {
inline std::atomic<int> mul_calls{0};

/// A high-priority mul that counts its calls and only takes same-shape
/// operands (run-time validator); anything else falls through to the
/// built-in candidates (a run-time validator declining).
struct counting_mul {
    using op = realify::op::mul;
    static constexpr std::string_view name = "user_counting_mul";
    static constexpr std::string_view formula = "built-in mul_pairs, counted";
    static constexpr int priority = realify::dispatch::priority::high;
    template <class A, class B>
    static constexpr bool accepts = realify::complex_tensor_operand<A> && realify::complex_tensor_operand<B>;
    template <class A, class B>
    static bool supports(const A& a, const B& b) {
        const auto sa = a.shape();
        const auto sb = b.shape();
        return std::equal(sa.begin(), sa.end(), sb.begin(), sb.end());
    }
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        ++mul_calls;
        return realify::dispatch::lowering::mul_pairs::apply(a, b);
    }
};
}  // namespace user

template <>
struct realify::dispatch::user_lowerings<realify::op::mul> {
    using type = realify::type_list<user::counting_mul>;
};

namespace {

using realify::complex_layout_of;

template <class Shape>
bool shape_is(const Shape& shape, std::initializer_list<std::size_t> expected) {
    return std::equal(shape.begin(), shape.end(), expected.begin(), expected.end());
}
using realify::to_complex_tensor;
using c64 = std::complex<float>;
using c128 = std::complex<double>;
using f_layout = realify::complex_layout<xt::xtensor<float, 2>>;
using d_layout = realify::complex_layout<xt::xtensor<double, 2>>;

// ---- op tags -----------------------------------------------------------------------------

static_assert(realify::op::op_count >= 78, "at least Torch-TensorRT's 70 ops plus the 8 additions");
static_assert(realify::op::mul::name == "mul" && realify::op::mul::arity == 2 &&
              realify::op::mul::kind == realify::op_kind::math);
static_assert(realify::op::permute::kind == realify::op_kind::shape);
static_assert(realify::op::abs::kind == realify::op_kind::real_output);
static_assert(realify::op::neg::kind == realify::op_kind::elementwise_safe);
static_assert(realify::op::view_as_real::kind == realify::op_kind::erased);
static_assert(realify::op::polar::kind == realify::op_kind::construction);
static_assert(realify::op::cat::arity == -1 && realify::op::where::arity == 3);
static_assert(realify::op_tag<realify::op::sgn> && !realify::op_tag<int>);
// every op has at least one lowering in the table
static_assert(realify::dispatch::covered_ops() == realify::op::op_count);

// The forms the op list makes lowerings of a one-tensor op (<op>_pairs,
// <op>_reals) are exactly the forms its element kernel documents a formula
// for: docs/ops.md shows no lowering without a formula, nor a formula for a
// form the table does not offer.
#define REALIFY_TEST_FORMS_DOCUMENTED(name)                                                                      \
    static_assert(realify::dispatch::lowering::lowered_form<realify::simd::elementwise_op::name, true>() ==     \
                      realify::dispatch::lowering::documents_form<realify::kernels::element<realify::op::name>, true>(), \
                  #name ": the op list's complex form and the kernel's formula disagree");                     \
    static_assert(realify::dispatch::lowering::lowered_form<realify::simd::elementwise_op::name, false>() ==    \
                      realify::dispatch::lowering::documents_form<realify::kernels::element<realify::op::name>, false>(), \
                  #name ": the op list's real form and the kernel's real_formula disagree");
REALIFY_UNARY_KERNEL_OPS(REALIFY_TEST_FORMS_DOCUMENTED)
#undef REALIFY_TEST_FORMS_DOCUMENTED

TEST(OpTags, NamesAreUniqueAndTheListHasEveryAddition) {
    std::set<std::string_view> names;
    for (const auto& info : realify::op::op_table) {
        EXPECT_TRUE(names.insert(info.name).second) << "duplicate op name " << info.name;
        EXPECT_FALSE(realify::to_string(info.kind).empty());
    }
    for (std::string_view extra : {"sgn", "rsqrt", "cumsum", "sum", "mean", "prod_dim", "dot", "vdot", "square"}) {
        EXPECT_TRUE(names.count(extra)) << extra;
    }
    EXPECT_EQ(names.size(), realify::op::op_count);
}

// ---- the dispatch table ---------------------------------------------------------------------

using real_vec = xt::xtensor<float, 1>;
// capability validators pick the lowering at compile time
static_assert(std::is_same_v<realify::dispatch::selected_lowering_t<realify::op::mul, f_layout, real_vec>,
                             realify::dispatch::lowering::mul_by_real>);
static_assert(std::is_same_v<realify::dispatch::selected_lowering_t<realify::op::mul, real_vec, f_layout>,
                             realify::dispatch::lowering::mul_by_real>);
static_assert(std::is_same_v<realify::dispatch::selected_lowering_t<realify::op::mul, real_vec, real_vec>,
                             realify::dispatch::lowering::mul_reals>);
// the user's high-priority entry comes first for complex × complex (a number included)
static_assert(std::is_same_v<realify::dispatch::selected_lowering_t<realify::op::mul, f_layout, f_layout>, user::counting_mul>);
static_assert(std::is_same_v<realify::dispatch::selected_lowering_t<realify::op::mul, f_layout, std::complex<float>>,
                             realify::dispatch::lowering::mul_pairs>);
static_assert(std::is_same_v<realify::dispatch::candidates_t<realify::op::mul>,
                             realify::type_list<user::counting_mul, realify::dispatch::lowering::mul_pairs,
                                                realify::dispatch::lowering::mul_by_real,
                                                realify::dispatch::lowering::mul_reals>>);
// integer arithmetic is not lowered (PyTorch keeps int64; the kernels compute in float or double)
static_assert(!realify::dispatch::has_lowering_v<realify::op::add, xt::xtensor<int, 1>, int>);
static_assert(realify::dispatch::has_lowering_v<realify::op::add, xt::xtensor<int, 1>, float>);
// the unary math of a real float / double tensor is the real function (PyTorch's real op), not of an integer one
static_assert(std::is_same_v<realify::dispatch::selected_lowering_t<realify::op::exp, real_vec>,
                             realify::dispatch::lowering::exp_reals>);
static_assert(std::is_same_v<realify::dispatch::selected_lowering_t<realify::op::exp, f_layout>,
                             realify::dispatch::lowering::exp_pairs>);
static_assert(!realify::dispatch::has_lowering_v<realify::op::exp, xt::xtensor<int, 1>>);
// a unary op's lowerings are the forms its element kernel documents: imag has no real form (PyTorch
// rejects torch.imag of a real tensor), the activations no complex one
static_assert(std::is_same_v<realify::dispatch::candidates_t<realify::op::imag>,
                             realify::type_list<realify::dispatch::lowering::imag_pairs>>);
static_assert(!realify::dispatch::has_lowering_v<realify::op::imag, real_vec>);
static_assert(std::is_same_v<realify::dispatch::candidates_t<realify::op::sigmoid>,
                             realify::type_list<realify::dispatch::lowering::sigmoid_reals>>);
static_assert(!realify::dispatch::has_lowering_v<realify::op::sigmoid, f_layout>);
static_assert(std::is_same_v<realify::dispatch::selected_lowering_t<realify::op::isnan, real_vec>,
                             realify::dispatch::lowering::isnan_reals>);
static_assert(std::is_same_v<realify::dispatch::selected_lowering_t<realify::op::pow_scalar, real_vec, double>,
                             realify::dispatch::lowering::pow_scalar_reals>);

/// The unqualified name of a type, from the compiler's function signature.
template <class T>
constexpr std::string_view type_name() {
    constexpr std::string_view signature = __PRETTY_FUNCTION__;  // "… [with T = ns::name; …]"
    constexpr std::size_t start = signature.find("T = ") + 4;
    constexpr std::string_view full = signature.substr(start, signature.find_first_of(";]", start) - start);
    return full.substr(full.rfind("::") + 2);
}
static_assert(type_name<realify::dispatch::lowering::mul_pairs>() == "mul_pairs");

template <class... L>
void expect_struct_names(realify::type_list<L...>, std::vector<std::string>& mismatches) {
    ((type_name<L>() == L::name ? void() : mismatches.push_back(std::string(type_name<L>()) + " is shown as " + std::string(L::name))),
     ...);
}

// Every built-in row of the table leads to its code in one step: the
// lowering's C++ struct is named as docs/ops.md and explain() show it.
TEST(DispatchTable, EveryLoweringStructIsNamedAsTheTableShowsIt) {
    std::vector<std::string> mismatches;
    std::size_t rows = 0;
    [&]<class... Tags>(realify::type_list<Tags...>) {
        ((expect_struct_names(typename realify::dispatch::builtin_lowerings<Tags>::type{}, mismatches),
          rows += realify::dispatch::builtin_lowerings<Tags>::type::size),
         ...);
    }(realify::op::all_ops{});
    EXPECT_GE(rows, realify::op::op_count);
    for (const auto& m : mismatches) ADD_FAILURE() << m;
}

TEST(DispatchTable, EntriesAreOrderedByPriorityAndPrintable) {
    const auto& table = realify::dispatch::table<>;
    EXPECT_GE(table.size(), realify::op::op_count);
    for (std::size_t i = 1; i < table.size(); ++i) {
        if (table[i].op == table[i - 1].op) {
            EXPECT_GE(table[i - 1].priority, table[i].priority) << table[i].op;
        }
    }
    EXPECT_EQ(table.front().op, "view_as_complex");
    const auto mul = std::find_if(table.begin(), table.end(), [](const auto& e) { return e.op == "mul"; });
    ASSERT_NE(mul, table.end());
    EXPECT_EQ(mul->lowering, "user_counting_mul");
    EXPECT_EQ(mul->priority, realify::dispatch::priority::high);
    std::ostringstream out;
    realify::dispatch::print_table(out);
    EXPECT_NE(out.str().find("mul_pairs"), std::string::npos);
    EXPECT_NE(out.str().find("acosh_pairs"), std::string::npos);
}

TEST(DispatchTable, UserOverrideOfMulIsCalledAndFallsThroughWhenItDeclines) {
    xt::xtensor<c64, 2> x = {{{1, 2}, {3, -1}}, {{0.5f, 0}, {0, 2}}};
    xt::xtensor<c64, 2> y = {{{2, 0}, {1, 1}}, {{-1, 1}, {3, 0}}};
    xt::xtensor<c64, 1> row = {{1, 1}, {2, -2}};
    const int before = user::mul_calls;
    auto same = realify::mul(complex_layout_of(x), complex_layout_of(y));
    EXPECT_EQ(user::mul_calls, before + 1);
    const auto same_c = to_complex_tensor(same);
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(same_c.flat(i), x.flat(i) * y.flat(i));
    // broadcasting: the run-time validator declines, the built-in mul_pairs runs
    auto broadcast = realify::mul(complex_layout_of(x), complex_layout_of(row));
    EXPECT_EQ(user::mul_calls, before + 1);
    EXPECT_EQ(to_complex_tensor(broadcast)(1, 1), x(1, 1) * row(1));
    // complex × real never reaches the user's entry (its validator rejects the types)
    real_vec scale = {2.0f, 3.0f};
    auto scaled = realify::mul(complex_layout_of(x), scale);
    EXPECT_EQ(user::mul_calls, before + 1);
    EXPECT_EQ(to_complex_tensor(scaled)(0, 1), x(0, 1) * 3.0f);
}

TEST(DispatchTable, ElementwiseSafeOpsPassTheLayoutThroughAndScalarsMoveOnlyTheRealPart) {
    xt::xtensor<double, 2> real = {{1, -2}, {3.5, 4}, {-0.0, 7}};
    auto layout = realify::as_complex_layout(real);
    auto negated = realify::neg(layout);
    EXPECT_EQ(negated.real_layout(), (xt::xtensor<double, 2>(-real)));
    auto scaled = realify::mul(layout, 2.0);  // mul.Scalar: both components
    EXPECT_EQ(scaled.real_layout(), (xt::xtensor<double, 2>(2.0 * real)));
    auto shifted = realify::add(layout, 10.0);  // add.Scalar: only the real part
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(shifted.real_layout()(i, 0), real(i, 0) + 10.0);
        EXPECT_EQ(shifted.real_layout()(i, 1), real(i, 1));
    }
    auto shifted_c = realify::sub(layout, c128(1, 1), 2.0);  // complex scalar, alpha
    EXPECT_EQ(shifted_c.real_layout()(1, 0), 1.5);
    EXPECT_EQ(shifted_c.real_layout()(1, 1), 2.0);
}

TEST(DispatchTable, ShapeOpsAdjustDimsForTheTrailingAxis) {
    xt::xarray<c128> x = xt::xarray<c128>::from_shape({2, 3, 4});
    for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = c128(double(i), -double(i) / 2);
    auto layout = complex_layout_of(x);
    // permute appends the trailing axis
    auto p = realify::permute(layout, {2, 0, 1});
    EXPECT_TRUE(shape_is(p.real_layout().shape(), {4, 2, 3, 2}));
    EXPECT_EQ(to_complex_tensor(p), realify::reference::permute<double>(x, {2, 0, 1}));
    // negative dims move by one on the layout
    EXPECT_EQ(to_complex_tensor(realify::transpose(layout, -1, 0)), realify::reference::transpose<double>(x, -1, 0));
    EXPECT_EQ(to_complex_tensor(realify::sum(layout, {-1})), realify::reference::sum_dim<double>(x, {-1}));
    EXPECT_EQ(to_complex_tensor(realify::unsqueeze(layout, -1)), realify::reference::unsqueeze<double>(x, -1));
    // reshape/expand append 2, repeat appends 1
    auto r = realify::reshape(layout, {4, -1});
    EXPECT_TRUE(shape_is(r.real_layout().shape(), {4, 6, 2}));
    EXPECT_EQ(to_complex_tensor(r), realify::reference::reshape<double>(x, {4, -1}));
    auto one = realify::select(layout, 0, 1);
    auto e = realify::expand(realify::unsqueeze(one, 0), {5, -1, 4});
    EXPECT_TRUE(shape_is(e.real_layout().shape(), {5, 3, 4, 2}));
    auto rep = realify::repeat(layout, {2, 1, 1, 3});
    EXPECT_EQ(to_complex_tensor(rep), realify::reference::repeat<double>(x, {2, 1, 1, 3}));
    EXPECT_THROW(realify::permute(layout, {0, 1}), realify::shape_error);
    EXPECT_THROW(realify::reshape(layout, {5, -1}), realify::shape_error);
}

// ---- type promotion (PyTorch's result_type) -----------------------------------------------------

using f32_nd = xt::xtensor<float, 2>;
using f64_nd = xt::xtensor<double, 2>;
using f64_0d = xt::xtensor<double, 0>;
using c64_nd = realify::complex_layout<xt::xtensor<float, 3>>;
using c128_nd = realify::complex_layout<xt::xtensor<double, 3>>;
using c64_0d = realify::complex_layout<xt::xtensor<float, 1>>;
using realify::dtype;
using realify::result_dtype_v;

static_assert(result_dtype_v<c64_nd, f64_nd> == dtype::complex128, "complex64 with a float64 n-d tensor -> complex128");
static_assert(result_dtype_v<c64_nd, double> == dtype::complex64, "complex64 with a double number stays complex64");
static_assert(result_dtype_v<c64_nd, c128> == dtype::complex64, "a complex number does not widen a complex64 tensor");
static_assert(result_dtype_v<f32_nd, c128> == dtype::complex64, "float32 tensor with a complex number -> complex64");
static_assert(result_dtype_v<f64_nd, c64> == dtype::complex128, "float64 tensor with a complex number -> complex128");
static_assert(result_dtype_v<c64_nd, f64_0d> == dtype::complex64, "a 0-d float64 tensor does not widen complex64");
static_assert(result_dtype_v<c64_0d, f64_nd> == dtype::complex128, "0-d complex with an n-d float64 -> complex128");
static_assert(result_dtype_v<f32_nd, c64_0d> == dtype::complex64, "higher category of the 0-d tensor wins");
static_assert(result_dtype_v<c64_nd, c128_nd> == dtype::complex128);
static_assert(result_dtype_v<int, double> == dtype::float32, "numbers alone: default dtype");
static_assert(result_dtype_v<f32_nd, int> == dtype::float32);
static_assert(std::is_same_v<realify::promote_t<c64_nd, f64_nd>, c128>);
static_assert(std::is_same_v<realify::promoted_real_t<c64_nd, double>, float>);
// Not associative, as in PyTorch: (c64 0-d + f64 n-d) + ...  differs from c64 0-d + (f64 n-d + ...)
static_assert(realify::promotion::combine_categories(dtype::float64, dtype::complex64) == dtype::complex128);

TEST(Promotion, EagerResultsHaveThePromotedComponentType) {
    xt::xtensor<c64, 1> x = {{1, 2}, {3, 4}};
    xt::xtensor<double, 1> d = {0.5, 0.25};
    auto wide = realify::mul(complex_layout_of(x), d);
    static_assert(std::is_same_v<decltype(wide)::real_type, double>);
    auto narrow = realify::mul(complex_layout_of(x), c128(0.5, 1));
    static_assert(std::is_same_v<decltype(narrow)::real_type, float>);
    EXPECT_EQ(to_complex_tensor(narrow)(1), x(1) * c64(0.5f, 1.0f));
}

// ---- Torch-TensorRT's defects --------------------------------------------------------------------------

TEST(TorchTensorRTDefects, AbsDoesNotOverflowInFloat) {
    xt::xtensor<c64, 1> x = {{3e30f, 4e30f}, {-3e-30f, 4e-30f}, {3e38f, 3e38f}};
    const auto r = realify::abs(complex_layout_of(x));
    EXPECT_FLOAT_EQ(r(0), 5e30f);
    EXPECT_FLOAT_EQ(r(1), 5e-30f);
    EXPECT_FLOAT_EQ(r(2), std::hypot(3e38f, 3e38f));  // inf only where the true result overflows
    EXPECT_TRUE(std::isfinite(r(0)));
}

TEST(TorchTensorRTDefects, AcoshOfNegativeRealPartMatchesStdComplexAndPyTorch) {
    // torch.acosh(tensor([-2+0j, -2-0j, -0.5+0.3j, -3-1j], dtype=complex128))
    const std::vector<c128> in = {{-2, 0}, {-2, -0.0}, {-0.5, 0.3}, {-3, -1}};
    const std::vector<c128> torch = {{1.3169578969248166, 3.141592653589793},
                                     {1.3169578969248166, -3.141592653589793},
                                     {0.33427, 2.06381},
                                     {1.82423, -2.80386}};
    xt::xtensor<c128, 1> x = xt::adapt(in, {in.size()});
    const auto r = to_complex_tensor(realify::acosh(complex_layout_of(x)));
    for (std::size_t i = 0; i < in.size(); ++i) {
        const c128 ref = std::acosh(in[i]);
        EXPECT_NEAR(std::abs(r(i) - ref), 0.0, 1e-12 * std::abs(ref)) << in[i];
        EXPECT_NEAR(std::abs(r(i) - torch[i]), 0.0, 1e-4) << in[i];  // torch values printed to 5 digits
        EXPECT_GT(r(i).real(), 0.0);
    }
}

TEST(TorchTensorRTDefects, ProdOverADimIsTheComplexProduct) {
    xt::xtensor<c64, 2> x = {{{1, 2}, {3, -1}}, {{0.5f, 0.5f}, {0, 2}}};
    const auto r = to_complex_tensor(realify::prod(complex_layout_of(x), 1));
    EXPECT_EQ(r(0), c64(5, 5));   // torch.prod: 5+5j
    EXPECT_EQ(r(1), c64(-1, 1));  // torch.prod: -1+1j
    const auto kept = realify::prod(complex_layout_of(x), -1, true);
    EXPECT_TRUE(shape_is(kept.shape(), {2, 1}));
    // the per-component product would be (3, -2) and (0, 1)
    EXPECT_NE(r(0), c64(3, -2));
}

TEST(TorchTensorRTDefects, ComplexPlusRealTensorBroadcastsOverComplexElementsOnly) {
    // complex (3, 2) + real (2): the real vector spreads over the complex columns,
    // never over the [re, im] axis (Torch-TensorRT's pass-through added it to both parts).
    xt::xtensor<c64, 2> x = {{{1, 1}, {2, 2}}, {{3, 3}, {4, 4}}, {{5, 5}, {6, 6}}};
    xt::xtensor<float, 1> r = {10, 20};
    const auto sum = to_complex_tensor(realify::add(complex_layout_of(x), r));
    ASSERT_TRUE(shape_is(sum.shape(), {3, 2}));
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 2; ++j) EXPECT_EQ(sum(i, j), x(i, j) + r(j));
    // a real tensor of shape (3, 2) — which merely ends in 2 — is still a real tensor
    xt::xtensor<float, 2> ends_in_two = {{1, 2}, {3, 4}, {5, 6}};
    const auto sum2 = to_complex_tensor(realify::add(complex_layout_of(x), ends_in_two));
    EXPECT_EQ(sum2(2, 1), c64(12, 6));
    const auto diff = to_complex_tensor(realify::sub(r, complex_layout_of(x)));
    EXPECT_EQ(diff(0, 1), c64(18, -2));
}

TEST(TorchTensorRTDefects, ComplexScalarConstantKeepsItsValue) {
    const auto s = realify::scalar_tensor(c64(1.5f, -2.5f));
    EXPECT_EQ(s.dimension(), 0u);
    EXPECT_EQ(s(), c64(1.5f, -2.5f));  // 0-d: read the pair directly
    xt::xtensor<c128, 2> x = xt::zeros<c128>({2, 3});
    const auto f = to_complex_tensor(realify::full_like(complex_layout_of(x), c128(0.25, 4)));
    for (const c128& v : f) EXPECT_EQ(v, c128(0.25, 4));
}

TEST(TorchTensorRTDefects, AnglePropagatesNaN) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    xt::xtensor<c64, 1> x = {{nan, 1}, {1, nan}, {-1, 0}, {-1, -0.0f}};
    const auto r = realify::angle(complex_layout_of(x));
    EXPECT_TRUE(std::isnan(r(0)));
    EXPECT_TRUE(std::isnan(r(1)));
    EXPECT_FLOAT_EQ(r(2), 3.14159265f);
    EXPECT_FLOAT_EQ(r(3), -3.14159265f);
}

TEST(TorchTensorRTDefects, AnUnhandledOperandTypeIsACompileTimeDecisionNotASilentPassThrough) {
    // Torch-TensorRT left an unhandled node unchanged; here "no lowering" is known at compile time
    static_assert(!realify::dispatch::has_lowering_v<realify::op::mm, f_layout, real_vec>);
    static_assert(realify::dispatch::has_lowering_v<realify::op::mm, f_layout, d_layout>);
    SUCCEED();
}

}  // namespace
