// The exception types realify throws. Every message names the op or the entry
// point, and the shapes/strides involved, so a failure is readable without a
// debugger.
#pragma once

#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>

#include "realify/version.hpp"

namespace realify {

/// Base of every realify exception; catch this to catch them all.
class error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// Memory layout does not allow a zero-copy complex <-> (…,2) view.
class layout_error : public error {
public:
    using error::error;
};

/// Shapes of operands or output buffers do not fit the operation.
class shape_error : public error {
public:
    using error::error;
};

namespace detail {

/// Formats any sequence of integers as "(a, b, c)"; used in error messages.
template <class Sequence>
std::string format_sequence(const Sequence& values) {
    std::ostringstream out;
    out << '(';
    bool first = true;
    for (const auto& value : values) {
        if (!first) out << ", ";
        out << static_cast<long long>(value);
        first = false;
    }
    out << ')';
    return out.str();
}

}  // namespace detail
}  // namespace realify
