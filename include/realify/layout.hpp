// The layout layer: zero-copy views between std::complex tensors and real
// (…,2) tensors, and the complex_layout marker type.
#pragma once

#include "realify/errors.hpp"
#include "realify/layout/complex_layout.hpp"
#include "realify/layout/view_as_complex.hpp"
#include "realify/layout/view_as_real.hpp"
