#!/usr/bin/env bash
# The first dense and the first hybrid query through the CLI right after
# `vexfs index wait`, against the next query of each, for one or more builds
# side by side: what a user who indexes and then asks pays. Each round makes one
# store per build from the same files (PASSAGES passages of CACM vocabulary, four
# to a file), waits for the index, copies the store, and times a dense query
# first on one copy and a hybrid query first on the other, then the same queries
# again. Rounds alternate the builds' order. Prints one JSON line per build and
# round, and the medians.
#
#   bench/first_query_cli.sh DIR BUILD...      (BUILD: a build directory with tools/vexfs/vexfs)
#   PASSAGES (100000) and ROUNDS (3) size it.
set -euo pipefail
dir=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
passages=${PASSAGES:-100000}
rounds=${ROUNDS:-3}
mkdir -p "$dir"
files="$dir/files"
if [ ! -d "$files" ]; then
  python3 - "$root/../shared/data/cacm/cacm.all" "$files" "$passages" <<'PY'
import os, random, re, sys
words = sorted(set(re.findall(r"[a-z]{3,}", open(sys.argv[1], errors="replace").read().lower())))
rng = random.Random(7)
out, passages = sys.argv[2], int(sys.argv[3])
for f in range(passages // 4):
    d = os.path.join(out, f"d{f // 1000:03d}")
    os.makedirs(d, exist_ok=True)
    paras = [" ".join(rng.choice(words) for _ in range(60)) for _ in range(4)]
    open(os.path.join(d, f"f{f:05d}.md"), "w").write("\n\n".join(paras) + "\n")
PY
fi

ms() { echo $(( ($2 - $1) / 1000000 )); }

# time_search VEXFS STORE MODE QUERY: milliseconds of one search.
time_search() {
  local start end
  start=$(date +%s%N)
  "$1" --store "$2" search --mode "$3" --no-wait -k 10 "$4" >/dev/null
  end=$(date +%s%N)
  ms "$start" "$end"
}

results="$dir/results.jsonl"
: >"$results"
builds=("$@")
for ((round = 1; round <= rounds; round++)); do
  order=("${builds[@]}")
  if ((round % 2 == 0)); then
    order=()
    for ((i = ${#builds[@]} - 1; i >= 0; i--)); do order+=("${builds[i]}"); done
  fi
  for build in "${order[@]}"; do
    vexfs="$build/tools/vexfs/vexfs"
    store="$dir/store"
    rm -rf "$store" "$store-hybrid"
    "$vexfs" init "$store" >/dev/null
    "$vexfs" --store "$store" put "$files" corpus >/dev/null
    start=$(date +%s%N)
    "$vexfs" --store "$store" index wait >/dev/null
    wait_ms=$(ms "$start" "$(date +%s%N)")
    cp -a "$store" "$store-hybrid"
    dense_first=$(time_search "$vexfs" "$store" dense "algorithm for sorting lists")
    dense_next=$(time_search "$vexfs" "$store" dense "compiler code generation")
    hybrid_first=$(time_search "$vexfs" "$store-hybrid" hybrid "algorithm for sorting lists")
    hybrid_next=$(time_search "$vexfs" "$store-hybrid" hybrid "compiler code generation")
    echo "{\"build\": \"$build\", \"round\": $round, \"passages\": $passages, \"index_wait_ms\": $wait_ms," \
      "\"dense_first_ms\": $dense_first, \"dense_next_ms\": $dense_next," \
      "\"hybrid_first_ms\": $hybrid_first, \"hybrid_next_ms\": $hybrid_next}" | tee -a "$results"
  done
done
python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for build in dict.fromkeys(r["build"] for r in rows):
    mine = [r for r in rows if r["build"] == build]
    med = {k: statistics.median(r[k] for r in mine) for k in mine[0] if k.endswith("_ms")}
    print(build, json.dumps(med))
PY
