// The README demo: rotary position embeddings at the Llama-3-8B prefill shape
// with realify, checked against std::complex and timed against std::complex,
// Eigen, a ggml-style scalar loop and memcpy of the same bytes.
//
//   rope_llama3 [output-directory]     (default: the current directory)
//
// Writes rope_llama3.dat and, when gnuplot is installed, rope_llama3.png into
// the output directory. Exits non-zero if realify's result does not match the
// std::complex reference.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <time.h>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>

#include "../benchmarks/rope_baselines.hpp"
#include "realify/rope.hpp"

namespace {

constexpr std::size_t batch = 1, seq = 2048, q_heads = 32, k_heads = 8, head_dim = 128;
constexpr double theta = 500000.0;

using clock_type = std::chrono::steady_clock;

/// CPU time of this thread in milliseconds. The demo may share its cores with
/// other jobs; wall time would then also measure the scheduler.
double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

/// Median thread CPU time in milliseconds of one call of f, over `reps`
/// samples (after one warm-up). Short calls are batched so that each sample
/// lasts ~50 µs or more, well above the clock's resolution.
double median_ms(const std::function<void()>& f, int reps, int calls_per_sample = 1) {
    f();
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
        const double t0 = thread_cpu_ms();
        for (int c = 0; c < calls_per_sample; ++c) f();
        times.push_back((thread_cpu_ms() - t0) / calls_per_sample);
    }
    std::nth_element(times.begin(), times.begin() + reps / 2, times.end());
    return times[reps / 2];
}

void step(const char* text) {
    std::cout << text << std::flush;
}

struct method {
    std::string name;
    std::function<void(const rope_baselines::dims&)> run;
};

int run(int argc, char** argv) {
    const std::string out_dir = argc > 1 ? argv[1] : ".";
    const auto start = clock_type::now();
    const std::string arch(realify::rope::active_arch());  // throws first if REALIFY_SIMD_ARCH is unusable
    std::cout << "realify RoPE demo - Llama-3-8B prefill: batch " << batch << ", seq " << seq << ", " << q_heads
              << " q heads, " << k_heads << " kv heads, head_dim " << head_dim << ", theta " << theta << "\n"
              << "kernels: " << arch
              << " (REALIFY_SIMD_ARCH=sse2|avx2|avx512 forces a lower level)\n\n";

    step("[1/5] building inputs and freqs_cis ... ");
    xt::xtensor<float, 4> xq(std::array<std::size_t, 4>{batch, seq, q_heads, head_dim});
    xt::xtensor<float, 4> xk(std::array<std::size_t, 4>{batch, seq, k_heads, head_dim});
    {
        std::mt19937 gen(2026);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        for (auto& v : xq) v = dist(gen);
        for (auto& v : xk) v = dist(gen);
    }
    const auto freqs = realify::rope::precompute_freqs_cis(head_dim, seq, theta);
    const double mib = static_cast<double>((xq.size() + xk.size()) * sizeof(float)) / (1 << 20);
    std::cout << "xq + xk = " << mib << " MiB\n";

    step("[2/5] realify::rope::apply_rotary_emb ... ");
    xt::xtensor<float, 4> out_q(xq.shape()), out_k(xk.shape());
    realify::rope::apply_rotary_emb(xq, xk, freqs, 0, out_q, out_k);
    std::cout << "done\n";

    step("[3/5] checking against the std::complex<double> reference ... ");
    double max_err = 0;
    {
        const auto* f = freqs.data();
        auto check = [&](const xt::xtensor<float, 4>& x, const xt::xtensor<float, 4>& out, std::size_t heads) {
            const auto* xc = reinterpret_cast<const std::complex<float>*>(x.data());
            const auto* oc = reinterpret_cast<const std::complex<float>*>(out.data());
            const std::size_t half = head_dim / 2;
            for (std::size_t s = 0; s < seq; ++s)
                for (std::size_t h = 0; h < heads; ++h)
                    for (std::size_t j = 0; j < half; ++j) {
                        const std::size_t i = (s * heads + h) * half + j;
                        const std::complex<double> want =
                            std::complex<double>(xc[i]) * std::complex<double>(f[s * half + j]);
                        max_err = std::max(max_err, std::abs(std::complex<double>(oc[i]) - want));
                    }
        };
        check(xq, out_q, q_heads);
        check(xk, out_k, k_heads);
    }
    // In place must give the very same numbers.
    xt::xtensor<float, 4> in_q = xq, in_k = xk;
    realify::rope::apply_rotary_emb(in_q, in_k, freqs, 0, in_q, in_k);
    const bool in_place_same = in_q == out_q && in_k == out_k;
    const double tolerance = 1e-5;  // |x| <= sqrt(2): a few float roundings are ~3e-7
    const bool ok = max_err <= tolerance && in_place_same;
    std::cout << "max abs error " << max_err << " (tolerance " << tolerance << "), in place identical: "
              << (in_place_same ? "yes" : "NO") << " -> " << (ok ? "PASS" : "FAIL") << "\n";

    step("[4/5] timing (median thread CPU time of repeated runs)\n");
    std::vector<float> cos_cache, sin_cache;
    rope_baselines::split_cos_sin(freqs.data(), freqs.size(), cos_cache, sin_cache);
    xt::xtensor<float, 4> scratch_q = xq, scratch_k = xk;
    const std::vector<method> methods = {
        {"memcpy of the same bytes",
         [&](const rope_baselines::dims& d) {
             rope_baselines::copy_bytes(d, xq.data(), xk.data(), out_q.data(), out_k.data());
         }},
        {"realify out-of-place",
         [&](const rope_baselines::dims& d) {
             auto q = xt::adapt(xq.data(), d.q_size(), xt::no_ownership(),
                                std::array<std::size_t, 4>{d.batch, d.seq, d.q_heads, d.head_dim});
             auto k = xt::adapt(xk.data(), d.k_size(), xt::no_ownership(),
                                std::array<std::size_t, 4>{d.batch, d.seq, d.k_heads, d.head_dim});
             auto oq = xt::adapt(out_q.data(), d.q_size(), xt::no_ownership(), q.shape());
             auto ok_ = xt::adapt(out_k.data(), d.k_size(), xt::no_ownership(), k.shape());
             realify::rope::apply_rotary_emb(q, k, freqs, static_cast<std::ptrdiff_t>(d.start_pos), oq, ok_);
         }},
        {"realify in-place",
         [&](const rope_baselines::dims& d) {
             auto q = xt::adapt(scratch_q.data(), d.q_size(), xt::no_ownership(),
                                std::array<std::size_t, 4>{d.batch, d.seq, d.q_heads, d.head_dim});
             auto k = xt::adapt(scratch_k.data(), d.k_size(), xt::no_ownership(),
                                std::array<std::size_t, 4>{d.batch, d.seq, d.k_heads, d.head_dim});
             realify::rope::apply_rotary_emb(q, k, freqs, static_cast<std::ptrdiff_t>(d.start_pos), q, k);
         }},
        {"std::complex (Llama's formula)",
         [&](const rope_baselines::dims& d) {
             rope_baselines::std_complex(d, xq.data(), xk.data(), out_q.data(), out_k.data(), freqs.data());
         }},
        {"Eigen row by row",
         [&](const rope_baselines::dims& d) {
             rope_baselines::eigen_rows(d, xq.data(), xk.data(), out_q.data(), out_k.data(), freqs.data());
         }},
        {"ggml-style scalar loop",
         [&](const rope_baselines::dims& d) {
             rope_baselines::ggml_style(d, xq.data(), xk.data(), out_q.data(), out_k.data(), cos_cache.data(),
                                        sin_cache.data());
         }},
    };

    // Sequence lengths for the plot (decode-like 1 up to the prefill 2048);
    // the last one is the table's.
    const std::vector<std::size_t> lengths = {1, 8, 64, 512, seq};
    std::vector<std::vector<double>> times(methods.size(), std::vector<double>(lengths.size()));
    for (std::size_t l = 0; l < lengths.size(); ++l) {
        const rope_baselines::dims d{batch, lengths[l], q_heads, k_heads, head_dim, 0};
        // 41 samples of at least ~50 µs each per method and length (about
        // 0.25 s per method at the prefill length).
        const double probe = std::max(median_ms([&] { methods[0].run(d); }, 5), 1e-4);
        const int calls = std::clamp(static_cast<int>(0.05 / probe), 1, 10000);
        const int reps = 41;
        std::cout << "      seq " << lengths[l] << ":";
        for (std::size_t m = 0; m < methods.size(); ++m) {
            times[m][l] = median_ms([&] { methods[m].run(d); }, reps, calls);
            std::cout << " ." << std::flush;
        }
        std::cout << "\n";
    }

    const std::size_t last = lengths.size() - 1;
    const double memcpy_ms = times[0][last];
    const double complex_ms = times[3][last];
    std::printf("\n  %-30s %12s %12s %16s\n", "prefill, seq 2048", "median ms", "x memcpy", "vs std::complex");
    for (std::size_t m = 0; m < methods.size(); ++m) {
        std::printf("  %-30s %12.3f %12.2f %15.2fx\n", methods[m].name.c_str(), times[m][last],
                    times[m][last] / memcpy_ms, complex_ms / times[m][last]);
    }
    std::printf("  (x memcpy: time / memcpy time, lower is better; vs std::complex: speed-up, higher is better)\n\n");

    step("[5/5] plot ... ");
    std::filesystem::create_directories(out_dir);
    const std::string dat = out_dir + "/rope_llama3.dat";
    const std::string png = out_dir + "/rope_llama3.png";
    {
        std::ofstream out(dat);
        out << "seq";
        for (const auto& m : methods) out << "\t\"" << m.name << "\"";
        out << "\n";
        for (std::size_t l = 0; l < lengths.size(); ++l) {
            out << lengths[l];
            for (std::size_t m = 0; m < methods.size(); ++m) out << '\t' << times[m][l] * 1000.0;  // microseconds
            out << "\n";
        }
    }
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
        std::cout << "skipped: gnuplot is not installed (scripts/run-demo installs gnuplot-nox); data in " << dat
                  << "\n";
    } else {
        const std::string script = out_dir + "/rope_llama3.gp";
        {
            std::ofstream gp(script);
            gp << "set terminal png size 900,560 noenhanced\n"
               << "set output '" << png << "'\n"
               << "set title 'RoPE, Llama-3-8B heads (32 q, 8 kv, head_dim 128), float, "
               << arch << "'\n"
               << "set xlabel 'sequence length (tokens)'\nset ylabel 'median time (microseconds)'\n"
               << "set logscale xy\nset grid\nset key top left\n"
               << "plot for [i=2:" << methods.size() + 1 << "] '" << dat
               << "' using 1:i with linespoints lw 2 title columnheader(i)\n";
        }
        if (std::system(("gnuplot '" + script + "'").c_str()) == 0) {
            std::cout << "wrote " << png << "\n";
        } else {
            std::cout << "skipped: gnuplot failed; data in " << dat << "\n";
        }
    }

    const double seconds = std::chrono::duration<double>(clock_type::now() - start).count();
    std::cout << "\n" << (ok ? "OK" : "MISMATCH") << " - finished in " << seconds << " s\n";
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        // e.g. REALIFY_SIMD_ARCH naming a level this CPU lacks
        std::cerr << "\nrope_llama3: " << e.what() << "\n";
        return 2;
    }
}
