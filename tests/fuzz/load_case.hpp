// One case of the loader fuzzer: a saved program (RoPE; a fused chain with
// a constant and a reduction; views, a bool mask, a comparison and an
// integer argument feeding a creation op), mutated by the case's bytes — bytes
// overwritten, the file cut — then loaded. It must load, or be refused with
// a realify::error; a program that loads is run on small inputs and must
// give tensors or a realify::error. Anything else thrown, a crash or a
// sanitizer report is a failure. test_fuzz draws the bytes from a seeded
// engine; realify_fuzz_load takes libFuzzer's.
#pragma once

#include <complex>
#include <cstdint>
#include <sstream>
#include <string>

#include <xtensor/xarray.hpp>

#include "../graph/save_programs.hpp"
#include "realify/errors.hpp"

namespace realify::fuzz {

/// The programs mutated, saved once.
inline const std::string& saved_program(std::size_t which) {
    namespace graph = realify::graph;
    static const std::string rope = realify::test::saved(realify::test::rope_program());
    static const std::string chain = [] {
        auto x = graph::input<float>("xq");
        auto y = graph::input<float>("xk");
        auto z = graph::input<std::complex<float>>("freqs_cis");
        const xt::xarray<float> c = {1.0f, -2.0f, 0.5f};
        auto prog = graph::lower(graph::sum(graph::exp(x * 2.0f + graph::constant(c)) - y, {0}), graph::abs(z * z));
        return realify::test::saved(prog);
    }();
    static const std::string masked = [] {
        auto x = graph::input<float>("x");
        auto mask = graph::input<bool>("mask");
        auto n = graph::int_input("n");
        auto prog = graph::lower(graph::masked_fill(graph::transpose(x, 0, 1), graph::transpose(mask, 0, 1), 0.0),
                                 graph::where(x > 0.5f, graph::narrow(x, 1, 0, 2), 1.0f),
                                 graph::full<float>({n, graph::size(x, 1)}, 2.0));
        return realify::test::saved(prog);
    }();
    return which % 3 == 0 ? rope : which % 3 == 1 ? chain : masked;
}

/// What a case did: "" when it loaded or was refused as it must; else what went wrong.
inline std::string run_load_case(const std::uint8_t* data, std::size_t size) {
    const std::size_t which = size > 0 ? data[0] % 3 : 0;
    std::string bytes = saved_program(which);
    std::size_t k = 1;
    if (size > 1 && data[1] < 16) bytes.resize(bytes.size() * data[1] / 16);  // cut it (1 in 16 cases: data[1] < 16)
    for (k = 2; k + 2 < size && !bytes.empty(); k += 3) {
        const std::size_t at = (std::size_t(data[k]) << 8 | data[k + 1]) % bytes.size();
        bytes[at] = static_cast<char>(data[k + 2]);
    }
    try {
        std::istringstream in(bytes);
        const realify::graph::loaded_program p = realify::graph::load(in);
        const xt::xarray<float> xq = xt::ones<float>({1, 2, 1, 4}), xk = xt::ones<float>({1, 2, 1, 4});
        const xt::xarray<std::complex<float>> freqs = xt::ones<std::complex<float>>({2, 2});
        const xt::xarray<bool> mask = xt::ones<bool>({2, 3});
        try {  // the arguments of the program mutated (another's are refused, as a call with wrong arguments is)
            if (which == 2) p(xt::xarray<float>(xt::ones<float>({2, 3})), mask, 2);
            else p(xq, xk, freqs);
        } catch (const realify::error&) {
        }
        return "";
    } catch (const realify::error&) {
        return "";
    } catch (const std::exception& e) {
        return std::string("not a realify::error: ") + e.what();
    }
}

}  // namespace realify::fuzz
