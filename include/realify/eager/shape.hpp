// The eager shape and reduction API, PyTorch's names and argument order:
// realify::permute(a, {1, 0}), realify::reshape(a, {-1, 4}), realify::cat({a, b}, 0),
// realify::sum(a) / realify::sum(a, {0}, keepdim), … Dims are
// std::vector<std::ptrdiff_t> (negative dims count from the end, as PyTorch).
// Results own their data (alias() excepted).
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "realify/dispatch.hpp"

namespace realify {

using dims_t = std::vector<std::ptrdiff_t>;

template <class A> auto permute(const A& a, const dims_t& dims) { return dispatch::call<op::permute>(a, dims); }
template <class A> auto reshape(const A& a, const dims_t& shape) { return dispatch::call<op::reshape>(a, shape); }
template <class A> auto view(const A& a, const dims_t& shape) { return dispatch::call<op::view>(a, shape); }
template <class A> auto unsafe_view(const A& a, const dims_t& shape) { return dispatch::call<op::unsafe_view>(a, shape); }
template <class A> auto flatten(const A& a, std::ptrdiff_t start_dim = 0, std::ptrdiff_t end_dim = -1) {
    return dispatch::call<op::flatten>(a, start_dim, end_dim);
}
template <class A> auto unsqueeze(const A& a, std::ptrdiff_t dim) { return dispatch::call<op::unsqueeze>(a, dim); }
/// squeeze(a): every extent-1 dim; squeeze(a, dim); squeeze(a, dims).
template <class A> auto squeeze(const A& a) { return dispatch::call<op::squeeze>(a); }
template <class A> auto squeeze(const A& a, std::ptrdiff_t dim) { return dispatch::call<op::squeeze_dim>(a, dim); }
template <class A> auto squeeze(const A& a, const dims_t& dims) { return dispatch::call<op::squeeze_dims>(a, dims); }
template <class A> auto squeeze_dim(const A& a, std::ptrdiff_t dim) { return dispatch::call<op::squeeze_dim>(a, dim); }
template <class A> auto squeeze_dims(const A& a, const dims_t& dims) { return dispatch::call<op::squeeze_dims>(a, dims); }
template <class A> auto cat(const std::vector<A>& tensors, std::ptrdiff_t dim = 0) { return dispatch::call<op::cat>(tensors, dim); }
template <class A> auto stack(const std::vector<A>& tensors, std::ptrdiff_t dim = 0) { return dispatch::call<op::stack>(tensors, dim); }
template <class A> auto t(const A& a) { return dispatch::call<op::t>(a); }
template <class A> auto transpose(const A& a, std::ptrdiff_t dim0, std::ptrdiff_t dim1) {
    return dispatch::call<op::transpose>(a, dim0, dim1);
}
template <class A> auto select(const A& a, std::ptrdiff_t dim, std::ptrdiff_t index) {
    return dispatch::call<op::select>(a, dim, index);
}
/// a[index] along dim 0.
template <class A> auto getitem(const A& a, std::ptrdiff_t index) { return dispatch::call<op::getitem>(a, index); }
/// slice(a, dim, start, end, step) with PyTorch's clamping of start/end.
template <class A>
auto slice(const A& a, std::ptrdiff_t dim = 0, std::ptrdiff_t start = 0,
           std::ptrdiff_t end = std::numeric_limits<std::ptrdiff_t>::max(), std::ptrdiff_t step = 1) {
    return dispatch::call<op::slice>(a, dim, start, end, step);
}
template <class A> auto narrow(const A& a, std::ptrdiff_t dim, std::ptrdiff_t start, std::ptrdiff_t length) {
    return dispatch::call<op::narrow>(a, dim, start, length);
}
/// split(a, split_size, dim) and split(a, sizes, dim) (= split_with_sizes): std::vector of layouts.
template <class A> auto split(const A& a, std::size_t split_size, std::ptrdiff_t dim = 0) {
    return dispatch::call<op::split>(a, split_size, dim);
}
template <class A> auto split(const A& a, const std::vector<std::size_t>& sizes, std::ptrdiff_t dim = 0) {
    return dispatch::call<op::split_with_sizes>(a, sizes, dim);
}
template <class A> auto split_with_sizes(const A& a, const std::vector<std::size_t>& sizes, std::ptrdiff_t dim = 0) {
    return dispatch::call<op::split_with_sizes>(a, sizes, dim);
}
template <class A> auto chunk(const A& a, std::size_t chunks, std::ptrdiff_t dim = 0) { return dispatch::call<op::chunk>(a, chunks, dim); }
template <class A> auto expand(const A& a, const dims_t& sizes) { return dispatch::call<op::expand>(a, sizes); }
template <class A> auto repeat(const A& a, const std::vector<std::size_t>& repeats) { return dispatch::call<op::repeat>(a, repeats); }
template <class A> auto flip(const A& a, const dims_t& dims) { return dispatch::call<op::flip>(a, dims); }
template <class A> auto roll(const A& a, const dims_t& shifts, const dims_t& dims = {}) {
    return dispatch::call<op::roll>(a, shifts, dims);
}
/// where(cond, a, b): cond a real/bool tensor broadcast over complex elements.
template <class C, class A, class B> auto where(const C& cond, const A& a, const B& b) { return dispatch::call<op::where>(cond, a, b); }
template <class A> std::size_t sym_size(const A& a, std::ptrdiff_t dim) { return dispatch::call<op::sym_size>(a, dim); }
/// A layout over the same memory (no copy).
template <class A> auto alias(const A& a) { return dispatch::call<op::alias>(a); }

// ---- reductions ---------------------------------------------------------------------
/// sum(a): 0-d; sum(a, dims, keepdim) (= sum.dim_IntList).
template <class A> auto sum(const A& a) { return dispatch::call<op::sum>(a); }
template <class A> auto sum(const A& a, const dims_t& dims, bool keepdim = false) { return dispatch::call<op::sum_dim>(a, dims, keepdim); }
template <class A> auto sum_dim(const A& a, const dims_t& dims, bool keepdim = false) { return dispatch::call<op::sum_dim>(a, dims, keepdim); }
template <class A> auto mean(const A& a) { return dispatch::call<op::mean>(a); }
template <class A> auto mean(const A& a, const dims_t& dims, bool keepdim = false) { return dispatch::call<op::mean_dim>(a, dims, keepdim); }
template <class A> auto mean_dim(const A& a, const dims_t& dims, bool keepdim = false) { return dispatch::call<op::mean_dim>(a, dims, keepdim); }
/// prod(a, dim, keepdim): the complex product along dim.
template <class A> auto prod(const A& a, std::ptrdiff_t dim, bool keepdim = false) { return dispatch::call<op::prod_dim>(a, dim, keepdim); }
template <class A> auto prod_dim(const A& a, std::ptrdiff_t dim, bool keepdim = false) { return dispatch::call<op::prod_dim>(a, dim, keepdim); }
template <class A> auto cumsum(const A& a, std::ptrdiff_t dim) { return dispatch::call<op::cumsum>(a, dim); }

}  // namespace realify
