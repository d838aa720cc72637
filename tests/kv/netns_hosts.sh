# Two "hosts" on one machine for transfer tests and the evidence run: network
# namespaces $A (10.77.X.1, the receiver) and $B (10.77.X.2, the sender) joined by
# a veth pair, the sender's side slowed to 80 Mbit/s so transfers can be cut
# half-way. Sourced; defines A, B, VA, VB, NET, WORK, SERVER_PID, SENDER_PID, skip,
# fail, start_receiver, serve_one and send_over (below), and a trap that removes
# everything on exit. Skips (exit 77) without root or iproute2, saying why.
skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || skip "network namespaces need root"
command -v ip >/dev/null || skip "ip (iproute2) is not installed"

A=vexfs-a-$$
B=vexfs-b-$$
VA=vxa$$  # interface names: at most 15 bytes
VB=vxb$$
NET=10.77.$(( $$ % 250 + 1 ))
WORK=$(mktemp -d)
SERVER_PID=
SENDER_PID=

cleanup() {
  [[ -n "$SENDER_PID" ]] && kill -9 "$SENDER_PID" 2>/dev/null
  [[ -n "$SERVER_PID" ]] && kill -9 "$SERVER_PID" 2>/dev/null
  wait 2>/dev/null
  ip netns del "$A" 2>/dev/null
  ip netns del "$B" 2>/dev/null
  rm -rf "$WORK"
  return 0
}
trap cleanup EXIT

ip netns add "$A" 2>"$WORK/err" || skip "'ip netns add' is not permitted here: $(cat "$WORK/err")"
ip netns add "$B"
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$A"
ip link set "$VB" netns "$B"
ip -n "$A" addr add "$NET.1/24" dev "$VA"
ip -n "$B" addr add "$NET.2/24" dev "$VB"
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set "$VA" up
ip -n "$B" link set "$VB" up
# Slow the sender's side so a 24 MiB transfer takes a few seconds.
if command -v tc >/dev/null; then
  ip netns exec "$B" tc qdisc add dev "$VB" root tbf rate 80mbit burst 64kb latency 200ms
else
  echo "note: tc missing; transfers run at full speed and the cuts may come late" >&2
fi

# A receiver in $A on LISTEN that trusts $WORK/keys, with any further `kv serve`
# options; sets SERVER_PID and PORT once it listens. Needs $VEXFS.
start_receiver() {  # start_receiver LISTEN SPOOL [OPTION...]
  local listen=$1 spool=$2
  shift 2
  rm -f "$WORK/port"
  ip netns exec "$A" "$VEXFS" kv serve --listen "$listen" --spool "$spool" --keyring "$WORK/keys" \
    --port-file "$WORK/port" "$@" 2>>"$WORK/serve.log" &
  SERVER_PID=$!
  for _ in $(seq 200); do [[ -s "$WORK/port" ]] && break; sleep 0.05; done
  [[ -s "$WORK/port" ]] || fail "the receiver did not start: $(cat "$WORK/serve.log")"
  PORT=$(cat "$WORK/port")
}

# A one-stream receiver on any free port; see start_receiver.
serve_one() {  # serve_one SPOOL
  start_receiver "$NET.1:0" "$1" --max-streams 1
}

# Sends FILE from $B to serve_one's receiver and waits for it; the JSON report
# goes to JSON_OUT and GOT is set to where $A keeps the verified copy. Call it
# as a command, not in $(...): the receiver is this shell's child.
send_over() {  # send_over FILE JSON_OUT
  ip netns exec "$B" "$VEXFS" --json kv send "$1" "$NET.1:$PORT" >"$2" || fail "send failed: $(cat "$2")"
  wait "$SERVER_PID" || fail "the receiver failed: $(cat "$WORK/serve.log")"
  SERVER_PID=
  GOT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verified_path"])' "$2")
  cmp "$GOT" "$1" || fail "$GOT differs from $1"
}
