// xt::load_npy for the tests, included through one place so the warning
// suppression below is written once.
//
// xt::load_npy checks the dtype string with std::regex; GCC 12 at -O1 with
// ASan reports a false -Wmaybe-uninitialized inside libstdc++'s regex
// compiler (std::function moves in _State). Not our code, nothing to fix, so
// the warning is silenced for this include only.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <xtensor/xnpy.hpp>
#pragma GCC diagnostic pop
