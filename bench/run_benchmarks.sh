#!/usr/bin/env bash
# Builds the benchmarks (Release, in build-bench/), runs them all against their
# baselines (git, plain files) and regenerates docs/BENCHMARKS.md from the results.
#
#   bench/run_benchmarks.sh [--dir DIR] [--quick] [--output FILE] [--render-only]
#
#   --dir DIR      scratch directory for stores, repositories and plain files
#                  (default /tmp/vexfs-bench); both sides of every comparison
#                  live there, so they share one filesystem
#   --quick        small sizes and fewer repetitions, for checking the scripts
#   --output FILE  where to write the results page (default docs/BENCHMARKS.md)
#   --render-only  rewrite the page from the last run's results in DIR (after
#                  editing bench/interpretation.md) without measuring again
#
# A full run takes about 8 minutes on 2 cores; the 100k-file case is most of it
# (writing and committing 100k files for git). Deleting the data afterwards runs
# in the background and is not counted.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build-bench"
DIR=/tmp/vexfs-bench
OUTPUT="$ROOT/docs/BENCHMARKS.md"
QUICK=0
RENDER_ONLY=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) DIR=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --output) OUTPUT=$2; shift 2 ;;
    --render-only) RENDER_ONLY=1; shift ;;
    *) echo "usage: $0 [--dir DIR] [--quick] [--output FILE] [--render-only]" >&2; exit 2 ;;
  esac
done

RESULTS="$DIR/results"
COMMANDS=()

# Runs one benchmark: its table to the terminal, its JSON line and markdown kept.
run_bench() {
  local name=$1
  shift
  local cmd=("$BUILD/bench/$name" "$@" --dir "$DIR" --keep --markdown "$RESULTS/$name.md")
  COMMANDS+=("${cmd[*]#"$ROOT"/}")
  echo "== $name" >&2
  "${cmd[@]}" | tee "$RESULTS/$name.out" >&2
  grep '^{' "$RESULTS/$name.out" >>"$RESULTS/results.jsonl"
}

# Removes what earlier runs left in $DIR (the results too), including data an
# earlier run was still deleting in the background.
clear_scratch() {
  mkdir -p "$DIR"
  find "$DIR" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
  rm -rf "$DIR".trash.*
}

# Moves the benchmark data out of $DIR and deletes it in the background at idle
# I/O priority. With the discard mount option every freed file waits for a
# discard, so deleting the ~300k files of a full run takes longer than the run.
discard_data() {
  local trash="$DIR.trash.$$"
  mkdir -p "$trash"
  find "$DIR" -mindepth 1 -maxdepth 1 ! -name results -exec mv -t "$trash" {} +
  nohup ionice -c3 rm -rf "$trash" >/dev/null 2>&1 &
  echo "== deleting benchmark data in the background ($trash)" >&2
}

# On ext4 without a journal, creating files is slow for about 30 s (the write-back
# expiry) after many were deleted, which would bill git and the plain-file baseline
# for someone else's clean-up. The benchmarks therefore run with --keep and all
# deletion happens before this wait or after the last measurement.
settle_after_delete() {
  local since=$(( $(date +%s) - $1 ))
  if (( since < 35 )); then
    echo "== waiting $(( 35 - since )) s for the filesystem to settle after deleting" >&2
    sleep $(( 35 - since ))
  fi
}

# Builds, runs every benchmark and records how the run went in $RESULTS/run.env.
measure() {
  local start initial_load command_line cleared
  echo "== clearing $DIR" >&2
  clear_scratch
  cleared=$(date +%s)
  start=$cleared  # an earlier run's leftovers are not this run's work
  initial_load=$(cut -d' ' -f1-3 /proc/loadavg)
  mkdir -p "$RESULTS"

  echo "== building Release in $BUILD" >&2
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DVEXFS_BUILD_TESTS=OFF -DVEXFS_BUILD_BENCH=ON >/dev/null
  ninja -C "$BUILD" -j2 snapshot_bench throughput_bench dedup_bench >&2
  # The CLI column is optional: the snapshot benchmark checks the binary works.
  if ! ninja -C "$BUILD" -j2 vexfs >&2; then
    echo "== the vexfs CLI did not build; its column will be skipped" >&2
  fi

  settle_after_delete "$cleared"
  if [[ $QUICK == 1 ]]; then
    run_bench snapshot_bench --sizes 1000,10000 --reps 5 --first-reps 1 \
      --cli "$BUILD/tools/vexfs/vexfs"
    run_bench throughput_bench --small-count 2000 --single-count 100 --large-mib 16 --reps 3
    run_bench dedup_bench --files 500
  else
    run_bench snapshot_bench --sizes 1000,10000,100000 --reps 7 --first-reps 3 \
      --cli "$BUILD/tools/vexfs/vexfs"
    run_bench throughput_bench --small-count 10000 --single-count 300 --large-mib 64 --reps 5
    run_bench dedup_bench --files 2000 --snapshots 10 --changed 0.01
  fi

  discard_data

  command_line="bench/run_benchmarks.sh"
  if [[ $QUICK == 1 ]]; then command_line+=" --quick"; fi
  if [[ $DIR != /tmp/vexfs-bench ]]; then command_line+=" --dir $DIR"; fi
  {
    echo "ELAPSED=$(( $(date +%s) - start ))"
    echo "DATE='$(date -u '+%Y-%m-%d %H:%M UTC')'"
    echo "LOAD_START='$initial_load'"
    echo "LOAD_END='$(cut -d' ' -f1-3 /proc/loadavg)'"
    echo "INVOCATION='$command_line'"
  } >"$RESULTS/run.env"
  printf '%s\n' "${COMMANDS[@]}" >"$RESULTS/commands.txt"
}

# "ext4 (no journal; rw,relatime,discard)" for the filesystem holding $DIR.
describe_filesystem() {
  local type options source task journal=""
  read -r type options source < <(findmnt -n -o FSTYPE,OPTIONS,SOURCE --target "$DIR")
  task="/sys/fs/ext4/$(basename "$source")/journal_task"
  if [[ -r $task ]] && grep -q none "$task"; then journal="no journal; "; fi
  echo "$type (${journal}${options%%,resv*})"
}

# Writes the results page from $RESULTS.
render() {
  local fstype cpu
  # shellcheck disable=SC1091
  source "$RESULTS/run.env"
  fstype=$(describe_filesystem)
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
  mkdir -p "$(dirname "$OUTPUT")"
  {
    echo "# Benchmarks"
    echo
    echo "Generated by \`$INVOCATION\`; do not edit by hand, rerun the script."
    echo
    echo "- Date: $DATE"
    echo "- Machine: $(nproc) CPUs ($cpu), $(free -g | awk '/^Mem:/ { print $2 }') GiB" \
         "memory, kernel $(uname -r)"
    echo "- Scratch directory: \`$DIR\` on $fstype; vexfs stores, git repositories and" \
         "plain files all live there"
    echo "- Baselines: $(git --version), default configuration plus a local identity and" \
         "\`gc.auto=0\`; plain files through write/fsync"
    echo "- Build: Release (-O3), $(c++ --version | head -1)"
    echo "- Load average at start / end: $LOAD_START / $LOAD_END (a shared machine: every" \
         "figure is a median, and vexfs and its baseline run interleaved in one process)"
    echo "- Full run, build included: $((ELAPSED / 60)) min $((ELAPSED % 60)) s (deleting" \
         "the data afterwards runs in the background and is not included)"
    echo
    echo "Reproduce with \`$INVOCATION\` from the repository root. It ran:"
    echo
    echo '```'
    cat "$RESULTS/commands.txt"
    echo '```'
    echo
    cat "$RESULTS/snapshot_bench.md" "$RESULTS/throughput_bench.md" "$RESULTS/dedup_bench.md"
    cat "$ROOT/bench/interpretation.md"
    echo
    echo "<details><summary>Raw results (one JSON line per benchmark, times in seconds)</summary>"
    echo
    echo '```json'
    cat "$RESULTS/results.jsonl"
    echo '```'
    echo
    echo "</details>"
  } >"$OUTPUT"
  echo "== wrote $OUTPUT (run took ${ELAPSED}s)" >&2
}

if [[ $RENDER_ONLY == 0 ]]; then measure; fi
render
