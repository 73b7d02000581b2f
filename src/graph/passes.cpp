// realify/graph/passes.hpp: the standard passes over graph_ir and the
// pipeline that orders them (a user pass may be inserted at a position, as
// Torch-TensorRT's lowering passes). Each pass reads and annotates the
// records only — no typed code, no evaluation except fold_constants — so
// they are compiled once, here. Each pass states below what it leaves true.
#include "realify/graph/passes.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <span>
#include <unordered_map>

#include "realify/errors.hpp"
#include "realify/graph/text.hpp"
#include "realify/graph/build_loop.hpp"
#include "realify/graph/fusion.hpp"
#include "realify/graph/value.hpp"

namespace realify::graph {
namespace passes {

void detect_complex_subgraphs(graph_ir& g) {
    std::vector<std::size_t> parent(g.nodes.size());
    std::iota(parent.begin(), parent.end(), std::size_t{0});
    auto find = [&](std::size_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    for (std::size_t s = 0; s < g.nodes.size(); ++s) {
        if (!g.nodes[s].in_complex_subgraph) continue;
        for (std::size_t c : g.nodes[s].children)
            if (g.nodes[c].in_complex_subgraph) parent[find(c)] = find(s);
    }
    std::map<std::size_t, int> number;
    for (std::size_t s = 0; s < g.nodes.size(); ++s) {
        ir_node& n = g.nodes[s];
        n.subgraph = -1;
        if (!n.in_complex_subgraph) continue;
        n.subgraph = number.emplace(find(s), static_cast<int>(number.size())).first->second;
    }
}

void replace_complex_inputs(graph_ir& g) {
    for (ir_node& n : g.nodes) {
        if (!n.is_complex) continue;
        if (n.is_input) n.lowering = "zero-copy (…,2) view of the argument (realify::complex_layout_of)";
        if (n.is_constant) n.lowering = "unpacked once to (…,2) at lower time";
    }
}

namespace {

/// What makes two records compute the same value: the op (its id; the name
/// for the records without one: casts and the like), the attributes, the
/// value's kind (component size, complex or not: two creation ops of the
/// same attributes and another type differ) and the operands' canonical
/// slots. A leaf (input, constant, number), a user op or a tensor_op (its
/// function is a run-time object) is its own identity: `identity` is its id,
/// so it is equal to nothing else.
struct cse_key {
    const ir_node* node = nullptr;
    std::vector<std::size_t> operands;  // canonical slots
    std::uint64_t identity = 0;         // nonzero: compared by this alone
};

template <class T>
void mix(std::size_t& h, const T& v) {
    h ^= std::hash<T>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);  // boost::hash_combine
}

/// A double by its bits: +0 and -0 differ, a NaN equals the same NaN (the
/// attributes are compared as written, as the printed labels were).
std::uint64_t bits(double d) {
    std::uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

bool same_attrs(const node_attrs& a, const node_attrs& b) {
    auto same_numbers = [](const std::vector<double>& x, const std::vector<double>& y) {
        return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](double p, double q) { return bits(p) == bits(q); });
    };
    return a.dims == b.dims && a.i0 == b.i0 && a.i1 == b.i1 && a.i2 == b.i2 && a.i3 == b.i3 &&
           bits(a.scalar.real()) == bits(b.scalar.real()) && bits(a.scalar.imag()) == bits(b.scalar.imag()) &&
           a.has_scalar == b.has_scalar && a.text == b.text && same_numbers(a.numbers, b.numbers);
}

struct cse_hash {
    std::size_t operator()(const cse_key& k) const noexcept {
        std::size_t h = 0;
        if (k.identity != 0) {
            mix(h, k.identity);
            return h;
        }
        const ir_node& n = *k.node;
        if (n.tag) mix(h, static_cast<unsigned>(*n.tag));
        else mix(h, n.op);
        mix(h, n.component_bytes);
        mix(h, n.is_complex);
        const node_attrs& a = n.attrs;
        for (std::ptrdiff_t d : a.dims) mix(h, d);
        for (std::ptrdiff_t i : {a.i0, a.i1, a.i2, a.i3}) mix(h, i);
        mix(h, bits(a.scalar.real()));
        mix(h, bits(a.scalar.imag()));
        mix(h, a.text);
        for (double x : a.numbers) mix(h, bits(x));
        for (std::size_t c : k.operands) mix(h, c);
        return h;
    }
};

struct cse_equal {
    bool operator()(const cse_key& x, const cse_key& y) const noexcept {
        if (x.identity != 0 || y.identity != 0) return x.identity == y.identity;
        const ir_node& a = *x.node;
        const ir_node& b = *y.node;
        return a.tag == b.tag && (a.tag || a.op == b.op) && a.component_bytes == b.component_bytes &&
               a.is_complex == b.is_complex && a.rule == b.rule && x.operands == y.operands && same_attrs(a.attrs, b.attrs);
    }
};

/// Records that are never merged with another: leaves and run-time functions.
bool is_identity(const ir_node& n) {
    return n.is_input || n.is_constant || n.is_scalar || !n.has_evaluator() || n.rule == node_rule::tensor_op || n.custom;
}

}  // namespace

void eliminate_common_subexpressions(graph_ir& g) {
    std::unordered_map<cse_key, std::size_t, cse_hash, cse_equal> seen;
    seen.reserve(g.nodes.size());
    for (std::size_t s = 0; s < g.nodes.size(); ++s) {
        ir_node& n = g.nodes[s];
        cse_key key;
        key.node = &n;
        if (is_identity(n)) {
            key.identity = n.id;
        } else {
            key.operands.reserve(n.children.size());
            for (std::size_t c : n.children) key.operands.push_back(g.nodes[c].canonical);
        }
        n.canonical = seen.emplace(std::move(key), s).first->second;
    }
}

void remove_dead_nodes(graph_ir& g) {
    for (ir_node& n : g.nodes) {
        n.live = false;
        n.uses = 0;
    }
    std::vector<std::size_t> stack;
    for (std::size_t o : g.outputs) {
        const std::size_t c = g.nodes[o].canonical;
        g.nodes[c].output = true;
        ++g.nodes[c].uses;
        stack.push_back(c);
    }
    std::vector<bool> visited(g.nodes.size(), false);
    while (!stack.empty()) {
        const std::size_t s = stack.back();
        stack.pop_back();
        if (visited[s]) continue;
        visited[s] = true;
        ir_node& n = g.nodes[s];
        n.live = true;
        if (n.folded) continue;  // a folded value needs nothing below it
        for (std::size_t child : n.children) {
            const std::size_t c = g.nodes[child].canonical;
            ++g.nodes[c].uses;
            stack.push_back(c);
        }
    }
    for (ir_node& n : g.nodes)
        if (n.is_input) n.live = true;  // inputs stay: they are the program's signature
}

void fold_constants(graph_ir& g) {
    for (ir_node& n : g.nodes) {
        if (n.is_constant || n.is_scalar) n.constant_only = true;
        else if (n.is_input) n.constant_only = false;
        else {
            n.constant_only = !n.children.empty();
            for (std::size_t c : n.children) n.constant_only = n.constant_only && g.nodes[c].constant_only;
        }
    }
    std::vector<bool> needed(g.nodes.size(), false);  // folded: a constant-only node a non-constant node (or an output) reads
    for (std::size_t o : g.outputs) needed[g.nodes[o].canonical] = true;
    for (const ir_node& n : g.nodes)
        if (!n.constant_only)
            for (std::size_t c : n.children) needed[g.nodes[c].canonical] = true;
    std::vector<graph_value> memo(g.nodes.size());
    eval_context ctx{&g, &memo, nullptr};
    for (std::size_t s = 0; s < g.nodes.size(); ++s) {
        ir_node& n = g.nodes[s];
        if (!n.constant_only || n.is_scalar || n.canonical != s || !needed[s] || !n.has_evaluator()) continue;
        n.folded_value = n.evaluate(ctx);
        n.folded_shape = graph::detail::shape_of(n.folded_value);
        n.folded = true;
    }
}

namespace {

/// A loop's steps as explain() prints them, with the values it reads:
/// "t0 = exp(in0); out = mul(t0, in1) (in0 = %0, in1 = %2)".
std::string steps_text(const ir_node& n) {
    std::string steps = n.loop->text();
    for (std::size_t k = 0; k < n.loop_operands.size(); ++k)
        steps += (k == 0 ? " (in0 = %" : ", in" + std::to_string(k) + " = %") + std::to_string(n.loop_operands[k]);
    if (!n.loop_operands.empty()) steps += ')';
    return steps;
}

/// Marks `members` inlined in node s's loop and lists them for its note,
/// operands first as the loop computes them: "%3 exp, %1 mul".
std::string inline_members(graph_ir& g, std::span<const std::size_t> members, std::size_t s) {
    detail::text list;
    for (std::size_t k = members.size(); k-- > 0;) {
        ir_node& m = g.nodes[members[k]];
        m.fusion = fusion_mode::inlined;
        m.lowering = "inlined in %" + std::to_string(s) + "'s fused loop";
        list << '%' << members[k] << ' ' << m.op << (k > 0 ? ", " : "");
    }
    return list.str();
}

/// A reduction of the table's own entry whose operand is a loop private to
/// it takes the loop: the loop's root and members are inlined, and the
/// reduction runs the loop and reduces its blocks as they are made
/// (graph/fusion.hpp, evaluate_fused_reduction). Not a loop that may take
/// the SIMD row kernel: that kernel rounds with FMA, the loop's kernels do
/// not, and the fused form gives the bits of the unfused one.
void reduce_loop_as_made(graph_ir& g, std::size_t s) {
    ir_node& n = g.nodes[s];
    if (!n.fusable_reduction || !n.live || n.canonical != s || n.folded || n.children.size() != 1) return;
    const std::size_t c = n.children[0];
    ir_node& root = g.nodes[c];
    const bool loop = root.fusion == fusion_mode::own_loop || root.fusion == fusion_mode::region;
    if (!loop || root.simd_rows || root.canonical != c || root.folded || root.uses != 1 || root.output) return;
    std::vector<std::size_t> members;
    if (root.fusion == fusion_mode::region) graph::detail::collect_region(g, c, members);
    members.insert(members.begin(), c);
    n.fusion = fusion_mode::reduced;
    n.loop = root.loop;
    n.loop_operands = root.loop_operands;
    n.evaluator = n.component_bytes == sizeof(double) ? &graph::detail::evaluate_fused_reduction<double>
                                                      : &graph::detail::evaluate_fused_reduction<float>;
    detail::text note;
    note << "fused loop over " << members.size() << " ops (" << inline_members(g, members, s) << ") reduced by " << n.lowering << " as its blocks are made, no temporary of the loop's result (when the "
         << "reduced dims are its trailing ones; else the result is made, then reduced): " << steps_text(root);
    n.lowering = note.str();
}

}  // namespace

void fuse_elementwise(graph_ir& g) {
    for (std::size_t s = 0; s < g.nodes.size(); ++s) {
        ir_node& n = g.nodes[s];
        n.simd_rows = false;
        n.fusion = n.fusable && n.live && n.canonical == s && !n.folded ? fusion_mode::own_loop : fusion_mode::none;
    }
    for (std::size_t s = g.nodes.size(); s-- > 0;) {  // consumers before their operands
        ir_node& n = g.nodes[s];
        if (n.fusion != fusion_mode::own_loop) continue;
        std::vector<std::size_t> members;
        graph::detail::collect_region(g, s, members);
        const bool region = !members.empty() && graph::detail::set_loop(g, s, true);
        if (!region) graph::detail::set_loop(g, s, false);
        const std::string steps = steps_text(n);
        if (region) {
            n.fusion = fusion_mode::region;
            detail::text ops;
            ops << "fused loop over " << members.size() + 1 << " ops (" << inline_members(g, members, s) << ", %" << s
                << ' ' << n.op << "), one pass in blocks of " << engine::fused_loop::block
                << " elements, no temporaries: " << steps;
            n.lowering = ops.str();
        } else if (n.simd_mul) {
            n.simd_rows = true;
            n.lowering = "realify::simd::mul_block_rows when one operand is the result's contiguous layout and the "
                         "other repeats rows of >= 16 of it, else the fused loop: " + steps;
        } else {
            n.lowering = "fused loop: " + steps;
        }
    }
    for (std::size_t s = 0; s < g.nodes.size(); ++s) reduce_loop_as_made(g, s);
}
}  // namespace passes

pipeline pipeline::standard() {
    pipeline p;
    p.m_passes = {{"detect_complex_subgraphs", passes::detect_complex_subgraphs},
                  {"replace_complex_inputs", passes::replace_complex_inputs},
                  {"eliminate_common_subexpressions", passes::eliminate_common_subexpressions},
                  {"fold_constants", passes::fold_constants},
                  {"remove_dead_nodes", passes::remove_dead_nodes},
                  {"fuse_elementwise", passes::fuse_elementwise}};
    return p;
}

pipeline& pipeline::insert(std::size_t index, pass p) {
    if (index > m_passes.size())
        throw error("realify::graph::pipeline::insert: index " + std::to_string(index) + " is past the end (" +
                    std::to_string(m_passes.size()) + " passes)");
    m_passes.insert(m_passes.begin() + static_cast<std::ptrdiff_t>(index), std::move(p));
    return *this;
}

pipeline& pipeline::append(pass p) {
    m_passes.push_back(std::move(p));
    return *this;
}

std::size_t pipeline::index_of(const std::string& name) const {
    for (std::size_t i = 0; i < m_passes.size(); ++i)
        if (m_passes[i].name == name) return i;
    throw error("realify::graph::pipeline: no pass named " + name);
}

std::vector<std::string> pipeline::names() const {
    std::vector<std::string> r;
    for (const pass& p : m_passes) r.push_back(p.name);
    return r;
}

void pipeline::run(graph_ir& g) const {
    for (const pass& p : m_passes) {
        p.run(g);
        g.pass_log.push_back(p.name);
    }
}

}  // namespace realify::graph
