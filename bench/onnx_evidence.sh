#!/usr/bin/env bash
# The cross-runtime evidence run (docs/EVIDENCE.md, "Across runtimes") and its
# benchmark (docs/BENCHMARKS.md, "KV across runtimes"): a Qwen2.5-0.5B-shaped
# model with random weights and the real Qwen2 tokenizer, converted to ONNX; a
# 2016-token prefix of this repository's documentation; llama.cpp in one network
# namespace -> ONNX Runtime in the other, and the reverse, the signed state sent
# by vexfs kv send/serve, every check of the causal protocol reported. Then
# restoring into ONNX Runtime against its own re-prefill at 512 and 2016 tokens,
# interleaved, medians of --reps.
#
#   bench/onnx_evidence.sh [--models DIR] [--tokens N] [--reps N]
#
# Needs root (namespaces), ~8 GB of memory, and ~20 minutes on 2 cores the first
# time (building and converting the f32 model, 2 GB, kept in DIR, default
# /tmp/vexfs-kv-models). llama.cpp runs with f32 weights, an f32 cache and flash
# attention off, where the two runtimes agree within float rounding
# (docs/kv.md, "Across runtimes").
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build-release}
MODELS=/tmp/vexfs-kv-models
TOKENS=2016
REPS=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --models) MODELS=$2; shift 2 ;;
    --tokens) TOKENS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    *) echo "usage: $0 [--models DIR] [--tokens N] [--reps N]" >&2; exit 2 ;;
  esac
done

# shellcheck source=../tests/kv/netns_hosts.sh
source "$ROOT/tests/kv/netns_hosts.sh"
NODE=$(command -v node)
ADAPTER="$ROOT/adapters/onnx/bin/vexfs-onnx.mjs"
EXACT=(--k-type f32 --v-type f32 --flash-attn off)

echo "== building vexfs in $BUILD" >&2
[[ -f $BUILD/build.ninja ]] || cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD" -j2 vexfs >&2
VEXFS="$BUILD/tools/vexfs/vexfs"
"$ROOT/scripts/fetch_onnx_adapter.sh" >&2

MODEL="$MODELS/qwen2.5-0.5b-random-seed1-f32.gguf"
ONNX="$MODELS/qwen2.5-0.5b-random-seed1-f32-onnx"
mkdir -p "$MODELS"
if [[ ! -f $MODEL ]]; then
  echo "== building $MODEL" >&2
  "$VEXFS" kv model-init --shape qwen2.5-0.5b --seed 1 --stdev 0.05 --f32-weights -o "$MODEL" >&2
fi
if [[ ! -f $ONNX/vexfs_model.json ]]; then
  echo "== converting it to ONNX in $ONNX" >&2
  rm -rf "$ONNX"
  /usr/bin/python3 "$ROOT/adapters/onnx/convert/gguf_to_onnx.py" --gguf "$MODEL" --out "$ONNX" --vexfs "$VEXFS" \
    2>"$WORK/convert.log" || fail "conversion failed: $(tail -5 "$WORK/convert.log")"
fi
PROMPT="$WORK/prompt.txt"
cat "$ROOT/README.md" "$ROOT"/docs/{cli,decisions,durability,format,kv,kv-transport,mount,search,usxf}.md >"$PROMPT"
mkdir -p "$WORK/keys"
"$VEXFS" usxf keygen -o "$WORK/alice.key" >/dev/null
cp "$WORK/alice.key.pub" "$WORK/keys/alice.pub"

elapsed() { python3 -c 'import sys,time; print(time.time() - float(sys.argv[1]))' "$1"; }

echo "== 1. llama.cpp in $B: capture $TOKENS tokens, signed; ONNX Runtime in $A continues" >&2
ip netns exec "$B" "$VEXFS" --json kv capture --model "$MODEL" --prompt-file "$PROMPT" --tokens "$TOKENS" \
  "${EXACT[@]}" --sign-key "$WORK/alice.key" -o "$WORK/llama.usxf" >"$WORK/capture1.json"
serve_one "$WORK/spool1"
send_over "$WORK/llama.usxf" "$WORK/send1.json"
t=$(date +%s.%N)
ip netns exec "$A" "$VEXFS" kv export --layout hf "$GOT" --keyring "$WORK/keys" -o "$WORK/exp" >/dev/null
elapsed "$t" >"$WORK/export_seconds"
rc1=0
ip netns exec "$A" "$NODE" "$ADAPTER" verify --model "$ONNX" --cache "$WORK/exp" --json >"$WORK/verify1.json" || rc1=$?

echo "== 2. ONNX Runtime in $B: capture the same tokens; llama.cpp in $A verifies" >&2
python3 -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["tokens"])))' \
  "$WORK/exp/manifest.json" >"$WORK/token_ids"
ip netns exec "$B" "$NODE" "$ADAPTER" capture --model "$ONNX" --token-ids "$(cat "$WORK/token_ids")" \
  --out "$WORK/ocap" --json >"$WORK/capture2.json"
ip netns exec "$B" "$VEXFS" kv import --layout hf "$WORK/ocap" --sign-key "$WORK/alice.key" -o "$WORK/ort.usxf" >/dev/null
serve_one "$WORK/spool2"
send_over "$WORK/ort.usxf" "$WORK/send2.json"
rc2=0
ip netns exec "$A" "$VEXFS" --json kv verify --model "$MODEL" "$GOT" --keyring "$WORK/keys" "${EXACT[@]}" \
  >"$WORK/verify2.json" || rc2=$?

echo "== 3. restore into ONNX Runtime vs its re-prefill, $REPS reps each" >&2
for n in 512 "$TOKENS"; do
  if [[ $n == "$TOKENS" ]]; then
    dir="$WORK/exp"
  else
    "$VEXFS" kv capture --model "$MODEL" --prompt-file "$PROMPT" --tokens "$n" "${EXACT[@]}" --reference-steps 0 \
      -o "$WORK/b$n.usxf" >/dev/null
    "$VEXFS" kv export --layout hf "$WORK/b$n.usxf" -o "$WORK/b$n" >/dev/null
    dir="$WORK/b$n"
  fi
  "$NODE" "$ADAPTER" bench --model "$ONNX" --cache "$dir" --reps "$REPS" --json >"$WORK/bench$n.json"
done

python3 "$ROOT/bench/onnx_evidence_render.py" --work "$WORK" --model "$MODEL" --onnx "$ONNX" --tokens "$TOKENS" \
  --reps "$REPS" --vexfs "$VEXFS" --root "$ROOT"
[[ $rc1 == 0 && $rc2 == 0 ]] || fail "a verify did not pass (ONNX Runtime exit $rc1, llama.cpp exit $rc2)"
echo "== done" >&2
