#!/usr/bin/env bash
# `vexfs kv serve` and `vexfs kv send` between two "hosts" on one machine: the
# network namespaces vexfs-a-<pid> (receiver, 10.77.X.1) and vexfs-b-<pid>
# (sender, 10.77.X.2), joined by a veth pair whose sender side is slowed to
# 80 Mbit/s so transfers can be cut half-way. Checks, with signed files:
#   1. the sender killed half-way, then sent again: resumes, verifies, identical;
#   2. the link taken down half-way: one send retries until the link is back;
#   3. the receiver killed half-way and restarted on the same port: the running
#      send reconnects and resumes;
#   4. a damaged file is refused (exit 6), an unsigned one too (exit 10),
#      and nothing of theirs reaches verified/;
#   5. the same CLI over loopback in the root namespace;
#   6. a KV state captured on one host (tiny random Qwen2 model) sent to a
#      receiver on the other that restores it on arrival (--model) and continues
#      exactly as the source did.
# Usage: netns_transfer_test.sh [VEXFS]   (default $VEXFS_BIN)
# Exits 77 (ctest: skipped) when namespaces cannot be made, saying why.
set -euo pipefail

VEXFS=${1:-${VEXFS_BIN:-}}
if [[ -z "$VEXFS" || ! -x "$VEXFS" ]]; then
  echo "FAIL: no vexfs binary (argument or \$VEXFS_BIN)" >&2
  exit 1
fi
# shellcheck source=netns_hosts.sh
source "$(dirname "$0")/netns_hosts.sh"

# --- files: two signed, one damaged, one unsigned --------------------------
mkdir -p "$WORK/keys"
"$VEXFS" usxf keygen -o "$WORK/alice.key" >/dev/null
cp "$WORK/alice.key.pub" "$WORK/keys/alice.pub"
make_usxf() {  # make_usxf OUT SEED [--key K]
  local out=$1 seed=$2
  shift 2
  head -c $((16 << 20)) </dev/urandom >"$WORK/a.$seed"
  head -c $((8 << 20)) </dev/urandom >"$WORK/b.$seed"
  "$VEXFS" usxf pack -o "$out" "alpha=$WORK/a.$seed" "beta=$WORK/b.$seed" "$@" >/dev/null
}
make_usxf "$WORK/one.usxf" 1 --key "$WORK/alice.key"
make_usxf "$WORK/two.usxf" 2 --key "$WORK/alice.key"
make_usxf "$WORK/bad.usxf" 3 --key "$WORK/alice.key"
make_usxf "$WORK/unsigned.usxf" 4
# Damage one byte deep inside section beta.
printf '\xff' | dd of="$WORK/bad.usxf" bs=1 seek=$((20 << 20)) conv=notrunc status=none
SIZE=$(stat -c %s "$WORK/one.usxf")

# --- helpers ------------------------------------------------------------------
start_server() {  # start_server LISTEN_ADDR
  start_receiver "$1" "$WORK/spool" --idle-timeout 3
}
partial_bytes() {  # bytes held in the receiver's partial file(s)
  local n=0 f
  for f in "$WORK"/spool/partial/*.part; do [[ -e "$f" ]] && n=$((n + $(stat -c %s "$f"))); done
  echo "$n"
}
wait_partial() {  # wait_partial MIN_BYTES: until the receiver holds more
  for _ in $(seq 400); do (($(partial_bytes) > $1)) && return 0; sleep 0.025; done
  fail "the receiver never held more than $1 bytes: $(cat "$WORK/serve.log")"
}
send_json() {  # send_json FILE [ARGS...]: runs in namespace B, JSON report on stdout
  local file=$1
  shift
  ip netns exec "$B" "$VEXFS" --json kv send "$file" "$NET.1:$PORT" "$@"
}
check_verified() {  # check_verified JSON FILE
  local path
  path=$(sed -n 's/.*"verified_path":"\([^"]*\)".*/\1/p' <<<"$1")
  [[ -n "$path" ]] || fail "no verified path in: $1"
  cmp "$path" "$2" || fail "$path differs from $2"
}
field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" <<<"$2"; }

start_server "$NET.1:0"

# --- 1. sender killed half-way, then sent again -------------------------------
ip netns exec "$B" "$VEXFS" kv send "$WORK/one.usxf" "$NET.1:$PORT" --attempts 1 >/dev/null 2>&1 &
SENDER_PID=$!
wait_partial $((SIZE / 3))
kill -9 "$SENDER_PID"
wait "$SENDER_PID" 2>/dev/null || true
SENDER_PID=
HELD=$(partial_bytes)
((HELD < SIZE)) || fail "the transfer finished before the sender was killed"
sleep 0.3  # the receiver notices the reset and keeps the prefix
out=$(send_json "$WORK/one.usxf") || fail "resumed send failed: $out"
check_verified "$out" "$WORK/one.usxf"
RESUMED=$(field resumed_from "$out")
((RESUMED > 0)) || fail "the second send did not resume: $out"
echo "ok 1: sender killed at $HELD of $SIZE bytes; second send resumed at $RESUMED"

# --- 2. link down half-way: one send rides it out ------------------------------
send_json "$WORK/two.usxf" --attempts 30 --io-timeout 2 >"$WORK/two.json" 2>"$WORK/two.err" &
SENDER_PID=$!
wait_partial $((SIZE / 4))
ip -n "$B" link set "$VB" down
sleep 4  # longer than both timeouts: the connection is dead on both sides
ip -n "$B" link set "$VB" up
ip netns exec "$B" tc qdisc replace dev "$VB" root tbf rate 80mbit burst 64kb latency 200ms 2>/dev/null || true
wait "$SENDER_PID" || fail "send across the link cut failed: $(cat "$WORK/two.err" "$WORK/two.json")"
SENDER_PID=
out=$(cat "$WORK/two.json")
check_verified "$out" "$WORK/two.usxf"
(($(field attempts "$out") > 1)) || fail "the link cut did not cost an attempt: $out"
(($(field resumed_from "$out") > 0)) || fail "the send after the link cut did not resume: $out"
echo "ok 2: link down half-way; $(field attempts "$out") attempts, resumed at $(field resumed_from "$out")"

# --- 3. receiver killed half-way, restarted on the same port -------------------
rm -f "$WORK"/spool/verified/*
send_json "$WORK/one.usxf" --attempts 30 >"$WORK/three.json" 2>"$WORK/three.err" &
SENDER_PID=$!
wait_partial $((SIZE / 3))
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
HELD=$(partial_bytes)
start_server "$NET.1:$PORT"
wait "$SENDER_PID" || fail "send across the receiver restart failed: $(cat "$WORK/three.err" "$WORK/three.json")"
SENDER_PID=
out=$(cat "$WORK/three.json")
check_verified "$out" "$WORK/one.usxf"
(($(field resumed_from "$out") > 0)) || fail "the send after the restart did not resume: $out"
echo "ok 3: receiver killed at $HELD of $SIZE bytes and restarted; resumed at $(field resumed_from "$out")"

# --- 4. refusals -----------------------------------------------------------------
before=$(ls "$WORK/spool/verified" | wc -l)
rc=0
send_json "$WORK/bad.usxf" >"$WORK/bad.json" 2>"$WORK/bad.err" || rc=$?
((rc == 6)) || fail "damaged file: exit $rc, expected 6 (corruption): $(cat "$WORK/bad.err")"
grep -q beta "$WORK/bad.err" || fail "the refusal does not name section beta: $(cat "$WORK/bad.err")"
rc=0
send_json "$WORK/unsigned.usxf" >/dev/null 2>"$WORK/unsigned.err" || rc=$?
((rc == 10)) || fail "unsigned file: exit $rc, expected 10 (untrusted): $(cat "$WORK/unsigned.err")"
[[ $(ls "$WORK/spool/verified" | wc -l) == "$before" ]] || fail "a refused stream reached verified/"
[[ $(partial_bytes) == 0 ]] || fail "a refused stream left a partial file"
echo "ok 4: damaged file refused (exit 6, names beta), unsigned refused (exit 10)"

kill "$SERVER_PID"
wait "$SERVER_PID" || fail "the receiver did not exit cleanly on SIGTERM"
SERVER_PID=

# --- 5. loopback, root namespace, one-shot receiver --------------------------------
"$VEXFS" kv serve --listen 127.0.0.1:0 --spool "$WORK/spool-lo" --keyring "$WORK/keys" \
  --port-file "$WORK/port-lo" --max-streams 1 2>>"$WORK/serve.log" &
SERVER_PID=$!
for _ in $(seq 100); do [[ -s "$WORK/port-lo" ]] && break; sleep 0.05; done
out=$("$VEXFS" --json kv send "$WORK/two.usxf" "127.0.0.1:$(cat "$WORK/port-lo")") || fail "loopback send: $out"
check_verified "$out" "$WORK/two.usxf"
wait "$SERVER_PID" || fail "the one-shot receiver did not exit 0"
SERVER_PID=
echo "ok 5: loopback"

# --- 6. KV migration: capture on B, restore on arrival on A ------------------------
"$VEXFS" kv model-init --shape tiny --seed 7 --stdev 0.2 -o "$WORK/tiny.gguf" >/dev/null
printf 'The keeper of the lighthouse wrote down the weather every evening, and the ships he saw.' >"$WORK/prompt.txt"
ip netns exec "$B" "$VEXFS" --json kv capture --model "$WORK/tiny.gguf" --prompt-file "$WORK/prompt.txt" \
  --threads 1 --sign-key "$WORK/alice.key" -o "$WORK/state.usxf" >"$WORK/capture.json"
want=$(sed -n 's/.*"reference_tokens":\(\[[^]]*\]\).*/\1/p' "$WORK/capture.json")
[[ -n "$want" ]] || fail "capture gave no reference tokens: $(cat "$WORK/capture.json")"
rm -f "$WORK/port"
ip netns exec "$A" "$VEXFS" --json kv serve --listen "$NET.1:0" --spool "$WORK/spool-kv" --keyring "$WORK/keys" \
  --port-file "$WORK/port" --max-streams 1 --model "$WORK/tiny.gguf" --generate 64 --threads 1 \
  >"$WORK/restored.json" 2>>"$WORK/serve.log" &
SERVER_PID=$!
for _ in $(seq 200); do [[ -s "$WORK/port" ]] && break; sleep 0.05; done
[[ -s "$WORK/port" ]] || fail "the KV receiver did not start: $(cat "$WORK/serve.log")"
PORT=$(cat "$WORK/port")
send_json "$WORK/state.usxf" >/dev/null || fail "sending the KV state failed"
wait "$SERVER_PID" || fail "the KV receiver failed: $(cat "$WORK/serve.log")"
SERVER_PID=
got=$(sed -n 's/.*"generated":\(\[[^]]*\]\).*/\1/p' "$WORK/restored.json")
[[ "$got" == "$want" ]] || fail "restored continuation differs from the source's: $got vs $want"
echo "ok 6: KV state captured in $B, restored on arrival in $A; 64 tokens equal the source's"
echo "PASS"
