#!/usr/bin/python3
"""One Llama decoder layer at TinyLlama-1.1B's shapes (dim 2048, 32 query
heads, 4 key/value heads, head_dim 64, SwiGLU 5632, RMSNorm, RoPE θ 10000,
float32): realify (examples/llama_layer.cpp, its --bench mode) against
PyTorch (tools/llama_reference.py: Meta's model.py structure) on the same
thread counts, a prefill of 256 tokens (causal mask) and a decode step of one
token against a 256-token KV cache — run by hand (CI never needs PyTorch):

    cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release
    cmake --build build/bench --target llama_layer
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 tools/llama_bench.py build/bench [--threads 1 2]

Each thread count runs in processes of its own: PyTorch with
torch.set_num_threads(t) and OPENBLAS_NUM_THREADS=t (Debian's PyTorch runs its
products on OpenBLAS threads that set_num_threads does not bound), realify
with OMP_NUM_THREADS=t. Both sides time rounds of prefill and decode
alternately and report medians; the script prints realify ÷ PyTorch per
phase and thread count (< 1: realify faster), from this one run. With
--write docs/benchmarks.md it replaces that file's section between the
<!-- llama:begin --> / <!-- llama:end --> markers.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROMPT, CACHED = 256, 256


def torch_side(threads, repetitions):
    """Runs in a child process (OPENBLAS_NUM_THREADS must be set before torch loads)."""
    import torch
    sys.path.insert(0, HERE)
    from llama_reference import TINYLLAMA, Layer
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(7)
    layer = Layer(TINYLLAMA, g)
    x_prompt = torch.randn(1, PROMPT, TINYLLAMA.dim, generator=g)
    x_token = torch.randn(1, 1, TINYLLAMA.dim, generator=g)
    phases = {"prefill": lambda: layer.forward(x_prompt, 0), "decode": lambda: layer.forward(x_token, CACHED)}
    samples = {name: [] for name in phases}
    with torch.no_grad():
        layer.forward(x_prompt, 0)  # fills the cache the decode step reads (positions 0…255)
        for f in phases.values():
            f()
        for _ in range(repetitions):
            for name, f in phases.items():
                calls, start = 0, time.perf_counter()
                while True:
                    f()
                    calls += 1
                    elapsed = time.perf_counter() - start
                    if elapsed > 0.2 and calls >= 2:
                        break
                samples[name].append(elapsed / calls)
    for name, v in samples.items():
        print(f"{name} {statistics.median(v)!r}")


def parse(text):
    result = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("prefill", "decode"):
            result[parts[0]] = float(parts[1])
    return result


def measure(command, env_threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(env_threads), OPENBLAS_NUM_THREADS=str(env_threads))
    for variable in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(variable, None)
    return parse(subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", nargs="?", help="a Release build tree with examples/llama_layer built")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, os.cpu_count()])
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--write", metavar="MARKDOWN", help="replace the Llama section of this file (docs/benchmarks.md)")
    parser.add_argument("--note", default="", help="a sentence on the run written under the section's title")
    parser.add_argument("--torch-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_child is not None:
        return torch_side(args.torch_child, args.repetitions)
    if args.build is None:
        parser.error("the build tree is required")
    binary = os.path.join(args.build, "examples", "llama_layer")
    rows = []
    for t in sorted(set(args.threads)):
        theirs = measure([sys.executable, os.path.abspath(__file__), "--torch-child", str(t),
                          "--repetitions", str(args.repetitions)], t)
        mine = measure([binary, "--bench", "--threads", str(t), "--repetitions", str(args.repetitions)], t)
        rows.append((t, mine, theirs))
    lines = ["| threads | phase | realify | PyTorch 1.13 | realify ÷ PyTorch |", "|---|---|---|---|---|"]
    for t, mine, theirs in rows:
        for phase in ("prefill", "decode"):
            a, b = mine.get(phase), theirs.get(phase)
            ratio = f"{a / b:.2f}" if a and b else "—"
            lines.append(f"| {t} | {phase} | {a * 1e3:.2f} ms | {b * 1e3:.2f} ms | {ratio} |" if a and b else
                         f"| {t} | {phase} | — | — | — |")
    text = "\n".join(lines)
    print(text)
    if args.write:
        sys.path.insert(0, HERE)
        from pathlib import Path
        from bench_report import write_section
        intro = ("## A Llama decoder layer\n\nGenerated by `tools/llama_bench.py`: `examples/llama_layer.cpp` "
                 "(`--bench`) against PyTorch running the same layer (`tools/llama_reference.py`, the structure of "
                 "Meta's model.py) at TinyLlama-1.1B's shapes — dim 2048, 32 query heads, 4 key/value heads, "
                 "SwiGLU 5632, float32 — a prefill of 256 tokens and a decode step against a 256-token cache; "
                 "medians of interleaved rounds, both sides on the same thread count.\n\n"
                 + (args.note + "\n\n" if args.note else ""))
        write_section(Path(args.write), "<!-- llama:begin -->\n\n" + intro + text + "\n\n<!-- llama:end -->",
                      "<!-- llama:begin -->", "<!-- llama:end -->")


if __name__ == "__main__":
    main()
