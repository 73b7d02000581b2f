// The RoPE layer: precompute_freqs_cis and apply_rotary_emb (float/double).
// For Eigen::half / Eigen::bfloat16 storage also include realify/rope/half.hpp.
#pragma once

#include "realify/rope/apply_rotary_emb.hpp"
#include "realify/rope/freqs_cis.hpp"
#include "realify/rope/pair_layout.hpp"
