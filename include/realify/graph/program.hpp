// realify::graph::lower(outputs...) -> program; program(inputs...) -> tensors.
//
//   auto prog = graph::lower(xq_out, xk_out);            // passes run once, here
//   auto [q, k] = prog(xq, xk, freqs);                   // new tensors
//   prog(graph::out(q, k), xq, xk, freqs);               // into caller buffers
//   prog.plan(graph::out(q, k), xq, xk, freqs);          // how out= would write them
//
// Inputs are passed in the order the placeholders were created
// (program::input_names() lists them). Outputs are returned as the output
// nodes declare: std::complex containers for complex outputs (no
// view_as_real anchor), real ones otherwise; xtensor_fixed when every input
// is fixed-shape, xtensor<E, N> when the rank is static, xarray otherwise.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "realify/errors.hpp"
#include "realify/graph/buffer_layout.hpp"
#include "realify/graph/build_ir.hpp"
#include "realify/graph/evaluate.hpp"
#include "realify/graph/infer_shapes.hpp"
#include "realify/graph/ir.hpp"
#include "realify/graph/passes.hpp"
#include "realify/graph/traits.hpp"
#include "realify/graph/write_outputs.hpp"

namespace realify::graph {

/// Strict mode tag: lower(strict, outputs...) refuses (at compile time) any
/// node no lowering accepts, instead of falling back to std::complex.
struct strict_t {};
inline constexpr strict_t strict{};

/// Caller buffers for program(out(a, b), inputs...).
template <class... B>
struct out_buffers {
    std::tuple<B&...> buffers;
};
template <class... B>
out_buffers<B...> out(B&... buffers) {
    return {std::tuple<B&...>(buffers...)};
}

namespace detail {

template <class X>
inline constexpr bool is_out_buffers_v = false;
template <class... B>
inline constexpr bool is_out_buffers_v<out_buffers<B...>> = true;

template <class C>
auto* component_pointer(C& c) {
    using E = typename C::value_type;
    if constexpr (is_std_complex<E>::value) return realify::detail::as_real_pointer(c.data());
    else return c.data();
}

/// The state of one call: the bound arguments, the memo, the shapes known
/// before evaluation. Not movable (the context points into it).
struct call_state {
    std::vector<bound_input> inputs;
    std::vector<graph_value> memo;
    eval_context ctx;
    std::vector<std::optional<shape_vector>> shapes;

    /// Binds the arguments in the inputs' order (realify::error when there
    /// are not as many as inputs; layout_error for an argument of another type).
    call_state(const graph_ir& g, std::span<const argument> args);
    ~call_state();
    call_state(const call_state&) = delete;
    call_state& operator=(const call_state&) = delete;
};

/// A call's arguments, each its address and the binder of its type.
template <class... Args>
std::array<argument, sizeof...(Args)> arguments_of(const Args&... args) {
    return {argument{std::addressof(args), &bind_erased<Args>}...};
}

std::string input_name(const graph_ir& g, std::size_t position);
/// Every input's name, in argument order.
std::vector<std::string> input_names(const graph_ir& g);

/// A text dump of the graph: all nodes (false) or the live, lowered ones (true).
std::string describe_graph(const graph_ir& g, bool after);

/// The shape of the output at `slot`: known before evaluation (infer_shapes),
/// or its value's, evaluated now.
shape_vector result_shape(call_state& call, std::size_t slot);

/// Fills a new packed container of that shape (its components at `data`):
/// when the shape was known before evaluation, the fused loop or the SIMD
/// kernel writes straight into it (no copy); otherwise the evaluated value
/// is copied in (through its strides: a view is copied, never returned).
void fill_result(call_state& call, std::size_t slot, void* data, bool complex, std::size_t component_bytes);

/// A new container of type C (of the shape of the output at `slot`), filled
/// by fill_result. One function per container type, not per program: out of
/// line, so that a unit's programs with the same output type share it rather
/// than each inlining the container's construction.
template <class C>
[[gnu::noinline]] C new_result(call_state& call, std::size_t slot) {
    using E = typename C::value_type;
    const shape_vector shape = result_shape(call, slot);
    C result = [&] {
        if constexpr (static_rank_v<C> == 0 && requires { C::from_shape(std::array<std::size_t, 0>{}); }) {
            // rank 0: no extents to copy (copying zero of them trips GCC's nonnull check at -O3)
            return C::from_shape(std::array<std::size_t, 0>{});
        } else if constexpr (requires { C::from_shape(shape); }) {
            return C::from_shape(shape);
        } else {
            C fixed;
            if (!std::equal(fixed.shape().begin(), fixed.shape().end(), shape.begin(), shape.end()))
                throw shape_error("realify::graph::program: result of shape " + realify::detail::format_sequence(shape) +
                                  " does not fit the output's fixed shape");
            return fixed;
        }
    }();
    fill_result(call, slot, component_pointer(result), is_std_complex<E>::value, sizeof(typename component_of<E>::type));
    return result;
}

/// The standard passes, made once (pipeline::standard() is a copy to edit).
const pipeline& standard_passes();

/// A program's graph, shared by the program's copies. Its copies and its
/// destruction are compiled once (src/graph/program.cpp): a std::shared_ptr
/// held by the program would inline its reference counting into every
/// program type's constructor, copies and destructor.
class graph_handle {
public:
    /// A new graph, to add the records of a program's nodes to.
    graph_handle();
    graph_handle(const graph_handle& other) noexcept;
    graph_handle& operator=(const graph_handle& other) noexcept;
    ~graph_handle();
    /// The graph while the program's constructor builds and lowers it.
    graph_ir& edit() noexcept { return *m_graph; }
    const graph_ir& operator*() const noexcept { return *m_graph; }
    const graph_ir* operator->() const noexcept { return m_graph.get(); }

private:
    std::shared_ptr<graph_ir> m_graph;
};

struct evaluator_entry;
/// The matrix products' part of the registry of compiled evaluators
/// (graph/evaluator_registry.hpp), in realify_gemm: named only where
/// realify::realify is linked (it defines REALIFY_GRAPH_PRODUCTS).
using products_fn = const std::vector<evaluator_entry>& (*)();
const std::vector<evaluator_entry>& product_evaluators();
#if defined(REALIFY_GRAPH_PRODUCTS)
static constexpr products_fn linked_products = &product_evaluators;
#else
static constexpr products_fn linked_products = nullptr;
#endif
/// Writes the program's graph in the saved format (graph/save.hpp; src/graph/save.cpp).
void save_graph(const graph_ir& g, std::ostream& out, products_fn products);
void save_graph_file(const graph_ir& g, const std::string& file, products_fn products);

/// Lowers the records of a built graph whose outputs are the records at
/// `outputs`: numbers the inputs, keeps the graph as built
/// (graph_ir::before), runs the passes, and records which inputs each
/// output reads.
void finish_lowering(graph_ir& g, std::span<const std::size_t> outputs, const pipeline& passes);

/// A call into the caller's buffers (write) or its plan (graph/write_outputs.hpp),
/// once the buffers' count and element types are checked: a program's and a loaded program's.
template <class... B, class... Args>
write_plan write_into_buffers(const graph_ir& g, out_buffers<B...>& buffers, bool write, const Args&... args) {
    call_state call(g, arguments_of(args...));
    const auto layouts = [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<buffer_layout, sizeof...(B)>{layout_of_buffer(std::get<I>(buffers.buffers), I)...};
    }(std::index_sequence_for<B...>{});
    return write_outputs(call.ctx, call.shapes, layouts, write);
}

}  // namespace detail

/// A lowered graph: call it on the inputs.
template <bool Strict, class... Outs>
class program {
public:
    explicit program(const pipeline& passes, const Outs&... outputs) : m_outputs(outputs...) {
        if constexpr (Strict) {  // a user op no lowering accepts: a compile error naming its op
            using unlowered = typename detail::first_non_void<typename detail::graph_facts<Outs>::unlowered...>::type;
            if constexpr (!std::is_void_v<unlowered>) {
                [[maybe_unused]] constexpr std::size_t error = sizeof(strict_mode_no_lowering_for_op<unlowered>);
            }
        }
        // the records point at the nodes held by m_outputs, which never move
        const auto slots = [&]<std::size_t... I>(std::index_sequence<I...>) {
            return std::array<std::size_t, sizeof...(Outs)>{detail::add_to_ir(m_ir.edit(), m_outputs.template get<I>())...};
        }(std::index_sequence_for<Outs...>{});
        detail::finish_lowering(m_ir.edit(), slots, passes);
    }

    /// Evaluates the outputs into new tensors: one tensor, or a std::tuple of them.
    template <class... Args>
        requires(sizeof...(Args) == 0 || (!detail::is_out_buffers_v<std::remove_cvref_t<Args>> && ...))
    auto operator()(const Args&... args) const {
        detail::call_state call(*m_ir, detail::arguments_of(args...));
        if constexpr (sizeof...(Outs) == 1) {
            return materialise<0>(call);  // returned as made: not moved through a tuple
        } else {
            return [&]<std::size_t... I>(std::index_sequence<I...>) {
                return std::make_tuple(materialise<I>(call)...);
            }(std::index_sequence_for<Outs...>{});
        }
    }

    /// Evaluates into caller buffers, one per output, of the element type the
    /// output declares and any layout (graph/buffer_layout.hpp). Before
    /// anything is written: realify::shape_error on a wrong shape,
    /// realify::layout_error for a buffer that overlaps itself or shares
    /// memory with another. A buffer may be an input (in place); outputs are
    /// written in an order that never overwrites memory another output still
    /// reads (graph/write_outputs.hpp).
    template <class... B, class... Args>
    void operator()(out_buffers<B...> buffers, const Args&... args) const {
        write_out<true>(buffers, args...);
    }

    /// What program(out(buffers…), inputs…) does: the checks (thrown as
    /// it would), each output's route and the order of the steps — nothing is
    /// written (outputs whose shape is known only once evaluated are evaluated).
    template <class... B, class... Args>
    write_plan plan(out_buffers<B...> buffers, const Args&... args) const {
        return write_out<false>(buffers, args...);
    }

    const graph_ir& ir() const noexcept { return *m_ir; }
    std::vector<std::string> input_names() const { return detail::input_names(*m_ir); }

    /// Writes the program (its graph as built, its outputs and passes) for
    /// graph::load (graph/save.hpp): to a stream, or to a file (a
    /// std::filesystem::path or a string); realify::error when an op has no
    /// compiled evaluator to be loaded with (docs/graph.md, "Saving and loading").
    void save(std::ostream& out) const { detail::save_graph(*m_ir, out, detail::linked_products); }
    template <class Path>
        requires(std::is_convertible_v<const Path&, std::string> || requires(const Path& p) { p.native(); })
    void save(const Path& file) const {
        if constexpr (requires { file.native(); }) detail::save_graph_file(*m_ir, file.native(), detail::linked_products);
        else detail::save_graph_file(*m_ir, std::string(file), detail::linked_products);
    }

    /// The output nodes, as references (the program's copies share them).
    std::tuple<const Outs&...> outputs() const noexcept { return m_outputs.refs(); }

    /// A text dump of the graph: all nodes (false) or the live, lowered ones (true).
    static std::string describe(const graph_ir& g, bool after) { return detail::describe_graph(g, after); }

private:
    /// A new tensor for output I, of the container type its node declares.
    template <std::size_t I>
    auto materialise(detail::call_state& call) const {
        return detail::new_result<output_container_t<std::tuple_element_t<I, std::tuple<Outs...>>>>(call, m_ir->outputs[I]);
    }

    template <bool Write, class... B, class... Args>
    write_plan write_out(out_buffers<B...>& buffers, const Args&... args) const {
        static_assert(sizeof...(B) == sizeof...(Outs), "realify::graph::program: give one out() buffer per output.");
        static_assert(((std::is_same_v<std::remove_cv_t<typename B::value_type>, element_t<Outs>>) && ...),
                      "realify::graph::program: an out() buffer's element type must be the output's (std::complex<T> "
                      "for complex outputs, T for real ones).");
        static_assert((!std::is_const_v<B> && ...), "realify::graph::program: out() buffers must be writable (not const).");
        return detail::write_into_buffers(*m_ir, buffers, Write, args...);
    }

    detail::shared_values<Outs...> m_outputs;  // shared by the program's copies
    detail::graph_handle m_ir;  // a new graph; lowered in the constructor, then never changed
};

/// Lowers the outputs with the standard passes (or `passes`).
template <graph_node... Outs>
auto lower(const Outs&... outputs) {
    return program<false, Outs...>(detail::standard_passes(), outputs...);
}
template <graph_node... Outs>
auto lower(const pipeline& passes, const Outs&... outputs) {
    return program<false, Outs...>(passes, outputs...);
}
template <graph_node... Outs>
auto lower(strict_t, const pipeline& passes, const Outs&... outputs) {
    return program<true, Outs...>(passes, outputs...);
}
template <graph_node... Outs>
auto lower(strict_t, const Outs&... outputs) {
    return program<true, Outs...>(detail::standard_passes(), outputs...);
}

}  // namespace realify::graph
