// Eigen::half and Eigen::bfloat16 storage for realify::rope::apply_rotary_emb:
// the tensors hold 16-bit values, the rotation is computed in float (blocks of
// positions are widened, rotated by the float kernel, and rounded back once),
// so each result is the float result rounded to the storage type.
// freqs_cis is then std::complex<float>. Kept apart from apply_rotary_emb.hpp
// so that only code which wants 16-bit storage includes Eigen.
#pragma once

#include <Eigen/Core>

#include "realify/rope/apply_rotary_emb.hpp"

namespace realify::rope {

template <>
struct storage_traits<Eigen::half> {
    static constexpr bool supported = true;
    using compute_type = float;
    static float to_compute(Eigen::half value) noexcept { return static_cast<float>(value); }
    static Eigen::half from_compute(float value) noexcept { return Eigen::half(value); }
};

template <>
struct storage_traits<Eigen::bfloat16> {
    static constexpr bool supported = true;
    using compute_type = float;
    static float to_compute(Eigen::bfloat16 value) noexcept { return static_cast<float>(value); }
    static Eigen::bfloat16 from_compute(float value) noexcept { return Eigen::bfloat16(value); }
};

}  // namespace realify::rope
