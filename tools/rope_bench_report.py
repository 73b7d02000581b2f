#!/usr/bin/python3
"""Turns a bench_rope JSON run into docs/benchmarks_rope.md and its plot.

    build/rope/benchmarks/bench_rope --benchmark_repetitions=5 \\
        --benchmark_report_aggregates_only=true \\
        --benchmark_out=rope.json --benchmark_out_format=json
    tools/rope_bench_report.py rope.json

writes docs/benchmarks_rope.md and docs/benchmarks_rope.png, and the same
tables as the RoPE section of docs/benchmarks.md (between the
<!-- rope:begin --> / <!-- rope:end --> markers; other sections are kept).

Medians of the repetitions are used; every ratio is taken within this one run.
The plot needs gnuplot (scripts/ensure-packages gnuplot-nox); without it the
script stops before writing anything.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
METHODS = [
    ("realify_out_of_place", "realify out-of-place"),
    ("realify_in_place", "realify in-place"),
    ("std_complex", "std::complex (Llama's formula)"),
    ("ggml_style", "ggml-style scalar loop"),
    ("eigen_rows", "Eigen row by row"),
    ("memcpy_same_bytes", "memcpy of the same bytes"),
]
SHAPES = [("seq:2048/start_pos:0", "prefill (seq 2048)"), ("seq:1/start_pos:4095", "decode (seq 1, start_pos 4095)")]


def caches(ctx):
    parts = []
    for c in ctx.get("caches", []):
        size = c["size"] // 1024
        parts.append(f"L{c['level']} {c['type'][0].lower()} {size // 1024} MiB" if size >= 1024
                     else f"L{c['level']} {c['type'][0].lower()} {size} KiB")
    return ", ".join(parts) or "unknown"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        run = json.load(f)
    medians = {}
    for b in run["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        name = b["run_name"]
        method, shape = name.split("/", 1)
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]
        # CPU time: the two cores are shared with compile jobs, so wall time
        # would also measure the scheduler (as in tools/bench_report.py).
        medians[(method, shape)] = b["cpu_time"] * scale  # microseconds
    ctx = run["context"]
    # realify on the level chosen at run time, then forced onto each level (name@level)
    levels = [l for l in ("sse2", "avx2", "avx512") if any(m == f"realify_in_place@{l}" for m, _ in medians)]
    titles = {"sse2": "SSE2", "avx2": "AVX2", "avx512": "AVX-512"}
    methods = []
    for key, label in METHODS:
        methods.append((key, label))
        if key.startswith("realify"):
            methods += [(f"{key}@{l}", f"{label}, {titles[l]}") for l in levels]
    picked = ", ".join(f"{f} `{ctx[f'realify_arch_{f}']}`" for f in ("rope", "multiply", "elementwise", "gemm")
                       if f"realify_arch_{f}" in ctx)

    lines = [
        "# RoPE benchmarks",
        "",
        "Llama-3-8B heads (32 q heads, 8 kv heads, head_dim 128), float32, theta 500000;",
        "prefill = batch 1, seq 2048, start_pos 0 (40 MiB in, 40 MiB out);",
        "decode = batch 1, seq 1, start_pos 4095 (20 KiB in, 20 KiB out).",
        "Source: `benchmarks/bench_rope.cpp` (competitors in `benchmarks/rope_baselines.cpp`,",
        "compiled with `-march=native`; realify is built without `-march` and picks its",
        "kernel at run time; the rows marked SSE2, AVX2, AVX-512 force it onto each",
        "instruction set the machine has (`realify::simd::scoped_arch`).",
        "Regenerate with `tools/rope_bench_report.py` (see its header)."
        + (f" The level chosen per family: {picked}." if picked else ""),
        "",
        f"Machine: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz; realify ran its "
        f"`{ctx.get('realify_arch', 'unrecorded')}` kernels; caches {caches(ctx)}; run {ctx.get('date')}, "
        "bench_rope built Release. "
        "The machine is shared with other jobs, so absolute times are noisy; median CPU times of "
        f"{run['benchmarks'][0].get('repetitions', '?')} repetitions, ratios within this one run.",
        "",
    ]
    for shape, title in SHAPES:
        mem = medians.get(("memcpy_same_bytes", shape))
        ref = medians.get(("std_complex", shape))
        lines += [f"## {title}", "", "| method | median µs | time / memcpy | speed-up vs std::complex |",
                  "|---|---:|---:|---:|"]
        for key, label in methods:
            t = medians.get((key, shape))
            if t is None:
                continue
            lines.append(f"| {label} | {t:.3f} | {t / mem:.2f} | {ref / t:.2f}× |")
        lines.append("")

    def ratio(method, shape, base):
        return medians[(method, shape)] / medians[(base, shape)]

    pre, dec = SHAPES[0][0], SHAPES[1][0]
    targets = []
    for suffix, where in [("", "")] + [(f"@{l}", f", {titles[l]}") for l in levels]:
        out, inplace = "realify_out_of_place" + suffix, "realify_in_place" + suffix
        targets += [
            (f"prefill out-of-place ≤ 1.05 × memcpy{where}", ratio(out, pre, "memcpy_same_bytes"), 1.05, "le"),
            (f"prefill in-place ≤ 0.85 × memcpy{where}", ratio(inplace, pre, "memcpy_same_bytes"), 0.85, "le"),
            (f"prefill ≥ 1.6 × faster than std::complex{where}", 1 / ratio(out, pre, "std_complex"), 1.6, "ge"),
            (f"decode ≥ 2 × faster than std::complex{where}", 1 / ratio(out, dec, "std_complex"), 2.0, "ge"),
        ]
    lines += ["## Targets", "", "| target | measured | met |", "|---|---:|:---:|"]
    for text, value, bound, kind in targets:
        met = value <= bound if kind == "le" else value >= bound
        lines.append(f"| {text} | {value:.2f} | {'yes' if met else 'NO'} |")
    lines += ["",
              "In place moves the same bytes as out-of-place minus the separate output stream",
              "(no read-for-ownership, no second set of lines), which is why it beats memcpy;",
              "out-of-place reaches memcpy speed at prefill through streaming stores. At decode",
              "(20 KiB, in cache) the work is a few hundred nanoseconds of arithmetic and call",
              "overhead, so memcpy stays ahead; there realify is compared with the alternatives.",
              "", "![RoPE benchmark](benchmarks_rope.png)", ""]

    png = os.path.join(ROOT, "docs", "benchmarks_rope.png")
    if shutil.which("gnuplot"):
        with tempfile.TemporaryDirectory() as tmp:
            dat = os.path.join(tmp, "rope.dat")
            with open(dat, "w") as f:
                f.write("method prefill decode\n")
                for key, label in methods:
                    f.write('"{}" {:.4f} {:.4f}\n'.format(label, ratio(key, pre, "memcpy_same_bytes"),
                                                         ratio(key, dec, "memcpy_same_bytes")))
            script = f"""
set terminal png size 900,520 noenhanced
set output '{png}'
set title 'RoPE, Llama-3-8B heads, float32: time relative to memcpy of the same bytes (lower is better)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -20
set ylabel 'time / memcpy time'
set yrange [0:*]
set grid ytics
set key top left
plot '{dat}' using 2:xtic(1) title 'prefill (seq 2048)', '' using 3 title 'decode (seq 1, pos 4095)'
"""
            subprocess.run(["gnuplot"], input=script, text=True, check=True)
    else:
        sys.exit("rope_bench_report: gnuplot is required for the plot (Debian: gnuplot-nox; "
                 "scripts/run-benchmarks installs it)")
    with open(os.path.join(ROOT, "docs", "benchmarks_rope.md"), "w") as f:
        f.write("\n".join(lines))
    # The section in docs/benchmarks.md: same content, one heading level down.
    section = [("#" + l if l.startswith("#") else l) for l in lines]
    section[0] = "## RoPE (Llama-3-8B shapes)"
    section += ["Full page: [benchmarks_rope.md](benchmarks_rope.md).", ""]
    upsert_section(os.path.join(ROOT, "docs", "benchmarks.md"), "\n".join(section))
    print("\n".join(lines))


BEGIN = "<!-- rope:begin -->"
END = "<!-- rope:end -->"


def upsert_section(path, body):
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    block = f"{BEGIN}\n\n{body}\n{END}"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
