#!/usr/bin/env python3
"""The converted model in ONNX Runtime against the GGUF in llama.cpp.

Random-weight Qwen2 models from `vexfs kv model-init` go through
adapters/onnx/convert/gguf_to_onnx.py; then for each prompt both runtimes must
split the text into the same token ids and predict the next token from logits
that agree within the bound measured for the runtime settings:
  - f32 weights, f32 K/V cache, flash attention off: every logit within 1e-3
    (measured: 4.5e-5; float sums in another order);
  - llama.cpp's defaults (f16 weights, f16 K/V cache, flash attention on, which
    rounds Q·K and the attention sum through f16): within 0.1 (measured: 0.03),
    and the same argmax unless the top two are closer than that.
A GGUF that is not Qwen2 is refused by the converter, naming what is wrong.
Environment: VEXFS_BIN (the CLI), VEXFS_NODE, VEXFS_GGUF_PY (llama.cpp's gguf-py).
Prints "N passed, 0 failed" and exits 0, or names the first failure and exits 1.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
VEXFS = os.environ.get("VEXFS_BIN", "vexfs")
NODE = os.environ.get("VEXFS_NODE", "node")
ADAPTER = REPO / "adapters/onnx/bin/vexfs-onnx.mjs"
CONVERTER = REPO / "adapters/onnx/convert/gguf_to_onnx.py"
PROMPTS = [
    "Hello",
    "The quick brown fox jumps over the lazy dog. 12345 and 3.14159!",
    "Line one\nLine two\n\n\tindented: 数字と日本語, émigré — naïve ‘quotes’",
    "<|im_start|>user\nWhat is a KV cache?<|im_end|>\n<|im_start|>assistant\n",
]
SETTINGS = {
    "exact": {"model": "--f32-weights", "llama": ["--k-type", "f32", "--v-type", "f32", "--flash-attn", "off"],
              "bound": 1e-3},
    "defaults": {"model": None, "llama": [], "bound": 0.1},
}


def run(args, **kw):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def convert(gguf, out):
    run([sys.executable, CONVERTER, "--gguf", gguf, "--out", out, "--vexfs", VEXFS])


def compare(name, cfg, tmp, checks):
    gguf, folder = tmp / f"{name}.gguf", tmp / f"{name}-onnx"
    run([VEXFS, "kv", "model-init", "-o", gguf] + ([cfg["model"]] if cfg["model"] else []))
    convert(gguf, folder)
    identity = json.loads((folder / "vexfs_model.json").read_text())["source"]
    info = json.loads(run([VEXFS, "--json", "kv", "model-info", "--model", gguf]))
    assert identity["weights_fingerprint"] == info["weights_fingerprint"], "fingerprints not recorded"
    worst = 0.0
    for i, prompt in enumerate(PROMPTS):
        llama = json.loads(run([VEXFS, "--json", "kv", "logits", "--model", gguf, "--prompt", prompt,
                                "--logits-out", tmp / "l.bin", *cfg["llama"]]))
        ort = json.loads(run([NODE, ADAPTER, "logits", "--model", folder, "--prompt", prompt, "--json",
                              "--logits-out", tmp / "o.bin"]))
        assert llama["tokens"] == ort["tokens"], f"prompt {i}: tokens differ: {llama['tokens']} {ort['tokens']}"
        a = np.fromfile(tmp / "l.bin", dtype="<f4")
        b = np.fromfile(tmp / "o.bin", dtype="<f4")
        assert a.shape == b.shape, f"prompt {i}: {a.shape} logits against {b.shape}"
        diff = float(np.abs(a - b).max())
        worst = max(worst, diff)
        assert diff <= cfg["bound"], f"{name}, prompt {i}: largest |Δlogit| {diff} > {cfg['bound']}"
        top = np.sort(a)[::-1]
        if top[0] - top[1] > cfg["bound"]:
            assert a.argmax() == b.argmax(), f"{name}, prompt {i}: argmax {a.argmax()} against {b.argmax()}"
        checks.append(f"{name} prompt {i}")
    print(f"{name}: {len(PROMPTS)} prompts, tokens equal, largest |Δlogit| {worst:.3g} (bound {cfg['bound']})")


def refuses_other_architectures(tmp, checks):
    bert = REPO / ".deps/llama/models/ggml-vocab-bert-bge.gguf"
    done = subprocess.run([sys.executable, CONVERTER, "--gguf", bert, "--out", tmp / "bert", "--vexfs", VEXFS],
                          capture_output=True, text=True)
    assert done.returncode == 1, f"converting a BERT vocabulary exited {done.returncode}"
    assert "not qwen2" in done.stderr, f"unclear refusal: {done.stderr.strip()}"
    assert not (tmp / "bert").exists(), "a refused conversion left a folder"
    checks.append("refuses bert")


def main():
    checks = []
    with tempfile.TemporaryDirectory(prefix="vexfs-onnx-") as d:
        tmp = Path(d)
        try:
            for name, cfg in SETTINGS.items():
                compare(name, cfg, tmp, checks)
            refuses_other_architectures(tmp, checks)
        except AssertionError as e:
            print(f"FAILED: {e}", file=sys.stderr)
            print(f"{len(checks)} passed, 1 failed")
            return 1
    print(f"{len(checks)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
