// libFuzzer entry point of the loader fuzzer (load_case.hpp): libFuzzer's
// bytes mutate a saved program, which must load or be refused with a
// realify::error. Built with clang and -DREALIFY_LIBFUZZER=ON; docs/testing.md has the command.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "load_case.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string failure = realify::fuzz::run_load_case(data, size);
    if (!failure.empty()) {
        std::fprintf(stderr, "realify load fuzz case failed: %s\n", failure.c_str());
        std::abort();
    }
    return 0;
}
