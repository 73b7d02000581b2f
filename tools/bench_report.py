#!/usr/bin/python3
"""Turn Google Benchmark JSON from the complex-multiply suite into docs.

Usage (from the repository root, after a Release build in build/release;
Debian's /usr/bin/python3, with python3-matplotlib for the plot):

    build/release/benchmarks/bench_complex_mul --benchmark_out=cm.json --benchmark_out_format=json
    build/release/benchmarks/bench_complex_mul_xtensor --benchmark_out=cmx.json --benchmark_out_format=json
    tools/bench_report.py cm.json cmx.json            # add --time cpu on a shared machine

writes the complex-multiply section of docs/benchmarks.md (between the
`<!-- complex-mul:begin -->` / `<!-- complex-mul:end -->` markers, so other
generated sections of that file are kept) and the plot
docs/benchmarks_complex_mul.png. The plot needs matplotlib (Debian:
python3-matplotlib); without it the script stops with a clear message.

Times are medians: the `median` aggregate when the run used repetitions,
otherwise the median of the individual runs (a single run is its own median).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

BEGIN = "<!-- complex-mul:begin -->"
END = "<!-- complex-mul:end -->"

# Benchmark function -> column title, in display order.
IMPLEMENTATIONS = {
    "BM_realify": "realify",
    "BM_std_complex": "std::complex",
    "BM_std_complex_limited_range": "std::complex -fcx-limited-range",
    "BM_eigen": "Eigen ArrayXcf",
    "BM_xtensor_xsimd": "xtensor + XSIMD",
    "BM_xsimd_batch_complex": "xsimd batch<complex>",
    "BM_stream_add_roofline": "float stream add (roofline)",
}

TO_MICROSECONDS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}

# The instruction-set axis (benchmarks/bench_isa.hpp): a realify case named
# <base> ran on the level chosen at run time, <base>@<level> forced onto a level.
LEVELS = ("sse2", "avx2", "avx512")
LEVEL_TITLES = {"sse2": "SSE2", "avx2": "AVX2", "avx512": "AVX-512"}


def isa_levels(names, base):
    """The levels, lowest first, for which <base>@<level> is among `names`."""
    present = set(names)
    return [level for level in LEVELS if f"{base}@{level}" in present]


def dispatch_note(context) -> str:
    """What the run-time choice picked per kernel family in this run (bench_isa.hpp's context)."""
    families = [(f, context.get(f"realify_arch_{f}")) for f in ("elementwise", "multiply", "rope", "gemm")]
    picked = ", ".join(f"{f} {LEVEL_TITLES.get(a, a)}" for f, a in families if a)
    if not picked:
        return ""
    note = f"The level chosen per family: {picked}"
    if context.get("realify_gemm_backend"):
        note += f"; matrix products on {context['realify_gemm_backend']}"
    if context.get("realify_archs"):
        note += f" (levels this machine has: {', '.join(LEVEL_TITLES.get(a, a) for a in context['realify_archs'].split(','))})"
    return note + "."


def size_label(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10}K"
    return str(n)


def median_times(paths, time_field, key_of, seen=None):
    """{key: median µs} over Google Benchmark JSON files, and the first file's context.

    key_of(name parts) gives a benchmark's key (None: skip it); a run's own
    median aggregate counts when the file has no samples of that key. seen(bench,
    key) is called for every benchmark kept (labels, units)."""
    samples = defaultdict(list)
    medians = {}
    context = {}
    for path in paths:
        data = json.loads(Path(path).read_text())
        context = context or data.get("context", {})
        for bench in data.get("benchmarks", []):
            key = key_of(bench.get("run_name", bench["name"]).split("/"))
            if key is None:
                continue
            if seen:
                seen(bench, key)
            micros = bench[time_field] * TO_MICROSECONDS[bench.get("time_unit", "ns")]
            if bench.get("run_type") == "aggregate":
                if bench.get("aggregate_name") == "median":
                    medians[key] = micros
            else:
                samples[key].append(micros)
    for key, values in samples.items():
        medians[key] = statistics.median(values)
    return medians, context


def load(paths, time_field="real_time"):
    """Returns ({(function, args): median µs}, {function: label}, context)."""
    labels = {}

    def key_of(parts):
        function, *args = parts
        return function, tuple(int(a) for a in args if a.lstrip("-").isdigit())

    def seen(bench, key):
        if bench.get("label"):
            labels[key[0]] = bench["label"]

    medians, context = median_times(paths, time_field, key_of, seen)
    return medians, labels, context


def fmt_time(us: float) -> str:
    if us >= 1000:
        return f"{us / 1000:.2f} ms"
    if us >= 10:
        return f"{us:.1f} µs"
    return f"{us:.3f} µs"


def ratio_cell(ratio: float | None, target: float | None) -> str:
    if ratio is None:
        return "–"
    text = f"{ratio:.2f}×"
    if target is not None:
        text += " ✓" if ratio >= target else f" ✗ (target ≥ {target:g}×)"
    return text


def implementations(medians):
    """IMPLEMENTATIONS with realify's forced levels (BM_realify@<level>) after the column of the level chosen at run time."""
    result = {}
    for function, title in IMPLEMENTATIONS.items():
        result[function] = title
        if function == "BM_realify":
            for level in isa_levels({f for (f, _) in medians}, "BM_realify"):
                result[f"BM_realify@{level}"] = f"realify {LEVEL_TITLES[level]}"
    return result


def build_markdown(medians, labels, context, plot_name: str | None, time_field: str = "real_time") -> str:
    columns = implementations(medians)
    sizes = sorted({args[0] for (function, args) in medians if function in columns and len(args) == 1})
    present = [f for f in columns if any((f, (n,)) in medians for n in sizes)]
    lines = [BEGIN, "", "## Complex multiply: c = a · b, complex<float>", ""]
    lines.append(
        "Generated by `tools/bench_report.py` from `bench_complex_mul` and "
        "`bench_complex_mul_xtensor` (Google Benchmark JSON). "
        + ("Median wall time per call; " if time_field == "real_time" else
           "Median CPU time per call (`--time cpu`: the run shared its two cores with compile jobs, "
           "so wall time measured the scheduler); ")
        +
        "throughput counts 3 · N · 8 bytes (two reads, one write). All buffers are 64-byte "
        "aligned. Competitors are compiled with `-march=native`; realify is the "
        "`realify_simd` library built without `-march`, choosing its instruction set at run time"
        + (f" (here: `{labels['BM_realify']}`)" if "BM_realify" in labels else "")
        + ", and forced onto each instruction set the machine has (`realify::simd::scoped_arch`). "
        + dispatch_note(context)
    )
    lines += [
        "",
        "Regenerate (Release build in build/release; one short run):",
        "",
        "```sh",
        "build/release/benchmarks/bench_complex_mul --benchmark_min_time=0.1 --benchmark_repetitions=3 \\",
        "    --benchmark_out=cm.json --benchmark_out_format=json",
        "build/release/benchmarks/bench_complex_mul_xtensor --benchmark_min_time=0.1 --benchmark_repetitions=3 \\",
        "    --benchmark_out=cmx.json --benchmark_out_format=json",
        "tools/bench_report.py cm.json cmx.json      # --time cpu on a shared machine",
        "```",
        "",
    ]
    host = []
    for key in ("host_name", "num_cpus", "mhz_per_cpu", "date"):
        if key in context:
            host.append(f"{key} = {context[key]}")
    caches = context.get("caches", [])
    if caches:
        host.append(
            "caches = "
            + ", ".join(f"L{c['level']} {c['type'][0].lower()} {c['size'] // 1024} KiB" for c in caches)
        )
    if host:
        lines += ["Run context: " + "; ".join(host) + ".", ""]

    # Times.
    header = "| N | " + " | ".join(columns[f] for f in present) + " |"
    lines += [header, "|" + "---|" * (len(present) + 1)]
    for n in sizes:
        cells = []
        for f in present:
            t = medians.get((f, (n,)))
            cells.append("–" if t is None else f"{fmt_time(t)} ({3 * n * 8 / (t * 1e-6) / 1e9:.1f} GB/s)")
        lines.append(f"| {size_label(n)} | " + " | ".join(cells) + " |")
    lines.append("")

    # Ratios: how many times faster realify is (other's time / realify's time).
    realify_columns = [f for f in present if f.startswith("BM_realify")]
    if "BM_realify" in present:
        others = [f for f in present if f not in realify_columns]
        lines += [
            "realify's speed relative to each (other's time ÷ realify's time; > 1 means realify is "
            "faster). Targets: ≥ 5× std::complex at 1K–64K, ≥ 1.0× Eigen at every size.",
            "",
            "| N | " + " | ".join("vs " + columns[f] for f in others) + " |",
            "|" + "---|" * (len(others) + 1),
        ]
        for n in sizes:
            mine = medians.get(("BM_realify", (n,)))
            cells = []
            for f in others:
                theirs = medians.get((f, (n,)))
                ratio = theirs / mine if mine and theirs else None
                target = None
                if f == "BM_std_complex" and n <= 1 << 16:
                    target = 5.0
                if f == "BM_eigen":
                    target = 1.0
                cells.append(ratio_cell(ratio, target))
            lines.append(f"| {size_label(n)} | " + " | ".join(cells) + " |")
        lines.append("")
    if len(realify_columns) > 1 and "BM_eigen" in present:
        lines += [
            "Each instruction set against Eigen (Eigen's time ÷ realify's time, target ≥ 1.0× at every size):",
            "",
            "| N | " + " | ".join(columns[f] for f in realify_columns) + " |",
            "|" + "---|" * (len(realify_columns) + 1),
        ]
        for n in sizes:
            eigen = medians.get(("BM_eigen", (n,)))
            cells = []
            for f in realify_columns:
                mine = medians.get((f, (n,)))
                cells.append(ratio_cell(eigen / mine if mine and eigen else None, 1.0))
            lines.append(f"| {size_label(n)} | " + " | ".join(cells) + " |")
        lines.append("")

    # Store-path sweep (the streaming threshold measurement).
    sweep = sorted({args[0] for (function, args) in medians if function == "BM_realify_store_path"})
    if sweep:
        lines += [
            "Store path (realify::simd::mul with ordinary vs streaming stores; "
            "the measurement behind the default streaming threshold, see docs/simd.md):",
            "",
            "| N | output bytes | ordinary | streaming | streaming speed-up |",
            "|---|---|---|---|---|",
        ]
        for n in sweep:
            ordinary = medians.get(("BM_realify_store_path", (n, 0)))
            streaming = medians.get(("BM_realify_store_path", (n, 1)))
            speedup = ordinary / streaming if ordinary and streaming else None
            lines.append(
                f"| {size_label(n)} | {size_label(n * 8).replace('K', ' Ki').replace('M', ' Mi')}B | "
                f"{fmt_time(ordinary) if ordinary else '–'} | {fmt_time(streaming) if streaming else '–'} | "
                f"{ratio_cell(speedup, None)} |"
            )
        lines.append("")

    if plot_name:
        lines += [f"![complex multiply throughput]({plot_name})", ""]
    lines.append(END)
    return "\n".join(lines) + "\n"


def write_section(markdown_path: Path, section: str, begin: str = BEGIN, end: str = END) -> None:
    """Replaces the section between the `begin` and `end` markers (appends it if absent)."""
    if markdown_path.exists():
        text = markdown_path.read_text()
    else:
        text = "# Benchmarks\n\nGenerated sections; regenerate them with the scripts they name.\n\n"
    if begin in text and end in text:
        before = text[: text.index(begin)]
        after = text[text.index(end) + len(end):].lstrip("\n")
        text = before + section + ("\n" + after if after else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    markdown_path.write_text(text)


def pyplot(tool: str):
    """matplotlib.pyplot on the Agg backend; exits with a clear message when it is missing
    (a regenerated section must never silently lose its plot)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit(f"{tool}: matplotlib is required for the plot (Debian: python3-matplotlib; "
                 "scripts/run-benchmarks installs it)")
    return plt


def report_arguments(doc: str, json_help: str, plot_name: str, argv=None):
    """The command line every report tool takes: JSON files, --markdown, --plot, --time.
    Returns the arguments and the JSON time field to read."""
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("json", nargs="+", help=json_help)
    parser.add_argument("--markdown", type=Path, default=root / "docs" / "benchmarks.md")
    parser.add_argument("--plot", type=Path, default=root / "docs" / plot_name)
    parser.add_argument("--time", choices=["real", "cpu"], default="real",
                        help="real (wall) time, or cpu time when the machine was shared")
    args = parser.parse_args(argv)
    return args, "real_time" if args.time == "real" else "cpu_time"


def plot_link(plot: Path, markdown: Path) -> str:
    """The plot's path as the Markdown file links it."""
    try:
        return str(plot.resolve().relative_to(markdown.resolve().parent))
    except ValueError:
        return str(plot)


def write_plot(medians, plot_path: Path) -> bool:
    plt = pyplot("bench_report")
    columns = implementations(medians)
    sizes = sorted({args[0] for (function, args) in medians if function in columns and len(args) == 1})
    present = [f for f in columns if any((f, (n,)) in medians for n in sizes)]
    fig, ax = plt.subplots(figsize=(9, 4.8))
    width = 0.8 / max(len(present), 1)
    for i, f in enumerate(present):
        xs, ys = [], []
        for j, n in enumerate(sizes):
            t = medians.get((f, (n,)))
            if t is not None:
                xs.append(j + (i - (len(present) - 1) / 2) * width)
                ys.append(3 * n * 8 / (t * 1e-6) / 1e9)
        ax.bar(xs, ys, width, label=columns[f])
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([f"N = {size_label(n)}" for n in sizes])
    ax.set_ylabel("GB/s (3 · N · 8 bytes per call)")
    ax.set_title("c = a · b, complex<float> (higher is better)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(plot_path, dpi=110)
    plt.close(fig)
    return True


def main(argv=None) -> int:
    args, time_field = report_arguments(__doc__, "Google Benchmark JSON output files", "benchmarks_complex_mul.png", argv)
    medians, labels, context = load(args.json, time_field)
    if not any(function in IMPLEMENTATIONS for (function, _) in medians):
        print("bench_report: no complex-multiply benchmarks in the input", file=sys.stderr)
        return 1
    plotted = write_plot(medians, args.plot)
    plot_name = plot_link(args.plot, args.markdown) if plotted else None
    section = build_markdown(medians, labels, context, plot_name, time_field)
    write_section(args.markdown, section)
    print(f"bench_report: wrote {args.markdown}" + (f" and {args.plot}" if plotted else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
