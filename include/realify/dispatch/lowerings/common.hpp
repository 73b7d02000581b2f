// What the built-in lowerings share: running a kernel through the
// elementwise engine (realify/engine/elementwise.hpp) over the operands, in
// the component type PyTorch's promotion gives them, either into a fresh
// result (the allocating form, see realify/dispatch/results.hpp) or into an
// out= buffer. The compiled kernels (realify/simd/elementwise.hpp) are the
// elementwise ops' only formulas; `elementwise` runs a user's element
// function (a user lowering) the same way.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "realify/dispatch/into.hpp"
#include "realify/dispatch/registry.hpp"
#include "realify/dispatch/results.hpp"
#include "realify/engine/elementwise.hpp"
#include "realify/engine/xtensor_refs.hpp"
#include "realify/kernels/element.hpp"
#include "realify/ops/operand.hpp"
#include "realify/ops/out.hpp"
#include "realify/ops/promotion.hpp"
#include "realify/ops/tags.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::dispatch::lowering {

using kernels::cpair;
using kernels::element;
using kernels::to_pair;

/// The element type of a tensor: std::complex<T> or its real type.
template <class A>
using element_t = std::conditional_t<complex_tensor_operand<A>, std::complex<operand_component_t<A>>, operand_component_t<A>>;

template <class... A>
inline constexpr bool one_tensor = false;
template <class A>
inline constexpr bool one_tensor<A> = tensor_operand<A>;

/// Whether operands of these types are complex (tensors or numbers).
template <class... A>
inline constexpr std::array<bool, sizeof...(A)> complex_kinds{complex_operand<A>...};

/// The element type of a result: std::complex<T> when complex, else R.
template <bool Complex, class T>
using element_of = std::conditional_t<Complex, std::complex<T>, T>;

/// The broadcast of the operands read, allocated as result type R (see
/// results.hpp) and filled by `kernel`: one function per result type.
template <class R>
R evaluate_fresh(std::string_view op, const engine::block_kernel& kernel, std::span<const engine::operand> operands) {
    const engine::operand_list in(op, operands);
    R result = allocate_result<R>(engine::broadcast_shape(op, in.refs()));
    engine::evaluate(op, in.refs(), engine::output_ref(op, result), kernel);
    return result;
}

/// The same on the operands: a call site is their (object, reader) pairs
/// and one call, whatever their types.
template <class R, class... A>
R allocate_and_evaluate(std::string_view op, const engine::block_kernel& kernel, const A&... operands) {
    return evaluate_fresh<R>(op, kernel, engine::operands_of(operands...));
}

// ---- the compiled kernels ------------------------------------------------------------------

/// The compiled op Op on operands A…: its component type, its result, and
/// its kernel with `constant` (α for add and sub, the exponent of
/// pow_scalar, gelu's tanh form).
template <simd::elementwise_op Op, class... A>
struct compiled {
    using T = promoted_real_t<A...>;
    static constexpr bool complex_result = [] {
        constexpr auto k = [](bool c) { return c ? simd::operand_kind::complex : simd::operand_kind::real; };
        constexpr std::array<bool, sizeof...(A)> kinds{complex_operand<A>...};
        std::optional<simd::operand_kind> r;
        if constexpr (sizeof...(A) == 1) r = simd::result_kind(Op, k(kinds[0]));
        else r = simd::result_kind(Op, k(kinds[0]), k(kinds[1]));
        return r && *r == simd::operand_kind::complex;
    }();
    using element = element_of<complex_result, T>;
    using result = result_t<element, broadcast_rank_v<A...>, A...>;
    static engine::block_kernel kernel(std::optional<std::complex<double>> constant) {
        return engine::kernel_of(Op, engine::component_of<T>(), complex_kinds<A...>, constant);
    }
};

/// The one path of every compiled lowering: Op's kernel over the operands,
/// into a fresh result (run) or an out= buffer (into).
template <simd::elementwise_op Op>
struct compiled_call {
    template <class... A>
    static auto run(std::string_view name, std::optional<std::complex<double>> constant, const A&... operands) {
        using C = compiled<Op, A...>;
        return allocate_and_evaluate<typename C::result>(name, C::kernel(constant), operands...);
    }
    template <class O, class... A>
    static void into(std::string_view name, out_arg<O>& o, std::optional<std::complex<double>> constant,
                     const A&... operands) {
        using C = compiled<Op, A...>;
        evaluate_into<typename C::element>(name, C::kernel(constant), o, operands...);
    }
};

/// The constant of an op as the kernels take it.
template <class S>
std::optional<std::complex<double>> constant_of(const S& s) {
    if constexpr (complex_number_operand<S>) return std::complex<double>(double(s.real()), double(s.imag()));
    else return std::complex<double>(static_cast<double>(s), 0.0);
}

/// A built-in kernel of the engine over the operands, in component type T.
template <class T, class... A>
engine::block_kernel builtin_of(engine::builtin b) {
    return engine::builtin_kernel(b, engine::component_of<T>(), complex_kinds<A...>);
}

// ---- a user's element function ----------------------------------------------------------------

namespace detail {
template <class T, bool Complex>
auto load(const void* p, bool broadcast, std::size_t i) noexcept {
    const T* x = static_cast<const T*>(p) + (broadcast ? 0 : (Complex ? 2 * i : i));
    if constexpr (Complex) return cpair<T>{x[0], x[1]};
    else return x[0];
}

/// The block function of an element function F on operands of kinds Complex….
template <class T, class F, bool... Complex>
void element_block(const engine::block_kernel& self, const void* const* in, const bool* broadcast, void* out,
                   std::size_t n, bool) {
    const F& f = *static_cast<const F*>(self.object);
    T* o = static_cast<T*>(out);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        for (std::size_t i = 0; i < n; ++i) {
            const auto r = f(load<T, Complex>(in[I], broadcast[I], i)...);
            if constexpr (std::is_arithmetic_v<decltype(r)>) {
                o[i] = static_cast<T>(r);
            } else {
                o[2 * i] = r.re;
                o[2 * i + 1] = r.im;
            }
        }
    }(std::index_sequence_for<std::integral_constant<bool, Complex>...>{});
}
}  // namespace detail

/// Runs an element function (on cpair<T> for complex operands, T for real
/// ones; returning cpair<T>, T or bool) over the broadcast of the operands
/// in the component type PyTorch's promotion gives them, into a fresh
/// result: the tool of user lowerings. The op tag names errors. On large
/// operands f is called from several threads at once (realify/threads.hpp):
/// it must be a function of its arguments.
template <class Tag, class F, class... A>
auto elementwise(const F& f, const A&... operands) {
    using T = promoted_real_t<A...>;
    using R = decltype(f(std::conditional_t<complex_operand<A>, cpair<T>, T>{}...));
    constexpr bool complex_result = !std::is_arithmetic_v<R>;
    using V = std::conditional_t<complex_result, std::complex<T>, std::conditional_t<std::is_same_v<R, bool>, bool, T>>;
    engine::block_kernel k;
    k.run = &detail::element_block<T, F, complex_operand<A>...>;
    k.compute = engine::component_of<T>();
    for (std::size_t i = 0; i < sizeof...(A); ++i) k.complex_inputs[i] = complex_kinds<A...>[i];
    k.complex_output = complex_result;
    k.object = &f;
    return allocate_and_evaluate<result_t<V, broadcast_rank_v<A...>, A...>>(Tag::name, k, operands...);
}

}  // namespace realify::dispatch::lowering

/// Declares the built-in candidates of op::OP.
#define REALIFY_BUILTIN_CANDIDATES(OP, ...)                                  \
    template <>                                                              \
    struct builtin_lowerings<::realify::op::OP> {                            \
        using type = ::realify::type_list<__VA_ARGS__>;                      \
    };
