"""One Llama decoder layer in PyTorch, the structure of Meta's open Llama
model.py (RMSNorm, Attention with a KV cache, rotary embeddings in the complex
form, repeat_kv for grouped-query attention, SwiGLU FeedForward, the causal
mask of Transformer.forward), written out here so that the goldens
(tools/gen_llama_golden.py) and the benchmark against PyTorch
(tools/llama_bench.py) run the same formulas.

Importing this module runs nothing. Needs torch (Debian's python3-torch,
/usr/bin/python3).
"""
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass
class Config:
    dim: int
    n_heads: int
    n_kv_heads: int
    hidden_dim: int
    max_seq_len: int
    max_batch: int = 1
    norm_eps: float = 1e-5
    rope_theta: float = 10000.0

    @property
    def head_dim(self):
        return self.dim // self.n_heads


# TinyLlama-1.1B's layer (the benchmark's shapes) and the small layer of the goldens.
TINYLLAMA = Config(dim=2048, n_heads=32, n_kv_heads=4, hidden_dim=5632, max_seq_len=512)
SMALL = Config(dim=64, n_heads=4, n_kv_heads=2, hidden_dim=176, max_seq_len=16, max_batch=2)


def precompute_freqs_cis(dim, end, theta):
    """polar(1, t · θ^(−2j/dim)), complex64, (end, dim/2): Meta's table."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    t = torch.arange(end, dtype=torch.float32)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    f = freqs_cis.view(1, xq_.shape[1], 1, xq_.shape[-1])
    return torch.view_as_real(xq_ * f).flatten(3).type_as(xq), torch.view_as_real(xk_ * f).flatten(3).type_as(xk)


def repeat_kv(x, n_rep):
    bs, slen, n_kv, hd = x.shape
    if n_rep == 1:
        return x
    return x[:, :, :, None, :].expand(bs, slen, n_kv, n_rep, hd).reshape(bs, slen, n_kv * n_rep, hd)


def rms_norm(x, weight, eps):
    return (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)).type_as(x) * weight


def causal_mask(seqlen, start_pos, like):
    """Meta's mask for a prompt of seqlen tokens after start_pos cached ones (None for one token)."""
    if seqlen == 1:
        return None
    mask = torch.full((seqlen, seqlen), float("-inf"))
    mask = torch.triu(mask, diagonal=1)
    return torch.hstack([torch.zeros((seqlen, start_pos)), mask]).type_as(like)


class Layer:
    """Weights as nn.Linear holds them, (out_features, in_features); x · Wᵀ."""

    def __init__(self, cfg, generator):
        self.cfg = cfg
        d, hd, hidden = cfg.dim, cfg.head_dim, cfg.hidden_dim

        def weight(out_features, in_features):
            return torch.randn(out_features, in_features, generator=generator) / math.sqrt(in_features)

        self.wq = weight(cfg.n_heads * hd, d)
        self.wk = weight(cfg.n_kv_heads * hd, d)
        self.wv = weight(cfg.n_kv_heads * hd, d)
        self.wo = weight(d, cfg.n_heads * hd)
        self.w1 = weight(hidden, d)
        self.w2 = weight(d, hidden)
        self.w3 = weight(hidden, d)
        self.attention_norm = 1.0 + 0.1 * torch.randn(d, generator=generator)
        self.ffn_norm = 1.0 + 0.1 * torch.randn(d, generator=generator)
        self.freqs_cis = precompute_freqs_cis(hd, cfg.max_seq_len * 2, cfg.rope_theta)
        self.reset_cache()

    def reset_cache(self):
        cfg = self.cfg
        shape = (cfg.max_batch, cfg.max_seq_len, cfg.n_kv_heads, cfg.head_dim)
        self.cache_k = torch.zeros(shape)
        self.cache_v = torch.zeros(shape)

    def attention(self, x, start_pos, freqs_cis, mask):
        cfg = self.cfg
        bsz, seqlen, _ = x.shape
        xq = F.linear(x, self.wq).view(bsz, seqlen, cfg.n_heads, cfg.head_dim)
        xk = F.linear(x, self.wk).view(bsz, seqlen, cfg.n_kv_heads, cfg.head_dim)
        xv = F.linear(x, self.wv).view(bsz, seqlen, cfg.n_kv_heads, cfg.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis)
        self.cache_k[:bsz, start_pos : start_pos + seqlen] = xk
        self.cache_v[:bsz, start_pos : start_pos + seqlen] = xv
        keys = repeat_kv(self.cache_k[:bsz, : start_pos + seqlen], cfg.n_heads // cfg.n_kv_heads)
        values = repeat_kv(self.cache_v[:bsz, : start_pos + seqlen], cfg.n_heads // cfg.n_kv_heads)
        xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(cfg.head_dim)
        if mask is not None:
            scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, values).transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return F.linear(output, self.wo)

    def feed_forward(self, x):
        return F.linear(F.silu(F.linear(x, self.w1)) * F.linear(x, self.w3), self.w2)

    def forward(self, x, start_pos):
        seqlen = x.shape[1]
        freqs_cis = self.freqs_cis[start_pos : start_pos + seqlen]
        mask = causal_mask(seqlen, start_pos, x)
        h = x + self.attention(rms_norm(x, self.attention_norm, self.cfg.norm_eps), start_pos, freqs_cis, mask)
        return h + self.feed_forward(rms_norm(h, self.ffn_norm, self.cfg.norm_eps))
