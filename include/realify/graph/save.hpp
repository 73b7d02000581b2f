// Saving and loading lowered graph programs (docs/graph.md, "Saving and loading").
//
//   auto prog = graph::lower(xq_out, xk_out);
//   prog.save("rope.realify");                         // or prog.save(stream)
//   graph::loaded_program loaded = graph::load("rope.realify");
//   std::vector<graph::loaded_tensor> r = loaded(xq, xk, freqs);   // the same bits as prog(xq, xk, freqs)
//   loaded(graph::out(q, k), xq, xk, freqs);           // into caller buffers, as program does
//
// The file holds the records of the graph as built (each op by its name,
// its attributes, its children, inputs' names and kinds, constants' data,
// numbers), the outputs and the passes that ran. Loading rebuilds each
// record from the registry of compiled evaluators (graph/evaluator_registry.hpp),
// keyed by the op's name and its operands' kinds, and runs the same passes:
// the loaded program's records, loops and evaluators are the original's.
// User ops (graph::tensor_op, graph::custom) are saved by name and bound
// again by name: graph::load(in, graph::user_ops{}.add("rms", node)), where
// node is a node of the same op built on placeholders of the same kinds.
// A file that is not one, or that is damaged, is a realify::error
// "realify::graph::load: …" naming what is wrong.
#pragma once

#include <complex>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "realify/errors.hpp"
#include "realify/graph/evaluator_registry.hpp"
#include "realify/graph/program.hpp"

namespace realify::graph {

/// User ops a loaded program binds by name.
class user_ops {
public:
    struct entry {
        std::string name;
        detail::node_facts facts;
        std::vector<std::string> kinds;     // its children's kinds (graph/evaluator_registry.hpp)
        std::shared_ptr<const void> object;  // the node: its function or reference
    };

    /// Binds the user op named `name` to `node`: a graph::tensor_op or
    /// graph::custom node of that name, on operands of the kinds the saved
    /// op had (its function is the one the loaded program calls).
    template <graph_node N>
    user_ops& add(std::string name, const N& node) {
        static constexpr detail::node_facts facts = detail::facts_of<N>();
        static_assert(facts.rule == node_rule::tensor_op || facts.custom,
                      "realify::graph::user_ops::add: give a graph::tensor_op or graph::custom node");
        const auto kinds = []<class... C>(std::type_identity<std::tuple<C...>>) {
            return detail::kinds_of<C...>();
        }(std::type_identity<typename N::children_type>{});
        add_entry(entry{std::move(name), facts, kinds, std::make_shared<const N>(node)});
        return *this;
    }
    const std::vector<entry>& entries() const noexcept { return m_entries; }

private:
    void add_entry(entry e);  // realify::error when the name is not the node's op's
    std::vector<entry> m_entries;
};

/// A loaded program's result: a new tensor of its output's element type.
using loaded_tensor = std::variant<xt::xarray<float>, xt::xarray<double>, xt::xarray<std::complex<float>>,
                                   xt::xarray<std::complex<double>>, xt::xarray<bool>, xt::xarray<std::int32_t>,
                                   xt::xarray<std::int64_t>>;

namespace detail {
struct loaded_state;
std::shared_ptr<const loaded_state> load_graph(std::istream& in, const user_ops& users, products_fn products);
const graph_ir& loaded_ir(const loaded_state& s) noexcept;
/// Output `k`'s new tensor.
loaded_tensor new_loaded_result(call_state& call, std::size_t slot);
/// layout_error unless a buffer of elements of kind `kind` fits output `k`.
void check_out_element(const graph_ir& g, std::size_t k, std::string_view kind);
}  // namespace detail

/// A program read back by graph::load: called as the program that was saved.
class loaded_program {
public:
    explicit loaded_program(std::shared_ptr<const detail::loaded_state> s) : m_state(std::move(s)) {}

    /// Evaluates the outputs into new tensors, one per output, in order.
    template <class... Args>
        requires(sizeof...(Args) == 0 || (!detail::is_out_buffers_v<std::remove_cvref_t<Args>> && ...))
    std::vector<loaded_tensor> operator()(const Args&... args) const {
        detail::call_state call(ir(), detail::arguments_of(args...));
        std::vector<loaded_tensor> results;
        results.reserve(ir().outputs.size());
        for (std::size_t slot : ir().outputs) results.push_back(detail::new_loaded_result(call, slot));
        return results;
    }

    /// Evaluates into caller buffers, one per output, as program(out(…), …) does.
    template <class... B, class... Args>
    void operator()(out_buffers<B...> buffers, const Args&... args) const {
        write_out<true>(buffers, args...);
    }
    template <class... B, class... Args>
    write_plan plan(out_buffers<B...> buffers, const Args&... args) const {
        return write_out<false>(buffers, args...);
    }

    const graph_ir& ir() const noexcept { return detail::loaded_ir(*m_state); }
    std::vector<std::string> input_names() const { return detail::input_names(ir()); }
    /// Saves it again (the same file as the program it was loaded from).
    void save(std::ostream& out) const { detail::save_graph(ir(), out, detail::linked_products); }
    void save(const std::filesystem::path& file) const { detail::save_graph_file(ir(), file.native(), detail::linked_products); }

private:
    template <bool Write, class... B, class... Args>
    write_plan write_out(out_buffers<B...>& buffers, const Args&... args) const {
        if (sizeof...(B) != ir().outputs.size())
            throw error("realify::graph::loaded_program: " + std::to_string(ir().outputs.size()) + " out() buffers expected, " +
                        std::to_string(sizeof...(B)) + " given");
        static_assert((!std::is_const_v<B> && ...), "realify::graph::loaded_program: out() buffers must be writable (not const).");
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (detail::check_out_element(ir(), I, detail::element_kind<std::remove_cv_t<typename B::value_type>>()), ...);
        }(std::index_sequence_for<B...>{});
        return detail::write_into_buffers(ir(), buffers, Write, args...);
    }

    std::shared_ptr<const detail::loaded_state> m_state;
};

/// Reads a program saved by program::save; its user ops bound from `users`.
inline loaded_program load(std::istream& in, const user_ops& users = {}) {
    return loaded_program(detail::load_graph(in, users, detail::linked_products));
}
namespace detail {
std::shared_ptr<const loaded_state> load_file(const std::filesystem::path& file, const user_ops& users, products_fn products);
}  // namespace detail
inline loaded_program load(const std::filesystem::path& file, const user_ops& users = {}) {
    return loaded_program(detail::load_file(file, users, detail::linked_products));
}

}  // namespace realify::graph
