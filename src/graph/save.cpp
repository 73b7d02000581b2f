// The saved format of a graph program and its loader (graph/save.hpp; the
// format is described in docs/graph.md, "Saving and loading").
#include "realify/graph/save.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "realify/graph/passes.hpp"
#include "realify/graph/value.hpp"

namespace realify::graph {

namespace detail {

struct loaded_state {
    graph_ir g;
    std::vector<std::shared_ptr<const void>> keep;  // the constants' nodes and the user ops' the records point at
};

const graph_ir& loaded_ir(const loaded_state& s) noexcept { return s.g; }

namespace {

constexpr char magic[8] = {'R', 'E', 'A', 'L', 'I', 'F', 'Y', 'G'};
constexpr std::uint32_t format_version = 1;
// record flags
constexpr std::uint8_t user_flag = 1, boundary_flag = 2;

// ---- the registry ----------------------------------------------------------------------

using registry = std::unordered_map<std::string, node_facts>;

const registry& core_registry() {
    static const registry r = [] {
        evaluator_part part;
        add_leaf_evaluators(part);
        add_view_evaluators(part);
        add_elementwise_evaluators(part);
        add_table_evaluators(part);
        add_kernel_evaluators(part);
        add_compare_evaluators(part);
        registry map;
        for (evaluator_entry& e : part) map.emplace(std::move(e.key), e.facts);
        return map;
    }();
    return r;
}

const registry& product_registry(products_fn products) {
    static const registry r = [&] {
        registry map;
        if (products)
            for (const evaluator_entry& e : products()) map.emplace(e.key, e.facts);
        return map;
    }();
    return r;
}

const node_facts* find_facts(const std::string& key, products_fn products) {
    if (auto it = core_registry().find(key); it != core_registry().end()) return &it->second;
    if (auto it = product_registry(products).find(key); it != product_registry(products).end()) return &it->second;
    return nullptr;
}

bool is_listed_op(std::string_view name) {
    return std::any_of(op::op_table.begin(), op::op_table.end(), [&](const op_info& o) { return o.name == name; });
}

bool is_creation(std::string_view op) {
    return op == "full" || op == "zeros" || op == "ones" || op == "empty" || op == "arange";
}

/// A record's kind in keys: a number's "n:<type>", a tensor's kind.
std::string kind_of_record(const ir_node& r) {
    if (r.is_scalar) return "n:" + std::string(r.number_type);
    return tensor_kind(r.value, r.is_complex);
}



// ---- writing ---------------------------------------------------------------------------

class writer {
public:
    void u8(std::uint8_t v) { m_bytes.push_back(static_cast<char>(v)); }
    void u32(std::uint32_t v) {
        for (int k = 0; k < 4; ++k) u8(static_cast<std::uint8_t>(v >> (8 * k)));
    }
    void u64(std::uint64_t v) {
        for (int k = 0; k < 8; ++k) u8(static_cast<std::uint8_t>(v >> (8 * k)));
    }
    void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
    void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
    void str(std::string_view s) {
        u32(static_cast<std::uint32_t>(s.size()));
        m_bytes.append(s);
    }
    void bytes(const char* p, std::size_t n) { m_bytes.append(p, n); }
    const std::string& data() const noexcept { return m_bytes; }

private:
    std::string m_bytes;
};

void write_attrs(writer& w, const node_attrs& a) {
    w.u32(static_cast<std::uint32_t>(a.dims.size()));
    for (std::ptrdiff_t d : a.dims) w.i64(d);
    w.i64(a.i0);
    w.i64(a.i1);
    w.i64(a.i2);
    w.i64(a.i3);
    w.f64(a.scalar.real());
    w.f64(a.scalar.imag());
    w.u8(a.has_scalar ? 1 : 0);
    w.str(a.text);
    w.u32(static_cast<std::uint32_t>(a.numbers.size()));
    for (double x : a.numbers) w.f64(x);
}

/// A constant's components, row-major, little-endian.
void write_constant(writer& w, const graph_ir& g, const ir_node& r) {
    std::vector<graph_value> memo(g.nodes.size());
    eval_context ctx{&g, &memo, nullptr, nullptr};
    const graph_value value = r.evaluator(r, ctx, nullptr);
    const buffer_layout l = layout_of(value);
    // the logical shape: the component shape without the trailing 2 of a complex value
    const std::size_t rank = l.shape.size() - (r.is_complex ? 1 : 0);
    w.u32(static_cast<std::uint32_t>(rank));
    for (std::size_t a = 0; a < rank; ++a) w.u64(l.shape[a]);
    const std::size_t n = l.count();
    std::vector<std::size_t> index(l.shape.size(), 0);
    for (std::size_t k = 0; k < n; ++k) {
        std::ptrdiff_t offset = 0;
        for (std::size_t a = 0; a < index.size(); ++a) offset += static_cast<std::ptrdiff_t>(index[a]) * l.strides[a];
        const char* p = static_cast<const char*>(l.data) + offset * static_cast<std::ptrdiff_t>(l.component_bytes);
        if (l.component_bytes == 1) {
            w.u8(static_cast<std::uint8_t>(*p));
        } else if (l.component_bytes == 4) {
            std::uint32_t bits;
            std::memcpy(&bits, p, 4);
            w.u32(bits);
        } else {
            std::uint64_t bits;
            std::memcpy(&bits, p, 8);
            w.u64(bits);
        }
        for (std::size_t a = index.size(); a-- > 0;) {
            if (++index[a] < l.shape[a]) break;
            index[a] = 0;
        }
    }
}

[[noreturn]] void refuse_save(const ir_node& r, std::size_t slot, const std::string& why) {
    throw error("realify::graph::save: record %" + std::to_string(slot) + " (" + r.op + "): " + why);
}

/// Whether `op` names one of realify's own graph::custom ops (comparisons,
/// logical ops, graph::to): those the registry holds entries of.
bool is_builtin_custom(const std::string& op) {
    static const std::unordered_set<std::string> names = [] {
        std::unordered_set<std::string> n;
        evaluator_part part;
        add_compare_evaluators(part);
        for (const evaluator_entry& e : part) n.insert(std::string(e.facts.op));
        return n;
    }();
    return names.contains(op);
}

/// A user op (graph::tensor_op, graph::custom) when the registry has not the
/// node: saved by name, bound again by name (graph::user_ops). realify's own
/// custom ops are not: on operands the registry lacks they cannot be saved.
bool may_be_user_op(const ir_node& r) {
    return r.rule == node_rule::tensor_op || r.rule == node_rule::fallback || (r.custom && !is_builtin_custom(r.op));
}

/// A record's own kind: an input's ("int": an integer argument,
/// graph::int_input), a constant's or an op's tensor kind, a number's C++ type.
std::string leaf_of(const ir_node& r) {
    if (r.is_input && r.integer_argument) return "int";
    if (r.is_scalar) return std::string(r.number_type);
    return tensor_kind(r.value, r.is_complex);
}

/// The registry key of a record that is not a user op.
std::string key_of(const ir_node& r, const std::string& leaf, std::span<const std::string> kinds) {
    if (r.is_input || r.is_constant) return r.op + ":" + leaf;
    if (r.is_scalar) return "number:" + leaf;
    if (r.rule == node_rule::kernel && is_creation(r.op)) return r.op + "<" + leaf + ">";
    return op_key(r.op, kinds, leaf);
}

/// Whether the registry's node type is evaluated as the record is: the same
/// rule and shape rule, and — where the function depends on more than the op
/// and its operands' kinds (a user lowering of a table op, a user op of the
/// same name) — the same evaluator.
bool evaluated_alike(const node_facts& f, const ir_node& r) {
    if (f.rule != r.rule || f.shape != r.shape || f.custom != r.custom || f.is_complex != r.is_complex || f.value != r.value)
        return false;
    // a reduction fuse_elementwise gave its operand's loop runs the pass's
    // evaluator (it decides again on load); its own is the table's
    return (r.rule != node_rule::table && r.rule != node_rule::fallback && r.rule != node_rule::tensor_op) ||
           r.fusion == fusion_mode::reduced || f.evaluator == r.evaluator;
}

}  // namespace

void save_graph(const graph_ir& g, std::ostream& out, products_fn products) {
    writer w;
    w.bytes(magic, sizeof magic);
    w.u32(format_version);
    w.u64(g.nodes.size());
    for (std::size_t s = 0; s < g.nodes.size(); ++s) {
        const ir_node& r = g.nodes[s];
        std::vector<std::string> kinds;
        for (std::size_t c : r.children) kinds.push_back(kind_of_record(g.nodes[c]));
        const std::string& op = r.op;
        const std::string leaf = leaf_of(r);
        if (r.is_scalar && leaf.empty()) refuse_save(r, s, "a number of a C++ type the format does not know");
        const std::string key = key_of(r, leaf, kinds);
        // the registry's evaluators are compiled per op and operand kinds (the
        // kernel ops' and constants' per node type, equivalent per kinds)
        const node_facts* f = find_facts(key, products);
        const bool user = !(f && evaluated_alike(*f, r)) && may_be_user_op(r);
        if (!user && !f)
            refuse_save(r, s, "no compiled evaluator is registered for " + key +
                                  (products ? "" : " (the matrix products' are realify::realify's)") +
                                  ": this op on operands of these kinds cannot be saved");
        if (!user && !evaluated_alike(*f, r))
            refuse_save(r, s, "it is evaluated otherwise than the compiled evaluator of " + key +
                                  " (a user lowering of the op): it cannot be loaded as it runs");
        w.str(op);
        w.u8(static_cast<std::uint8_t>((user ? user_flag : 0) | (r.boundary_input ? boundary_flag : 0)));
        w.str(leaf);
        w.u64(r.id);
        w.u32(static_cast<std::uint32_t>(r.children.size()));
        for (std::size_t c : r.children) w.u64(c);
        write_attrs(w, r.attrs);
        if (r.is_input) {
            w.str(input_name(g, r.input_position));
        } else if (r.is_scalar) {
            w.f64(r.number.real());
            w.f64(r.number.imag());
            w.str(r.label);
        } else if (r.is_constant) {
            write_constant(w, g, r);
        }
    }
    w.u32(static_cast<std::uint32_t>(g.outputs.size()));
    for (std::size_t o : g.outputs) w.u64(o);
    w.u32(static_cast<std::uint32_t>(g.pass_log.size()));
    for (const std::string& p : g.pass_log) w.str(p);
    out.write(w.data().data(), static_cast<std::streamsize>(w.data().size()));
    if (!out) throw error("realify::graph::save: writing the program failed");
}

void save_graph_file(const graph_ir& g, const std::string& file, products_fn products) {
    std::ofstream out(file, std::ios::binary);
    if (!out) throw error("realify::graph::save: cannot open '" + file + "' for writing");
    save_graph(g, out, products);
}

// ---- reading ---------------------------------------------------------------------------

namespace {

[[noreturn]] void refuse(const std::string& why) { throw error("realify::graph::load: " + why); }

/// Bytes read in order; every read checked against what is left.
class reader {
public:
    explicit reader(std::string_view bytes) : m_bytes(bytes) {}
    std::size_t left() const noexcept { return m_bytes.size() - m_at; }
    void need(std::size_t n, std::string_view what) const {
        if (n > left())
            refuse("the file is truncated: " + std::string(what) + " needs " + std::to_string(n) + " bytes, " +
                   std::to_string(left()) + " are left");
    }
    std::uint8_t u8(std::string_view what) {
        need(1, what);
        return static_cast<std::uint8_t>(m_bytes[m_at++]);
    }
    std::uint32_t u32(std::string_view what) {
        need(4, what);
        std::uint32_t v = 0;
        for (int k = 0; k < 4; ++k) v |= std::uint32_t(static_cast<std::uint8_t>(m_bytes[m_at++])) << (8 * k);
        return v;
    }
    std::uint64_t u64(std::string_view what) {
        need(8, what);
        std::uint64_t v = 0;
        for (int k = 0; k < 8; ++k) v |= std::uint64_t(static_cast<std::uint8_t>(m_bytes[m_at++])) << (8 * k);
        return v;
    }
    std::int64_t i64(std::string_view what) { return static_cast<std::int64_t>(u64(what)); }
    double f64(std::string_view what) { return std::bit_cast<double>(u64(what)); }
    /// A count of items of at least `bytes_each` bytes: never more than the bytes left can hold.
    std::size_t count(std::uint64_t n, std::size_t bytes_each, std::string_view what) const {
        if (n > left() / bytes_each)
            refuse("the count of " + std::string(what) + " (" + std::to_string(n) + ") exceeds what the " +
                   std::to_string(left()) + " bytes left can hold: the file is corrupted or truncated");
        return static_cast<std::size_t>(n);
    }
    std::string str(std::string_view what) {
        const std::size_t n = count(u32(what), 1, what);
        std::string s(m_bytes.substr(m_at, n));
        m_at += n;
        return s;
    }
    std::string_view take(std::size_t n, std::string_view what) {
        need(n, what);
        const std::string_view s = m_bytes.substr(m_at, n);
        m_at += n;
        return s;
    }

private:
    std::string_view m_bytes;
    std::size_t m_at = 0;
};

node_attrs read_attrs(reader& in) {
    node_attrs a;
    const std::size_t dims = in.count(in.u32("the attributes' dims"), 8, "dims");
    for (std::size_t k = 0; k < dims; ++k) a.dims.push_back(static_cast<std::ptrdiff_t>(in.i64("a dim")));
    a.i0 = static_cast<std::ptrdiff_t>(in.i64("an integer attribute"));
    a.i1 = static_cast<std::ptrdiff_t>(in.i64("an integer attribute"));
    a.i2 = static_cast<std::ptrdiff_t>(in.i64("an integer attribute"));
    a.i3 = static_cast<std::ptrdiff_t>(in.i64("an integer attribute"));
    const double re = in.f64("the scalar attribute");
    a.scalar = {re, in.f64("the scalar attribute")};
    const std::uint8_t has = in.u8("the scalar attribute's flag");
    if (has > 1) refuse("the scalar attribute's flag is " + std::to_string(has) + ", not 0 or 1");
    a.has_scalar = has != 0;
    a.text = in.str("the text attribute");
    const std::size_t numbers = in.count(in.u32("the numbers attribute"), 8, "numbers");
    for (std::size_t k = 0; k < numbers; ++k) a.numbers.push_back(in.f64("a number attribute"));
    return a;
}

template <class E>
std::shared_ptr<const void> read_constant_of(reader& in, const shape_vector& shape, std::size_t count) {
    using T = typename component_of<E>::type;
    constexpr std::size_t width = is_std_complex<E>::value ? 2 : 1;
    xt::xarray<E> data = xt::xarray<E>::from_shape(shape);
    const std::string_view bytes = in.take(count * width * sizeof(T), "the constant's data");
    T* out = reinterpret_cast<T*>(data.data());
    for (std::size_t k = 0; k < count * width; ++k) {
        const char* p = bytes.data() + k * sizeof(T);
        if constexpr (sizeof(T) == 4) {
            std::uint32_t bits = 0;
            for (int b = 0; b < 4; ++b) bits |= std::uint32_t(static_cast<std::uint8_t>(p[b])) << (8 * b);
            out[k] = std::bit_cast<T>(bits);
        } else if constexpr (sizeof(T) == 8) {
            std::uint64_t bits = 0;
            for (int b = 0; b < 8; ++b) bits |= std::uint64_t(static_cast<std::uint8_t>(p[b])) << (8 * b);
            out[k] = std::bit_cast<T>(bits);
        } else {  // bool: one byte, 0 or 1
            if (static_cast<unsigned char>(p[0]) > 1) refuse("a bool constant holds a byte other than 0 or 1");
            out[k] = p[0] != 0;
        }
    }
    return std::make_shared<const constant_node<xt::xarray<E>>>(std::move(data));
}

/// A constant's node of kind `kind`, its data read (its byte count bounded by what is left).
std::shared_ptr<const void> read_constant(reader& in, const std::string& kind) {
    const std::size_t rank = in.count(in.u32("the constant's rank"), 8, "the constant's extents");
    shape_vector shape;
    std::size_t count = 1;
    for (std::size_t a = 0; a < rank; ++a) {
        const std::uint64_t e = in.u64("an extent");
        if (e != 0 && count > std::numeric_limits<std::size_t>::max() / e)
            refuse("the constant's shape overflows: the file is corrupted");
        count *= static_cast<std::size_t>(e);
        shape.push_back(static_cast<std::size_t>(e));
    }
    const std::size_t bytes_each = kind == "b8" ? 1 : kind == "f32" || kind == "i32" ? 4 : kind == "c128" ? 16 : 8;
    in.count(count, bytes_each, "the constant's elements");
    if (kind == "f32") return read_constant_of<float>(in, shape, count);
    if (kind == "f64") return read_constant_of<double>(in, shape, count);
    if (kind == "c64") return read_constant_of<std::complex<float>>(in, shape, count);
    if (kind == "c128") return read_constant_of<std::complex<double>>(in, shape, count);
    if (kind == "b8") return read_constant_of<bool>(in, shape, count);
    if (kind == "i32") return read_constant_of<std::int32_t>(in, shape, count);
    if (kind == "i64") return read_constant_of<std::int64_t>(in, shape, count);
    refuse("a constant of kind '" + kind + "', which the format does not know");
}

/// The standard pass of that name.
pass standard_pass(const std::string& name) {
    static const std::vector<pass> standard = [] {
        return std::vector<pass>{{"detect_complex_subgraphs", passes::detect_complex_subgraphs},
                                 {"replace_complex_inputs", passes::replace_complex_inputs},
                                 {"eliminate_common_subexpressions", passes::eliminate_common_subexpressions},
                                 {"fold_constants", passes::fold_constants},
                                 {"remove_dead_nodes", passes::remove_dead_nodes},
                                 {"fuse_elementwise", passes::fuse_elementwise}};
    }();
    for (const pass& p : standard)
        if (p.name == name) return p;
    refuse("the program was lowered with the pass '" + name +
           "', which is not one of the standard passes: a user pass is not saved, so the program cannot be loaded");
}

/// What a record's attributes must satisfy for its evaluator (what the builders guarantee).
void check_attrs(std::size_t slot, const std::string& op, const node_attrs& a, std::size_t children) {
    const auto bad = [&](const std::string& why) { refuse("record %" + std::to_string(slot) + " (" + op + "): " + why); };
    if (op == "roll" && (a.i0 < 0 || static_cast<std::size_t>(a.i0) > a.dims.size()))
        bad("its count of dims " + std::to_string(a.i0) + " exceeds its " + std::to_string(a.dims.size()) + " attributes");
    if (is_creation(op)) {
        if (op == "arange" && a.numbers.size() != 3) bad("arange needs 3 numbers (start, end, step)");
        // the extents given as numbers: their count of elements must not wrap
        // (a builder's, when it is built in C++, is refused as it runs)
        std::size_t elements = 1;
        for (std::ptrdiff_t d : a.dims) {
            if (is_same_marker(d) && same_marker_dim(d) >= children)
                bad("an extent reads integer operand #" + std::to_string(same_marker_dim(d)) + " of " +
                    std::to_string(children));
            if (!is_same_marker(d) && d > 0) {
                if (static_cast<std::size_t>(d) > (std::size_t(1) << 32) / elements)
                    bad("its extents hold more than 2^32 elements: the file is corrupted");
                elements *= static_cast<std::size_t>(d);
            }
        }
    }
}

}  // namespace

std::shared_ptr<const loaded_state> load_graph(std::istream& stream, const user_ops& users, products_fn products) {
    const std::string bytes((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
    reader in(bytes);
    if (in.left() < sizeof magic || std::memcmp(bytes.data(), magic, sizeof magic) != 0)
        refuse("not a saved realify graph program (the magic string REALIFYG is missing)");
    in.take(sizeof magic, "the magic string");
    const std::uint32_t version = in.u32("the format version");
    if (version != format_version)
        refuse("the file is of format version " + std::to_string(version) + "; this build of realify reads version " +
               std::to_string(format_version) + (version > format_version ? " (the file is newer)" : " (the file is older)"));

    auto state = std::make_shared<loaded_state>();
    graph_ir& g = state->g;
    // a record takes at least 82 bytes (its strings empty, no children, no dims)
    const std::size_t n = in.count(in.u64("the record count"), 82, "records");
    std::vector<std::string> kinds(n);
    std::unordered_set<std::uint64_t> ids;
    for (std::size_t s = 0; s < n; ++s) {
        const std::string where = "record %" + std::to_string(s);
        const std::string op = in.str("an op name");
        const std::uint8_t flags = in.u8("the record's flags");
        if ((flags & ~(user_flag | boundary_flag)) != 0) refuse(where + " (" + op + "): unknown flags " + std::to_string(flags));
        const std::string leaf = in.str("the record's kind");
        const std::uint64_t id = in.u64("the record's id");
        if (!ids.insert(id).second) refuse(where + " (" + op + "): id " + std::to_string(id) + " is another record's too");
        const std::size_t arity = in.count(in.u32("the child count"), 8, "children");
        std::vector<std::size_t> children;
        std::vector<std::string> child_kinds;
        for (std::size_t k = 0; k < arity; ++k) {
            const std::uint64_t c = in.u64("a child");
            if (c >= s)
                refuse(where + " (" + op + "): child " + std::to_string(k) + " is record %" + std::to_string(c) +
                       ", not an earlier record (a cycle, a forward reference or an id out of range)");
            children.push_back(static_cast<std::size_t>(c));
            child_kinds.push_back(kinds[c]);
        }
        const node_attrs attrs = read_attrs(in);
        check_attrs(s, op, attrs, arity);

        node_facts facts;
        node_object x;
        x.id = id;
        x.attrs = &attrs;
        std::string name, label;
        const auto find = [&](const std::string& key) {
            const node_facts* f = find_facts(key, products);
            if (!f) {
                if (op != "input" && op != "constant" && op != "number" && !op.starts_with("to_") && !is_listed_op(op))
                    refuse(where + ": unknown op '" + op + "'");
                refuse(where + ": no compiled evaluator for " + key + " (its kinds or its arity do not match the op's)");
            }
            facts = *f;
        };
        if ((flags & user_flag) != 0) {
            const auto it = std::find_if(users.entries().begin(), users.entries().end(),
                                         [&](const user_ops::entry& e) { return e.name == op; });
            if (it == users.entries().end())
                refuse(where + " is the user op '" + op + "': bind it by name, graph::load(in, graph::user_ops{}.add(\"" +
                       op + "\", node))");
            const std::string bound = op_key(op, it->kinds, tensor_kind(it->facts.value, it->facts.is_complex));
            if (bound != op_key(op, child_kinds, leaf))
                refuse(where + ": the user op '" + op + "' bound is " + bound + ", the saved one " +
                       op_key(op, child_kinds, leaf));
            facts = it->facts;
            x.object = it->object.get();
        } else if (op == "input" || op == "constant") {
            find(op + ":" + leaf);
        } else if (op == "number") {
            find("number:" + leaf);
        } else if (is_creation(op)) {
            find(op + "<" + leaf + ">");
            for (const std::string& k : child_kinds)
                if (k != "i64") refuse(where + " (" + op + "): its operands must be integers (graph::size, graph::int_input)");
        } else {
            find(op_key(op, child_kinds, leaf));
        }
        if (facts.rule == node_rule::input) {
            name = in.str("an input's name");
            x.name = &name;
        } else if (facts.rule == node_rule::number) {
            const double re = in.f64("a number");
            x.number = {re, in.f64("a number")};
            label = in.str("a number's label");
            x.label = label;
        } else if (facts.rule == node_rule::constant) {
            state->keep.push_back(read_constant(in, leaf));
            x.object = state->keep.back().get();
        }
        if ((facts.rule == node_rule::input || facts.rule == node_rule::constant || facts.rule == node_rule::number) && arity != 0)
            refuse(where + " (" + op + "): a leaf with " + std::to_string(arity) + " children");
        const std::vector<char> boundary(children.size(), 0);
        add_record(g, facts, x, children, std::span<const bool>(reinterpret_cast<const bool*>(boundary.data()), boundary.size()));
        g.nodes.back().boundary_input = (flags & boundary_flag) != 0;
        kinds[s] = kind_of_record(g.nodes.back());
        if (!g.nodes.back().is_scalar && kinds[s] != leaf && !(leaf == "int" && g.nodes.back().integer_argument))
            refuse(where + " (" + op + "): saved of kind " + leaf + ", its evaluator's is " + kinds[s]);
    }
    for (const user_ops::entry& e : users.entries()) state->keep.push_back(e.object);
    const std::size_t outputs = in.count(in.u32("the output count"), 8, "outputs");
    if (outputs == 0) refuse("the program has no output");
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < outputs; ++k) {
        const std::uint64_t o = in.u64("an output");
        if (o >= n) refuse("output " + std::to_string(k) + " is record %" + std::to_string(o) + ", past the " + std::to_string(n) + " records");
        out.push_back(static_cast<std::size_t>(o));
    }
    pipeline passes;
    const std::size_t pass_count = in.count(in.u32("the pass count"), 4, "passes");
    for (std::size_t k = 0; k < pass_count; ++k) passes.append(standard_pass(in.str("a pass name")));
    if (in.left() != 0) refuse(std::to_string(in.left()) + " bytes follow the end of the program: the file is corrupted");
    finish_lowering(g, out, passes);
    return state;
}

std::shared_ptr<const loaded_state> load_file(const std::filesystem::path& file, const user_ops& users, products_fn products) {
    std::ifstream in(file, std::ios::binary);
    if (!in) refuse("cannot open '" + file.string() + "'");
    return load_graph(in, users, products);
}

loaded_tensor new_loaded_result(call_state& call, std::size_t slot) {
    const ir_node& r = call.ctx.ir->resolve(slot);
    switch (r.value) {
    case value_kind::f32:
        return r.is_complex ? loaded_tensor(new_result<xt::xarray<std::complex<float>>>(call, slot))
                            : loaded_tensor(new_result<xt::xarray<float>>(call, slot));
    case value_kind::f64:
        return r.is_complex ? loaded_tensor(new_result<xt::xarray<std::complex<double>>>(call, slot))
                            : loaded_tensor(new_result<xt::xarray<double>>(call, slot));
    case value_kind::boolean: return new_result<xt::xarray<bool>>(call, slot);
    case value_kind::i32: return new_result<xt::xarray<std::int32_t>>(call, slot);
    case value_kind::i64: return new_result<xt::xarray<std::int64_t>>(call, slot);
    default: throw error("realify::graph::loaded_program: output %" + std::to_string(slot) + " (" + r.op + ") has values of no graph value kind");
    }
}

void check_out_element(const graph_ir& g, std::size_t k, std::string_view kind) {
    const ir_node& r = g.resolve(g.outputs[k]);
    const std::string want = tensor_kind(r.value, r.is_complex);
    if (want != kind)
        throw layout_error("realify::graph::loaded_program: out() buffer " + std::to_string(k) + " has elements of kind " +
                           std::string(kind) + ", the output's are " + want);
}

}  // namespace detail

void user_ops::add_entry(entry e) {
    if (e.name != e.facts.op)
        throw error("realify::graph::user_ops::add: the node given for '" + e.name + "' is the op '" + std::string(e.facts.op) + "'");
    for (const entry& x : m_entries)
        if (x.name == e.name) throw error("realify::graph::user_ops::add: '" + e.name + "' is bound twice");
    m_entries.push_back(std::move(e));
}

}  // namespace realify::graph
