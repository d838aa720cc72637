#!/usr/bin/env python3
"""Converts a Qwen2 GGUF model into a model folder that ONNX Runtime runs through
transformers.js, with the same weights, so a KV cache can move between llama.cpp
and ONNX Runtime (docs/kv.md, "Across runtimes").

    gguf_to_onnx.py --gguf MODEL.gguf --out DIR [--vexfs vexfs]

DIR gets onnx/model.onnx (the decoder, float32), config.json, tokenizer.json,
tokenizer_config.json, and vexfs_model.json: the GGUF file's identity
fingerprints as `vexfs kv model-info` reports them, which the adapter checks a
state against before it uses one. Exit 0 on success; 1 with a message naming the
part of the model that cannot be converted.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
OPSET = 14
FORMAT = 1  # of vexfs_model.json


def import_gguf(explicit):
    path = explicit or os.environ.get("VEXFS_GGUF_PY") or str(REPO / ".deps/llama/gguf-py")
    sys.path.insert(0, path)
    try:
        from gguf import GGUFReader  # noqa: E402 (found through the path above)
    except ImportError as e:
        sys.exit(f"gguf_to_onnx: llama.cpp's gguf-py is not at {path} ({e}); run scripts/setup.sh")
    return GGUFReader


def model_info(vexfs: str, gguf: str) -> dict:
    run = subprocess.run([vexfs, "--json", "kv", "model-info", "--model", gguf],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"gguf_to_onnx: vexfs kv model-info failed: {run.stderr.strip()}")
    return json.loads(run.stdout)


def export(model, shape, path: Path) -> None:
    import torch

    batch, past, new = 1, 2, 3
    cache = [torch.zeros(batch, shape.kv_heads, past, shape.head_dim) for _ in range(2 * shape.layers)]
    args = (torch.zeros(batch, new, dtype=torch.int64), torch.ones(batch, past + new, dtype=torch.int64),
            torch.arange(past, past + new, dtype=torch.int64)[None], *cache)
    past_names, present_names, axes = [], [], {
        "input_ids": {0: "batch_size", 1: "sequence_length"},
        "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
        "position_ids": {0: "batch_size", 1: "sequence_length"},
        "logits": {0: "batch_size", 1: "sequence_length"},
    }
    for i in range(shape.layers):
        for part in ("key", "value"):
            past_names.append(f"past_key_values.{i}.{part}")
            present_names.append(f"present.{i}.{part}")
            # Heads and head size stay fixed in the graph: transformers.js sizes
            # the empty first-step cache from them.
            axes[past_names[-1]] = {0: "batch_size", 2: "past_sequence_length"}
            axes[present_names[-1]] = {0: "batch_size", 2: "total_sequence_length"}
    path.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(model, args, str(path), opset_version=OPSET, do_constant_folding=False,
                          input_names=["input_ids", "attention_mask", "position_ids", *past_names],
                          output_names=["logits", *present_names], dynamic_axes=axes)


def write_json(path: Path, value) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gguf", required=True, help="Qwen2 GGUF model (unquantised)")
    ap.add_argument("--out", required=True, help="model folder to write")
    ap.add_argument("--vexfs", default="vexfs", help="the vexfs CLI, for the model's fingerprints")
    ap.add_argument("--gguf-py", help="llama.cpp's gguf-py folder (default: .deps/llama/gguf-py)")
    a = ap.parse_args()

    GGUFReader = import_gguf(a.gguf_py)
    sys.path.insert(0, str(HERE))
    import torch
    from hf_files import config_json, tokenizer_files
    from qwen2_model import Qwen2
    from weights import ConvertError, check_tensors, read_shape, read_tensors

    try:
        reader = GGUFReader(a.gguf)
        shape = read_shape(reader)
        weights = read_tensors(reader)
        check_tensors(shape, weights)
        tokenizer, tokenizer_config = tokenizer_files(reader)
        config = config_json(shape, reader)
    except ConvertError as e:
        print(f"gguf_to_onnx: {a.gguf}: {e}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as e:  # gguf-py's word for a file that is not GGUF
        print(f"gguf_to_onnx: {a.gguf}: not a readable GGUF file: {e}", file=sys.stderr)
        return 1
    # llama.cpp's own reading of the model: its identity, and the RoPE it runs.
    info = model_info(a.vexfs, a.gguf)
    if info["rope"] != "neox":
        print(f"gguf_to_onnx: {a.gguf}: llama.cpp runs it with {info['rope']} RoPE, not Qwen2's neox",
              file=sys.stderr)
        return 1

    out = Path(a.out)
    torch.manual_seed(0)
    print(f"gguf_to_onnx: exporting {shape.layers} layers of {shape.hidden} ({shape.vocab} tokens)",
          file=sys.stderr)
    export(Qwen2(shape, weights).eval(), shape, out / "onnx" / "model.onnx")
    import onnx
    onnx.checker.check_model(str(out / "onnx" / "model.onnx"))
    write_json(out / "config.json", config)
    write_json(out / "tokenizer.json", tokenizer)
    write_json(out / "tokenizer_config.json", tokenizer_config)
    write_json(out / "vexfs_model.json", {"format": FORMAT, "source": info, "onnx_opset": OPSET,
                                          "torch": torch.__version__})
    print(f"gguf_to_onnx: wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
