// The ops layer: op tags (realify::op::*), their kinds, the std::complex
// reference implementations (realify::reference::*), operand traits,
// PyTorch's type promotion and the matrix views (conj_view, transpose_view, mH). Cheap: no xsimd, no Eigen.
#pragma once

#include "realify/ops/op_kind.hpp"
#include "realify/ops/tags.hpp"
#include "realify/ops/reference.hpp"
#include "realify/ops/operand.hpp"
#include "realify/ops/promotion.hpp"
#include "realify/ops/matrix_view.hpp"
