// What the checked span entry points share (complex_mul.cpp, elementwise.cpp):
// overlap and size checks with their messages, and the choice of streaming
// stores.
#pragma once

#include <complex>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "realify/errors.hpp"
#include "realify/simd/streaming.hpp"

namespace realify::simd::detail {

template <class T>
const T* reals(std::span<const std::complex<T>> s) noexcept {
    return reinterpret_cast<const T*>(s.data());
}
template <class T>
T* reals(std::span<std::complex<T>> s) noexcept {
    return reinterpret_cast<T*>(s.data());
}

template <class X, class Y>
bool overlaps(std::span<X> x, std::span<Y> y) noexcept {
    if (x.empty() || y.empty()) return false;
    const std::less<const void*> before;
    const void* x_end = x.data() + x.size();
    const void* y_end = y.data() + y.size();
    return before(static_cast<const void*>(x.data()), y_end) && before(static_cast<const void*>(y.data()), x_end);
}

/// out must be exactly `in` (same start, and the same size unless
/// `same_start_suffices`) or disjoint from it; returns true in the first case.
template <class T, class U>
bool check_alias(std::string_view function, const char* name, std::span<const T> in, std::span<U> out,
                 bool same_start_suffices = false) {
    if (!overlaps(in, out)) return false;
    if (static_cast<const void*>(in.data()) == static_cast<const void*>(out.data()) &&
        (same_start_suffices || in.size_bytes() == out.size_bytes()))
        return true;
    throw layout_error("realify::simd::" + std::string(function) + ": out partially overlaps " + name +
                       " (out may be the same range as an input, or disjoint from it)");
}

inline std::string sizes_message(std::string_view function,
                                 std::initializer_list<std::pair<const char*, std::size_t>> sizes) {
    std::string message = "realify::simd::" + std::string(function) + ": sizes differ:";
    bool first = true;
    for (const auto& [name, size] : sizes) {
        message += first ? " " : ", ";
        message += name;
        message += " has " + std::to_string(size);
        first = false;
    }
    return message + " elements";
}

/// Streaming only pays when what the call touches does not fit in cache, and
/// never when out is an input (its lines are already cached: nothing to save).
template <class O, class... In>
bool use_streaming(std::span<O> out, bool aliases_input, const In&... inputs) noexcept {
    const std::size_t touched = (out.size_bytes() + ... + inputs.size_bytes());
    return !aliases_input && touched >= streaming_threshold();
}

}  // namespace realify::simd::detail
