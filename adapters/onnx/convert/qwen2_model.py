"""A Qwen2 decoder in PyTorch, written to Qwen2's published architecture, for export
to an ONNX graph that ONNX Runtime runs with an explicit KV cache.

Grouped-query attention with q/k/v biases, NEOX ("rotate half") rotary position
embeddings applied before K is cached, RMSNorm, and a SwiGLU feed-forward. The
weights come from a GGUF file in llama.cpp's names and layouts (weights.py), so
the same numbers run in both runtimes.

Graph inputs: input_ids, attention_mask (int64, [batch, past + new]), position_ids,
and past_key_values.{i}.key / .value ([batch, kv_heads, past, head_dim], float32);
outputs: logits ([batch, new, vocab]) and present.{i}.key / .value (the past with
the new tokens appended: K after RoPE, as both runtimes keep it).
"""
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Qwen2Shape:
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    rms_eps: float
    rope_base: float
    context: int


class RmsNorm(nn.Module):
    def __init__(self, weight: torch.Tensor, eps: float):
        super().__init__()
        self.weight = nn.Parameter(weight, requires_grad=False)
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def linear(weight: torch.Tensor, bias=None) -> nn.Linear:
    out_features, in_features = weight.shape
    layer = nn.Linear(in_features, out_features, bias=bias is not None)
    layer.weight = nn.Parameter(weight, requires_grad=False)
    if bias is not None:
        layer.bias = nn.Parameter(bias, requires_grad=False)
    return layer


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Layer(nn.Module):
    def __init__(self, shape: Qwen2Shape, w: dict, i: int):
        super().__init__()
        p = f"blk.{i}."
        self.shape = shape
        self.attn_norm = RmsNorm(w[p + "attn_norm.weight"], shape.rms_eps)
        self.q = linear(w[p + "attn_q.weight"], w[p + "attn_q.bias"])
        self.k = linear(w[p + "attn_k.weight"], w[p + "attn_k.bias"])
        self.v = linear(w[p + "attn_v.weight"], w[p + "attn_v.bias"])
        self.o = linear(w[p + "attn_output.weight"])
        self.ffn_norm = RmsNorm(w[p + "ffn_norm.weight"], shape.rms_eps)
        self.gate = linear(w[p + "ffn_gate.weight"])
        self.up = linear(w[p + "ffn_up.weight"])
        self.down = linear(w[p + "ffn_down.weight"])

    def forward(self, x, cos, sin, mask, past_k, past_v):
        s = self.shape
        batch, new = x.shape[0], x.shape[1]
        h = self.attn_norm(x)
        q = self.q(h).view(batch, new, s.heads, s.head_dim).transpose(1, 2)
        k = self.k(h).view(batch, new, s.kv_heads, s.head_dim).transpose(1, 2)
        v = self.v(h).view(batch, new, s.kv_heads, s.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat((past_k, k), dim=2)
        v = torch.cat((past_v, v), dim=2)
        # Each KV head serves heads / kv_heads query heads. expand + reshape, not
        # repeat_interleave, which torch 1.13's exporter breaks on an empty past.
        group = s.heads // s.kv_heads
        total = k.shape[2]
        kk = k[:, :, None].expand(batch, s.kv_heads, group, total, s.head_dim)
        vv = v[:, :, None].expand(batch, s.kv_heads, group, total, s.head_dim)
        kk = kk.reshape(batch, s.heads, total, s.head_dim)
        vv = vv.reshape(batch, s.heads, total, s.head_dim)
        scores = torch.matmul(q, kk.transpose(-1, -2)) / (s.head_dim ** 0.5) + mask
        attn = torch.matmul(torch.softmax(scores, dim=-1), vv)
        attn = attn.transpose(1, 2).reshape(batch, new, s.heads * s.head_dim)
        x = x + self.o(attn)
        h = self.ffn_norm(x)
        x = x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))
        return x, k, v


class Qwen2(nn.Module):
    def __init__(self, shape: Qwen2Shape, w: dict):
        super().__init__()
        self.shape = shape
        self.embed = nn.Parameter(w["token_embd.weight"], requires_grad=False)
        # Qwen2's small models tie the output projection to the embeddings.
        out = w.get("output.weight")
        self.lm_head = self.embed if out is None else nn.Parameter(out, requires_grad=False)
        self.layers = nn.ModuleList(Layer(shape, w, i) for i in range(shape.layers))
        self.norm = RmsNorm(w["output_norm.weight"], shape.rms_eps)
        half = torch.arange(0, shape.head_dim, 2, dtype=torch.float32) / shape.head_dim
        self.register_buffer("inv_freq", 1.0 / (shape.rope_base ** half), persistent=False)

    def rope(self, position_ids: torch.Tensor):
        freqs = position_ids.to(torch.float32)[..., None] * self.inv_freq
        angles = torch.cat((freqs, freqs), dim=-1)[:, None]  # [batch, 1, new, head_dim]
        return torch.cos(angles), torch.sin(angles)

    def causal_mask(self, attention_mask: torch.Tensor, new: int) -> torch.Tensor:
        # Query i (at absolute index total - new + i) sees key j when j <= that
        # index and the attention mask keeps j.
        total = attention_mask.shape[1]
        keys = torch.arange(total)
        queries = torch.arange(new) + (total - new)
        allowed = keys[None, :] <= queries[:, None]
        allowed = allowed[None, None] & (attention_mask[:, None, None, :] > 0)
        blocked = torch.full((), torch.finfo(torch.float32).min)
        return torch.where(allowed, torch.zeros(()), blocked)

    def forward(self, input_ids, attention_mask, position_ids, *past):
        x = nn.functional.embedding(input_ids, self.embed)
        cos, sin = self.rope(position_ids)
        mask = self.causal_mask(attention_mask, input_ids.shape[1])
        presents = []
        for i, layer in enumerate(self.layers):
            x, k, v = layer(x, cos, sin, mask, past[2 * i], past[2 * i + 1])
            presents += [k, v]
        logits = torch.matmul(self.norm(x), self.lm_head.t())
        return (logits, *presents)
