// realify/graph/text.hpp: the floating-point half, here so that <charconv>'s
// floating conversions are instantiated once, not in every unit.
#include "realify/graph/text.hpp"

namespace realify::graph::detail {

void append_number(std::string& out, double value) {
    char digits[32];  // %g with 6 digits: at most "-1.23457e-308"
    out.append(digits, std::to_chars(digits, digits + sizeof digits, value, std::chars_format::general, 6).ptr);
}

}  // namespace realify::graph::detail
