#!/usr/bin/python3
"""realify on every core against PyTorch CPU on every core, and realify's
scaling from 1 thread to all — run by hand (CI never needs PyTorch):

    cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release
    cmake --build build/bench --target bench_ops bench_rope bench_gemm
    /usr/bin/python3 tools/torch_threads_bench.py build/bench [--threads N] [--repetitions R]

It runs the thread-count benchmarks of bench_ops (threads/<op>/<type>/<n>/<t>:
every elementwise op's out= form, the graph chains, the engine's copy),
bench_rope (realify_*_threads) and bench_gemm (threads/…), then times PyTorch
(Debian's python3-torch, 1.13) with torch.set_num_threads(N) on the same
shapes — out= forms at 4M complex<float>, Meta Llama's view_as_complex RoPE at
the Llama-3-8B prefill, torch.mm / torch.bmm — and prints, from this one
run:

  * realify, time on 2 threads ÷ time on 1 thread, per op, at 64K and 4M
    (and N ÷ 1 when N > 2), with the engine's copy as the bandwidth limit;
  * realify on N threads ÷ PyTorch on N threads, per op at 4M (< 1: realify
    faster), RoPE prefill and the matrix products;
  * with --busy: the same realify ratios measured a second time with every
    core busy — a load generator per core (stress-ng --cpu N where installed,
    else plain busy loops), at normal priority, as a server's other processes
    would be — at every size of the thread axis (add, conj, exp from 1K to 4M;
    RoPE from seq 1 to 2048), and PyTorch's N ÷ 1 thread ratios for add and exp
    at 64K and 4M, quiet and busy. A call on N threads should never take much
    longer than on one, however busy the machine (docs/parallel.md).
  * the reductions (bench_ops' reduce/<op>/<type>/<n>/<t>: sum, mean, prod,
    amax, var, cumsum of 64K and 4M float and complex<float> elements, out=)
    on 1 and on N threads: realify ÷ PyTorch on the same threads, and realify
    ÷ memcpy of the input's bytes (reduce/memcpy, in the same run: a reduction
    reads its input once, so at or below 1.25 it runs at 0.8 × the copy
    bandwidth or better).

--suites threads,reductions (the default) chooses what runs. With --write
docs/benchmarks.md it also replaces that file's "Threads" section (between
the <!-- threads:begin --> / <!-- threads:end --> markers) and draws
docs/benchmarks_threads.png next to it, and its "Reductions" section
(<!-- reductions:begin --> / <!-- reductions:end -->); other sections are
kept.

Times are medians of interleaved repetitions (realify: Google Benchmark's
random interleaving; PyTorch: repetitions alternating between ops). On a
machine shared with other work the 2-thread times are disturbed (a worker that
waits for a core delays the whole call): say so when quoting them.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def bench_order(binary, pattern):
    """The op names of a benchmark's tests in the order it registers them (bench_ops: its ops in
    the order of benchmarks/bench_kernels_common.hpp, drawn from the op list, its graph chains, the copy)."""
    listed = subprocess.run([binary, "--benchmark_list_tests", f"--benchmark_filter={pattern}"], check=True,
                            capture_output=True, text=True).stdout.split()
    order = []
    for name in listed:
        op = name.split("/")[1]
        if op not in order:
            order.append(op)
    return order


def run_benchmark(binary, pattern, repetitions, min_time):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([binary, f"--benchmark_filter={pattern}", "--benchmark_enable_random_interleaving=true",
                        f"--benchmark_repetitions={repetitions}", f"--benchmark_min_time={min_time}",
                        f"--benchmark_out={out.name}",
                        "--benchmark_out_format=json"], check=True, stdout=subprocess.DEVNULL)
        try:
            data = json.load(open(out.name))
        except json.JSONDecodeError:  # nothing matched the filter
            return {}
    samples = {}  # the repetitions' times (one repetition: no aggregates are written)
    for b in data["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        name = b["run_name"]
        if name.endswith("/real_time"):
            name = name[: -len("/real_time")]
        samples.setdefault(name, []).append(b["real_time"] * scale)
    return {name: statistics.median(v) for name, v in samples.items()}


class load_generator:
    """Every core busy while it lives: stress-ng --cpu N (Debian's stress-ng)
    where installed, else N Python busy loops; normal priority."""

    def __init__(self, cores):
        self.cores = cores
        self.processes = []

    def __enter__(self):
        import shutil
        if shutil.which("stress-ng"):
            self.processes.append(subprocess.Popen(["stress-ng", "--cpu", str(self.cores), "--quiet"],
                                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        else:
            for _ in range(self.cores):
                self.processes.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        time.sleep(1.0)  # let the load reach every core
        return self

    def __exit__(self, *exc):
        for p in self.processes:
            p.terminate()
        for p in self.processes:
            p.wait()


def time_per_call(f, min_time):
    """Mean seconds per call of f over at least min_time seconds and 3 calls."""
    calls, start = 0, time.perf_counter()
    while True:
        f()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed > min_time and calls >= 3:
            return elapsed / calls


def torch_scaling(threads, repetitions):
    """PyTorch's add and exp (out=, complex<float>) at 64K and 4M on 1 and on `threads` threads."""
    import torch
    g = torch.Generator().manual_seed(43)
    times = {}
    for n in (1 << 16, 1 << 22):
        x = torch.complex(torch.rand(n, generator=g), torch.rand(n, generator=g))
        y = torch.complex(torch.rand(n, generator=g), torch.rand(n, generator=g))
        o = torch.empty_like(x)
        ops = {"add": lambda: torch.add(x, y, out=o), "exp": lambda: torch.exp(x, out=o)}
        samples = {}
        for _ in range(repetitions):  # interleaved: the thread counts alternate
            for t in (1, threads):
                torch.set_num_threads(t)
                for name, f in ops.items():
                    samples.setdefault((name, n, t), []).append(time_per_call(f, 0.02))
        times.update({key: statistics.median(v) for key, v in samples.items()})
    return times


def torch_times(threads, repetitions):
    import torch
    torch.set_num_threads(threads)
    n = 1 << 22
    g = torch.Generator().manual_seed(42)
    x = torch.complex(torch.rand(n, generator=g) * 4 - 2, torch.rand(n, generator=g) * 4 - 2)
    y = torch.complex(torch.rand(n, generator=g) * 4 - 2, torch.rand(n, generator=g) * 4 - 2) + (0.1 + 0.1j)
    o = torch.empty_like(x)
    ro = torch.empty(n)
    ops = {
        "add": lambda: torch.add(x, y, out=o),
        "sub": lambda: torch.sub(x, y, out=o),
        "mul": lambda: torch.mul(x, y, out=o),
        "div": lambda: torch.div(x, y, out=o),
        "mul_real_scalar": lambda: torch.mul(x, 2.5, out=o),
        "add_scalar": lambda: torch.add(x, 0.5 - 1.5j, out=o),
        "conj": lambda: torch.conj_physical(x, out=o),
        "neg": lambda: torch.neg(x, out=o),
        "square": lambda: torch.square(x, out=o),
        "reciprocal": lambda: torch.reciprocal(x, out=o),
        "exp": lambda: torch.exp(x, out=o),
        "log": lambda: torch.log(x, out=o),
        "sqrt": lambda: torch.sqrt(x, out=o),
        "abs": lambda: torch.abs(x, out=ro),
        "angle": lambda: torch.angle(x, out=ro),
        "sin": lambda: torch.sin(x, out=o),
        "cos": lambda: torch.cos(x, out=o),
        "tanh": lambda: torch.tanh(x, out=o),
        "expm1": lambda: torch.expm1(x, out=o),
        "log1p": lambda: torch.log1p(x, out=o),
        "log2": lambda: torch.log2(x, out=o),
        "log10": lambda: torch.log10(x, out=o),
        "rsqrt": lambda: torch.rsqrt(x, out=o),
        "tan": lambda: torch.tan(x, out=o),
        "sinh": lambda: torch.sinh(x, out=o),
        "cosh": lambda: torch.cosh(x, out=o),
        "asin": lambda: torch.asin(x, out=o),
        "acos": lambda: torch.acos(x, out=o),
        "atan": lambda: torch.atan(x, out=o),
        "asinh": lambda: torch.asinh(x, out=o),
        "acosh": lambda: torch.acosh(x, out=o),
        "atanh": lambda: torch.atanh(x, out=o),
        "pow_scalar": lambda: torch.pow(x, 2.5, out=o),
        "pow_tensor": lambda: torch.pow(x, y, out=o),
        "sgn": lambda: torch.sgn(x, out=o),
        "real": lambda: ro.copy_(torch.real(x)),
        "imag": lambda: ro.copy_(torch.imag(x)),
        "exp_mul_add": lambda: torch.add(torch.mul(torch.exp(x), y), x, out=o),
        "chain5": lambda: torch.mul(torch.add(torch.mul(torch.exp(x), y), x), torch.conj_physical(y), out=o),
    }
    # Meta Llama's apply_rotary_emb at the Llama-3-8B prefill (bench_rope's shapes)
    seq, hq, hk, d = 2048, 32, 8, 128
    xq = torch.rand(1, seq, hq, d, generator=g) * 2 - 1
    xk = torch.rand(1, seq, hk, d, generator=g) * 2 - 1
    angles = torch.outer(torch.arange(seq, dtype=torch.float32),
                         1.0 / (500000.0 ** (torch.arange(0, d, 2)[: d // 2].float() / d)))
    freqs_cis = torch.polar(torch.ones_like(angles), angles)

    def rope():
        xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
        f = freqs_cis.view(1, seq, 1, d // 2)
        return (torch.view_as_real(xq_ * f).flatten(3).type_as(xq), torch.view_as_real(xk_ * f).flatten(3).type_as(xk))
    ops["rope_prefill"] = rope
    a = torch.complex(torch.rand(1024, 1024, generator=g), torch.rand(1024, 1024, generator=g))
    b = torch.complex(torch.rand(1024, 1024, generator=g), torch.rand(1024, 1024, generator=g))
    ba = torch.complex(torch.rand(32, 128, 128, generator=g), torch.rand(32, 128, 128, generator=g))
    bb = torch.complex(torch.rand(32, 128, 128, generator=g), torch.rand(32, 128, 128, generator=g))
    ops["mm_1024"] = lambda: torch.mm(a, b)
    ops["bmm_32x128"] = lambda: torch.bmm(ba, bb)

    return interleaved_times(ops, repetitions)


REDUCTIONS = ["sum", "mean", "prod", "amax", "var", "cumsum"]
REDUCTION_SIZES = (1 << 16, 1 << 22)


def torch_reduction_times(threads, repetitions):
    """PyTorch's reductions on bench_ops' reduce/ inputs (the same distributions), out=, on `threads`."""
    import torch
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(43)
    ops = {}
    for n in REDUCTION_SIZES:
        real = torch.rand(n, generator=g) * 4 - 2
        cplx = torch.complex(torch.rand(n, generator=g) * 4 - 2, torch.rand(n, generator=g) * 4 - 2)
        scale = 0.99 + 0.02 * torch.rand(n, generator=g)
        real_p = torch.where(torch.arange(n) % 2 == 0, scale, -scale)
        cplx_p = torch.polar(0.99 + 0.02 * torch.rand(n, generator=g), (torch.rand(n, generator=g) * 2 - 1) * 3.14)
        for type_, x, p in (("cfloat", cplx, cplx_p), ("float", real, real_p)):
            s, r, o = torch.empty((), dtype=x.dtype), torch.empty(()), torch.empty_like(x)
            ops[f"sum/{type_}/{n}"] = lambda x=x, s=s: torch.sum(x, 0, out=s)
            ops[f"mean/{type_}/{n}"] = lambda x=x, s=s: torch.mean(x, 0, out=s)
            ops[f"prod/{type_}/{n}"] = lambda p=p, s=s: torch.prod(p, 0, out=s)
            if type_ == "float":
                ops[f"amax/{type_}/{n}"] = lambda x=x, s=s: torch.amax(x, 0, out=s)
            ops[f"var/{type_}/{n}"] = lambda x=x, r=r: torch.var(x, 0, out=r)
            ops[f"cumsum/{type_}/{n}"] = lambda x=x, o=o: torch.cumsum(x, 0, out=o)
    return interleaved_times(ops, repetitions)


def interleaved_times(ops, repetitions):
    """The median time of each op: rounds of one sample of every op (at least 50 ms each)."""
    samples = {name: [] for name in ops}
    for name, f in list(ops.items()):
        try:
            f()
        except RuntimeError as e:  # no kernel for this dtype in this PyTorch
            print(f"pytorch: {name}: {str(e).splitlines()[0]}", file=sys.stderr)
            del ops[name], samples[name]
    for _ in range(repetitions):
        for name, f in ops.items():
            samples[name].append(time_per_call(f, 0.05))
    return {name: statistics.median(v) for name, v in samples.items()}


def reduction_tables(mine, theirs, counts):
    """Markdown: per thread count, each reduction's time, ÷ PyTorch and ÷ memcpy."""
    lines = []
    for t in counts:
        lines.append(f"\n### {t} thread{'s' if t > 1 else ''}: realify, ÷ PyTorch 1.13, ÷ memcpy of the input\n")
        lines.append("| op | type | 64K | ÷ PyTorch | ÷ memcpy | 4M | ÷ PyTorch | ÷ memcpy |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for op in REDUCTIONS:
            for type_ in ("float", "cfloat"):
                cells = []
                for n in REDUCTION_SIZES:
                    r = mine.get(f"reduce/{op}/{type_}/{n}/{t}")
                    c = mine.get(f"reduce/memcpy/{type_}/{n}/{t}")
                    p = theirs.get(t, {}).get(f"{op}/{type_}/{n}")
                    cells += [f"{r * 1e6:.1f} µs" if r else "—", f"{r / p:.2f}" if r and p else "—",
                              f"{r / c:.2f}" if r and c else "—"]
                if cells[0] != "—":
                    name = "complex<float>" if type_ == "cfloat" else "float"
                    lines.append(f"| {op} | {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_plot(plt, path, names, ops, torch, many):
    """Two panels, one bar per op: realify's time on all threads ÷ on 1 thread at 64K and 4M,
    and realify ÷ PyTorch, both on all threads, at 4M (log scale)."""
    def ratio(a, b):
        return a / b if a and b else float("nan")
    x = range(len(names))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(12, 7), sharex=True)
    for offset, n, label in ((-0.2, 65536, "64K"), (0.2, 4194304, "4M")):
        values = [ratio(ops.get(f"threads/{op}/float/{n}/{many}"), ops.get(f"threads/{op}/float/{n}/1")) for op in names]
        top.bar([i + offset for i in x], values, width=0.4, label=label)
    top.axhline(1.0, color="black", linewidth=0.8)
    top.axhline(1.0 / many, color="gray", linewidth=0.8, linestyle="--")
    top.set_ylabel(f"time on {many} threads ÷ on 1")
    top.legend(fontsize=8)
    top.set_title("realify, out= on complex<float>")
    values = [ratio(ops.get(f"threads/{op}/float/4194304/{many}"), torch.get(op)) for op in names]
    bottom.bar(list(x), values, width=0.6, color="tab:green")
    bottom.axhline(1.0, color="black", linewidth=0.8)
    bottom.set_yscale("log")
    bottom.set_ylabel(f"realify ÷ PyTorch, {many} threads, 4M")
    bottom.set_xticks(list(x))
    bottom.set_xticklabels(names, rotation=70, fontsize=8)
    for axis in (top, bottom):
        axis.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", help="a Release build tree with bench_ops, bench_rope and bench_gemm built")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="all threads (default: the CPUs)")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--min-time", default="0.1")
    parser.add_argument("--write", metavar="MARKDOWN", help="replace the Threads section of this file (docs/benchmarks.md)")
    parser.add_argument("--note", default="", help="a sentence on the run written under the section's title")
    parser.add_argument("--busy", action="store_true",
                        help="also run realify's thread axes (and PyTorch's scaling) with every core busy")
    parser.add_argument("--suites", default="threads,reductions", help="threads, reductions, or both (the default)")
    args = parser.parse_args()
    env_threads = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = env_threads  # realify's default count in the benchmark processes
    os.environ["OPENBLAS_NUM_THREADS"] = env_threads  # PyTorch's BLAS on the same count
    for tuning in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # preset on the build machine; they slow OpenBLAS
        os.environ.pop(tuning, None)
    bench = os.path.join(args.build, "benchmarks")
    suites = set(args.suites.split(","))
    if "reductions" in suites:
        reductions(args, bench)
    if "threads" not in suites:
        return
    ops = run_benchmark(os.path.join(bench, "bench_ops"), "^threads/[^/]+/float/", args.repetitions, args.min_time)
    rope = run_benchmark(os.path.join(bench, "bench_rope"), "_threads/", args.repetitions, args.min_time)
    gemm = run_benchmark(os.path.join(bench, "bench_gemm"), "^threads/", args.repetitions, args.min_time)
    torch = torch_times(args.threads, args.repetitions)
    busy_ops = busy_rope = {}
    torch_quiet = torch_busy = {}
    if args.busy:
        torch_quiet = torch_scaling(args.threads, args.repetitions)
        with load_generator(args.threads):
            busy_ops = run_benchmark(os.path.join(bench, "bench_ops"), "^threads/[^/]+/float/", args.repetitions,
                                     args.min_time)
            busy_rope = run_benchmark(os.path.join(bench, "bench_rope"), "_threads/", args.repetitions, args.min_time)
            torch_busy = torch_scaling(args.threads, args.repetitions)

    lines = []
    emit = lines.append
    counts = sorted({int(k.rsplit("/", 1)[1]) for k in ops})
    many = max(counts)
    order = bench_order(os.path.join(bench, "bench_ops"), "^threads/[^/]+/float/")
    names = sorted({k.split("/")[1] for k in ops}, key=lambda op: order.index(op) if op in order else len(order))
    def ratio_cell(table, key_one, key_other):
        one, other = table.get(key_one), table.get(key_other)
        return f"{other / one:.2f}" if one and other else "—"

    busy = bool(busy_ops)
    emit(f"### realify on t threads ÷ on 1 thread (complex<float>, out=, median real time, one run; all = {many})\n")
    columns = [(n, t, table) for n in (65536, 4194304) for t in counts[1:]
               for table in ((ops, busy_ops) if busy else (ops,))]
    size = {65536: "64K", 4194304: "4M"}
    emit("| op | " + " | ".join(f"{size[n]}, {t}÷1" + ("" if not busy else (", busy" if table is busy_ops else ", quiet"))
                                 for n, t, table in columns) + " |")
    emit("|" + "---|" * (1 + len(columns)))
    for op in names:
        emit(f"| {op} | " + " | ".join(ratio_cell(table, f"threads/{op}/float/{n}/1", f"threads/{op}/float/{n}/{t}")
                                       for n, t, table in columns) + " |")

    if busy:
        emit(f"\n### {many} threads ÷ 1 thread at every size, quiet and with every core busy (one run)\n")
        sizes = sorted({int(k.split("/")[3]) for k in ops if k.split("/")[1] in ("add", "conj", "exp")})
        def label(n):
            return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"
        emit("| call | " + " | ".join(label(n) for n in sizes) + " |")
        emit("|" + "---|" * (1 + len(sizes)))
        for op in ("add", "conj", "exp"):
            for table, when in ((ops, "quiet"), (busy_ops, "busy")):
                emit(f"| {op}, {when} | " + " | ".join(
                    ratio_cell(table, f"threads/{op}/float/{n}/1", f"threads/{op}/float/{n}/{many}") for n in sizes) + " |")
        seqs = sorted({int(k.split("seq:")[1].split("/")[0]) for k in rope})
        emit("\n| RoPE (Llama-3-8B, float) | " + " | ".join(f"seq {q}" for q in seqs) + " |")
        emit("|" + "---|" * (1 + len(seqs)))
        for kind in ("out_of_place", "in_place"):
            for table, when in ((rope, "quiet"), (busy_rope, "busy")):
                cells = []
                for q in seqs:
                    start = 4095 if q == 1 else 0
                    base = f"realify_{kind}_threads/seq:{q}/start_pos:{start}/threads:"
                    cells.append(ratio_cell(table, base + "1", base + str(many)))
                emit(f"| {kind.replace('_', ' ')}, {when} | " + " | ".join(cells) + " |")
        emit(f"\nPyTorch 1.13, {many} threads ÷ 1 thread (OpenMP's team), out= complex<float>:\n")
        emit("| call | 64K, quiet | 64K, busy | 4M, quiet | 4M, busy |")
        emit("|---|---|---|---|---|")
        for op in ("add", "exp"):
            cells = []
            for n in (1 << 16, 1 << 22):
                for table in (torch_quiet, torch_busy):
                    cells.append(ratio_cell(table, (op, n, 1), (op, n, many)))
            emit(f"| {op} | " + " | ".join(cells) + " |")

    emit(f"\n### realify ÷ PyTorch 1.13 CPU, both on {many} threads (< 1: realify faster)\n")
    emit("| op | realify | PyTorch | ratio |")
    emit("|---|---|---|---|")
    def row(label, mine, theirs):
        if mine is None or theirs is None:
            emit(f"| {label} | {'—' if mine is None else f'{mine * 1e3:.3f} ms'} | "
                  f"{'—' if theirs is None else f'{theirs * 1e3:.3f} ms'} | — |")
        else:
            emit(f"| {label} | {mine * 1e3:.3f} ms | {theirs * 1e3:.3f} ms | {mine / theirs:.2f} |")
    for op in names:
        if op == "copy":
            continue
        row(f"{op} (out=, 4M complex<float>)", ops.get(f"threads/{op}/float/4194304/{many}"), torch.get(op))
    for key, value in sorted(rope.items()):
        if key.endswith(f"threads:{many}") and "out_of_place" in key and "seq:2048/" in key:
            row("RoPE prefill (realify out of place vs Meta's view_as_complex)", value, torch.get("rope_prefill"))
    row("mm n = 1024", gemm.get(f"threads/mm/1024/{many}"), torch.get("mm_1024"))
    row("bmm 32 × 128³", gemm.get(f"threads/bmm/32x128/{many}"), torch.get("bmm_32x128"))
    emit("\n### realify RoPE and matrix products: t threads ÷ 1 thread\n")
    for key in sorted(rope):
        if key.endswith("threads:1") and "seq:2048/" in key:
            for t in counts[1:]:
                other = rope.get(key[: -len("threads:1")] + f"threads:{t}")
                if other:
                    emit(f"- {key.split('/')[0]} seq 2048, {t}÷1: {other / rope[key]:.2f}")
    for what in ("mm/1024", "bmm/32x128"):
        one = gemm.get(f"threads/{what}/1")
        for t in counts[1:]:
            other = gemm.get(f"threads/{what}/{t}")
            if one and other:
                emit(f"- {what}, {t}÷1: {other / one:.2f}")

    text = "\n".join(lines)
    print(text)
    if args.write:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_report import plot_link, pyplot, write_section
        from pathlib import Path
        plot = Path(args.write).with_name("benchmarks_threads.png")
        write_plot(pyplot("torch_threads_bench"), plot, names, ops, torch, many)
        text += f"\n\n![threads]({plot_link(plot, Path(args.write))})"
        intro = ("## Threads\n\nGenerated by `tools/torch_threads_bench.py` (bench_ops, bench_rope and bench_gemm "
                 "thread-count axes, and PyTorch timed in the same run); docs/parallel.md says what runs in "
                 "parallel and the grain sizes. `copy` is the engine's copy kernel: the memory bandwidth, the "
                 "limit of the memory-bound ops.\n\n" + (args.note + "\n\n" if args.note else ""))
        write_section(Path(args.write), "<!-- threads:begin -->\n\n" + intro + text + "\n\n<!-- threads:end -->",
                      "<!-- threads:begin -->", "<!-- threads:end -->")

def reductions(args, bench):
    """The reductions on 1 and on all threads against PyTorch and memcpy; the Reductions section."""
    mine = run_benchmark(os.path.join(bench, "bench_ops"), "^reduce/", args.repetitions, args.min_time)
    counts = sorted({int(k.rsplit("/", 1)[1]) for k in mine})
    theirs = {t: torch_reduction_times(t, args.repetitions) for t in counts}
    text = reduction_tables(mine, theirs, counts)
    print(text)
    if args.write:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_report import write_section
        from pathlib import Path
        intro = ("## Reductions\n\nGenerated by `tools/torch_threads_bench.py --suites reductions` (bench_ops' "
                 "`reduce/` axis: one 1-D tensor reduced into an `out=` buffer, median real time of interleaved "
                 "repetitions; PyTorch 1.13 timed in the same run with `torch.set_num_threads` and "
                 "`OPENBLAS_NUM_THREADS` at the same count, its calls alternating). ÷ memcpy: realify's time over "
                 "`std::memcpy` of the input's bytes in the same run — at or below 1.25 the reduction reads at "
                 "0.8 × the copy bandwidth or better (cumsum also writes its output, as memcpy does). prod reads "
                 "values of modulus near 1. docs/numerics.md has the order these compute, docs/parallel.md "
                 "their split over threads.\n\n" + (args.note + "\n\n" if args.note else ""))
        write_section(Path(args.write), "<!-- reductions:begin -->\n\n" + intro + text.lstrip("\n") +
                      "\n\n<!-- reductions:end -->", "<!-- reductions:begin -->", "<!-- reductions:end -->")


if __name__ == "__main__":
    main()
