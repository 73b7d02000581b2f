// The eager shape and reduction API, PyTorch's names and argument order:
// realify::permute(a, {1, 0}), realify::reshape(a, {-1, 4}),
// realify::cat({a, b}, 0), realify::sum(a) / realify::sum(a, {0}, keepdim), …
// on complex tensors (complex_layout or std::complex containers) and real
// tensors alike. Dims are std::vector<std::ptrdiff_t> (negative dims count
// from the end, as PyTorch).
//
// Each takes an optional realify::out(buffer) after all of its arguments
// (defaults spelled out: realify::sum(a, {0}, false, realify::out(s))); the
// result is written there. Otherwise results own their data (alias()
// excepted) — see realify/dispatch/results.hpp for their types. split,
// split_with_sizes and chunk return a std::vector of results and have no
// out= form (neither has PyTorch).
#pragma once

#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "realify/dispatch/lowerings.hpp"
#include "realify/eager/elementwise.hpp"

namespace realify {

using dims_t = std::vector<std::ptrdiff_t>;

/// One function NAME(a, P…[, out]) calling op::OP.
#define REALIFY_EAGER_SHAPE(NAME, OP, PARAMS, ARGS)                         \
    template <class A, class... O>                                          \
        requires detail::optional_out<O...>                                 \
    decltype(auto) NAME(const A& a REALIFY_EAGER_LIST PARAMS, O&&... o) {   \
        return dispatch::call<op::OP>(tensor_argument(a) REALIFY_EAGER_LIST ARGS, std::forward<O>(o)...); \
    }
#define REALIFY_EAGER_LIST(...) __VA_OPT__(, ) __VA_ARGS__

REALIFY_EAGER_SHAPE(permute, permute, (const dims_t& dims), (dims))
REALIFY_EAGER_SHAPE(reshape, reshape, (const dims_t& shape), (shape))
REALIFY_EAGER_SHAPE(view, view, (const dims_t& shape), (shape))
REALIFY_EAGER_SHAPE(unsafe_view, unsafe_view, (const dims_t& shape), (shape))
REALIFY_EAGER_SHAPE(unsqueeze, unsqueeze, (std::ptrdiff_t dim), (dim))
/// squeeze(a): every extent-1 dim; squeeze(a, dim); squeeze(a, dims).
REALIFY_EAGER_SHAPE(squeeze, squeeze, (), ())
REALIFY_EAGER_SHAPE(squeeze, squeeze_dim, (std::ptrdiff_t dim), (dim))
REALIFY_EAGER_SHAPE(squeeze, squeeze_dims, (const dims_t& dims), (dims))
REALIFY_EAGER_SHAPE(squeeze_dim, squeeze_dim, (std::ptrdiff_t dim), (dim))
REALIFY_EAGER_SHAPE(squeeze_dims, squeeze_dims, (const dims_t& dims), (dims))
REALIFY_EAGER_SHAPE(t, t, (), ())
REALIFY_EAGER_SHAPE(transpose, transpose, (std::ptrdiff_t dim0, std::ptrdiff_t dim1), (dim0, dim1))
REALIFY_EAGER_SHAPE(select, select, (std::ptrdiff_t dim, std::ptrdiff_t index), (dim, index))
/// a[index] along dim 0.
REALIFY_EAGER_SHAPE(getitem, getitem, (std::ptrdiff_t index), (index))
REALIFY_EAGER_SHAPE(narrow, narrow, (std::ptrdiff_t dim, std::ptrdiff_t start, std::ptrdiff_t length), (dim, start, length))
REALIFY_EAGER_SHAPE(expand, expand, (const dims_t& sizes), (sizes))
REALIFY_EAGER_SHAPE(repeat, repeat, (const std::vector<std::size_t>& repeats), (repeats))
REALIFY_EAGER_SHAPE(flip, flip, (const dims_t& dims), (dims))
/// alias(a): a layout over the same memory (no copy, no out=).
template <class A>
auto alias(const A& a) {
    return dispatch::call<op::alias>(a);
}
template <class A>
std::size_t sym_size(const A& a, std::ptrdiff_t dim) {
    return dispatch::call<op::sym_size>(a, dim);
}

/// flatten(a, start_dim, end_dim).
template <class A>
auto flatten(const A& a, std::ptrdiff_t start_dim = 0, std::ptrdiff_t end_dim = -1) {
    return dispatch::call<op::flatten>(a, start_dim, end_dim);
}
template <class A, output_argument O>
decltype(auto) flatten(const A& a, std::ptrdiff_t start_dim, std::ptrdiff_t end_dim, O&& o) {
    return dispatch::call<op::flatten>(a, start_dim, end_dim, std::forward<O>(o));
}

/// slice(a, dim, start, end, step) with PyTorch's clamping of start/end.
template <class A>
auto slice(const A& a, std::ptrdiff_t dim = 0, std::ptrdiff_t start = 0,
           std::ptrdiff_t end = std::numeric_limits<std::ptrdiff_t>::max(), std::ptrdiff_t step = 1) {
    return dispatch::call<op::slice>(a, dim, start, end, step);
}
template <class A, output_argument O>
decltype(auto) slice(const A& a, std::ptrdiff_t dim, std::ptrdiff_t start, std::ptrdiff_t end, std::ptrdiff_t step, O&& o) {
    return dispatch::call<op::slice>(a, dim, start, end, step, std::forward<O>(o));
}

/// roll(a, shifts, dims); no dims: the flattened tensor.
template <class A>
auto roll(const A& a, const dims_t& shifts, const dims_t& dims = {}) {
    return dispatch::call<op::roll>(a, shifts, dims);
}
template <class A, output_argument O>
decltype(auto) roll(const A& a, const dims_t& shifts, const dims_t& dims, O&& o) {
    return dispatch::call<op::roll>(a, shifts, dims, std::forward<O>(o));
}

/// cat / stack of a list of tensors of one type.
template <class A>
auto cat(const std::vector<A>& tensors, std::ptrdiff_t dim = 0) {
    return dispatch::call<op::cat>(tensors, dim);
}
template <class A, output_argument O>
decltype(auto) cat(const std::vector<A>& tensors, std::ptrdiff_t dim, O&& o) {
    return dispatch::call<op::cat>(tensors, dim, std::forward<O>(o));
}
/// torch.hstack: cat along dim 1 (dim 0 for 1-D tensors) — Meta's KV-cache
/// mask is hstack({zeros({S, start_pos}), mask}).
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) hstack(const std::vector<A>& tensors, O&&... o) {
    return dispatch::call<op::hstack>(tensors, std::forward<O>(o)...);
}
template <class A>
auto stack(const std::vector<A>& tensors, std::ptrdiff_t dim = 0) {
    return dispatch::call<op::stack>(tensors, dim);
}
template <class A, output_argument O>
decltype(auto) stack(const std::vector<A>& tensors, std::ptrdiff_t dim, O&& o) {
    return dispatch::call<op::stack>(tensors, dim, std::forward<O>(o));
}

/// split(a, split_size, dim) and split(a, sizes, dim) (= split_with_sizes): std::vector of results.
template <class A>
auto split(const A& a, std::size_t split_size, std::ptrdiff_t dim = 0) {
    return dispatch::call<op::split>(a, split_size, dim);
}
template <class A>
auto split(const A& a, const std::vector<std::size_t>& sizes, std::ptrdiff_t dim = 0) {
    return dispatch::call<op::split_with_sizes>(a, sizes, dim);
}
template <class A>
auto split_with_sizes(const A& a, const std::vector<std::size_t>& sizes, std::ptrdiff_t dim = 0) {
    return dispatch::call<op::split_with_sizes>(a, sizes, dim);
}
template <class A>
auto chunk(const A& a, std::size_t chunks, std::ptrdiff_t dim = 0) {
    return dispatch::call<op::chunk>(a, chunks, dim);
}

/// torch.triu(a, diagonal) / torch.tril(a, diagonal): the upper (lower)
/// triangle of the last two dims, every matrix of a batch; diagonal 0 is the
/// main diagonal, > 0 above it, < 0 below.
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) triu(const A& a, std::ptrdiff_t diagonal = 0, O&&... o) {
    return dispatch::call<op::triu>(tensor_argument(a), diagonal, std::forward<O>(o)...);
}
template <class A, class... O>
    requires detail::optional_out<O...>
decltype(auto) tril(const A& a, std::ptrdiff_t diagonal = 0, O&&... o) {
    return dispatch::call<op::tril>(tensor_argument(a), diagonal, std::forward<O>(o)...);
}

/// where(cond, a, b): cond a real/bool tensor broadcast over elements.
template <class C, class A, class B, class... O>
    requires detail::optional_out<O...>
decltype(auto) where(const C& cond, const A& a, const B& b, O&&... o) {
    return dispatch::call<op::where>(tensor_argument(cond), tensor_argument(a), tensor_argument(b), std::forward<O>(o)...);
}

// ---- reductions ---------------------------------------------------------------------
/// sum(a): 0-d; sum(a, dims, keepdim) (= sum.dim_IntList).
REALIFY_EAGER_SHAPE(sum, sum, (), ())
REALIFY_EAGER_SHAPE(sum, sum_dim, (const dims_t& dims, bool keepdim), (dims, keepdim))
REALIFY_EAGER_SHAPE(sum_dim, sum_dim, (const dims_t& dims, bool keepdim), (dims, keepdim))
REALIFY_EAGER_SHAPE(mean, mean, (), ())
REALIFY_EAGER_SHAPE(mean, mean_dim, (const dims_t& dims, bool keepdim), (dims, keepdim))
REALIFY_EAGER_SHAPE(mean_dim, mean_dim, (const dims_t& dims, bool keepdim), (dims, keepdim))
/// prod(a, dim, keepdim): the complex product along dim.
REALIFY_EAGER_SHAPE(prod, prod_dim, (std::ptrdiff_t dim, bool keepdim), (dim, keepdim))
REALIFY_EAGER_SHAPE(prod_dim, prod_dim, (std::ptrdiff_t dim, bool keepdim), (dim, keepdim))
REALIFY_EAGER_SHAPE(cumsum, cumsum, (std::ptrdiff_t dim), (dim))
/// The keepdim = false forms.
template <class A> auto sum(const A& a, const dims_t& dims) { return dispatch::call<op::sum_dim>(a, dims, false); }
template <class A> auto sum_dim(const A& a, const dims_t& dims) { return dispatch::call<op::sum_dim>(a, dims, false); }
template <class A> auto mean(const A& a, const dims_t& dims) { return dispatch::call<op::mean_dim>(a, dims, false); }
template <class A> auto mean_dim(const A& a, const dims_t& dims) { return dispatch::call<op::mean_dim>(a, dims, false); }
template <class A> auto prod(const A& a, std::ptrdiff_t dim) { return dispatch::call<op::prod_dim>(a, dim, false); }
template <class A> auto prod_dim(const A& a, std::ptrdiff_t dim) { return dispatch::call<op::prod_dim>(a, dim, false); }

/// amax(a, dims, keepdim) / amin: the maximum (minimum) over dims, every dim
/// when empty; NaN propagates. Real tensors: complex values have no ordering.
#define REALIFY_EAGER_EXTREMUM(NAME)                                                                  \
    template <class A, class... O>                                                                    \
        requires detail::optional_out<O...>                                                           \
    decltype(auto) NAME(const A& a, const dims_t& dims, bool keepdim, O&&... o) {                     \
        if constexpr (complex_tensor_operand<A>) {                                                    \
            static_assert(!complex_tensor_operand<A>,                                                 \
                          "realify::" #NAME ": complex values have no ordering (PyTorch refuses them too)"); \
            return 0;                                                                                 \
        } else {                                                                                      \
            return dispatch::call<op::NAME>(a, dims, keepdim, std::forward<O>(o)...);                 \
        }                                                                                             \
    }                                                                                                 \
    template <class A>                                                                                \
    decltype(auto) NAME(const A& a, const dims_t& dims = {}) {                                        \
        return NAME(a, dims, false);                                                                  \
    }
REALIFY_EAGER_EXTREMUM(amax)
REALIFY_EAGER_EXTREMUM(amin)
#undef REALIFY_EAGER_EXTREMUM
/// var(a, dims, correction, keepdim) / std_dev (torch.std): over dims (every
/// dim when empty), divided by N − correction (1: Bessel's correction, as
/// PyTorch); complex tensors give the real variance of |z − mean|.
REALIFY_EAGER_SHAPE(var, var, (const dims_t& dims, double correction, bool keepdim), (dims, correction, keepdim))
REALIFY_EAGER_SHAPE(std_dev, std_dev, (const dims_t& dims, double correction, bool keepdim), (dims, correction, keepdim))
template <class A> auto var(const A& a, const dims_t& dims = {}, double correction = 1) {
    return dispatch::call<op::var>(a, dims, correction, false);
}
template <class A> auto std_dev(const A& a, const dims_t& dims = {}, double correction = 1) {
    return dispatch::call<op::std_dev>(a, dims, correction, false);
}

#undef REALIFY_EAGER_LIST
#undef REALIFY_EAGER_SHAPE

}  // namespace realify
