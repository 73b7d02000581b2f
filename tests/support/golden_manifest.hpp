// Reading the PyTorch goldens written by tools/gen_golden.py.
//
// tests/golden/manifest.txt has one line per case (format documented at the
// top of tools/gen_golden.py); the data of all cases of one op and dtype sit
// in one flat complex .npy file, read once with xt::load_npy and cached.
// Operands that are real, bool or integer are stored in the real part.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>

#include "npy.hpp"

namespace realify::testing {

/// One operand or result of a golden case: where it sits in the op's file.
struct golden_slot {
    char kind = 'c';  // c complex, r real, b bool, i integer
    std::size_t offset = 0;
    std::vector<std::size_t> shape;

    std::size_t size() const {
        std::size_t n = 1;
        for (auto extent : shape) n *= extent;
        return n;
    }
};

/// A parameter as written in the manifest ("t:value").
struct golden_param {
    char type = 'i';  // i integer, l integer list, r real, c complex, b bool, s string
    std::string text;
};

namespace detail {

inline double parse_real(const std::string& text) {
    // std::strtod reads "inf", "-inf" and "nan", which Python's repr writes.
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') throw std::runtime_error("golden manifest: bad real '" + text + "'");
    return value;
}

inline std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    if (text.empty()) return parts;
    std::string part;
    std::istringstream stream(text);
    while (std::getline(stream, part, separator)) parts.push_back(part);
    return parts;
}

inline golden_slot parse_slot(const std::string& text) {
    const auto parts = split(text, ':');
    if (parts.size() != 3 || parts[0].size() != 1) throw std::runtime_error("golden manifest: bad slot '" + text + "'");
    golden_slot slot;
    slot.kind = parts[0][0];
    slot.offset = static_cast<std::size_t>(std::stoull(parts[1]));
    if (parts[2] != "-") {
        for (const auto& extent : split(parts[2], ',')) slot.shape.push_back(static_cast<std::size_t>(std::stoull(extent)));
    }
    return slot;
}

}  // namespace detail

/// One line of the manifest.
struct golden_case {
    std::string op;
    std::string dtype;  // "c64" or "c128"
    std::string file;
    std::string label;
    bool special = false;
    std::vector<golden_slot> inputs;
    std::vector<golden_slot> outputs;
    std::map<std::string, golden_param> params;

    std::string name() const { return op + "/" + dtype + "/" + label; }

    const golden_param& param(const std::string& key) const {
        auto it = params.find(key);
        if (it == params.end()) throw std::runtime_error("golden case " + name() + ": no parameter '" + key + "'");
        return it->second;
    }
    bool has_param(const std::string& key) const { return params.count(key) != 0; }

    std::ptrdiff_t int_param(const std::string& key) const {
        const auto& p = param(key);
        if (p.type != 'i') throw std::runtime_error("golden case " + name() + ": '" + key + "' is not an integer");
        return static_cast<std::ptrdiff_t>(std::stoll(p.text));
    }
    bool bool_param(const std::string& key) const {
        const auto& p = param(key);
        if (p.type != 'b') throw std::runtime_error("golden case " + name() + ": '" + key + "' is not a bool");
        return p.text == "1";
    }
    std::vector<std::ptrdiff_t> list_param(const std::string& key) const {
        const auto& p = param(key);
        if (p.type != 'l') throw std::runtime_error("golden case " + name() + ": '" + key + "' is not a list");
        std::vector<std::ptrdiff_t> values;
        for (const auto& v : detail::split(p.text, ',')) values.push_back(static_cast<std::ptrdiff_t>(std::stoll(v)));
        return values;
    }
    /// A real-valued parameter (integers and reals both read as double).
    double real_param(const std::string& key) const {
        const auto& p = param(key);
        if (p.type != 'r' && p.type != 'i') throw std::runtime_error("golden case " + name() + ": '" + key + "' is not real");
        return detail::parse_real(p.text);
    }
    std::string string_param(const std::string& key) const {
        const auto& p = param(key);
        if (p.type != 's') throw std::runtime_error("golden case " + name() + ": '" + key + "' is not a string");
        return p.text;
    }
    std::complex<double> complex_param(const std::string& key) const {
        const auto& p = param(key);
        if (p.type == 'c') {
            const auto parts = detail::split(p.text, ',');
            return {detail::parse_real(parts.at(0)), detail::parse_real(parts.at(1))};
        }
        return {real_param(key), 0.0};
    }
};

inline golden_case parse_golden_line(const std::string& line) {
    std::istringstream stream(line);
    std::string token;
    stream >> token;
    if (token != "case") throw std::runtime_error("golden manifest: line does not start with 'case': " + line);
    golden_case c;
    while (stream >> token) {
        const auto eq = token.find('=');
        if (eq == std::string::npos) throw std::runtime_error("golden manifest: token without '=': " + token);
        const std::string key = token.substr(0, eq);
        const std::string value = token.substr(eq + 1);
        if (key == "op") c.op = value;
        else if (key == "dtype") c.dtype = value;
        else if (key == "file") c.file = value;
        else if (key == "label") c.label = value;
        else if (key == "special") c.special = value == "1";
        else if (key == "in") c.inputs.push_back(detail::parse_slot(value));
        else if (key == "out") c.outputs.push_back(detail::parse_slot(value));
        else if (key.rfind("p.", 0) == 0) {
            if (value.size() < 2 || value[1] != ':') throw std::runtime_error("golden manifest: bad parameter " + token);
            c.params[key.substr(2)] = golden_param{value[0], value.substr(2)};
        } else {
            throw std::runtime_error("golden manifest: unknown key '" + key + "'");
        }
    }
    return c;
}

inline std::string golden_dir() { return std::string(REALIFY_TEST_DATA_DIR) + "/golden"; }

/// All cases of the manifest, in file order.
inline const std::vector<golden_case>& golden_cases() {
    static const std::vector<golden_case> cases = [] {
        std::vector<golden_case> result;
        std::ifstream in(golden_dir() + "/manifest.txt");
        if (!in) throw std::runtime_error("cannot open " + golden_dir() + "/manifest.txt");
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#') continue;
            result.push_back(parse_golden_line(line));
        }
        return result;
    }();
    return cases;
}

/// The flat data of one golden file, loaded once per process.
template <class T>
const xt::xarray<std::complex<T>>& golden_file_data(const std::string& file) {
    static std::map<std::string, std::shared_ptr<xt::xarray<std::complex<T>>>> cache;
    auto& slot = cache[file];
    if (!slot) {
        slot = std::make_shared<xt::xarray<std::complex<T>>>(
            xt::load_npy<std::complex<T>>(golden_dir() + "/" + file));
    }
    return *slot;
}

/// The data of one case in scalar type T (float for c64, double for c128).
template <class T>
class golden_data {
public:
    explicit golden_data(const golden_case& c) : m_case(c), m_flat(golden_file_data<T>(c.file)) {}

    const golden_case& info() const { return m_case; }

    xt::xarray<std::complex<T>> complex_input(std::size_t i) const { return complex_slot(m_case.inputs.at(i)); }
    xt::xarray<T> real_input(std::size_t i) const { return real_slot(m_case.inputs.at(i)); }
    xt::xarray<bool> bool_input(std::size_t i) const { return bool_slot(m_case.inputs.at(i)); }

    xt::xarray<std::complex<T>> complex_output(std::size_t i) const { return complex_slot(m_case.outputs.at(i)); }
    xt::xarray<T> real_output(std::size_t i) const { return real_slot(m_case.outputs.at(i)); }
    xt::xarray<bool> bool_output(std::size_t i) const { return bool_slot(m_case.outputs.at(i)); }

    xt::xarray<std::complex<T>> complex_slot(const golden_slot& s) const {
        check(s);
        xt::xarray<std::complex<T>> out = xt::xarray<std::complex<T>>::from_shape(s.shape);
        for (std::size_t k = 0; k < s.size(); ++k) out.flat(k) = m_flat(s.offset + k);
        return out;
    }
    xt::xarray<T> real_slot(const golden_slot& s) const {
        check(s);
        xt::xarray<T> out = xt::xarray<T>::from_shape(s.shape);
        for (std::size_t k = 0; k < s.size(); ++k) out.flat(k) = m_flat(s.offset + k).real();
        return out;
    }
    xt::xarray<bool> bool_slot(const golden_slot& s) const {
        check(s);
        xt::xarray<bool> out = xt::xarray<bool>::from_shape(s.shape);
        for (std::size_t k = 0; k < s.size(); ++k) out.flat(k) = m_flat(s.offset + k).real() != T(0);
        return out;
    }

private:
    void check(const golden_slot& s) const {
        if (s.offset + s.size() > m_flat.size()) {
            throw std::runtime_error("golden case " + m_case.name() + ": slot beyond the end of " + m_case.file);
        }
    }

    const golden_case& m_case;
    const xt::xarray<std::complex<T>>& m_flat;
};

}  // namespace realify::testing
