#!/usr/bin/python3
"""realify's fused attention and linear against PyTorch 1.13 at TinyLlama's
shapes — run by hand (CI never needs PyTorch):

    cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release
    cmake --build build/bench --target bench_layers
    /usr/bin/python3 tools/attention_vs_torch.py build/bench [--threads N] [--repetitions R]

It runs bench_layers (benchmarks/bench_layers.cpp: attention/{prefill,decode}/
{fused,materialised,graph}, linear/{prefill,decode}/{linear,
matmul_pretransposed,graph_linear,graph_matmul}) on N threads
(OMP_NUM_THREADS), then times PyTorch (Debian's python3-torch, 1.13, with
torch.set_num_threads(N)) on the same shapes: PyTorch 1.13 has no
F.scaled_dot_product_attention, so attention is its documented formula,
softmax(q @ kᵀ · scale + mask) @ v (what a model written for 1.13 does), and
linear is F.linear. It prints, from this one run, medians of interleaved
repetitions:

  * fused ÷ materialised (realify's einsum + softmax + einsum), prefill and decode;
  * fused ÷ PyTorch's formula, prefill and decode;
  * graph ÷ eager; linear ÷ matmul on a pre-transposed weight; linear ÷ F.linear.

(< 1: the first is faster.) On one thread the times are CPU times (of the
calling thread; PyTorch's process), which other work on a shared machine
disturbs least; on N threads, real times. Unset OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE in the
environment first: they slow OpenBLAS (which both realify and PyTorch use).
"""
import argparse
import math
import os
import statistics
import sys
import time

import json
import subprocess
import tempfile

HEADS, HEAD_DIM, KEYS, DIM = 32, 64, 256, 2048


def run_benchmark(binary, repetitions, cpu):
    """Medians (seconds) of bench_layers' interleaved repetitions: CPU time of
    the calling thread (cpu: one thread, robust on a shared machine) or real
    time; keys without the argument (attention/prefill/fused)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([binary, "--benchmark_enable_random_interleaving=true", f"--benchmark_repetitions={repetitions}",
                        "--benchmark_min_time=0.2", f"--benchmark_out={out.name}", "--benchmark_out_format=json"],
                       check=True, stdout=subprocess.DEVNULL)
        data = json.load(open(out.name))
    samples = {}
    for b in data["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        name = b["run_name"].replace("/real_time", "").rsplit("/", 1)[0]
        samples.setdefault(name, []).append(b["cpu_time" if cpu else "real_time"] * scale)
    return {name: statistics.median(v) for name, v in samples.items()}


def torch_times(threads, repetitions, cpu):
    import torch
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(1)
    cases = {}
    for shape, L in (("prefill", 256), ("decode", 1)):
        q = torch.randn(1, HEADS, L, HEAD_DIM, generator=g)
        k = torch.randn(1, HEADS, KEYS, HEAD_DIM, generator=g)
        v = torch.randn(1, HEADS, KEYS, HEAD_DIM, generator=g)
        mask = torch.full((L, KEYS), float("-inf")).triu(1) if L > 1 else torch.zeros(L, KEYS)
        scale = 1 / math.sqrt(HEAD_DIM)

        def formula(q=q, k=k, v=v, mask=mask, scale=scale):
            scores = q @ k.transpose(-2, -1) * scale + mask
            return torch.softmax(scores, dim=-1) @ v
        cases[f"attention/{shape}"] = formula
        x = torch.randn(1, L if L > 1 else 1, DIM, generator=g)
        w = torch.randn(DIM, DIM, generator=g)
        cases[f"linear/{shape}"] = lambda x=x, w=w: torch.nn.functional.linear(x, w)
    samples = {name: [] for name in cases}
    with torch.no_grad():
        for f in cases.values():
            f()
        for _ in range(repetitions):  # alternate between the cases
            for name, f in cases.items():
                clock = time.process_time if cpu else time.perf_counter
                n, start = 0, clock()
                while True:
                    f()
                    n += 1
                    elapsed = clock() - start
                    if elapsed > 0.2:
                        break
                samples[name].append(elapsed / n)
    return {name: statistics.median(v) for name, v in samples.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", help="a build tree with benchmarks/bench_layers")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--repetitions", type=int, default=9)
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    binary = os.path.join(args.build, "benchmarks", "bench_layers")
    cpu = args.threads == 1
    ours = run_benchmark(binary, args.repetitions, cpu)
    theirs = torch_times(args.threads, args.repetitions, cpu)
    print(f"{args.threads} thread(s); medians of {args.repetitions} interleaved repetitions of "
          f"{'CPU' if cpu else 'real'} time; ratios < 1: the first is faster")
    for shape in ("prefill", "decode"):
        a = f"attention/{shape}"
        print(f"{a}: fused {ours[a + '/fused'] * 1e6:.1f} us, materialised {ours[a + '/materialised'] * 1e6:.1f} us, "
              f"PyTorch formula {theirs[a] * 1e6:.1f} us")
        print(f"  fused / materialised {ours[a + '/fused'] / ours[a + '/materialised']:.2f}, "
              f"fused / PyTorch {ours[a + '/fused'] / theirs[a]:.2f}, graph / eager {ours[a + '/graph'] / ours[a + '/fused']:.2f}")
        lin = f"linear/{shape}"
        print(f"{lin}: linear {ours[lin + '/linear'] * 1e6:.1f} us, matmul on wT {ours[lin + '/matmul_pretransposed'] * 1e6:.1f} us, "
              f"F.linear {theirs[lin] * 1e6:.1f} us")
        print(f"  linear / matmul_pretransposed {ours[lin + '/linear'] / ours[lin + '/matmul_pretransposed']:.2f}, "
              f"graph_linear / graph_matmul {ours[lin + '/graph_linear'] / ours[lin + '/graph_matmul']:.2f}, "
              f"linear / F.linear {ours[lin + '/linear'] / theirs[lin]:.2f}")


if __name__ == "__main__":
    main()
