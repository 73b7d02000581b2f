// The text the graph writes for people — explain(), the nodes' labels, the
// lowering notes, error messages — built by appending pieces to a string.
// Numbers are written by std::to_chars: integers in full, floating values as
// printf's %g (six significant digits, the form an iostream prints by
// default), so every label reads as it did when streams wrote it, without a
// stream's locale and state in each unit that lowers a graph.
#pragma once

#include <charconv>
#include <complex>
#include <concepts>
#include <string>
#include <string_view>

#include "realify/version.hpp"

namespace realify::graph::detail {

/// Appends a floating value as %g writes it; compiled once (realify_simd).
void append_number(std::string& out, double value);

/// A string built with <<, as an ostringstream is, from strings, characters,
/// integers, floating values and complex numbers ("(re,im)").
class text {
public:
    text& operator<<(std::string_view piece) {
        m_text += piece;
        return *this;
    }
    text& operator<<(char c) {
        m_text += c;
        return *this;
    }
    template <std::integral I>
        requires(!std::same_as<I, char> && !std::same_as<I, bool>)
    text& operator<<(I value) {
        char digits[24];
        m_text.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
        return *this;
    }
    /// bool as a stream prints it by default: 1 or 0 (a template, so that a
    /// pointer never converts to it).
    template <std::same_as<bool> B>
    text& operator<<(B value) {
        return *this << (value ? '1' : '0');
    }
    text& operator<<(std::floating_point auto value) {
        append_number(m_text, static_cast<double>(value));
        return *this;
    }
    template <std::floating_point T>
    text& operator<<(const std::complex<T>& z) {
        return *this << '(' << z.real() << ',' << z.imag() << ')';
    }

    const std::string& str() const { return m_text; }

private:
    std::string m_text;
};

}  // namespace realify::graph::detail
