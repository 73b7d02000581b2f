#!/usr/bin/python3
"""PyTorch goldens for realify's RoPE (tests/rope/test_rope.cpp).

Run with Debian's /usr/bin/python3 (torch 1.13):  tools/gen_rope_golden.py
Writes small .npy files into tests/golden/rope/; they are committed, so CI
never needs torch. Every case's parameters are repeated in test_rope.cpp.

Two tables are involved. Meta's reference (meta_freqs_cis below, verbatim
from Llama's model.py, with Llama 3.1's apply_scaling) computes frequencies
and angles in float32: realify's default table (angle_precision::
reference_float32) must reproduce it. The float64 table (freqs_cis below:
frequencies and angles in double) is realify's angle_precision::float64;
at position 8183 the two differ by ~5.8e-4 rad (theta 5e5).

Cases
  freqs.f64            float64 table: dim 16, end 12, theta 1e4  -> (12, 8, 2)
  freqs_llama31.f64    float64 table: dim 128, theta 5e5, Llama 3.1 scaling at
                       the positions in freqs_llama31_pos.f64     -> (P, 64, 2)
  freqs_ref_d{64,128}_t{1e4,5e5}_{plain,llama31}.f32
                       Meta's float32 table (end 8192) at the positions in
                       freqs_ref_pos.f64                          -> (P, dim/2, 2)
  interleaved.{f32,f64}  Meta's apply_rotary_emb (view_as_complex form) with
                       the float64 table: batch 2, seq 5, q heads 4, k heads 2,
                       head_dim 16, theta 1e4, start_pos 3
  half_split.{f32,f64}   Hugging Face rotate_half form, same shapes/positions
  llama31.f32          Meta's reference end to end: its float32 table (dim 128,
                       theta 5e5, Llama 3.1 scaling, end 8193) and its
                       apply_rotary_emb; batch 1, seq 3, q heads 4, k heads 2,
                       start_pos 8190
Each apply case writes <case>_xq, <case>_xk, <case>_out_q, <case>_out_k.
"""
import math
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "rope")


def apply_scaling(freqs: torch.Tensor):
    # Meta's Llama 3.1 reference (llama/model.py), verbatim.
    # Values obtained from grid search
    scale_factor = 8
    low_freq_factor = 1
    high_freq_factor = 4
    old_context_len = 8192  # original llama3 length

    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    new_freqs = []
    for freq in freqs:
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            new_freqs.append(freq)
        elif wavelen > low_freq_wavelen:
            new_freqs.append(freq / scale_factor)
        else:
            assert low_freq_wavelen != high_freq_wavelen
            smooth = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            new_freqs.append((1 - smooth) * freq / scale_factor + smooth * freq)
    return torch.tensor(new_freqs, dtype=freqs.dtype, device=freqs.device)


def meta_freqs_cis(dim: int, end: int, theta: float = 10000.0, use_scaled: bool = False):
    # Meta's Llama reference precompute_freqs_cis, verbatim: float32 throughout.
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device, dtype=torch.float32)
    if use_scaled:
        freqs = apply_scaling(freqs)
    freqs = torch.outer(t, freqs)
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # complex64
    return freqs_cis


def rope_frequencies(dim, theta, scaled):
    # theta^(-2j/dim), j = 0 .. dim/2-1, in float64
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64)[: dim // 2] / dim))
    if not scaled:
        return freqs
    # Meta's apply_scaling (Llama 3.1): factor 8, low 1, high 4, context 8192
    factor, low, high, context = 8.0, 1.0, 4.0, 8192.0
    low_wavelen = context / low
    high_wavelen = context / high
    out = []
    for f in freqs.tolist():
        wavelen = 2 * math.pi / f
        if wavelen < high_wavelen:
            out.append(f)
        elif wavelen > low_wavelen:
            out.append(f / factor)
        else:
            smooth = (context / wavelen - low) / (high - low)
            out.append((1 - smooth) * f / factor + smooth * f)
    return torch.tensor(out, dtype=torch.float64)


def freqs_cis(dim, positions, theta, scaled=False):
    freqs = rope_frequencies(dim, theta, scaled)
    t = torch.as_tensor(positions, dtype=torch.float64)
    angles = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(angles), angles)  # complex128


def reshape_for_broadcast(freqs_cis, x):
    shape = [d if i == 1 or i == x.ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def meta_apply_rotary_emb(xq, xk, freqs_cis):
    # Meta Llama's apply_rotary_emb, with the compute dtype of the
    # inputs (float() in the original; double() for the float64 goldens).
    real = xq.dtype
    xq_ = torch.view_as_complex(xq.to(real).reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.to(real).reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def hf_apply_rotary_pos_emb(q, k, freqs_cis):
    # HF form: cos/sin of shape (seq, dim) = cat(freqs, freqs); q is
    # (batch, seq, heads, dim) here, so cos/sin broadcast over heads.
    # cos/sin taken from the complex table itself, so both forms use one table
    cos = torch.cat((freqs_cis.real, freqs_cis.real), -1)[None, :, None, :].to(q.dtype)
    sin = torch.cat((freqs_cis.imag, freqs_cis.imag), -1)[None, :, None, :].to(q.dtype)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def save(name, tensor):
    array = tensor.detach().numpy() if isinstance(tensor, torch.Tensor) else tensor
    np.save(os.path.join(OUT, name + ".npy"), np.ascontiguousarray(array))


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(20261122)

    save("freqs.f64", torch.view_as_real(freqs_cis(16, range(12), 1e4)))
    positions = [0, 1, 7, 100, 2047, 8191, 8192, 10000, 65535]
    save("freqs_llama31_pos.f64", np.array(positions, dtype=np.float64))
    save("freqs_llama31.f64", torch.view_as_real(freqs_cis(128, positions, 5e5, scaled=True)))
    ref_positions = [0, 1, 2, 3, 100, 1000, 4095, 4096, 7695, 8000, 8183, 8191]
    save("freqs_ref_pos.f64", np.array(ref_positions, dtype=np.float64))
    for dim in (64, 128):
        for theta, theta_name in ((1e4, "1e4"), (5e5, "5e5")):
            for scaled, scaled_name in ((False, "plain"), (True, "llama31")):
                table = meta_freqs_cis(dim, 8192, theta, use_scaled=scaled)[ref_positions]
                save(f"freqs_ref_d{dim}_t{theta_name}_{scaled_name}.f32", torch.view_as_real(table))

    batch, seq, hq, hk, hd, start = 2, 5, 4, 2, 16, 3
    table = freqs_cis(hd, range(start, start + seq), 1e4)
    for suffix, dtype, ctype in (("f32", torch.float32, torch.complex64), ("f64", torch.float64, torch.complex128)):
        xq = torch.randn(batch, seq, hq, hd, dtype=dtype)
        xk = torch.randn(batch, seq, hk, hd, dtype=dtype)
        out_q, out_k = meta_apply_rotary_emb(xq, xk, table.to(ctype))
        for n, t in (("xq", xq), ("xk", xk), ("out_q", out_q), ("out_k", out_k)):
            save(f"interleaved_{n}.{suffix}", t)
        xq = torch.randn(batch, seq, hq, hd, dtype=dtype)
        xk = torch.randn(batch, seq, hk, hd, dtype=dtype)
        out_q, out_k = hf_apply_rotary_pos_emb(xq, xk, table.to(ctype))
        for n, t in (("xq", xq), ("xk", xk), ("out_q", out_q), ("out_k", out_k)):
            save(f"half_split_{n}.{suffix}", t)

    batch, seq, hq, hk, hd, start = 1, 3, 4, 2, 128, 8190
    table = meta_freqs_cis(hd, start + seq, 5e5, use_scaled=True)[start:]
    xq = torch.randn(batch, seq, hq, hd)
    xk = torch.randn(batch, seq, hk, hd)
    out_q, out_k = meta_apply_rotary_emb(xq, xk, table)
    for n, t in (("xq", xq), ("xk", xk), ("out_q", out_q), ("out_k", out_k)):
        save(f"llama31_{n}.f32", t)


if __name__ == "__main__":
    main()
