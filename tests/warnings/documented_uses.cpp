// The documented uses of realify, compiled with the strict warning set users
// build with (-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wnonnull,
// -Werror) at -O2 and at -O3: a header that warns here breaks a user's -Werror
// build. Each function is one use from the docs, with external linkage so the
// compiler emits (and inlines into) it; nothing runs.
#include <complex>

#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "realify/layout.hpp"

namespace documented_uses {

// docs/layout.md: views both ways, on containers and on xtensor views
// (a 1-D view of one pair is a rank-0 complex view).
std::complex<float> layout_views() {
    xt::xtensor<std::complex<float>, 2> x = xt::zeros<std::complex<float>>({3, 4});
    auto parts = realify::view_as_real(x);
    parts(1, 2, 1) = 5.0f;
    auto again = realify::view_as_complex(parts);
    xt::xtensor<float, 1> pair = {1.0f, 2.0f};
    auto whole = xt::view(pair, xt::all());
    auto scalar = realify::view_as_complex(whole);
    return again(1, 2) + scalar();
}

}  // namespace documented_uses
