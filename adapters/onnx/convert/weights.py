"""Reads a Qwen2 GGUF file (llama.cpp's format) into float32 tensors and a shape.

gguf-py, llama.cpp's own reader, comes from the llama.cpp source that the project's
setup fetches (.deps/llama/gguf-py). Only unquantised tensors (F32, F16, BF16) are
taken: a quantised model would need llama.cpp's dequantisers, and its numbers
would no longer be the same weights in both runtimes.
"""
import numpy as np
import torch

from qwen2_model import Qwen2Shape

UNQUANTISED = {"F32", "F16", "BF16"}


class ConvertError(Exception):
    """A model this converter cannot take, with the part named."""


def field(reader, key, default=None):
    f = reader.fields.get(key)
    if f is None:
        if default is None:
            raise ConvertError(f"the GGUF file has no '{key}'")
        return default
    return f.contents()


def read_shape(reader) -> Qwen2Shape:
    arch = field(reader, "general.architecture")
    if arch != "qwen2":
        raise ConvertError(f"architecture '{arch}' is not qwen2, the only one this converter writes")
    a = "qwen2."
    hidden = int(field(reader, a + "embedding_length"))
    heads = int(field(reader, a + "attention.head_count"))
    shape = Qwen2Shape(
        hidden=hidden,
        layers=int(field(reader, a + "block_count")),
        heads=heads,
        kv_heads=int(field(reader, a + "attention.head_count_kv")),
        head_dim=int(field(reader, a + "attention.key_length", hidden // heads)),
        ffn=int(field(reader, a + "feed_forward_length")),
        vocab=len(field(reader, "tokenizer.ggml.tokens")),
        rms_eps=float(field(reader, a + "attention.layer_norm_rms_epsilon")),
        rope_base=float(field(reader, a + "rope.freq_base", 10000.0)),
        context=int(field(reader, a + "context_length")),
    )
    if shape.heads % shape.kv_heads != 0:
        raise ConvertError(f"{shape.heads} heads do not split into {shape.kv_heads} KV heads")
    value_length = int(field(reader, a + "attention.value_length", shape.head_dim))
    if value_length != shape.head_dim:
        raise ConvertError(f"value heads of {value_length} differ from key heads of {shape.head_dim}")
    rope_dims = int(field(reader, a + "rope.dimension_count", shape.head_dim))
    if rope_dims != shape.head_dim:
        raise ConvertError(f"RoPE over {rope_dims} of {shape.head_dim} dimensions is not Qwen2's")
    return shape


def read_tensors(reader) -> dict:
    out = {}
    for t in reader.tensors:
        kind = t.tensor_type.name
        if kind not in UNQUANTISED:
            raise ConvertError(f"tensor '{t.name}' is {kind}; only F32, F16 and BF16 convert exactly")
        data = np.asarray(t.data)
        if kind == "BF16":
            data = (data.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        # GGUF lists dimensions innermost first; numpy's view is already row-major.
        dims = [int(d) for d in reversed(t.shape.tolist())]
        out[t.name] = torch.from_numpy(np.array(data, dtype=np.float32).reshape(dims))
    return out


def check_tensors(shape: Qwen2Shape, w: dict) -> None:
    """Every tensor the decoder needs, at the size the shape implies."""
    q, kv = shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim
    want = {"token_embd.weight": (shape.vocab, shape.hidden), "output_norm.weight": (shape.hidden,)}
    for i in range(shape.layers):
        p = f"blk.{i}."
        want.update({
            p + "attn_norm.weight": (shape.hidden,),
            p + "attn_q.weight": (q, shape.hidden), p + "attn_q.bias": (q,),
            p + "attn_k.weight": (kv, shape.hidden), p + "attn_k.bias": (kv,),
            p + "attn_v.weight": (kv, shape.hidden), p + "attn_v.bias": (kv,),
            p + "attn_output.weight": (shape.hidden, q),
            p + "ffn_norm.weight": (shape.hidden,),
            p + "ffn_gate.weight": (shape.ffn, shape.hidden),
            p + "ffn_up.weight": (shape.ffn, shape.hidden),
            p + "ffn_down.weight": (shape.hidden, shape.ffn),
        })
    if "output.weight" in w:
        want["output.weight"] = (shape.vocab, shape.hidden)
    for name, dims in want.items():
        if name not in w:
            raise ConvertError(f"the GGUF file has no tensor '{name}'")
        if tuple(w[name].shape) != dims:
            raise ConvertError(f"tensor '{name}' is {tuple(w[name].shape)}, expected {dims}")
    extra = sorted(set(w) - set(want))
    if extra:
        raise ConvertError(f"tensor '{extra[0]}' is not part of a Qwen2 decoder")
