// Tensor-level references for the ops that are not elementwise (shape ops,
// reductions, matrix products), on xt::xarray<std::complex<T>> and built with
// xtensor's own functions on complex elements — independent of the (…,2)
// lowerings they check. Dims follow PyTorch (negative dims count from the end).
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <numeric>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xview.hpp>

namespace realify::reference {

template <class T> using ctensor = xt::xarray<std::complex<T>>;
using dims = std::vector<std::ptrdiff_t>;

inline std::size_t wrap_dim(std::ptrdiff_t d, std::size_t rank) {
    return static_cast<std::size_t>(d < 0 ? d + static_cast<std::ptrdiff_t>(rank) : d);
}

template <class T> ctensor<T> permute(const ctensor<T>& a, const dims& d) {
    std::vector<std::size_t> perm;
    for (auto x : d) perm.push_back(wrap_dim(x, a.dimension()));
    return xt::transpose(a, perm);
}
template <class T> ctensor<T> reshape(const ctensor<T>& a, const dims& shape) {
    ctensor<T> r = a;
    std::vector<std::ptrdiff_t> s(shape.begin(), shape.end());
    r.reshape(s);  // xtensor infers one -1
    return r;
}
template <class T> ctensor<T> flatten(const ctensor<T>& a, std::ptrdiff_t start = 0, std::ptrdiff_t end = -1) {
    if (a.dimension() == 0) return reference::reshape<T>(a, {1});
    const std::size_t s = wrap_dim(start, a.dimension()), e = wrap_dim(end, a.dimension());
    dims shape(a.shape().begin(), a.shape().begin() + static_cast<std::ptrdiff_t>(s));
    shape.push_back(-1);
    shape.insert(shape.end(), a.shape().begin() + static_cast<std::ptrdiff_t>(e) + 1, a.shape().end());
    if (a.size() == 0) {  // -1 cannot be inferred from 0 elements
        std::size_t merged = 1;
        for (std::size_t i = s; i <= e; ++i) merged *= a.shape()[i];
        shape[s] = static_cast<std::ptrdiff_t>(merged);
    }
    return reference::reshape<T>(a, shape);
}
template <class T> ctensor<T> unsqueeze(const ctensor<T>& a, std::ptrdiff_t d) {
    return xt::expand_dims(a, wrap_dim(d, a.dimension() + 1));
}
template <class T> ctensor<T> squeeze(const ctensor<T>& a) {
    dims shape;
    for (auto s : a.shape()) if (s != 1) shape.push_back(static_cast<std::ptrdiff_t>(s));
    ctensor<T> r = a;
    r.reshape(std::vector<std::size_t>(shape.begin(), shape.end()));
    return r;
}
template <class T> ctensor<T> squeeze_dims(const ctensor<T>& a, const dims& ds) {
    std::vector<std::size_t> shape;
    for (std::size_t i = 0; i < a.dimension(); ++i) {
        bool drop = false;
        for (auto d : ds) drop = drop || (wrap_dim(d, a.dimension()) == i && a.shape()[i] == 1);
        if (!drop) shape.push_back(a.shape()[i]);
    }
    ctensor<T> r = a;
    r.reshape(shape);
    return r;
}
template <class T> ctensor<T> squeeze_dim(const ctensor<T>& a, std::ptrdiff_t d) { return reference::squeeze_dims<T>(a, {d}); }
template <class T> ctensor<T> cat(const std::vector<ctensor<T>>& parts, std::ptrdiff_t d = 0) {
    ctensor<T> r = parts.at(0);
    const std::size_t axis = wrap_dim(d, r.dimension());
    for (std::size_t i = 1; i < parts.size(); ++i) r = xt::concatenate(xt::xtuple(r, parts[i]), axis);
    return r;
}
template <class T> ctensor<T> stack(const std::vector<ctensor<T>>& parts, std::ptrdiff_t d = 0) {
    std::vector<ctensor<T>> expanded;
    for (const auto& p : parts) expanded.push_back(reference::unsqueeze<T>(p, d));
    return reference::cat<T>(expanded, d);
}
template <class T> ctensor<T> transpose(const ctensor<T>& a, std::ptrdiff_t d0, std::ptrdiff_t d1) {
    std::vector<std::size_t> perm(a.dimension());
    std::iota(perm.begin(), perm.end(), std::size_t(0));
    std::swap(perm[wrap_dim(d0, a.dimension())], perm[wrap_dim(d1, a.dimension())]);
    return xt::transpose(a, perm);
}
template <class T> ctensor<T> t(const ctensor<T>& a) { return a.dimension() < 2 ? a : reference::transpose<T>(a, 0, 1); }
template <class T> ctensor<T> select(const ctensor<T>& a, std::ptrdiff_t d, std::ptrdiff_t index) {
    const std::size_t axis = wrap_dim(d, a.dimension());
    const auto size = static_cast<std::ptrdiff_t>(a.shape()[axis]);
    xt::xstrided_slice_vector sv(a.dimension(), xt::all());
    sv[axis] = index < 0 ? index + size : index;
    return xt::strided_view(a, sv);
}
template <class T> ctensor<T> slice(const ctensor<T>& a, std::ptrdiff_t d, std::ptrdiff_t start, std::ptrdiff_t end,
                                    std::ptrdiff_t step = 1) {
    const std::size_t axis = wrap_dim(d, a.dimension());
    const auto size = static_cast<std::ptrdiff_t>(a.shape()[axis]);
    auto clamp = [&](std::ptrdiff_t v) { return std::clamp<std::ptrdiff_t>(v < 0 ? v + size : v, 0, size); };
    xt::xstrided_slice_vector sv(a.dimension(), xt::all());
    sv[axis] = xt::range(clamp(start), std::max(clamp(start), clamp(end)), step);
    return xt::strided_view(a, sv);
}
template <class T> ctensor<T> narrow(const ctensor<T>& a, std::ptrdiff_t d, std::ptrdiff_t start, std::ptrdiff_t length) {
    const auto size = static_cast<std::ptrdiff_t>(a.shape()[wrap_dim(d, a.dimension())]);
    if (start < 0) start += size;
    return reference::slice<T>(a, d, start, start + length);
}
template <class T> std::vector<ctensor<T>> split_with_sizes(const ctensor<T>& a, const std::vector<std::size_t>& sizes,
                                                             std::ptrdiff_t d = 0) {
    std::vector<ctensor<T>> out;
    std::ptrdiff_t start = 0;
    for (auto s : sizes) {
        out.push_back(reference::slice<T>(a, d, start, start + static_cast<std::ptrdiff_t>(s)));
        start += static_cast<std::ptrdiff_t>(s);
    }
    return out;
}
template <class T> std::vector<ctensor<T>> split(const ctensor<T>& a, std::size_t size, std::ptrdiff_t d = 0) {
    const std::size_t n = a.shape()[wrap_dim(d, a.dimension())];
    std::vector<std::size_t> sizes;
    for (std::size_t done = 0; done < n; done += size) sizes.push_back(std::min(size, n - done));
    if (sizes.empty()) sizes.push_back(0);
    return reference::split_with_sizes<T>(a, sizes, d);
}
template <class T> std::vector<ctensor<T>> chunk(const ctensor<T>& a, std::size_t chunks, std::ptrdiff_t d = 0) {
    const std::size_t n = a.shape()[wrap_dim(d, a.dimension())];
    return reference::split<T>(a, std::max<std::size_t>(1, (n + chunks - 1) / chunks), d);
}
template <class T> ctensor<T> expand(const ctensor<T>& a, const dims& sizes) {
    std::vector<std::size_t> shape(sizes.size());
    const std::size_t lead = sizes.size() - a.dimension();
    for (std::size_t i = 0; i < sizes.size(); ++i)
        shape[i] = sizes[i] == -1 ? a.shape()[i - lead] : static_cast<std::size_t>(sizes[i]);
    return xt::broadcast(a, shape);
}
/// torch.repeat: out[i…] = a[i mod shape…] (a padded with leading 1s).
template <class T> ctensor<T> repeat(const ctensor<T>& a, const std::vector<std::size_t>& repeats) {
    std::vector<std::size_t> shape(repeats.size() - a.dimension(), 1);
    shape.insert(shape.end(), a.shape().begin(), a.shape().end());
    ctensor<T> src = a;
    src.reshape(shape);
    std::vector<std::size_t> out_shape(shape.size());
    for (std::size_t i = 0; i < shape.size(); ++i) out_shape[i] = shape[i] * repeats[i];
    ctensor<T> out = ctensor<T>::from_shape(out_shape);
    std::vector<std::size_t> index(shape.size(), 0);
    for (std::size_t flat = 0; flat < out.size(); ++flat) {
        std::size_t rest = flat, source = 0;
        for (std::size_t d = shape.size(); d-- > 0;) {
            index[d] = rest % out_shape[d];
            rest /= out_shape[d];
        }
        for (std::size_t d = 0; d < shape.size(); ++d) source = source * shape[d] + index[d] % shape[d];
        out.flat(flat) = src.flat(source);
    }
    return out;
}
template <class T> ctensor<T> flip(const ctensor<T>& a, const dims& ds) {
    ctensor<T> r = a;
    for (auto d : ds) r = xt::flip(r, wrap_dim(d, a.dimension()));
    return r;
}
/// Rolling by s equals rolling by s mod extent; reduced first, because
/// xt::roll adds the extent to a negative shift until it is not (PTRDIFF_MIN
/// would take forever).
inline std::ptrdiff_t reduced_shift(std::ptrdiff_t shift, std::size_t extent) {
    if (extent == 0) return 0;
    const auto n = static_cast<std::ptrdiff_t>(extent);
    return (shift % n + n) % n;
}
template <class T> ctensor<T> roll(const ctensor<T>& a, const dims& shifts, const dims& ds = {}) {
    if (ds.empty()) {
        ctensor<T> flat = a;
        flat.reshape({a.size()});
        ctensor<T> r = a.size() ? ctensor<T>(xt::roll(flat, reduced_shift(shifts.at(0), a.size()))) : flat;
        r.reshape(a.shape());
        return r;
    }
    ctensor<T> r = a;
    for (std::size_t i = 0; i < ds.size(); ++i) {
        const std::size_t axis = wrap_dim(ds[i], a.dimension());
        r = xt::roll(r, reduced_shift(shifts[i], a.shape()[axis]), static_cast<std::ptrdiff_t>(axis));
    }
    return r;
}
/// where with cond broadcast to the (equal) shape of a and b.
template <class T, class C> ctensor<T> where(const C& cond, const ctensor<T>& a, const ctensor<T>& b) {
    const xt::xarray<bool> c = xt::broadcast(cond, a.shape());
    ctensor<T> r = a;
    for (std::size_t i = 0; i < r.size(); ++i) r.flat(i) = c.flat(i) ? a.flat(i) : b.flat(i);
    return r;
}

// ---- reductions ------------------------------------------------------------------------
namespace detail {
inline std::vector<std::size_t> axes(const dims& ds, std::size_t rank) {
    std::vector<std::size_t> r;
    if (ds.empty()) for (std::size_t i = 0; i < rank; ++i) r.push_back(i);
    for (auto d : ds) r.push_back(wrap_dim(d, rank));
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    return r;
}
template <class T> ctensor<T> keep(const ctensor<T>& reduced, const ctensor<T>& a, const std::vector<std::size_t>& ax, bool keepdim) {
    if (!keepdim) return reduced;
    std::vector<std::size_t> shape(a.shape().begin(), a.shape().end());
    for (auto i : ax) shape[i] = 1;
    ctensor<T> r = reduced;
    r.reshape(shape);
    return r;
}
}  // namespace detail
template <class T> std::complex<T> sum(const ctensor<T>& a) { return a.size() ? xt::sum(a)() : std::complex<T>(0); }
template <class T> ctensor<T> sum_dim(const ctensor<T>& a, const dims& ds, bool keepdim = false) {
    const auto ax = detail::axes(ds, a.dimension());
    return detail::keep<T>(xt::sum(a, ax), a, ax, keepdim);
}
template <class T> std::complex<T> mean(const ctensor<T>& a) { return reference::sum<T>(a) / static_cast<T>(a.size()); }
template <class T> ctensor<T> mean_dim(const ctensor<T>& a, const dims& ds, bool keepdim = false) {
    const auto ax = detail::axes(ds, a.dimension());
    return detail::keep<T>(xt::mean(a, ax), a, ax, keepdim);
}
/// The complex product along a dim (std::complex multiplication).
template <class T> ctensor<T> prod_dim(const ctensor<T>& a, std::ptrdiff_t d, bool keepdim = false) {
    const std::vector<std::size_t> ax{wrap_dim(d, a.dimension())};
    return detail::keep<T>(xt::prod(a, ax), a, ax, keepdim);
}
template <class T> ctensor<T> cumsum(const ctensor<T>& a, std::ptrdiff_t d) {
    return xt::cumsum(a, static_cast<std::ptrdiff_t>(wrap_dim(d, a.dimension())));
}

// ---- matrix products (std::complex loops; xtensor has no matmul without BLAS) --------------
template <class T> ctensor<T> mm(const ctensor<T>& a, const ctensor<T>& b) {
    const std::size_t n = a.shape()[0], k = a.shape()[1], m = b.shape()[1];
    ctensor<T> c = xt::zeros<std::complex<T>>({n, m});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j)
            for (std::size_t p = 0; p < k; ++p) c(i, j) += a(i, p) * b(p, j);
    return c;
}
template <class T> ctensor<T> bmm(const ctensor<T>& a, const ctensor<T>& b) {
    std::vector<ctensor<T>> out;
    for (std::size_t i = 0; i < a.shape()[0]; ++i) out.push_back(reference::mm<T>(xt::view(a, i), xt::view(b, i)));
    return reference::stack<T>(out, 0);
}
template <class T> std::complex<T> dot(const ctensor<T>& a, const ctensor<T>& b) {
    std::complex<T> s(0);
    for (std::size_t i = 0; i < a.size(); ++i) s += a(i) * b(i);
    return s;
}
template <class T> std::complex<T> vdot(const ctensor<T>& a, const ctensor<T>& b) {
    std::complex<T> s(0);
    for (std::size_t i = 0; i < a.size(); ++i) s += std::conj(a(i)) * b(i);
    return s;
}
/// matmul for ranks 1 and 2 and for batched 3-D operands of equal batch (the cases the tests use).
template <class T> ctensor<T> matmul(const ctensor<T>& a, const ctensor<T>& b) {
    if (a.dimension() == 1 && b.dimension() == 1) return ctensor<T>(reference::dot<T>(a, b));
    if (a.dimension() == 1) return xt::view(reference::mm<T>(reference::unsqueeze<T>(a, 0), b), 0);
    if (b.dimension() == 1) return xt::view(reference::mm<T>(a, reference::unsqueeze<T>(b, 1)), xt::all(), 0);
    if (a.dimension() == 2 && b.dimension() == 2) return reference::mm<T>(a, b);
    const ctensor<T> a3 = a.dimension() == 2 ? reference::unsqueeze<T>(a, 0) : a;
    const ctensor<T> b3 = b.dimension() == 2 ? reference::unsqueeze<T>(b, 0) : b;
    const std::size_t batch = std::max(a3.shape()[0], b3.shape()[0]);
    std::vector<ctensor<T>> out;
    for (std::size_t i = 0; i < batch; ++i)
        out.push_back(reference::mm<T>(xt::view(a3, a3.shape()[0] == 1 ? 0 : i), xt::view(b3, b3.shape()[0] == 1 ? 0 : i)));
    return reference::stack<T>(out, 0);
}

}  // namespace realify::reference
