#!/usr/bin/env bash
# readdir through the mount with the search index settled: a store of 10,000
# notes made with each build's `vexfs put` and `vexfs index wait`, mounted, its
# directory read with os.scandir 30 times (median entries/s). mount_bench reads
# its directory right after creating the files, while the background indexer
# and builder work on them; this measures readdir alone. Builds run in turn,
# ROUNDS times (default 2), order swapped each round.
#
#   bench/readdir_settled.sh BUILD...   (BUILD: a build directory with tools/vexfs/vexfs)
set -euo pipefail
work=${WORK:-/dev/shm/vexfs-readdir}
rounds=${ROUNDS:-2}
files="$work/files"
mnt="$work/mnt"
mkdir -p "$files/d" "$mnt"
if [ ! -f "$files/d/f10000.md" ]; then
  for i in $(seq 1 10000); do echo "note $i" >"$files/d/f$i.md"; done
fi
builds=("$@")
for ((round = 1; round <= rounds; round++)); do
  order=("${builds[@]}")
  if ((round % 2 == 0)); then
    order=()
    for ((i = ${#builds[@]} - 1; i >= 0; i--)); do order+=("${builds[i]}"); done
  fi
  for build in "${order[@]}"; do
    vexfs="$build/tools/vexfs/vexfs"
    rm -rf "$work/store"
    "$vexfs" init "$work/store" >/dev/null
    "$vexfs" --store "$work/store" put "$files/d" d >/dev/null
    "$vexfs" --store "$work/store" index wait >/dev/null
    "$vexfs" mount "$work/store" "$mnt" >/dev/null
    python3 - "$mnt/d" "$build" "$round" <<'PY'
import os, statistics, sys, time
rates = []
for _ in range(30):
    start = time.perf_counter()
    n = sum(1 for _ in os.scandir(sys.argv[1]))
    rates.append(n / (time.perf_counter() - start))
print(f'{{"build": "{sys.argv[2]}", "round": {sys.argv[3]}, "entries": {n}, '
      f'"readdir_entries_per_s": {statistics.median(rates):.0f}}}')
PY
    "$vexfs" umount "$mnt"
  done
done
