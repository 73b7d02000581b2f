// The message of the exception a call throws: what the tests of refusals
// read, to check that an error names the op and the shapes.
#pragma once

#include <exception>
#include <string>

#include "realify/errors.hpp"

namespace realify::testing {

/// The message of the exception E (any realify::error unless named) that
/// `f` throws; "wrong exception type: …" for another std::exception, "no
/// exception" when it returns.
template <class E = realify::error, class F>
std::string error_message(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("wrong exception type: ") + e.what();
    }
    return "no exception";
}

}  // namespace realify::testing
