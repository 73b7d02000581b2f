// The exception types realify throws. Every message names the op or the entry
// point, and the shapes/strides involved, so a failure is readable without a
// debugger.
#pragma once

#include <cstddef>
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

/// Appends one integer to a list being formatted as "(a, b, c)": after the
/// opening parenthesis, or after ", ". Compiled once (realify_simd): the
/// stream code is not in every unit that can report a shape.
void append_integer(std::string& list, long long value);

/// Formats any sequence of integers as "(a, b, c)"; used in error messages.
template <class Sequence>
std::string format_sequence(const Sequence& values) {
    std::string list = "(";
    for (const auto& value : values) append_integer(list, static_cast<long long>(value));
    list += ')';
    return list;
}

}  // namespace detail
}  // namespace realify
