// Run-time integers in a graph: what PyTorch code computes from shapes and
// from integer arguments (Meta's `seqlen = tokens.shape[1]`, `start_pos`),
// and the creation ops whose shapes are made of them.
//
//   graph::int_input("start_pos")   an integer argument of the program: the
//                                   program takes a C++ integer in its place
//   graph::size(x, dim)             x.size(dim) (FX's sym_size) when the graph runs
//   graph::extent                   one extent of a creation op's shape: a
//                                   number or one of the two above —
//                                   graph::full({graph::size(x, 1), graph::size(x, 1)}, -inf)
//   graph::bound                    a bound of arange: a number (integer or
//                                   floating) or an integer node
//
// An integer node is a 0-d int64 value; its value is known before anything
// is evaluated when it is an argument, or the size of a node whose shape is
// (graph/infer_shapes.hpp), so a creation op's shape is known then too and
// out= writes it directly. The creation nodes (creation_node: full, zeros,
// ones, empty, arange) read the integer nodes of their extents as children.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "realify/graph/node.hpp"
#include "realify/graph/traits.hpp"

namespace realify::graph {


/// An integer argument of the program (graph::int_input): called with any
/// C++ integer in its place, in creation order among the inputs.
struct int_input_node : node_base {
    /// Bound from a C++ integer, not a tensor (graph/build_ir.hpp, node_facts).
    static constexpr bool integer_argument = true;
    explicit int_input_node(std::string n) : m_name(std::move(n)) { add_record = &detail::add_node<int_input_node>; }
    const std::string& name() const noexcept { return m_name.get(); }

private:
    detail::shared_text m_name;
};
template <>
struct traits_of<int_input_node> : value_traits<std::int64_t, false, 0, void> {};

/// graph::int_input("start_pos"): a run-time integer the program is called
/// with (Meta's `start_pos`), usable as a RoPE position, an extent or a bound.
inline int_input_node int_input(std::string name) { return int_input_node(std::move(name)); }

/// Nodes whose value is a run-time integer: int_input and size.
template <class N>
inline constexpr bool is_integer_node_v = std::is_same_v<N, int_input_node>;
template <class X>
inline constexpr bool is_integer_node_v<node<op::sym_size, X>> = true;
template <class N>
concept integer_node = is_integer_node_v<std::remove_cvref_t<N>>;

/// x.size(dim) when the graph runs (a negative dim counts from the end).
template <graph_node X>
    requires(!integer_node<X>)
node<op::sym_size, X> size(X x, std::ptrdiff_t dim) {
    return node<op::sym_size, X>(detail::with_ints(dim), std::move(x));
}

namespace detail {
/// An integer node of any type, held for a creation node that reads it:
/// added to the program's graph through the function of its type.
class integer_source {
public:
    integer_source() = default;
    template <integer_node N>
    explicit integer_source(const N& n) : m_node(std::make_shared<N>(n)) {}
    bool is_node() const noexcept { return m_node != nullptr; }
    /// Its record's slot in g (added, with what it reads, the first time).
    std::size_t add_to(graph_ir& g) const { return m_node->add_record(g, *m_node); }

private:
    std::shared_ptr<const node_base> m_node;
};
}  // namespace detail

/// One extent of a creation op's shape: an integer, or an integer node
/// (graph::size, graph::int_input). A negative integer is refused when the
/// graph runs, as PyTorch refuses it.
class extent {
public:
    template <class I>
        requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
    extent(I n) noexcept : m_value(static_cast<std::ptrdiff_t>(n)) {}  // NOLINT: implicit, {S, 4}
    template <integer_node N>
    extent(const N& n) : m_source(n) {}  // NOLINT: implicit, {S, S}
    const detail::integer_source& source() const noexcept { return m_source; }
    std::ptrdiff_t value() const noexcept { return m_value; }

private:
    std::ptrdiff_t m_value = 0;
    detail::integer_source m_source;
};

/// A bound of arange: a number, or an integer node.
class bound {
public:
    template <class N>
        requires(std::is_arithmetic_v<N> && !std::is_same_v<N, bool>)
    bound(N n) noexcept : m_value(static_cast<double>(n)), m_integral(std::is_integral_v<N>) {}  // NOLINT: implicit
    template <integer_node N>
    bound(const N& n) : m_source(n) {}  // NOLINT: implicit
    const detail::integer_source& source() const noexcept { return m_source; }
    double value() const noexcept { return m_value; }
    bool integral() const noexcept { return m_integral || m_source.is_node(); }

private:
    double m_value = 0;
    bool m_integral = true;
    detail::integer_source m_source;
};

/// A creation op (full, zeros, ones, empty, arange) of component type T: no
/// tensor operands; the integer nodes its extents or bounds name are its
/// children, in order (attrs.dims says which: same(k) is the k-th).
template <class Tag, class T>
struct creation_node : node_base {
    using tag = Tag;
    creation_node(node_attrs a, std::vector<detail::integer_source> reads)
        : m_attrs(std::move(a)), m_reads(std::make_shared<const std::vector<detail::integer_source>>(std::move(reads))) {
        add_record = &detail::add_node<creation_node>;
    }
    const node_attrs& attrs() const noexcept { return m_attrs.get(); }
    const std::vector<detail::integer_source>& reads() const noexcept { return *m_reads; }

private:
    detail::shared_attrs m_attrs;
    std::shared_ptr<const std::vector<detail::integer_source>> m_reads;
};
template <class Tag, class T>
struct traits_of<creation_node<Tag, T>>
    : value_traits<T, false, std::is_same_v<Tag, op::arange> ? std::size_t{1} : dynamic_rank, void> {};

template <class N>
inline constexpr bool is_creation_v = false;
template <class Tag, class T>
inline constexpr bool is_creation_v<creation_node<Tag, T>> = true;

namespace detail {
template <class T>
inline constexpr bool creation_type_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

/// The attributes of a shape: each extent a number, or same(k) for the k-th integer node read.
inline void add_extent(node_attrs& a, std::vector<integer_source>& reads, const integer_source& source, std::ptrdiff_t value) {
    if (!source.is_node()) {
        a.dims.push_back(value);
        return;
    }
    a.dims.push_back(same(reads.size()));
    reads.push_back(source);
}

template <class Tag, class T>
creation_node<Tag, T> make_creation(const std::vector<extent>& shape, double value) {
    node_attrs a;
    std::vector<integer_source> reads;
    for (const extent& e : shape) add_extent(a, reads, e.source(), e.value());
    a.scalar = value;
    a.has_scalar = std::is_same_v<Tag, op::full>;
    return creation_node<Tag, T>(std::move(a), std::move(reads));
}
}  // namespace detail

/// torch.full(size, fill_value) of component type T (PyTorch's default
/// dtype: float); each extent a number or an integer node.
template <class T = float>
creation_node<op::full, T> full(const std::vector<extent>& shape, double fill_value) {
    static_assert(detail::creation_type_v<T>, "realify::graph::full<T>: T must be float or double");
    return detail::make_creation<op::full, T>(shape, fill_value);
}
/// torch.zeros(size) / torch.ones(size) / torch.empty(size) of component type T.
template <class T = float>
creation_node<op::zeros, T> zeros(const std::vector<extent>& shape) {
    static_assert(detail::creation_type_v<T>, "realify::graph::zeros<T>: T must be float or double");
    return detail::make_creation<op::zeros, T>(shape, 0.0);
}
template <class T = float>
creation_node<op::ones, T> ones(const std::vector<extent>& shape) {
    static_assert(detail::creation_type_v<T>, "realify::graph::ones<T>: T must be float or double");
    return detail::make_creation<op::ones, T>(shape, 1.0);
}
/// Uninitialised values (zeros, in fact: never read them).
template <class T = float>
creation_node<op::empty, T> empty(const std::vector<extent>& shape) {
    static_assert(detail::creation_type_v<T>, "realify::graph::empty<T>: T must be float or double");
    return detail::make_creation<op::empty, T>(shape, 0.0);
}

/// torch.arange(start, end, step) of component type T (float by default:
/// graph values are float or double): ceil((end − start) / step) values
/// start + i·step; step 0, or one of the wrong sign, is refused when the
/// graph runs, as PyTorch refuses it. Each bound a number or an integer node.
template <class T = float>
creation_node<op::arange, T> arange(const bound& start, const bound& end, const bound& step = 1) {
    static_assert(detail::creation_type_v<T>, "realify::graph::arange<T>: T must be float or double");
    node_attrs a;
    std::vector<detail::integer_source> reads;
    for (const bound* b : {&start, &end, &step}) {
        detail::add_extent(a, reads, b->source(), 0);
        a.numbers.push_back(b->value());
    }
    a.i0 = start.integral() && end.integral() && step.integral() ? 1 : 0;
    return creation_node<op::arange, T>(std::move(a), std::move(reads));
}
/// torch.arange(end): 0, 1, …, end − 1.
template <class T = float>
creation_node<op::arange, T> arange(const bound& end) {
    return arange<T>(0, end, 1);
}

}  // namespace realify::graph
