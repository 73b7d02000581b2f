// Real tensors first-class in realify::graph: the shape ops, indexing (the
// last axis of a real view of a complex tensor included), joins, fills,
// products and casts on real nodes, reductions with keepdim, comparisons and
// where, the real unary math on ordinary and special values — each against
// xtensor, double loops, std:: or std::complex — and small models of
// PyTorch / Hugging Face code written with them; PyTorch's real-tensor ops
// (clamp, maximum, the activations, amax, var, softmax, the norms, einsum)
// against the eager API, which runs the same kernels.
#include <cmath>
#include <complex>
#include <cstddef>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xcomplex.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "realify/eager.hpp"
#include "realify/graph.hpp"

#include "../support/op_records.hpp"
#include "../support/reference.hpp"

namespace graph = realify::graph;
using cd = std::complex<double>;
using cf = std::complex<float>;

namespace {

template <class E>
xt::xarray<E> random_array(std::vector<std::size_t> shape, unsigned seed, double lo = -1.0, double hi = 1.0) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    xt::xarray<E> a = xt::xarray<E>::from_shape(shape);
    for (auto& x : a) {
        if constexpr (graph::detail::is_std_complex<E>::value) {
            using T = typename E::value_type;
            const T re = static_cast<T>(u(gen));
            x = E(re, static_cast<T>(u(gen)));
        } else {
            x = static_cast<E>(u(gen));
        }
    }
    return a;
}

/// Same shape, element for element equal (shape ops move values, never round them).
template <class A, class B>
void expect_same(const A& got, const B& want, const std::string& what) {
    ASSERT_EQ(std::vector<std::size_t>(got.shape().begin(), got.shape().end()),
              std::vector<std::size_t>(want.shape().begin(), want.shape().end()))
        << what;
    auto g = got.begin();
    auto w = want.begin();
    for (std::size_t i = 0; g != got.end(); ++g, ++w, ++i) EXPECT_EQ(*g, *w) << what << " at " << i;
}

/// Same shape, values within rtol (products and sums round differently from the loops).
template <class A, class B>
void expect_near(const A& got, const B& want, double rtol, const std::string& what) {
    ASSERT_EQ(std::vector<std::size_t>(got.shape().begin(), got.shape().end()),
              std::vector<std::size_t>(want.shape().begin(), want.shape().end()))
        << what;
    auto g = got.begin();
    auto w = want.begin();
    for (std::size_t i = 0; g != got.end(); ++g, ++w, ++i) {
        const auto want_value = *w;
        EXPECT_LE(std::abs(*g - static_cast<std::remove_cvref_t<decltype(*g)>>(want_value)),
                  rtol * (1.0 + std::abs(want_value)))
            << what << " at " << i;
    }
}

template <class T>
constexpr double rtol_of() {
    return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

template <class T>
class GraphReal : public ::testing::Test {};
using Components = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GraphReal, Components);

/// Element types: the shape ops are checked on real and complex nodes alike.
template <class E>
class GraphShapeOps : public ::testing::Test {};
using Elements = ::testing::Types<float, double, cf, cd>;
TYPED_TEST_SUITE(GraphShapeOps, Elements);

}  // namespace

// ============================================================================ shape ops

TYPED_TEST(GraphShapeOps, IndexingOnEveryAxisMatchesXtensorViews) {
    using E = TypeParam;
    const auto x = random_array<E>({2, 3, 4}, 1);
    auto in = graph::input<E>("x");
    auto prog = graph::lower(graph::select(in, 1, 2), graph::select(in, -1, 0), graph::getitem(in, 1),
                             graph::slice(in, 1, 0, 3, 2), graph::narrow(in, -1, 1, 2), graph::slice(in, -1, 1, 4, 2),
                             graph::select(in, 0, -1));
    const auto [sel1, sel_last, item, sl, nar, sl_last, sel_neg] = prog(x);
    expect_same(sel1, xt::xarray<E>(xt::view(x, xt::all(), 2, xt::all())), "select(1, 2)");
    expect_same(sel_last, xt::xarray<E>(xt::view(x, xt::all(), xt::all(), 0)), "select(-1, 0)");
    expect_same(item, xt::xarray<E>(xt::view(x, 1)), "getitem(1)");
    expect_same(sl, xt::xarray<E>(xt::view(x, xt::all(), xt::range(0, 3, 2))), "slice(1, 0, 3, 2)");
    expect_same(nar, xt::xarray<E>(xt::view(x, xt::all(), xt::all(), xt::range(1, 3))), "narrow(-1, 1, 2)");
    expect_same(sl_last, xt::xarray<E>(xt::view(x, xt::all(), xt::all(), xt::range(1, 4, 2))), "slice(-1, 1, 4, 2)");
    expect_same(sel_neg, xt::xarray<E>(xt::view(x, 1)), "select(0, -1)");
    EXPECT_THROW(prog(random_array<E>({2, 2, 4}, 2)), realify::shape_error);  // select(1, 2) past the extent
}

TYPED_TEST(GraphShapeOps, JoinsMovesAndReshapesMatchXtensor) {
    using E = TypeParam;
    const auto x = random_array<E>({2, 3, 4}, 3);
    const auto y = random_array<E>({2, 3, 4}, 4);
    const auto u = random_array<E>({2, 1, 4}, 5);
    const auto m = random_array<E>({3, 5}, 6);
    auto in = graph::input<E>("x");
    auto iy = graph::input<E>("y");
    auto iu = graph::input<E>("u");
    auto im = graph::input<E>("m");
    auto joins = graph::lower(graph::cat(-1, in, iy), graph::cat(0, in, iy, in), graph::stack(0, in, iy),
                              graph::stack(-1, in, iy));
    const auto [cat_last, cat_first, stack_first, stack_last] = joins(x, y);
    expect_same(cat_last, xt::xarray<E>(xt::concatenate(xt::xtuple(x, y), 2)), "cat(-1)");
    expect_same(cat_first, xt::xarray<E>(xt::concatenate(xt::xtuple(x, y, x), 0)), "cat(0)");
    xt::xarray<E> stacked_first = xt::xarray<E>::from_shape({2, 2, 3, 4}), stacked_last = xt::xarray<E>::from_shape({2, 3, 4, 2});
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            for (std::size_t k = 0; k < 4; ++k) {
                stacked_first(0, i, j, k) = stacked_last(i, j, k, 0) = x(i, j, k);
                stacked_first(1, i, j, k) = stacked_last(i, j, k, 1) = y(i, j, k);
            }
    expect_same(stack_first, stacked_first, "stack(0)");
    expect_same(stack_last, stacked_last, "stack(-1)");

    auto moves = graph::lower(graph::transpose(in, 0, 2), graph::permute(in, {2, 0, 1}), graph::t(im),
                              graph::flip(in, {0, -1}), graph::roll(in, {1, -2}, {0, 2}), graph::roll(in, {5}, {}),
                              graph::repeat(in, {2, 1, 3}));
    const auto [tr, perm, tt, fl, ro, ro_flat, rep] = moves(x, m);
    expect_same(tr, xt::xarray<E>(xt::transpose(x, {2, 1, 0})), "transpose(0, 2)");
    expect_same(perm, xt::xarray<E>(xt::transpose(x, {2, 0, 1})), "permute(2, 0, 1)");
    expect_same(tt, xt::xarray<E>(xt::transpose(m)), "t");
    expect_same(fl, xt::xarray<E>(xt::flip(xt::xarray<E>(xt::flip(x, 0)), 2)), "flip(0, -1)");
    expect_same(ro, xt::xarray<E>(xt::roll(xt::xarray<E>(xt::roll(x, 1, 0)), -2, 2)), "roll((1, -2), (0, 2))");
    expect_same(ro_flat, xt::xarray<E>(xt::roll(x, 5)), "roll(5)");
    xt::xarray<E> tiled = xt::xarray<E>::from_shape({4, 3, 12});  // PyTorch's repeat: tiles of x
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            for (std::size_t k = 0; k < 12; ++k) tiled(i, j, k) = x(i % 2, j, k % 4);
    expect_same(rep, tiled, "repeat(2, 1, 3)");

    auto shapes = graph::lower(graph::squeeze(iu), graph::squeeze(iu, 1), graph::unsqueeze(in, -1), graph::unsqueeze(in, 0),
                               graph::reshape(in, {-1, 4}), graph::view(in, {4, 6}), graph::flatten(in, 1),
                               graph::expand(iu, {2, 3, 4}), graph::expand(iu, {3, -1, 5, -1}));
    const auto [sq, sq1, unsq_last, unsq_first, resh, vw, flat, ex, ex_new] = shapes(x, u);
    expect_same(sq, xt::xarray<E>(xt::view(u, xt::all(), 0, xt::all())), "squeeze()");
    expect_same(sq1, xt::xarray<E>(xt::view(u, xt::all(), 0, xt::all())), "squeeze(1)");
    expect_same(unsq_last, xt::xarray<E>(xt::view(x, xt::all(), xt::all(), xt::all(), xt::newaxis())), "unsqueeze(-1)");
    expect_same(unsq_first, xt::xarray<E>(xt::view(x, xt::newaxis())), "unsqueeze(0)");
    expect_same(resh, xt::xarray<E>(xt::reshape_view(x, {6, 4})), "reshape(-1, 4)");
    expect_same(vw, xt::xarray<E>(xt::reshape_view(x, {4, 6})), "view(4, 6)");
    expect_same(flat, xt::xarray<E>(xt::reshape_view(x, {2, 12})), "flatten(1)");
    expect_same(ex, xt::xarray<E>(xt::broadcast(u, {2, 3, 4})), "expand(2, 3, 4)");
    expect_same(ex_new, xt::xarray<E>(xt::broadcast(xt::xarray<E>(xt::broadcast(u, {2, 5, 4})), {3, 2, 5, 4})),
                "expand(3, -1, 5, -1)");
    EXPECT_THROW(shapes(x, random_array<E>({2, 2, 4}, 7)), realify::shape_error);  // expand of an extent 2 to 3
}

// ============================================================================ views

/// A packed copy of an xtensor expression, as xt::xarray<E>.
template <class E, class X>
xt::xarray<E> packed(const X& x) {
    return xt::xarray<E>(x);
}

// The strided views and the reshape-likes are views (rule zero_copy: no
// code, the operand's memory with new strides), also of other views; their
// values equal xtensor's views of the same tensors.
TYPED_TEST(GraphShapeOps, ViewsOfViewsMatchXtensor) {
    using E = TypeParam;
    const auto x = random_array<E>({2, 3, 4}, 60);
    const auto m = random_array<E>({3, 5}, 61);
    auto in = graph::input<E>("x");
    auto im = graph::input<E>("m");
    auto perm_of_transpose = graph::permute(graph::transpose(in, 0, 2), {1, 0, 2});     // (3, 4, 2)
    auto expand_of_unsqueeze = graph::expand(graph::unsqueeze(im, 0), {4, -1, -1});     // (4, 3, 5), stride 0
    auto stepped_transpose = graph::slice(graph::transpose(in, 1, 2), 1, 0, 4, 2);      // (2, 2, 3)
    auto select_of_permute = graph::select(graph::permute(in, {2, 0, 1}), 1, 1);        // (4, 3)
    auto narrow_of_expand = graph::narrow(graph::expand(graph::unsqueeze(im, 0), {2, -1, -1}), 2, 1, 3);
    auto t_of_slice = graph::t(graph::slice(im, 1, 1, 5, 2));                             // (2, 3)
    auto piece_of_transpose = graph::chunk(graph::transpose(in, 1, 2), 2, 1)[1];          // (2, 2, 3)
    auto squeeze_of_select = graph::squeeze(graph::select(graph::unsqueeze(in, 1), 0, 1));  // x[1]
    auto item_of_t = graph::getitem(graph::t(im), 2);                                     // m[:, 2]
    auto split_of_narrow = graph::split_with_sizes(graph::narrow(in, 2, 1, 3), {1, 2}, -1)[1];
    static_assert(graph::rule_v<decltype(perm_of_transpose)> == graph::node_rule::zero_copy);
    static_assert(graph::rule_v<decltype(expand_of_unsqueeze)> == graph::node_rule::zero_copy);
    static_assert(graph::rule_v<decltype(stepped_transpose)> == graph::node_rule::zero_copy);
    static_assert(graph::rule_v<decltype(select_of_permute)> == graph::node_rule::zero_copy);
    static_assert(graph::rule_v<decltype(narrow_of_expand)> == graph::node_rule::zero_copy);
    static_assert(graph::rule_v<decltype(t_of_slice)> == graph::node_rule::zero_copy);
    static_assert(graph::rule_v<decltype(piece_of_transpose)> == graph::node_rule::zero_copy);
    static_assert(graph::rule_v<decltype(item_of_t)> == graph::node_rule::zero_copy);
    static_assert(graph::rule_v<decltype(graph::squeeze_dims(in, {0, 1}))> == graph::node_rule::zero_copy);
    auto prog = graph::lower(perm_of_transpose, expand_of_unsqueeze, stepped_transpose, select_of_permute,
                             narrow_of_expand, t_of_slice, piece_of_transpose, squeeze_of_select, item_of_t,
                             split_of_narrow);
    const auto [pt, eu, st, sp, ne, ts, pc, ss, it, sn] = prog(x, m);
    const auto xt_transposed = packed<E>(xt::transpose(x, {2, 1, 0}));
    expect_same(pt, xt::transpose(xt_transposed, {1, 0, 2}), "permute of transpose");
    expect_same(eu, xt::broadcast(m, {4, 3, 5}), "expand of unsqueeze");
    expect_same(st, xt::view(xt::transpose(x, {0, 2, 1}), xt::all(), xt::range(0, 4, 2), xt::all()), "slice (step 2) of transpose");
    expect_same(sp, xt::view(xt::transpose(x, {2, 0, 1}), xt::all(), 1, xt::all()), "select of permute");
    expect_same(ne, xt::view(xt::broadcast(m, {2, 3, 5}), xt::all(), xt::all(), xt::range(1, 4)), "narrow of expand");
    expect_same(ts, xt::transpose(xt::view(m, xt::all(), xt::range(1, 5, 2))), "t of slice");
    expect_same(pc, xt::view(xt::transpose(x, {0, 2, 1}), xt::all(), xt::range(2, 4), xt::all()), "chunk piece of transpose");
    expect_same(ss, xt::view(x, 1), "squeeze of select of unsqueeze");
    expect_same(it, xt::view(m, xt::all(), 2), "getitem of t");
    expect_same(sn, xt::view(x, xt::all(), xt::all(), xt::range(2, 4)), "split piece of narrow");

    // the reshape-likes: a view where the strides allow it, else one packed copy
    auto reshapes = graph::lower(graph::reshape(graph::transpose(in, 0, 1), {3, -1}),   // a copy (PyTorch's too)
                                 graph::flatten(graph::slice(in, 0, 1, 2)),               // a view
                                 graph::view(graph::transpose(in, 1, 2), {2, 4, 3, 1}),   // a view (an axis of extent 1 added)
                                 graph::flatten(graph::permute(in, {1, 0, 2}), 1),        // merges (2, 4): a view
                                 graph::reshape(graph::expand(graph::unsqueeze(im, 1), {3, 2, 5}), {6, 5}),  // repeat_kv: a copy
                                 graph::squeeze_dims(graph::unsqueeze(graph::unsqueeze(graph::t(im), 0), 2), {0, 2}));
    const auto [r1, r2, r3, r4, r5, r6] = reshapes(x, m);
    expect_same(r1, xt::reshape_view(packed<E>(xt::transpose(x, {1, 0, 2})), {3, 8}), "reshape of transpose");
    expect_same(r2, xt::reshape_view(packed<E>(xt::view(x, xt::range(1, 2))), {12}), "flatten of slice");
    expect_same(r3, xt::reshape_view(packed<E>(xt::transpose(x, {0, 2, 1})), {2, 4, 3, 1}), "view of transpose");
    expect_same(r4, xt::reshape_view(packed<E>(xt::transpose(x, {1, 0, 2})), {3, 8}), "flatten of permute");
    xt::xarray<E> repeated = xt::xarray<E>::from_shape({6, 5});
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 5; ++j) repeated(i, j) = m(i / 2, j);
    expect_same(r5, repeated, "reshape of expand (repeat_kv)");
    expect_same(r6, xt::transpose(m), "squeeze(dims) of unsqueezes of t");
    const std::string text = graph::explain(prog);
    for (const char* view : {"strided view: transpose(0, 2)", "strided view: expand(4, -1, -1)", "strided view: t()",
                             "strided view: chunk(2, 1; piece 1)", "view: unsqueeze(0), zero-copy"})
        EXPECT_NE(text.find(view), std::string::npos) << view << "\n" << text;
}

// Values that are strided views feed every consumer in place: fused loops,
// reductions, the table's ops, einsum, the matrix products, a tensor_op
// (which gets a packed copy: fn reads row-major memory) — each equal to the
// eager op on packed copies.
TYPED_TEST(GraphShapeOps, StridedViewsFeedEveryConsumer) {
    using E = TypeParam;
    using T = typename graph::detail::component_of<E>::type;
    const double tol = rtol_of<T>() * 10;
    const auto x = random_array<E>({2, 3, 4}, 62);
    const auto m = random_array<E>({3, 5}, 63);
    auto in = graph::input<E>("x");
    auto im = graph::input<E>("m");
    auto xt02 = graph::transpose(in, 0, 2);                                       // (4, 3, 2)
    auto every_other = graph::slice(graph::permute(in, {1, 2, 0}), 1, 0, 4, 2);   // (3, 2, 2)
    auto row_expanded = graph::expand(graph::unsqueeze(graph::t(graph::select(in, 0, 1)), 2), {4, 3, 2});  // stride 0
    const auto x02 = packed<E>(xt::transpose(x, {2, 1, 0}));
    const auto mt = packed<E>(xt::transpose(m));
    const auto expanded = packed<E>(xt::broadcast(xt::view(xt::transpose(xt::view(x, 1)), xt::all(), xt::all(), xt::newaxis()), {4, 3, 2}));

    auto loops = graph::lower(graph::exp(xt02) * 2.0 + row_expanded, graph::sum(xt02, {0, 2}),
                              graph::mean(every_other, {-1}, true), graph::cumsum(xt02, 1));
    const auto [loop, sum, mean, cumsum] = loops(x);
    expect_near(loop, xt::xarray<E>(realify::add(realify::mul(realify::exp(x02), 2.0), expanded)), tol, "fused loop");
    expect_near(sum, xt::xarray<E>(realify::sum(x02, {0, 2})), tol, "sum of a transpose");
    expect_near(mean, xt::xarray<E>(realify::mean(packed<E>(xt::view(xt::transpose(x, {1, 2, 0}), xt::all(), xt::range(0, 4, 2))), {-1}, true)),
                tol, "mean of a stepped permute");
    expect_near(cumsum, xt::xarray<E>(realify::cumsum(x02, 1)), tol, "cumsum of a transpose");

    auto tables = graph::lower(graph::flip(graph::t(im), {0}), graph::cat(-1, graph::t(im), graph::t(im)),
                               graph::repeat(graph::select(in, 2, 3), {2, 1}));
    const auto [flip, cat, repeat] = tables(x, m);
    expect_same(flip, xt::flip(mt, 0), "flip of t");
    expect_same(cat, xt::concatenate(xt::xtuple(mt, mt), 1), "cat of two t");
    expect_same(repeat, xt::xarray<E>(realify::repeat(packed<E>(xt::view(x, xt::all(), xt::all(), 3)), {2, 1})), "repeat of select");

    auto products = graph::lower(graph::einsum("ij,jk->ik", graph::t(im), im), graph::matmul(graph::t(im), im),
                                 graph::mm(graph::t(im), graph::t(graph::select(in, 2, 0))),
                                 graph::bmm(graph::transpose(in, 1, 2), graph::expand(graph::unsqueeze(im, 0), {2, -1, -1})),
                                 graph::matmul(graph::slice(graph::t(im), 0, 0, 5, 2), graph::narrow(im, 1, 1, 3)));
    const auto [es, mat, mmv, bmm, stepped] = products(x, m);
    const xt::xarray<E> mtm = realify::matmul(mt, m);
    expect_near(es, mtm, tol, "einsum of t");
    expect_near(mat, mtm, tol, "matmul of t");
    expect_near(mmv, xt::xarray<E>(realify::matmul(mt, packed<E>(xt::transpose(xt::view(x, xt::all(), xt::all(), 0))))), tol,
                "mm of t and t of a select");
    const xt::xarray<E> m_batched = packed<E>(xt::broadcast(m, {2, 3, 5}));
    expect_near(bmm, xt::xarray<E>(realify::matmul(packed<E>(xt::transpose(x, {0, 2, 1})), m_batched)), tol,
                "bmm of a transpose and an expanded batch");
    expect_near(stepped,
                xt::xarray<E>(realify::matmul(packed<E>(xt::view(mt, xt::range(0, 5, 2))), packed<E>(xt::view(m, xt::all(), xt::range(1, 4))))),
                tol, "matmul of a stepped slice and a narrow");

    // a tensor_op reads packed memory: its strided operand is copied once, for it
    auto doubled = graph::tensor_op<"doubled">([](const auto& a) { return xt::xarray<E>(a + a); }, xt02);
    auto user = graph::lower(doubled, graph::tensor_op<"first_row">([](const auto& a) {
        return xt::xarray<E>(xt::view(a, 0));  // row-major adaptor: a(0, …) is the view's first row
    }, every_other));
    const auto [dbl, first] = user(x);
    expect_same(dbl, xt::xarray<E>(x02 + x02), "tensor_op of a transpose");
    expect_same(first, xt::view(xt::transpose(x, {1, 2, 0}), 0, xt::range(0, 4, 2)), "tensor_op of a stepped permute");
    EXPECT_NE(graph::explain(user).find("strided views packed once for fn"), std::string::npos) << graph::explain(user);
}

TYPED_TEST(GraphShapeOps, FillsOfATensorKeepItsShapeAndKind) {
    using E = TypeParam;
    const auto x = random_array<E>({3, 2}, 8);
    auto in = graph::input<E>("x");
    auto prog = graph::lower(graph::zeros_like(in), graph::ones_like(in), graph::full_like(in, 2.5));
    const auto [zeros, ones, full] = prog(x);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(zeros)>::value_type, E>);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(full)>::value_type, E>);
    expect_same(zeros, xt::xarray<E>(xt::zeros<E>({3, 2})), "zeros_like");
    expect_same(ones, xt::xarray<E>(xt::ones<E>({3, 2})), "ones_like");
    expect_same(full, xt::xarray<E>(xt::xarray<E>::from_shape({3, 2}) * E(0) + E(2.5)), "full_like(2.5)");
}

// view_as_real(z)[..., 0] and [..., 1]: the last axis of a real view is an
// ordinary axis of a real tensor.
TYPED_TEST(GraphReal, LastAxisOfARealViewIsTheRealAndImaginaryParts) {
    using T = TypeParam;
    using C = std::complex<T>;
    const auto z = random_array<C>({3, 4}, 9);
    const auto w = random_array<C>({3, 4}, 10);
    auto iz = graph::input<C>("z");
    auto iw = graph::input<C>("w");
    auto r = graph::view_as_real(iz);
    auto rp = graph::view_as_real(iz * iw);  // the real view of an op's value
    auto prog = graph::lower(graph::select(r, -1, 0), graph::select(r, -1, 1), graph::slice(r, -1, 1, 2),
                             graph::select(rp, -1, 0), graph::select(rp, 2, 1), graph::narrow(rp, 0, 1, 2));
    const auto [re, im, im_kept, prod_re, prod_im, rows] = prog(z, w);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(re)>::value_type, T>);
    expect_same(re, xt::xarray<T>(xt::real(z)), "view_as_real(z)[..., 0]");
    expect_same(im, xt::xarray<T>(xt::imag(z)), "view_as_real(z)[..., 1]");
    expect_same(im_kept, xt::xarray<T>(xt::view(xt::xarray<T>(xt::imag(z)), xt::all(), xt::all(), xt::newaxis())),
                "view_as_real(z)[..., 1:2]");
    xt::xarray<T> want_re = xt::zeros<T>({3, 4}), want_im = xt::zeros<T>({3, 4});
    for (std::size_t i = 0; i < z.size(); ++i) {
        const C p = z.data()[i] * w.data()[i];
        want_re.data()[i] = p.real();
        want_im.data()[i] = p.imag();
    }
    expect_near(prod_re, want_re, rtol_of<T>(), "view_as_real(z * w)[..., 0]");
    expect_near(prod_im, want_im, rtol_of<T>(), "view_as_real(z * w)[..., 1]");
    ASSERT_EQ(rows.dimension(), 3u);
    EXPECT_EQ(rows.shape()[0], 2u);
    EXPECT_NEAR(rows(0, 0, 0), want_re(1, 0), rtol_of<T>());
}

// ============================================================================ products

TYPED_TEST(GraphReal, RealAndComplexProductsMatchDoubleLoops) {
    using T = TypeParam;
    using C = std::complex<T>;
    const auto a = random_array<T>({2, 3, 4}, 11);
    const auto b = random_array<T>({2, 4, 5}, 12);
    const auto w = random_array<T>({4, 5}, 13);
    const auto v = random_array<T>({4}, 14);
    auto ia = graph::input<T>("a");
    auto ib = graph::input<T>("b");
    auto iw = graph::input<T>("w");
    auto iv = graph::input<T>("v");
    auto prog = graph::lower(graph::mm(graph::select(ia, 0, 1), iw), graph::bmm(ia, ib), graph::matmul(ia, iw),
                             graph::matmul(ia, iv), graph::matmul(graph::t(iw), graph::transpose(ia, 1, 2)));
    const auto [mm, bmm, mat, mat_vec, mat_bcast] = prog(a, b, w, v);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(mm)>::value_type, T>);
    xt::xarray<double> want_mm = xt::zeros<double>({3, 5}), want_bmm = xt::zeros<double>({2, 3, 5}),
                       want_mat = xt::zeros<double>({2, 3, 5}), want_vec = xt::zeros<double>({2, 3}),
                       want_bcast = xt::zeros<double>({2, 5, 3});
    for (std::size_t n = 0; n < 2; ++n)
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t k = 0; k < 4; ++k) {
                for (std::size_t j = 0; j < 5; ++j) {
                    if (n == 1) want_mm(i, j) += double(a(1, i, k)) * double(w(k, j));
                    want_bmm(n, i, j) += double(a(n, i, k)) * double(b(n, k, j));
                    want_mat(n, i, j) += double(a(n, i, k)) * double(w(k, j));
                    want_bcast(n, j, i) += double(w(k, j)) * double(a(n, i, k));
                }
                want_vec(n, i) += double(a(n, i, k)) * double(v(k));
            }
    expect_near(mm, want_mm, rtol_of<T>(), "mm");
    expect_near(bmm, want_bmm, rtol_of<T>(), "bmm");
    expect_near(mat, want_mat, rtol_of<T>(), "matmul (3-D, 2-D)");
    expect_near(mat_vec, want_vec, rtol_of<T>(), "matmul (3-D, 1-D)");
    expect_near(mat_bcast, want_bcast, rtol_of<T>(), "matmul (2-D, 3-D) of transposes");

    const auto z = random_array<C>({3, 4}, 15);
    const auto y = random_array<C>({4, 2}, 16);
    auto iz = graph::input<C>("z");
    auto iy = graph::input<C>("y");
    const auto got = graph::lower(graph::mm(iz, iy))(z, y);
    xt::xarray<std::complex<double>> want = xt::zeros<std::complex<double>>({3, 2});
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 2; ++j)
            for (std::size_t k = 0; k < 4; ++k) want(i, j) += std::complex<double>(z(i, k)) * std::complex<double>(y(k, j));
    expect_near(got, want, rtol_of<T>(), "complex mm");
    EXPECT_THROW(prog(a, random_array<T>({2, 5, 5}, 17), w, v), realify::shape_error);  // bmm's inner extents differ
}

// ============================================================================ casts

TYPED_TEST(GraphReal, CastsConvertAsPyTorchsTo) {
    using T = TypeParam;
    using C = std::complex<T>;
    using Other = std::conditional_t<std::is_same_v<T, float>, double, float>;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    xt::xarray<T> x = {1.5, -0.0, 0.0, nan, -2.25};
    xt::xarray<C> z = {C(0, 0), C(0, -1), C(2, 0), C(nan, 0), C(-0.0, 0.0)};
    auto ix = graph::input<T>("x");
    auto iz = graph::input<C>("z");
    auto prog = graph::lower(graph::to<C>(ix), graph::to<bool>(iz), graph::to<bool>(ix), graph::to<Other>(ix),
                             graph::to<T>(iz), graph::to<std::complex<Other>>(iz), graph::type_as(ix, iz));
    const auto [x_complex, z_bool, x_bool, x_other, z_real, z_other, x_like_z] = prog(x, z);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(x_complex)>::value_type, C>);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(z_bool)>::value_type, bool>);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(x_other)>::value_type, Other>);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(z_real)>::value_type, T>);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(z_other)>::value_type, std::complex<Other>>);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(x_like_z)>::value_type, C>);
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(x(i))) {
            EXPECT_TRUE(std::isnan(x_complex(i).real())) << i;
            EXPECT_TRUE(std::isnan(x_other(i))) << i;
        } else {
            EXPECT_EQ(x_complex(i), C(x(i), 0)) << i;
            EXPECT_EQ(std::signbit(x_complex(i).real()), std::signbit(x(i))) << i;
            EXPECT_EQ(x_other(i), static_cast<Other>(x(i))) << i;
            EXPECT_EQ(std::signbit(x_other(i)), std::signbit(x(i))) << i;
        }
        EXPECT_EQ(x_complex(i).imag(), T(0)) << i;
        EXPECT_EQ(x_bool(i), x(i) != T(0)) << i;  // NaN is true, ±0 false
        EXPECT_EQ(z_bool(i), z(i) != C(0)) << i;
        if (std::isnan(z(i).real())) {
            EXPECT_TRUE(std::isnan(z_real(i))) << i;
        } else {
            EXPECT_EQ(z_real(i), z(i).real()) << i;  // the imaginary part discarded
        }
        if (!std::isnan(z(i).real())) {
            EXPECT_EQ(z_other(i), std::complex<Other>(z(i))) << i;
        }
        EXPECT_EQ(x_like_z(i).imag(), T(0)) << i;
    }
    EXPECT_TRUE(z_bool(1));  // 0 − 1i: either part non-zero
    EXPECT_FALSE(z_bool(4));
    // a same-type cast is no node at all
    static_assert(graph::rule_v<decltype(graph::to<T>(ix))> == graph::node_rule::cast);
}

// ============================================================================ reductions with keepdim

TYPED_TEST(GraphShapeOps, ReductionsKeepTheReducedAxesWithKeepdim) {
    using E = TypeParam;
    using T = typename graph::detail::component_of<E>::type;
    const auto x = random_array<E>({2, 3, 4}, 18, 0.5, 1.5);
    auto in = graph::input<E>("x");
    auto prog = graph::lower(graph::sum(in, {-1}, true), graph::sum(in, {-1}), graph::sum(in, {0, 2}, true),
                             graph::mean(in, {1}, true), graph::prod(in, 1, true), graph::prod(in, -1),
                             graph::cumsum(in, 1), graph::sum(in, {}, true));
    const auto [sum_kept, sum_dropped, sum02, mean1, prod1, prod_last, cum1, sum_all] = prog(x);
    using W = std::conditional_t<graph::detail::is_std_complex<E>::value, std::complex<double>, double>;
    xt::xarray<W> w_sum = xt::zeros<W>({2, 3, 1}), w_sum02 = xt::zeros<W>({1, 3, 1}), w_mean = xt::zeros<W>({2, 1, 4}),
                  w_prod = xt::ones<W>({2, 1, 4}), w_prod_last = xt::ones<W>({2, 3}), w_cum = xt::zeros<W>({2, 3, 4}),
                  w_all = xt::zeros<W>({1, 1, 1});
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            for (std::size_t k = 0; k < 4; ++k) {
                const W v = static_cast<W>(x(i, j, k));
                w_sum(i, j, 0) += v;
                w_sum02(0, j, 0) += v;
                w_mean(i, 0, k) += v / 3.0;
                w_prod(i, 0, k) *= v;
                w_prod_last(i, j) *= v;
                w_all(0, 0, 0) += v;
                for (std::size_t l = j; l < 3; ++l) w_cum(i, l, k) += v;
            }
    const double tol = rtol_of<T>() * 10;
    expect_near(sum_kept, w_sum, tol, "sum(-1, keepdim=True)");
    expect_near(sum_dropped, xt::xarray<W>(xt::view(w_sum, xt::all(), xt::all(), 0)), tol, "sum(-1)");
    expect_near(sum02, w_sum02, tol, "sum((0, 2), keepdim=True)");
    expect_near(mean1, w_mean, tol, "mean(1, keepdim=True)");
    expect_near(prod1, w_prod, tol, "prod(1, keepdim=True)");
    expect_near(prod_last, w_prod_last, tol, "prod(-1)");
    expect_near(cum1, w_cum, tol, "cumsum(1)");
    expect_near(sum_all, w_all, tol, "sum((), keepdim=True): every axis, kept");

    // the kept axis broadcasts: x / x.sum(-1, keepdim=True), x - x.mean(1, keepdim=True);
    // their shapes are known before evaluation, so a loop writes the caller's buffer
    auto normalised = graph::lower(in / graph::sum(in, {-1}, true), in - graph::mean(in, {1}, true));
    xt::xarray<E> out0 = xt::zeros<E>({2, 3, 4}), out1 = xt::zeros<E>({2, 3, 4});
    normalised(graph::out(out0, out1), x);
    xt::xarray<W> w0 = xt::zeros<W>({2, 3, 4}), w1 = xt::zeros<W>({2, 3, 4});
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            for (std::size_t k = 0; k < 4; ++k) {
                w0(i, j, k) = static_cast<W>(x(i, j, k)) / w_sum(i, j, 0);
                w1(i, j, k) = static_cast<W>(x(i, j, k)) - w_mean(i, 0, k);
            }
    expect_near(out0, w0, tol, "x / x.sum(-1, keepdim=True)");
    expect_near(out1, w1, tol, "x - x.mean(1, keepdim=True)");
    const std::string plan = normalised.plan(graph::out(out0, out1), x).describe(normalised.ir());
    EXPECT_NE(plan.find("direct"), std::string::npos) << plan;
    // a dim past the rank: a shape_error naming the op
    auto bad = graph::lower(graph::sum(in, {3}, true));
    try {
        bad(x);
        ADD_FAILURE() << "no shape_error";
    } catch (const realify::shape_error& e) {
        EXPECT_NE(std::string(e.what()).find("sum"), std::string::npos) << e.what();
    }
    // a dim named twice (-3 is 0 here): refused as PyTorch refuses it, not reduced once
    auto twice = graph::lower(graph::sum(in, {0, -3}, true));
    try {
        twice(x);
        ADD_FAILURE() << "no shape_error";
    } catch (const realify::shape_error& e) {
        EXPECT_NE(std::string(e.what()).find("dim 0 appears multiple times in the list of dims"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(graph::lower(graph::mean(in, {1, 1}))(x), realify::shape_error);
}

// Reductions of a 0-d tensor as PyTorch 1.13: dim 0 or −1 (a 0-d tensor
// wraps as rank 1) reduce nothing — x.sum(0), x.mean(-1, keepdim=True),
// x.prod(0), x.cumsum(-1) are x, of shape () — and dim 1, or 0 and −1 together, are refused.
TYPED_TEST(GraphShapeOps, ReductionsOfAZeroDimTensorAsPyTorch) {
    using E = TypeParam;
    xt::xarray<E> x = xt::xarray<E>::from_shape({});
    x() = static_cast<E>(1.5);
    auto in = graph::input<E>("x");
    auto prog = graph::lower(graph::sum(in, {0}), graph::sum(in, {-1}, true), graph::mean(in, {0}, true),
                             graph::prod(in, -1), graph::cumsum(in, 0), graph::sum(in, {}, true));
    const auto results = prog(x);
    auto is_x = [&](const auto& r) {
        EXPECT_EQ(r.dimension(), 0u);
        EXPECT_EQ(r(), x());
    };
    std::apply([&](const auto&... r) { (is_x(r), ...); }, results);
    EXPECT_THROW(graph::lower(graph::sum(in, {1}))(x), realify::shape_error);
    EXPECT_THROW(graph::lower(graph::sum(in, {0, -1}))(x), realify::shape_error);
    EXPECT_THROW(graph::lower(graph::cumsum(in, 1))(x), realify::shape_error);
}

// ============================================================================ comparisons and where

TYPED_TEST(GraphReal, ComparisonsGiveBoolNodesWhereTakes) {
    using T = TypeParam;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const xt::xarray<T> r = {{0.5, -0.25, 0.0, -0.0}, {nan, 2.0, -3.0, 0.5}};
    const xt::xarray<T> s = {0.5, 0.0, 1.0, -0.0};  // broadcast along the rows
    auto ir = graph::input<T>("r");
    auto is = graph::input<T>("s");
    auto prog = graph::lower(ir > 0, ir < is, ir >= is, ir <= 0.5, ir == is, ir != 0, 0 < ir, graph::gt(ir, is),
                             graph::where(ir > 0, ir, -ir));
    const auto [gt0, lt_s, ge_s, le_half, eq_s, ne0, zero_lt, gt_s, where_abs] = prog(r, s);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(gt0)>::value_type, bool>);
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(where_abs)>::value_type, T>);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 4; ++j) {
            const T a = r(i, j), b = s(j);
            EXPECT_EQ(gt0(i, j), a > 0) << i << ", " << j;
            EXPECT_EQ(lt_s(i, j), a < b) << i << ", " << j;
            EXPECT_EQ(ge_s(i, j), a >= b) << i << ", " << j;
            EXPECT_EQ(le_half(i, j), a <= T(0.5)) << i << ", " << j;
            EXPECT_EQ(eq_s(i, j), a == b) << i << ", " << j;  // -0 == 0, NaN != NaN
            EXPECT_EQ(ne0(i, j), a != 0) << i << ", " << j;
            EXPECT_EQ(zero_lt(i, j), 0 < a) << i << ", " << j;
            EXPECT_EQ(gt_s(i, j), a > b) << i << ", " << j;
            const T w = a > 0 ? a : -a;
            if (std::isnan(w)) EXPECT_TRUE(std::isnan(where_abs(i, j)));
            else EXPECT_EQ(where_abs(i, j), w) << i << ", " << j;
        }
    EXPECT_THROW(prog(r, xt::xarray<T>{1.0, 2.0, 3.0}), realify::shape_error);  // (2, 4) against (3)

    // numbers as where's values: ReLU, torch.where(r > 0, r, 0.0)
    const auto relu = graph::lower(graph::where(ir > 0, ir, 0.0))(r);
    for (std::size_t i = 0; i < r.size(); ++i) {
        const T v = r.data()[i];
        EXPECT_EQ(relu.data()[i], v > 0 ? v : T(0)) << i;
    }

    // eq / ne of complex values: both parts, as PyTorch
    using C = std::complex<T>;
    const xt::xarray<C> z = {C(1, 2), C(1, -2), C(0, 0), C(-0.0, 0)};
    const xt::xarray<C> y = {C(1, 2), C(1, 2), C(0, 0), C(0, 0)};
    auto iz = graph::input<C>("z");
    auto iy = graph::input<C>("y");
    auto complex_prog = graph::lower(iz == iy, iz != 0, graph::eq(iz, C(1, -2)));
    const auto [same, nonzero, is_conj] = complex_prog(z, y);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(same(i), z(i) == y(i)) << i;
        EXPECT_EQ(nonzero(i), z(i) != C(0)) << i;
        EXPECT_EQ(is_conj(i), z(i) == C(1, -2)) << i;
    }
}

// ============================================================================ real unary math

namespace {

/// got[i] against want[i], std::'s value at x[i]: NaN where std:: gives NaN,
/// the same infinity or signed zero, else within the op's tolerance. Compiled
/// once per result type R rather than once per op.
template <class T, class R>
void expect_unary_results(const char* name, const xt::xarray<T>& x, const std::vector<R>& got, const std::vector<R>& want) {
    ASSERT_EQ(got.size(), x.size()) << name;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const R g = got[i], w = want[i];
        if constexpr (std::is_same_v<R, bool>) {
            EXPECT_EQ(g, w) << name << "(" << x(i) << ")";
        } else if (std::isnan(w)) {
            EXPECT_TRUE(std::isnan(g)) << name << "(" << x(i) << ") = " << g << ", std:: NaN";
        } else if (std::isinf(w) || w == 0) {
            EXPECT_EQ(g, w) << name << "(" << x(i) << ")";
            EXPECT_EQ(std::signbit(g), std::signbit(w)) << name << "(" << x(i) << ") sign";
        } else {
            EXPECT_LE(std::abs(g - w), rtol_of<T>() * std::abs(w)) << name << "(" << x(i) << ") = " << g << ", std:: " << w;
        }
    }
}

/// x through the graph op against std::'s value (expect_unary_results) on
/// ±0, subnormals, the smallest normal, ordinary and huge values, ±inf, NaN.
template <class T, class Build, class Reference>
void check_unary(const char* name, Build build, Reference reference) {
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const T sub = std::numeric_limits<T>::denorm_min() * 3, tiny = std::numeric_limits<T>::min();
    const xt::xarray<T> x = {T(0), T(-0.0), sub, -sub, tiny, T(0.5), T(-0.5), T(1), T(-1), T(2.5), T(-2.5),
                             T(0.999), T(-0.75), T(3.5), T(1e-3), T(30), T(-30), T(1e30), -T(1e30), inf, -inf, nan};
    auto in = graph::input<T>("x");
    auto node = build(in);
    const auto result = graph::lower(node)(x);
    using R = std::remove_cvref_t<decltype(reference(x(0)))>;
    static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(result)>::value_type, R>,
                  "the op gives std::'s result type");
    const std::vector<R> got(result.begin(), result.end());
    std::vector<R> want;
    for (std::size_t i = 0; i < x.size(); ++i) want.push_back(reference(x(i)));
    expect_unary_results<T, R>(name, x, got, want);
}

/// check_unary of an op with unary kernels, when it takes a real tensor.
template <class T, class Tag, class Build, class Reference>
void check_real_unary(Build build, Reference reference) {
    if constexpr (realify::testing::has_real_form<Tag>) check_unary<T>(Tag::name.data(), build, [reference](T v) { return reference(v); });
}

}  // namespace

TYPED_TEST(GraphReal, UnaryMathOfRealNodesMatchesStdOnSpecialValues) {
    using T = TypeParam;
    // every op with unary kernels and a real form, from the op list, against its real reference
#define REALIFY_CHECK(OP) \
    check_real_unary<T, realify::op::OP>([](auto n) { return graph::OP(n); }, [](auto v) { return realify::reference::OP(v); });
    REALIFY_UNARY_KERNEL_OPS(REALIFY_CHECK)
#undef REALIFY_CHECK
#define REALIFY_CHECK(OP, REF) check_unary<T>(#OP, [](auto n) { return graph::OP(n); }, [](T v) { return REF; })
    REALIFY_CHECK(isnan, bool(std::isnan(v)));
    REALIFY_CHECK(isinf, bool(std::isinf(v)));
#undef REALIFY_CHECK
    check_unary<T>("pow(x, 3)", [](auto n) { return graph::pow(n, 3); }, [](T v) { return std::pow(v, T(3)); });
    check_unary<T>("pow(x, 0.5)", [](auto n) { return graph::pow(n, 0.5); }, [](T v) { return std::pow(v, T(0.5)); });
    check_unary<T>("pow(x, -1.5)", [](auto n) { return graph::pow(n, -1.5); }, [](T v) { return std::pow(v, T(-1.5)); });
}

// ============================================================================ peer models

// nn.Linear (x Wᵀ + b, real) before and after Meta's complex RoPE.
TYPED_TEST(GraphReal, LinearAroundComplexRopeMatchesLoops) {
    using T = TypeParam;
    using C = std::complex<T>;
    constexpr std::size_t seq = 5, d_in = 6, d = 8, d_out = 3;
    const auto x = random_array<T>({seq, d_in}, 20);
    const auto w1 = random_array<T>({d, d_in}, 21), b1 = random_array<T>({d}, 22);
    const auto w2 = random_array<T>({d_out, d}, 23), b2 = random_array<T>({d_out}, 24);
    xt::xarray<C> freqs = xt::xarray<C>::from_shape({seq, d / 2});
    for (std::size_t s = 0; s < seq; ++s)
        for (std::size_t p = 0; p < d / 2; ++p) freqs(s, p) = std::polar(T(1), T(s) * std::pow(T(100), -T(2 * p) / T(d)));
    auto ix = graph::input<T>("x");
    auto iw1 = graph::input<T>("w1");
    auto ib1 = graph::input<T>("b1");
    auto iw2 = graph::input<T>("w2");
    auto ib2 = graph::input<T>("b2");
    auto ifr = graph::input<C>("freqs");
    auto h = graph::matmul(ix, graph::t(iw1)) + ib1;
    auto rotated = graph::flatten(graph::view_as_real(graph::view_as_complex(graph::reshape(h, {graph::same(0), -1, 2})) * ifr), 1);
    auto y = graph::matmul(rotated, graph::t(iw2)) + ib2;
    const auto got = graph::lower(y)(x, w1, b1, w2, b2, freqs);

    xt::xarray<double> want = xt::zeros<double>({seq, d_out});
    for (std::size_t s = 0; s < seq; ++s) {
        std::vector<double> hv(d);
        for (std::size_t o = 0; o < d; ++o) {
            hv[o] = double(b1(o));
            for (std::size_t i = 0; i < d_in; ++i) hv[o] += double(x(s, i)) * double(w1(o, i));
        }
        for (std::size_t p = 0; p < d / 2; ++p) {
            const std::complex<double> z = std::complex<double>(hv[2 * p], hv[2 * p + 1]) * std::complex<double>(freqs(s, p));
            hv[2 * p] = z.real();
            hv[2 * p + 1] = z.imag();
        }
        for (std::size_t o = 0; o < d_out; ++o) {
            want(s, o) = double(b2(o));
            for (std::size_t i = 0; i < d; ++i) want(s, o) += hv[i] * double(w2(o, i));
        }
    }
    expect_near(got, want, rtol_of<T>() * 10, "linear, RoPE, linear");
}

// Hugging Face's rotate_half RoPE: q·cos + rotate_half(q)·sin with
// rotate_half(x) = cat((−x2, x1), −1), written with real slice, cat and neg.
TYPED_TEST(GraphReal, HuggingFaceRotateHalfRopeMatchesLoops) {
    using T = TypeParam;
    constexpr std::size_t heads = 2, seq = 3, hd = 8;
    const auto q = random_array<T>({1, heads, seq, hd}, 25);
    xt::xarray<T> cos = xt::xarray<T>::from_shape({seq, hd}), sin = xt::xarray<T>::from_shape({seq, hd});
    for (std::size_t s = 0; s < seq; ++s)
        for (std::size_t i = 0; i < hd; ++i) {
            const double angle = double(s) * std::pow(10000.0, -double(2 * (i % (hd / 2))) / double(hd));
            cos(s, i) = static_cast<T>(std::cos(angle));
            sin(s, i) = static_cast<T>(std::sin(angle));
        }
    auto iq = graph::input<T>("q");
    auto icos = graph::input<T>("cos");
    auto isin = graph::input<T>("sin");
    const auto half = static_cast<std::ptrdiff_t>(hd / 2);
    auto rotate_half = [&](auto x) {
        auto x1 = graph::slice(x, -1, 0, half);
        auto x2 = graph::slice(x, -1, half, 2 * half);
        return graph::cat(-1, -x2, x1);
    };
    auto out = iq * icos + rotate_half(iq) * isin;
    const auto got = graph::lower(out)(q, cos, sin);
    xt::xarray<double> want = xt::zeros<double>({std::size_t(1), heads, seq, hd});
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t s = 0; s < seq; ++s)
            for (std::size_t i = 0; i < hd; ++i) {
                const double rotated = i < hd / 2 ? -double(q(0, h, s, i + hd / 2)) : double(q(0, h, s, i - hd / 2));
                want(0, h, s, i) = double(q(0, h, s, i)) * double(cos(s, i)) + rotated * double(sin(s, i));
            }
    expect_near(got, want, rtol_of<T>() * 10, "rotate_half RoPE");
}

// (r*r).sum(-1, keepdim=True), where(r > 0, r, -r) and
// stack([z.real, z.imag], -1) of a complex node's parts.
TYPED_TEST(GraphReal, KeepdimNormWhereAndStackedPartsMatchReferences) {
    using T = TypeParam;
    using C = std::complex<T>;
    const auto r = random_array<T>({3, 5}, 26);
    const auto z = random_array<C>({3, 5}, 27);
    const auto w = random_array<C>({3, 5}, 28);
    auto ir = graph::input<T>("r");
    auto iz = graph::input<C>("z");
    auto iw = graph::input<C>("w");
    auto zw = iz * iw;
    auto prog = graph::lower(graph::sum(ir * ir, {-1}, true), graph::where(ir > 0, ir, -ir),
                             graph::stack(-1, graph::real(zw), graph::imag(zw)));
    const auto [norm, abs_r, parts] = prog(r, z, w);
    for (std::size_t i = 0; i < 3; ++i) {
        double s = 0;
        for (std::size_t j = 0; j < 5; ++j) s += double(r(i, j)) * double(r(i, j));
        ASSERT_EQ(norm.dimension(), 2u);
        EXPECT_EQ(norm.shape()[1], 1u);
        EXPECT_NEAR(norm(i, 0), s, rtol_of<T>() * 10 * s);
        for (std::size_t j = 0; j < 5; ++j) {
            EXPECT_EQ(abs_r(i, j), std::abs(r(i, j)));
            const std::complex<double> p = std::complex<double>(z(i, j)) * std::complex<double>(w(i, j));
            EXPECT_NEAR(parts(i, j, 0), p.real(), rtol_of<T>() * 10);
            EXPECT_NEAR(parts(i, j, 1), p.imag(), rtol_of<T>() * 10);
        }
    }
}

// What the refusal messages tell a user to write instead runs and gives the
// values: a complex number computed in C++ or made a 0-d tensor
// (graph::scalar_tensor), a mask converted before arithmetic, a real operand
// made complex for a complex product (tests/graph/compile_fail_refused.cpp
// checks the refusals themselves).
TYPED_TEST(GraphReal, TheSpellingsTheRefusalsNameRun) {
    using T = TypeParam;
    using C = std::complex<T>;
    const auto r = random_array<T>({3, 3}, 31);
    const auto z = random_array<C>({3, 3}, 32);
    auto ir = graph::input<T>("r");
    auto iz = graph::input<C>("z");
    const C c(T(0.5), T(-0.25));
    auto prog = graph::lower(graph::constant(std::exp(c)) * iz + graph::exp(graph::scalar_tensor(c)),
                             graph::sqrt(graph::to<T>(ir > T(0))) * ir, graph::mm(iz, graph::to<C>(ir)));
    const auto [scaled, relu, product] = prog(r, z);
    const double tol = rtol_of<T>() * 10;
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
            const std::complex<double> e = std::exp(std::complex<double>(c));
            EXPECT_LE(std::abs(std::complex<double>(scaled(i, j)) - (e * std::complex<double>(z(i, j)) + e)), tol * 4);
            EXPECT_EQ(relu(i, j), r(i, j) > 0 ? r(i, j) : T(0));
            std::complex<double> want = 0;
            for (std::size_t k = 0; k < 3; ++k) want += std::complex<double>(z(i, k)) * double(r(k, j));
            EXPECT_LE(std::abs(std::complex<double>(product(i, j)) - want), tol * 10);
        }
}

// ============================================================================ PyTorch's real-tensor ops

/// Whether explain() says node `op` runs in a fused loop (its own or a region's).
template <class P>
bool fused(const P& program, const std::string& op) {
    const std::string text = graph::explain(program);
    const std::size_t at = text.find("= " + op + "(", text.find("graph after rewriting"));
    const std::size_t line_end = text.find('\n', at);
    if (at == std::string::npos) return false;
    const std::string line = text.substr(at, line_end - at);
    return line.find("fused loop") != std::string::npos || line.find("inlined in") != std::string::npos;
}

// clamp, clamp_min, clamp_max, maximum, minimum and the activations: one
// fused loop over the compiled kernels, equal to the eager ops (the same
// kernels) on ordinary and special values, broadcasting, numbers as bounds.
TYPED_TEST(GraphReal, OrderingAndActivationsFuseAndEqualTheEagerOps) {
    using T = TypeParam;
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    xt::xarray<T> x = random_array<T>({4, 9}, 40, -4.0, 4.0);
    const T specials[] = {T(0), T(-0.0), nan, inf, -inf, std::numeric_limits<T>::denorm_min(), T(-30), T(1e30), T(-100)};
    for (std::size_t j = 0; j < 9; ++j) x(0, j) = specials[j];
    const auto y = random_array<T>({9}, 41, -2.0, 2.0);
    auto ix = graph::input<T>("x");
    auto iy = graph::input<T>("y");
    auto clamped = graph::clamp(ix, -0.5, 1.5);
    auto ordered = graph::maximum(ix, iy) - graph::minimum(ix, 0.0) + graph::clamp_min(ix, iy) * graph::clamp_max(ix, 2.0);
    auto acts = graph::sigmoid(ix) + graph::silu(ix) * graph::erf(ix) - graph::gelu(ix) + graph::gelu(ix, "tanh");
    auto one_sided = graph::clamp(ix, std::nullopt, iy);
    auto prog = graph::lower(clamped, ordered, acts, one_sided);
    EXPECT_TRUE(fused(prog, "clamp_min") && fused(prog, "clamp_max") && fused(prog, "maximum") && fused(prog, "minimum") &&
                fused(prog, "sigmoid") && fused(prog, "silu") && fused(prog, "erf") && fused(prog, "gelu"))
        << graph::explain(prog);
    const auto [c, o, a, s] = prog(x, y);
    auto same = [](const auto& got, const auto& want, const char* what) {
        ASSERT_EQ(got.size(), want.size()) << what;
        for (std::size_t i = 0; i < want.size(); ++i) {
            const T g = got.flat(i), w = want.flat(i);
            EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : (g == w && std::signbit(g) == std::signbit(w))) << what << " at " << i << ": " << g << " vs " << w;
        }
    };
    same(c, xt::xarray<T>(realify::clamp(x, -0.5, 1.5)), "clamp");
    const xt::xarray<T> eager_ordered = realify::add(
        realify::sub(realify::maximum(x, y), realify::minimum(x, 0.0)),
        realify::mul(realify::clamp_min(x, y), realify::clamp_max(x, 2.0)));
    same(o, eager_ordered, "maximum − minimum + clamp_min · clamp_max");
    const xt::xarray<T> eager_acts = realify::add(
        realify::sub(realify::add(realify::sigmoid(x), realify::mul(realify::silu(x), realify::erf(x))), realify::gelu(x)),
        realify::gelu(x, "tanh"));
    same(a, eager_acts, "activations");
    same(s, xt::xarray<T>(realify::clamp(x, std::nullopt, y)), "clamp(x, None, y)");
    // PyTorch's values at the special points
    EXPECT_EQ(c(0, 1), T(0));
    EXPECT_TRUE(std::signbit(c(0, 1)));  // clamp(−0, −0.5, 1.5) keeps −0
    EXPECT_TRUE(std::isnan(c(0, 2)));
    EXPECT_EQ(c(0, 3), T(1.5));
}

/// The op `Tag` with binary kernels on real nodes, broadcast, in a chain:
/// one fused loop, equal to the eager op (the same kernels) element for
/// element, NaN for NaN and zero signs included.
template <class T, class Tag, class Build, class Eager>
void check_real_binary(const xt::xarray<T>& x, const xt::xarray<T>& y, Build build, Eager eager) {
    const std::string name(Tag::name);
    auto ix = graph::input<T>("x");
    auto iy = graph::input<T>("y");
    auto prog = graph::lower(build(ix, iy) * iy);
    EXPECT_TRUE(fused(prog, name)) << graph::explain(prog);
    const auto got = prog(x, y);
    const xt::xarray<T> want = realify::mul(eager(x, y), y);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const T g = got.flat(i), w = want.flat(i);
        EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : (g == w && std::signbit(g) == std::signbit(w)))
            << name << " at " << i << ": " << g << " vs " << w;
    }
}

TYPED_TEST(GraphReal, BinaryKernelOpsOfRealNodesFuseAndEqualTheEagerOps) {
    using T = TypeParam;
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    xt::xarray<T> x = random_array<T>({4, 9}, 42, -4.0, 4.0);
    const T specials[] = {T(0), T(-0.0), nan, inf, -inf, std::numeric_limits<T>::denorm_min(), T(-30), T(1e30), T(-100)};
    for (std::size_t j = 0; j < 9; ++j) x(0, j) = specials[j];
    const auto y = random_array<T>({9}, 43, -2.0, 2.0);
    // every op with binary kernels (each has a real × real form), from the op list
#define REALIFY_CHECK(OP)                                                                           \
    check_real_binary<T, realify::op::OP>(x, y, [](auto a, auto b) { return graph::OP(a, b); }, \
                                          [](const auto& a, const auto& b) { return realify::OP(a, b); });
    REALIFY_BINARY_KERNEL_OPS(REALIFY_CHECK)
#undef REALIFY_CHECK
}

// conj, conj_physical and real of a real node are the node (no code), as
// PyTorch returns the tensor; resolve_conj of any node likewise.
TEST(GraphRealOps, ConjAndRealOfARealNodeAreTheNode) {
    const auto x = random_array<double>({3, 4}, 42);
    auto in = graph::input<double>("x");
    auto z = graph::input<cd>("z");
    auto prog = graph::lower(graph::conj(in), graph::real(in) * 2.0, graph::conj_physical(in), graph::resolve_conj(in),
                             graph::resolve_conj(z), graph::conj_physical(z));
    const std::string text = graph::explain(prog);
    for (const char* op : {"conj(%0)", "real(%0)", "conj_physical(%0)", "resolve_conj(%0)"}) {
        const std::size_t at = text.find(op, text.find("graph after rewriting"));
        ASSERT_NE(at, std::string::npos) << op << "\n" << text;
        EXPECT_NE(text.substr(at, text.find('\n', at) - at).find("zero-copy"), std::string::npos) << op << "\n" << text;
    }
    const auto zv = random_array<cd>({2, 2}, 43);
    const auto [c, r2, p, rc, rz, pz] = prog(x, zv);
    expect_same(c, x, "conj");
    expect_same(r2, xt::xarray<double>(x * 2.0), "real · 2");
    expect_same(p, x, "conj_physical");
    expect_same(rc, x, "resolve_conj");
    expect_same(rz, zv, "resolve_conj of complex");
    expect_same(pz, xt::xarray<cd>(xt::conj(zv)), "conj_physical of complex");
}

// amax, amin, var and std_dev with dims and keepdim: their shapes are known
// before evaluation, so what they feed is a fused loop writing the caller's
// buffer; values equal the eager reductions.
TYPED_TEST(GraphReal, ExtremaAndVarianceFeedFusedLoops) {
    using T = TypeParam;
    const auto x = random_array<T>({3, 4, 5}, 44, -3.0, 3.0);
    auto in = graph::input<T>("x");
    auto centred = (in - graph::amax(in, {-1}, true)) / graph::std_dev(in, {-1}, 1.0, true);
    auto prog = graph::lower(centred, graph::amin(in, {0, 2}), graph::var(in), graph::var(in, {1}, 0.0, true));
    const auto [cg, mn, v, v1] = prog(x);
    const xt::xarray<T> want = realify::div(realify::sub(x, realify::amax(x, {-1}, true)), realify::std_dev(x, {-1}, 1.0, true));
    expect_near(cg, want, rtol_of<T>(), "(x − amax) / std");
    expect_same(mn, xt::xarray<T>(realify::amin(x, {0, 2})), "amin over (0, 2)");
    expect_near(v, xt::xarray<T>(realify::var(x)), rtol_of<T>(), "var");
    expect_near(v1, xt::xarray<T>(realify::var(x, {1}, 0.0, true)), rtol_of<T>(), "var(1, correction 0, keepdim)");
    xt::xarray<T> buffer = xt::zeros<T>({3, 4, 5});
    auto single = graph::lower(centred);
    const std::string plan = single.plan(graph::out(buffer), x).describe(single.ir());
    EXPECT_NE(plan.find("direct"), std::string::npos) << plan;
    single(graph::out(buffer), x);
    expect_near(buffer, want, rtol_of<T>(), "into the caller's buffer");
}

// softmax, log_softmax, layer_norm and rms_norm: graph ops equal to the eager
// ones, into strided and transposed caller buffers and in place.
TYPED_TEST(GraphReal, SoftmaxAndNormsAreGraphOps) {
    using T = TypeParam;
    const auto x = random_array<T>({2, 3, 7}, 45, -5.0, 5.0);
    const auto w = random_array<T>({7}, 46, 0.5, 1.5);
    const auto b = random_array<T>({7}, 47);
    auto in = graph::input<T>("x");
    auto iw = graph::input<T>("w");
    auto ib = graph::input<T>("b");
    auto prog = graph::lower(graph::softmax(in, -1), graph::log_softmax(in, 1), graph::layer_norm(in, {7}, iw, ib, 1e-5),
                             graph::rms_norm(in, {7}, iw, 1e-6), graph::layer_norm(in, {3, 7}));
    const auto [sm, lsm, ln, rms, ln2] = prog(x, w, b);
    expect_same(sm, xt::xarray<T>(realify::softmax(x, -1)), "softmax");
    expect_same(lsm, xt::xarray<T>(realify::log_softmax(x, 1)), "log_softmax");
    expect_same(ln, xt::xarray<T>(realify::layer_norm(x, {7}, w, b, 1e-5)), "layer_norm");
    expect_same(rms, xt::xarray<T>(realify::rms_norm(x, {7}, w, 1e-6)), "rms_norm");
    expect_same(ln2, xt::xarray<T>(realify::layer_norm(x, {3, 7})), "layer_norm over two dims");
    // Llama's RMSNorm against its formula, in long double
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
            long double ms = 0;
            for (std::size_t k = 0; k < 7; ++k) ms += (long double)x(i, j, k) * x(i, j, k);
            ms /= 7;
            for (std::size_t k = 0; k < 7; ++k)
                EXPECT_NEAR(rms(i, j, k), x(i, j, k) / std::sqrt(ms + 1e-6L) * w(k), 10 * rtol_of<T>());
        }
    // a softmax written into a transposed buffer, and in place
    auto single = graph::lower(graph::softmax(in * 2.0, 0));
    xt::xarray<T> storage = xt::zeros<T>({7, 3, 2});
    auto transposed = xt::transpose(storage, {2, 1, 0});
    single(graph::out(transposed), x);
    expect_same(xt::xarray<T>(transposed), xt::xarray<T>(realify::softmax(realify::mul(x, 2.0), 0)), "into a transposed buffer");
    xt::xarray<T> y = x;
    graph::lower(graph::softmax(in, -1))(graph::out(y), y);
    expect_same(y, sm, "in place");
    // a complex operand is refused at the builder (no lowering accepts it); see the compile-fail tests
    // an empty normalized_shape is refused where the graph is built, as PyTorch refuses it
    for (const auto& build : {std::function<void()>([&] { graph::layer_norm(in, {}); }),
                              std::function<void()>([&] { graph::rms_norm(in, {}, iw); })}) {
        try {
            build();
            ADD_FAILURE() << "an empty normalized_shape was accepted";
        } catch (const realify::shape_error& e) {
            EXPECT_NE(std::string(e.what()).find("normalized_shape is ()"), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).rfind("realify::graph::", 0), 0u) << e.what();
        }
    }
}

// softmax, the norms, the real reductions, comparisons and where read
// strided views in place (a row along a strided axis gathered into L1):
// the eager ops' values on packed copies.
TYPED_TEST(GraphReal, StridedViewsFeedRowsAndRealReductions) {
    using T = TypeParam;
    const auto x = random_array<T>({2, 3, 7}, 64, -4.0, 4.0);
    const auto w = random_array<T>({2}, 65, 0.5, 1.5);
    auto in = graph::input<T>("x");
    auto iw = graph::input<T>("w");
    auto xt02 = graph::transpose(in, 0, 2);                        // (7, 3, 2): rows of 2 along a stride of 21
    auto stepped = graph::slice(in, -1, 0, 7, 3);                  // (2, 3, 3)
    auto prog = graph::lower(graph::softmax(xt02, -1), graph::log_softmax(stepped, 1), graph::layer_norm(xt02, {3, 2}),
                             graph::rms_norm(xt02, {2}, iw, 1e-6), graph::amax(xt02, {0}, true), graph::var(stepped, {-1}),
                             graph::where(xt02 > 0.0, xt02, graph::expand(graph::unsqueeze(iw, 0), {3, 2})));
    const auto [sm, lsm, ln, rms, amax, var, relu] = prog(x, w);
    const auto x02 = packed<T>(xt::transpose(x, {2, 1, 0}));
    const auto xs = packed<T>(xt::view(x, xt::all(), xt::all(), xt::range(0, 7, 3)));
    const double tol = rtol_of<T>() * 10;
    expect_near(sm, xt::xarray<T>(realify::softmax(x02, -1)), tol, "softmax of a transpose");
    expect_near(lsm, xt::xarray<T>(realify::log_softmax(xs, 1)), tol, "log_softmax of a stepped slice");
    expect_near(ln, xt::xarray<T>(realify::layer_norm(x02, {3, 2})), tol, "layer_norm of a transpose");
    expect_near(rms, xt::xarray<T>(realify::rms_norm(x02, {2}, w, 1e-6)), tol, "rms_norm of a transpose");
    expect_same(amax, xt::xarray<T>(realify::amax(x02, {0}, true)), "amax of a transpose");
    expect_near(var, xt::xarray<T>(realify::var(xs, {-1})), tol, "var of a stepped slice");
    xt::xarray<T> want = x02;
    for (std::size_t i = 0; i < 7; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            for (std::size_t k = 0; k < 2; ++k)
                if (!(want(i, j, k) > 0)) want(i, j, k) = w(k);
    expect_same(relu, want, "where over a transpose and an expanded row");
}

// expand is a view of stride 0: into a product it is a repeated batch
// (realify::simd::real_gemm / complex_gemm's batch offsets, no copy of the
// repeated matrix), into a fused loop a broadcast operand.
TYPED_TEST(GraphReal, ExpandedBatchesRepeatInProductsAndLoops) {
    using T = TypeParam;
    using C = std::complex<T>;
    const double tol = rtol_of<T>() * 10;
    auto check = [&]<class E>(std::type_identity<E>) {
        const auto a = random_array<E>({4, 3}, 66);
        const auto b = random_array<E>({2, 3, 5}, 67);
        auto ia = graph::input<E>("a");
        auto ib = graph::input<E>("b");
        auto batched = graph::expand(graph::unsqueeze(ia, 0), {2, -1, -1});   // (2, 4, 3), batch stride 0
        auto prog = graph::lower(graph::matmul(batched, ib), graph::bmm(batched, ib),
                                 graph::matmul(graph::transpose(ib, 1, 2), graph::expand(graph::t(ia), {2, 3, 4})),
                                 graph::exp(batched) + graph::select(graph::expand(graph::unsqueeze(ia, 0), {3, -1, -1}), 0, 2));
        const auto [mat, bmm, mat_t, loop] = prog(a, b);
        const xt::xarray<E> a2 = packed<E>(xt::broadcast(a, {2, 4, 3}));
        const xt::xarray<E> want = realify::matmul(a2, b);
        expect_near(mat, want, tol, "matmul of an expanded batch");
        expect_near(bmm, want, tol, "bmm of an expanded batch");
        expect_near(mat_t, xt::xarray<E>(realify::matmul(packed<E>(xt::transpose(b, {0, 2, 1})), packed<E>(xt::broadcast(xt::transpose(a), {2, 3, 4})))),
                    tol, "matmul by an expanded transpose");
        expect_near(loop, xt::xarray<E>(realify::add(realify::exp(a2), a)), tol, "a fused loop over an expanded batch");
    };
    check(std::type_identity<T>{});
    check(std::type_identity<C>{});
}

// einsum's attention contractions in a graph, against matmul; complex too.
TYPED_TEST(GraphReal, EinsumContractionsOfAttention) {
    using T = TypeParam;
    const auto q = random_array<T>({1, 2, 5, 4}, 48);
    const auto k = random_array<T>({1, 2, 6, 4}, 49);
    const auto v = random_array<T>({1, 2, 6, 4}, 50);
    auto iq = graph::input<T>("q");
    auto ik = graph::input<T>("k");
    auto iv = graph::input<T>("v");
    auto scores = graph::einsum("bhqd,bhkd->bhqk", iq, ik);
    auto prog = graph::lower(scores, graph::einsum("bhqk,bhkd->bhqd", graph::softmax(scores, -1), iv),
                             graph::einsum("bqhd,bkhd->bhqk", graph::transpose(iq, 1, 2), graph::transpose(ik, 1, 2)));
    const auto [s, o, s2] = prog(q, k, v);
    const xt::xarray<T> want = realify::matmul(q, xt::xarray<T>(xt::transpose(k, {0, 1, 3, 2})));
    expect_near(s, want, rtol_of<T>() * 10, "bhqd,bhkd->bhqk");
    expect_near(s2, want, rtol_of<T>() * 10, "bqhd,bkhd->bhqk");
    expect_near(o, xt::xarray<T>(realify::matmul(realify::softmax(want, -1), v)), rtol_of<T>() * 10, "bhqk,bhkd->bhqd");
    using C = std::complex<T>;
    const auto a = random_array<C>({3, 4}, 51), bm = random_array<C>({4, 2}, 52);
    auto ia = graph::input<C>("a");
    auto ibm = graph::input<C>("b");
    const auto product = graph::lower(graph::einsum("ij,jk->ik", ia, ibm))(a, bm);
    const xt::xarray<C> want_c = realify::matmul(a, bm);
    for (std::size_t i = 0; i < want_c.size(); ++i) EXPECT_NEAR(std::abs(product.flat(i) - want_c.flat(i)), 0.0, rtol_of<T>() * 10);
}
