// The owning tensors of run-time rank the eager API returns (xt::xarray of
// float, double, bool and std::complex, and complex_layouts of xt::xarray):
// few types, so their allocation and their refs are compiled once, in
// realify_simd (src/engine/runtime_rank.cpp), rather than in every unit that
// makes or reads one. An xt::xarray keeps its shape and strides in xtensor's
// small vectors, whose code is larger than the rest of an op's call. The
// headers declare these instantiations `extern template`, next to each
// function's template.
//
// The types are spelled as xtensor's defaults make them, as realify_simd is
// built: a unit that changes those defaults (XTENSOR_USE_XSIMD, another
// allocator, layout or container) names other types, which it instantiates
// itself, as before.
#pragma once

#include <complex>
#include <cstddef>
#include <memory>

#include <xtensor/xarray.hpp>

#include "realify/layout/complex_layout.hpp"

namespace realify::engine {
/// xt::xarray<V> with xtensor's default allocator, layout and containers.
template <class V>
using default_xarray = xt::xarray_container<xt::uvector<V, std::allocator<V>>, xt::layout_type::row_major,
                                            xt::svector<std::size_t, 4, std::allocator<std::size_t>, true>,
                                            xt::xtensor_expression_tag>;
}  // namespace realify::engine

/// X(type) for each xt::xarray among them (a complex_layout's memory is one).
#define REALIFY_RUNTIME_RANK_ARRAYS(X)                                       \
    X(::realify::engine::default_xarray<float>)                              \
    X(::realify::engine::default_xarray<double>)                             \
    X(::realify::engine::default_xarray<bool>)                               \
    X(::realify::engine::default_xarray<std::complex<float>>)                \
    X(::realify::engine::default_xarray<std::complex<double>>)
/// X(type) for each owning tensor type of run-time rank.
#define REALIFY_RUNTIME_RANK_TENSORS(X)                                      \
    REALIFY_RUNTIME_RANK_ARRAYS(X)                                           \
    X(::realify::complex_layout<::realify::engine::default_xarray<float>>)   \
    X(::realify::complex_layout<::realify::engine::default_xarray<double>>)
