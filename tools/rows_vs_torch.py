#!/usr/bin/python3
"""realify's softmax, log_softmax, layer_norm, rms_norm and activations against
PyTorch's CPU kernels, in ONE process, interleaved (this machine is shared:
only ratios taken within one run mean anything).

    /usr/bin/python3 tools/rows_vs_torch.py <build-dir> [rows cols repetitions]

It compiles a small shim (realify's eager ops on float32 pointers, C ABI)
against include/ and <build-dir>/src/simd/librealify_simd.a, loads it with
ctypes, and times each op on the same tensor with both libraries on one
thread (torch.set_num_threads(1): realify is single-threaded), alternating
them; it prints the median of each and realify / PyTorch. The call overhead
of ctypes (about 1 µs) is counted against realify. PyTorch 1.13 (Debian's
python3-torch); never run by CI.
"""

import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SHIM = r"""
#include <cstddef>
#include <vector>
#include <xtensor/xadapt.hpp>
#include "realify/eager.hpp"
namespace {
auto adapt(float* p, std::size_t rows, std::size_t cols) {
    return xt::adapt(p, rows * cols, xt::no_ownership(), std::vector<std::size_t>{rows, cols});
}
auto adapt(float* p, std::size_t n) { return xt::adapt(p, n, xt::no_ownership(), std::vector<std::size_t>{n}); }
}  // namespace
extern "C" {
void softmax(float* x, float* y, std::size_t r, std::size_t c) {
    auto out = adapt(y, r, c);
    realify::softmax(adapt(x, r, c), -1, realify::out(out));
}
void log_softmax(float* x, float* y, std::size_t r, std::size_t c) {
    auto out = adapt(y, r, c);
    realify::log_softmax(adapt(x, r, c), -1, realify::out(out));
}
void layer_norm(float* x, float* w, float* b, float* y, std::size_t r, std::size_t c) {
    auto out = adapt(y, r, c);
    realify::layer_norm(adapt(x, r, c), {std::ptrdiff_t(c)}, adapt(w, c), adapt(b, c), 1e-5, realify::out(out));
}
void rms_norm(float* x, float* w, float* y, std::size_t r, std::size_t c) {
    auto out = adapt(y, r, c);
    realify::rms_norm(adapt(x, r, c), {std::ptrdiff_t(c)}, adapt(w, c), 1e-6, realify::out(out));
}
void gelu(float* x, float* y, std::size_t r, std::size_t c) {
    auto out = adapt(y, r, c);
    realify::gelu(adapt(x, r, c), realify::out(out));
}
void gelu_tanh(float* x, float* y, std::size_t r, std::size_t c) {
    auto out = adapt(y, r, c);
    realify::gelu(adapt(x, r, c), "tanh", realify::out(out));
}
void sigmoid(float* x, float* y, std::size_t r, std::size_t c) {
    auto out = adapt(y, r, c);
    realify::sigmoid(adapt(x, r, c), realify::out(out));
}
}
"""


def build(build_dir):
    lib = os.path.join(build_dir, "src", "simd", "librealify_simd.a")
    work = tempfile.mkdtemp(prefix="realify_rows_")
    source = os.path.join(work, "shim.cpp")
    with open(source, "w") as f:
        f.write(SHIM)
    target = os.path.join(work, "shim.so")
    subprocess.run(["g++", "-std=c++20", "-O2", "-DNDEBUG", "-shared", "-fPIC", "-I", os.path.join(ROOT, "include"),
                    source, lib, "-o", target], check=True)
    return ctypes.CDLL(target)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows, cols, reps = (int(a) for a in (sys.argv[2:5] + ["64", "4096", "30"][len(sys.argv) - 2:]))
    torch.set_num_threads(1)
    shim = build(sys.argv[1])
    x = torch.randn(rows, cols) * 2
    w = 1 + 0.01 * torch.arange(cols, dtype=torch.float32).remainder(7)
    b = 0.001 * torch.arange(cols, dtype=torch.float32).remainder(5)
    y = torch.empty_like(x)
    p = lambda t: ctypes.c_void_p(t.data_ptr())
    r, c = ctypes.c_size_t(rows), ctypes.c_size_t(cols)
    F = torch.nn.functional
    cases = [
        ("softmax", lambda: shim.softmax(p(x), p(y), r, c), lambda: torch.softmax(x, -1)),
        ("log_softmax", lambda: shim.log_softmax(p(x), p(y), r, c), lambda: torch.log_softmax(x, -1)),
        ("layer_norm", lambda: shim.layer_norm(p(x), p(w), p(b), p(y), r, c), lambda: F.layer_norm(x, (cols,), w, b, 1e-5)),
        ("rms_norm (Llama's formula in PyTorch)", lambda: shim.rms_norm(p(x), p(w), p(y), r, c),
         lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w),
        ("gelu", lambda: shim.gelu(p(x), p(y), r, c), lambda: F.gelu(x)),
        ("gelu tanh", lambda: shim.gelu_tanh(p(x), p(y), r, c), lambda: F.gelu(x, approximate="tanh")),
        ("sigmoid", lambda: shim.sigmoid(p(x), p(y), r, c), lambda: torch.sigmoid(x, out=y)),
    ]
    print(f"({rows}, {cols}) float32, one thread, {reps} interleaved repetitions of 20 calls; medians")
    print(f"{'op':40s} {'realify µs':>11s} {'PyTorch µs':>11s} {'realify/PyTorch':>16s}")
    for name, ours, theirs in cases:
        times = {"ours": [], "theirs": []}
        for _ in range(3):  # warm up
            ours(), theirs()
        for _ in range(reps):
            for key, f in (("ours", ours), ("theirs", theirs)):
                t0 = time.perf_counter()
                for _ in range(20):
                    f()
                times[key].append((time.perf_counter() - t0) / 20)
        a, t = statistics.median(times["ours"]), statistics.median(times["theirs"])
        print(f"{name:40s} {a * 1e6:11.1f} {t * 1e6:11.1f} {a / t:16.2f}")


if __name__ == "__main__":
    main()
