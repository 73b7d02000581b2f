// A fused loop: a chain of compiled elementwise ops (realify/simd/elementwise.hpp)
// evaluated as ONE pass of the elementwise engine. The engine walks the
// broadcast of the loop's inputs as it walks any op's (any layout, axes
// ordered and coalesced, strided operands gathered); each piece it hands over
// is cut into blocks of `block` elements, and every step runs on the whole
// block before the next, its result kept in a scratch block that stays in L1.
// So `exp(a) * b + a` reads a and b once and writes its result once, like a
// hand-written loop, while every step is the op's compiled SIMD kernel at the
// machine's best instruction set, chosen at run time — the loop is
// compiled with nobody's flags, the user's least of all. The graph's fused
// regions are fused loops (realify/graph/fusion.hpp).
//
// A fused loop is a tree: every step's result is read by exactly one later step,
// except the last step's, which is the output. Operands are the loop's
// inputs (tensors, given to evaluate_loop in order; one input may be read
// by several steps), earlier steps, and numbers (a real or complex constant,
// broadcast). Results equal the ops run one by one through the eager API:
// the kernels are the same and they never see a block's position.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "realify/engine/elementwise.hpp"
#include "realify/engine/reduce.hpp"
#include "realify/engine/tensor_ref.hpp"
#include "realify/simd/elementwise.hpp"

namespace realify::engine {

/// Where a step reads one of its operands.
struct step_operand {
    enum class source : std::uint8_t { input, step, number };
    source from = source::input;
    std::size_t index = 0;          // the input's or the step's position
    bool complex = false;           // the operand's kind
    std::complex<double> number{};  // source::number: its value (a real number: its real part)
};

class fused_loop {
public:
    /// Elements per block: the scratch blocks of a step's operands and result
    /// (2 KiB–4 KiB each for complex float–double) stay in L1 together with
    /// the blocks of the inputs.
    static constexpr std::size_t block = 256;
    /// Scratch blocks alive at once (results computed, not yet read); a tree
    /// needs few (a chain one, a balanced tree of depth d about d).
    static constexpr std::size_t max_live = 8;

    /// A fused loop computing in `compute` (float32 or float64) over inputs of
    /// these kinds (true: complex), at most max_inputs of them.
    fused_loop(component compute, std::span<const bool> complex_inputs);

    /// The loop's input k.
    step_operand input(std::size_t k) const;
    /// A number operand (complex or real).
    static step_operand number(std::complex<double> value, bool complex);

    /// Appends the step op(operands…) and returns its result as an operand.
    /// `constant` is α of add/sub or the exponent of pow_scalar, as for
    /// engine::kernel_of. Throws realify::error when the op has no kernel for
    /// these operand kinds, an operand is a step already read or not yet
    /// appended, or more than max_live results would be alive at once.
    step_operand append(simd::elementwise_op op, std::span<const step_operand> operands,
                           std::optional<std::complex<double>> constant = std::nullopt);

    component compute() const noexcept { return m_compute; }
    std::size_t inputs() const noexcept { return m_input_count; }
    std::span<const bool> complex_inputs() const noexcept { return {m_complex_inputs.data(), m_input_count}; }
    std::size_t size() const noexcept { return m_steps.size(); }
    /// Whether the output (the last step's result) is complex.
    bool complex_result() const;
    /// The steps as explain() prints them: "t0 = exp(in0); t1 = mul(t0, in1); out = add(t1, in0)".
    std::string text() const;

    struct step {
        simd::elementwise_op op;
        std::array<step_operand, 2> operands;
        std::size_t arity;
        std::optional<std::complex<double>> constant;
        bool complex_result;
        std::size_t slot;  // the scratch block of its result (unused by the last step)
    };
    std::span<const step> steps() const noexcept { return m_steps; }

private:
    component m_compute;
    std::array<bool, max_inputs> m_complex_inputs{};
    std::size_t m_input_count = 0;
    std::vector<step> m_steps;
    std::vector<bool> m_read;                  // per step: read by a later step
    std::array<bool, max_live> m_slot_busy{};  // scratch blocks holding an unread result
};

/// Runs `loop` over the broadcast of `inputs` (one per loop input,
/// kinds as declared) into `out`: the checks, layouts, aliasing and in-place
/// rules of engine::evaluate, which it calls. `op` names the computation in
/// errors. The kernels are those of the instruction set active now.
void evaluate_loop(std::string_view op, const fused_loop& loop, std::span<const tensor_ref> inputs,
                   const tensor_ref& out);

/// A fused loop's result over `inputs` as produced values (reduce.hpp): a
/// reduction fed by the loop takes its blocks as they are made, with no
/// tensor of the result in memory (engine::reduce_produced). Each range is
/// made by the same kernels as evaluate_loop makes it, so its elements are
/// those evaluate_loop writes, to the bit. The inputs are checked as
/// evaluate_loop checks them (their count, kinds, broadcast); they must be of
/// the loop's compute type (realify::error otherwise) and stay alive and
/// unchanged while the values are used.
class loop_values final : public produced_values {
public:
    loop_values(std::string_view op, const fused_loop& loop, std::span<const tensor_ref> inputs);
    ~loop_values() override;
    loop_values(const loop_values&) = delete;
    loop_values& operator=(const loop_values&) = delete;

    const dims& shape() const noexcept override;
    component type() const noexcept override;
    bool complex() const noexcept override;
    void produce(std::size_t first, std::size_t n, void* to) const override;
    bool reads(const tensor_ref& out) const noexcept override;

private:
    struct state;
    std::unique_ptr<const state> m_state;
};

}  // namespace realify::engine
