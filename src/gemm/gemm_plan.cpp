// How a product runs (gemm_plan.hpp): the library and method — forced by
// REALIFY_GEMM_BACKEND, or measured once per process on this CPU — the tiles
// and pieces it is cut into, and the one-line description graph::explain
// prints. Compiled for the baseline ISA.
#include "gemm_plan.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../simd/kernel_table.hpp"
#include "libraries.hpp"
#include "realify/threads.hpp"

namespace realify::simd {

namespace detail {

namespace {

constexpr gemm_library all_libraries[] = {gemm_library::onednn, gemm_library::blas, gemm_library::eigen};

// ---- REALIFY_GEMM_BACKEND --------------------------------------------------------------------

/// REALIFY_GEMM_BACKEND, read once (nullopt: unset). Like REALIFY_SIMD_ARCH, a
/// value that cannot be honoured makes every product throw rather than
/// silently run elsewhere.
std::optional<gemm_library> environment_library() {
    static const std::optional<gemm_library> chosen = []() -> std::optional<gemm_library> {
        const char* value = std::getenv("REALIFY_GEMM_BACKEND");
        if (value == nullptr || *value == '\0') return std::nullopt;
        const std::string_view name(value);
        std::string built = "eigen";
        for (gemm_library library : {gemm_library::blas, gemm_library::onednn})
            if (library_built_in(library)) built += std::string(", ") + std::string(library_name(library));
        const auto refuse = [&](const std::string& why) -> std::optional<gemm_library> {
            throw error("realify::simd: REALIFY_GEMM_BACKEND=" + std::string(name) + ": " + why +
                        " (realify_gemm was built with " + built + ")");
        };
        if (name == "eigen") return gemm_library::eigen;
        if (name == "onednn") {
            if (!library_built_in(gemm_library::onednn)) return refuse("oneDNN is not built in");
            return gemm_library::onednn;
        }
        if (name == "blas" || name == "openblas" || name == "blis" || name == "mkl") {
            if (!library_built_in(gemm_library::blas)) return refuse("no BLAS is built in");
            if (name != "blas" && name != library_name(gemm_library::blas)) return refuse("another BLAS is built in");
            return gemm_library::blas;
        }
        return refuse("not one of eigen, blas, openblas, blis, mkl, onednn");
    }();
    return chosen;
}

// ---- the measurement -------------------------------------------------------------------------
//
// Each library built in is timed on one thread on a small product shaped like
// a tile (the calls realify makes), the candidates interleaved, the best of
// `rounds` kept; the fastest wins, and a candidate within `tie` of it that
// comes earlier in all_libraries (oneDNN, the BLAS, Eigen) wins the tie, so a
// near-tie does not flip with the noise of one run. Some 30 ms, once
// per process and precision, at the first product that needs the choice.

constexpr int warm_up_rounds = 5, rounds = 5;
constexpr double tie = 1.03;

double seconds_of(const auto& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Deterministic values in [-1, 1).
template <class T>
std::vector<T> some_values(std::size_t count, std::uint32_t seed) {
    std::vector<T> values(count);
    for (T& v : values) {
        seed = seed * 1664525u + 1013904223u;
        v = static_cast<T>(static_cast<double>(seed >> 8) * (2.0 / 16777216.0) - 1.0);
    }
    return values;
}

/// The best time of each candidate (indexed like `candidates`) running `run(i)`.
template <class Run>
std::vector<double> best_times(std::size_t candidates, const Run& run) {
    std::vector<double> best(candidates, 1e300);
    // the first rounds warm up: oneDNN 2.6 took its first four calls of a
    // shape (x·Wᵀ, 128 × 128 × 256) to settle, each ten times the later ones
    for (int round = 0; round < warm_up_rounds + rounds; ++round)
        for (std::size_t i = 0; i < candidates; ++i) {
            const double t = seconds_of([&] { run(i); });
            if (round >= warm_up_rounds) best[i] = std::min(best[i], t);
        }
    return best;
}

/// The winner's index: the fastest, or an earlier candidate within `tie` of it.
std::size_t winner_of(const std::vector<double>& times) {
    const double fastest = *std::min_element(times.begin(), times.end());
    for (std::size_t i = 0; i < times.size(); ++i)
        if (times[i] <= fastest * tie) return i;
    return 0;
}

/// What a measurement found: each candidate's time ÷ the fastest's.
struct measured {
    std::vector<std::string> names;
    std::vector<double> ratios;
    std::string text() const {
        std::string s;
        for (std::size_t i = 0; i < names.size(); ++i) {
            char ratio[32];
            std::snprintf(ratio, sizeof ratio, " %.2f", ratios[i]);
            s += (i ? ", " : "") + names[i] + ratio;
        }
        return s;
    }
};

measured measured_of(std::vector<std::string> names, const std::vector<double>& times) {
    const double fastest = *std::min_element(times.begin(), times.end());
    measured m{std::move(names), {}};
    for (double t : times) m.ratios.push_back(t / fastest);
    return m;
}

constexpr std::ptrdiff_t zero_offset = 0;

struct real_calibration {
    gemm_library library = gemm_library::eigen;
    measured found;  // empty: Eigen alone
};

/// The real GEMM: C (m × n) = A·Wᵀ (W n × k row-major, as x·Wᵀ) and A·B (B
/// k × n row-major), both on each library; for large products 256 × 128 ×
/// 1024 (a tile of a model's projection: at 128 × 128 × 256 OpenBLAS timed
/// within 3 % of oneDNN on Zen 5 and was chosen, while a decoder layer's
/// 256-token products ran 1.8× as long on it), for small ones 32 × 32 × 32
/// (where a call's setup counts).
template <class T>
real_calibration calibrate_real(bool small) {
    std::vector<gemm_library> candidates;
    for (gemm_library library : all_libraries)
        if (library_has_real(library, sizeof(T) == 8)) candidates.push_back(library);
    if (candidates.size() == 1) return {};
    const std::size_t m = small ? 32 : 256, n = small ? 32 : 128, k = small ? 32 : 1024;
    const std::vector<T> a = some_values<T>(m * k, 1), w = some_values<T>(n * k, 2);
    std::vector<T> c(m * n);
    const gemm_kernel<T> kernel = active_products<T>().gemm;
    gemm_workspace scratch;
    const auto run = [&](std::size_t i) {
        for (bool transposed : {true, false}) {
            const gemm_matrix<T> ma{a.data(), std::ptrdiff_t(k), 1, &zero_offset, false};
            const gemm_matrix<T> mb{w.data(), transposed ? 1 : std::ptrdiff_t(n), transposed ? std::ptrdiff_t(k) : 1,
                                    &zero_offset, false};
            const gemm_call<T> call{1,     m,     n, k, ma, mb, c.data(), false, false, gemm_method::automatic,
                                    candidates[i], gemm_library::eigen};
            kernel(call, {0, 0, m, 0, n}, scratch);
        }
    };
    const std::vector<double> times = best_times(candidates.size(), run);
    std::vector<std::string> names;
    for (gemm_library library : candidates) names.emplace_back(library_name(library));
    return {candidates[winner_of(times)], measured_of(std::move(names), times)};
}

template <class T>
const real_calibration& real_calibrated(bool small) {
    static const real_calibration large_result = calibrate_real<T>(false);
    if (!small) return large_result;
    static const real_calibration small_result = calibrate_real<T>(true);
    return small_result;
}

struct complex_calibration {
    bool native = false;  // automatic runs native (else 1m)
    gemm_library library = gemm_library::eigen;  // the native method's
    measured found;
};

/// Native (each library's complex GEMM) against 1m on the real GEMM chosen
/// above, on a 64 × 128 × 64 complex product.
template <class T>
complex_calibration calibrate_complex(gemm_library real) {
    struct candidate {
        gemm_method method;
        gemm_library library;
    };
    std::vector<candidate> candidates;
    for (gemm_library library : all_libraries)
        if (library_has_complex(library)) candidates.push_back({gemm_method::native, library});
    candidates.push_back({gemm_method::m1, real});
    constexpr std::size_t m = 64, n = 64, k = 128;
    const std::vector<T> a = some_values<T>(2 * m * k, 3), b = some_values<T>(2 * k * n, 4);
    std::vector<T> c(2 * m * n);
    const gemm_kernel<T> kernel = active_products<T>().gemm;
    gemm_workspace scratch;
    const auto run = [&](std::size_t i) {
        const gemm_matrix<T> ma{a.data(), std::ptrdiff_t(2 * k), 2, &zero_offset, false};
        const gemm_matrix<T> mb{b.data(), std::ptrdiff_t(2 * n), 2, &zero_offset, false};
        const gemm_call<T> call{1,   m,    n, k, ma, mb, c.data(), true, false, candidates[i].method,
                                real, candidates[i].library};
        kernel(call, {0, 0, m, 0, n}, scratch);
    };
    const std::vector<double> times = best_times(candidates.size(), run);
    std::vector<std::string> names;
    for (const candidate& c : candidates)
        names.push_back(c.method == gemm_method::native ? "native on " + std::string(library_name(c.library))
                                                        : "1m on " + std::string(library_name(c.library)));
    const candidate& best = candidates[winner_of(times)];
    gemm_library native_library = gemm_library::eigen;  // the fastest complex GEMM, for native asked by name
    double native_time = 1e300;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        if (candidates[i].method == gemm_method::native && times[i] < native_time / tie) {
            native_time = times[i];
            native_library = candidates[i].library;
        }
    return {best.method == gemm_method::native, native_library, measured_of(std::move(names), times)};
}

template <class T>
const complex_calibration& complex_calibrated() {
    static const complex_calibration result = calibrate_complex<T>(real_calibrated<T>(false).library);
    return result;
}

/// The rule for Eigen alone (measured: docs/numerics.md, "Which method
/// runs"): its complex GEMM is the faster built for AVX-512, 1m below.
bool eigen_native_is_faster() { return active_arch_id(kernel_family::gemm) == arch::avx512; }

bool is_small(const gemm_dims& dims, bool shared_b) {
    const std::size_t rows = shared_b ? dims.batch * dims.m : dims.m;
    return rows * dims.n * dims.k < small_product;
}

bool is_double(gemm_type type) { return type == gemm_type::float64 || type == gemm_type::complex128; }
bool is_complex(gemm_type type) { return type == gemm_type::complex64 || type == gemm_type::complex128; }

/// Why the choice is what it is (the description's last part).
enum class reason { forced, level_forced, too_large, measured, eigen_only };

struct full_choice {
    gemm_choice choice;
    reason why;
};

full_choice choose_with_reason(const gemm_dims& dims, gemm_type type, bool shared_b, gemm_method method,
                               bool libraries_fit) {
    const bool dbl = is_double(type), complex = is_complex(type);
    gemm_choice c{complex ? resolve_gemm_method(dims, shared_b, method) : gemm_method::automatic, gemm_library::eigen,
                  gemm_library::eigen};
    const bool resolving = complex && method == gemm_method::automatic && c.method == gemm_method::native;
    const auto eigen_alone = [&](reason why) {
        if (resolving && !eigen_native_is_faster()) c.method = gemm_method::m1;
        return full_choice{c, why};
    };
    if (const std::optional<gemm_library> forced = environment_library()) {
        c.real_library = library_has_real(*forced, dbl) ? *forced : gemm_library::eigen;
        c.complex_library = library_has_complex(*forced) ? *forced : gemm_library::eigen;
        if (!libraries_fit) c.real_library = c.complex_library = gemm_library::eigen;
        // automatic runs native on the BLAS's complex GEMM, on Eigen's where
        // Eigen is forced and its complex GEMM the faster, else 1m (on oneDNN
        // when it is forced: it has no complex GEMM)
        const bool native = c.complex_library != gemm_library::eigen ||
                            (*forced == gemm_library::eigen && eigen_native_is_faster());
        if (resolving && !native) c.method = gemm_method::m1;
        return {c, reason::forced};
    }
    if (level_forced()) return eigen_alone(reason::level_forced);
    if (!libraries_fit) return eigen_alone(reason::too_large);
    const real_calibration& real =
        dbl ? real_calibrated<double>(is_small(dims, shared_b)) : real_calibrated<float>(is_small(dims, shared_b));
    c.real_library = real.library;
    if (!complex) return {c, real.found.names.empty() ? reason::eigen_only : reason::measured};
    const bool measure = library_built_in(gemm_library::blas) || c.real_library != gemm_library::eigen;
    if (!measure) return eigen_alone(reason::eigen_only);
    const complex_calibration& calibrated = dbl ? complex_calibrated<double>() : complex_calibrated<float>();
    c.complex_library = calibrated.library;
    if (resolving && !calibrated.native) c.method = gemm_method::m1;
    return {c, reason::measured};
}

std::string tile_text(const tile_grid& grid, std::size_t groups) {
    const std::size_t count = grid.count() * groups;
    if (count == 1) return "one call";
    std::string s = std::to_string(count) + " tiles";
    if (grid.count() > 1)
        s += " of " + std::to_string(grid.tile_rows) + " × " + std::to_string(grid.tile_cols) + (groups > 1 ? " per batch" : "");
    else
        s += ", one per batch";
    return s + ", one thread each";
}

std::string library_text(gemm_library library) {
    const std::string version = library_version(library);
    return std::string(library_name(library)) + (version.empty() ? "" : " " + version);
}

}  // namespace

gemm_choice choose(const gemm_dims& dims, gemm_type type, bool shared_b, gemm_method method, bool libraries_fit) {
    return choose_with_reason(dims, type, shared_b, method, libraries_fit).choice;
}

// ---- the cut ----------------------------------------------------------------------------------
//
// Tiles: every tile is one call of a library that packs its operands itself
// (oneDNN 2.6's dnnl_sgemm and the CBLAS have no interface to pack them once
// for several calls), so a tile re-packs its rows of A and its columns of B.
// Full-height tiles (up to 384 rows) pack each column of B once, as the uncut
// call does, and re-pack A once per 128 columns: under callgrind, OpenBLAS
// 0.3.21 ran 256 × 512 × 2048 (x·Wᵀ) cut into 256 × 128 tiles in 2.3 % more
// instructions than uncut, 4.4 % with 96 columns, 6.5 % with 64, 6 % in
// 128 × 128 tiles and 24 % in 64 × 32 ones. Taller products get row blocks of
// about 256. A tile keeps at least a quarter of grain::gemm of work.

namespace {
constexpr std::size_t tile_height = 256, tile_width = 128, tile_alignment = 16;

std::size_t round_up(std::size_t value, std::size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

/// About `target` per block (a multiple of tile_alignment), all of `extent`
/// when it is less than 1.5 blocks.
std::size_t block_extent(std::size_t extent, std::size_t target) {
    if (2 * extent < 3 * target) return extent;
    const std::size_t blocks = (extent + target / 2) / target;
    return round_up((extent + blocks - 1) / blocks, tile_alignment);
}
}  // namespace

tile_grid tile_grid::of(std::size_t rows, std::size_t cols, std::size_t depth) {
    tile_grid g{rows, cols, rows, cols, 1, 1};
    if (rows * cols * depth < 2 * grain::gemm) return g;  // one call
    g.tile_rows = block_extent(rows, tile_height);
    g.tile_cols = block_extent(cols, tile_width);
    while (g.tile_rows * g.tile_cols * depth < grain::gemm / 4 && (g.tile_cols < cols || g.tile_rows < rows)) {
        if (g.tile_cols < cols) g.tile_cols = std::min(cols, 2 * g.tile_cols);
        else g.tile_rows = std::min(rows, 2 * g.tile_rows);
    }
    g.row_blocks = (rows + g.tile_rows - 1) / g.tile_rows;
    g.col_blocks = (cols + g.tile_cols - 1) / g.tile_cols;
    return g;
}

gemm_tile tile_grid::tile(std::size_t group, std::size_t index) const noexcept {
    const std::size_t column = index / row_blocks, row = index % row_blocks;
    const std::size_t row0 = row * tile_rows, col0 = column * tile_cols;
    return {group, row0, std::min(tile_rows, rows - row0), col0, std::min(tile_cols, cols - col0)};
}

// Skinny pieces: about 256 KiB of the weight each (a 1 × 2048 × 2048 float
// product in 64 pieces), in whole blocks of the kernel; the axpy form reads
// rows of the weight in segments of at least 1 KiB.
namespace {
constexpr std::size_t skinny_piece_bytes = std::size_t(256) << 10;
}

std::size_t skinny_piece_outputs(std::size_t outputs, std::size_t k, std::size_t element_bytes, bool dot_form) {
    const std::size_t by_bytes = skinny_piece_bytes / (k * element_bytes);
    const std::size_t least = dot_form ? 16 : 1024 / element_bytes;
    return std::min(outputs, std::max(least, by_bytes / 16 * 16));
}

bool skinny_shape_of(const gemm_dims& dims, bool shared_b, skinny_shape& shape) {
    const std::size_t rows = shared_b ? dims.batch * dims.m : dims.m;
    const bool normal = rows <= skinny_rows, transposed_ok = dims.n <= skinny_rows;
    if (!normal && !transposed_ok) return false;
    // x is the operand with fewer rows: the weight, read once, is the other
    shape.transposed = !normal || (transposed_ok && dims.n < rows);
    shape.stacked = !shape.transposed && shared_b;
    shape.x_rows = shape.transposed ? dims.n : rows;
    shape.outputs = shape.transposed ? dims.m : dims.n;
    shape.groups = shape.stacked ? 1 : dims.batch;
    // a weight that stays in the cache is the GEMM's (compute, not memory, decides)
    return shape.outputs == 1 || shape.outputs * dims.k >= skinny_least_weight;
}

}  // namespace detail

// ---- the public description -------------------------------------------------------------------

namespace {

using detail::gemm_library;

std::string_view backend_of(const gemm_dims& dims, gemm_type type, bool shared_b, gemm_method method,
                            const detail::gemm_choice& c) {
    detail::skinny_shape shape{};
    if (!detail::is_complex(type) && detail::skinny_shape_of(dims, shared_b, shape)) return "realify";
    if (!detail::is_complex(type)) return detail::library_name(c.real_library);
    (void)method;
    switch (c.method) {
        case gemm_method::direct: return "realify";
        case gemm_method::native: return detail::library_name(c.complex_library);
        case gemm_method::m1:
            if (dims.n == 1) return "realify";  // 1m's matrix-vector kernel
            [[fallthrough]];
        default: return detail::library_name(c.real_library);
    }
}

}  // namespace

std::string_view gemm_backend() {
    return gemm_backend({1, 256, 256, 256}, gemm_type::float32, false, gemm_method::automatic);
}

std::string_view gemm_backend(const gemm_dims& dims, gemm_type type, bool shared_b, gemm_method method) {
    const detail::gemm_choice c = detail::choose(dims, type, shared_b, method, true);
    return backend_of(dims, type, shared_b, method, c);
}

std::string gemm_description(const gemm_dims& dims, gemm_type type, bool shared_b, gemm_method method) {
    using detail::reason;
    const detail::full_choice full = detail::choose_with_reason(dims, type, shared_b, method, true);
    const detail::gemm_choice& c = full.choice;
    const bool complex = detail::is_complex(type), dbl = detail::is_double(type);
    const std::string level(active_arch(kernel_family::gemm));
    detail::skinny_shape shape{};
    if (!complex && detail::skinny_shape_of(dims, shared_b, shape)) {
        return "realify's skinny kernel (" + level + "): " + std::to_string(shape.x_rows) + " row" +
               (shape.x_rows == 1 ? "" : "s") + " of " + (shape.transposed ? "Bᵀ" : "A") + " against one pass over " +
               (shape.transposed ? "A" : "B") + " (B's or A's rows or columns contiguous; else the GEMM)";
    }
    const std::size_t groups = shared_b ? 1 : dims.batch;
    const std::size_t rows = shared_b ? dims.batch * dims.m : dims.m;
    const detail::tile_grid grid = detail::tile_grid::of(rows, dims.n, dims.k * (complex ? 4 : 1));
    std::string what;
    const std::string real_gemm =
        (c.real_library == gemm_library::eigen ? "eigen (" + level + ")" : detail::library_text(c.real_library)) +
        (dbl ? " dgemm" : " sgemm");
    if (!complex) what = real_gemm;
    else if (c.method == gemm_method::direct) what = "the direct loop";
    else if (c.method == gemm_method::native)
        what = c.complex_library == gemm_library::eigen
                   ? "native: eigen's complex product (" + level + ")"
                   : "native: " + detail::library_text(c.complex_library) + (dbl ? " zgemm" : " cgemm");
    else if (c.method == gemm_method::m1 && dims.n == 1) what = "1m: realify's matrix-vector kernel (" + level + ")";
    else what = std::string(to_string(c.method)) + " on " + real_gemm;
    std::string why;
    switch (full.why) {
        case reason::forced: why = "REALIFY_GEMM_BACKEND"; break;
        case reason::level_forced: why = "an instruction set is forced: Eigen built for it"; break;
        case reason::too_large: why = "sizes beyond the libraries' int arguments: Eigen"; break;
        case reason::eigen_only: why = "Eigen is the only library built in"; break;
        case reason::measured: {
            const bool small = detail::is_small(dims, shared_b);
            const detail::measured& found = complex ? (dbl ? detail::complex_calibrated<double>().found
                                                           : detail::complex_calibrated<float>().found)
                                                    : (dbl ? detail::real_calibrated<double>(small).found
                                                           : detail::real_calibrated<float>(small).found);
            why = std::string("measured") + (small && !complex ? " on small products" : "") +
                  ", time ÷ fastest: " + found.text();
            break;
        }
    }
    return what + ", " + (dims.batch == 1 && dims.m == 1 && dims.n == 1 ? "chunks of k" : detail::tile_text(grid, groups)) +
           " (" + why + ")";
}

}  // namespace realify::simd
