// The graph ops a Llama decoder layer needs (graph/layers.hpp, graph/sizes.hpp
// and triu / tril / hstack): each against the eager API, which runs the same
// compiled code (tests/ops/test_layers.cpp checks that against references);
// run-time shapes from graph::size and graph::int_input, known before
// evaluation; out= buffers written directly (route direct or rows, in place
// for RoPE), strided buffers, explain() naming what runs; Meta's causal mask
// and a decoder layer's attention written as in PyTorch, in one program.
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "realify/eager.hpp"
#include "realify/graph.hpp"
#include "realify/rope.hpp"

namespace graph = realify::graph;

namespace {

constexpr float minus_inf = -std::numeric_limits<float>::infinity();

template <class T>
xt::xarray<T> random_values(std::vector<std::size_t> shape, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> n(0, 1);
    xt::xarray<T> a = xt::xarray<T>::from_shape(shape);
    for (auto& x : a) x = static_cast<T>(n(gen));
    return a;
}

std::string route_of(const graph::write_plan& plan, const graph::graph_ir& ir) { return plan.describe(ir); }

TEST(GraphLayers, MetasCausalMaskWithRunTimeShapes) {
    // seqlen = tokens.shape[1]; mask = torch.full((seqlen, seqlen), float("-inf"))
    // mask = torch.triu(mask, diagonal=1); mask = torch.hstack([torch.zeros((seqlen, start_pos)), mask])
    auto tokens = graph::input<float>("h");
    auto start_pos = graph::int_input("start_pos");
    auto seqlen = graph::size(tokens, 1);
    auto mask = graph::triu(graph::full({seqlen, seqlen}, minus_inf), 1);
    auto prog = graph::lower(graph::hstack(graph::zeros({seqlen, start_pos}), mask));
    EXPECT_EQ(prog.input_names(), (std::vector<std::string>{"h", "start_pos"}));
    for (const std::size_t S : {1u, 4u}) {
        for (const int start : {0, 3}) {
            const xt::xtensor<float, 3> h = xt::zeros<float>({std::size_t{1}, S, std::size_t{8}});
            const auto got = prog(h, start);
            const auto want = realify::hstack(std::vector<xt::xarray<float>>{
                realify::zeros({std::ptrdiff_t(S), start}), realify::triu(realify::full({std::ptrdiff_t(S), std::ptrdiff_t(S)}, minus_inf), 1)});
            EXPECT_EQ(got, want) << S << ' ' << start;
        }
    }
    // the mask alone: its shape is known before evaluation, so out= is written directly
    auto alone = graph::lower(mask);
    xt::xtensor<float, 2> buffer = xt::zeros<float>({4, 4});
    const xt::xtensor<float, 3> h = xt::zeros<float>({1, 4, 8});
    EXPECT_NE(route_of(alone.plan(graph::out(buffer), h), alone.ir()).find("triu: direct"), std::string::npos);
    alone(graph::out(buffer), h);
    EXPECT_EQ(buffer(1, 2), minus_inf);
    EXPECT_EQ(buffer(2, 1), 0.0f);
    const std::string text = graph::explain(alone);
    EXPECT_NE(text.find("sym_size[dim 1]"), std::string::npos) << text;
    EXPECT_NE(text.find("full[(#0, #1), fill -inf]"), std::string::npos) << text;
}

TEST(GraphLayers, CreationOpsAndSizes) {
    auto x = graph::input<double>("x");
    auto n = graph::int_input("n");
    auto prog = graph::lower(graph::arange<double>(graph::size(x, -1)), graph::arange(1, n, 2), graph::ones<double>({2, n}),
                             graph::full({graph::size(x, 0)}, 0.5), graph::empty_like(x));
    const xt::xtensor<double, 2> xv = xt::ones<double>({3, 5});
    const auto [a, b, o, f, e] = prog(xv, 8);
    EXPECT_EQ(a, (xt::xtensor<double, 1>{0, 1, 2, 3, 4}));
    EXPECT_EQ(b, (xt::xtensor<float, 1>{1, 3, 5, 7}));
    EXPECT_EQ(o, xt::xarray<double>(xt::ones<double>({2, 8})));
    EXPECT_EQ(f, xt::xarray<float>(xt::ones<float>({3}) * 0.5f));
    EXPECT_EQ(e.shape()[1], 5u);
    // into strided buffers, as planned before anything runs
    auto ar = graph::lower(graph::arange<double>(graph::size(x, 1)));
    xt::xtensor<double, 1> back = xt::zeros<double>({5});
    auto reversed = xt::view(back, xt::range(4, -6, -1));
    EXPECT_NE(route_of(ar.plan(graph::out(reversed), xv), ar.ir()).find("arange: rows"), std::string::npos);
    ar(graph::out(reversed), xv);
    EXPECT_EQ(back, (xt::xtensor<double, 1>{4, 3, 2, 1, 0}));
    // PyTorch's errors, when the graph runs
    auto bad = graph::lower(graph::zeros({n, 2}));
    EXPECT_THROW(bad(-1), realify::shape_error);
    auto step0 = graph::lower(graph::arange(0, n, 0));
    EXPECT_THROW(step0(3), realify::error);
    auto dim = graph::lower(graph::zeros({graph::size(x, 2)}));
    EXPECT_THROW(dim(xv), realify::shape_error);
    // an integer where a tensor is declared, and the other way round
    EXPECT_THROW(prog(xv, xv), realify::layout_error);
    EXPECT_THROW(prog(3, 8), realify::layout_error);
}

TEST(GraphLayers, RopeOneTensorAtARunTimePosition) {
    using realify::rope::pair_layout;
    for (auto layout : {pair_layout::interleaved, pair_layout::half_split}) {
        auto x = graph::input<float>("x");
        auto f = graph::input<std::complex<float>>("freqs_cis");
        auto pos = graph::int_input("start_pos");
        auto prog = graph::lower(graph::rope(x, f, pos, layout));
        auto fixed = graph::lower(graph::rope(x, f, 2, layout));
        const xt::xtensor<float, 4> xv = random_values<float>({2, 3, 4, 16}, 1);
        const auto freqs = realify::rope::precompute_freqs_cis<float>(16, 8, 10000.0);
        const auto want = realify::rope::apply_rotary_emb(xv, freqs, 2, layout);
        EXPECT_EQ(prog(xv, freqs, 2), want);
        EXPECT_EQ(fixed(xv, freqs), want);
        // into a slot of a KV cache of batch 2: written through its strides, no temporary
        xt::xtensor<float, 4> cache = xt::zeros<float>({2, 8, 4, 16});
        auto slot = xt::view(cache, xt::all(), xt::range(2, 5), xt::all(), xt::all());
        EXPECT_NE(route_of(prog.plan(graph::out(slot), xv, freqs, 2), prog.ir()).find("rope: rows"), std::string::npos);
        prog(graph::out(slot), xv, freqs, 2);
        EXPECT_EQ((xt::xtensor<float, 4>(slot)), want);
        // in place
        xt::xtensor<float, 4> in_place = xv;
        EXPECT_NE(route_of(prog.plan(graph::out(in_place), in_place, freqs, 2), prog.ir()).find("rope: direct"),
                  std::string::npos);
        prog(graph::out(in_place), in_place, freqs, 2);
        EXPECT_EQ(in_place, want);
        EXPECT_THROW(prog(xv, freqs, 6), realify::shape_error);  // rows 6 … 8 of 8
        const std::string text = graph::explain(prog);
        EXPECT_NE(text.find("the compiled RoPE kernel"), std::string::npos) << text;
    }
}

TEST(GraphLayers, LinearReadsTheWeightThroughItsStrides) {
    auto x = graph::input<float>("x");
    auto w = graph::input<float>("w");
    auto b = graph::input<float>("b");
    auto prog = graph::lower(graph::linear(x, w, b), graph::linear(x, w));
    const xt::xtensor<float, 3> xv = random_values<float>({2, 3, 8}, 2);
    const xt::xtensor<float, 2> wv = random_values<float>({5, 8}, 3);
    const xt::xtensor<float, 1> bv = random_values<float>({5}, 4);
    const auto [yb, y] = prog(xv, wv, bv);
    EXPECT_EQ(yb, realify::linear(xv, wv, bv));
    EXPECT_EQ(y, realify::linear(xv, wv));
    xt::xtensor<float, 3> ob = xt::zeros<float>({2, 3, 5});
    xt::xtensor<float, 3> o = xt::zeros<float>({2, 3, 5});
    const std::string plan = route_of(prog.plan(graph::out(ob, o), xv, wv, bv), prog.ir());
    EXPECT_NE(plan.find("linear: direct"), std::string::npos) << plan;
    prog(graph::out(ob, o), xv, wv, bv);
    EXPECT_EQ(ob, yb);
    const std::string text = graph::explain(prog);
    EXPECT_NE(text.find("w read through its strides (no copy)"), std::string::npos) << text;
}

TEST(GraphLayers, AttentionIsOneFusedNode) {
    auto q = graph::input<float>("q");
    auto k = graph::input<float>("k");
    auto v = graph::input<float>("v");
    auto causal = graph::lower(graph::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, true));
    auto gqa = graph::lower(graph::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, false, 0.25, true));
    auto m = graph::input<float>("m");
    auto masked = graph::lower(graph::scaled_dot_product_attention(q, k, v, m > 0.0f));
    const xt::xtensor<float, 4> qv = random_values<float>({1, 4, 6, 8}, 5), kv = random_values<float>({1, 2, 6, 8}, 6),
                                vv = random_values<float>({1, 2, 6, 8}, 7);
    EXPECT_EQ(gqa(qv, kv, vv), realify::scaled_dot_product_attention(qv, kv, vv, std::nullopt, 0.0, false, 0.25, true));
    const xt::xtensor<float, 4> kf = random_values<float>({1, 4, 6, 8}, 8), vf = random_values<float>({1, 4, 6, 8}, 9);
    const auto want = realify::scaled_dot_product_attention(qv, kf, vf, std::nullopt, 0.0, true);
    EXPECT_EQ(causal(qv, kf, vf), want);
    // into (B, S, H, E) memory seen as (B, H, S, E): through its strides
    xt::xtensor<float, 4> o = xt::zeros<float>({1, 6, 4, 8});
    auto ot = xt::transpose(o, {0, 2, 1, 3});
    const std::string plan = route_of(causal.plan(graph::out(ot), qv, kf, vf), causal.ir());
    EXPECT_NE(plan.find("scaled_dot_product_attention: rows"), std::string::npos) << plan;
    causal(graph::out(ot), qv, kf, vf);
    EXPECT_EQ((xt::xtensor<float, 4>(ot)), want);
    // an out= buffer that is an operand: through fresh memory
    xt::xtensor<float, 4> alias = vf;
    causal(graph::out(alias), qv, kf, alias);
    EXPECT_EQ(alias, want);
    // a bool mask made in the graph (a comparison), broadcast over the heads
    const xt::xtensor<float, 2> mv = random_values<float>({6, 6}, 10);
    const xt::xtensor<bool, 2> keep = mv > 0.0f;
    EXPECT_EQ(masked(qv, kf, vf, mv), realify::scaled_dot_product_attention(qv, kf, vf, keep));
    const std::string text = graph::explain(causal);
    EXPECT_NE(text.find("fused attention"), std::string::npos) << text;
    EXPECT_THROW(graph::scaled_dot_product_attention(q, k, v, std::nullopt, 0.1), realify::error);
}

TEST(GraphLayers, ADecoderLayersAttentionInOneProgram) {
    // Meta's Attention.forward for one layer, with the KV cache as inputs:
    // xq = wq(x).view(b, s, h, d); xq = rope(xq); keys and values of the cache;
    // scores over (B, H, S, E) views; output = wo(attention)
    const std::size_t B = 1, S = 4, H = 4, D = 8, dim = H * D, start = 2;
    auto x = graph::input<float>("x");
    auto wq = graph::input<float>("wq");
    auto wo = graph::input<float>("wo");
    auto keys = graph::input<float>("keys");      // (B, start + S, H, D) of the cache
    auto values = graph::input<float>("values");
    auto f = graph::input<std::complex<float>>("freqs_cis");
    auto pos = graph::int_input("start_pos");
    auto seqlen = graph::size(x, 1);
    auto xq = graph::rope(graph::reshape(graph::linear(x, wq), {graph::same(0), graph::same(1), std::ptrdiff_t(H), -1}), f, pos);
    auto mask = graph::hstack(graph::zeros({seqlen, pos}), graph::triu(graph::full({seqlen, seqlen}, minus_inf), 1));
    auto att = graph::scaled_dot_product_attention(graph::transpose(xq, 1, 2), graph::transpose(keys, 1, 2),
                                                   graph::transpose(values, 1, 2), mask);
    auto out = graph::linear(graph::reshape(graph::transpose(att, 1, 2), {graph::same(0), graph::same(1), -1}), wo);
    auto prog = graph::lower(out);

    const xt::xtensor<float, 3> xv = random_values<float>({B, S, dim}, 10);
    const xt::xtensor<float, 2> wqv = random_values<float>({dim, dim}, 11), wov = random_values<float>({dim, dim}, 12);
    const xt::xtensor<float, 4> kv = random_values<float>({B, start + S, H, D}, 13), vv = random_values<float>({B, start + S, H, D}, 14);
    const auto freqs = realify::rope::precompute_freqs_cis<float>(D, 16, 10000.0);
    const auto got = prog(xv, wqv, wov, kv, vv, freqs, int(start));

    // the same in eager calls
    const xt::xtensor<float, 4> q4 = xt::reshape_view(realify::linear(xv, wqv), {B, S, H, D});
    const auto qr = realify::rope::apply_rotary_emb(q4, freqs, start);
    const auto em = realify::hstack(std::vector<xt::xarray<float>>{realify::zeros({std::ptrdiff_t(S), std::ptrdiff_t(start)}),
                                                                   realify::triu(realify::full({std::ptrdiff_t(S), std::ptrdiff_t(S)}, minus_inf), 1)});
    const xt::xtensor<float, 4> a = realify::scaled_dot_product_attention(
        xt::transpose(qr, {0, 2, 1, 3}), xt::transpose(kv, {0, 2, 1, 3}), xt::transpose(vv, {0, 2, 1, 3}), em);
    const xt::xtensor<float, 3> flat = xt::reshape_view(xt::xtensor<float, 4>(xt::transpose(a, {0, 2, 1, 3})), {B, S, dim});
    EXPECT_EQ(got, realify::linear(flat, wov));
    const auto c = graph::coverage(prog);
    EXPECT_EQ(c.n_supported, c.n_total);
}

// ---- bool and integer tensors: masks, token ids, indices, positions -------------------------

TEST(GraphIntegerInputs, MasksIndicesAndCastsAsPyTorchTakesThem) {
    auto mask = graph::input<bool>("mask");
    auto x = graph::input<float>("x");
    auto ids = graph::input<std::int64_t>("ids");
    auto i32 = graph::input<std::int32_t>("i32");
    auto prog = graph::lower(graph::where(mask, x, 0.0), graph::to<float>(ids), graph::to<double>(i32), graph::to<float>(mask),
                             ids > 2, graph::eq(ids, i32), graph::logical_and(mask, ids > 2), graph::logical_or(mask, x),
                             graph::logical_xor(mask, ids), graph::logical_not(mask), graph::masked_fill(x, mask, -1.0));
    const xt::xarray<bool> mv = {true, false, true};
    const xt::xarray<float> xv = {0.f, std::numeric_limits<float>::quiet_NaN(), 2.5f};
    const xt::xarray<std::int64_t> iv = {1, 5, 0};
    const xt::xarray<std::int32_t> jv = {1, 2, 0};
    // a strided (reversed) bool mask and a column of int64 ids are read where they lie
    const auto [w, f, d, m, gt, eq, land, lor, lxor, lnot, mf] = prog(mv, xv, iv, jv);
    EXPECT_EQ(w, (xt::xarray<float>{0.f, 0.f, 2.5f}));
    EXPECT_EQ(f, (xt::xarray<float>{1.f, 5.f, 0.f}));
    EXPECT_EQ(d, (xt::xarray<double>{1.0, 2.0, 0.0}));
    EXPECT_EQ(m, (xt::xarray<float>{1.f, 0.f, 1.f}));
    EXPECT_EQ(gt, (xt::xarray<bool>{false, true, false}));
    EXPECT_EQ(eq, (xt::xarray<bool>{true, false, true}));
    EXPECT_EQ(land, (xt::xarray<bool>{false, false, false}));
    EXPECT_EQ(lor, (xt::xarray<bool>{true, true, true}));  // NaN is true, as PyTorch reads it
    EXPECT_EQ(lxor, (xt::xarray<bool>{false, true, true}));
    EXPECT_EQ(lnot, (xt::xarray<bool>{false, true, false}));
    EXPECT_EQ(mf(0), -1.f);
    EXPECT_TRUE(std::isnan(mf(1)));
    EXPECT_EQ(mf(2), -1.f);
    // a strided mask: reversed
    const xt::xarray<bool> big = {true, true, false};
    auto reversed = xt::view(big, xt::range(xt::placeholders::_, xt::placeholders::_, -1));
    auto wr = graph::lower(graph::where(mask, x, 7.0));
    EXPECT_EQ(wr(reversed, xv)(0), 7.f);
    EXPECT_EQ(wr(reversed, xv)(2), 2.5f);
    // another element type than the input declares: layout_error naming both
    auto only = graph::lower(graph::to<float>(ids));
    try {
        only(jv);
        ADD_FAILURE() << "an int32 tensor was taken for an int64 input";
    } catch (const realify::layout_error& e) {
        EXPECT_NE(std::string(e.what()).find("int64 tensor, and was given a int32 tensor"), std::string::npos) << e.what();
    }
}

// Arithmetic promotes bool and integer tensors as torch.result_type does:
// to the floating or complex tensor's type, to float32 beside a number, and
// ÷ is true division (float32) between integers.
TEST(GraphIntegerInputs, ArithmeticPromotesBoolAndIntegerTensorsAsPyTorch) {
    auto ids = graph::input<std::int64_t>("ids");
    auto x = graph::input<double>("x");
    auto mask = graph::input<bool>("mask");
    auto z = graph::input<std::complex<float>>("z");
    auto prog = graph::lower(ids + x, ids * 2.5, ids / 2, mask * z, x - mask, ids / ids, graph::pow_tensor(ids, x));
    using C = std::complex<float>;
    const xt::xarray<std::int64_t> iv = {1, 2, 3};
    const xt::xarray<double> xv = {0.5, 0.5, 2.0};
    const xt::xarray<bool> mv = {true, false, true};
    const xt::xarray<C> zv = {C(1, 1), C(2, 2), C(3, 3)};
    const auto [sum, scaled, halved, masked, minus, ratio, power] = prog(iv, xv, mv, zv);
    static_assert(std::is_same_v<decltype(sum)::value_type, double>);   // int64 + float64: float64
    static_assert(std::is_same_v<decltype(scaled)::value_type, float>); // int64 × 2.5: float32
    static_assert(std::is_same_v<decltype(halved)::value_type, float>); // int64 ÷ 2: float32
    static_assert(std::is_same_v<decltype(masked)::value_type, C>);     // bool × complex64: complex64
    static_assert(std::is_same_v<decltype(ratio)::value_type, float>);  // int64 ÷ int64: float32
    EXPECT_EQ(sum, (xt::xarray<double>{1.5, 2.5, 5.0}));
    EXPECT_EQ(scaled, (xt::xarray<float>{2.5f, 5.f, 7.5f}));
    EXPECT_EQ(halved, (xt::xarray<float>{0.5f, 1.f, 1.5f}));
    EXPECT_EQ(masked, (xt::xarray<C>{C(1, 1), C(0, 0), C(3, 3)}));
    EXPECT_EQ(minus, (xt::xarray<double>{-0.5, 0.5, 1.0}));
    EXPECT_EQ(ratio, (xt::xarray<float>{1.f, 1.f, 1.f}));
    EXPECT_NEAR(power(2), 9.0, 1e-14);  // 3 ** 2.0, within pow's documented ulps
    // the casts are nodes of the program, as explain() shows
    EXPECT_NE(graph::explain(graph::lower(ids * 2.5)).find("to"), std::string::npos);
}

// std::vector, std::span and std::array arguments are the 1-D tensors they
// hold, read where they lie, for every element type an input declares.
TEST(GraphIntegerInputs, StdContainersAreOneDimensionalArguments) {
    auto mask = graph::input<bool>("mask");
    auto ids = graph::input<std::int64_t>("ids");
    auto z = graph::input<std::complex<float>>("z");
    auto prog = graph::lower(graph::where(mask, z * graph::to<float>(ids), z));
    using C = std::complex<float>;
    const std::array<bool, 3> mv{true, false, true};
    const std::vector<std::int64_t> iv{2, 3, -1};
    std::vector<C> zv{C(1, 2), C(3, 4), C(5, 6)};
    const xt::xarray<C> want = {C(2, 4), C(3, 4), C(-5, -6)};
    EXPECT_EQ(prog(mv, iv, zv), want);
    EXPECT_EQ(prog(std::span<const bool>(mv), std::span<const std::int64_t>(iv), std::span<C>(zv)), want);
    // the same arguments as xtensor containers give the same bits
    EXPECT_EQ(prog(xt::xarray<bool>{true, false, true}, xt::xarray<std::int64_t>{2, 3, -1}, xt::adapt(zv)), want);
    // an element type the input does not declare is refused, naming both
    EXPECT_THROW(prog(mv, std::vector<std::int32_t>{2, 3, -1}, zv), realify::layout_error);
    EXPECT_THROW(prog(mv, iv, std::vector<float>{1, 2, 3}), realify::layout_error);
}

TEST(GraphIntegerInputs, EmbeddingIndexSelectAndGatherMatchTheEagerOpsAndPyTorch) {
    auto ids = graph::input<std::int64_t>("ids");
    auto ids32 = graph::input<std::int32_t>("ids32");
    auto w = graph::input<float>("weight");
    auto z = graph::input<std::complex<double>>("z");
    auto prog = graph::lower(graph::embedding(ids, w), graph::embedding(ids32, w), graph::index_select(w, -1, ids32),
                             graph::gather(z, 1, ids));
    const xt::xarray<std::int64_t> iv = {{0, 1}, {1, 0}};
    const xt::xarray<std::int32_t> jv = {2, 0};
    const xt::xarray<float> wv = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    using C = std::complex<double>;
    const xt::xarray<C> zv = {{C(1, -1), C(2, -2)}, {C(3, -3), C(4, -4)}};
    const auto [e, e32, sel, g] = prog(iv, jv, wv, zv);
    // torch.nn.functional.embedding(ids, weight), torch.index_select(weight, -1, ids32), torch.gather(z, 1, ids)
    EXPECT_EQ(e, (xt::xarray<float>{{{1, 2, 3}, {4, 5, 6}}, {{4, 5, 6}, {1, 2, 3}}}));
    EXPECT_EQ(e32, (xt::xarray<float>{{7, 8, 9}, {1, 2, 3}}));
    EXPECT_EQ(sel, (xt::xarray<float>{{3, 1}, {6, 4}, {9, 7}}));
    EXPECT_EQ(g, (xt::xarray<C>{{C(1, -1), C(2, -2)}, {C(4, -4), C(3, -3)}}));
    EXPECT_EQ(e, realify::embedding(iv, wv));
    EXPECT_EQ(sel, realify::index_select(wv, 1, jv));
    EXPECT_EQ(g, realify::gather(zv, 1, iv));
    // a transposed table is read through its strides
    EXPECT_EQ(realify::index_select(xt::transpose(wv), 0, jv), (xt::xarray<float>{{3, 6, 9}, {1, 4, 7}}));
    // shapes known before evaluation: out= written directly
    xt::xarray<float> buffer = xt::zeros<float>({2, 2, 3});
    auto alone = graph::lower(graph::embedding(ids, w));
    alone(graph::out(buffer), iv, wv);
    EXPECT_EQ(buffer, e);
    // out of range, negative: realify::error naming the op, the index and the shape; nothing read outside
    const xt::xarray<std::int64_t> far = {{0, 3}};
    const xt::xarray<std::int64_t> negative = {{-1, 0}};
    try {
        alone(far, wv);
        ADD_FAILURE() << "an out-of-range id was taken";
    } catch (const realify::error& err) {
        EXPECT_NE(std::string(err.what()).find("embedding: index 3 is out of range for dimension 0 of size 3"),
                  std::string::npos) << err.what();
    }
    EXPECT_THROW(alone(negative, wv), realify::error);
    EXPECT_THROW(realify::gather(zv, 1, xt::xarray<std::int64_t>{{0, 2}, {0, 0}}), realify::error);
    EXPECT_THROW(realify::gather(zv, 1, xt::xarray<std::int64_t>{0, 1}), realify::shape_error);
    EXPECT_THROW(realify::index_select(wv, 2, jv), realify::shape_error);
    EXPECT_THROW(realify::embedding(iv, xt::xarray<float>{1, 2}), realify::shape_error);
    EXPECT_THROW(realify::masked_fill(wv, xt::xarray<bool>{true, false}, 0.f), realify::shape_error);
    EXPECT_EQ(realify::masked_fill(wv, xt::xarray<bool>{true, false, false}, 0.f),
              (xt::xarray<float>{{0, 2, 3}, {0, 5, 6}, {0, 8, 9}}));
}

TEST(GraphIntegerInputs, RopePositionAsAZeroDimensionalInt64Tensor) {
    auto x = graph::input<float>("x");
    auto f = graph::input<std::complex<float>>("freqs_cis");
    auto pos = graph::input<std::int64_t>("start_pos");
    auto prog = graph::lower(graph::rope(x, f, pos));
    const xt::xtensor<float, 4> xv = random_values<float>({1, 3, 2, 8}, 21);
    const auto freqs = realify::rope::precompute_freqs_cis<float>(8, 8, 10000.0);
    const xt::xarray<std::int64_t> start = xt::xarray<std::int64_t>(3);
    EXPECT_EQ(prog(xv, freqs, start), realify::rope::apply_rotary_emb(xv, freqs, 3));
    EXPECT_THROW(prog(xv, freqs, xt::xarray<std::int64_t>{3, 4}), realify::shape_error);
}

// Torch-TensorRT's complex lowering test of torch.where: a complex product
// selected by a bool mask input against a complex input, returned through
// view_as_real — the mask is an argument, as in the exported program.
TEST(GraphIntegerInputs, TorchTensorRTComplexWhereWithABoolMaskInput) {
    auto x = graph::input<float>("x");
    auto y = graph::input<float>("y");
    auto mask = graph::input<bool>("mask");
    auto a = graph::view_as_complex(x);
    auto b = graph::view_as_complex(y);
    auto out = graph::view_as_real(graph::where(mask, a * b, a));
    auto prog = graph::lower(out);
    const xt::xarray<float> xv = random_values<float>({2, 3, 2}, 31), yv = random_values<float>({2, 3, 2}, 32);
    const xt::xarray<bool> mv = {{true, false, true}, {false, false, true}};
    const auto got = prog(xv, yv, mv);
    ASSERT_EQ(got.shape(), (std::vector<std::size_t>{2, 3, 2}));
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
            const std::complex<float> p(xv(i, j, 0), xv(i, j, 1)), q(yv(i, j, 0), yv(i, j, 1));
            const std::complex<float> want = mv(i, j) ? p * q : p;
            EXPECT_NEAR(got(i, j, 0), want.real(), 1e-5f);
            EXPECT_NEAR(got(i, j, 1), want.imag(), 1e-5f);
        }
    EXPECT_EQ(graph::coverage(prog).n_supported, graph::coverage(prog).n_total);
}

}  // namespace
