#!/usr/bin/python3
"""PyTorch goldens for examples/llama_layer.cpp: one Llama decoder layer
(tools/llama_reference.py, Meta's model.py structure) at a small
configuration — dim 64, 4 query heads, 2 key/value heads (head_dim 16),
SwiGLU hidden 176, RMSNorm eps 1e-5, RoPE θ 10000, batch 2 — run as a
prefill of 7 tokens (causal mask) and then a decode step of one token at
start_pos 7 against the KV cache the prefill filled.

Run with Debian's /usr/bin/python3 (torch 1.13):  tools/gen_llama_golden.py
Writes raw little-endian float32 files (no header: the shapes are fixed here
and repeated in the C++ source) into tests/golden/llama/, committed so CI
never needs torch:

  wq (64, 64)  wk (32, 64)  wv (32, 64)  wo (64, 64)        nn.Linear weights (out, in)
  w1 (176, 64) w2 (64, 176) w3 (176, 64)
  attention_norm (64)  ffn_norm (64)                       RMSNorm weights
  x_prefill (2, 7, 64)  out_prefill (2, 7, 64)
  x_decode (2, 1, 64)   out_decode (2, 1, 64)              at start_pos 7
"""
import os

import numpy as np
import torch

from llama_reference import SMALL, Layer

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "llama")
BATCH, PROMPT = 2, 7


def save(name, t):
    np.ascontiguousarray(t.detach().numpy().astype("<f4")).tofile(os.path.join(OUT, name + ".f32"))


def main():
    os.makedirs(OUT, exist_ok=True)
    g = torch.Generator().manual_seed(20261204)
    layer = Layer(SMALL, g)
    x_prefill = torch.randn(BATCH, PROMPT, SMALL.dim, generator=g)
    x_decode = torch.randn(BATCH, 1, SMALL.dim, generator=g)
    with torch.no_grad():
        out_prefill = layer.forward(x_prefill, 0)
        out_decode = layer.forward(x_decode, PROMPT)
    for name in ("wq", "wk", "wv", "wo", "w1", "w2", "w3", "attention_norm", "ffn_norm"):
        save(name, getattr(layer, name))
    save("x_prefill", x_prefill)
    save("out_prefill", out_prefill)
    save("x_decode", x_decode)
    save("out_decode", out_decode)


if __name__ == "__main__":
    main()
