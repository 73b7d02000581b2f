// The ops layer: op tags (realify::op::*), their kinds, operand traits,
// PyTorch's type promotion, the matrix views (conj_view, transpose_view, mH)
// and the out= argument. Cheap: no xsimd, no Eigen.
#pragma once

#include "realify/ops/op_kind.hpp"
#include "realify/ops/tags.hpp"
#include "realify/ops/operand.hpp"
#include "realify/ops/promotion.hpp"
#include "realify/ops/matrix_view.hpp"
#include "realify/ops/out.hpp"
