#!/usr/bin/env bash
# Measures a change against an earlier build in one run: the benchmarks of both
# builds run alternately ROUNDS times, the order swapped every round (so a noisy
# minute or a warm cache favours neither), then the mount benchmark mounts both
# binaries interleaved (mount_bench --vexfs-before). Prints, for every time and
# rate the benchmarks report (bench/before_after_summary.py), the median over
# rounds of each build and the ratio after/before (for times below 1 is faster,
# for rates above 1). Two VexFS mounts side by side share the CPU with each
# other's background indexer; for the mount alone, single-target mount_bench
# runs of each binary in turn are steadier.
#
#   bench/before_after.sh [--suite store|one-door] BEFORE_BUILD AFTER_BUILD [ROUNDS] [DIR]
#
# Suites:
#   store     (default) snapshot_bench, search_bench and kv_bench, then the mount.
#   one-door  what opening every store through vexfs::Db may change: search at
#             scale (search_scale_bench at $PASSAGES passages, default 100000:
#             ingest, p50/p99 and first queries by mode, through the CLI where
#             the build's bench can), close -> searchable (index_wake_bench), an
#             MCP round trip (mcp_bench, each build's `vexfs mcp`), a Python call
#             (python_call_bench.py, each build's package), then the mount.
#
# Each BUILD is a Release build directory holding tools/vexfs/vexfs, the
# suite's programs under bench/ and, for one-door, the Python package.
# MOUNT_FILES (10000) and BIG_MIB (1024) size the mount's workloads.
set -euo pipefail
suite=store
if [ "${1:-}" = --suite ]; then
  suite=$2
  shift 2
fi
case "$suite" in
  store | one-door) ;;
  *) echo "before_after: unknown suite '$suite' (store or one-door)" >&2; exit 2 ;;
esac
before=$(realpath "$1")
after=$(realpath "$2")
rounds=${3:-3}
dir=${4:-/tmp/vexfs-before-after}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
out="$dir/results.jsonl"
: >"$out"
prompt="$dir/kv-prompt.txt"
cat "$root/README.md" "$root"/docs/{cli,decisions,format,kv,search,usxf}.md >"$prompt"

# run_one SIDE BUILD BENCH ARGS...: one benchmark's JSON lines, tagged. Both
# sides share a scratch directory, so kv_bench builds its model once.
run_one() {
  local side=$1 build=$2 bench=$3
  shift 3
  echo "== $side $bench" >&2
  "$build/bench/$bench" "$@" --dir "$dir/$bench" | grep '^{' |
    python3 -c 'import json,sys
for line in sys.stdin:
    j = json.loads(line); j["side"] = sys.argv[1]; j["program"] = sys.argv[2]; print(json.dumps(j))' \
      "$side" "$bench" >>"$out"
}

# run_wake SIDE BUILD: index_wake_bench prints a markdown table only (in both
# builds); its rows become one JSON line.
run_wake() {
  local side=$1 build=$2
  echo "== $side index_wake_bench" >&2
  "$build/bench/index_wake_bench" --vexfs "$build/tools/vexfs/vexfs" --dir "$dir" --notes 30 |
    python3 -c 'import json,sys
rows = []
for line in sys.stdin:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 5 and cells[1].replace(".", "", 1).isdigit():
        rows.append({"who": cells[0], "median_commit_woken_ms": float(cells[1]),
                     "p90_commit_woken_ms": float(cells[2]), "median_poll_ms": float(cells[3])})
print(json.dumps({"side": sys.argv[1], "program": "index_wake_bench", "results": rows}))' \
      "$side" >>"$out"
}

# run_python SIDE BUILD: a Python call against the same search in C++.
run_python() {
  local side=$1 build=$2
  echo "== $side python_call_bench" >&2
  python3 "$root/bench/python_call_bench.py" --build "$build" --calls 1000 --rounds 3 \
    --dir "$dir/python" | grep '^{' |
    python3 -c 'import json,sys
for line in sys.stdin:
    j = json.loads(line); j["side"] = sys.argv[1]; j["program"] = "python_call_bench"; print(json.dumps(j))' \
      "$side" >>"$out"
}

# The suite's benchmarks on one build, once.
run_suite() {
  local side=$1 build=$2
  if [ "$suite" = store ]; then
    run_one "$side" "$build" snapshot_bench --sizes 1000,10000 --reps 5 --first-reps 1 \
      --cli "$build/tools/vexfs/vexfs"
    run_one "$side" "$build" search_bench --synthetic 20000 --queries 200 --efs 64 --reps 3 \
      --filtered --ingest-files 1000
    run_one "$side" "$build" kv_bench --prompt-file "$prompt" --tokens 512 --reps 3
    return
  fi
  local cli=()
  if "$build/bench/search_scale_bench" --help | grep -q -- '--cli '; then
    cli=(--cli "$build/tools/vexfs/vexfs")
  fi
  run_one "$side" "$build" search_scale_bench --data "$root/../shared/data/cacm" \
    --passages "${PASSAGES:-100000}" --queries 200 --reps 3 --configs default "${cli[@]}"
  run_wake "$side" "$build"
  run_one "$side" "$build" mcp_bench --vexfs "$build/tools/vexfs/vexfs" --files 1000 \
    --calls 500 --cli-calls 20
  run_python "$side" "$build"
}

# The order alternates between rounds, so neither build always finds the caches
# the other warmed.
for ((round = 1; round <= rounds; round++)); do
  order=(before after)
  ((round % 2 == 0)) && order=(after before)
  for side in "${order[@]}"; do
    build=$before
    [[ $side == after ]] && build=$after
    run_suite "$side" "$build"
  done
done

echo "== mount_bench (both builds interleaved)" >&2
"$after/bench/mount_bench" --vexfs "$after/tools/vexfs/vexfs" \
  --vexfs-before "$before/tools/vexfs/vexfs" --passthrough "$after/bench/passthrough_ll" \
  --files "${MOUNT_FILES:-10000}" --big-mib "${BIG_MIB:-1024}" --random-reads 20000 --notes 10 \
  --reps 3 --dir "$dir/mount" |
  tee "$dir/mount_bench.out" >&2

python3 "$root/bench/before_after_summary.py" "$out"
