#!/usr/bin/python3
"""Turn bench_gemm's Google Benchmark JSON into the matrix-product section of docs.

Usage (from the repository root, after a Release build in build/release;
Debian's /usr/bin/python3, with python3-matplotlib for the plot):

    build/release/benchmarks/bench_gemm --benchmark_filter='^(square|batch32)/' \\
        --benchmark_min_time=0.2 --benchmark_repetitions=5 \\
        --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \\
        --benchmark_out=gemm.json --benchmark_out_format=json
    tools/gemm_bench_report.py gemm.json        # --time cpu on a shared machine

writes the "Matrix products" section of docs/benchmarks.md (between the
`<!-- gemm:begin -->` / `<!-- gemm:end -->` markers; other sections are
kept) and the plot docs/benchmarks_gemm.png. Runs of the `small`, `mv` and
`dot` families (the direct-loop threshold) add their tables when present,
and runs of `linear` (a decoder layer's real float x·Wᵀ on 1 and all
threads, always in real time) the decoder-layer table:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE build/release/benchmarks/bench_gemm \
        --benchmark_filter='^linear/' --benchmark_min_time=0.3 --benchmark_repetitions=5 \
        --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
        --benchmark_out=linear.json --benchmark_out_format=json
    tools/gemm_bench_report.py --time cpu gemm.json linear.json

Times are medians (the `median` aggregate, else the median of the runs);
every ratio is taken within the one run.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench_report import (LEVEL_TITLES, LEVELS, dispatch_note, fmt_time, median_times, plot_link, pyplot,
                          report_arguments, write_section)

BEGIN = "<!-- gemm:begin -->"
END = "<!-- gemm:end -->"

# implementation -> column title, in display order
COLUMNS = {
    "realify": "realify (automatic)",
    "realify_1m": "realify 1m",
    "realify_4m": "realify 4m",
    "realify_3m": "realify 3m",
    "blas_complex": "BLAS complex (cgemm/zgemm)",
    "eigen_complex": "Eigen complex",
    "realify_real_same_flops": "realify real GEMM, same flops",
    "eigen_real_ceiling": "Eigen real, same flops",
    "std_complex_loop": "std::complex loop",
}
AVX2_COLUMNS = {
    "realify@avx2": "realify (automatic), AVX2",
    "realify_3m@avx2": "realify 3m, AVX2",
    "eigen_complex_avx2": "Eigen complex, AVX2",
    "eigen_real_ceiling_avx2": "Eigen real same flops, AVX2",
}
DTYPES = {"c64": "complex<float>", "c128": "complex<double>"}
# Targets (time ÷ the faster of Eigen's and the BLAS's complex product, one
# thread): automatic ≤ 1.0 for n = 128 … 1024, 3m ≤ 0.85 for n ≥ 256.
AUTOMATIC_TARGET, AUTOMATIC_FROM = 1.0, 128
THREE_M_TARGET, THREE_M_FROM = 0.85, 256


def level_columns(medians):
    """realify and realify_3m forced onto each level: {implementation: title}."""
    names = {k[1] for k in medians}
    columns = {}
    for level in LEVELS:
        for base, label in (("realify", "realify (automatic)"), ("realify_3m", "realify 3m")):
            if f"{base}@{level}" in names:
                columns[f"{base}@{level}"] = f"{label}, {LEVEL_TITLES[level]}"
    return columns


def load_linear(paths):
    """{(implementation, "m×n×k", threads): median µs of real time}."""
    def key_of(parts):
        if len(parts) < 4 or parts[0] != "linear" or not parts[3].isdigit():
            return None
        return parts[1], parts[2].replace("x", "×"), int(parts[3])
    return median_times(paths, "real_time", key_of)[0]


LINEAR_LIBRARIES = ("eigen", "openblas", "blis", "mkl", "onednn")


def linear_section(linear, context):
    """The decoder layer's x·Wᵀ: times, realify ÷ the fastest library, the speed-up on all threads,
    and the matrix-vector product's bandwidth ÷ a copy of W."""
    if not linear:
        return []
    shapes = list(dict.fromkeys(k[1] for k in linear))
    threads = sorted({k[2] for k in linear})
    most = threads[-1]
    names = [n for n in ("realify",) + LINEAR_LIBRARIES + ("copy",) if any(k[0] == n for k in linear)]
    lines = ["### A decoder layer's products: real float x·Wᵀ", "",
             "TinyLlama-1.1B shapes (m tokens × n outputs × k inputs; W n × k row-major, read "
             "transposed as `torch.nn.functional.linear` does): realify (`realify::mm(x, "
             "realify::transpose_view(W), realify::out(C))`) and each library called directly on t "
             "threads of its own (OpenBLAS's setting, OpenMP's for oneDNN; Eigen on one thread; "
             "OpenBLAS's `sgemv` for one row, `dnnl_sgemm` otherwise), and `memcpy` of W split over "
             "the threads for the matrix-vector shapes. Median wall time of one interleaved run.", ""]
    for key in sorted(context):
        if key.startswith("realify_linear_"):
            lines.append(f"- realify, {key[len('realify_linear_'):].replace('x', '×')}: {context[key]}")
    lines += ["", "| m × n × k | t | " + " | ".join(names) + " |", "|---" * (len(names) + 2) + "|"]
    for shape in shapes:
        for t in threads:
            cells = []
            for n in names:
                v = linear.get((n, shape, t))
                cells.append("–" if v is None else fmt_time(v))
            lines.append(f"| {shape} | {t} | " + " | ".join(cells) + " |")
    lines += ["", f"| m × n × k | realify ÷ fastest library, 1 thread | realify ÷ fastest library, {most} "
              f"threads | realify's speed-up, {most} threads ÷ 1 | realify's bandwidth ÷ copy's, 1 thread | "
              f"realify's bandwidth ÷ copy's, {most} threads |", "|---|---|---|---|---|---|"]
    for shape in shapes:
        def best(t):
            times = [linear[(n, shape, t)] for n in LINEAR_LIBRARIES if (n, shape, t) in linear]
            return min(times) if times else None
        def ratio(a, b, fmt="{:.2f}"):
            return "–" if a is None or b is None else fmt.format(a / b)
        mine = {t: linear.get(("realify", shape, t)) for t in threads}
        copy = {t: linear.get(("copy", shape, t)) for t in threads}
        lines.append(f"| {shape} | {ratio(mine[1], best(1))} | {ratio(mine[most], best(most))} | "
                     f"{ratio(mine[1], mine[most], '{:.2f}×')} | {ratio(copy[1], mine[1])} | "
                     f"{ratio(copy[most], mine[most])} |")
    return lines + [""]


def load(paths, time_field):
    """{(family, implementation, dtype, n): median µs}, context."""
    return median_times(paths, time_field,
                        lambda parts: (parts[0], parts[1], parts[2], int(parts[3])) if len(parts) == 4 else None)


def flops(family, n):
    if family == "batch32":
        return 32 * 8.0 * n**3
    if family == "mv":
        return 8.0 * n * n
    if family == "dot":
        return 8.0 * n
    return 8.0 * n**3


def check(ratio, target):
    if target is None:
        return f"{ratio:.2f}"
    return f"{ratio:.2f} {'✓' if ratio <= target else '✗'}"


def times_table(medians, family, dtype, columns):
    sizes = sorted({k[3] for k in medians if k[0] == family and k[2] == dtype and k[1] in columns})
    present = [c for c in columns if any((family, c, dtype, n) in medians for n in sizes)]
    if not sizes or not present:
        return []
    lines = ["| n | " + " | ".join(columns[c] for c in present) + " |", "|---" * (len(present) + 1) + "|"]
    for n in sizes:
        cells = []
        for c in present:
            t = medians.get((family, c, dtype, n))
            cells.append("–" if t is None else f"{fmt_time(t)} ({flops(family, n) / (t * 1e-6) / 1e9:.0f} GF/s)")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return lines + [""]


def ratio_table(medians, family, dtype, methods, bases, extras=()):
    """Each method's time ÷ the fastest of `bases` (with the targets), then the `extras`
    (title, numerator, denominator, format)."""
    def t(name, n):
        return medians.get((family, name, dtype, n))

    def best(n):
        times = [t(b, n) for b in bases if t(b, n) is not None]
        return min(times) if times else None

    sizes = sorted({k[3] for k in medians if k[0] == family and k[2] == dtype and k[1] in bases})
    methods = [m for m in methods if any(t(m[0], n) is not None for n in sizes)]
    if not sizes or not methods:
        return []
    base_title = " / ".join(COLUMNS.get(b, b) for b in bases if any(t(b, n) for n in sizes))
    header = [f"{label} ÷ best" for _, label, _, _ in methods] + [e[0] for e in extras]
    lines = [f"Ratios of times; \"best\" is the faster of {base_title} at each size:", "",
             "| n | " + " | ".join(header) + " |", "|---" * (len(header) + 1) + "|"]
    for n in sizes:
        base = best(n)
        cells = []
        for name, _, target, from_n in methods:
            mine = t(name, n)
            applies = target is not None and (family == "batch32" or n >= from_n)
            cells.append("–" if mine is None or base is None else check(mine / base, target if applies else None))
        for _, numerator, denominator, fmt in extras:
            a, b = t(numerator, n), t(denominator, n)
            cells.append("–" if a is None or b is None else fmt.format(a / b))
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return lines + [""]


def default_methods(suffix=""):
    return [("realify" + suffix, "automatic", AUTOMATIC_TARGET, AUTOMATIC_FROM),
            ("realify_1m" + suffix, "1m", None, None), ("realify_4m" + suffix, "4m", None, None),
            ("realify_3m" + suffix, "3m", THREE_M_TARGET, THREE_M_FROM)]


def build_markdown(medians, context, plot_name, time_field, linear=None):
    lines = [BEGIN, "", "## Matrix products", ""]
    lines.append(
        "Generated by `tools/gemm_bench_report.py` from `bench_gemm` (Google Benchmark JSON; one run, "
        "candidates interleaved). "
        + ("Median wall time" if time_field == "real_time" else
           "Median CPU time (`--time cpu`: the machine was shared with compile jobs)")
        + " per call of `realify::mm` / `realify::bmm` (row-major `xt::xtensor<std::complex<T>, 2>` "
        "operands, into a preallocated result: `realify::out`), of Eigen 3.4's `C.noalias() = A * B` on "
        "`MatrixXcf` / `MatrixXcd` (preallocated C) and, when realify_gemm was built with a BLAS, of that "
        "BLAS's `cblas_cgemm` / `cblas_zgemm` on one thread"
        + (f" ({context['blas_name']}"
           + (f", running its `{context['blas_core']}` kernels" if context.get("blas_core") else "") + ")"
           if context.get("blas_name") else "")
        + ". GF/s counts 8·m·n·k flops per complex product. \"Same flops\" is "
        "the real product (n × 2n)·(2n × 2n), the one 1m hands to the real GEMM: by realify's own real "
        "GEMM (`realify::mm` of two real tensors) and by Eigen's `MatrixXf` / "
        "`MatrixXd` — the ceiling an induced method can reach. Competitors are compiled with `-march=native`; "
        "realify is the `realify_simd` library built without `-march`, choosing its instruction set at run time "
        "(`realify`, `realify 3m`, …), and forced onto each instruction set the machine has (columns "
        "marked SSE2, AVX2, AVX-512: Eigen's GEMM built for that level, never the BLAS). "
        + dispatch_note(context)
        + f" Targets (ratio of times to the faster of Eigen's and the BLAS's complex product, lower is "
        f"better): automatic ≤ {AUTOMATIC_TARGET} for n ≥ {AUTOMATIC_FROM}, 3m ≤ {THREE_M_TARGET} for "
        f"n ≥ {THREE_M_FROM}."
    )
    lines += [
        "",
        "How to read the ratios: an induced method runs at the speed of the real GEMM under it, so it "
        "beats a complex product only where the real GEMM is faster than the complex one at the same "
        "flop count — column \"realify real GEMM ÷ Eigen complex\" (and \"Eigen real ÷ Eigen complex\"). "
        "Built for AVX2 + FMA that is the case by a factor of two or more (last tables). With AVX-512 "
        "(`-march=native` on an AVX-512 CPU) Eigen's complex GEMM already runs at the speed of its real "
        "one, close to the FMA peak: there 1m on Eigen stays near 1.0 of it and 3m's quarter fewer flops "
        "is the gain left; with a BLAS that suits the CPU the default is that BLAS's own complex GEMM. "
        "docs/numerics.md (\"Which method runs\", \"Which backend runs\") explains the choices.",
    ]
    lines += [
        "",
        "Regenerate (Release build in build/release):",
        "",
        "```sh",
        "build/release/benchmarks/bench_gemm --benchmark_filter='^(square|batch32)/' \\",
        "    --benchmark_min_time=0.2 --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \\",
        "    --benchmark_report_aggregates_only=true --benchmark_out=gemm.json --benchmark_out_format=json",
        "tools/gemm_bench_report.py gemm.json      # --time cpu on a shared machine",
        "```",
        "",
    ]
    host = [f"{k} = {context[k]}" for k in ("host_name", "num_cpus", "mhz_per_cpu", "date") if k in context]
    if host:
        lines += ["Run context: " + "; ".join(host) + ".", ""]
    levels = level_columns(medians)
    bases = ["eigen_complex", "blas_complex"]
    extras = [("automatic ÷ realify real GEMM", "realify", "realify_real_same_flops", "{:.2f}"),
              ("realify real GEMM ÷ Eigen complex", "realify_real_same_flops", "eigen_complex", "{:.2f}"),
              ("Eigen real ÷ Eigen complex", "eigen_real_ceiling", "eigen_complex", "{:.2f}"),
              ("speed-up over the std::complex loop", "std_complex_loop", "realify", "{:.1f}×")]
    for dtype, title in DTYPES.items():
        for family, what in (("square", "n × n times n × n"), ("batch32", "32 × (n × n times n × n), bmm")):
            table = times_table(medians, family, dtype, COLUMNS)
            if not table:
                continue
            lines += [f"### {title}, {what}", ""] + table
            lines += ratio_table(medians, family, dtype, default_methods(), bases, extras)
            level_table = times_table(medians, family, dtype, levels)
            if level_table:
                lines += ["Each instruction set (forced):", ""] + level_table
                lines += ratio_table(medians, family, dtype,
                                     [(name, label, THREE_M_TARGET if "3m" in name else AUTOMATIC_TARGET,
                                       THREE_M_FROM if "3m" in name else AUTOMATIC_FROM)
                                      for name, label in levels.items()], bases)
    avx2 = []
    for dtype, title in DTYPES.items():
        for family in ("square", "batch32"):
            table = times_table(medians, family, dtype, AVX2_COLUMNS)
            if table:
                avx2 += [f"{title}, {family}:", ""] + table + ratio_table(
                    medians, family, dtype,
                    [("realify@avx2", "automatic, AVX2", AUTOMATIC_TARGET, AUTOMATIC_FROM),
                     ("realify_3m@avx2", "3m, AVX2", THREE_M_TARGET, THREE_M_FROM)],
                    ["eigen_complex_avx2"],
                    [("Eigen real ÷ Eigen complex, AVX2", "eigen_real_ceiling_avx2", "eigen_complex_avx2",
                      "{:.2f}")])
    if avx2:
        lines += [
            "### AVX2 + FMA only",
            "",
            "realify forced onto its AVX2 kernels (`realify::simd::scoped_arch`) against Eigen built for "
            "AVX2 + FMA (`bench_gemm_competitors_avx2.cpp`): what a machine without AVX-512 runs.",
            "",
        ] + avx2
    small = []
    for family, what in (("small", "n × n, small n"), ("mv", "n × n times a vector"), ("dot", "dot of length n")):
        for dtype, title in DTYPES.items():
            table = times_table(
                medians, family, dtype,
                {"realify": "automatic", "realify_direct": "direct", "realify_1m": "1m", "realify_4m": "4m",
                 "eigen_complex": "Eigen complex"})
            if table:
                small += [f"{title}, {what}:", ""] + table
    if small:
        lines += ["### Small products, matrix-vector, dot (the direct loop's threshold)", ""] + small
    lines += linear_section(linear, context)
    if plot_name:
        lines += [f"![matrix product GFLOP/s]({plot_name})", ""]
    lines.append(END)
    return "\n".join(lines) + "\n"


def write_plot(medians, plot_path):
    plt = pyplot("gemm_bench_report")
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.5), sharey=False)
    for ax, (dtype, title) in zip(axes, DTYPES.items()):
        colors = plt.get_cmap("tab20")
        for i, (column, label) in enumerate(list(COLUMNS.items()) + list(AVX2_COLUMNS.items())):
            sizes = sorted(k[3] for k in medians if k[0] == "square" and k[1] == column and k[2] == dtype)
            if not sizes:
                continue
            gf = [flops("square", n) / (medians[("square", column, dtype, n)] * 1e-6) / 1e9 for n in sizes]
            style = "--" if "avx2" in column else "-"
            ax.plot(sizes, gf, style, marker="o", color=colors(i), label=label)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n")
        ax.set_ylabel("GFLOP/s (8·n³ per product)")
        ax.set_title(f"n × n product, {title}")
        ax.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    fig.savefig(plot_path, dpi=110)
    plt.close(fig)
    return True


def main(argv=None):
    args, time_field = report_arguments(__doc__, "Google Benchmark JSON output files of bench_gemm",
                                        "benchmarks_gemm.png", argv)
    medians, context = load(args.json, time_field)
    linear = load_linear(args.json)
    if not medians and not linear:
        print("gemm_bench_report: no bench_gemm results in the input", file=sys.stderr)
        return 1
    plot_name = None
    if medians:
        write_plot(medians, args.plot)
        plot_name = plot_link(args.plot, args.markdown)
    write_section(args.markdown, build_markdown(medians, context, plot_name, time_field, linear), BEGIN, END)
    print(f"gemm_bench_report: wrote {args.markdown}" + (f" and {args.plot}" if plot_name else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
