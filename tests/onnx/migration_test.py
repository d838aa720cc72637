#!/usr/bin/env python3
"""A KV cache moved between llama.cpp and ONNX Runtime, both ways, with the causal
check on each target; and the bad inputs each side must refuse, naming the part.

  llama.cpp -> ONNX Runtime: vexfs kv capture, vexfs kv export --layout hf, then
    vexfs-onnx verify: a model that never saw the prompt continues 64 tokens from
    the cache; equal to its own re-prefill and to the source's record, and a
    corrupted control that moves the logits.
  ONNX Runtime -> llama.cpp: vexfs-onnx capture, vexfs kv import --layout hf
    (signed), then vexfs kv verify with the keyring, the same protocol in llama.cpp.
Environment: VEXFS_BIN, VEXFS_NODE, VEXFS_GGUF_PY. Prints "N passed, M failed".
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VEXFS = os.environ.get("VEXFS_BIN", "vexfs")
NODE = os.environ.get("VEXFS_NODE", "node")
ADAPTER = REPO / "adapters/onnx/bin/vexfs-onnx.mjs"
CONVERTER = REPO / "adapters/onnx/convert/gguf_to_onnx.py"
PROMPT = ("Notes from the planning meeting: the storage migration moves to Thursday, the index "
          "rebuild runs overnight, and the agent must re-read the design review before Friday. ") * 3
HORIZON = 64
# llama.cpp settings under which both runtimes compute the same logits within
# float rounding (tests/onnx/runtime_agreement_test.py): the continuations must
# then be identical. Under llama.cpp's defaults (f16 cache, flash attention) the
# random models' near-ties may flip after some steps; there the logits are judged
# while the inputs still agree.
EXACT = ["--k-type", "f32", "--v-type", "f32", "--flash-attn", "off"]
DEFAULTS_BOUND = 0.25


def run(args, ok=True):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if ok and done.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args[:4]))} ... failed ({done.returncode}): {done.stderr.strip()}")
    return done


def refused(args, words, code=None):
    done = run(args, ok=False)
    assert done.returncode != 0, f"{' '.join(map(str, args[:4]))} ... accepted what it must refuse"
    if code is not None:
        assert done.returncode == code, f"exit {done.returncode}, expected {code}: {done.stderr.strip()}"
    assert words in done.stderr, f"refusal does not say '{words}': {done.stderr.strip()}"


def adapter(*args):
    return [NODE, ADAPTER, *args]


class Checks:
    def __init__(self):
        self.passed, self.failed = 0, 0

    def check(self, name, fn):
        try:
            fn()
            self.passed += 1
            print(f"ok   {name}")
        except AssertionError as e:
            self.failed += 1
            print(f"FAIL {name}: {e}", file=sys.stderr)


def main():
    checks = Checks()
    with tempfile.TemporaryDirectory(prefix="vexfs-onnx-mig-") as d:
        t = Path(d)
        gguf, onnx, other = t / "m.gguf", t / "m-onnx", t / "other.gguf"
        f16, f16_onnx = t / "f16.gguf", t / "f16-onnx"
        run([VEXFS, "kv", "model-init", "--seed", "3", "--f32-weights", "-o", gguf])
        run([VEXFS, "kv", "model-init", "--seed", "4", "--f32-weights", "-o", other])
        run([VEXFS, "kv", "model-init", "--seed", "3", "-o", f16])
        run([sys.executable, CONVERTER, "--gguf", gguf, "--out", onnx, "--vexfs", VEXFS])
        run([sys.executable, CONVERTER, "--gguf", f16, "--out", f16_onnx, "--vexfs", VEXFS])
        run([VEXFS, "usxf", "keygen", "-o", t / "key"])
        (t / "keys").mkdir()
        shutil.copy(t / "key.pub", t / "keys" / "key.pub")

        def llama_to_ort():
            run([VEXFS, "kv", "capture", "--model", gguf, "--prompt", PROMPT, "--threads", "1", *EXACT,
                 "-o", t / "s.usxf"])
            run([VEXFS, "kv", "export", "--layout", "hf", t / "s.usxf", "-o", t / "exp"])
            r = json.loads(run(adapter("verify", "--model", onnx, "--cache", t / "exp", "--steps", HORIZON,
                                       "--json")).stdout)
            assert r["verdict"] in ("exact", "equivalent"), f"verdict {r['verdict']}"
            assert r["vs_reprefill"]["tokens_equal"] and r["vs_reprefill"]["steps"] == HORIZON
            assert r["vs_source"]["tokens_equal"], f"differs from the source at {r['vs_source']['first_divergence']}"
            assert r["control"]["changed"] and r["control"]["max_abs_logit_diff"] > 1
            print(f"     llama.cpp -> ORT: {r['n_tokens']} tokens, |Δlogit| vs re-prefill "
                  f"{r['vs_reprefill']['max_abs_logit_diff']:.3g}, vs source {r['vs_source']['max_abs_logit_diff']:.3g}")

        def ort_to_llama():
            run(adapter("capture", "--model", onnx, "--prompt", PROMPT, "--out", t / "ocap",
                        "--reference-steps", HORIZON))
            run([VEXFS, "kv", "import", "--layout", "hf", t / "ocap", "--sign-key", t / "key", "-o", t / "o.usxf"])
            r = json.loads(run([VEXFS, "--json", "kv", "verify", "--model", gguf, t / "o.usxf", "--keyring",
                                t / "keys", "--threads", "1", "--horizon", HORIZON, *EXACT]).stdout)
            assert r["verdict"] in ("exact", "equivalent"), f"verdict {r['verdict']}"
            assert r["vs_reprefill"]["tokens_equal"], "the continuation differs from llama.cpp's re-prefill"
            assert r["vs_source"]["tokens_equal"], "the continuation differs from ONNX Runtime's record"
            assert r["control"]["changed"]
            print(f"     ORT -> llama.cpp: |Δlogit| vs re-prefill {r['vs_reprefill']['max_abs_logit_diff']:.3g}, "
                  f"vs source {r['vs_source']['max_abs_logit_diff']:.3g}")

        def whole_agent_resumes_in_ort():
            # A KV cache moved inside an agent bundle, resumed by `agent resume --runtime onnx`.
            c = json.loads(run([VEXFS, "--json", "kv", "capture", "--model", gguf, "--prompt", PROMPT, "--threads", "1",
                                *EXACT, "-o", t / "agent-ctx.usxf"]).stdout)
            n = str(c["tokens"])
            src, dst = t / "agent-src", t / "agent-dst"
            for store in (src, dst):
                run([VEXFS, "init", store])
            run([VEXFS, "--store", src, "graph", "add", "--kind", "turn", "--text", "the prompt",
                 "--span", f"ctx:0:{n}:{n}"])
            run([VEXFS, "--store", src, "snapshot", "create", "s1"])
            run([VEXFS, "--store", src, "agent", "export", "-o", t / "agent.usxf", "--kv", f"ctx={t / 'agent-ctx.usxf'}",
                 "--sign", t / "key"])
            run([VEXFS, "--store", dst, "agent", "import", t / "agent.usxf", "--keyring", t / "keys",
                 "--branch", "moved"])
            r = json.loads(run([VEXFS, "--json", "--store", dst, "agent", "resume", "--branch", "moved",
                                "--runtime", "onnx", "--model", onnx, "--onnx-adapter", ADAPTER,
                                "--generate", HORIZON]).stdout)
            assert r["onnx"]["verdict"] in ("exact", "equivalent"), f"verdict {r['onnx']['verdict']}"
            assert r["onnx"]["vs_source"]["tokens_equal"], "the resumed agent differs from the source's record"
            assert r["point"]["cache"] == "ctx"

        def another_models_state_refused_by_the_adapter():
            run([VEXFS, "kv", "capture", "--model", other, "--prompt", PROMPT, "--threads", "1", "-o", t / "x.usxf"])
            run([VEXFS, "kv", "export", "--layout", "hf", t / "x.usxf", "-o", t / "xexp"])
            refused(adapter("verify", "--model", onnx, "--cache", t / "xexp"), "weights fingerprint")

        def ort_state_for_another_model_refused_by_llama():
            refused([VEXFS, "kv", "verify", "--model", other, t / "o.usxf", "--keyring", t / "keys", "--threads", "1"],
                    "fingerprint")

        def wrong_head_count_refused_by_the_adapter():
            bad = t / "heads"
            shutil.copytree(t / "exp", bad)
            m = json.loads((bad / "manifest.json").read_text())
            m["n_kv_heads"] = m["n_kv_heads"] * 2
            (bad / "manifest.json").write_text(json.dumps(m))
            refused(adapter("verify", "--model", onnx, "--cache", bad), "n_kv_heads")

        def truncated_cache_refused_on_both_sides():
            for folder, cmd in ((t / "exp", None), (t / "ocap", "import")):
                bad = t / f"trunc-{folder.name}"
                shutil.copytree(folder, bad)
                data = (bad / "cache.f32").read_bytes()
                (bad / "cache.f32").write_bytes(data[: len(data) - 4])
                if cmd is None:
                    refused(adapter("verify", "--model", onnx, "--cache", bad), "bytes, expected")
                else:
                    refused([VEXFS, "kv", "import", "--layout", "hf", bad, "-o", t / "bad.usxf"], "the cache has")
            assert not (t / "bad.usxf").exists(), "a refused import left a state file"

        def wrong_head_dim_refused_by_import():
            bad = t / "dim"
            shutil.copytree(t / "ocap", bad)
            m = json.loads((bad / "manifest.json").read_text())
            m["head_dim"] = 32
            (bad / "manifest.json").write_text(json.dumps(m))
            refused([VEXFS, "kv", "import", "--layout", "hf", bad, "-o", t / "bad.usxf"], "the cache has")

        def imported_state_with_other_head_dim_refused_by_llama():
            bad = t / "dim-both"
            shutil.copytree(t / "ocap", bad)
            m = json.loads((bad / "manifest.json").read_text())
            m["head_dim"], m["n_kv_heads"] = 32, m["n_kv_heads"] * 2  # same bytes, another shape
            (bad / "manifest.json").write_text(json.dumps(m))
            run([VEXFS, "kv", "import", "--layout", "hf", bad, "-o", t / "dim.usxf"])
            refused([VEXFS, "kv", "verify", "--model", gguf, t / "dim.usxf", "--threads", "1"], "head")

        def llama_defaults_to_ort_agree_while_inputs_agree():
            run([VEXFS, "kv", "capture", "--model", f16, "--prompt", PROMPT, "--threads", "1", "-o", t / "d.usxf"])
            run([VEXFS, "kv", "export", "--layout", "hf", t / "d.usxf", "-o", t / "dexp"])
            done = run(adapter("verify", "--model", f16_onnx, "--cache", t / "dexp", "--json"), ok=False)
            r = json.loads(done.stdout)
            assert r["verdict"] in ("exact", "equivalent", "diverged"), f"verdict {r['verdict']}"
            aligned = r["vs_reprefill"]["max_abs_logit_diff_aligned"]
            assert aligned <= DEFAULTS_BOUND, f"|Δlogit| {aligned} while the inputs agree > {DEFAULTS_BOUND}"
            assert r["control"]["max_abs_logit_diff"] > 10 * DEFAULTS_BOUND, "the control barely moved the logits"
            print(f"     llama.cpp defaults -> ORT: {r['verdict']}, first divergence "
                  f"{r['vs_reprefill']['first_divergence']}, aligned |Δlogit| {aligned:.3g}")

        def corrupted_state_refused_by_export():
            data = bytearray((t / "s.usxf").read_bytes())
            data[len(data) // 2] ^= 0xFF
            (t / "bad-s.usxf").write_bytes(bytes(data))
            refused([VEXFS, "kv", "export", "--layout", "hf", t / "bad-s.usxf", "-o", t / "bad-exp"], "bad-s.usxf")
            assert not (t / "bad-exp").exists(), "a refused export left a folder"

        def tokenizer_mismatch_refused():
            bad = t / "tok"
            shutil.copytree(t / "exp", bad)
            m = json.loads((bad / "manifest.json").read_text())
            m["tokenizer_fingerprint"] = "0" * 64
            (bad / "manifest.json").write_text(json.dumps(m))
            refused(adapter("verify", "--model", onnx, "--cache", bad), "tokenizer fingerprint")

        for name, fn in list(locals().items()):
            if callable(fn) and name not in ("t",) and fn.__code__.co_argcount == 0:
                checks.check(name, fn)
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 0 if checks.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
