// libFuzzer entry point: the input bytes are decoded into one case of
// tests/fuzz/fuzz_case.hpp (the same generator as test_fuzz, reading the
// bytes instead of a seeded engine). A wrong value or a non-realify
// exception aborts with the case's full report; sanitizer reports abort too.
// Built with clang and -DREALIFY_LIBFUZZER=ON; docs/testing.md has the command.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz_case.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    realify::fuzz::source src(data, size);
    const realify::fuzz::outcome out = realify::fuzz::run_case(src);
    if (!out.failure.empty()) {
        std::fprintf(stderr, "realify fuzz case failed (%s):\n%s\n", out.family.c_str(), out.failure.c_str());
        std::abort();
    }
    return 0;
}
