// Saving and loading lowered programs (graph/save.hpp): round trips of
// RoPE, a fused chain, reductions, products, a constant, the kernel ops and a
// user op, the loaded program giving the original's bits at 1 and 2 threads
// (new tensors and out= buffers); and hand-made bad files, each refused with
// a realify::error naming what is wrong.
#include <complex>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/graph.hpp"
#include "realify/graph/save.hpp"
#include "realify/threads.hpp"
#include "save_programs.hpp"
#include "../support/random_uniform.hpp"

namespace graph = realify::graph;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

using realify::testing::random_uniform;

/// Whether two containers hold the same shape and the same bits.
template <class A, class B>
bool same_bits(const A& a, const B& b) {
    using E = typename A::value_type;
    static_assert(std::is_same_v<E, typename B::value_type>);
    if (!std::equal(a.shape().begin(), a.shape().end(), b.shape().begin(), b.shape().end())) return false;
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(E)) == 0;
}

graph::loaded_program reload(const std::string& bytes, const graph::user_ops& users = {}) {
    std::istringstream in(bytes);
    return graph::load(in, users);
}

/// The loaded program's outputs have the original's bits at 1 and 2 threads.
template <class P, class... Args>
void expect_round_trip(const P& prog, const Args&... args) {
    const std::string bytes = realify::test::saved(prog);
    const graph::loaded_program loaded = reload(bytes);
    EXPECT_EQ(loaded.input_names(), prog.input_names());
    EXPECT_EQ(realify::test::saved(loaded), bytes) << "saving the loaded program gives the same file";
    EXPECT_EQ(P::describe(loaded.ir(), true), P::describe(prog.ir(), true)) << "the same lowered records";
    for (int threads : {1, 2}) {
        realify::scoped_num_threads scope(threads);
        const auto want = prog(args...);
        const std::vector<graph::loaded_tensor> got = loaded(args...);
        if constexpr (requires { std::tuple_size<decltype(want)>::value; }) {
            ASSERT_EQ(got.size(), std::tuple_size_v<decltype(want)>);
            std::apply(
                [&](const auto&... w) {
                    std::size_t k = 0;
                    (([&] {
                         using C = xt::xarray<typename std::remove_cvref_t<decltype(w)>::value_type>;
                         EXPECT_TRUE(same_bits(std::get<C>(got[k]), C(w))) << "output " << k << " at " << threads << " threads";
                         ++k;
                     }()),
                     ...);
                },
                want);
        } else {
            ASSERT_EQ(got.size(), 1u);
            using C = xt::xarray<typename decltype(want)::value_type>;
            EXPECT_TRUE(same_bits(std::get<C>(got[0]), C(want))) << "at " << threads << " threads";
        }
    }
}

}  // namespace

TEST(GraphSave, RopeRoundTripGivesTheSameBitsAsTheOriginal) {
    auto prog = realify::test::rope_program();
    const auto xq = random_uniform<float>({1, 6, 4, 16}, 1);
    const auto xk = random_uniform<float>({1, 6, 2, 16}, 2);
    const auto freqs = random_uniform<cf>({6, 8}, 3);
    expect_round_trip(prog, xq, xk, freqs);

    // out= buffers, into an xtensor of another container type, and the file on disk
    const auto path = std::filesystem::temp_directory_path() / "realify_test_rope.realify";
    prog.save(path);
    const graph::loaded_program loaded = graph::load(path);
    std::filesystem::remove(path);
    xt::xtensor<float, 4> q_want, k_want;
    std::tie(q_want, k_want) = prog(xq, xk, freqs);
    xt::xtensor<float, 4> q = xt::zeros<float>({1, 6, 4, 16}), k = xt::zeros<float>({1, 6, 2, 16});
    loaded(graph::out(q, k), xq, xk, freqs);
    EXPECT_TRUE(same_bits(q, q_want));
    EXPECT_TRUE(same_bits(k, k_want));
    EXPECT_EQ(loaded.plan(graph::out(q, k), xq, xk, freqs).describe(loaded.ir()),
              prog.plan(graph::out(q, k), xq, xk, freqs).describe(prog.ir()));
    xt::xtensor<double, 4> wrong = xt::zeros<double>({1, 6, 4, 16});
    EXPECT_THROW(loaded(graph::out(wrong, k), xq, xk, freqs), realify::layout_error);
    EXPECT_THROW(loaded(xq, xk), realify::error);  // too few arguments, as the original
}

TEST(GraphSave, FusedChainsNumbersAndConstantsRoundTrip) {
    auto x = graph::input<double>("x");
    auto z = graph::input<cd>("z");
    const xt::xarray<double> c = random_uniform<double>({3, 5}, 4);
    auto real_chain = graph::exp(x * 2.0 + graph::constant(c)) - graph::sin(x) / 3;
    auto complex_chain = graph::abs(graph::conj(z) * z + cd(0.5, -1.0)) * 0.25f;
    auto prog = graph::lower(real_chain, complex_chain, graph::sigmoid(x));
    expect_round_trip(prog, random_uniform<double>({3, 5}, 5), random_uniform<cd>({4, 7}, 6));
}

TEST(GraphSave, ReductionsAndTableOpsRoundTrip) {
    auto x = graph::input<float>("x");
    auto z = graph::input<cf>("z");
    auto prog = graph::lower(graph::sum(x, {1}), graph::mean(z, {0}, true), graph::softmax(x, -1), graph::cumsum(z, 1),
                             graph::amax(x, {0}), graph::var(x, {1}, 1.0, false), graph::flip(z, {0}));
    expect_round_trip(prog, random_uniform<float>({5, 9}, 7), random_uniform<cf>({4, 6}, 8));
}

TEST(GraphSave, ProductsAndKernelOpsRoundTrip) {
    auto a = graph::input<cf>("a");
    auto b = graph::input<cf>("b");
    auto x = graph::input<float>("x");
    auto w = graph::input<float>("w");
    auto bias = graph::input<float>("bias");
    auto n = graph::int_input("n");
    auto prog = graph::lower(graph::matmul(a, b), graph::linear(x, w, bias), graph::triu(graph::mm(x, graph::t(w)), 1),
                             graph::full<float>({n, 3}, 1.5), graph::arange<double>(0, n, 1));
    expect_round_trip(prog, random_uniform<cf>({2, 4, 3}, 9), random_uniform<cf>({3, 5}, 10), random_uniform<float>({6, 8}, 11),
                      random_uniform<float>({4, 8}, 12), random_uniform<float>({4}, 13), 5);
}

// Torch-TensorRT's test_rope_complex_form_serialization_retrace: RoPE in
// complex form (Llama's apply_rotary_emb — view_as_complex of the pairs,
// freqs_cis broadcast, a complex multiply, view_as_real, flatten, type_as)
// lowered, saved to a file, loaded back and run: the loaded program gives
// the original's bits and the reference's values (computed on std::complex
// here, as PyTorch's eager module is there); saved again, it gives the same file.
TEST(GraphSave, RopeComplexFormSerializationRetrace) {
    auto prog = realify::test::rope_program();
    const std::size_t batch = 2, seq = 8, heads_q = 4, heads_k = 2, dim = 16;
    const auto xq = random_uniform<float>({batch, seq, heads_q, dim}, 21);
    const auto xk = random_uniform<float>({batch, seq, heads_k, dim}, 22);
    const auto freqs = random_uniform<cf>({seq, dim / 2}, 23);
    const auto path = std::filesystem::temp_directory_path() / "realify_rope_complex_form.realify";
    prog.save(path);
    const graph::loaded_program loaded = graph::load(path);
    std::filesystem::remove(path);

    const auto [q_want, k_want] = prog(xq, xk, freqs);
    const std::vector<graph::loaded_tensor> got = loaded(xq, xk, freqs);
    ASSERT_EQ(got.size(), 2u);
    const auto& q = std::get<xt::xarray<float>>(got[0]);
    const auto& k = std::get<xt::xarray<float>>(got[1]);
    EXPECT_TRUE(same_bits(q, xt::xarray<float>(q_want)));
    EXPECT_TRUE(same_bits(k, xt::xarray<float>(k_want)));
    const auto check_reference = [&](const xt::xarray<float>& x, const xt::xarray<float>& out) {
        ASSERT_EQ(out.shape(), x.shape());
        for (std::size_t b = 0; b < x.shape(0); ++b)
            for (std::size_t s = 0; s < x.shape(1); ++s)
                for (std::size_t h = 0; h < x.shape(2); ++h)
                    for (std::size_t j = 0; j < dim / 2; ++j) {
                        const cf want = cf(x(b, s, h, 2 * j), x(b, s, h, 2 * j + 1)) * freqs(s, j);
                        EXPECT_NEAR(out(b, s, h, 2 * j), want.real(), 1e-6f);
                        EXPECT_NEAR(out(b, s, h, 2 * j + 1), want.imag(), 1e-6f);
                    }
    };
    check_reference(xq, q);
    check_reference(xk, k);
    // retraced: the loaded program saved again is the same file, and loads again
    EXPECT_EQ(realify::test::saved(loaded), realify::test::saved(prog));
    const std::vector<graph::loaded_tensor> again = reload(realify::test::saved(loaded))(xq, xk, freqs);
    EXPECT_TRUE(same_bits(std::get<xt::xarray<float>>(again[0]), q));
}

TEST(GraphSave, ViewsMasksIntegerInputsAndFusedReductionsRoundTrip) {
    auto x = graph::input<float>("x");
    auto mask = graph::input<bool>("mask");
    auto ids = graph::input<std::int64_t>("ids");
    auto small = graph::input<std::int32_t>("small");
    auto z = graph::input<cf>("z");
    auto prog = graph::lower(graph::masked_fill(x, mask, 0.0),                    // where(mask, number, x)
                             graph::where(x > 0.25f, x, -x),                      // a comparison with a number
                             graph::to<float>(ids) * 2.0f,                        // an int64 input cast
                             graph::logical_and(mask, small > 3),                 // bool and int32 inputs
                             graph::transpose(graph::select(z, 0, 1), 0, 1),      // a strided view as an output
                             graph::narrow(x, 1, 1, 3), graph::to<cf>(x),         // a view; a conversion to complex
                             graph::sum(graph::exp(x * 2.0f), {1}),               // a reduction of a fused chain
                             graph::mean(graph::abs(z), {0, 2}));
    xt::xarray<bool> m = xt::xarray<bool>::from_shape({4, 6});
    xt::xarray<std::int64_t> i = xt::xarray<std::int64_t>::from_shape({4, 6});
    xt::xarray<std::int32_t> j = xt::xarray<std::int32_t>::from_shape({4, 6});
    for (std::size_t k = 0; k < m.size(); ++k) {
        m.flat(k) = k % 3 == 0;
        i.flat(k) = static_cast<std::int64_t>(k) - 7;
        j.flat(k) = static_cast<std::int32_t>(k % 7);
    }
    expect_round_trip(prog, random_uniform<float>({4, 6}, 24), m, i, j, random_uniform<cf>({3, 4, 5}, 25));
}

TEST(GraphSave, LayerKernelsSizesAndCreationOpsRoundTrip) {
    auto x = graph::input<float>("x");
    auto freqs = graph::input<cf>("freqs");
    auto pos = graph::int_input("pos");
    auto q = graph::input<double>("q");
    auto k = graph::input<double>("k");
    auto v = graph::input<double>("v");
    auto prog = graph::lower(graph::rope(x, freqs, pos), graph::scaled_dot_product_attention(q, k, v),
                             graph::zeros<float>({graph::size(x, 1), 3}), graph::ones<double>({2, graph::size(q, 2)}),
                             graph::tril(graph::full<double>({graph::size(q, 2), graph::size(q, 2)}, -1.5)));
    expect_round_trip(prog, random_uniform<float>({1, 4, 2, 8}, 26), random_uniform<cf>({12, 4}, 27), 3,
                      random_uniform<double>({1, 2, 5, 8}, 28), random_uniform<double>({1, 2, 5, 8}, 29),
                      random_uniform<double>({1, 2, 5, 8}, 30));
}

TEST(GraphSave, OpsWithoutACompiledEvaluatorAreRefusedAtSave) {
    // a comparison of two tensors of different kinds: not in the registry
    auto x = graph::input<float>("x");
    auto y = graph::input<double>("y");
    auto prog = graph::lower(graph::gt(x, y));
    try {
        (void)realify::test::saved(prog);
        ADD_FAILURE() << "saved a program the registry cannot load";
    } catch (const realify::error& e) {
        const std::string m = e.what();
        EXPECT_TRUE(m.starts_with("realify::graph::save: ")) << m;
        EXPECT_NE(m.find("gt(f32,f64)->b8"), std::string::npos) << m;
    }
}

TEST(GraphSave, UserOpsAreBoundByName) {
    auto x = graph::input<float>("x");
    const auto twice = [](const auto& v) { return xt::xarray<float>(v * 2.0f); };
    auto prog = graph::lower(graph::exp(graph::tensor_op<"twice">(twice, x)));
    const std::string bytes = realify::test::saved(prog);
    try {
        reload(bytes);
        ADD_FAILURE() << "a user op loaded without being bound";
    } catch (const realify::error& e) {
        EXPECT_NE(std::string(e.what()).find("'twice'"), std::string::npos) << e.what();
    }
    auto placeholder = graph::input<float>("p");
    const graph::loaded_program loaded = reload(bytes, graph::user_ops{}.add("twice", graph::tensor_op<"twice">(twice, placeholder)));
    const auto v = random_uniform<float>({3, 4}, 14);
    EXPECT_TRUE(same_bits(std::get<xt::xarray<float>>(loaded(v)[0]), xt::xarray<float>(prog(v))));
    // bound to operands of other kinds: refused, naming both
    auto complex_placeholder = graph::input<cf>("p");
    const auto twice_c = [](const auto& v) { return xt::xarray<cf>(v * 2.0f); };
    EXPECT_THROW(reload(bytes, graph::user_ops{}.add("twice", graph::tensor_op<"twice">(twice_c, complex_placeholder))),
                 realify::error);
    EXPECT_THROW(graph::user_ops{}.add("other", graph::tensor_op<"twice">(twice, placeholder)), realify::error);
}

// ---- hostile files -------------------------------------------------------------------

namespace {

/// A hand-made file, written field by field as the format says (docs/graph.md).
struct file_writer {
    std::string bytes;
    file_writer& u8(std::uint8_t v) { bytes.push_back(static_cast<char>(v)); return *this; }
    file_writer& u32(std::uint32_t v) { for (int k = 0; k < 4; ++k) u8(static_cast<std::uint8_t>(v >> (8 * k))); return *this; }
    file_writer& u64(std::uint64_t v) { for (int k = 0; k < 8; ++k) u8(static_cast<std::uint8_t>(v >> (8 * k))); return *this; }
    file_writer& str(const std::string& s) { u32(static_cast<std::uint32_t>(s.size())); bytes += s; return *this; }
    file_writer& header(std::uint32_t version = 1) { bytes += "REALIFYG"; return u32(version); }
    file_writer& no_attrs() {
        u32(0);
        for (int k = 0; k < 4; ++k) u64(k == 3 ? 1 : 0);
        u64(0).u64(0).u8(0).str("").u32(0);
        return *this;
    }
    /// A record without a payload (an op, its result of kind `kind`).
    file_writer& op(const std::string& name, std::uint64_t id, std::vector<std::uint64_t> children,
                    const std::string& kind = "f32") {
        str(name).u8(0).str(kind).u64(id).u32(static_cast<std::uint32_t>(children.size()));
        for (auto c : children) u64(c);
        return no_attrs();
    }
    file_writer& input(const std::string& kind, std::uint64_t id, const std::string& name) {
        str("input").u8(0).str(kind).u64(id).u32(0).no_attrs();
        return str(name);
    }
    file_writer& tail(std::vector<std::uint64_t> outputs) {
        u32(static_cast<std::uint32_t>(outputs.size()));
        for (auto o : outputs) u64(o);
        return u32(0);
    }
};

/// load refuses the bytes with a realify::error whose message holds `what`.
void expect_refused(const std::string& bytes, const std::string& what) {
    try {
        reload(bytes);
        ADD_FAILURE() << "loaded; expected a refusal naming: " << what;
    } catch (const realify::error& e) {
        const std::string m = e.what();
        EXPECT_TRUE(m.starts_with("realify::graph::load: ")) << m;
        EXPECT_NE(m.find(what), std::string::npos) << m;
    }
}

}  // namespace

TEST(GraphSave, AHandMadeFileOfTheFormatLoads) {
    const std::string ok = file_writer{}.header().u64(2).input("f32", 1, "x").op("exp", 2, {0}).tail({1}).bytes;
    const graph::loaded_program p = reload(ok);
    const auto v = random_uniform<float>({7}, 15);
    EXPECT_TRUE(same_bits(std::get<xt::xarray<float>>(p(v)[0]), xt::xarray<float>(graph::lower(graph::exp(graph::input<float>("x")))(v))));
}

TEST(GraphSave, BadFilesAreRefusedNamingWhatIsWrong) {
    const auto good = [] { return file_writer{}.header().u64(2).input("f32", 1, "x"); };
    expect_refused("", "magic");
    expect_refused("NOTAFILE and more bytes", "magic");
    expect_refused(file_writer{}.header(2).bytes, "version 2");
    expect_refused(file_writer{}.header(0).bytes, "version 0");
    expect_refused(file_writer{}.header().u64(std::uint64_t(1) << 60).bytes, "count of records");
    expect_refused(good().op("exp", 2, {1}).tail({1}).bytes, "not an earlier record");      // a cycle (itself)
    expect_refused(good().op("exp", 2, {7}).tail({1}).bytes, "not an earlier record");      // out of range
    expect_refused(good().op("exq", 2, {0}).tail({1}).bytes, "unknown op 'exq'");
    expect_refused(good().op("exp", 2, {0, 0}).tail({1}).bytes, "no compiled evaluator for exp(f32,f32)->f32");  // arity
    expect_refused(file_writer{}.header().u64(2).input("f16", 1, "x").op("exp", 2, {0}).tail({1}).bytes, "input:f16");
    expect_refused(good().op("exp", 1, {0}).tail({1}).bytes, "id 1 is another record's");
    expect_refused(good().op("exp", 2, {0}).tail({5}).bytes, "past the 2 records");
    expect_refused(good().op("exp", 2, {0}).tail({}).bytes, "no output");
    expect_refused(good().op("exp", 2, {0}).tail({1}).str("x").bytes, "bytes follow the end");
    expect_refused(good().op("exp", 2, {0}, "c64").tail({1}).bytes, "exp(f32)->c64");  // a result of another kind
    expect_refused(good().op("exp", 2, {0}).u32(1).u64(1).u32(1).str("my_pass").bytes, "'my_pass'");
    expect_refused(good().op("twice", 2, {0}).tail({1}).bytes, "unknown op 'twice'");  // a user op not marked as one
    file_writer user = good();
    user.str("twice").u8(1).str("f32").u64(2).u32(1).u64(0).no_attrs().tail({1});
    expect_refused(user.bytes, "user op 'twice'");
    file_writer roll = good();
    roll.str("roll").u8(0).str("f32").u64(2).u32(1).u64(0).u32(1).u64(1).u64(5).u64(0).u64(0).u64(1).u64(0).u64(0).u8(0).str("").u32(0);
    expect_refused(roll.tail({1}).bytes, "count of dims");
    // a constant claiming more data than the file holds
    file_writer constant = file_writer{}.header().u64(1);
    constant.str("constant").u8(0).str("f64").u64(1).u32(0).no_attrs().u32(2).u64(1u << 20).u64(1u << 20);
    expect_refused(constant.bytes, "the constant's elements");

    // every truncation of a real program is refused as truncated or corrupted, never read past its end
    const std::string bytes = realify::test::saved(realify::test::rope_program());
    for (std::size_t n = 0; n < bytes.size(); ++n) EXPECT_THROW(reload(bytes.substr(0, n)), realify::error) << n;
}
