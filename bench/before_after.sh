#!/usr/bin/env bash
# Measures a change against an earlier build in one run: the snapshot, search and
# KV benchmarks of both builds run alternately ROUNDS times, the order swapped
# every round (so a noisy minute or a warm cache favours neither), then the mount benchmark mounts both binaries interleaved
# (mount_bench --vexfs-before). Prints, for every time and rate the benchmarks
# report (bench/before_after_summary.py), the median over rounds of each build and
# the ratio after/before (for times below 1 is faster, for rates above 1).
# Two VexFS mounts side by side share the CPU with each other's background
# indexer; for the mount alone, single-target mount_bench runs of each binary in
# turn are steadier.
#
#   bench/before_after.sh BEFORE_BUILD AFTER_BUILD [ROUNDS] [DIR]
#
# Each BUILD is a Release build directory holding tools/vexfs/vexfs and
# bench/{snapshot_bench,search_bench,kv_bench,mount_bench,passthrough_ll}.
set -euo pipefail
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

# The order alternates between rounds, so neither build always finds the caches
# the other warmed.
for ((round = 1; round <= rounds; round++)); do
  order=(before after)
  ((round % 2 == 0)) && order=(after before)
  for side in "${order[@]}"; do
    build=$before
    [[ $side == after ]] && build=$after
    run_one "$side" "$build" snapshot_bench --sizes 1000,10000 --reps 5 --first-reps 1 \
      --cli "$build/tools/vexfs/vexfs"
    run_one "$side" "$build" search_bench --synthetic 20000 --queries 200 --efs 64 --reps 3 \
      --filtered --ingest-files 1000
    run_one "$side" "$build" kv_bench --prompt-file "$prompt" --tokens 512 --reps 3
  done
done

echo "== mount_bench (both builds interleaved)" >&2
"$after/bench/mount_bench" --vexfs "$after/tools/vexfs/vexfs" \
  --vexfs-before "$before/tools/vexfs/vexfs" --passthrough "$after/bench/passthrough_ll" \
  --files 10000 --big-mib 1024 --random-reads 20000 --notes 10 --reps 3 --dir "$dir/mount" |
  tee "$dir/mount_bench.out" >&2

python3 "$root/bench/before_after_summary.py" "$out"
