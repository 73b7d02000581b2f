// The nodes of the type-level expression graph.
//
// A node's TYPE carries its op tag and its children's types
// (node<op::mul, input_node<...>, node<op::reshape, ...>>), so dtype, "is it
// complex", rank and (when every input is fixed-shape) the static shape are
// known at compile time. Run-time attributes — dims, shapes, scalars — are
// the node object's (node_attrs, shared by its copies). Every node gets an
// identity when it is built; copies keep it, so two outputs that share a
// subexpression share the node (RoPE's xq_out and xk_out both reading
// freqs_cis are one merged subgraph).
//
// "Is complex" is decided here by the type only: input<float> is real whatever
// its run-time shape, so a real parameter with a trailing extent 2 is never
// mistaken for a complex tensor (a shape heuristic would).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include "realify/layout/scalar_traits.hpp"
#include "realify/layout/shape_traits.hpp"
#include "realify/ops/shape_inference.hpp"
#include "realify/ops/tags.hpp"

namespace realify::graph {

using dim_list = std::vector<std::ptrdiff_t>;
/// A run-time shape (extents), as values and the IR carry it.
using shape_vector = realify::detail::dim_vector;
/// Run-time strides, in components (a value's, a buffer's).
using stride_vector = xt::svector<std::ptrdiff_t, 6>;

/// In a reshape/view shape: "the input's extent at dim k" (PyTorch's
/// `x.reshape(*x.shape[:-1], -1, 2)` is `reshape(x, {same(0), same(1), same(2), -1, 2})`
/// for a rank-4 x). Shapes are run-time; graphs are built before them.
constexpr std::ptrdiff_t same(std::size_t k) {
    return std::numeric_limits<std::ptrdiff_t>::min() + static_cast<std::ptrdiff_t>(k);
}
constexpr bool is_same_marker(std::ptrdiff_t d) { return d < std::numeric_limits<std::ptrdiff_t>::min() / 2; }
constexpr std::size_t same_marker_dim(std::ptrdiff_t d) {
    return static_cast<std::size_t>(d - std::numeric_limits<std::ptrdiff_t>::min());
}

/// Run-time attributes of a node; which fields an op reads is fixed per op.
struct node_attrs {
    dim_list dims;                  // permute dims, reshape shape, repeat counts …
    std::ptrdiff_t i0 = 0, i1 = 0, i2 = 0, i3 = 1;  // dim / start / end / step …
    std::complex<double> scalar{0.0, 0.0};          // mul_scalar, pow_scalar, full_like …
    bool has_scalar = false;
    std::string text;                               // einsum's equation
    std::vector<double> numbers;                    // arange's start, end, step
};

namespace detail {
/// A new node's id, unique in the program (src/graph/node.cpp).
std::uint64_t next_node_id() noexcept;
template <class T>
struct is_std_complex : std::false_type {};
template <class T>
struct is_std_complex<std::complex<T>> : std::true_type {};

template <class T>
struct component_of {
    using type = T;
};
template <class T>
struct component_of<std::complex<T>> {
    using type = T;
};
}  // namespace detail

struct graph_ir;  // graph/ir.hpp
struct node_base;

namespace detail {
/// Adds the record of a node of type N, its children's first, to the run-time
/// mirror of a graph (graph/build_ir.hpp); returns its slot.
template <class N>
std::size_t add_node(graph_ir& g, const node_base& n);
}  // namespace detail

/// The base of every graph node: its identity, and how its record is added
/// when the graph is lowered. Each node type's constructor sets `add_record`
/// to its own detail::add_node, and a node adds its children through their
/// pointers, so add_node<N> never names a child's type: lowering a graph
/// instantiates no chain of templates as deep as the graph, and a chain of a
/// thousand ops compiles within the compiler's template depth.
struct node_base {
    std::uint64_t id = detail::next_node_id();
    std::size_t (*add_record)(graph_ir&, const node_base&) = nullptr;
};

template <class T>
concept graph_node = std::is_base_of_v<node_base, std::remove_cvref_t<T>>;

/// Static facts of a node's value. rank is realify::dynamic_rank when only
/// known at run time; fixed_shape is an xt::fixed_shape<…> or void.
template <class Scalar, bool Complex, std::size_t Rank, class FixedShape = void>
struct value_traits {
    using real_type = Scalar;  // component type (float, double) or bool / integer for masks
    static constexpr bool is_complex = Complex;
    static constexpr std::size_t rank = Rank;
    using fixed_shape = FixedShape;
};

namespace detail {
/// What the copies of a node share: its children and its attributes, each in
/// a heap block with one reference count. A node is then its identity and two
/// pointers whatever the graph under it, so each builder call moves pointers
/// and a node used twice (a DAG) is held once; children held by value made
/// each builder call's code and each node's size grow with the graph under
/// it. Not a std::shared_ptr: its control block is a type, with its code,
/// per node type; this count is compiled once and a block is freed through
/// one function pointer.
struct shared_block {
    // counted atomically by retain and release (src/graph/node.cpp), so that
    // the graph's headers, which every graph unit parses, need not <atomic>
    mutable std::size_t references = 1;
    void (*destroy)(const shared_block*) noexcept = nullptr;
};
/// One reference more to b.
void retain(const shared_block* b) noexcept;
/// One reference less to b; the last destroys it.
void release(const shared_block* b) noexcept;

/// Never null: a move copies (one count more), so a moved-from node still
/// reads its children.
class block_ptr {
public:
    explicit block_ptr(const shared_block* b) noexcept : m_block(b) {}
    block_ptr(const block_ptr& o) noexcept : m_block(o.m_block) { retain(m_block); }
    block_ptr& operator=(block_ptr o) noexcept {
        std::swap(m_block, o.m_block);
        return *this;
    }
    ~block_ptr() { release(m_block); }
    const shared_block* get() const noexcept { return m_block; }

private:
    const shared_block* m_block;
};

/// A node's attributes, shared by its copies like its children: a node
/// moves or copies one pointer, not a vector and a string, and the code that
/// allocates and frees them is compiled once (src/graph/node.cpp), not in
/// every builder call.
class shared_attrs {
public:
    /// No attributes: one block shared by every node without any.
    shared_attrs();
    shared_attrs(node_attrs&& a);  // NOLINT: implicit, as the builders pass attributes they filled
    const node_attrs& get() const noexcept;

private:
    block_ptr m_block;
};

/// An input's name, shared by the node's copies like its attributes.
class shared_text {
public:
    explicit shared_text(std::string text);
    const std::string& get() const noexcept;

private:
    block_ptr m_block;
};

/// The attributes of a node that has none (a user op's node).
const node_attrs& no_attrs() noexcept;

/// Attributes of dims (a shape, a permutation, repeat counts …), of
/// integers (dim, start, end, step …) or of a number.
shared_attrs with_dims(dim_list d);
/// roll's attributes: the shifts then the dims in dims, i0 = how many dims.
shared_attrs roll_attrs(dim_list shifts, const dim_list& dims);
shared_attrs with_ints(std::ptrdiff_t i0, std::ptrdiff_t i1 = 0, std::ptrdiff_t i2 = 0, std::ptrdiff_t i3 = 1);
shared_attrs with_scalar(std::complex<double> s);

/// Values side by side, the I-th read by leaf_value<I>: what a std::tuple
/// stores, without its constructors. Their overload sets, checked for every
/// node type's children, cost a graph unit more to compile than the rest of
/// the node type.
template <std::size_t I, class X>
struct list_leaf {
    X value;
};
template <class Indices, class... X>
struct value_list;
template <std::size_t... I, class... X>
struct value_list<std::index_sequence<I...>, X...> : list_leaf<I, X>... {
    explicit value_list(const X&... x) : list_leaf<I, X>{x}... {}
};
template <std::size_t I, class X>
const X& leaf_value(const list_leaf<I, X>& leaf) noexcept {
    return leaf.value;
}

/// Values shared by the copies of what holds them, read only: a node's
/// children (a node never changes), a program's output nodes.
template <class... X>
struct values_block : shared_block {
    value_list<std::index_sequence_for<X...>, X...> values;
    explicit values_block(const X&... x) : values(x...) { destroy = &destroy_block; }
    static void destroy_block(const shared_block* b) noexcept { delete static_cast<const values_block*>(b); }
};
template <class... X>
class shared_values {
public:
    explicit shared_values(const X&... x) : m_block(new values_block<X...>(x...)) {}
    /// The I-th value.
    template <std::size_t I>
    const auto& get() const noexcept {
        return leaf_value<I>(static_cast<const values_block<X...>*>(m_block.get())->values);
    }
    /// All of them, as references.
    std::tuple<const X&...> refs() const noexcept {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return std::tuple<const X&...>(get<I>()...);
        }(std::index_sequence_for<X...>{});
    }

private:
    block_ptr m_block;
};

/// What detection finds below a node type (graph/detect.hpp).
template <class N>
struct graph_facts;

/// A node's children, shared by the node's copies (a node never changes).
template <class... Children>
class node_children {
    // The children's graph facts, instantiated with the node's type where the
    // node is built: each node type's facts are computed from facts already
    // there, and no chain of instantiations follows the graph's depth.
    static_assert((graph_facts<Children>::ready && ...));

public:
    using children_type = std::tuple<Children...>;
    /// The children, as references.
    std::tuple<const Children&...> children() const noexcept { return m_children.refs(); }
    /// The I-th child.
    template <std::size_t I>
    const auto& child() const noexcept {
        return m_children.template get<I>();
    }

protected:
    explicit node_children(const Children&... c) : m_children(c...) {}

private:
    shared_values<Children...> m_children;
};
}  // namespace detail

// ---- leaves ------------------------------------------------------------------------

/// Placeholder for a run-time tensor. T is an element type (float,
/// std::complex<double>: any rank, known at run time) or a container type
/// (xt::xtensor<std::complex<float>, 3>, xt::xtensor_fixed<…>: rank / shape static).
template <class T>
struct input_node : node_base {
    explicit input_node(std::string n) : m_name(std::move(n)) { add_record = &detail::add_node<input_node>; }
    const std::string& name() const noexcept { return m_name.get(); }

private:
    detail::shared_text m_name;  // shared by the node's copies: a copy moves a pointer, not a string
};

namespace detail {
template <class T, class = void>
struct element_traits {
    using element = T;
    static constexpr std::size_t rank = dynamic_rank;
    using fixed = void;
};
template <class T>
struct element_traits<T, std::void_t<typename T::value_type, typename T::shape_type>> {
    using element = typename T::value_type;
    static constexpr std::size_t rank = static_rank_v<T>;
    using fixed = std::conditional_t<has_fixed_shape_v<T>, typename T::shape_type, void>;
};
template <class T>
using leaf_traits = value_traits<typename component_of<typename element_traits<T>::element>::type,
                                 is_std_complex<typename element_traits<T>::element>::value,
                                 element_traits<T>::rank, typename element_traits<T>::fixed>;
}  // namespace detail

/// A constant tensor (an FX get_attr buffer). Complex constants are
/// unpacked to the (…,2) layout once, when the graph is lowered.
template <class C>
struct constant_node : node_base {
    std::shared_ptr<const C> value;
    explicit constant_node(C v) : value(std::make_shared<const C>(std::move(v))) { add_record = &detail::add_node<constant_node>; }
};

/// A number operand (x * 2.0, x + std::complex<double>(0, 1)).
template <class S>
struct scalar_node : node_base {
    S value;
    explicit scalar_node(S v) : value(v) { add_record = &detail::add_node<scalar_node>; }
};

/// An op node: tag, children, run-time attributes.
template <class Tag, class... Children>
struct node : node_base, detail::node_children<Children...> {
    using tag = Tag;
    explicit node(detail::shared_attrs a, const Children&... c)
        : detail::node_children<Children...>(c...), m_attrs(std::move(a)) {
        add_record = &detail::add_node<node>;
    }
    const node_attrs& attrs() const noexcept { return m_attrs.get(); }

private:
    detail::shared_attrs m_attrs;
};

/// A user op with no entry in the table (or one the table may not accept):
/// `reference` is its std::complex (or real) per-element definition, used for
/// the fallback when no lowering accepts it.
template <class Tag, class Reference, class... Children>
struct custom_node : node_base, detail::node_children<Children...> {
    using tag = Tag;
    Reference reference;
    explicit custom_node(Reference r, const Children&... c)
        : detail::node_children<Children...>(c...), reference(std::move(r)) {
        add_record = &detail::add_node<custom_node>;
    }
    const node_attrs& attrs() const noexcept { return detail::no_attrs(); }
};

/// A node's name as a template argument (graph::tensor_op<"rms_norm">): it
/// is part of the node's type, so compile errors about the node show it.
template <std::size_t N>
struct node_name {
    char text[N]{};
    constexpr node_name(const char (&s)[N]) {  // NOLINT: implicit from a string literal
        for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
    }
    constexpr std::string_view view() const { return {text, N - 1}; }
};

/// A tensor-level user op (graph::tensor_op, graph/tensor_op.hpp): `fn` runs on
/// its operands' whole tensors and returns a tensor of element type Result,
/// of the shape it chooses. Opaque to the passes: a graph break.
template <node_name Name, class Result, class Fn, class... Children>
struct tensor_op_node : node_base, detail::node_children<Children...> {
    static constexpr std::string_view user_name = Name.view();  // not `name`: inputs have name()
    using result_element = Result;
    Fn fn;
    explicit tensor_op_node(Fn f, const Children&... c) : detail::node_children<Children...>(c...), fn(std::move(f)) {
        add_record = &detail::add_node<tensor_op_node>;
    }
};

/// A tensor_op result's shape, declared so that the graph hands fn the
/// result's buffer: the shape of operand `operand` (graph::like{1}: the
/// second operand's).
struct like {
    std::size_t operand = 0;
};

/// The function of a tensor_op that writes a buffer the graph hands it: fn
/// and the declared shape of its result (graph::like, or a function of the
/// operands' shapes).
template <class Shape, class Fn>
struct into_buffer {
    Shape shape;
    Fn fn;
};
template <class F>
inline constexpr bool is_into_buffer_v = false;
template <class S, class F>
inline constexpr bool is_into_buffer_v<into_buffer<S, F>> = true;

/// Conversion of the component type (PyTorch's `.float()` and `type_as`).
template <class To, class Child>
struct cast_node : node_base, detail::node_children<Child> {
    explicit cast_node(const Child& c) : detail::node_children<Child>(c) { add_record = &detail::add_node<cast_node>; }
};

}  // namespace realify::graph
