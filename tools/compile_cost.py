#!/usr/bin/env python3
"""What realify costs to compile, measured the way a user pays it.

Compiles, in one run and interleaved round by round, these translation units
with the flags of an optimised user build (`c++ -std=c++20 -O2 -DNDEBUG -c`):

  xtensor_hello      tools/compile_cost/xtensor_hello.cpp: any xtensor program (the yardstick)
  rope_llama3        examples/rope_llama3.cpp: the RoPE demo
  graph_rope         examples/graph_rope.cpp: RoPE lowered through realify::graph
  graphs_1           tools/compile_cost/graphs.cpp with one small lowered graph
  graphs_10          the same with ten
  eager              tools/compile_cost/eager.cpp: a typical user of the eager API

and prints, per unit, the median compiler CPU time (user + sys of the
compiler process, steadier than wall time on a shared machine) and its peak
memory, then the ratios the project holds itself to:

  graph_rope / xtensor_hello             target <= 1.5
  (graphs_10 - graphs_1) / 9             each additional lowered graph, target <= 0.4 s
  peak memory of graphs_10               target <= 400 MB
  eager / xtensor_hello                  reported (no target)

Usage: tools/compile_cost.py [--rounds N] [--cxx c++] [--json out.json]
Run it from anywhere; it finds the repository from its own path. Exit status
1 when a target is missed.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

UNITS = [
    ("xtensor_hello", "tools/compile_cost/xtensor_hello.cpp", []),
    ("rope_llama3", "examples/rope_llama3.cpp", []),
    ("graph_rope", "examples/graph_rope.cpp", ['-DREALIFY_GRAPH_GOLDEN_DIR="."']),
    ("graphs_1", "tools/compile_cost/graphs.cpp", ["-DREALIFY_GRAPHS=1"]),
    ("graphs_10", "tools/compile_cost/graphs.cpp", ["-DREALIFY_GRAPHS=10"]),
    ("eager", "tools/compile_cost/eager.cpp", []),
]

TARGETS = {"graph_rope_ratio": 1.5, "per_graph_s": 0.4, "graphs_10_peak_mb": 400.0}


def compile_once(cxx, source, extra, out_dir):
    """Compiles one unit; returns (cpu seconds of the compiler, peak RSS in MB)."""
    command = [cxx, "-std=c++20", "-O2", "-DNDEBUG", "-I" + os.path.join(ROOT, "include"),
               "-I/usr/include/eigen3", *extra, "-c", os.path.join(ROOT, source),
               "-o", os.path.join(out_dir, "unit.o")]
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    errors = process.stderr.read().decode()
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"compile_cost: {source} failed to compile:\n{errors}")
    # ru_maxrss is in KiB on Linux
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="compilations per unit (median taken)")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "c++"), help="the compiler")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    if shutil.which(args.cxx) is None:
        sys.exit(f"compile_cost: compiler {args.cxx} not found")

    times = {name: [] for name, _, _ in UNITS}
    peaks = {name: 0.0 for name, _, _ in UNITS}
    with tempfile.TemporaryDirectory() as out_dir:
        for round_index in range(args.rounds):  # interleaved: every unit once per round
            for name, source, extra in UNITS:
                seconds, peak = compile_once(args.cxx, source, extra, out_dir)
                times[name].append(seconds)
                peaks[name] = max(peaks[name], peak)
            print(f"round {round_index + 1}/{args.rounds} done", file=sys.stderr)

    median = {name: statistics.median(values) for name, values in times.items()}
    hello = median["xtensor_hello"]
    print(f"{'unit':<16}{'CPU s (median)':>16}{'x hello':>10}{'peak MB':>10}")
    for name, _, _ in UNITS:
        print(f"{name:<16}{median[name]:>16.2f}{median[name] / hello:>10.2f}{peaks[name]:>10.0f}")

    results = {
        "graph_rope_ratio": median["graph_rope"] / hello,
        "per_graph_s": (median["graphs_10"] - median["graphs_1"]) / 9.0,
        "graphs_10_peak_mb": peaks["graphs_10"],
    }
    print(f"{'eager_ratio':<20}{median['eager'] / hello:>10.2f}   (eager / xtensor_hello, reported)")
    print()
    missed = False
    for key, value in results.items():
        ok = value <= TARGETS[key]
        missed |= not ok
        print(f"{key:<20}{value:>10.2f}   target <= {TARGETS[key]:<6} {'met' if ok else 'MISSED'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"median_cpu_s": median, "peak_mb": peaks, "results": results,
                       "rounds": args.rounds, "cxx": args.cxx}, f, indent=2)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
