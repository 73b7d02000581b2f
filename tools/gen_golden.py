#!/usr/bin/python3
"""Writes realify's PyTorch goldens under tests/golden/.

Run with Debian's PyTorch 1.13 (python3-torch):  /usr/bin/python3 tools/gen_golden.py
CI never runs this script: its output is committed, and the C++ tests
(tests/ops/test_golden.cpp) only read it.  The output is deterministic (fixed
seeds derived from the op name, so adding an op never changes another op's
data), so re-running it on the same PyTorch reproduces the files byte for byte.

Layout of tests/golden/
-----------------------
<op>.c64.npy, <op>.c128.npy
    One 1-D array per op and dtype (dtype '<c8' = complex64 or '<c16' =
    complex128, which xt::load_npy reads as std::complex<float/double>).  Every
    operand and every result of every case of that op is flattened (C order)
    and appended to it.  Operands that are not complex are stored in the real
    part with imag = 0: real tensors (kind r), booleans as 0/1 (kind b) and
    integers (kind i).  Both are exact in the storage type.

manifest.txt
    One line per case, whitespace-separated tokens; '#' starts a comment line.
    The first token is `case`, the others are key=value:
        op=<name>          the realify::op tag name (contract spelling)
        dtype=c64|c128     complex64 / complex128 case
        file=<file>        the .npy holding the data of this case
        label=<text>       human readable case name (no spaces)
        special=0|1        1: special-value case; the sign of zero results is
                           checked as well as NaN/inf positions
        in=<k>:<off>:<shape>   an operand, in argument order (repeatable)
        out=<k>:<off>:<shape>  a result, in order (repeatable; split/chunk
                           give several)
        p.<name>=<t>:<value>   a parameter: t = i (integer), l (integer list,
                           comma-separated, empty for []), r (real), c (complex
                           "re,im"), b (bool 0/1), s (a string without spaces)
    <k> is c (complex), r (real), b (bool) or i (integer); <off> is the element
    offset in the file; <shape> is comma-separated extents, `-` for rank 0.
    Real numbers are printed with Python's repr (round-trips exactly; 'inf',
    '-inf', 'nan' parse with std::strtod).

Coverage
--------
Every op of the ops contract that PyTorch 1.13 supports on complex tensors,
each with several shapes (rank 0, size 0, broadcasting, rank up to 4) in both
dtypes.  Elementwise math ops also get special-value cases: a grid of all
pairs of components from {±0, ±1, 0.5, -2, ±inf, NaN, ±1e30, ±1e-30}, and
points on the branch cuts (negative reals for log/sqrt/pow, real |x| > 1 for
asin/acos/atanh, the imaginary axis beyond ±i for asinh/atan, Re(z) < 0 for
acosh), each with both signs of zero.

PyTorch's real-tensor ops (clamp, clamp_min, clamp_max, maximum, minimum,
sigmoid, silu, erf, gelu, amax, amin, var, std_dev, softmax, log_softmax,
layer_norm, rms_norm, einsum, and conj / conj_physical / resolve_conj / real
of a real tensor) have real inputs (kind r) in the same files: the dtype tag
c64 / c128 then means float32 / float64. Their special-value cases use a grid
of reals: ±0, ±1, subnormals, the exp thresholds, huge values, ±inf, NaN.
rms_norm is Llama's RMSNorm (x * rsqrt(mean(x^2) + eps) * weight; PyTorch
1.13 has no rms_norm); einsum equations are string parameters (type s).

The elementwise ops with unary kernels, with binary kernels (add, …,
pow_tensor; maximum, …, clamp_max) and the tensor-number ops (add_scalar, …)
are read from the op list (include/realify/ops/tags.hpp, its kernels
column) with their records. Each op with unary kernels gets complex cases
where PyTorch 1.13 has its complex form (the record's torch_complex), else
real cases where PyTorch has its real form (torch_real: expm1, log1p, ceil,
floor, round, trunc, whose complex forms PyTorch 1.13 rejects; sigmoid,
silu, erf, which realify defines on real tensors only). squeeze_dims (aten squeeze.dims, PyTorch >= 2.0)
is composed from squeeze.dim calls, which is its documented meaning.
getitem has no single aten signature and is not covered here.

The ops a decoder layer needs: scaled_dot_product_attention (PyTorch 1.13
has no F.scaled_dot_product_attention: its documented formula, softmax(q kT
scale + mask) v, materialised in float64; kind b / r masks, is_causal, scale,
enable_gqa as parameters), linear (F.linear), triu, tril, hstack, and the
creation ops arange, full, zeros, ones (no inputs: sizes and values are
parameters). empty and empty_like have no values to check, rope is not a
PyTorch op (its goldens are tests/golden/rope and graph/, for the (xq, xk)
form, which the one-tensor form matches bit for bit).
"""

import math
import os
import re
import sys
import zlib

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "golden")

DTYPES = [("c64", torch.complex64, np.complex64, torch.float32),
          ("c128", torch.complex128, np.complex128, torch.float64)]

INF = math.inf
NAN = math.nan

# Components of the special-value grid.
SPECIAL_COMPONENTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, INF, -INF, NAN, 1e30, -1e30, 1e-30, -1e-30]


def special_grid():
    return np.array([complex(re, im) for re in SPECIAL_COMPONENTS for im in SPECIAL_COMPONENTS],
                    dtype=np.complex128)


def with_both_zero_signs(reals, imags):
    """Points re + i*im for every pair, where a zero component appears as +0 and -0."""
    out = []
    for re in reals:
        for im in imags:
            for sre in ([re] if re != 0 else [0.0, -0.0]):
                for sim in ([im] if im != 0 else [0.0, -0.0]):
                    out.append(complex(sre, sim))
    return np.array(out, dtype=np.complex128)


def branch_cut_points():
    """Points on/near the branch cuts of log, sqrt, pow, asin, acos, atanh, asinh, atan, acosh."""
    negative_reals = with_both_zero_signs([-0.5, -1.0, -2.0, -1e30, -1e-30], [0.0])
    real_beyond_one = with_both_zero_signs([1.5, -1.5, 2.0, -3.0, 1e30, -1e30], [0.0])
    imag_axis = with_both_zero_signs([0.0], [1.5, -1.5, 2.0, -3.0, 0.5, -0.5, 1e30, -1e30])
    left_half = np.array([-1 + 1j, -2 - 0.5j, -0.3 + 2j, -0.3 - 2j, -5 + 1e-3j, -0.5 - 1e-30j,
                          -1e30 + 1j, -1e-30 - 1j], dtype=np.complex128)
    near_cut = np.array([-2 + 1e-30j, -2 - 1e-30j, 2 + 1e-30j, 2 - 1e-30j, 1e-30 + 2j, -1e-30 + 2j],
                        dtype=np.complex128)
    unit = with_both_zero_signs([1.0, -1.0], [0.0]).tolist() + with_both_zero_signs([0.0], [1.0, -1.0]).tolist()
    return np.concatenate([negative_reals, real_beyond_one, imag_axis, left_half, near_cut,
                           np.array(unit, dtype=np.complex128)])


def rng_for(op, label):
    return np.random.default_rng(zlib.crc32(f"{op}/{label}".encode()))


def rand_complex(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * scale


def rand_real(rng, shape, scale=1.0):
    return rng.standard_normal(shape) * scale


def fmt_real(x):
    return repr(float(x))


def fmt_param(value):
    if isinstance(value, str):
        assert " " not in value
        return "s:" + value
    if isinstance(value, bool):
        return "b:" + ("1" if value else "0")
    if isinstance(value, int):
        return f"i:{value}"
    if isinstance(value, (list, tuple)):
        return "l:" + ",".join(str(int(v)) for v in value)
    if isinstance(value, complex):
        return f"c:{fmt_real(value.real)},{fmt_real(value.imag)}"
    if isinstance(value, float):
        return "r:" + fmt_real(value)
    raise TypeError(value)


class OpWriter:
    """Collects the cases of one op for one dtype into one flat array (file
    <stem>.<tag>.npy; the stem is the op's name, or <op>_reals for the real
    cases of an op whose complex cases have a file of their own)."""

    def __init__(self, op, tag, np_dtype, stem=None):
        self.op = op
        self.tag = tag
        self.np_dtype = np_dtype
        self.file = f"{stem or op}.{tag}.npy"
        self.chunks = []
        self.offset = 0
        self.lines = []

    def _store(self, kind, array):
        array = np.asarray(array)
        shape = "-" if array.ndim == 0 else ",".join(str(d) for d in array.shape)
        flat = np.ascontiguousarray(array).reshape(-1)
        if kind == "c":
            data = flat.astype(self.np_dtype)
        else:
            data = flat.astype(np.float64).astype(self.np_dtype)
        token = f"{kind}:{self.offset}:{shape}"
        self.chunks.append(data)
        self.offset += data.size
        return token

    def case(self, label, inputs, outputs, params=None, special=False):
        tokens = ["case", f"op={self.op}", f"dtype={self.tag}", f"file={self.file}", f"label={label}",
                  f"special={1 if special else 0}"]
        for kind, array in inputs:
            tokens.append("in=" + self._store(kind, array))
        for kind, array in outputs:
            tokens.append("out=" + self._store(kind, array))
        for name, value in (params or {}).items():
            tokens.append(f"p.{name}={fmt_param(value)}")
        self.lines.append(" ".join(tokens))

    def write(self):
        data = np.concatenate(self.chunks) if self.chunks else np.zeros(0, dtype=self.np_dtype)
        assert data.dtype == self.np_dtype
        np.save(os.path.join(OUT_DIR, self.file), data)


def to_np(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bool:
        return t.numpy().astype(np.float64)
    return t.numpy()


def out_kind(t):
    if t.dtype == torch.bool:
        return "b"
    if t.dtype.is_complex:
        return "c"
    if t.dtype.is_floating_point:
        return "r"
    return "i"


class Ctx:
    """Per op and dtype: turns numpy complex128 inputs into torch tensors of the case dtype."""

    def __init__(self, writer, cdtype, rdtype):
        self.w = writer
        self.cdtype = cdtype
        self.rdtype = rdtype

    def c(self, array):
        return torch.from_numpy(np.asarray(array, dtype=np.complex128)).to(self.cdtype)

    def r(self, array):
        return torch.from_numpy(np.asarray(array, dtype=np.float64)).to(self.rdtype)

    def b(self, array):
        return torch.from_numpy(np.asarray(array, dtype=bool))

    def run(self, label, fn, inputs, params=None, special=False):
        """inputs: list of torch tensors; fn(*inputs) -> tensor or tuple of tensors."""
        result = fn(*inputs)
        results = list(result) if isinstance(result, (tuple, list)) else [result]
        ins = [(out_kind(t), to_np(t)) for t in inputs]
        outs = [(out_kind(t), to_np(t)) for t in results]
        self.w.case(label, ins, outs, params, special)


# ---------------------------------------------------------------------------
# Op families

UNARY_SHAPES = [(), (0,), (7,), (3, 5), (2, 0, 3), (2, 3, 1, 4)]

def op_list():
    """The op list of include/realify/ops/tags.hpp: name -> (kernels, record fields).

    Each line is X(__VA_ARGS__ name, arity, kind, kernels[, .field = value, ...]);
    a field not written has op_record's default (PyTorch has the op on complex
    and on real tensors)."""
    path = os.path.join(ROOT, "include", "realify", "ops", "tags.hpp")
    ops = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*X\(__VA_ARGS__ (\w+), -?\d+, \w+, (\w+)((?:, \.\w+ = [^,)]+)*)\)", line)
            if m:
                fields = dict(re.findall(r"\.(\w+) = ([^,)]+)", m.group(3)))
                ops[m.group(1)] = (m.group(2), {k: v.strip() for k, v in fields.items()})
    if not ops:
        sys.exit("gen_golden.py: no op list in " + path)
    return ops


def torch_has(record, field):
    return record.get(field, "true") == "true"


# The ops with unary kernels (the kernels column of the op list): goldens of
# their complex form where PyTorch 1.13 has it, else of their real form.
UNARY_KERNELS_WITH_COMPLEX_FORM = ("unary_math", "real_output", "complex_part")
UNARY_KERNELS = UNARY_KERNELS_WITH_COMPLEX_FORM + ("real_unary",)

# The ops with binary kernels (complex and real operands in any mix; real
# operands only) and the tensor-number ops without kernels of their own.
BINARY_KERNELS = ("binary_math", "binary_math_with_constant")
ORDERING_KERNELS = ("real_binary",)
SCALAR_KERNELS = ("scalar",)

# PyTorch's function of an op where it is not torch.<name>.
TORCH_FUNCTION = {
    "conj": lambda x: torch.conj(x).resolve_conj(), "real": lambda x: torch.real(x).clone(),
    "imag": lambda x: torch.imag(x).clone(), "silu": torch.nn.functional.silu,
    "detach": lambda x: x.detach().clone(), "alias": lambda x: torch.ops.aten.alias(x).clone(),
    "pow_tensor": torch.pow, "add_scalar": torch.add, "sub_scalar": torch.sub, "mul_scalar": torch.mul,
    "div_scalar": torch.div,
}


def torch_function(op):
    return TORCH_FUNCTION.get(op) or getattr(torch, op)


OP_LIST = op_list()

UNARY_OPS = {op: torch_function(op) for op, (kernels, record) in OP_LIST.items()
             if kernels in UNARY_KERNELS_WITH_COMPLEX_FORM and torch_has(record, "torch_complex")}
# ops without kernels whose goldens are unary cases of complex tensors
UNARY_OPS.update({op: torch_function(op) for op in ("isnan", "isinf", "clone", "detach", "alias")})


def gen_unary(ctx, op, fn):
    for shape in UNARY_SHAPES:
        label = "shape_" + ("x".join(map(str, shape)) or "scalar")
        rng = rng_for(op, label)
        ctx.run(label, fn, [ctx.c(rand_complex(rng, shape, 1.5))])
    # Wide dynamic range: magnitudes from 1e-30 to 1e30 (finite results or
    # PyTorch's inf/NaN, whichever it gives).
    rng = rng_for(op, "wide")
    mags = 10.0 ** rng.uniform(-30, 30, size=24)
    phases = rng.uniform(-math.pi, math.pi, size=24)
    ctx.run("wide_range", fn, [ctx.c(mags * np.exp(1j * phases))])
    ctx.run("special_grid", fn, [ctx.c(special_grid())], special=True)
    ctx.run("branch_cuts", fn, [ctx.c(branch_cut_points())], special=True)


BINARY_SHAPE_PAIRS = [((), ()), ((5,), (5,)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 1, 3), (4, 1)),
                      ((0, 3), (3,)), ((2, 0), (1, 1)), ((), (2, 3)), ((2, 3, 1, 2), (3, 5, 1))]

BINARY_OPS = {op: torch_function(op) for op, (kernels, record) in OP_LIST.items() if kernels in BINARY_KERNELS}


def gen_binary(ctx, op, fn):
    for sa, sb in BINARY_SHAPE_PAIRS:
        label = "bcast_" + ("x".join(map(str, sa)) or "s") + "_" + ("x".join(map(str, sb)) or "s")
        rng = rng_for(op, label)
        # the second operand as the first, but for the record's exponent_scale (pow_tensor's exponent)
        scale_b = float(OP_LIST[op][1].get("exponent_scale", 1.5))
        ctx.run(label, fn, [ctx.c(rand_complex(rng, sa, 1.5)), ctx.c(rand_complex(rng, sb, scale_b))])
    if op != "pow_tensor":
        # complex op real tensor (the real side broadcasts over complex
        # elements, never over the (re, im) axis), both argument orders.
        rng = rng_for(op, "mixed_real")
        ctx.run("complex_real_3x4_4", fn, [ctx.c(rand_complex(rng, (3, 4))), ctx.r(rand_real(rng, (4,)))])
        ctx.run("complex_real_2_2x1", fn, [ctx.c(rand_complex(rng, (2,))), ctx.r(rand_real(rng, (2, 1)))])
        ctx.run("real_complex_3x1_1x2", fn, [ctx.r(rand_real(rng, (3, 1))), ctx.c(rand_complex(rng, (1, 2)))])
    if op in ("add", "sub"):
        rng = rng_for(op, "alpha")
        a, b = rand_complex(rng, (3, 4)), rand_complex(rng, (4,))
        ctx.run("alpha_real", lambda x, y: fn(x, y, alpha=2.5), [ctx.c(a), ctx.c(b)], {"alpha": 2.5})
        ctx.run("alpha_complex", lambda x, y: fn(x, y, alpha=0.5 - 1.5j), [ctx.c(a), ctx.c(b)],
                {"alpha": complex(0.5, -1.5)})
    rng = rng_for(op, "wide")
    n = 24
    a = 10.0 ** rng.uniform(-30, 30, n) * np.exp(1j * rng.uniform(-math.pi, math.pi, n))
    b = 10.0 ** rng.uniform(-30, 30, n) * np.exp(1j * rng.uniform(-math.pi, math.pi, n))
    if op == "pow_tensor":
        b = rand_complex(rng, (n,), 0.7)
    ctx.run("wide_range", fn, [ctx.c(a), ctx.c(b)])
    grid = special_grid()
    rng = rng_for(op, "special")
    perm = grid[rng.permutation(grid.size)]
    ctx.run("special_grid_a", fn, [ctx.c(grid), ctx.c(perm)], special=True)
    ctx.run("special_grid_b", fn, [ctx.c(perm), ctx.c(grid)], special=True)
    if op == "pow_tensor":
        cuts = branch_cut_points()
        exps = np.resize(np.array([0.5, 2.0, -1.0, 1.5 + 0.5j, 1j, 0.0, 3.0]), cuts.size)
        ctx.run("branch_cuts", fn, [ctx.c(cuts), ctx.c(exps)], special=True)


SCALAR_OPS = {op: torch_function(op) for op, (kernels, record) in OP_LIST.items() if kernels in SCALAR_KERNELS}
SCALARS = [2.5, -0.0, complex(1.5, -2.0), complex(0.0, 1.0), complex(-3.0, 0.0)]


def gen_scalar(ctx, op, fn):
    for k, s in enumerate(SCALARS):
        for shape in [(), (4,), (2, 3), (0, 2)]:
            label = f"s{k}_" + ("x".join(map(str, shape)) or "scalar")
            rng = rng_for(op, label)
            ctx.run(label, lambda x: fn(x, s), [ctx.c(rand_complex(rng, shape, 1.5))], {"other": s})
    for k, s in enumerate([2.5, complex(0.0, -1.0), -0.0]):
        ctx.run(f"special_grid_s{k}", lambda x: fn(x, s), [ctx.c(special_grid())], {"other": s}, special=True)


POW_EXPONENTS = [2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 2.5, 0.0, 1.0, complex(1.0, 1.0), complex(0.0, -2.0), 2, 3]


def gen_pow_scalar(ctx, op):
    for k, e in enumerate(POW_EXPONENTS):
        for shape in [(), (6,), (2, 0), (3, 4)]:
            label = f"e{k}_" + ("x".join(map(str, shape)) or "scalar")
            rng = rng_for(op, label)
            ctx.run(label, lambda x: torch.pow(x, e), [ctx.c(rand_complex(rng, shape, 1.5))], {"exponent": e})
    for k, e in enumerate([2.0, 0.5, -1.0, 2.5, complex(0.0, 1.0), 3]):
        ctx.run(f"special_grid_e{k}", lambda x: torch.pow(x, e), [ctx.c(special_grid())], {"exponent": e},
                special=True)
        ctx.run(f"branch_cuts_e{k}", lambda x: torch.pow(x, e), [ctx.c(branch_cut_points())], {"exponent": e},
                special=True)


def gen_polar(ctx, op):
    for shape_a, shape_b in [((), ()), ((5,), (5,)), ((3, 1), (4,)), ((0,), (1,))]:
        label = "bcast_" + ("x".join(map(str, shape_a)) or "s") + "_" + ("x".join(map(str, shape_b)) or "s")
        rng = rng_for(op, label)
        ctx.run(label, torch.polar, [ctx.r(np.abs(rand_real(rng, shape_a, 2.0))),
                                     ctx.r(rand_real(rng, shape_b, 2.0))])
    comps = [0.0, -0.0, 1.0, 2.0, INF, NAN, 1e30, 1e-30]
    angles = [0.0, -0.0, 1.0, -2.0, math.pi, INF, -INF, NAN, 1e30, 1e-30]
    a = np.array([x for x in comps for _ in angles])
    t = np.array([y for _ in comps for y in angles])
    ctx.run("special_grid", torch.polar, [ctx.r(a), ctx.r(t)], special=True)


def dot_via_gemm(a, b):
    """dot of two 1-D tensors through a (1,n)@(n,1) matmul.

    Debian's PyTorch 1.13 returns 0 from torch.dot / torch.vdot / 1-D·1-D
    torch.matmul on complex tensors (its BLAS ?dotu/?dotc call returns the
    complex result through the wrong ABI); gemm is unaffected. check_linalg()
    below verifies every linalg golden against numpy in complex128.
    """
    return (a.unsqueeze(0) @ b.unsqueeze(1)).reshape(())


def torch_matmul(a, b):
    if a.dim() == 1 and b.dim() == 1:
        return dot_via_gemm(a, b)
    return torch.matmul(a, b)


def check_linalg(op, a, b, result):
    """The golden must agree with numpy (complex128) to float32 accuracy."""
    x, y = a.numpy().astype(np.complex128), b.numpy().astype(np.complex128)
    expected = {"mm": np.matmul, "bmm": np.matmul, "matmul": np.matmul, "dot": np.dot,
                "vdot": np.vdot}[op](x, y)
    scale = np.abs(x).max(initial=0) * np.abs(y).max(initial=0) * max(a.shape[-1] if a.dim() else 1, 1)
    err = np.abs(result.numpy().astype(np.complex128) - expected).max(initial=0)
    assert err <= 1e-5 * max(scale, 1e-300), f"{op}: PyTorch result differs from numpy by {err}"


def gen_linalg(ctx, op):
    if op == "mm":
        cases = [((3, 4), (4, 2)), ((1, 1), (1, 1)), ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((5, 7), (7, 6))]
        fn = torch.mm
    elif op == "bmm":
        cases = [((2, 3, 4), (2, 4, 5)), ((0, 2, 2), (0, 2, 3)), ((3, 1, 6), (3, 6, 1)), ((1, 0, 2), (1, 2, 4))]
        fn = torch.bmm
    elif op == "matmul":
        cases = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2)), ((2, 3, 4), (4, 5)),
                 ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,)), ((0, 3, 4), (4, 2)),
                 ((3, 0), (0, 2))]
        fn = torch_matmul
    elif op in ("dot", "vdot"):
        cases = [((7,), (7,)), ((1,), (1,)), ((0,), (0,)), ((33,), (33,))]
        fn = dot_via_gemm if op == "dot" else (lambda a, b: dot_via_gemm(a.conj().resolve_conj(), b))
    checked = lambda a, b: checked_result(op, fn, a, b)
    for sa, sb in cases:
        label = "x".join(map(str, sa)) + "_" + "x".join(map(str, sb))
        rng = rng_for(op, label)
        ctx.run(label, checked, [ctx.c(rand_complex(rng, sa)), ctx.c(rand_complex(rng, sb))])
    # Mixed magnitudes (no overflow) to check accumulation accuracy.
    rng = rng_for(op, "wide")
    sa, sb = cases[0]
    a = rand_complex(rng, sa) * 10.0 ** rng.uniform(-8, 8, sa)
    b = rand_complex(rng, sb) * 10.0 ** rng.uniform(-8, 8, sb)
    ctx.run("wide_range", checked, [ctx.c(a), ctx.c(b)])


def checked_result(op, fn, a, b):
    result = fn(a, b)
    check_linalg(op, a, b, result)
    return result


def gen_construction(ctx, op):
    for shape in [(), (0,), (3,), (2, 3)]:
        label = "x".join(map(str, shape)) or "scalar"
        rng = rng_for(op, label)
        x = ctx.c(rand_complex(rng, shape))
        if op == "ones_like":
            ctx.run(label, torch.ones_like, [x])
        elif op == "zeros_like":
            ctx.run(label, torch.zeros_like, [x])
        elif op == "full_like":
            for k, v in enumerate([complex(1.5, -2.0), 3.0, complex(INF, NAN)]):
                ctx.run(f"{label}_v{k}", lambda t: torch.full_like(t, v), [x], {"fill_value": v})
    if op == "scalar_tensor":
        for k, v in enumerate([complex(1.5, -2.0), 3.0, complex(0.0, -1.0), complex(-0.0, INF)]):
            ctx.w.case(f"v{k}", [], [("c", to_np(torch.scalar_tensor(v, dtype=ctx.cdtype)))],
                       {"value": complex(v)})


def gen_views(ctx, op):
    for shape in [(3,), (2, 4), (0, 5), (2, 3, 2)]:
        label = "x".join(map(str, shape))
        rng = rng_for(op, label)
        if op == "view_as_real":
            ctx.run(label, lambda t: torch.view_as_real(t).clone(), [ctx.c(rand_complex(rng, shape))])
        else:
            ctx.run(label, lambda t: torch.view_as_complex(torch.empty(t.shape, dtype=t.dtype).copy_(t)).clone(),
                    [ctx.r(rand_real(rng, shape + (2,)))])
    if op == "view_as_real":
        ctx.run("special_grid", lambda t: torch.view_as_real(t).clone(), [ctx.c(special_grid())], special=True)


def shape_cases(op):
    """(label, input shapes, fn, params) for shape/layout ops."""
    C = []
    if op == "permute":
        for shape, dims in [((2, 3), [1, 0]), ((2, 3, 4), [2, 0, 1]), ((2, 3, 4), [-1, 0, -2]),
                            ((0, 2, 3), [1, 2, 0]), ((5,), [0]), ((), [])]:
            C.append(([shape], lambda x, d=dims: x.permute(d), {"dims": dims}))
    elif op in ("reshape", "view", "unsafe_view"):
        f = {"reshape": torch.reshape, "view": lambda x, s: x.view(s),
             "unsafe_view": torch.ops.aten._unsafe_view}[op]
        for shape, new in [((2, 6), [3, 4]), ((2, 3, 4), [-1, 4]), ((6,), [1, 2, 1, 3]), ((0, 4), [2, 0, 3]),
                           ((), [1]), ((1,), []), ((3, 4), [12])]:
            C.append(([shape], lambda x, s=new: f(x, s), {"shape": new}))
    elif op == "flatten":
        for shape, s, e in [((2, 3, 4), 0, -1), ((2, 3, 4), 1, 2), ((2, 3, 4, 5), -3, -2), ((), 0, -1),
                            ((0, 3), 0, 1), ((3,), 0, 0)]:
            C.append(([shape], lambda x, s=s, e=e: torch.flatten(x, s, e), {"start_dim": s, "end_dim": e}))
    elif op == "unsqueeze":
        for shape, d in [((3,), 0), ((3,), 1), ((3,), -1), ((2, 3), -2), ((), 0), ((0, 2), 2)]:
            C.append(([shape], lambda x, d=d: torch.unsqueeze(x, d), {"dim": d}))
    elif op == "squeeze":
        for shape in [(1, 3, 1), (3,), (1,), (1, 0, 1, 2), (2, 1, 4)]:
            C.append(([shape], torch.squeeze, {}))
    elif op == "squeeze_dim":
        for shape, d in [((1, 3, 1), 0), ((1, 3, 1), -1), ((2, 3), 1), ((3, 1, 2), 1), ((1,), 0)]:
            C.append(([shape], lambda x, d=d: torch.squeeze(x, d), {"dim": d}))
    elif op == "squeeze_dims":
        def sq(x, dims):
            n = x.dim()
            for d in sorted({d % n if n else 0 for d in dims}, reverse=True):
                x = torch.squeeze(x, d)
            return x
        for shape, dims in [((1, 3, 1), [0, 2]), ((1, 3, 1), [-1]), ((2, 1, 1, 4), [1, -2]), ((2, 3), [0, 1]),
                            ((1, 1), [0])]:
            C.append(([shape], lambda x, d=dims: sq(x, d), {"dims": dims}))
    elif op in ("cat", "stack"):
        f = torch.cat if op == "cat" else torch.stack
        if op == "cat":
            specs = [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], 1), ([(2, 3), (2, 2)], -1),
                     ([(3,)], 0), ([(0, 2), (3, 2)], 0), ([(1, 2, 3), (1, 2, 3), (1, 2, 3)], 2)]
        else:
            specs = [([(2, 3), (2, 3)], 0), ([(2, 3), (2, 3), (2, 3)], 2), ([(3,), (3,)], -1),
                     ([(), ()], 0), ([(0, 2)], 1), ([(2, 3), (2, 3)], -2)]
        for shapes, d in specs:
            C.append((shapes, lambda *xs, d=d: f(list(xs), d), {"dim": d}))
    elif op == "t":
        for shape in [(2, 3), (4,), (), (0, 3)]:
            C.append(([shape], torch.t, {}))
    elif op == "transpose":
        for shape, a, b in [((2, 3), 0, 1), ((2, 3, 4), 0, 2), ((2, 3, 4), -1, 1), ((3,), 0, -1), ((0, 2, 3), 1, 2)]:
            C.append(([shape], lambda x, a=a, b=b: torch.transpose(x, a, b), {"dim0": a, "dim1": b}))
    elif op == "select":
        for shape, d, i in [((3, 4), 0, 1), ((3, 4), 1, -1), ((2, 3, 4), -2, 2), ((5,), 0, 4), ((2, 0), 0, 1)]:
            C.append(([shape], lambda x, d=d, i=i: torch.select(x, d, i), {"dim": d, "index": i}))
    elif op == "slice":
        for shape, d, s, e, st in [((6, 3), 0, 1, 5, 2), ((6, 3), 1, 0, 3, 1), ((2, 7), -1, -5, 100, 3),
                                   ((4,), 0, 2, 2, 1), ((3, 4, 5), 2, 1, -1, 2), ((5,), 0, -100, 3, 1)]:
            C.append(([shape], lambda x, d=d, s=s, e=e, st=st: torch.ops.aten.slice(x, d, s, e, st),
                      {"dim": d, "start": s, "end": e, "step": st}))
    elif op == "split":
        for shape, size, d in [((5, 2), 2, 0), ((3, 6), 3, 1), ((3, 4), 5, -1), ((0, 3), 2, 1), ((7,), 1, 0)]:
            C.append(([shape], lambda x, z=size, d=d: torch.split(x, z, d), {"split_size": size, "dim": d}))
    elif op == "split_with_sizes":
        for shape, sizes, d in [((5, 2), [2, 3], 0), ((3, 6), [1, 0, 5], 1), ((3, 4), [4], -1)]:
            C.append(([shape], lambda x, z=sizes, d=d: torch.split(x, z, d), {"split_sizes": sizes, "dim": d}))
    elif op == "chunk":
        for shape, n, d in [((6, 2), 3, 0), ((5, 2), 2, 0), ((3, 7), 4, -1), ((2, 3), 5, 1)]:
            C.append(([shape], lambda x, n=n, d=d: torch.chunk(x, n, d), {"chunks": n, "dim": d}))
    elif op == "expand":
        for shape, size in [((3, 1), [3, 4]), ((1,), [2, 3]), ((2, 1, 3), [-1, 5, -1]), ((), [2, 2]),
                            ((1, 3), [0, 3]), ((3,), [2, 1, 3])]:
            C.append(([shape], lambda x, s=size: x.expand(s).clone(), {"size": size}))
    elif op == "narrow":
        for shape, d, s, n in [((5, 3), 0, 1, 3), ((5, 3), -1, 2, 1), ((4,), 0, 0, 0), ((2, 6, 2), 1, -4, 2)]:
            C.append(([shape], lambda x, d=d, s=s, n=n: torch.narrow(x, d, s, n),
                      {"dim": d, "start": s, "length": n}))
    elif op == "roll":
        for shape, sh, dims in [((5,), [2], [0]), ((3, 4), [1, -1], [0, 1]), ((3, 4), [5], []),
                                ((2, 3, 4), [-2], [-1]), ((0, 3), [1], [1])]:
            C.append(([shape], lambda x, sh=sh, dims=dims: torch.roll(x, sh, dims), {"shifts": sh, "dims": dims}))
    elif op == "flip":
        for shape, dims in [((5,), [0]), ((3, 4), [0, 1]), ((2, 3, 4), [-1]), ((0, 2), [1]), ((3, 4), [])]:
            C.append(([shape], lambda x, dims=dims: torch.flip(x, dims), {"dims": dims}))
    elif op == "repeat":
        for shape, reps in [((3,), [2]), ((2, 3), [2, 1]), ((2,), [3, 2]), ((), [2, 3]), ((2, 3), [0, 2])]:
            C.append(([shape], lambda x, r=reps: x.repeat(r), {"repeats": reps}))
    elif op in ("sum_dim", "mean_dim"):
        f = torch.sum if op == "sum_dim" else torch.mean
        for shape, dims, keep in [((3, 4), [0], False), ((3, 4), [1], True), ((2, 3, 4), [0, 2], False),
                                  ((2, 3, 4), [-1, -2], True), ((0, 3), [1], False), ((3, 0), [1], False),
                                  ((5,), [0], True), ((2, 3, 4, 5), [1, 3], False)]:
            if op == "mean_dim" and 0 in shape:
                continue  # mean of an empty slice is NaN; covered below with a non-empty result only
            C.append(([shape], lambda x, d=dims, k=keep: f(x, d, keepdim=k), {"dims": dims, "keepdim": keep}))
        if op == "mean_dim":
            C.append(([(3, 0)], lambda x: torch.mean(x, [1]), {"dims": [1], "keepdim": False}))
    elif op in ("sum", "mean"):
        f = torch.sum if op == "sum" else torch.mean
        for shape in [(), (5,), (3, 4), (2, 3, 4), (0, 3), (101,)]:
            C.append(([shape], f, {}))
    elif op == "prod_dim":
        for shape, d, keep in [((3, 4), 0, False), ((3, 4), 1, True), ((2, 3, 4), -1, False), ((0, 3), 1, False),
                               ((3, 0), 1, False), ((5,), 0, False)]:
            C.append(([shape], lambda x, d=d, k=keep: torch.prod(x, d, keepdim=k), {"dim": d, "keepdim": keep}))
    elif op == "cumsum":
        for shape, d in [((5,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4), 1), ((0, 3), 1), ((), 0)]:
            C.append(([shape], lambda x, d=d: torch.cumsum(x, d), {"dim": d}))
    elif op == "sym_size":
        for shape, d in [((2, 3), 0), ((2, 3), -1), ((0, 4, 5), 1)]:
            C.append(([shape], lambda x, d=d: torch.tensor(x.size(d), dtype=torch.int64), {"dim": d}))
    return C


SHAPE_OPS = ["permute", "reshape", "view", "unsafe_view", "flatten", "unsqueeze", "squeeze", "squeeze_dim",
             "squeeze_dims", "cat", "stack", "t", "transpose", "select", "slice", "split", "split_with_sizes",
             "chunk", "expand", "narrow", "roll", "flip", "repeat", "sum", "sum_dim", "mean", "mean_dim",
             "prod_dim", "cumsum", "sym_size"]


def gen_shape(ctx, op):
    for k, (shapes, fn, params) in enumerate(shape_cases(op)):
        label = f"c{k}_" + "_".join("x".join(map(str, s)) or "s" for s in shapes)
        rng = rng_for(op, label)
        ctx.run(label, fn, [ctx.c(rand_complex(rng, s)) for s in shapes], params)
    if op in ("prod_dim", "sum_dim", "cumsum"):
        # Products/sums that mix re and im: a component-wise product would be wrong here.
        x = np.array([[1j, 1j, 1j, 1j], [1 + 1j, 1 - 1j, 2j, -0.5 + 0j]])
        params = {"dim": 1, "keepdim": False} if op == "prod_dim" else (
            {"dims": [1], "keepdim": False} if op == "sum_dim" else {"dim": 1})
        d = 1
        fn = {"prod_dim": lambda t: torch.prod(t, d), "sum_dim": lambda t: torch.sum(t, [d]),
              "cumsum": lambda t: torch.cumsum(t, d)}[op]
        ctx.run("mixing", fn, [ctx.c(x)], params)


def gen_where(ctx, op):
    for k, (sc, sa, sb) in enumerate([((4,), (4,), (4,)), ((3, 1), (1, 4), (3, 4)), ((2, 3), (3,), ()),
                                      ((0, 2), (2,), (1, 2)), ((), (2, 2), (2, 1))]):
        label = f"c{k}"
        rng = rng_for(op, label)
        cond = rng.random(sc) < 0.5
        ctx.run(label, torch.where, [ctx.b(cond), ctx.c(rand_complex(rng, sa)), ctx.c(rand_complex(rng, sb))])
    grid = special_grid()
    rng = rng_for(op, "special")
    ctx.run("special_grid", torch.where, [ctx.b(rng.random(grid.size) < 0.5), ctx.c(grid),
                                          ctx.c(grid[rng.permutation(grid.size)])], special=True)


# ---------------------------------------------------------------------------
# PyTorch's real-tensor ops

# Reals of the special-value grid: signed zeros, subnormals (of float and of
# double), ordinary values, the exp thresholds, huge values, infinities, NaN.
SPECIAL_REALS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, -8.0, 20.0, -20.0, 88.0, -88.0, 100.0, -100.0, 750.0,
                 -750.0, 1e30, -1e30, 3e38, -3e38, 1e-30, -1e-30, 1e-40, -1e-40, 1e-310, -1e-310, INF, -INF, NAN]

REAL_SHAPES = [(), (0,), (7,), (3, 5), (2, 3, 1, 4)]


def label_of(shape):
    return "x".join(map(str, shape)) or "scalar"


REAL_UNARY_OPS = {op: torch_function(op) for op, (kernels, record) in OP_LIST.items()
                  if kernels in UNARY_KERNELS and torch_has(record, "torch_real")
                  and (kernels not in UNARY_KERNELS_WITH_COMPLEX_FORM or not torch_has(record, "torch_complex"))}
# real tensors through ops whose complex cases are above (conj, real), or without kernels
REAL_UNARY_OPS.update({
    "conj": lambda x: torch.conj(x).clone(), "conj_physical": torch.conj_physical,
    "resolve_conj": lambda x: torch.resolve_conj(x).clone(), "real": lambda x: torch.real(x).clone(),
})


def gen_real_unary(ctx, op, fn):
    for shape in REAL_SHAPES:
        rng = rng_for(op, "real_" + label_of(shape))
        ctx.run("real_" + label_of(shape), fn, [ctx.r(rand_real(rng, shape, 2.0))])
    rng = rng_for(op, "real_wide")
    ctx.run("wide_range", fn, [ctx.r(10.0 ** rng.uniform(-30, 30, 24) * np.where(rng.random(24) < 0.5, -1.0, 1.0))])
    ctx.run("special_grid", fn, [ctx.r(np.array(SPECIAL_REALS))], special=True)
    if op in ("conj_physical", "resolve_conj"):  # complex tensors too
        for shape in [(), (5,), (2, 3)]:
            rng = rng_for(op, "complex_" + label_of(shape))
            ctx.run("complex_" + label_of(shape), fn, [ctx.c(rand_complex(rng, shape))])
        ctx.run("complex_special_grid", fn, [ctx.c(special_grid())], special=True)


def gen_gelu(ctx, op):
    for approximate in ["none", "tanh"]:
        f = lambda x, a=approximate: torch.nn.functional.gelu(x, approximate=a)
        for shape in REAL_SHAPES:
            label = f"{approximate}_" + label_of(shape)
            ctx.run(label, f, [ctx.r(rand_real(rng_for(op, label), shape, 3.0))], {"approximate": approximate})
        rng = rng_for(op, approximate + "_wide")
        ctx.run("wide_range_" + approximate, f, [ctx.r(10.0 ** rng.uniform(-30, 3, 24) * np.where(rng.random(24) < 0.5, -1.0, 1.0))],
                {"approximate": approximate})
        ctx.run("special_grid_" + approximate, f, [ctx.r(np.array(SPECIAL_REALS))], {"approximate": approximate},
                special=True)


ORDERING_OPS = {op: torch_function(op) for op, (kernels, record) in OP_LIST.items() if kernels in ORDERING_KERNELS}


def gen_ordering(ctx, op, fn):
    for sa, sb in BINARY_SHAPE_PAIRS:
        label = "bcast_" + ("x".join(map(str, sa)) or "s") + "_" + ("x".join(map(str, sb)) or "s")
        rng = rng_for(op, label)
        ctx.run(label, fn, [ctx.r(rand_real(rng, sa)), ctx.r(rand_real(rng, sb))])
    grid = np.array(SPECIAL_REALS)
    a = np.repeat(grid, grid.size)
    b = np.tile(grid, grid.size)
    ctx.run("special_grid", fn, [ctx.r(a), ctx.r(b)], special=True)
    if op.startswith("clamp"):
        for k, v in enumerate([0.5, -1.0, 0.0, NAN, INF]):
            rng = rng_for(op, f"number{k}")
            ctx.run(f"number{k}", lambda x, v=v: fn(x, v), [ctx.r(rand_real(rng, (3, 4)))], {"other": v})


def gen_clamp(ctx, op):
    grid = np.array(SPECIAL_REALS)
    for k, (lo, hi) in enumerate([(-0.5, 0.5), (0.0, None), (None, 1.0), (2.0, 1.0), (NAN, 1.0), (0.0, NAN),
                                  (-INF, INF), (-0.0, 0.0)]):
        params = {}
        if lo is not None:
            params["min"] = lo
        if hi is not None:
            params["max"] = hi
        f = lambda x, lo=lo, hi=hi: torch.clamp(x, lo, hi)
        rng = rng_for(op, f"numbers{k}")
        ctx.run(f"numbers{k}", f, [ctx.r(rand_real(rng, (3, 5)))], params)
        ctx.run(f"special_grid{k}", f, [ctx.r(grid)], params, special=True)
    # tensor bounds, broadcast; a NaN bound gives NaN
    for k, (sx, sl, sh) in enumerate([((4,), (4,), (4,)), ((3, 4), (4,), (3, 1)), ((2, 1, 3), (1, 4, 1), ()),
                                      ((0, 2), (2,), (1, 2))]):
        rng = rng_for(op, f"tensors{k}")
        lo = rand_real(rng, sl)
        hi = lo + np.abs(rand_real(rng, sh)) if sl == sh else rand_real(rng, sh)
        ctx.run(f"tensors{k}", torch.clamp, [ctx.r(rand_real(rng, sx)), ctx.r(lo), ctx.r(hi)])
    rng = rng_for(op, "tensor_nan")
    ctx.run("tensor_nan_bounds", torch.clamp, [ctx.r(np.array([0.5, 0.5, 0.5, NAN, -1.0])),
                                               ctx.r(np.array([NAN, 0.0, 0.0, 0.0, 2.0])),
                                               ctx.r(np.array([1.0, NAN, 1.0, 1.0, 1.0]))], special=True)


def gen_extremum(ctx, op):
    f = torch.amax if op == "amax" else torch.amin
    for k, (shape, dims, keep) in enumerate([((5,), [], False), ((3, 4), [0], False), ((3, 4), [1], True),
                                             ((2, 3, 4), [0, 2], False), ((2, 3, 4), [-1, -2], True),
                                             ((3, 0), [0], False), ((), [], False), ((2, 3, 4, 5), [1, 3], False)]):
        rng = rng_for(op, f"c{k}")
        ctx.run(f"c{k}_" + label_of(shape), lambda x, d=dims, kk=keep: f(x, d, kk), [ctx.r(rand_real(rng, shape))],
                {"dims": dims, "keepdim": keep})
    grid = np.array(SPECIAL_REALS)
    ctx.run("special_rows", lambda x: f(x, [1]), [ctx.r(np.stack([grid, np.roll(grid, 5), np.where(np.isnan(grid), 0.0, grid)]))],
            {"dims": [1], "keepdim": False}, special=True)


def gen_variance(ctx, op):
    f = torch.var if op == "var" else torch.std
    for k, (shape, dims, corr, keep) in enumerate([((5,), [], 1, False), ((3, 4), [0], 1, False), ((3, 4), [1], 0, True),
                                                   ((2, 3, 4), [0, 2], 1, False), ((2, 3, 4), [-1], 2, True),
                                                   ((1, 3), [0], 1, False), ((2, 0), [1], 1, False),
                                                   ((2, 3, 4, 5), [1, 3], 1, False), ((300,), [0], 1, False)]):
        rng = rng_for(op, f"c{k}")
        args = {"dims": dims, "correction": corr, "keepdim": keep}
        fn = lambda x, d=dims, c=corr, kk=keep: f(x, d if d else None, correction=c, keepdim=kk)
        ctx.run(f"c{k}_" + label_of(shape), fn, [ctx.r(rand_real(rng, shape))], args)
    rng = rng_for(op, "offset")  # a large offset: two passes keep the digits
    ctx.run("offset", lambda x: f(x, [1], correction=1), [ctx.r(1e4 + rand_real(rng, (3, 50)))],
            {"dims": [1], "correction": 1, "keepdim": False})
    rng = rng_for(op, "complex")
    ctx.run("complex", lambda x: f(x, [1], correction=1), [ctx.c(rand_complex(rng, (3, 6)))],
            {"dims": [1], "correction": 1, "keepdim": False})
    ctx.run("special", lambda x: f(x, [1], correction=1), [ctx.r(np.array([[1.0, INF, 2.0], [1.0, NAN, 2.0], [-INF, INF, 0.0]]))],
            {"dims": [1], "correction": 1, "keepdim": False}, special=True)


def gen_softmax(ctx, op):
    f = torch.softmax if op == "softmax" else torch.log_softmax
    for k, (shape, dim) in enumerate([((7,), 0), ((3, 5), -1), ((3, 5), 0), ((2, 3, 4), 1), ((2, 0, 3), 1),
                                      ((), 0), ((4, 129), -1), ((2, 33, 3), -2)]):
        rng = rng_for(op, f"c{k}")
        ctx.run(f"c{k}_" + label_of(shape), lambda x, d=dim: f(x, d), [ctx.r(rand_real(rng, shape, 3.0))], {"dim": dim})
    rows = np.array([[-INF, -INF, 1.0], [INF, 1.0, 2.0], [NAN, 1.0, 2.0], [-INF, 0.0, -1e30], [1e30, 0.0, -1e30],
                     [-100.0, 0.0, -750.0], [-INF, -INF, -INF]])
    ctx.run("special_rows", lambda x: f(x, 1), [ctx.r(rows)], {"dim": 1}, special=True)


def gen_layer_norm(ctx, op):
    F = torch.nn.functional
    for k, (shape, norm, w, b, eps) in enumerate([((4, 8), [8], True, True, 1e-5), ((2, 3, 5), [3, 5], True, False, 1e-5),
                                                  ((6,), [6], False, False, 1e-6), ((2, 0, 4), [4], True, True, 1e-5),
                                                  ((3, 257), [257], True, True, 1e-5), ((2, 3), [3], False, True, 0.1)]):
        rng = rng_for(op, f"c{k}")
        x = ctx.r(rand_real(rng, shape, 2.0) + 3.0)
        ins = [x]
        if w:
            ins.append(ctx.r(1.0 + rand_real(rng, norm, 0.2)))
        if b:
            ins.append(ctx.r(rand_real(rng, norm, 0.5)))

        def fn(x, *wb, norm=norm, w=w, b=b, eps=eps):
            weight = wb[0] if w else None
            bias = wb[-1] if b else None
            return F.layer_norm(x, norm, weight, bias, eps)
        ctx.run(f"c{k}_" + label_of(shape), fn, ins, {"normalized_shape": norm, "weight": w, "bias": b, "eps": eps})
    ctx.run("special_rows", lambda x: F.layer_norm(x, [3], None, None, 1e-5),
            [ctx.r(np.array([[1.0, INF, 2.0], [1.0, NAN, 2.0], [5.0, 5.0, 5.0], [-1.0, 0.0, 1.0]]))],
            {"normalized_shape": [3], "weight": False, "bias": False, "eps": 1e-5}, special=True)


def gen_rms_norm(ctx, op):
    def llama(x, *w, norm, eps):
        dims = list(range(-len(norm), 0))
        y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
        return y * w[0] if w else y
    for k, (shape, norm, w, eps) in enumerate([((4, 8), [8], True, 1e-6), ((2, 3, 5), [3, 5], True, 1e-5),
                                               ((6,), [6], False, 1e-6), ((3, 257), [257], True, 1e-5),
                                               ((2, 0, 4), [4], True, 1e-6)]):
        rng = rng_for(op, f"c{k}")
        ins = [ctx.r(rand_real(rng, shape, 2.0))]
        if w:
            ins.append(ctx.r(1.0 + rand_real(rng, norm, 0.2)))
        ctx.run(f"c{k}_" + label_of(shape), lambda *a, norm=norm, eps=eps: llama(*a, norm=norm, eps=eps), ins,
                {"normalized_shape": norm, "weight": w, "eps": eps})


EINSUM_CASES = [("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]), ("bhqk,bhkd->bhqd", [(2, 3, 4, 6), (2, 3, 6, 5)]),
                ("bqhd,bkhd->bhqk", [(2, 4, 3, 5), (2, 6, 3, 5)]), ("ij,jk->ik", [(3, 4), (4, 2)]),
                ("ij,jk", [(3, 4), (4, 2)]), ("ba,ca", [(2, 3), (4, 3)]), ("ii->i", [(3, 3)]), ("ii", [(4, 4)]),
                ("ij->", [(3, 4)]), ("ij->ji", [(3, 4)]), ("i,j->ij", [(3,), (4,)]), ("i,i->", [(5,), (5,)]),
                ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("bij,bjk->bik", [(1, 3, 4), (5, 4, 2)]),
                ("...ij->ij", [(2, 3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("bii->bi", [(2, 3, 3)]),
                ("i,i->", [(0,), (0,)]), ("ij,jk->ik", [(0, 4), (4, 2)])]


def gen_einsum(ctx, op):
    for k, (equation, shapes) in enumerate(EINSUM_CASES):
        rng = rng_for(op, f"r{k}")
        ctx.run(f"real{k}", lambda *xs, e=equation: torch.einsum(e, *xs), [ctx.r(rand_real(rng, s)) for s in shapes],
                {"equation": equation})
    for k, (equation, shapes) in enumerate([EINSUM_CASES[0], EINSUM_CASES[3], EINSUM_CASES[6], EINSUM_CASES[12]]):
        rng = rng_for(op, f"c{k}")
        ctx.run(f"complex{k}", lambda *xs, e=equation: torch.einsum(e, *xs), [ctx.c(rand_complex(rng, s)) for s in shapes],
                {"equation": equation})


def attention_formula(q, k, v, mask=None, is_causal=False, scale=None, enable_gqa=False):
    """F.scaled_dot_product_attention as its documentation defines it (PyTorch
    1.13 has no such function): softmax(q kT scale + mask) v, materialised, in
    float64 whatever the case dtype; the result in the case dtype."""
    L, S, E = q.shape[-2], k.shape[-2], q.shape[-1]
    qd, kd, vd = q.double(), k.double(), v.double()
    if enable_gqa and q.dim() >= 3 and k.shape[-3] != q.shape[-3]:
        kd = kd.repeat_interleave(q.shape[-3] // k.shape[-3], dim=-3)
        vd = vd.repeat_interleave(q.shape[-3] // v.shape[-3], dim=-3)
    factor = 1.0 / math.sqrt(E) if scale is None else scale
    scores = qd @ kd.transpose(-2, -1) * factor
    if is_causal:
        scores = scores.masked_fill(torch.ones(L, S, dtype=torch.bool).tril().logical_not(), -INF)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), -INF) if mask.dtype == torch.bool else scores + mask.double()
    return (torch.softmax(scores, dim=-1) @ vd).to(q.dtype)


def gen_attention(ctx, op):
    # (q, k, v shapes, mask kind, is_causal, scale, enable_gqa)
    cases = [((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), None, False, None, False),
             ((2, 3, 5, 9), (2, 3, 7, 9), (2, 3, 7, 6), None, False, None, False),
             ((2, 3, 5, 9), (2, 3, 7, 9), (2, 3, 7, 6), None, True, None, False),
             ((1, 2, 70, 16), (1, 2, 130, 16), (1, 2, 130, 16), None, True, None, False),
             ((1, 4, 1, 64), (1, 4, 200, 64), (1, 4, 200, 64), None, False, None, False),
             ((1, 8, 3, 16), (1, 2, 40, 16), (1, 2, 40, 16), None, False, 0.3, True),
             ((2, 2, 6, 8), (2, 2, 70, 8), (2, 2, 70, 8), "bool", False, None, False),
             ((2, 2, 6, 8), (2, 2, 70, 8), (2, 2, 70, 8), "float", False, None, False),
             ((5, 4), (7, 4), (7, 3), None, True, None, False),
             ((3, 4, 8), (1, 6, 8), (1, 6, 8), None, False, None, False)]
    for n, (qs, ks, vs, mask, causal, scale, gqa) in enumerate(cases):
        rng = rng_for(op, f"c{n}")
        ins = [ctx.r(rand_real(rng, qs)), ctx.r(rand_real(rng, ks)), ctx.r(rand_real(rng, vs))]
        L, S = qs[-2], ks[-2]
        if mask == "bool":
            m = rng.random((L, S)) < 0.7
            m[2, :] = False  # a row that takes no key: NaN, as the formula
            ins.append(ctx.b(m))
        elif mask == "float":
            m = rand_real(rng, (qs[0], 1, L, S))
            m[0, 0, 1, ::3] = -INF
            ins.append(ctx.r(m))
        params = {"is_causal": causal, "has_scale": scale is not None, "scale": 0.0 if scale is None else scale,
                  "enable_gqa": gqa}
        ctx.run(f"c{n}_" + label_of(qs), lambda *a, causal=causal, scale=scale, gqa=gqa: attention_formula(
            *a[:3], a[3] if len(a) > 3 else None, causal, scale, gqa), ins, params)


def gen_linear(ctx, op):
    F = torch.nn.functional
    for n, (xs, out_features, bias) in enumerate([((2, 3, 4), 5, True), ((7, 33), 17, False), ((8,), 3, True),
                                                  ((2, 1, 3, 0), 4, True)]):
        rng = rng_for(op, f"r{n}")
        ins = [ctx.r(rand_real(rng, xs)), ctx.r(rand_real(rng, (out_features, xs[-1])))]
        if bias:
            ins.append(ctx.r(rand_real(rng, (out_features,))))
        ctx.run(f"real{n}_" + label_of(xs), lambda *a: F.linear(*a), ins, {"bias": bias})
    rng = rng_for(op, "complex")
    ins = [ctx.c(rand_complex(rng, (3, 4))), ctx.c(rand_complex(rng, (2, 4))), ctx.c(rand_complex(rng, (2,)))]
    ctx.run("complex", lambda *a: F.linear(*a), ins, {"bias": True})


def gen_triangle(ctx, op):
    f = torch.triu if op == "triu" else torch.tril
    for n, (shape, diagonal) in enumerate([((3, 5), 0), ((3, 5), 2), ((5, 3), -1), ((2, 4, 3), 1), ((2, 1, 4, 4), -3),
                                           ((3, 0), 0)]):
        rng = rng_for(op, f"c{n}")
        ctx.run(f"complex{n}_" + label_of(shape), lambda x, d=diagonal: f(x, d), [ctx.c(rand_complex(rng, shape))],
                {"diagonal": diagonal})
        ctx.run(f"real{n}_" + label_of(shape), lambda x, d=diagonal: f(x, d), [ctx.r(rand_real(rng, shape))],
                {"diagonal": diagonal})


def gen_hstack(ctx, op):
    for n, shapes in enumerate([[(3,), (2,)], [(2, 3), (2, 1), (2, 2)], [(2, 0, 3), (2, 2, 3)]]):
        rng = rng_for(op, f"c{n}")
        ctx.run(f"complex{n}", lambda *xs: torch.hstack(xs), [ctx.c(rand_complex(rng, s)) for s in shapes])
        ctx.run(f"real{n}", lambda *xs: torch.hstack(xs), [ctx.r(rand_real(rng, s)) for s in shapes])


def gen_creation(ctx, op):
    """The creation ops of a float dtype (the case's real dtype) and, full, a complex one."""
    if op == "arange":
        for n, (start, end, step) in enumerate([(0, 5, 1), (1, 2.5, 0.5), (0, 1, 0.1), (5, 0, -2), (-3.5, 3.0, 0.75),
                                                (3, 3, 1), (0, 1 - 1e-9, 0.25)]):
            ctx.run(f"c{n}", lambda: torch.arange(start, end, step, dtype=ctx.rdtype), [],
                    {"start": float(start), "end": float(end), "step": float(step),
                     "integral": all(isinstance(b, int) for b in (start, end, step))})
        return
    for n, shape in enumerate([[2, 3], [0, 4], [], [1, 2, 3]]):
        if op == "full":
            ctx.run(f"real{n}", lambda: torch.full(shape, -INF if n == 0 else 1.5, dtype=ctx.rdtype), [],
                    {"size": shape, "fill_value": -INF if n == 0 else 1.5})
            ctx.run(f"complex{n}", lambda: torch.full(shape, complex(1.5, -2.0), dtype=ctx.cdtype), [],
                    {"size": shape, "fill_value": complex(1.5, -2.0)})
        else:
            f = torch.zeros if op == "zeros" else torch.ones
            ctx.run(f"real{n}", lambda: f(shape, dtype=ctx.rdtype), [], {"size": shape})


def all_ops():
    ops = {}
    for op, fn in UNARY_OPS.items():
        ops[op] = lambda ctx, op=op, fn=fn: gen_unary(ctx, op, fn)
    for op, fn in BINARY_OPS.items():
        ops[op] = lambda ctx, op=op, fn=fn: gen_binary(ctx, op, fn)
    for op, fn in SCALAR_OPS.items():
        ops[op] = lambda ctx, op=op, fn=fn: gen_scalar(ctx, op, fn)
    ops["pow_scalar"] = lambda ctx: gen_pow_scalar(ctx, "pow_scalar")
    ops["polar"] = lambda ctx: gen_polar(ctx, "polar")
    for op in ("mm", "bmm", "matmul", "dot", "vdot"):
        ops[op] = lambda ctx, op=op: gen_linalg(ctx, op)
    for op in ("ones_like", "zeros_like", "full_like", "scalar_tensor"):
        ops[op] = lambda ctx, op=op: gen_construction(ctx, op)
    for op in ("view_as_real", "view_as_complex"):
        ops[op] = lambda ctx, op=op: gen_views(ctx, op)
    for op in SHAPE_OPS:
        ops[op] = lambda ctx, op=op: gen_shape(ctx, op)
    ops["where"] = lambda ctx: gen_where(ctx, "where")
    for op, fn in REAL_UNARY_OPS.items():
        if op in ops:  # conj, real: complex cases above, real ones in a file of their own
            ops[op + "_reals"] = lambda ctx, op=op, fn=fn: gen_real_unary(ctx, op, fn)
        else:
            ops[op] = lambda ctx, op=op, fn=fn: gen_real_unary(ctx, op, fn)
    ops["gelu"] = lambda ctx: gen_gelu(ctx, "gelu")
    for op, fn in ORDERING_OPS.items():
        ops[op] = lambda ctx, op=op, fn=fn: gen_ordering(ctx, op, fn)
    ops["clamp"] = lambda ctx: gen_clamp(ctx, "clamp")
    for op in ("amax", "amin"):
        ops[op] = lambda ctx, op=op: gen_extremum(ctx, op)
    for op in ("var", "std_dev"):
        ops[op] = lambda ctx, op=op: gen_variance(ctx, "var" if op == "var" else "std")
    for op in ("softmax", "log_softmax"):
        ops[op] = lambda ctx, op=op: gen_softmax(ctx, op)
    ops["layer_norm"] = lambda ctx: gen_layer_norm(ctx, "layer_norm")
    ops["rms_norm"] = lambda ctx: gen_rms_norm(ctx, "rms_norm")
    ops["einsum"] = lambda ctx: gen_einsum(ctx, "einsum")
    ops["scaled_dot_product_attention"] = lambda ctx: gen_attention(ctx, "scaled_dot_product_attention")
    ops["linear"] = lambda ctx: gen_linear(ctx, "linear")
    for op in ("triu", "tril"):
        ops[op] = lambda ctx, op=op: gen_triangle(ctx, op)
    ops["hstack"] = lambda ctx: gen_hstack(ctx, "hstack")
    for op in ("arange", "full", "zeros", "ones"):
        ops[op] = lambda ctx, op=op: gen_creation(ctx, op)
    return ops


def main():
    torch.set_num_threads(1)  # deterministic reduction order
    os.makedirs(OUT_DIR, exist_ok=True)
    for name in os.listdir(OUT_DIR):
        if name.endswith(".npy") or name == "manifest.txt":
            os.remove(os.path.join(OUT_DIR, name))
    lines = ["# realify goldens: generated by tools/gen_golden.py with PyTorch " + torch.__version__ +
             " (format described at the top of that script). Do not edit."]
    total = 0
    ops = all_ops()
    for stem in sorted(ops):
        op = stem[:-len("_reals")] if stem.endswith("_reals") else stem
        for tag, cdtype, np_dtype, rdtype in DTYPES:
            writer = OpWriter(op, tag, np_dtype, stem)
            ops[stem](Ctx(writer, cdtype, rdtype))
            writer.write()
            lines.extend(writer.lines)
            total += len(writer.lines)
    with open(os.path.join(OUT_DIR, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    size = sum(os.path.getsize(os.path.join(OUT_DIR, n)) for n in os.listdir(OUT_DIR))
    print(f"{len(ops)} ops, {total} cases, {size / 1e6:.2f} MB in {OUT_DIR}", file=sys.stderr)


if __name__ == "__main__":
    main()
