# Two "hosts" on one machine for transfer tests and the evidence run: network
# namespaces $A (10.77.X.1, the receiver) and $B (10.77.X.2, the sender) joined by
# a veth pair, the sender's side slowed to 80 Mbit/s so transfers can be cut
# half-way. Sourced; defines A, B, VA, VB, NET, WORK, SERVER_PID, SENDER_PID, skip,
# fail, and a trap that removes everything on exit. Skips (exit 77) without root
# or iproute2, saying why.
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

