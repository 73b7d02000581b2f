#!/usr/bin/python3
"""PyTorch goldens for examples/graph_rope.cpp and tests/graph (realify::graph).

Run with Debian's /usr/bin/python3 (torch 1.13):  tools/gen_graph_golden.py
Writes raw little-endian float32 files into tests/golden/graph/ (no header:
the shapes are fixed here and repeated in the C++ sources), committed so CI
never needs torch.

The case is Meta Llama's apply_rotary_emb (llama_apply_rotary_emb of
gen_rope_golden.py, whose .to(xq.dtype) is Llama's .float() for these
float32 inputs): view_as_complex of
xq.float().reshape(*xq.shape[:-1], -1, 2), reshape_for_broadcast, view_as_real
of the complex product, flatten(3), type_as, at a Llama-like shape:
batch 1, seq 16, q heads 8, k heads 2 (GQA), head_dim 128, theta 500000
(Llama 3), positions 0..15. freqs_cis is complex64 (seq, 64), computed in
float64 and rounded, as the C++ side receives it.

Files (float32):
  rope_xq.f32       (1, 16, 8, 128)
  rope_xk.f32       (1, 16, 2, 128)
  rope_freqs.f32    (16, 64, 2)       view_as_real(freqs_cis)
  rope_out_q.f32    (1, 16, 8, 128)
  rope_out_k.f32    (1, 16, 2, 128)
"""
import os

import numpy as np
import torch

# Llama's formulas live in gen_rope_golden.py (this script's directory is on
# sys.path, and importing it runs nothing); one copy keeps both goldens in step.
from gen_rope_golden import freqs_cis as rope_freqs_cis
from gen_rope_golden import llama_apply_rotary_emb

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "graph")
B, S, HQ, HK, D, THETA = 1, 16, 8, 2, 128, 500000.0


def save(name, t):
    a = np.ascontiguousarray(t.detach().numpy().astype("<f4"))
    a.tofile(os.path.join(OUT, name))


def main():
    os.makedirs(OUT, exist_ok=True)
    g = torch.Generator().manual_seed(20241122)
    xq = torch.randn(B, S, HQ, D, generator=g, dtype=torch.float32)
    xk = torch.randn(B, S, HK, D, generator=g, dtype=torch.float32)
    # complex128 table rounded to complex64, as the C++ side receives it
    freqs_cis = rope_freqs_cis(D, range(S), THETA).to(torch.complex64)
    out_q, out_k = llama_apply_rotary_emb(xq, xk, freqs_cis)
    save("rope_xq.f32", xq)
    save("rope_xk.f32", xk)
    save("rope_freqs.f32", torch.view_as_real(freqs_cis))
    save("rope_out_q.f32", out_q)
    save("rope_out_k.f32", out_k)


if __name__ == "__main__":
    main()
