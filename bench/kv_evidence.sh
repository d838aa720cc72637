#!/usr/bin/env bash
# The KV-migration evidence run (docs/EVIDENCE.md): a Qwen2.5-0.5B-shaped model
# with random weights and the real Qwen2 tokenizer, a 2016-token prefix of real
# text (this repository's documentation), captured and signed in one network
# namespace, sent to a receiver in another (two "hosts" on one machine, veth
# between them), then verified and continued there by fresh processes. Every check
# of the causal protocol is reported.
#
#   bench/kv_evidence.sh [--models DIR] [--tokens N] [--output FILE]
#
# Needs root (network namespaces) and about 3 GB of memory; ~5 minutes on 2 cores,
# most of it building the 1 GB model once (kept in DIR, default /tmp/vexfs-kv-models).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build-bench"
MODELS=/tmp/vexfs-kv-models
TOKENS=2016
OUTPUT="$ROOT/docs/EVIDENCE.md"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --models) MODELS=$2; shift 2 ;;
    --tokens) TOKENS=$2; shift 2 ;;
    --output) OUTPUT=$2; shift 2 ;;
    *) echo "usage: $0 [--models DIR] [--tokens N] [--output FILE]" >&2; exit 2 ;;
  esac
done

# shellcheck source=../tests/kv/netns_hosts.sh
source "$ROOT/tests/kv/netns_hosts.sh"

echo "== building Release in $BUILD" >&2
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVEXFS_BUILD_TESTS=OFF >/dev/null
ninja -C "$BUILD" -j2 vexfs >&2
VEXFS="$BUILD/tools/vexfs/vexfs"

MODEL="$MODELS/qwen2.5-0.5b-random-seed1.gguf"
mkdir -p "$MODELS"
if [[ ! -f $MODEL ]]; then
  echo "== building $MODEL" >&2
  "$VEXFS" kv model-init --shape qwen2.5-0.5b --seed 1 --stdev 0.05 -o "$MODEL" >&2
fi
PROMPT="$WORK/prompt.txt"
# Real text: the README and the documentation (not the generated pages).
cat "$ROOT/README.md" "$ROOT"/docs/{cli,decisions,durability,format,kv,kv-transport,mount,search,usxf}.md >"$PROMPT"

mkdir -p "$WORK/keys"
"$VEXFS" usxf keygen -o "$WORK/alice.key" >/dev/null
cp "$WORK/alice.key.pub" "$WORK/keys/alice.pub"

echo "== host B ($B): capture $TOKENS tokens, signed" >&2
ip netns exec "$B" "$VEXFS" --json kv capture --model "$MODEL" --prompt-file "$PROMPT" --tokens "$TOKENS" \
  --sign-key "$WORK/alice.key" -o "$WORK/state.usxf" >"$WORK/capture.json"

echo "== host A ($A): receive; host B sends" >&2
ip netns exec "$A" "$VEXFS" kv serve --listen "$NET.1:0" --spool "$WORK/spool" --keyring "$WORK/keys" \
  --port-file "$WORK/port" --max-streams 1 2>"$WORK/serve.log" &
SERVER_PID=$!
for _ in $(seq 200); do [[ -s "$WORK/port" ]] && break; sleep 0.05; done
[[ -s "$WORK/port" ]] || fail "the receiver did not start: $(cat "$WORK/serve.log")"
ip netns exec "$B" "$VEXFS" --json kv send "$WORK/state.usxf" "$NET.1:$(cat "$WORK/port")" >"$WORK/send.json"
wait "$SERVER_PID"
SERVER_PID=
RECEIVED=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verified_path"])' "$WORK/send.json")

echo "== host A: kv verify in a fresh process" >&2
rc=0
ip netns exec "$A" "$VEXFS" --json kv verify --model "$MODEL" "$RECEIVED" --keyring "$WORK/keys" \
  >"$WORK/verify.json" || rc=$?
echo "== host A: kv restore --generate 64 in a fresh process" >&2
ip netns exec "$A" "$VEXFS" --json kv restore --model "$MODEL" "$RECEIVED" --keyring "$WORK/keys" \
  --generate 64 >"$WORK/restore.json"
"$VEXFS" --json usxf inspect "$RECEIVED" >"$WORK/inspect.json"

python3 "$ROOT/bench/kv_evidence_render.py" --work "$WORK" --model "$MODEL" --tokens "$TOKENS" \
  --verify-exit "$rc" --command "bench/kv_evidence.sh$( [[ $TOKENS != 2016 ]] && echo " --tokens $TOKENS")" \
  >"$WORK/evidence.md"
# bench/onnx_evidence.sh owns the "Across runtimes" section: keep it.
if [[ -f $OUTPUT ]] && grep -q '^## Across runtimes' "$OUTPUT"; then
  { echo; sed -n '/^## Across runtimes/,$p' "$OUTPUT"; } >>"$WORK/evidence.md"
fi
cp "$WORK/evidence.md" "$OUTPUT"
echo "== wrote $OUTPUT" >&2
[[ $rc == 0 ]] || fail "kv verify did not pass (exit $rc); see $OUTPUT"
