// realify/engine/fused_loop.hpp: building a fused loop (kinds checked, scratch
// blocks assigned) and running it as one block kernel of the elementwise
// engine. Compiled for the baseline ISA: the arithmetic is all in the
// compiled kernels it calls; here are only loops over steps and blocks.
#include "realify/engine/fused_loop.hpp"

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <cstring>
#include <optional>
#include <sstream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "op_cost.hpp"
#include "tensor_checks.hpp"
#include "walk.hpp"
#include "realify/errors.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::engine {

namespace {

simd::operand_kind kind(bool complex) noexcept { return complex ? simd::operand_kind::complex : simd::operand_kind::real; }

[[noreturn]] void refuse(const std::string& what) { throw error("realify::engine::fused_loop: " + what); }

}  // namespace

fused_loop::fused_loop(component compute, std::span<const bool> complex_inputs) : m_compute(compute) {
    if (!is_floating(compute)) refuse("fused loops compute in float or double");
    if (complex_inputs.size() > max_inputs)
        refuse(std::to_string(complex_inputs.size()) + " inputs; at most " + std::to_string(max_inputs));
    std::copy(complex_inputs.begin(), complex_inputs.end(), m_complex_inputs.begin());
    m_input_count = complex_inputs.size();
}

step_operand fused_loop::input(std::size_t k) const {
    if (k >= m_input_count) refuse("input " + std::to_string(k) + " of " + std::to_string(m_input_count));
    return {step_operand::source::input, k, m_complex_inputs[k], {}};
}

step_operand fused_loop::number(std::complex<double> value, bool complex) {
    return {step_operand::source::number, 0, complex, complex ? value : std::complex<double>(value.real(), 0.0)};
}

step_operand fused_loop::append(simd::elementwise_op op, std::span<const step_operand> operands,
                                std::optional<std::complex<double>> constant) {
    if (operands.size() != static_cast<std::size_t>(simd::arity(op)))
        refuse(std::string(simd::name(op)) + " takes " + std::to_string(simd::arity(op)) + " operands, given " +
               std::to_string(operands.size()));
    for (const step_operand& o : operands) {
        if (o.from == step_operand::source::input && (o.index >= m_input_count || o.complex != m_complex_inputs[o.index]))
            refuse(std::string(simd::name(op)) + ": no such input");
        if (o.from != step_operand::source::step) continue;
        if (o.index >= m_steps.size() || o.complex != m_steps[o.index].complex_result)
            refuse(std::string(simd::name(op)) + ": no such step");
        if (m_read[o.index]) refuse(std::string(simd::name(op)) + ": step " + std::to_string(o.index) + " is already read");
    }
    const std::optional<simd::operand_kind> result =
        operands.size() == 1 ? simd::result_kind(op, kind(operands[0].complex))
                             : simd::result_kind(op, kind(operands[0].complex), kind(operands[1].complex));
    if (!result) {
        std::string kinds;
        for (const step_operand& o : operands) kinds += std::string(kinds.empty() ? "" : " × ") + (o.complex ? "complex" : "real");
        refuse(std::string(simd::name(op)) + " has no kernel for " + kinds + " operands");
    }
    if (op == simd::elementwise_op::pow_scalar && !constant) refuse("pow_scalar needs its exponent");
    // the result takes a free block before its operands' blocks are freed:
    // a kernel may not write over an operand of another kind
    const auto free_slot = std::find(m_slot_busy.begin(), m_slot_busy.end(), false);
    if (free_slot == m_slot_busy.end()) refuse("more than " + std::to_string(max_live) + " results alive at once");
    step s{op, {}, operands.size(), constant, *result == simd::operand_kind::complex,
           static_cast<std::size_t>(free_slot - m_slot_busy.begin())};
    std::copy(operands.begin(), operands.end(), s.operands.begin());
    *free_slot = true;
    for (const step_operand& o : operands) {
        if (o.from != step_operand::source::step) continue;
        m_read[o.index] = true;
        m_slot_busy[m_steps[o.index].slot] = false;
    }
    m_steps.push_back(s);
    m_read.push_back(false);
    return {step_operand::source::step, m_steps.size() - 1, s.complex_result, {}};
}

bool fused_loop::complex_result() const {
    if (m_steps.empty()) refuse("the loop has no step");
    return m_steps.back().complex_result;
}

std::string fused_loop::text() const {
    // an ostringstream: GCC 12 warns (-Wrestrict) on chains of string +
    std::ostringstream text;
    auto operand = [&](const step_operand& o) {
        switch (o.from) {
            case step_operand::source::input: text << "in" << o.index; return;
            case step_operand::source::step: text << 't' << o.index; return;
            case step_operand::source::number: break;
        }
        if (o.complex) text << o.number;  // (re,im)
        else text << o.number.real();
    };
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        const step& s = m_steps[i];
        if (i > 0) text << "; ";
        if (i + 1 == m_steps.size()) text << "out";
        else text << 't' << i;
        text << " = " << simd::name(s.op) << '(';
        for (std::size_t k = 0; k < s.arity; ++k) {
            if (k > 0) text << ", ";
            operand(s.operands[k]);
        }
        text << ')';
    }
    return text.str();
}

namespace {

/// A fused loop with its kernels looked up for the instruction set active when
/// the evaluation starts (one lookup per step and call, none per block).
struct bound_loop {
    const fused_loop* loop;
    std::vector<void (*)()> kernels;
};

template <class T>
void run_loop(const block_kernel& self, const void* const* in, const bool* broadcast, void* out, std::size_t n,
              bool stream) {
    constexpr std::size_t block = fused_loop::block;
    const bound_loop& bound = *static_cast<const bound_loop*>(self.object);
    const std::span<const fused_loop::step> steps = bound.loop->steps();
    alignas(64) std::array<std::array<T, 2 * block>, fused_loop::max_live> scratch;
    std::array<bool, fused_loop::max_live> slot_broadcast{};
    std::array<T, 4> numbers{};  // one step's number operands and constant, as T
    for (std::size_t j = 0; j < n; j += block) {
        const std::size_t m = std::min(block, n - j);
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const fused_loop::step& s = steps[i];
            const bool last = i + 1 == steps.size();
            std::array<const T*, 2> x{};
            std::array<bool, 2> b{};
            for (std::size_t k = 0; k < s.arity; ++k) {
                const step_operand& o = s.operands[k];
                switch (o.from) {
                    case step_operand::source::input:
                        b[k] = broadcast[o.index];
                        x[k] = static_cast<const T*>(in[o.index]) + (b[k] ? 0 : j * (o.complex ? 2 : 1));
                        break;
                    case step_operand::source::step:
                        b[k] = slot_broadcast[steps[o.index].slot];
                        x[k] = scratch[steps[o.index].slot].data();
                        break;
                    case step_operand::source::number:
                        b[k] = true;
                        numbers[2 * k] = static_cast<T>(o.number.real());
                        numbers[2 * k + 1] = static_cast<T>(o.number.imag());
                        x[k] = numbers.data() + 2 * k;
                        break;
                }
            }
            // a step on broadcast operands only computes one element; the
            // output gets it repeated
            const bool one = std::all_of(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(s.arity), [](bool v) { return v; });
            const std::size_t width = s.complex_result ? 2 : 1;
            T* const target = last && !one ? static_cast<T*>(out) + j * width : scratch[s.slot].data();
            const std::size_t count = one ? 1 : m;
            const bool streamed = stream && last && !one;
            std::array<T, 2> params{};
            if (s.constant) params = {static_cast<T>(s.constant->real()), static_cast<T>(s.constant->imag())};
            const T* p = s.constant ? params.data() : nullptr;
            if (s.arity == 1)
                reinterpret_cast<simd::unary_kernel<T>>(bound.kernels[i])(x[0], target, count, p, streamed);
            else
                reinterpret_cast<simd::binary_kernel<T>>(bound.kernels[i])(x[0], b[0], x[1], b[1], target, count, p, streamed);
            slot_broadcast[s.slot] = one;
            if (last && one) {
                T* o = static_cast<T*>(out) + j * width;
                for (std::size_t e = 0; e < m; ++e) std::memcpy(o + e * width, target, width * sizeof(T));
            }
        }
    }
}

}  // namespace

namespace {

/// The loop's kernels at the instruction set active now.
bound_loop bind(const fused_loop& loop) {
    if (loop.size() == 0) refuse("the loop has no step");
    bound_loop bound{&loop, {}};
    const bool f64 = loop.compute() == component::float64;
    for (const fused_loop::step& s : loop.steps()) {
        const simd::operand_kind x = kind(s.operands[0].complex);
        if (s.arity == 1) {
            bound.kernels.push_back(f64 ? reinterpret_cast<void (*)()>(simd::unary_kernel_for<double>(s.op, x))
                                        : reinterpret_cast<void (*)()>(simd::unary_kernel_for<float>(s.op, x)));
        } else {
            const simd::operand_kind y = kind(s.operands[1].complex);
            bound.kernels.push_back(f64 ? reinterpret_cast<void (*)()>(simd::binary_kernel_for<double>(s.op, x, y))
                                        : reinterpret_cast<void (*)()>(simd::binary_kernel_for<float>(s.op, x, y)));
        }
    }
    return bound;
}

/// The block kernel running a bound loop.
block_kernel kernel_of(const bound_loop& bound) {
    const fused_loop& loop = *bound.loop;
    block_kernel kernel;
    kernel.run = loop.compute() == component::float64 ? &run_loop<double> : &run_loop<float>;
    kernel.compute = loop.compute();
    const std::span<const bool> kinds = loop.complex_inputs();
    std::copy(kinds.begin(), kinds.end(), kernel.complex_inputs.begin());
    kernel.complex_output = loop.complex_result();
    kernel.object = &bound;
    kernel.cost = 0;  // the steps' costs added: the work of one element of the loop
    for (const fused_loop::step& s : loop.steps()) kernel.cost += op_cost(s.op);
    return kernel;
}

void check_inputs(std::string_view op, const fused_loop& loop, std::span<const tensor_ref> inputs) {
    if (inputs.size() != loop.inputs())
        throw error("realify::" + std::string(op) + ": " + std::to_string(inputs.size()) + " inputs given, the loop reads " +
                    std::to_string(loop.inputs()));
}

}  // namespace

void evaluate_loop(std::string_view op, const fused_loop& loop, std::span<const tensor_ref> inputs,
                   const tensor_ref& out) {
    const bound_loop bound = bind(loop);
    check_inputs(op, loop, inputs);
    evaluate(op, inputs, out, kernel_of(bound));
}

// ---- loop_values: ranges of the result made on demand ----

struct loop_values::state {
    bound_loop bound;
    block_kernel kernel;
    std::vector<tensor_ref> inputs;
    dims shape;
    walk::axes<max_inputs> axes;  // the result's axes, coalesced; per input its strides (0: broadcast)
    walk::axis<max_inputs> inner;  // the innermost of them (extent 1, strides 0, for none)
};

loop_values::loop_values(std::string_view op, const fused_loop& loop, std::span<const tensor_ref> inputs) {
    auto s = std::make_unique<state>();
    s->bound = bind(loop);
    check_inputs(op, loop, inputs);
    s->kernel = kernel_of(s->bound);
    s->inputs.assign(inputs.begin(), inputs.end());
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        if (inputs[k].type != loop.compute())
            throw error("realify::" + std::string(op) + ": the values of a fused loop read inputs of its compute type");
        if (inputs[k].complex != loop.complex_inputs()[k])
            throw error("realify::" + std::string(op) + ": input " + std::to_string(k) + " is not of the kind the loop reads");
    }
    s->shape = broadcast_shape(op, inputs);
    const std::size_t rank = s->shape.rank;
    for (std::size_t a = 0; a < rank; ++a) {
        walk::axis<max_inputs> x{s->shape[a], {}};
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            const tensor_ref& in = inputs[k];
            if (a + in.rank() < rank) continue;  // an axis the input has not: broadcast
            const std::size_t ia = a + in.rank() - rank;
            x.stride[k] = in.shape[ia] == 1 ? 0 : in.strides[ia];
        }
        s->axes.push(x);
    }
    s->axes.coalesce();
    if (s->axes.rank > 0) s->inner = s->axes.take(s->axes.rank - 1);
    m_state = std::move(s);
}

loop_values::~loop_values() = default;

const dims& loop_values::shape() const noexcept { return m_state->shape; }
component loop_values::type() const noexcept { return m_state->bound.loop->compute(); }
bool loop_values::complex() const noexcept { return m_state->kernel.complex_output; }

namespace {

/// Elements [first, first + n) of the loop's result at `to`: the runs of
/// the innermost axis, a piece at a time — an input strided along it gathered
/// into scratch, a contiguous or broadcast one read where it lies — each
/// piece given to the loop's block kernel, as the engine gives it.
template <class T>
void produce_range(const block_kernel& kernel, std::span<const tensor_ref> inputs, const walk::axes<max_inputs>& outer,
                   const walk::axis<max_inputs>& inner, std::size_t first, std::size_t n, T* to) {
    constexpr std::size_t piece = block_elements;
    alignas(64) std::array<std::array<T, 2 * piece>, max_inputs> scratch;
    const std::size_t out_width = kernel.complex_output ? 2 : 1;
    walk::odometer<max_inputs> position(outer.all(), first / inner.extent);
    std::size_t i = first % inner.extent;
    std::array<const void*, max_inputs> x{};
    std::array<bool, max_inputs> broadcast{};
    while (n > 0) {
        const std::size_t take = std::min(n, inner.extent - i);
        for (std::size_t p = 0; p < take; p += piece) {
            const std::size_t m = std::min(piece, take - p);
            for (std::size_t k = 0; k < inputs.size(); ++k) {
                const std::ptrdiff_t width = inputs[k].complex ? 2 : 1, step = inner.stride[k];
                const T* at = static_cast<const T*>(inputs[k].data) + position[k] + static_cast<std::ptrdiff_t>(i + p) * step;
                broadcast[k] = step == 0;
                x[k] = at;
                if (step == 0 || step == width) continue;
                T* q = scratch[k].data();
                for (std::size_t e = 0; e < m; ++e, at += step, q += width)
                    for (std::ptrdiff_t c = 0; c < width; ++c) q[c] = at[c];
                x[k] = scratch[k].data();
            }
            kernel.run(kernel, x.data(), broadcast.data(), to, m, false);
            to += m * out_width;
        }
        n -= take;
        i = 0;
        position.next();
    }
}

}  // namespace

void loop_values::produce(std::size_t first, std::size_t n, void* to) const {
    const state& s = *m_state;
    if (type() == component::float64)
        produce_range(s.kernel, s.inputs, s.axes, s.inner, first, n, static_cast<double*>(to));
    else
        produce_range(s.kernel, s.inputs, s.axes, s.inner, first, n, static_cast<float*>(to));
}

bool loop_values::reads(const tensor_ref& out) const noexcept {
    for (const tensor_ref& in : m_state->inputs)
        if (detail::overlaps(detail::range_of(in), detail::range_of(out))) return true;
    return false;
}

}  // namespace realify::engine
