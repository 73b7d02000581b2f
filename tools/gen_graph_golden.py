#!/usr/bin/python3
"""PyTorch goldens for examples/graph_rope.cpp and tests/graph (realify::graph).

Run with Debian's /usr/bin/python3 (torch 1.13):  tools/gen_graph_golden.py
Writes raw little-endian float32 files into tests/golden/graph/ (no header:
the shapes are fixed here and repeated in the C++ sources), committed so CI
never needs torch.

The case is the seed's apply_rotary_emb, verbatim (view_as_complex of
xq.float().reshape(*xq.shape[:-1], -1, 2), reshape_for_broadcast, view_as_real
of the complex product, flatten(3), type_as) at a Llama-like shape:
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

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "graph")
B, S, HQ, HK, D, THETA = 1, 16, 8, 2, 128, 500000.0


def precompute_freqs_cis(dim, end, theta):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64)[: dim // 2] / dim))
    t = torch.arange(end, dtype=torch.float64)
    angles = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(angles), angles).to(torch.complex64)


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    assert 0 <= 1 < ndim
    assert freqs_cis.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def save(name, t):
    a = np.ascontiguousarray(t.detach().numpy().astype("<f4"))
    a.tofile(os.path.join(OUT, name))


def main():
    os.makedirs(OUT, exist_ok=True)
    g = torch.Generator().manual_seed(20241122)
    xq = torch.randn(B, S, HQ, D, generator=g, dtype=torch.float32)
    xk = torch.randn(B, S, HK, D, generator=g, dtype=torch.float32)
    freqs_cis = precompute_freqs_cis(D, S, THETA)
    out_q, out_k = apply_rotary_emb(xq, xk, freqs_cis)
    save("rope_xq.f32", xq)
    save("rope_xk.f32", xk)
    save("rope_freqs.f32", torch.view_as_real(freqs_cis))
    save("rope_out_q.f32", out_q)
    save("rope_out_k.f32", out_k)


if __name__ == "__main__":
    main()
