// Lowerings of mm, bmm, matmul, dot and vdot onto the compiled matrix
// products of realify/simd/gemm.hpp: complex operands through its methods
// (the direct loop for small products, else the backend's complex GEMM; the
// induced 1m, 4m and 3m on request: realify::gemm_method), two real
// float/double tensors through the real GEMM. Shapes follow PyTorch: mm takes 2-D operands, bmm 3-D ones with
// equal batch, matmul the NumPy rules (1-D operands promoted and the added dim
// removed, batch dims broadcast), dot and vdot 1-D operands of one length.
//
// Operands are read where they lie (their engine::tensor_ref): the GEMM gets
// each operand's pointer and strides, and matrix views (realify::conj_view,
// transpose_view, mH) become swapped strides and a conjugate flag. Only what
// is not in memory as the component type (a lazy expression, a complex64
// operand of a complex128 product, a [re, im] axis that is not contiguous)
// is evaluated first.
//
// The batched product's plan (its shapes checked, each batch's offsets) is
// compiled once, in realify_simd (src/dispatch/lowerings/linalg.cpp).
//
// out=: the product is written straight into the caller's buffer when that
// is row-major contiguous, of the product's component type and shares no
// memory with an operand; otherwise it is computed into a temporary and
// copied into the buffer by the engine (any layout; an operand may then
// overlap the buffer in any way, the product being complete before the
// buffer is written). The buffer's shape is checked first (shape_error).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xstorage.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/dispatch/into.hpp"
#include "realify/dispatch/results.hpp"
#include "realify/dispatch/lowerings/common.hpp"
#include "realify/engine/einsum.hpp"
#include "realify/engine/elementwise.hpp"
#include "realify/engine/tensor_ref.hpp"
#include "realify/engine/xtensor_refs.hpp"
#include "realify/ops/matrix_view.hpp"
#include "realify/simd/gemm.hpp"

namespace realify::dispatch {
namespace lowering {

namespace linalg_detail {

using engine::dims;
using engine::tensor_ref;

/// What a matrix-product argument reads: the tensor, and the view's flags.
template <class X>
struct argument {
    using tensor = X;
    static constexpr bool conjugate = false, transpose = false;
    static const X& tensor_of(const X& x) { return x; }
};
template <class Operand, bool C, bool T>
struct argument<matrix_view<Operand, C, T>> {
    using tensor = typename matrix_view<Operand, C, T>::operand_type;
    static constexpr bool conjugate = C, transpose = T;
    static const tensor& tensor_of(const matrix_view<Operand, C, T>& view) { return view.operand(); }
};
template <class X>
using tensor_t = typename argument<std::remove_cvref_t<X>>::tensor;

template <class A, class B>
inline constexpr bool two_complex = complex_tensor_operand<tensor_t<A>> && complex_tensor_operand<tensor_t<B>>;
template <class A, class B>
inline constexpr bool two_real = !complex_tensor_operand<tensor_t<A>> && !complex_tensor_operand<tensor_t<B>> &&
                                 matrix_tensor_operand<tensor_t<A>> && matrix_tensor_operand<tensor_t<B>>;

/// Component type of the product (PyTorch's promotion of the two tensors).
template <class A, class B>
using component_t = promoted_real_t<tensor_t<A>, tensor_t<B>>;

/// Swaps the last two axes (a view's transpose).
inline void swap_last_two(dims& shape) {
    if (shape.rank >= 2) std::swap(shape.extent[shape.rank - 1], shape.extent[shape.rank - 2]);
}

/// One argument, ready for the GEMM: its tensor_ref (components of T, the
/// view's transpose applied) and the view's conjugate flag. Read where it
/// lies (realify/engine/xtensor_refs.hpp); an operand of another component
/// type (a complex64 operand of a complex128 product, an integer tensor) is
/// converted once by the engine into a temporary the input keeps.
template <class T, bool Complex, class X>
class matrix_input {
public:
    using arg = argument<std::remove_cvref_t<X>>;

    matrix_input(std::string_view op, const X& x) : m_input(op, arg::tensor_of(x)), m_ref(m_input.ref()) {
        if (m_ref.type != engine::component_of<T>()) {
            std::vector<std::size_t> shape(m_ref.shape.begin(), m_ref.shape.end());
            if (Complex) shape.push_back(2);
            m_converted.emplace(xt::xarray<T>::from_shape(shape));
            tensor_ref to = m_ref;
            to.data = m_converted->data();
            to.type = engine::component_of<T>();
            to.strides = engine::row_major_strides(to.shape, to.width());
            const std::array<bool, 1> kinds{Complex};
            engine::evaluate(op, std::span(&m_ref, 1), to, engine::builtin_kernel(engine::builtin::copy, to.type, kinds));
            m_ref = to;
        }
        if constexpr (arg::transpose) {
            swap_last_two(m_ref.shape);
            if (m_ref.rank() >= 2) std::swap(m_ref.strides[m_ref.rank() - 1], m_ref.strides[m_ref.rank() - 2]);
        }
    }
    matrix_input(const matrix_input&) = delete;
    matrix_input& operator=(const matrix_input&) = delete;

    /// The memory the product reads (also what the overlap check of out= sees).
    const tensor_ref& ref() const noexcept { return m_ref; }
    const dims& shape() const noexcept { return m_ref.shape; }
    const T* data() const noexcept { return static_cast<const T*>(m_ref.data); }
    static constexpr bool conjugate = Complex && arg::conjugate;

private:
    engine::input<tensor_t<X>> m_input;
    std::optional<xt::xarray<T>> m_converted;
    tensor_ref m_ref;
};

/// The shape the product sees for an argument (a view's transpose applied).
template <class X>
dims argument_shape(std::string_view op, const X& x) {
    dims result = engine::make_dims(op, argument<std::remove_cvref_t<X>>::tensor_of(x).shape());
    if constexpr (argument<std::remove_cvref_t<X>>::transpose) swap_last_two(result);
    return result;
}

[[noreturn]] void mismatch(std::string_view op, const dims& a, const dims& b);

/// A stack of matrices (…, rows, cols) as the GEMM reads an operand: its
/// ref, a 1-D one made a row (1 × k) on the left or a column (k × 1) on the
/// right (an inserted axis of extent 1).
inline tensor_ref matrices_of(const tensor_ref& t, bool promote_row, bool promote_column) {
    if (promote_row) return engine::unsqueezed(t, 0);
    if (promote_column) return engine::unsqueezed(t, t.rank());
    return t;
}

using offset_vector = xt::svector<std::ptrdiff_t, 4>;

/// The batched product (…, m, k) · (…, k, n): broadcast batch dims and the
/// offset of each batch's matrices in each operand.
struct product_plan {
    dims batch;
    std::size_t m = 0, n = 0, k = 0;
    offset_vector a_offsets, b_offsets;

    std::size_t batch_count() const { return a_offsets.size(); }
};

/// `shown_a`/`shown_b` are the shapes the error messages name (the user's).
product_plan plan_product(std::string_view op, const tensor_ref& a, const tensor_ref& b, const dims& shown_a,
                          const dims& shown_b);

template <class T, class Input>
simd::gemm_operand<T> gemm_operand_of(const Input& in, const tensor_ref& as, const offset_vector& offsets) {
    const std::size_t r = as.rank();
    return {in.data(), as.strides[r - 2], as.strides[r - 1], {offsets.data(), offsets.size()}, Input::conjugate};
}

/// Runs the planned product into `out` (contiguous: batch × m × n, interleaved when complex).
template <bool Complex, class T, class InputA, class InputB>
void multiply(const product_plan& plan, const InputA& a, const tensor_ref& ma, const InputB& b, const tensor_ref& mb,
              T* out) {
    const simd::gemm_dims dims{plan.batch_count(), plan.m, plan.n, plan.k};
    const auto ga = gemm_operand_of<T>(a, ma, plan.a_offsets), gb = gemm_operand_of<T>(b, mb, plan.b_offsets);
    if constexpr (Complex) simd::complex_gemm(dims, ga, gb, out);
    else simd::real_gemm(dims, ga, gb, out);
}

/// The allocated result of a product of A and B (realify/dispatch/results.hpp):
/// an owning complex_layout when an operand is one, else an xtensor of
/// std::complex<T> (complex) or of T (real) of rank Rank.
template <class T, bool Complex, std::size_t Rank, class A, class B>
using result_type = result_t<std::conditional_t<Complex, std::complex<T>, T>, Rank, tensor_t<A>, tensor_t<B>>;

/// The first component of a freshly allocated (row-major) result.
template <class T, class Result>
T* data_of(Result& result) {
    if constexpr (is_complex_layout_v<Result>) return result.real_layout().data();
    else return reinterpret_cast<T*>(result.data());  // std::complex<T> is an array of two T
}

/// Writes the product into o's buffer (see the header comment): `run(out)`
/// computes it into contiguous memory.
template <class Result, class T, bool Complex, class Run, class Buffer>
void write_into(std::string_view op, const dims& shape, const Run& run, const tensor_ref& a, const tensor_ref& b,
                out_arg<Buffer>& o) {
    check_out_type<std::conditional_t<Complex, std::complex<T>, T>, Buffer>();
    const engine::tensor_ref out = out_ref(op, o);
    const std::array<engine::tensor_ref, 2> inputs{a, b};
    const bool overlapping = engine::check_result_out(op, inputs, out, shape);
    if (!overlapping && out.type == engine::component_of<T>() && out.complex == Complex && engine::packed_from(out, 0)) {
        run(static_cast<T*>(out.data));
    } else {
        auto result = allocate_result<Result>(shape);
        run(data_of<T>(result));
        copy_into(op, result, o);
    }
}

/// The product of a and b, returned or (with an out= argument) written into
/// its buffer; operands of rank 1 are promoted as matmul does (`vector_a`,
/// `vector_b`) and the added dims removed from the result.
template <std::size_t ResultRank, class A, class B, class... Out>
auto product(std::string_view op, const A& a, const B& b, Out&... o) {
    using T = component_t<A, B>;
    constexpr bool complex = two_complex<A, B>;
    const matrix_input<T, complex, A> ia(op, a);
    const matrix_input<T, complex, B> ib(op, b);
    if (ia.shape().rank == 0 || ib.shape().rank == 0) mismatch(op, ia.shape(), ib.shape());
    const bool vector_a = ia.shape().rank == 1, vector_b = ib.shape().rank == 1;
    const tensor_ref ma = matrices_of(ia.ref(), vector_a, false), mb = matrices_of(ib.ref(), false, vector_b);
    const product_plan plan = plan_product(op, ma, mb, ia.shape(), ib.shape());
    dims shape = plan.batch;
    if (!vector_a) engine::append_extent(op, shape, plan.m);
    if (!vector_b) engine::append_extent(op, shape, plan.n);
    const auto run = [&](T* out) { multiply<complex>(plan, ia, ma, ib, mb, out); };
    using result = result_type<T, complex, ResultRank, A, B>;
    if constexpr (sizeof...(Out) == 0) {
        auto r = allocate_result<result>(shape);
        run(data_of<T>(r));
        return r;
    } else {
        (write_into<result, T, complex>(op, shape, run, ia.ref(), ib.ref(), o), ...);
    }
}

/// mm (both 2-D), bmm (both 3-D, equal batch), dot and vdot (both 1-D).
template <std::size_t Rank, std::size_t ResultRank, class A, class B, class... Out>
auto fixed_rank_product(std::string_view op, const A& a, const B& b, Out&... o) {
    const dims sa = argument_shape(op, a), sb = argument_shape(op, b);
    if (sa.rank != Rank || sb.rank != Rank || (Rank == 3 && sa[0] != sb[0])) mismatch(op, sa, sb);
    return product<ResultRank>(op, a, b, o...);
}

/// The product op Tag computes: the operand ranks PyTorch's op takes; vdot
/// conjugates its first operand (the identity for a real one).
template <class Tag, class A, class B, class... Out>
auto product_of(const A& a, const B& b, Out&... o) {
    if constexpr (std::is_same_v<Tag, op::mm>) return fixed_rank_product<2, 2>(Tag::name, a, b, o...);
    else if constexpr (std::is_same_v<Tag, op::bmm>) return fixed_rank_product<3, 3>(Tag::name, a, b, o...);
    else if constexpr (std::is_same_v<Tag, op::matmul>) return product<dynamic_rank>(Tag::name, a, b, o...);
    else if constexpr (std::is_same_v<Tag, op::dot>) return fixed_rank_product<1, 0>(Tag::name, a, b, o...);
    else return fixed_rank_product<1, 0>(Tag::name, conj_view(a), b, o...);
}

/// apply() and apply_into() of op Tag's lowerings.
template <class Tag>
struct apply_of {
    template <class A, class B>
    static auto apply(const A& a, const B& b) {
        return product_of<Tag>(a, b);
    }
    template <class Buffer, class A, class B>
    static void apply_into(out_arg<Buffer>& o, const A& a, const B& b) {
        product_of<Tag>(a, b, o);
    }
};
}  // namespace linalg_detail

#define REALIFY_PRODUCT_LOWERING(OP, NAME, OPERANDS, FORMULA)           \
    struct NAME : linalg_detail::apply_of<::realify::op::OP> {           \
        using op = ::realify::op::OP;                                    \
        static constexpr std::string_view name = #NAME;                  \
        static constexpr std::string_view formula = FORMULA;             \
        template <class A, class B>                                      \
        static constexpr bool accepts = linalg_detail::OPERANDS<A, B>;   \
    };

// ---- complex operands: the induced methods ------------------------------------------

#define REALIFY_INDUCED(WHAT)                                                                          \
    WHAT "the backend's complex GEMM (Eigen's complex product or the BLAS's cgemm/zgemm; 1m for operands " \
         "with inf or NaN); tiny products Σ (aᵣbᵣ − aᵢbᵢ) + i(aᵣbᵢ + aᵢbᵣ) directly; the induced 1m, 4m, "    \
         "3m on request"
#define REALIFY_INDUCED_DOT(WHAT) WHAT "1m as (1 × 2k)·(2k × 2): two real dot products in one pass"

REALIFY_PRODUCT_LOWERING(mm, mm_induced, two_complex, REALIFY_INDUCED(""))
REALIFY_PRODUCT_LOWERING(bmm, bmm_induced, two_complex, REALIFY_INDUCED("per batch; "))
REALIFY_PRODUCT_LOWERING(matmul, matmul_induced, two_complex, REALIFY_INDUCED("NumPy matmul rules; "))
REALIFY_PRODUCT_LOWERING(dot, dot_induced, two_complex, REALIFY_INDUCED_DOT("Σ a_i·b_i: "))
REALIFY_PRODUCT_LOWERING(vdot, vdot_induced, two_complex,
                         REALIFY_INDUCED_DOT("Σ conj(a_i)·b_i, the conjugate a sign of B's expansion: "))
#undef REALIFY_INDUCED
#undef REALIFY_INDUCED_DOT

// ---- two real tensors: the real GEMM ------------------------------------------------

#define REALIFY_REAL_GEMM(WHAT) "two real tensors: real GEMM" WHAT ", row- or column-major operands in place"

REALIFY_PRODUCT_LOWERING(mm, mm_real_gemm, two_real, REALIFY_REAL_GEMM(""))
REALIFY_PRODUCT_LOWERING(bmm, bmm_real_gemm, two_real, REALIFY_REAL_GEMM(" per batch"))
REALIFY_PRODUCT_LOWERING(matmul, matmul_real_gemm, two_real, REALIFY_REAL_GEMM(", NumPy matmul rules"))
REALIFY_PRODUCT_LOWERING(dot, dot_real_gemm, two_real, REALIFY_REAL_GEMM(" of (1 × k)·(k × 1)"))
REALIFY_PRODUCT_LOWERING(vdot, vdot_real_gemm, two_real, REALIFY_REAL_GEMM(" of (1 × k)·(k × 1), conj the identity"))
#undef REALIFY_REAL_GEMM
#undef REALIFY_PRODUCT_LOWERING

// ---- einsum: batched products of the GEMM (realify/engine/einsum.hpp) ------------------

template <class... A>
inline constexpr bool einsum_arguments = false;  // operands…, the equation
template <class A0, class... A>
inline constexpr bool einsum_arguments<A0, A...> = [] {
    using L = std::tuple_element_t<sizeof...(A), std::tuple<A0, A...>>;  // the last argument
    if constexpr (sizeof...(A) == 0 || !std::is_convertible_v<L, std::string_view>) {
        return false;
    } else {
        // the operands: every argument but the last, tensors of one dtype (PyTorch's rule)
        return []<std::size_t... I>(std::index_sequence<I...>) {
            using all = std::tuple<A0, A...>;
            return (tensor_operand<std::tuple_element_t<I, all>> && ...) &&
                   ((complex_tensor_operand<std::tuple_element_t<I, all>> == complex_tensor_operand<A0>) && ...) &&
                   ((std::is_floating_point_v<operand_component_t<std::tuple_element_t<I, all>>> &&
                     std::is_same_v<operand_component_t<std::tuple_element_t<I, all>>, operand_component_t<A0>>) && ...);
        }(std::make_index_sequence<sizeof...(A)>{});
    }
}();

/// torch.einsum: the equation parsed at run time into batched products of
/// the GEMM; operands read in place through their strides.
struct einsum_gemm {
    using op = ::realify::op::einsum;
    static constexpr std::string_view name = "einsum_gemm";
    static constexpr std::string_view formula =
        "the equation parsed at run time: diagonals and permutations as strides, labels no one else needs summed "
        "first, each pair of operands one batched GEMM (real, or the induced methods for complex operands), left "
        "to right";
    template <class... A>
    static constexpr bool accepts = einsum_arguments<A...>;

    /// f(refs, equation) with the operands' refs (every argument but the last).
    template <class F, class... A>
    static decltype(auto) with_operands(const F& f, const A&... args) {
        const auto all = std::forward_as_tuple(args...);
        const std::string_view equation = std::get<sizeof...(A) - 1>(all);
        return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
            const engine::operand_list in(op::name, engine::operands_of(std::get<I>(all)...));
            return f(in.refs(), equation);
        }(std::make_index_sequence<sizeof...(A) - 1>{});
    }
    template <class... A>
    static auto apply(const A&... args) {
        using first = std::tuple_element_t<0, std::tuple<A...>>;
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            using all = std::tuple<A...>;
            using R = result_t<element_t<first>, dynamic_rank, std::tuple_element_t<I, all>...>;
            return with_operands(
                [](std::span<const engine::tensor_ref> refs, std::string_view equation) {
                    R result = allocate_result<R>(engine::einsum_shape(op::name, equation, refs));
                    auto o = out(result);
                    engine::einsum(op::name, equation, refs, out_ref(op::name, o));
                    return result;
                },
                args...);
        }(std::make_index_sequence<sizeof...(A) - 1>{});
    }
    template <class O, class... A>
    static void apply_into(out_arg<O>& o, const A&... args) {
        check_out_type<element_t<std::tuple_element_t<0, std::tuple<A...>>>, O>();
        with_operands([&](std::span<const engine::tensor_ref> refs,
                          std::string_view equation) { engine::einsum(op::name, equation, refs, out_ref(op::name, o)); },
                      args...);
    }
};

}  // namespace lowering

REALIFY_BUILTIN_CANDIDATES(einsum, lowering::einsum_gemm)
REALIFY_BUILTIN_CANDIDATES(mm, lowering::mm_induced, lowering::mm_real_gemm)
REALIFY_BUILTIN_CANDIDATES(bmm, lowering::bmm_induced, lowering::bmm_real_gemm)
REALIFY_BUILTIN_CANDIDATES(matmul, lowering::matmul_induced, lowering::matmul_real_gemm)
REALIFY_BUILTIN_CANDIDATES(dot, lowering::dot_induced, lowering::dot_real_gemm)
REALIFY_BUILTIN_CANDIDATES(vdot, lowering::vdot_induced, lowering::vdot_real_gemm)

}  // namespace realify::dispatch
