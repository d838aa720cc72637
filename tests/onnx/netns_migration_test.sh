#!/usr/bin/env bash
# A KV cache moved between llama.cpp and ONNX Runtime on two "hosts": the network
# namespaces of tests/kv/netns_hosts.sh, the state crossing between them as a
# signed state file through `vexfs kv send` and `vexfs kv serve`:
#   1. captured by llama.cpp in the sender's namespace, received and verified in
#      the receiver's, exported in the Hugging Face layout there and continued by
#      ONNX Runtime with the causal check (vexfs-onnx verify);
#   2. captured by ONNX Runtime in the sender's namespace (vexfs-onnx capture,
#      vexfs kv import --sign-key), received, and checked by llama.cpp in the
#      receiver's (vexfs kv verify with the keyring).
# Both with f32 caches and flash attention off in llama.cpp, where both runtimes
# compute the same logits within float rounding: the 64-token continuations must
# equal the target's own re-prefill and the source's record.
# Usage: netns_migration_test.sh VEXFS NODE   Exits 77 (skipped) without namespaces.
set -euo pipefail

VEXFS=${1:-${VEXFS_BIN:-}}
NODE=${2:-${VEXFS_NODE:-node}}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
ADAPTER="$REPO/adapters/onnx/bin/vexfs-onnx.mjs"
if [[ -z "$VEXFS" || ! -x "$VEXFS" ]]; then
  echo "FAIL: no vexfs binary (argument or \$VEXFS_BIN)" >&2
  exit 1
fi
# shellcheck source=../kv/netns_hosts.sh
source "$REPO/tests/kv/netns_hosts.sh"
EXACT=(--k-type f32 --v-type f32 --flash-attn off --threads 1)

mkdir -p "$WORK/keys"
"$VEXFS" usxf keygen -o "$WORK/alice.key" >/dev/null
cp "$WORK/alice.key.pub" "$WORK/keys/alice.pub"
"$VEXFS" kv model-init --shape tiny --seed 5 --f32-weights -o "$WORK/m.gguf" >/dev/null
/usr/bin/python3 "$REPO/adapters/onnx/convert/gguf_to_onnx.py" --gguf "$WORK/m.gguf" --out "$WORK/m-onnx" \
  --vexfs "$VEXFS" 2>"$WORK/convert.log" || fail "conversion failed: $(tail -3 "$WORK/convert.log")"
printf 'The keeper of the lighthouse wrote down the weather every evening, and the ships he saw pass.' \
  >"$WORK/prompt.txt"

# Checks a verify report (JSON on stdin): passed, 64 tokens equal to the
# target's re-prefill and to the source's record, the control moved.
check_report() {  # check_report WHAT
  /usr/bin/python3 -c '
import json, sys
r, what = json.load(sys.stdin), sys.argv[1]
c, s = r["vs_reprefill"], r["vs_source"]
ok = (r["verdict"] in ("exact", "equivalent") and c["tokens_equal"] and c["steps"] == 64
      and s["tokens_equal"] and r["control"]["changed"])
print("%s: %s, |dlogit| vs re-prefill %.3g, vs source %.3g, control %.3g" % (
    what, r["verdict"], c["max_abs_logit_diff"], s["max_abs_logit_diff"], r["control"]["max_abs_logit_diff"]))
sys.exit(0 if ok else 1)' "$1"
}

# --- 1. llama.cpp in B -> ONNX Runtime in A ----------------------------------------
ip netns exec "$B" "$VEXFS" kv capture --model "$WORK/m.gguf" --prompt-file "$WORK/prompt.txt" "${EXACT[@]}" \
  --sign-key "$WORK/alice.key" -o "$WORK/llama.usxf" >/dev/null
serve_one "$WORK/spool1"
send_over "$WORK/llama.usxf" "$WORK/send1.json"
ip netns exec "$A" "$VEXFS" kv export --layout hf "$GOT" --keyring "$WORK/keys" -o "$WORK/exp" >/dev/null
ip netns exec "$A" "$NODE" "$ADAPTER" verify --model "$WORK/m-onnx" --cache "$WORK/exp" --json \
  >"$WORK/r1.json" 2>>"$WORK/adapter.log" || fail "ONNX Runtime verify: $(cat "$WORK/adapter.log")"
check_report "ok 1: llama.cpp in $B -> ONNX Runtime in $A" <"$WORK/r1.json" || fail "$(cat "$WORK/r1.json")"

# --- 2. ONNX Runtime in B -> llama.cpp in A ----------------------------------------
ip netns exec "$B" "$NODE" "$ADAPTER" capture --model "$WORK/m-onnx" --prompt-file "$WORK/prompt.txt" \
  --out "$WORK/ocap" >/dev/null 2>>"$WORK/adapter.log" || fail "ONNX Runtime capture: $(cat "$WORK/adapter.log")"
ip netns exec "$B" "$VEXFS" kv import --layout hf "$WORK/ocap" --sign-key "$WORK/alice.key" \
  -o "$WORK/ort.usxf" >/dev/null
serve_one "$WORK/spool2"
send_over "$WORK/ort.usxf" "$WORK/send2.json"
ip netns exec "$A" "$VEXFS" --json kv verify --model "$WORK/m.gguf" "$GOT" --keyring "$WORK/keys" "${EXACT[@]}" \
  >"$WORK/r2.json" || fail "llama.cpp verify: $(cat "$WORK/r2.json")"
check_report "ok 2: ONNX Runtime in $B -> llama.cpp in $A" <"$WORK/r2.json" || fail "$(cat "$WORK/r2.json")"
echo "PASS"
