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
compiler process, steadier than wall time on a shared machine), the median
of its ratios to the hello-world, the lowest and highest of those ratios
(how far the host's load moved them) and its peak memory, then the ratios
the project holds itself to. Each round compiles the hello-world beside every
unit (before it in one round, after it in the next) and takes the ratio of
the pair: the host's speed drifts over a round, little over a pair. Two counts that do not
depend on the host's load follow each unit, for comparing trees when the
host's spread is larger than the difference: the object's code size (text
KB) and, with GCC, the memory its front end and optimiser allocate (GGC MB,
from -ftime-report, one extra compilation per unit). The targets:

  graph_rope / xtensor_hello (paired)    target <= 1.5
  (graphs_10 - graphs_1) / 9             each additional lowered graph, target <= 0.4 s
  peak memory of graphs_10               target <= 400 MB
  eager / xtensor_hello (paired)         target <= 1.5

Usage: tools/compile_cost.py [--rounds N] [--cxx c++] [--json out.json] [--against REV] [--instructions]
                             [--stages]
Run it from anywhere; it finds the repository from its own path. Exit status
1 when a target is missed (by the current tree).

--against REV also compiles the same units from git revision REV (its tree
exported to a temporary directory) in the same run, each unit of the two
trees one after the other, in alternating order from round to round, and
prints both columns: a before/after table from one run.

--instructions also counts the instructions each compilation executes (the
driver, the compiler proper and the assembler), under valgrind's callgrind:
a count that does not move with the host's load (the CPU time of the same
unit moves by a quarter on a shared host), at about fifty times a
compilation's time, the units compiled in parallel on every core. It prints
each unit's count and its ratio to the hello-world's; the targets are still
judged on CPU time. --rounds 0 skips the timed compilations. With GCC it
also prints the size GCC estimates for the unit before and after its
inliner (from -fdump-ipa-inline-details): GCC inlines until the unit has
grown to 1.4 x the larger of its size without cold code and 10000 (its
inline-unit-growth and large-unit-insns), so a unit that ends at 14000
spends code removed from it on more inlining — its instructions move
little until its size before inlining falls well below that.

--stages, instead of all this, says where the compile cost of a lowered graph
goes: tools/compile_cost/stages.cpp (Llama's RoPE graph) compiled at each
stage — realify/graph.hpp included, the graph built, lowered, run, a second
graph — each count taken twice under callgrind, whole and with -fsyntax-only
(the front end alone: parsing and instantiation), so each stage's cost is
split between the front end and the code generation it leads to.
"""
import argparse
import concurrent.futures
import glob
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

STAGES = [
    ("included", "realify/graph.hpp included, nothing used"),
    ("built", "the RoPE graph built"),
    ("lowered", "... and lowered"),
    ("run", "... and run: new tensors, out=, explain()"),
    ("second graph", "... and a second graph of other node types"),
]

TARGETS = {"graph_rope_ratio": 1.5, "per_graph_s": 0.4, "graphs_10_peak_mb": 400.0, "eager_ratio": 1.5}


def command_of(cxx, root, source, extra, out_dir):
    """The compiler command of one unit of the tree at root, writing out_dir/unit.o."""
    return [cxx, "-std=c++20", "-O2", "-DNDEBUG", "-I" + os.path.join(root, "include"),
            "-I/usr/include/eigen3", *extra, "-c", os.path.join(root, source), "-o", os.path.join(out_dir, "unit.o")]


def compile_once(cxx, root, source, extra, out_dir):
    """Compiles one unit of the tree at root; returns (cpu seconds of the compiler, peak RSS in MB)."""
    command = command_of(cxx, root, source, extra, out_dir)
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    errors = process.stderr.read().decode()
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"compile_cost: {source} failed to compile:\n{errors}")
    # ru_maxrss is in KiB on Linux
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def counts_of(cxx, root, source, extra, out_dir):
    """The load-independent counts of one unit: (text KB of its object, GGC MB or None)."""
    command = command_of(cxx, root, source, extra, out_dir)
    report = subprocess.run(command + ["-ftime-report"], capture_output=True, text=True)
    ggc = None
    for line in report.stderr.splitlines():
        fields = line.split()
        if fields[:1] == ["TOTAL"] and fields[-1][-1:] in "kMG":  # "TOTAL : usr sys wall 434M"
            ggc = float(fields[-1][:-1]) * {"k": 1 / 1024, "M": 1, "G": 1024}[fields[-1][-1]]
    if report.returncode != 0:  # a compiler without -ftime-report: the code size alone
        subprocess.run(command, check=True, capture_output=True)
    sections = subprocess.run(["size", os.path.join(out_dir, "unit.o")], capture_output=True, text=True, check=True)
    return int(sections.stdout.splitlines()[1].split()[0]) / 1024.0, ggc


def instructions_of(cxx, root, source, extra, out_dir):
    """The instructions one compilation of the unit executes (every process it starts), from callgrind."""
    with tempfile.TemporaryDirectory(dir=out_dir) as work:
        command = command_of(cxx, root, source, extra, work)
        subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes", "--cache-sim=no", "--branch-sim=no",
                        "--callgrind-out-file=" + os.path.join(work, "callgrind.%p"), *command],
                       check=True, capture_output=True)
        total = 0
        for name in glob.glob(os.path.join(work, "callgrind.*")):
            with open(name) as f:
                total += sum(int(line.split()[1]) for line in f if line.startswith("totals:"))
        return total


def inline_sizes_of(cxx, root, source, extra, out_dir):
    """GCC's estimate of the unit's size before and after its inliner, or None (another compiler)."""
    with tempfile.TemporaryDirectory(dir=out_dir) as work:
        command = command_of(cxx, root, source, extra, work)
        dump = os.path.join(work, "inline.dump")
        if subprocess.run(command + ["-fdump-ipa-inline-details=" + dump], capture_output=True).returncode != 0:
            return None
        with open(dump, errors="replace") as f:
            for line in f:  # "Unit growth for small function inlining: 12321->13982 (13%)"
                if line.startswith("Unit growth for small function inlining:"):
                    before, after = line.split(":")[1].split()[0].split("->")
                    return int(before), int(after)
    return None


def count_instructions(cxx, jobs, out_dir):
    """Instructions per job (key: (root, source, extra flags)), every compilation in parallel (the counts do
    not depend on the load)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = {key: pool.submit(instructions_of, cxx, root, source, extra, out_dir)
                   for key, (root, source, extra) in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


def count_inline_sizes(cxx, jobs, out_dir):
    """GCC's size estimates before and after inlining per job (as count_instructions)."""
    return {key: inline_sizes_of(cxx, root, source, extra, out_dir) for key, (root, source, extra) in jobs.items()}


def print_stages(cxx, root, out_dir):
    """The instructions of each stage of stages.cpp, whole and front end alone, and what each stage adds."""
    source = "tools/compile_cost/stages.cpp"
    jobs = {(k, front): (root, source, [f"-DREALIFY_STAGE={k}"] + (["-fsyntax-only"] if front else []))
            for k in range(len(STAGES)) for front in (False, True)}
    jobs["hello"] = (root, "tools/compile_cost/xtensor_hello.cpp", [])
    counts = count_instructions(cxx, jobs, out_dir)
    print(f"G instructions; the xtensor hello-world: {counts['hello'] / 1e9:.2f}")
    print(f"{'stage':<14}{'whole':>8}{'front end':>11}{'code gen':>10}   {'adds: front end':>16}{'code gen':>10}   what")
    previous = None
    for k, (name, what) in enumerate(STAGES):
        front, code = counts[(k, True)], counts[(k, False)] - counts[(k, True)]
        row = f"{name:<14}{(front + code) / 1e9:>8.2f}{front / 1e9:>11.2f}{code / 1e9:>10.2f}   "
        row += f"{(front - previous[0]) / 1e9:>16.2f}{(code - previous[1]) / 1e9:>10.2f}   " if previous else " " * 29
        print(row + what)
        previous = (front, code)


def export_tree(revision, directory):
    """Writes git revision `revision` of this repository into `directory`."""
    archive = subprocess.run(["git", "-C", ROOT, "archive", revision], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", directory], input=archive, check=True)


def measure(cxx, roots, rounds, out_dir):
    """Per (tree, unit): the median CPU seconds, the peak MB and the median of the unit's ratios to the
    hello-world compiled right beside it. Every unit is paired with a compilation of the hello-world,
    before it in one round and after it in the next, so that each ratio compares two compilations a few
    seconds apart: the host's speed drifts over a round (a unit and the hello-world compiled half a
    minute apart differ by a fifth on a shared host), much less within a pair."""
    times = {(tree, name): [] for tree in roots for name, _, _ in UNITS}
    ratios = {key: [] for key in times}
    peaks = {key: 0.0 for key in times}
    trees = list(roots)
    hello_source, hello_extra = UNITS[0][1], UNITS[0][2]

    def timed(tree, name, source, extra):
        seconds, peak = compile_once(cxx, roots[tree], source, extra, out_dir)
        times[(tree, name)].append(seconds)
        peaks[(tree, name)] = max(peaks[(tree, name)], peak)
        return seconds

    for round_index in range(rounds):  # interleaved: every unit of every tree once per round
        order = trees if round_index % 2 == 0 else trees[::-1]
        for unit_index, (name, source, extra) in enumerate(UNITS[1:]):
            for tree in order:
                pair = [("xtensor_hello", hello_source, hello_extra), (name, source, extra)]
                if (round_index + unit_index) % 2:
                    pair.reverse()
                seconds = {unit: timed(tree, unit, unit_source, unit_extra) for unit, unit_source, unit_extra in pair}
                ratios[(tree, name)].append(seconds[name] / seconds["xtensor_hello"])
        print(f"round {round_index + 1}/{rounds} done", file=sys.stderr)
    for tree in trees:
        ratios[(tree, "xtensor_hello")] = [1.0]
    counts = {(tree, name): counts_of(cxx, roots[tree], source, extra, out_dir)
              for name, source, extra in UNITS for tree in trees}
    median_of = lambda table: {key: statistics.median(values) for key, values in table.items()}
    spread = {key: (min(values), max(values)) for key, values in ratios.items()}
    return median_of(times), median_of(ratios), spread, peaks, counts


def targets_of(median, ratio, peaks, tree):
    return {
        "graph_rope_ratio": ratio[(tree, "graph_rope")],
        "per_graph_s": (median[(tree, "graphs_10")] - median[(tree, "graphs_1")]) / 9.0,
        "graphs_10_peak_mb": peaks[(tree, "graphs_10")],
        "eager_ratio": ratio[(tree, "eager")],
    }


def print_instructions(instructions, sizes, trees):
    """The instruction counts, in billions, their ratios to the hello-world's and GCC's inlining sizes."""
    print(f"{'unit':<16}" + "".join(f"{tree + ': G instr':>18}{'x hello':>9}{'GCC size inlined':>18}" for tree in trees))
    for name, _, _ in UNITS:
        row = f"{name:<16}"
        for tree in trees:
            count = instructions[(tree, name)]
            size = sizes[(tree, name)]
            row += f"{count / 1e9:>18.2f}{count / instructions[(tree, 'xtensor_hello')]:>9.2f}"
            row += f"{f'{size[0]} -> {size[1]}' if size else '-':>18}"
        print(row)
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="compilations per unit (median taken)")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "c++"), help="the compiler")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--against", metavar="REV", help="also measure git revision REV, in the same run")
    parser.add_argument("--instructions", action="store_true", help="also count instructions under callgrind")
    parser.add_argument("--stages", action="store_true", help="only: where a lowered graph's cost goes, by stage")
    args = parser.parse_args()
    if shutil.which(args.cxx) is None:
        sys.exit(f"compile_cost: compiler {args.cxx} not found")
    if args.rounds == 0 and not args.instructions:
        sys.exit("compile_cost: --rounds 0 measures nothing without --instructions")
    if (args.instructions or args.stages) and shutil.which("valgrind") is None:
        sys.exit("compile_cost: --instructions and --stages need valgrind")
    if args.stages:
        with tempfile.TemporaryDirectory() as out_dir:
            print_stages(args.cxx, ROOT, out_dir)
        return 0

    with tempfile.TemporaryDirectory() as out_dir:
        roots = {"now": ROOT}
        if args.against:
            before = os.path.join(out_dir, "before")
            os.mkdir(before)
            export_tree(args.against, before)
            roots = {"before": before, "now": ROOT}
        jobs = {(tree, name): (roots[tree], source, extra) for name, source, extra in UNITS for tree in roots}
        instructions = count_instructions(args.cxx, jobs, out_dir) if args.instructions else None
        sizes = count_inline_sizes(args.cxx, jobs, out_dir) if args.instructions else None
        if args.rounds == 0:
            print_instructions(instructions, sizes, list(roots))
            if args.json:
                with open(args.json, "w") as f:
                    json.dump({"instructions": {f"{t}/{n}": v for (t, n), v in instructions.items()},
                               "gcc_inline_sizes": {f"{t}/{n}": v for (t, n), v in sizes.items()},
                               "rounds": 0, "cxx": args.cxx, "against": args.against}, f, indent=2)
            return 0
        median, ratio, spread, peaks, counts = measure(args.cxx, roots, args.rounds, out_dir)

    trees = list(roots)
    if instructions:
        print_instructions(instructions, sizes, trees)
    header = f"{'unit':<16}" + "".join(f"{tree + ': CPU s':>16}{'x hello':>9}{'pairs':>12}{'peak MB':>9}{'text KB':>9}"
                                       f"{'GGC MB':>8}" for tree in trees)
    print(header)
    for name, _, _ in UNITS:
        row = f"{name:<16}"
        for tree in trees:
            text_kb, ggc = counts[(tree, name)]
            low, high = spread[(tree, name)]
            row += f"{median[(tree, name)]:>16.2f}{ratio[(tree, name)]:>9.2f}{f'{low:.2f}-{high:.2f}':>12}"
            row += f"{peaks[(tree, name)]:>9.0f}"
            row += f"{text_kb:>9.1f}" + (f"{ggc:>8.0f}" if ggc is not None else f"{'-':>8}")
        print(row)
    print()
    results = {tree: targets_of(median, ratio, peaks, tree) for tree in trees}
    missed = False
    for key in results["now"]:
        ok = results["now"][key] <= TARGETS[key]
        missed |= not ok
        before = f"   before {results['before'][key]:.2f}" if "before" in results else ""
        print(f"{key:<28}{results['now'][key]:>8.2f}   target <= {TARGETS[key]:<6} {'met' if ok else 'MISSED'}{before}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"median_cpu_s": {f"{t}/{n}": v for (t, n), v in median.items()},
                       "median_ratio_to_hello": {f"{t}/{n}": v for (t, n), v in ratio.items()},
                       "pair_ratio_range": {f"{t}/{n}": v for (t, n), v in spread.items()},
                       "peak_mb": {f"{t}/{n}": v for (t, n), v in peaks.items()},
                       "text_kb_and_ggc_mb": {f"{t}/{n}": v for (t, n), v in counts.items()},
                       "instructions": {f"{t}/{n}": v for (t, n), v in (instructions or {}).items()},
                       "gcc_inline_sizes": {f"{t}/{n}": v for (t, n), v in (sizes or {}).items()},
                       "results": results, "rounds": args.rounds, "cxx": args.cxx, "against": args.against},
                      f, indent=2)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
