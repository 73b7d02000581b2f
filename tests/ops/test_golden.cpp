// realify's eager ops against PyTorch 1.13 goldens (tests/golden/, written by
// tools/gen_golden.py; CI reads the committed files and never needs PyTorch).
//
// One GTest per op, each running every case of that op in both dtypes:
//  1. with the golden inputs as contiguous xt::xarray containers, and
//  2. (ops on tensors, not lists) again with each input stored transposed,
//     stepped and reversed in memory (tests/support/strided_operand.hpp).
// Results must match the golden within the tolerances of
// tests/support/complex_compare.hpp. Where PyTorch 1.13 itself disagrees with
// ISO C++ std::complex (C99 Annex G special values, or its vectorised CPU
// kernels overflowing: |z|² in abs/sgn/div, asin of large z, 0 - z for neg),
// an elementwise op may instead match realify::reference (std::complex); such
// elements are counted and printed, and docs/numerics.md lists them. A result
// that matches neither fails.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>

#include <realify/eager.hpp>
#include <realify/realify.hpp>

#include "../support/complex_compare.hpp"
#include "../support/golden_manifest.hpp"
#include "../support/op_records.hpp"
#include "../support/reference.hpp"
#include "../support/strided_operand.hpp"

namespace {

using namespace realify::testing;

template <class T>
using cxarray = xt::xarray<std::complex<T>>;

/// One result of an op, in a comparable form.
template <class T>
using result_value = std::variant<cxarray<T>, xt::xarray<T>, xt::xarray<bool>, long long>;
template <class T>
using results = std::vector<result_value<T>>;

template <class T, class R>
result_value<T> to_value(const R& r) {
    using D = std::remove_cvref_t<R>;
    if constexpr (realify::is_complex_layout_v<D>) {
        return cxarray<T>(realify::to_complex_tensor(r));
    } else if constexpr (std::is_integral_v<D>) {
        return static_cast<long long>(r);
    } else {
        using V = typename D::value_type;
        if constexpr (std::is_same_v<V, bool>) {
            return xt::xarray<bool>(r);
        } else if constexpr (std::is_same_v<V, std::complex<T>>) {
            return cxarray<T>(r);
        } else {
            return xt::xarray<T>(r);
        }
    }
}

template <class T, class R>
results<T> one(const R& r) {
    return {to_value<T>(r)};
}

/// For ops returning several tensors (split, chunk).
template <class T, class Seq>
results<T> many(const Seq& seq) {
    results<T> out;
    for (const auto& r : seq) out.push_back(to_value<T>(r));
    return out;
}

// ---- input providers ----------------------------------------------------------
// The same op body runs on contiguous containers and on strided views; the
// provider hands out the operands.

template <class T>
class contiguous_inputs {
public:
    explicit contiguous_inputs(const golden_data<T>& d) {
        for (const auto& slot : d.info().inputs) {
            m_complex.push_back(slot.kind == 'c' ? d.complex_slot(slot) : cxarray<T>());
            m_real.push_back(slot.kind == 'r' ? d.real_slot(slot) : xt::xarray<T>());
            m_bool.push_back(slot.kind == 'b' ? d.bool_slot(slot) : xt::xarray<bool>());
        }
    }
    auto c(std::size_t i) { return realify::complex_layout_of(m_complex.at(i)); }
    xt::xarray<T>& r(std::size_t i) { return m_real.at(i); }
    xt::xarray<bool>& b(std::size_t i) { return m_bool.at(i); }
    /// All (complex) inputs, for cat/stack.
    auto all() {
        std::vector<decltype(c(0))> layouts;
        for (std::size_t i = 0; i < m_complex.size(); ++i) layouts.push_back(c(i));
        return layouts;
    }
    /// All (real) inputs, for hstack.
    const std::vector<xt::xarray<T>>& all_real() const { return m_real; }
    std::string describe() const { return "contiguous inputs"; }

private:
    std::vector<cxarray<T>> m_complex;
    std::vector<xt::xarray<T>> m_real;
    std::vector<xt::xarray<bool>> m_bool;
};

template <class T>
class strided_inputs {
public:
    strided_inputs(const golden_data<T>& d, memory_layout layout, std::uint64_t seed) : m_rng(seed) {
        for (const auto& slot : d.info().inputs) {
            m_complex.push_back(slot.kind == 'c' ? std::make_unique<strided_operand<std::complex<T>>>(
                                                       d.complex_slot(slot), layout, m_rng)
                                                 : nullptr);
            m_real.push_back(slot.kind == 'r'
                                 ? std::make_unique<strided_operand<T>>(d.real_slot(slot), layout, m_rng)
                                 : nullptr);
            m_bool.push_back(slot.kind == 'b' ? d.bool_slot(slot) : xt::xarray<bool>());
        }
    }
    auto c(std::size_t i) { return realify::complex_layout_of(m_complex.at(i)->view()); }
    auto r(std::size_t i) { return m_real.at(i)->view(); }
    xt::xarray<bool>& b(std::size_t i) { return m_bool.at(i); }
    std::string describe() const {
        std::ostringstream s;
        s << "strided inputs:";
        for (const auto& op : m_complex) if (op) s << "\n    complex " << op->describe();
        for (const auto& op : m_real) if (op) s << "\n    real " << op->describe();
        return s.str();
    }

private:
    std::mt19937_64 m_rng;
    std::vector<std::unique_ptr<strided_operand<std::complex<T>>>> m_complex;
    std::vector<std::unique_ptr<strided_operand<T>>> m_real;
    std::vector<xt::xarray<bool>> m_bool;
};

/// The complex scalar parameter `key` in the case's precision.
template <class T>
std::complex<T> cparam(const golden_case& c, const std::string& key) {
    const auto v = c.complex_param(key);
    return {static_cast<T>(v.real()), static_cast<T>(v.imag())};
}
template <class T>
T rparam(const golden_case& c, const std::string& key) {
    return static_cast<T>(c.real_param(key));
}
/// Sizes (split sizes, repeats) as PyTorch's non-negative integer lists.
inline std::vector<std::size_t> sizes_of(const std::vector<std::ptrdiff_t>& values) {
    return {values.begin(), values.end()};
}
inline bool is_complex_param(const golden_case& c, const std::string& key) { return c.param(key).type == 'c'; }

// ---- the ops ------------------------------------------------------------------
// Each runner calls realify's eager op the way PyTorch's call in
// tools/gen_golden.py is written.

/// Binary ops on complex/complex, complex/real or real/complex operands.
template <class T, class P, class F>
results<T> binary(const golden_case& c, P& in, F f) {
    const char ka = c.inputs.at(0).kind, kb = c.inputs.at(1).kind;
    if (ka == 'c' && kb == 'c') return one<T>(f(in.c(0), in.c(1)));
    if (ka == 'c' && kb == 'r') return one<T>(f(in.c(0), in.r(1)));
    return one<T>(f(in.r(0), in.c(1)));
}

/// Tensor-number ops: a real number is passed as a double (PyTorch's Python
/// float) or an int (Python int), a complex one as std::complex<double>
/// (Python complex); neither promotes the tensor (PyTorch's rule). The number
/// is `exponent` for pow_scalar, `other` for the others (tools/gen_golden.py).
template <class T, class P, class F>
results<T> with_scalar(const golden_case& c, P& in, F f) {
    const std::string key = c.has_param("exponent") ? "exponent" : "other";
    switch (c.param(key).type) {
        case 'c': return one<T>(f(in.c(0), c.complex_param(key)));
        case 'i': return one<T>(f(in.c(0), static_cast<int>(c.int_param(key))));
        default: return one<T>(f(in.c(0), c.real_param(key)));
    }
}

template <class T, class P>
using runner = std::function<results<T>(const golden_case&, P&)>;

#define UNARY(name) {#name, [](const golden_case&, P& in) { return one<T>(realify::name(in.c(0))); }}
/// A unary op whose cases have a real or a complex input.
#define EITHER_UNARY(name)                                                                         \
    {#name, [](const golden_case& c, P& in) {                                                      \
         return c.inputs.at(0).kind == 'r' ? one<T>(realify::name(in.r(0))) : one<T>(realify::name(in.c(0))); \
     }}

/// The runner of an op with unary kernels: its cases have a complex or a
/// real input, as the op has those forms (tools/gen_golden.py writes them
/// from the same op list).
template <class T, class P, class Tag, class F>
runner<T, P> unary_kernel_runner(F f) {
    return [f](const golden_case& c, P& in) -> results<T> {
        if constexpr (has_complex_form<Tag> && has_real_form<Tag>) {
            return c.inputs.at(0).kind == 'r' ? one<T>(f(in.r(0))) : one<T>(f(in.c(0)));
        } else if constexpr (has_complex_form<Tag>) {
            return one<T>(f(in.c(0)));
        } else {
            return one<T>(f(in.r(0)));
        }
    };
}

/// The runner of an op with binary kernels: complex and real operands in
/// any mix, with PyTorch's alpha where the case has one (add, sub); real
/// operands (or a real tensor and the number `other`) for an op of real
/// operands only (maximum, clamp_min).
template <class T, class P, class Tag, class F>
runner<T, P> binary_kernel_runner(F f);

/// Binary ops of real operands, or a real tensor and the number `other`.
template <class T, class P, class F>
results<T> real_binary(const golden_case& c, P& in, F f) {
    if (c.has_param("other")) return one<T>(f(in.r(0), c.real_param("other")));
    return one<T>(f(in.r(0), in.r(1)));
}

template <class T, class P, class Tag, class F>
runner<T, P> binary_kernel_runner(F f) {
    return [f](const golden_case& c, P& in) -> results<T> {
        if constexpr (binary_has_complex_form<Tag>) {
            if constexpr (takes_alpha<Tag>) {
                if (c.has_param("alpha")) {
                    if (is_complex_param(c, "alpha")) return one<T>(f(in.c(0), in.c(1), cparam<T>(c, "alpha")));
                    return one<T>(f(in.c(0), in.c(1), rparam<T>(c, "alpha")));
                }
            }
            return binary<T>(c, in, f);
        } else {
            return real_binary<T>(c, in, f);
        }
    };
}

/// var / std_dev(x, dims, correction, keepdim) of a real or complex input.
template <class T, class P, class F>
results<T> variance(const golden_case& c, P& in, F f) {
    const auto dims = c.list_param("dims");
    const double correction = c.real_param("correction");
    const bool keepdim = c.bool_param("keepdim");
    if (c.inputs.at(0).kind == 'c') return one<T>(f(in.c(0), dims, correction, keepdim));
    return one<T>(f(in.r(0), dims, correction, keepdim));
}

/// An optional number parameter (absent: std::nullopt).
inline std::optional<double> optional_real(const golden_case& c, const std::string& key) {
    if (!c.has_param(key)) return std::nullopt;
    return c.real_param(key);
}

template <class T, class P>
const std::map<std::string, runner<T, P>>& elementwise_runners() {
    static const std::map<std::string, runner<T, P>> table = [] {
    std::map<std::string, runner<T, P>> t = {
        // the ops with unary and binary kernels and the tensor-number ops are added below, from the op list
        UNARY(isnan), UNARY(isinf), UNARY(clone), UNARY(detach), EITHER_UNARY(conj_physical), EITHER_UNARY(resolve_conj),
        {"gelu", [](const golden_case& c, P& in) { return one<T>(realify::gelu(in.r(0), c.string_param("approximate"))); }},
        {"clamp", [](const golden_case& c, P& in) {
             if (c.inputs.size() == 3) return one<T>(realify::clamp(in.r(0), in.r(1), in.r(2)));
             const auto lo = optional_real(c, "min"), hi = optional_real(c, "max");
             if (!lo) return one<T>(realify::clamp(in.r(0), std::nullopt, *hi));
             if (!hi) return one<T>(realify::clamp(in.r(0), *lo, std::nullopt));
             return one<T>(realify::clamp(in.r(0), *lo, *hi));
         }},
        {"polar", [](const golden_case&, P& in) { return one<T>(realify::polar(in.r(0), in.r(1))); }},
        {"where", [](const golden_case&, P& in) { return one<T>(realify::where(in.b(0), in.c(1), in.c(2))); }},
        UNARY(alias),
    };
#define REALIFY_GOLDEN_UNARY(NAME) \
    t.emplace(#NAME, unary_kernel_runner<T, P, realify::op::NAME>([](auto&& x) { return realify::NAME(x); }));
    REALIFY_UNARY_KERNEL_OPS(REALIFY_GOLDEN_UNARY)
#undef REALIFY_GOLDEN_UNARY
#define REALIFY_GOLDEN_BINARY(NAME) \
    t.emplace(#NAME, binary_kernel_runner<T, P, realify::op::NAME>([](auto&&... a) { return realify::NAME(a...); }));
    REALIFY_BINARY_KERNEL_OPS(REALIFY_GOLDEN_BINARY)
#undef REALIFY_GOLDEN_BINARY
#define REALIFY_GOLDEN_SCALAR(NAME) \
    t.emplace(#NAME, [](const golden_case& c, P& in) {                                                  \
        return with_scalar<T>(c, in, [](auto&& a, auto s) { return realify::NAME(a, s); });             \
    });
    REALIFY_SCALAR_OPS(REALIFY_GOLDEN_SCALAR)
#undef REALIFY_GOLDEN_SCALAR
    return t;
    }();
    return table;
}
#undef UNARY
#undef EITHER_UNARY

/// Ops with shape parameters, reductions, linear algebra and construction.
template <class T, class P>
const std::map<std::string, runner<T, P>>& structural_runners() {
    static const std::map<std::string, runner<T, P>> table = {
        {"permute", [](const golden_case& c, P& in) { return one<T>(realify::permute(in.c(0), c.list_param("dims"))); }},
        {"reshape", [](const golden_case& c, P& in) { return one<T>(realify::reshape(in.c(0), c.list_param("shape"))); }},
        {"view", [](const golden_case& c, P& in) { return one<T>(realify::view(in.c(0), c.list_param("shape"))); }},
        {"unsafe_view", [](const golden_case& c, P& in) { return one<T>(realify::unsafe_view(in.c(0), c.list_param("shape"))); }},
        {"flatten", [](const golden_case& c, P& in) {
             return one<T>(realify::flatten(in.c(0), c.int_param("start_dim"), c.int_param("end_dim")));
         }},
        {"unsqueeze", [](const golden_case& c, P& in) { return one<T>(realify::unsqueeze(in.c(0), c.int_param("dim"))); }},
        {"squeeze", [](const golden_case&, P& in) { return one<T>(realify::squeeze(in.c(0))); }},
        {"squeeze_dim", [](const golden_case& c, P& in) { return one<T>(realify::squeeze(in.c(0), c.int_param("dim"))); }},
        {"squeeze_dims", [](const golden_case& c, P& in) { return one<T>(realify::squeeze(in.c(0), c.list_param("dims"))); }},
        {"t", [](const golden_case&, P& in) { return one<T>(realify::t(in.c(0))); }},
        {"transpose", [](const golden_case& c, P& in) {
             return one<T>(realify::transpose(in.c(0), c.int_param("dim0"), c.int_param("dim1")));
         }},
        {"select", [](const golden_case& c, P& in) {
             return one<T>(realify::select(in.c(0), c.int_param("dim"), c.int_param("index")));
         }},
        {"slice", [](const golden_case& c, P& in) {
             return one<T>(realify::slice(in.c(0), c.int_param("dim"), c.int_param("start"), c.int_param("end"),
                                          c.int_param("step")));
         }},
        {"split", [](const golden_case& c, P& in) {
             return many<T>(realify::split(in.c(0), static_cast<std::size_t>(c.int_param("split_size")), c.int_param("dim")));
         }},
        {"split_with_sizes", [](const golden_case& c, P& in) {
             return many<T>(realify::split_with_sizes(in.c(0), sizes_of(c.list_param("split_sizes")), c.int_param("dim")));
         }},
        {"chunk", [](const golden_case& c, P& in) {
             return many<T>(realify::chunk(in.c(0), static_cast<std::size_t>(c.int_param("chunks")), c.int_param("dim")));
         }},
        {"expand", [](const golden_case& c, P& in) { return one<T>(realify::expand(in.c(0), c.list_param("size"))); }},
        {"narrow", [](const golden_case& c, P& in) {
             return one<T>(realify::narrow(in.c(0), c.int_param("dim"), c.int_param("start"), c.int_param("length")));
         }},
        {"roll", [](const golden_case& c, P& in) {
             return one<T>(realify::roll(in.c(0), c.list_param("shifts"), c.list_param("dims")));
         }},
        {"flip", [](const golden_case& c, P& in) { return one<T>(realify::flip(in.c(0), c.list_param("dims"))); }},
        {"repeat", [](const golden_case& c, P& in) { return one<T>(realify::repeat(in.c(0), sizes_of(c.list_param("repeats")))); }},
        {"sym_size", [](const golden_case& c, P& in) {
             return one<T>(static_cast<long long>(realify::sym_size(in.c(0), c.int_param("dim"))));
         }},
        {"view_as_real", [](const golden_case&, P& in) { return one<T>(realify::view_as_real(in.c(0))); }},
        {"view_as_complex", [](const golden_case&, P& in) { return one<T>(realify::as_complex_layout(in.r(0))); }},
        {"sum", [](const golden_case&, P& in) { return one<T>(realify::sum(in.c(0))); }},
        {"mean", [](const golden_case&, P& in) { return one<T>(realify::mean(in.c(0))); }},
        {"sum_dim", [](const golden_case& c, P& in) {
             return one<T>(realify::sum(in.c(0), c.list_param("dims"), c.bool_param("keepdim")));
         }},
        {"mean_dim", [](const golden_case& c, P& in) {
             return one<T>(realify::mean(in.c(0), c.list_param("dims"), c.bool_param("keepdim")));
         }},
        {"prod_dim", [](const golden_case& c, P& in) {
             return one<T>(realify::prod(in.c(0), c.int_param("dim"), c.bool_param("keepdim")));
         }},
        {"cumsum", [](const golden_case& c, P& in) { return one<T>(realify::cumsum(in.c(0), c.int_param("dim"))); }},
        {"mm", [](const golden_case&, P& in) { return one<T>(realify::mm(in.c(0), in.c(1))); }},
        {"bmm", [](const golden_case&, P& in) { return one<T>(realify::bmm(in.c(0), in.c(1))); }},
        {"matmul", [](const golden_case&, P& in) { return one<T>(realify::matmul(in.c(0), in.c(1))); }},
        {"dot", [](const golden_case&, P& in) { return one<T>(realify::dot(in.c(0), in.c(1))); }},
        {"vdot", [](const golden_case&, P& in) { return one<T>(realify::vdot(in.c(0), in.c(1))); }},
        {"amax", [](const golden_case& c, P& in) { return one<T>(realify::amax(in.r(0), c.list_param("dims"), c.bool_param("keepdim"))); }},
        {"amin", [](const golden_case& c, P& in) { return one<T>(realify::amin(in.r(0), c.list_param("dims"), c.bool_param("keepdim"))); }},
        {"var", [](const golden_case& c, P& in) { return variance<T>(c, in, [](auto&&... a) { return realify::var(a...); }); }},
        {"std_dev", [](const golden_case& c, P& in) { return variance<T>(c, in, [](auto&&... a) { return realify::std_dev(a...); }); }},
        {"softmax", [](const golden_case& c, P& in) { return one<T>(realify::softmax(in.r(0), c.int_param("dim"))); }},
        {"log_softmax", [](const golden_case& c, P& in) { return one<T>(realify::log_softmax(in.r(0), c.int_param("dim"))); }},
        {"layer_norm", [](const golden_case& c, P& in) {
             const auto shape = c.list_param("normalized_shape");
             const double eps = c.real_param("eps");
             const bool w = c.bool_param("weight"), b = c.bool_param("bias");
             if (w && b) return one<T>(realify::layer_norm(in.r(0), shape, in.r(1), in.r(2), eps));
             if (w) return one<T>(realify::layer_norm(in.r(0), shape, in.r(1), std::nullopt, eps));
             if (b) return one<T>(realify::layer_norm(in.r(0), shape, std::nullopt, in.r(1), eps));
             return one<T>(realify::layer_norm(in.r(0), shape, std::nullopt, std::nullopt, eps));
         }},
        {"rms_norm", [](const golden_case& c, P& in) {
             const auto shape = c.list_param("normalized_shape");
             if (c.bool_param("weight")) return one<T>(realify::rms_norm(in.r(0), shape, in.r(1), c.real_param("eps")));
             return one<T>(realify::rms_norm(in.r(0), shape, std::nullopt, c.real_param("eps")));
         }},
        {"einsum", [](const golden_case& c, P& in) {
             const std::string e = c.string_param("equation");
             const bool complex = c.inputs.at(0).kind == 'c';
             switch (c.inputs.size()) {
                 case 1: return complex ? one<T>(realify::einsum(e, in.c(0))) : one<T>(realify::einsum(e, in.r(0)));
                 case 2: return complex ? one<T>(realify::einsum(e, in.c(0), in.c(1))) : one<T>(realify::einsum(e, in.r(0), in.r(1)));
                 default: return complex ? one<T>(realify::einsum(e, in.c(0), in.c(1), in.c(2)))
                                         : one<T>(realify::einsum(e, in.r(0), in.r(1), in.r(2)));
             }
         }},
        {"scaled_dot_product_attention", [](const golden_case& c, P& in) {
             const std::optional<double> scale = c.bool_param("has_scale") ? std::optional(c.real_param("scale")) : std::nullopt;
             const bool causal = c.bool_param("is_causal"), gqa = c.bool_param("enable_gqa");
             if (c.inputs.size() == 3)
                 return one<T>(realify::scaled_dot_product_attention(in.r(0), in.r(1), in.r(2), std::nullopt, 0.0, causal, scale, gqa));
             if (c.inputs[3].kind == 'b')
                 return one<T>(realify::scaled_dot_product_attention(in.r(0), in.r(1), in.r(2), in.b(3), 0.0, causal, scale, gqa));
             return one<T>(realify::scaled_dot_product_attention(in.r(0), in.r(1), in.r(2), in.r(3), 0.0, causal, scale, gqa));
         }},
        {"linear", [](const golden_case& c, P& in) {
             const bool bias = c.bool_param("bias");
             if (c.inputs.at(0).kind == 'c')
                 return bias ? one<T>(realify::linear(in.c(0), in.c(1), in.c(2))) : one<T>(realify::linear(in.c(0), in.c(1)));
             return bias ? one<T>(realify::linear(in.r(0), in.r(1), in.r(2))) : one<T>(realify::linear(in.r(0), in.r(1)));
         }},
        {"triu", [](const golden_case& c, P& in) {
             const std::ptrdiff_t d = c.int_param("diagonal");
             return c.inputs.at(0).kind == 'c' ? one<T>(realify::triu(in.c(0), d)) : one<T>(realify::triu(in.r(0), d));
         }},
        {"tril", [](const golden_case& c, P& in) {
             const std::ptrdiff_t d = c.int_param("diagonal");
             return c.inputs.at(0).kind == 'c' ? one<T>(realify::tril(in.c(0), d)) : one<T>(realify::tril(in.r(0), d));
         }},
        {"ones_like", [](const golden_case&, P& in) { return one<T>(realify::ones_like(in.c(0))); }},
        {"zeros_like", [](const golden_case&, P& in) { return one<T>(realify::zeros_like(in.c(0))); }},
        {"full_like", [](const golden_case& c, P& in) {
             return one<T>(realify::full_like(in.c(0), c.complex_param("fill_value")));
         }},
    };
    return table;
}

/// List operands and no-operand constructors: contiguous pass only.
template <class T>
std::optional<results<T>> run_list_op(const golden_case& c, contiguous_inputs<T>& in) {
    if (c.op == "cat") return one<T>(realify::cat(in.all(), c.int_param("dim")));
    if (c.op == "stack") return one<T>(realify::stack(in.all(), c.int_param("dim")));
    if (c.op == "scalar_tensor") return one<T>(realify::scalar_tensor(cparam<T>(c, "value")));
    if (c.op == "hstack") return c.inputs.at(0).kind == 'c' ? one<T>(realify::hstack(in.all())) : one<T>(realify::hstack(in.all_real()));
    if (c.op == "arange") {
        const double start = c.real_param("start"), end = c.real_param("end"), step = c.real_param("step");
        if (c.bool_param("integral"))
            return one<T>(realify::arange<T>(std::int64_t(start), std::int64_t(end), std::int64_t(step)));
        return one<T>(realify::arange<T>(start, end, step));
    }
    if (c.op == "full") {
        const auto size = c.list_param("size");
        if (c.param("fill_value").type == 'c') return one<T>(realify::full<std::complex<T>>(size, c.complex_param("fill_value")));
        return one<T>(realify::full<T>(size, c.real_param("fill_value")));
    }
    if (c.op == "zeros") return one<T>(realify::zeros<T>(c.list_param("size")));
    if (c.op == "ones") return one<T>(realify::ones<T>(c.list_param("size")));
    return std::nullopt;
}
inline const std::set<std::string> list_ops = {"cat", "stack", "scalar_tensor", "hstack", "arange", "full", "zeros", "ones"};

// ---- the oracle for documented deviations ---------------------------------------
// realify::reference (std::complex) evaluated on the golden inputs, for the
// elementwise ops whose PyTorch 1.13 results may deviate from C99 Annex G.

/// An op's references by its operand and result kinds (those it has).
template <class T>
struct unary_oracle {
    std::function<std::complex<T>(std::complex<T>)> complex_to_complex;
    std::function<T(std::complex<T>)> complex_to_real;
    std::function<T(T)> real;  // the real function in long double
};

template <class T, class Tag, class Ref>
void add_unary_oracle(std::map<std::string, unary_oracle<T>>& oracles, Ref ref) {
    unary_oracle<T> o;
    if constexpr (has_complex_form<Tag> && real_valued<Tag>) o.complex_to_real = [ref](std::complex<T> z) { return ref(z); };
    else if constexpr (has_complex_form<Tag>) o.complex_to_complex = [ref](std::complex<T> z) { return ref(z); };
    if constexpr (has_real_form<Tag>) o.real = [ref](T x) { return static_cast<T>(ref(static_cast<long double>(x))); };
    oracles.emplace(std::string(Tag::name), std::move(o));
}

/// The references of every op with unary kernels, from the op list.
template <class T>
const std::map<std::string, unary_oracle<T>>& unary_oracles() {
    static const auto oracles = [] {
        std::map<std::string, unary_oracle<T>> m;
#define REALIFY_GOLDEN_ORACLE(NAME) add_unary_oracle<T, realify::op::NAME>(m, [](auto z) { return realify::reference::NAME(z); });
        REALIFY_UNARY_KERNEL_OPS(REALIFY_GOLDEN_ORACLE)
#undef REALIFY_GOLDEN_ORACLE
        return m;
    }();
    return oracles;
}

template <class T>
std::optional<result_value<T>> reference_result(const golden_case& c, const golden_data<T>& d) {
    namespace R = realify::reference;
    using C = std::complex<T>;
    // the ops with binary kernels and complex forms, and the tensor-number ops (of a
    // complex number, or of a real one: `real`), from the op list
    static const auto binary = [] {
        std::map<std::string, std::function<C(C, C)>> m;
#define REALIFY_GOLDEN_BINARY_ORACLE(NAME) \
    if constexpr (binary_has_complex_form<realify::op::NAME>) m.emplace(#NAME, [](C a, C b) { return R::NAME(a, b); });
        REALIFY_BINARY_KERNEL_OPS(REALIFY_GOLDEN_BINARY_ORACLE)
#undef REALIFY_GOLDEN_BINARY_ORACLE
        return m;
    }();
    static const std::map<std::string, std::function<C(C, C, bool)>> scalar = {
#define REALIFY_GOLDEN_SCALAR_ORACLE(NAME) \
    {#NAME, [](C a, C s, bool real) { return real ? R::NAME(a, s.real()) : R::NAME(a, s); }},
        REALIFY_SCALAR_OPS(REALIFY_GOLDEN_SCALAR_ORACLE)
#undef REALIFY_GOLDEN_SCALAR_ORACLE
    };
    // the ops with unary kernels: their references (the real ones in long double: where
    // PyTorch's formulas cancel or overflow — 1 + erf, 1 + e^−x, log1p of a huge x — the
    // mathematical value), for the form the case has
    const auto oracle = unary_oracles<T>().find(c.op);
    const bool one_to_one = c.inputs.size() == 1 && c.outputs.size() == 1 && oracle != unary_oracles<T>().end();
    if (one_to_one && c.inputs[0].kind == 'r' && c.outputs[0].kind == 'r' && oracle->second.real) {
        const auto a = d.real_input(0);
        xt::xarray<T> out = xt::xarray<T>::from_shape(a.shape());
        for (std::size_t k = 0; k < a.size(); ++k) out.flat(k) = oracle->second.real(a.flat(k));
        return out;
    }
    if (one_to_one && c.inputs[0].kind == 'c' && c.outputs[0].kind == 'r' && oracle->second.complex_to_real) {
        const auto a = d.complex_input(0);
        xt::xarray<T> out = xt::xarray<T>::from_shape(a.shape());
        for (std::size_t k = 0; k < a.size(); ++k) out.flat(k) = oracle->second.complex_to_real(a.flat(k));
        return out;
    }
    if (c.outputs.size() != 1 || c.outputs[0].kind != 'c') {
        if (c.inputs.size() == 1 && c.inputs[0].kind == 'r' && c.op == "gelu") {
            // the mathematical value in long double: where PyTorch's formulas cancel
            // (1 + erf, 1 + tanh of large negative x) realify's do not
            const auto a = d.real_input(0);
            const bool tanh = c.has_param("approximate") && c.string_param("approximate") == "tanh";
            xt::xarray<T> out = xt::xarray<T>::from_shape(a.shape());
            for (std::size_t k = 0; k < a.size(); ++k) {
                const long double x = a.flat(k);
                const long double r = tanh ? x / (1 + std::exp(-2 * 0.7978845608028653558798921198687637L * (x + 0.044715L * x * x * x)))
                                           : x / 2 * std::erfc(-x / std::sqrt(2.0L));
                out.flat(k) = static_cast<T>(r);
            }
            return out;
        }
        return std::nullopt;
    }
    const auto shape = d.complex_output(0).shape();
    cxarray<T> out = cxarray<T>::from_shape(shape);
    auto as_complex = [&](std::size_t i) -> cxarray<T> {
        if (c.inputs.at(i).kind == 'c') return xt::broadcast(d.complex_input(i), shape);
        return xt::broadcast(xt::cast<C>(d.real_input(i)), shape);
    };
    if (one_to_one && c.inputs[0].kind == 'c' && oracle->second.complex_to_complex) {
        const auto a = d.complex_input(0);
        for (std::size_t k = 0; k < a.size(); ++k) out.flat(k) = oracle->second.complex_to_complex(a.flat(k));
    } else if (auto b = binary.find(c.op); b != binary.end() && !c.has_param("alpha")) {
        const auto x = as_complex(0), y = as_complex(1);
        for (std::size_t k = 0; k < out.size(); ++k) out.flat(k) = b->second(x.flat(k), y.flat(k));
    } else if (auto f = scalar.find(c.op); f != scalar.end()) {
        const std::string key = c.has_param("exponent") ? "exponent" : "other";
        const C s = cparam<T>(c, key);
        const bool real = !is_complex_param(c, key);
        const auto a = d.complex_input(0);
        for (std::size_t k = 0; k < a.size(); ++k) out.flat(k) = f->second(a.flat(k), s, real);
    } else if (c.op == "polar") {
        const xt::xarray<T> r = xt::broadcast(d.real_input(0), shape), t = xt::broadcast(d.real_input(1), shape);
        for (std::size_t k = 0; k < out.size(); ++k) out.flat(k) = R::polar(r.flat(k), t.flat(k));
    } else {
        return std::nullopt;
    }
    return out;
}

// ---- comparison -------------------------------------------------------------------

/// Deviations from PyTorch accepted because realify matches std::complex there.
std::map<std::string, std::size_t>& deviation_counts() {
    static std::map<std::string, std::size_t> counts;
    return counts;
}

template <class T>
std::string describe_inputs(const golden_case& c, const golden_data<T>& d) {
    std::ostringstream s;
    s << "\n  case " << c.name() << (c.special ? " (special values: zero signs checked)" : "") << "\n  params:";
    for (const auto& [k, v] : c.params) s << " " << k << "=" << v.type << ":" << v.text;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
        const auto& slot = c.inputs[i];
        s << "\n  input " << i << " (" << slot.kind << "): ";
        if (slot.kind == 'c') s << format_array(d.complex_slot(slot));
        else if (slot.kind == 'b') s << format_array(d.bool_slot(slot));
        else s << format_array(d.real_slot(slot));
    }
    return s.str();
}

template <class T>
tolerance case_tolerance(const golden_case& c);

/// got vs PyTorch, element by element; an element that misses PyTorch may
/// match the std::complex oracle where PyTorch itself misses it.
template <class T, class A>
::testing::AssertionResult match_with_oracle(const A& got, const A& expected, const A* oracle, const tolerance& tol,
                                             const std::string& key, bool count,
                                             const std::function<std::string()>& context) {
    if (oracle == nullptr || got.shape() != expected.shape()) return arrays_match(got, expected, tol, context);
    A effective = expected;
    std::size_t deviations = 0;
    for (std::size_t k = 0; k < expected.size(); ++k) {
        std::string why;
        if (element_matches(got.flat(k), expected.flat(k), tol, why)) continue;
        if (!element_matches(expected.flat(k), oracle->flat(k), tol, why) &&
            element_matches(got.flat(k), oracle->flat(k), tol, why)) {
            effective.flat(k) = oracle->flat(k);
            ++deviations;
        }
    }
    if (deviations && count) deviation_counts()[key] += deviations;
    return arrays_match(got, effective, tol, context, oracle);
}

template <class T>
void check_results(const golden_case& c, const golden_data<T>& d, const results<T>& got, const std::string& how) {
    ASSERT_EQ(got.size(), c.outputs.size()) << c.name() << ": number of results (" << how << ")";
    const tolerance tol = case_tolerance<T>(c);
    const auto oracle = reference_result<T>(c, d);
    auto context = [&] { return describe_inputs(c, d) + "\n  run with " + how; };
    for (std::size_t i = 0; i < got.size(); ++i) {
        const auto& slot = c.outputs[i];
        const std::string key = c.op + "/" + c.dtype;
        const bool count = how == "contiguous inputs";  // count each element once, not once per layout
        switch (slot.kind) {
            case 'c': {
                ASSERT_TRUE(std::holds_alternative<cxarray<T>>(got[i])) << c.name() << ": result " << i << " is not complex";
                const auto expected = d.complex_slot(slot);
                const cxarray<T>* o = oracle && std::holds_alternative<cxarray<T>>(*oracle) ? &std::get<cxarray<T>>(*oracle) : nullptr;
                EXPECT_TRUE(match_with_oracle<T>(std::get<cxarray<T>>(got[i]), expected, o, tol, key, count, context)) << c.name();
                break;
            }
            case 'r': {
                ASSERT_TRUE(std::holds_alternative<xt::xarray<T>>(got[i])) << c.name() << ": result " << i << " is not real";
                const auto expected = d.real_slot(slot);
                const xt::xarray<T>* o = oracle && std::holds_alternative<xt::xarray<T>>(*oracle) ? &std::get<xt::xarray<T>>(*oracle) : nullptr;
                EXPECT_TRUE(match_with_oracle<T>(std::get<xt::xarray<T>>(got[i]), expected, o, tol, key, count, context)) << c.name();
                break;
            }
            case 'b': {
                ASSERT_TRUE(std::holds_alternative<xt::xarray<bool>>(got[i])) << c.name() << ": result " << i << " is not bool";
                EXPECT_TRUE(arrays_match(std::get<xt::xarray<bool>>(got[i]), d.bool_slot(slot), tol, context)) << c.name();
                break;
            }
            case 'i': {
                ASSERT_TRUE(std::holds_alternative<long long>(got[i])) << c.name() << ": result " << i << " is not an integer";
                EXPECT_EQ(std::get<long long>(got[i]), static_cast<long long>(d.real_slot(slot)())) << context();
                break;
            }
            default: FAIL() << "unknown result kind " << slot.kind;
        }
    }
}

// ---- per-op tolerances (docs/numerics.md gives the reasons) ------------------------

/// Whether the op's record says zero signs are part of its specification
/// (realify/ops/tags.hpp, docs/numerics.md); false for a name not in the list.
inline bool checks_zero_sign(const std::string& op) {
    for (const auto& info : realify::op::op_table)
        if (info.name == op) return info.record.zero_sign;
    return false;
}

template <class T>
tolerance case_tolerance(const golden_case& c) {
    tolerance tol = default_tolerance<T>();
    tol.check_zero_sign = c.special && checks_zero_sign(c.op);
    if (c.special || c.label.rfind("wide", 0) == 0) {
        // Magnitudes from 1e-30 to 1e30: an absolute tolerance would accept anything small.
        tol.atol = 0;
    }
    return tol;
}

// ---- the test ---------------------------------------------------------------------

template <class T, class P>
std::optional<results<T>> run_case(const golden_case& c, P& in) {
    if (auto it = elementwise_runners<T, P>().find(c.op); it != elementwise_runners<T, P>().end()) return it->second(c, in);
    if (auto it = structural_runners<T, P>().find(c.op); it != structural_runners<T, P>().end()) return it->second(c, in);
    return std::nullopt;
}

template <class T>
void run_golden_case(const golden_case& c) {
    const golden_data<T> d(c);
    contiguous_inputs<T> in(d);
    std::optional<results<T>> got;
    try {
        if (list_ops.count(c.op)) got = run_list_op<T>(c, in);
        else got = run_case<T>(c, in);
    } catch (const std::exception& e) {
        ADD_FAILURE() << c.name() << ": realify threw " << e.what() << describe_inputs(c, d);
        return;
    }
    if (!got.has_value()) {
        ADD_FAILURE() << "no runner for golden op " << c.op << ": add realify::" << c.op << " to the tables above";
        return;
    }
    check_results<T>(c, d, *got, in.describe());
    if (list_ops.count(c.op) || c.inputs.empty()) return;
    // The same case with every input stored transposed / stepped / reversed.
    std::uint64_t seed = 1;
    for (auto layout : {memory_layout::transposed, memory_layout::stepped, memory_layout::reversed}) {
        strided_inputs<T> sin(d, layout, seed++);
        std::optional<results<T>> strided;
        try {
            strided = run_case<T>(c, sin);
        } catch (const std::exception& e) {
            ADD_FAILURE() << c.name() << ": realify threw " << e.what() << " with " << sin.describe() << describe_inputs(c, d);
            continue;
        }
        ASSERT_TRUE(strided.has_value());
        check_results<T>(c, d, *strided, sin.describe());
    }
}

std::vector<std::string> golden_ops() {
    std::set<std::string> ops;
    for (const auto& c : golden_cases()) ops.insert(c.op);
    return {ops.begin(), ops.end()};
}

class golden : public ::testing::TestWithParam<std::string> {};

TEST_P(golden, matches_pytorch) {
    std::size_t cases = 0;
    for (const auto& c : golden_cases()) {
        if (c.op != GetParam()) continue;
        ++cases;
        if (c.dtype == "c64") run_golden_case<float>(c);
        else run_golden_case<double>(c);
    }
    EXPECT_GT(cases, 0u);
    for (const auto& [key, n] : deviation_counts()) {
        if (key.rfind(GetParam() + "/", 0) == 0) {
            std::cout << "[ deviation ] " << key << ": " << n
                      << " element(s) follow std::complex where PyTorch 1.13 differs (docs/numerics.md)\n";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(ops, golden, ::testing::ValuesIn(golden_ops()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(golden_manifest, covers_every_pytorch_supported_op_of_the_table) {
    // Every op PyTorch 1.13 has (on complex or on real tensors, its record says) is in the goldens,
    // unless its record says it has no values to compare (empty). The others — not PyTorch ops
    // (getitem; rope, whose (xq, xk) form's goldens, tests/golden/rope and graph/, the one-tensor
    // form matches bit for bit: tests/ops/test_layers.cpp) — are checked against the references.
    const auto ops = golden_ops();
    const std::set<std::string> have(ops.begin(), ops.end());
    for (const auto& info : realify::op::op_table) {
        const std::string name(info.name);
        const bool in_pytorch = info.record.torch_complex || info.record.torch_real;
        if (in_pytorch && info.record.golden) EXPECT_TRUE(have.count(name)) << "op " << name << " has no golden";
        else EXPECT_FALSE(have.count(name)) << "op " << name << ": its record says it has no golden, but it has";
    }
    EXPECT_GE(golden_cases().size(), 1000u);
}

}  // namespace
