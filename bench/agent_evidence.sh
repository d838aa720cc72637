#!/usr/bin/env bash
# The agent-move evidence run (docs/agent-bundle.md): a whole agent (its memory
# files, its memory graph with pending actions, and the KV cache of its prompt)
# built on host B, exported as one signed bundle, streamed to host A with
# `vexfs agent send` into `vexfs kv serve --import`, and resumed there with
# `vexfs agent resume` without reading the prompt again. The two "hosts" are
# network namespaces joined by a veth pair at full speed. Then checks that A
# holds the same agent (commit ids, graph diff, pending actions, searches, a
# bit-identical continuation) and times the alternative: rebuilding the agent
# on A from its inputs (put, transcript import, indexing, re-prefill).
#
#   bench/agent_evidence.sh [--models DIR] [--tokens N] [--files N] [--nodes N]
#                           [--shape qwen2.5-0.5b|tiny] [--vexfs BIN] [--output FILE] [--keep DIR]
#                           [--threads N]
#
# Prints the markdown section "## Moving a whole agent" (or writes it to FILE);
# --keep copies the run's work directory (JSON outputs, stores, bundle) to DIR;
# --threads N gives llama.cpp N threads (capture, resume, the rebuild's capture;
# default all cores): on a machine that is busy with something else, fewer threads
# than cores keep its spinning threads from slowing every step many times over.
# Needs root (network namespaces; exit 77 otherwise). The qwen2.5-0.5b model is
# built once (about 1 GB, kept in DIR, default /tmp/vexfs-kv-models); a quick
# check: --shape tiny --tokens 200 --files 50 --nodes 200.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build-bench"
MODELS=/tmp/vexfs-kv-models
TOKENS=2016
FILES=1000
NODES=5000
SHAPE=qwen2.5-0.5b
VEXFS=
OUTPUT=
KEEP=
THREADS=
CACM="$ROOT/../shared/data/cacm/cacm.all"
GENERATE=64
usage() {
  echo "usage: $0 [--models DIR] [--tokens N] [--files N] [--nodes N] [--shape S] [--vexfs BIN]" \
    "[--output FILE] [--keep DIR] [--threads N]" >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || usage
  case "$1" in
    --models) MODELS=$2 ;;
    --tokens) TOKENS=$2 ;;
    --files) FILES=$2 ;;
    --nodes) NODES=$2 ;;
    --shape) SHAPE=$2 ;;
    --vexfs) VEXFS=$2 ;;
    --output) OUTPUT=$2 ;;
    --keep) KEEP=$2 ;;
    --threads) THREADS=$2 ;;
    *) usage ;;
  esac
  shift 2
done
for n in "$TOKENS" "$FILES" "$NODES" ${THREADS:+"$THREADS"}; do [[ $n =~ ^[0-9]+$ ]] || usage; done
((NODES >= 4)) || { echo "--nodes must be at least 4 (2 actions, the KV turn, one transcript message)" >&2; exit 2; }
((FILES >= 1)) || { echo "--files must be at least 1" >&2; exit 2; }
[[ -r $CACM ]] || { echo "the CACM collection is missing: $CACM" >&2; exit 1; }

# shellcheck source=../tests/kv/netns_hosts.sh
source "$ROOT/tests/kv/netns_hosts.sh"
cut -d' ' -f1 /proc/loadavg >"$WORK/loadavg"  # for the report: what else the machine was doing
# The hosts' link at full speed: netns_hosts.sh slows B's side to 80 Mbit/s.
ip netns exec "$B" tc qdisc del dev "$VB" root 2>/dev/null || true
if ip netns exec "$B" tc qdisc show dev "$VB" 2>/dev/null | grep -q tbf; then
  fail "the 80 Mbit/s shaping on $VB is still there"
fi
if [[ -n $KEEP ]]; then
  keep_work() { mkdir -p "$KEEP" && cp -a "$WORK/." "$KEEP/" && echo "== kept the work directory in $KEEP" >&2; }
  trap 'keep_work || true; cleanup' EXIT
fi

if [[ -z $VEXFS ]]; then
  echo "== building Release in $BUILD" >&2
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVEXFS_BUILD_TESTS=OFF >/dev/null
  ninja -C "$BUILD" -j2 vexfs >&2
  VEXFS="$BUILD/tools/vexfs/vexfs"
fi
VEXFS=$(realpath -m "$VEXFS")
[[ -x $VEXFS ]] || fail "no vexfs binary at $VEXFS"

LLAMA_ARGS=(${THREADS:+--threads "$THREADS"})
onA() { ip netns exec "$A" "$VEXFS" "$@"; }
onB() { ip netns exec "$B" "$VEXFS" "$@"; }
jget() {  # jget FILE PYTHON-EXPRESSION-OF-d: prints the value (JSON for lists/objects)
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(v if isinstance(v, (str, int, float)) else json.dumps(v, sort_keys=True))' "$1" "$2"
}
# timeit NAME OUT CMD...: runs CMD (stdout to OUT, stderr to $WORK/NAME.err),
# fails the run naming NAME if it fails, appends "NAME SECONDS" to times.txt.
timeit() {
  local name=$1 out=$2 t0 t1 rc=0
  shift 2
  t0=$(date +%s.%N)
  "$@" >"$out" 2>"$WORK/$name.err" || rc=$?
  t1=$(date +%s.%N)
  ((rc == 0)) || fail "$name failed (exit $rc): $(cat "$WORK/$name.err") $(head -c 2000 "$out")"
  echo "$name $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" >>"$WORK/times.txt"
}
CHECKS="$WORK/checks.txt"
: >"$CHECKS"
FAILED=()
check() {  # check NAME OK(0/1) DETAIL: records a check for the report
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$CHECKS"
  [[ $2 == 1 ]] || FAILED+=("$1: $3")
}

# --- model, prompt, key --------------------------------------------------------
MODEL="$MODELS/$SHAPE-random-seed1.gguf"
mkdir -p "$MODELS"
if [[ ! -f $MODEL ]]; then
  echo "== building $MODEL" >&2
  "$VEXFS" kv model-init --shape "$SHAPE" --seed 1 --stdev 0.05 -o "$MODEL.tmp" >&2
  mv "$MODEL.tmp" "$MODEL"
fi
"$VEXFS" --json kv model-info --model "$MODEL" >"$WORK/model-info.json"
PROMPT="$WORK/prompt.txt"
# Real text, as bench/kv_evidence.sh: the README and the documentation.
cat "$ROOT/README.md" "$ROOT"/docs/{cli,decisions,durability,format,kv,kv-transport,mount,search,usxf}.md >"$PROMPT"
mkdir -p "$WORK/keys"
"$VEXFS" usxf keygen -o "$WORK/alice.key" >/dev/null
cp "$WORK/alice.key.pub" "$WORK/keys/alice.pub"

# --- inputs: memory files and the transcript ------------------------------------
echo "== inputs: $FILES CACM documents, a transcript of $((NODES - 3)) graph nodes" >&2
mkdir -p "$WORK/mem"
python3 - "$CACM" "$FILES" "$NODES" "$WORK/mem" "$WORK/transcript.jsonl" "$WORK/queries.txt" <<'EOF'
import json, os, re, sys
cacm, nfiles, nnodes, mem, transcript, queries = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:]
docs = []  # (n, whole record, title)
for rec in re.split(r"^(?=\.I )", open(cacm, encoding="utf-8", errors="replace").read(), flags=re.M):
    if not rec.startswith(".I "):
        continue
    n = int(rec.split()[1])
    m = re.search(r"^\.T\n(.*?)(?=^\.[A-Z]\b)", rec, flags=re.M | re.S)
    title = " ".join(m.group(1).split()) if m else f"document {n}"
    docs.append((n, rec, title))
    if len(docs) == nfiles:
        break
if len(docs) < nfiles:
    sys.exit(f"the collection holds {len(docs)} documents, fewer than --files {nfiles}")
for n, rec, _ in docs:
    with open(os.path.join(mem, f"cacm-{n}.txt"), "w") as f:
        f.write(rec)
# The transcript: rounds of a user question, an assistant turn calling a tool, the
# tool's result and the assistant's answer (5 graph nodes: 3 turns, a tool call,
# a tool result), then single user notes to reach the count exactly.
want = nnodes - 3  # + 2 pending actions + the turn carrying the KV span
rounds, extra = divmod(want, 5)
with open(transcript, "w") as f:
    put = lambda m: f.write(json.dumps(m) + "\n")
    for r in range(rounds):
        n, rec, title = docs[r % len(docs)]
        path = f"mem/cacm-{n}.txt"
        put({"role": "user", "content": f"What does the paper \"{title}\" say? (question {r + 1})"})
        put({"role": "assistant", "content": "Let me read it from memory.",
             "tool_calls": [{"id": f"call-{r}", "type": "function",
                             "function": {"name": "read_file", "arguments": json.dumps({"path": path})}}]})
        put({"role": "tool", "tool_call_id": f"call-{r}", "content": rec[:400]})
        put({"role": "assistant", "content": f"{path} is \"{title}\"; I have noted it for question {r + 1}."})
    for e in range(extra):
        put({"role": "user", "content": f"Note {e + 1}: keep the reading list in mem/."})
with open(queries, "w") as f:
    f.write("\n".join(["algebraic language compiler", "matrix inversion", "numerical integration method",
                       "square root approximation", "computer program for the solution of equations"]) + "\n")
EOF
mapfile -t QUERIES <"$WORK/queries.txt"

# --- host B: the agent --------------------------------------------------------------
SRC="$WORK/src"
echo "== host B ($B): store, $FILES files, graph, KV capture of $TOKENS tokens" >&2
onB --store "$SRC" init >/dev/null
onB --json --store "$SRC" put "$WORK/mem" /mem >"$WORK/src-put.json"
onB --json --store "$SRC" graph import "$WORK/transcript.jsonl" --thread t1 >"$WORK/src-import.json"
IMPORTED=$(jget "$WORK/src-import.json" 'len(d["nodes"])')
[[ $IMPORTED == $((NODES - 3)) ]] || fail "graph import made $IMPORTED nodes, not $((NODES - 3))"
onB --json kv capture --model "$MODEL" --prompt-file "$PROMPT" --tokens "$TOKENS" \
  --sign-key "$WORK/alice.key" "${LLAMA_ARGS[@]}" -o "$WORK/state.usxf" >"$WORK/capture.json"
T=$(jget "$WORK/capture.json" 'd["tokens"]')
onB --store "$SRC" graph add --kind turn --thread t1 --source assistant --span "ctx:0:$T:$T" \
  --text "Read the project documentation ($T tokens) into the context." >/dev/null
onB --store "$SRC" graph add --kind pending_action --thread t1 --key act-done \
  --text "Write the reading list to mem/reading-list.md" >/dev/null
onB --store "$SRC" graph add --kind pending_action --thread t1 --key act-open \
  --text "Email the reading list to the team" >/dev/null
onB --store "$SRC" graph action key:act-done done >/dev/null
onB --store "$SRC" snapshot create s1 >/dev/null
# s2: one file changed, one turn added.
FIRST=$(ls "$WORK/mem" | sort -t- -k2 -n | head -1)
printf '\n.R\nRead again on the second day; see the notes in the graph.\n' >>"$WORK/mem/$FIRST"
onB --store "$SRC" put "$WORK/mem/$FIRST" "/mem/$FIRST" >/dev/null
onB --store "$SRC" graph add --kind turn --thread t1 --source user \
  --text "Now send the reading list to the team." >/dev/null
onB --store "$SRC" snapshot create s2 >/dev/null

# --- the move: export on B, send to A (verified, imported), resume on A -------------
DST="$WORK/dst"
echo "== host B: agent export s2" >&2
timeit export "$WORK/export.json" onB --json --store "$SRC" agent export s2 -o "$WORK/agent.usxf" \
  --kv "ctx=$WORK/state.usxf" --sign "$WORK/alice.key"
onA --store "$DST" init >/dev/null
echo "== host A ($A): kv serve --import; host B: agent send" >&2
rm -f "$WORK/port"
ip netns exec "$A" "$VEXFS" --json --store "$DST" kv serve --listen "$NET.1:0" --keyring "$WORK/keys" \
  --spool "$WORK/spool" --port-file "$WORK/port" --max-streams 1 --import --import-branch moved \
  >"$WORK/serve.out" 2>"$WORK/serve.log" &
SERVER_PID=$!
for _ in $(seq 200); do [[ -s "$WORK/port" ]] && break; sleep 0.05; done
[[ -s "$WORK/port" ]] || fail "the receiver did not start: $(cat "$WORK/serve.log")"
PORT=$(cat "$WORK/port")
timeit send "$WORK/send.json" onB --json agent send "$WORK/agent.usxf" "$NET.1:$PORT"
rc=0
wait "$SERVER_PID" || rc=$?
SERVER_PID=
((rc == 0)) || fail "the receiver failed (exit $rc): $(cat "$WORK/serve.log" "$WORK/serve.out")"
r=$(python3 - "$WORK/serve.out" "$WORK/export.json" <<'PY'
import json, sys
got = [r for r in map(json.loads, filter(str.strip, open(sys.argv[1]))) if "objects_added" in r]
m = json.load(open(sys.argv[2]))["manifest"]
if len(got) != 1:
    print(0, f"kv serve reported {len(got)} imports")
elif got[0]["snapshot"] != m["snapshot"] or len(got[0]["kv_files"]) != len(m["kv"]):
    print(0, f"kv serve imported {got[0]}, the bundle holds snapshot {m['snapshot']}")
else:
    print(1, f"snapshot {m['snapshot'][:16]}..., {got[0]['objects_added']} objects added, "
             f"{len(got[0]['kv_files'])} KV state(s) in the store's kv/")
PY
)
check "imported on arrival (kv serve --import)" "${r%% *}" "${r#* }"
echo "== host A: agent resume --generate 1 (the move ends at the first token)" >&2
timeit resume_first "$WORK/resume1.json" onA --json --store "$DST" agent resume --branch moved --model "$MODEL" \
  --generate 1 --keyring "$WORK/keys" "${LLAMA_ARGS[@]}"
echo "== host A: agent resume --generate $GENERATE" >&2
timeit resume "$WORK/resume.json" onA --json --store "$DST" agent resume --branch moved --model "$MODEL" \
  --generate "$GENERATE" --keyring "$WORK/keys" "${LLAMA_ARGS[@]}"
stat -c %s "$WORK/agent.usxf" >"$WORK/bundle_bytes"

# --- checks: A holds the agent B had ------------------------------------------------
echo "== checks, A against B" >&2
same_output() {  # same_output NAME SUMMARY ARGS...: the --json output of ARGS on A and B, byte for byte;
  local name=$1 summary=$2  # SUMMARY: a python expression of d (the parsed output) for the report
  shift 2
  onB --json --store "$SRC" "$@" >"$WORK/$name.B.json" || fail "$* failed on B"
  onA --json --store "$DST" "$@" >"$WORK/$name.A.json" || fail "$* failed on A"
  if cmp -s "$WORK/$name.A.json" "$WORK/$name.B.json"; then
    check "$name" 1 "$(jget "$WORK/$name.A.json" "$summary"); JSON identical ($(wc -c <"$WORK/$name.A.json") bytes)"
  else
    check "$name" 0 "differs: $(diff <(python3 -m json.tool "$WORK/$name.B.json") \
      <(python3 -m json.tool "$WORK/$name.A.json") | head -20 | tr '\n\t' '  ')"
  fi
}
# compare_hits B.json A.json: prints "1 DETAIL" when A's hits are B's (path, score,
# passage and snippet) in B's order, "0 DETAIL" otherwise. Hits of equal score are
# compared as a set: their order is not part of the ranking (and, see the report,
# is not the same in two stores that indexed in different orders); a group of equal
# scores cut by -k is compared by size only.
compare_hits() {
  python3 - "$1" "$2" <<'PY'
import json, sys
b, a = (json.load(open(f))["hits"] for f in sys.argv[1:3])
key = lambda h: (h["path"], h["offset"], h["length"], h["snippet"])
def groups(hits):
    g = []
    for h in hits:
        if g and g[-1][0] == h["score"]:
            g[-1][1].append(key(h))
        else:
            g.append((h["score"], [key(h)]))
    return [(s, sorted(k)) for s, k in g]
gb, ga = groups(b), groups(a)
ok = bool(b) and len(a) == len(b) and [s for s, _ in ga] == [s for s, _ in gb] and \
    all(x == y or (i == len(ga) - 1 and len(x) == len(y)) for i, ((_, x), (_, y)) in enumerate(zip(ga, gb)))
strict = [key(h) for h in a] == [key(h) for h in b]
if not ok:
    print(0, f"B: {[h['path'] for h in b]} A: {[h['path'] for h in a]}")
elif strict:
    print(1, f"{len(a)} hits, same paths, scores and passages in the same order")
else:
    moved = [i + 1 for i, (x, y) in enumerate(zip(a, b)) if x["path"] != y["path"]]
    print(1, f"{len(a)} hits, same paths, scores and passages; equal-score hits in another order "
             f"(ranks {', '.join(map(str, moved))}, scores tied)")
PY
}
# Searches first: A's first one indexes what arrived (search waits for the index).
i=0
for q in "${QUERIES[@]}"; do
  i=$((i + 1))
  if ((i == 1)); then
    timeit first_search_A "$WORK/search$i.A.json" onA --json --store "$DST" search "$q" --at s2
  else
    onA --json --store "$DST" search "$q" --at s2 >"$WORK/search$i.A.json" || fail "search '$q' failed on A"
  fi
  onB --json --store "$SRC" search "$q" --at s2 >"$WORK/search$i.B.json" || fail "search '$q' failed on B"
  r=$(compare_hits "$WORK/search$i.B.json" "$WORK/search$i.A.json")
  check "search: $q" "${r%% *}" "${r#* }"
done
la=$(onA --json --store "$DST" log s2) || fail "log s2 failed on A"
lb=$(onB --json --store "$SRC" log s2) || fail "log s2 failed on B"
ida=$(python3 -c 'import json,sys; print(" ".join(c["id"] for c in json.loads(sys.argv[1])))' "$la")
idb=$(python3 -c 'import json,sys; print(" ".join(c["id"] for c in json.loads(sys.argv[1])))' "$lb")
if [[ $ida == "$idb" ]]; then
  check "commit ids (log s2)" 1 "$(wc -w <<<"$ida") commits, s2 = ${ida:0:16}..."
else
  check "commit ids (log s2)" 0 "B: $idb A: $ida"
fi
echo "$ida" >"$WORK/commits"
same_output "graph diff s1 s2" \
  '", ".join(c["change"] + " " + (c["node"]["kind"] if c.get("node") else "edge") for c in d["changes"]) or "no change"' \
  graph diff s1 s2
n=$(jget "$WORK/graph diff s1 s2.B.json" 'len(d["changes"])')
((n > 0)) || check "graph diff s1 s2 is not empty" 0 "B's graph diff s1 s2 lists no change"
same_output "pending actions at s2" '", ".join(sorted(x["key"] + " " + x["action"] for x in d))' \
  graph actions --at s2
states=$(jget "$WORK/pending actions at s2.A.json" '" ".join(sorted(x["key"] + "=" + x["action"] for x in d))')
[[ $states == "act-done=done act-open=planned" ]] ||
  check "pending action states" 0 "expected act-done=done act-open=planned, got $states"
match=$(jget "$WORK/resume.json" 'd["matches_source"]')
gen=$(jget "$WORK/resume.json" 'd["generated"]')
ref=$(jget "$WORK/capture.json" 'd["reference_tokens"][:'"$GENERATE"']')
ngen=$(jget "$WORK/resume.json" 'len(d["generated"])')
if [[ $match == True && $gen == "$ref" && $ngen == "$GENERATE" ]]; then
  check "resume continues as the source did" 1 "matches_source true; $ngen generated tokens equal the capture's reference_tokens"
else
  check "resume continues as the source did" 0 "matches_source $match; generated $gen; reference $ref"
fi

# --- the alternative: rebuild the agent on A from its inputs -------------------------
REB="$WORK/rebuild"
echo "== host A: rebuild from the inputs (put, transcript, indexing, re-prefill)" >&2
timeit rebuild_init "$WORK/rebuild-init.out" onA --store "$REB" init
timeit rebuild_put "$WORK/rebuild-put.json" onA --json --store "$REB" put "$WORK/mem" /mem
timeit rebuild_graph "$WORK/rebuild-import.json" onA --json --store "$REB" graph import "$WORK/transcript.jsonl" \
  --thread t1
timeit rebuild_search "$WORK/rebuild-search.json" onA --json --store "$REB" search "${QUERIES[0]}"
# The re-prefill up to the first token: one recorded step, as the move's resume.
timeit rebuild_capture "$WORK/rebuild-capture.json" onA --json kv capture --model "$MODEL" \
  --prompt-file "$PROMPT" --tokens "$TOKENS" --reference-steps 1 --sign-key "$WORK/alice.key" \
  "${LLAMA_ARGS[@]}" -o "$WORK/rebuild-state.usxf"

# --- the report ----------------------------------------------------------------------
COMMAND="bench/agent_evidence.sh"
[[ $SHAPE != qwen2.5-0.5b ]] && COMMAND+=" --shape $SHAPE"
[[ $TOKENS != 2016 ]] && COMMAND+=" --tokens $TOKENS"
[[ $FILES != 1000 ]] && COMMAND+=" --files $FILES"
[[ $NODES != 5000 ]] && COMMAND+=" --nodes $NODES"
[[ -n $THREADS ]] && COMMAND+=" --threads $THREADS"
python3 "$ROOT/bench/agent_evidence_render.py" --work "$WORK" --model "$MODEL" --shape "$SHAPE" \
  --files "$FILES" --nodes "$NODES" --tokens "$TOKENS" --generate "$GENERATE" --threads "${THREADS:-0}" \
  --command "$COMMAND" \
  >"$WORK/evidence.md"
if [[ -n $OUTPUT ]]; then
  cp "$WORK/evidence.md" "$OUTPUT"
  echo "== wrote $OUTPUT" >&2
else
  cat "$WORK/evidence.md"
fi
if ((${#FAILED[@]})); then
  printf 'FAIL: %s\n' "${FAILED[@]}" >&2
  exit 1
fi
echo "== all checks passed" >&2
