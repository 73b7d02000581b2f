// The dispatch table as data: one row per candidate lowering (op, lowering,
// kind, priority, formula, tolerance), for docs/ops.md, tests and
// print_table. The formulas of the elementwise lowerings are their element
// kernels' (realify/kernels), so this header includes them; the lowerings
// themselves (realify/dispatch/lowerings.hpp) do not need them to run.
#pragma once

#include <array>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include "realify/dispatch/lowerings.hpp"
#include "realify/kernels.hpp"
#include "realify/ops/op_kind.hpp"
#include "realify/ops/tags.hpp"

namespace realify::dispatch {

/// One row of the dispatch table.
struct entry {
    std::string_view op;
    std::string_view lowering;
    op_kind kind;
    int priority;
    std::string_view formula;
    std::string_view tolerance;
};

/// Default tolerance by kind; a lowering may state its own with `tolerance`.
constexpr std::string_view default_tolerance(op_kind kind) {
    switch (kind) {
        case op_kind::math:
        case op_kind::real_output:
        case op_kind::construction: return "f32 rtol 1e-5 atol 1e-6; f64 rtol 1e-12";
        default: return "exact";
    }
}

namespace detail {
template <class Tag, class L>
constexpr entry make_entry() {
    std::string_view tolerance = default_tolerance(Tag::kind);
    if constexpr (requires { L::tolerance; }) tolerance = L::tolerance;
    std::string_view formula;
    if constexpr (requires { L::formula; }) formula = L::formula;
    return entry{Tag::name, L::name, Tag::kind, priority_of<L>(), formula, tolerance};
}
template <class Tag, class... L>
constexpr auto entries_of(type_list<L...>) {
    return std::array<entry, sizeof...(L)>{make_entry<Tag, L>()...};
}
template <class... Tags>
constexpr auto make_table(type_list<Tags...>) {
    constexpr std::size_t total = (candidates_t<Tags>::size + ... + 0);
    std::array<entry, total> result{};
    std::size_t next = 0;
    auto append = [&](const auto& rows) {
        for (const entry& row : rows) result[next++] = row;
    };
    (append(entries_of<Tags>(candidates_t<Tags>{})), ...);
    return result;
}
}  // namespace detail

/// Every entry of the dispatch table (built-in and user), op by op in the
/// order of realify::op::all_ops, candidates in priority order. A variable
/// template so it sees user_lowerings specialisations made after including
/// this header: write dispatch::table<>.
template <class Ops = op::all_ops>
inline constexpr auto table = detail::make_table(Ops{});

/// Number of ops in Ops that have at least one lowering.
template <class Ops = op::all_ops>
constexpr std::size_t covered_ops() {
    return []<class... Tags>(type_list<Tags...>) { return ((candidates_t<Tags>::size > 0 ? 1u : 0u) + ... + 0u); }(Ops{});
}

/// Prints the table: one line per entry.
template <class Ops = op::all_ops>
void print_table(std::ostream& out) {
    out << "op                 lowering                     kind              priority  formula\n";
    for (const entry& row : table<Ops>) {
        auto pad = [&](std::string_view text, std::size_t width) {
            out << text;
            for (std::size_t i = text.size(); i < width; ++i) out << ' ';
        };
        pad(row.op, 19);
        pad(row.lowering, 29);
        pad(to_string(row.kind), 18);
        out << row.priority;
        for (std::size_t i = std::to_string(row.priority).size(); i < 10; ++i) out << ' ';
        out << row.formula << '\n';
    }
}

}  // namespace realify::dispatch
