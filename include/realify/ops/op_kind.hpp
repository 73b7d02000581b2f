// realify::op_kind — how an op relates to the (…,2) layout, the categories of
// Torch-TensorRT's complex lowering table:
//   erased           view_as_complex / view_as_real: the layout already is the answer;
//   shape            moves elements around; dims/shapes are adjusted for the trailing 2;
//   math             mixes re and im, needs a real-arithmetic formula;
//   construction     builds a complex tensor from values;
//   real_output      complex in, real out (abs, angle, real, imag, isnan, isinf);
//   elementwise_safe acts on every real component independently: the real op on
//                    the layout IS the complex op, the layout passes through.
#pragma once

#include <string_view>

#include "realify/version.hpp"

namespace realify {

enum class op_kind { erased, shape, math, construction, real_output, elementwise_safe };

constexpr std::string_view to_string(op_kind kind) noexcept {
    switch (kind) {
        case op_kind::erased: return "erased";
        case op_kind::shape: return "shape";
        case op_kind::math: return "math";
        case op_kind::construction: return "construction";
        case op_kind::real_output: return "real_output";
        case op_kind::elementwise_safe: return "elementwise_safe";
    }
    return "unknown";
}

}  // namespace realify
