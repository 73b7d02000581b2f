#!/usr/bin/env python3
"""Ratios realify ÷ Eigen from bench_kernels' JSON (docs/benchmarks.md).

    build/release/benchmarks/bench_kernels --benchmark_repetitions=5 \
        --benchmark_enable_random_interleaving=true --benchmark_out=kernels.json \
        --benchmark_out_format=json
    tools/kernels_bench_report.py kernels.json

Prints a Markdown table: one row per op, one column per (type, size), each
cell the median time of realify divided by the median time of Eigen over the
repetitions (below 1: realify is faster).
"""
import json
import statistics
import sys
from collections import defaultdict


def main(path):
    with open(path) as f:
        data = json.load(f)
    times = defaultdict(list)  # (op, type, n, impl) -> [real_time]
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        op, type_, n, impl = b["run_name"].split("/")
        times[(op, type_, int(n), impl)].append(b["real_time"])
    ops, columns = [], []
    for (op, type_, n, _impl) in times:
        if op not in ops:
            ops.append(op)
        if (type_, n) not in columns:
            columns.append((type_, n))
    columns.sort(key=lambda c: (c[0] != "float", c[1]))
    label = lambda n: f"{n // 1024}K" if n < 1 << 20 else f"{n // (1 << 20)}M"
    print("| op | " + " | ".join(f"{t} {label(n)}" for t, n in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for op in ops:
        cells = []
        for type_, n in columns:
            r, e = times.get((op, type_, n, "realify")), times.get((op, type_, n, "eigen"))
            cells.append(f"{statistics.median(r) / statistics.median(e):.2f}" if r and e else "–")
        print(f"| {op} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
