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
#   --only search  rerun only the search benchmarks, keeping the other results
#                  of the last full run in DIR
#   --only mount   rerun only the mount benchmark (VexFS mount, passthrough_ll and
#                  tmpfs, all on /dev/shm), keeping the other results
#   --only store   rerun only the store benchmarks (snapshots against git,
#                  throughput against plain files, dedup), keeping the others
#   --only usxf    rerun only the USXF container benchmark (its files live on
#                  /dev/shm), keeping the others
#   --only quality rerun only the retrieval-quality benchmark (CACM against plain
#                  Xapian BM25), keeping the others
#   --only kv      rerun only the KV-migration benchmark (restore against
#                  re-prefill with llama.cpp; its model is built once in
#                  /tmp/vexfs-kv-models), keeping the others
#
# --only needs an earlier full run's results in DIR/results: the page is rendered
# from all of them.
#
# A full run takes about 40 minutes on 2 cores: the 1M-vector search set is most
# of it (building two HNSW graphs), then the store's 100k-file case (writing and
# committing 100k files for git). Deleting the data afterwards runs in the
# background and is not counted.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build-bench"
DIR=/tmp/vexfs-bench
OUTPUT="$ROOT/docs/BENCHMARKS.md"
QUICK=0
RENDER_ONLY=0
ONLY=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) DIR=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --output) OUTPUT=$2; shift 2 ;;
    --render-only) RENDER_ONLY=1; shift ;;
    --only) ONLY=$2; shift 2 ;;
    *) echo "usage: $0 [--dir DIR] [--quick] [--output FILE] [--render-only]" \
            "[--only search|mount|store|usxf|kv|quality]" >&2
       exit 2 ;;
  esac
done
if [[ -n $ONLY && $ONLY != search && $ONLY != mount && $ONLY != store && $ONLY != usxf && $ONLY != kv &&
      $ONLY != quality ]]; then
  echo "$0: --only takes search, mount, store, usxf, kv or quality, not '$ONLY'" >&2
  exit 2
fi

RESULTS="$DIR/results"
COMMANDS=()
# A partial rerun keeps the rest of a full run's results, so there must be one.
if [[ -n $ONLY && ! -f $RESULTS/run.env ]]; then
  echo "$0: --only $ONLY needs the results of a full run in $RESULTS; run without --only first" >&2
  exit 2
fi

# Runs one benchmark: its table to the terminal, its JSON line and markdown kept.
# NAME may carry a label (search_bench:fashion) when one program runs several times.
run_bench() {
  local name=${1%%:*} label=${1/:/_}
  shift
  local cmd=("$BUILD/bench/$name" "$@" --dir "$DIR" --keep --markdown "$RESULTS/$label.md")
  COMMANDS+=("${cmd[*]#"$ROOT"/}")
  echo "== $label" >&2
  "${cmd[@]}" | tee "$RESULTS/$label.out" >&2
  grep '^{' "$RESULTS/$label.out" >>"$RESULTS/results.jsonl"
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
  case $ONLY in
    search) clear_search_results ;;
    mount | usxf | kv) clear_bench_results "$ONLY" ;;
    quality)
      clear_bench_results quality
      clear_bench_results scale
      rm -f "$RESULTS"/search_quality_bench.* "$RESULTS"/search_scale_bench.*
      ;;
    store) clear_store_results ;;
    *) clear_scratch ;;
  esac
  cleared=$(date +%s)
  start=$cleared  # an earlier run's leftovers are not this run's work
  initial_load=$(cut -d' ' -f1-3 /proc/loadavg)
  mkdir -p "$RESULTS"

  echo "== building Release in $BUILD" >&2
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DVEXFS_BUILD_TESTS=OFF -DVEXFS_BUILD_BENCH=ON >/dev/null
  if [[ $ONLY == usxf || $ONLY == kv ]]; then
    ninja -C "$BUILD" -j2 "${ONLY}_bench" >&2
  elif [[ $ONLY == quality ]]; then
    ninja -C "$BUILD" -j2 search_quality_bench search_scale_bench >&2
  else
    ninja -C "$BUILD" -j2 snapshot_bench throughput_bench dedup_bench search_bench mount_bench \
      passthrough_ll usxf_bench kv_bench search_quality_bench search_scale_bench >&2
    # The CLI column is optional: the snapshot benchmark checks the binary works.
    if ! ninja -C "$BUILD" -j2 vexfs >&2; then
      echo "== the vexfs CLI did not build; its column will be skipped" >&2
    fi
    settle_after_delete "$cleared"  # the USXF benchmark alone deletes nothing in $DIR
  fi

  if [[ -z $ONLY || $ONLY == store ]]; then run_store_benches; fi
  if [[ -z $ONLY || $ONLY == search ]]; then run_search_benches; fi
  if [[ -z $ONLY || $ONLY == quality ]]; then run_quality_bench; fi
  if [[ -z $ONLY || $ONLY == mount ]]; then run_mount_bench; fi
  if [[ -z $ONLY || $ONLY == usxf ]]; then run_usxf_bench; fi
  if [[ -z $ONLY || $ONLY == kv ]]; then run_kv_bench; fi

  discard_data

  command_line="bench/run_benchmarks.sh"
  if [[ $QUICK == 1 ]]; then command_line+=" --quick"; fi
  if [[ $DIR != /tmp/vexfs-bench ]]; then command_line+=" --dir $DIR"; fi
  if [[ -n $ONLY ]]; then
    write_partial_env "$ONLY" "$start" "$initial_load" "$command_line --only $ONLY"
    return
  fi
  rm -f "$RESULTS"/search.env "$RESULTS"/search_commands.txt
  rm -f "$RESULTS"/mount.env "$RESULTS"/mount_commands.txt
  rm -f "$RESULTS"/store.env "$RESULTS"/store_commands.txt
  rm -f "$RESULTS"/usxf.env "$RESULTS"/usxf_commands.txt
  rm -f "$RESULTS"/kv.env "$RESULTS"/kv_commands.txt
  rm -f "$RESULTS"/quality.env "$RESULTS"/quality_commands.txt
  {
    echo "ELAPSED=$(( $(date +%s) - start ))"
    echo "DATE='$(date -u '+%Y-%m-%d %H:%M UTC')'"
    echo "LOAD_START='$initial_load'"
    echo "LOAD_END='$(cut -d' ' -f1-3 /proc/loadavg)'"
    echo "INVOCATION='$command_line'"
  } >"$RESULTS/run.env"
  printf '%s\n' "${COMMANDS[@]}" >"$RESULTS/commands.txt"
}

run_search_benches() {
  if [[ $QUICK == 1 ]]; then
    run_bench search_bench:fashion --fashion /usr/share/datasets/fashion-mnist --queries 100 \
      --efs 16,64 --reps 1 --ingest-files 2000
    run_bench search_bench:100k --synthetic 100000 --queries 100 --efs 16,64 --reps 1 --filtered
    run_bench search_bench:1m --synthetic 200000 --queries 50 --efs 64 --reps 1 --filtered
  else
    run_bench search_bench:fashion --fashion /usr/share/datasets/fashion-mnist --queries 500 \
      --efs 16,32,64,128,256 --reps 3 --ingest-files 10000
    run_bench search_bench:100k --synthetic 100000 --queries 500 --efs 16,32,64,128,256 \
      --reps 3 --filtered
    run_bench search_bench:1m --synthetic 1000000 --queries 200 --exact-queries 20 \
      --efs 32,64,128 --reps 3 --filtered
  fi
}

# Retrieval quality on CACM (shared/data/cacm beside the checkout) against plain
# Xapian BM25, every mode and fusion with each built-in embedder.
run_quality_bench() {
  local reps=3
  if [[ $QUICK == 1 ]]; then reps=1; fi
  run_bench search_quality_bench --data "$ROOT/../shared/data/cacm" --embedders hash,glove \
    --reps "$reps"
  local passages=100000
  if [[ $QUICK == 1 ]]; then passages=20000; fi
  run_bench search_scale_bench --data "$ROOT/../shared/data/cacm" --passages "$passages" \
    --queries 200 --reps "$reps"
}

# The mount against passthrough_ll and tmpfs. Its data lives on /dev/shm, not in
# $DIR: the baseline is passthrough_ll over tmpfs, so VexFS's store is there too.
run_mount_bench() {
  local args=(--files 10000 --big-mib 1024 --random-reads 20000 --notes 10 --reps 3)
  if [[ $QUICK == 1 ]]; then
    args=(--files 1000 --big-mib 64 --random-reads 2000 --notes 3 --reps 1)
  fi
  local cmd=("$BUILD/bench/mount_bench" --vexfs "$BUILD/tools/vexfs/vexfs"
             --passthrough "$BUILD/bench/passthrough_ll" "${args[@]}"
             --markdown "$RESULTS/mount_bench.md")
  COMMANDS+=("${cmd[*]//"$ROOT"\//}")
  echo "== mount_bench" >&2
  "${cmd[@]}" | tee "$RESULTS/mount_bench.out" >&2
  grep "^{" "$RESULTS/mount_bench.out" >>"$RESULTS/results.jsonl"
}

# The USXF container against memcpy, and its transfer encodings. Its files live on
# /dev/shm, not in $DIR: writing and mapping them should cost memory, not a disk.
run_usxf_bench() {
  local args=(--sizes-mb "50,500" --reps "5,3" --kv-elements 8388608 --codec-reps 3 --sign-ops 2000)
  if [[ $QUICK == 1 ]]; then
    args=(--sizes-mb "8,32" --reps "3,2" --kv-elements 1048576 --codec-reps 1 --sign-ops 200)
  fi
  local cmd=("$BUILD/bench/usxf_bench" "${args[@]}" --markdown "$RESULTS/usxf_bench.md")
  COMMANDS+=("${cmd[*]//"$ROOT"\//}")
  echo "== usxf_bench" >&2
  "${cmd[@]}" | tee "$RESULTS/usxf_bench.out" >&2
  grep "^{" "$RESULTS/usxf_bench.out" >>"$RESULTS/results.jsonl"
}

# Restore against re-prefill with llama.cpp and a random-weight Qwen2.5-0.5B-shaped
# model (built once, 1 GB, kept in /tmp/vexfs-kv-models). The prompts are the
# repository's own documentation: real text through the real tokenizer.
run_kv_bench() {
  local prompt="$DIR/kv-prompt.txt" args=(--tokens 512,2016,8192 --reps 3)
  if [[ $QUICK == 1 ]]; then args=(--tokens 128,512 --reps 1); fi
  mkdir -p /tmp/vexfs-kv-models
  cat "$ROOT/README.md" "$ROOT"/docs/{cli,decisions,durability,format,kv,kv-transport,mount,search,usxf}.md >"$prompt"
  local cmd=("$BUILD/bench/kv_bench" --model /tmp/vexfs-kv-models/qwen2.5-0.5b-random-seed1.gguf
             --prompt-file "$prompt" "${args[@]}" --markdown "$RESULTS/kv_bench.md")
  COMMANDS+=("${cmd[*]//"$ROOT"\//}")
  echo "== kv_bench" >&2
  "${cmd[@]}" | tee "$RESULTS/kv_bench.out" >&2
  grep "^{" "$RESULTS/kv_bench.out" >>"$RESULTS/results.jsonl"
}

# The store benchmarks of a full run (not rerun by --only search).
run_store_benches() {
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
}

# Removes the search results and data of an earlier run, keeping the rest.
clear_search_results() {
  mkdir -p "$RESULTS"
  rm -rf "$DIR"/search-* "$RESULTS"/search_bench_* "$RESULTS/search.env"
  if [[ -f $RESULTS/results.jsonl ]]; then
    grep -v '^{"bench":"search"' "$RESULTS/results.jsonl" >"$RESULTS/results.tmp" || true
    mv "$RESULTS/results.tmp" "$RESULTS/results.jsonl"
  fi
}

# Removes the store benchmarks' results and data of an earlier run, keeping the rest.
clear_store_results() {
  mkdir -p "$RESULTS"
  find "$DIR" -mindepth 1 -maxdepth 1 ! -name results ! -name 'search-*' -exec rm -rf {} +
  rm -rf "$DIR".trash.*
  rm -f "$RESULTS"/{snapshot,throughput,dedup}_bench.* "$RESULTS/store.env"
  if [[ -f $RESULTS/results.jsonl ]]; then
    grep -v -e '^{"bench":"snapshot"' -e '^{"bench":"throughput"' -e '^{"bench":"dedup"' \
      "$RESULTS/results.jsonl" >"$RESULTS/results.tmp" || true
    mv "$RESULTS/results.tmp" "$RESULTS/results.jsonl"
  fi
}

# Removes one benchmark's results of an earlier run (PART is mount, usxf or kv:
# results/PART_bench.*, PART.env and its lines in results.jsonl), keeping the rest.
clear_bench_results() {
  local part=$1
  mkdir -p "$RESULTS"
  rm -f "$RESULTS"/"${part}"_bench.* "$RESULTS/$part.env"
  if [[ -f $RESULTS/results.jsonl ]]; then
    grep -v "^{\"bench\":\"$part\"" "$RESULTS/results.jsonl" >"$RESULTS/results.tmp" || true
    mv "$RESULTS/results.tmp" "$RESULTS/results.jsonl"
  fi
}

# Records a partial rerun (PART is search, mount, store, usxf or kv): when, how long, under what load.
write_partial_env() {
  local part=$1 prefix
  prefix=$(echo "$part" | tr '[:lower:]' '[:upper:]')
  {
    echo "${prefix}_ELAPSED=$(( $(date +%s) - $2 ))"
    echo "${prefix}_DATE='$(date -u '+%Y-%m-%d %H:%M UTC')'"
    echo "${prefix}_LOAD='$3 / $(cut -d' ' -f1-3 /proc/loadavg)'"
    echo "${prefix}_INVOCATION='$4'"
  } >"$RESULTS/$part.env"
  printf '%s\n' "${COMMANDS[@]}" >"$RESULTS/${part}_commands.txt"
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
  for part in store search mount usxf kv quality; do
    if [[ -f $RESULTS/$part.env ]]; then
      # shellcheck disable=SC1090
      source "$RESULTS/$part.env"
    fi
  done
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
    if [[ -n ${STORE_DATE:-} ]]; then
      echo "- The store benchmarks were rerun alone with \`$STORE_INVOCATION\` on" \
           "$STORE_DATE in $((STORE_ELAPSED / 60)) min $((STORE_ELAPSED % 60)) s, load" \
           "average $STORE_LOAD (start / end)"
    fi
    if [[ -n ${SEARCH_DATE:-} ]]; then
      echo "- The search benchmarks were rerun alone with \`$SEARCH_INVOCATION\` on" \
           "$SEARCH_DATE in $((SEARCH_ELAPSED / 60)) min $((SEARCH_ELAPSED % 60)) s, load" \
           "average $SEARCH_LOAD (start / end)"
    fi
    if [[ -n ${MOUNT_DATE:-} ]]; then
      echo "- The mount benchmark was rerun alone with \`$MOUNT_INVOCATION\` on" \
           "$MOUNT_DATE in $((MOUNT_ELAPSED / 60)) min $((MOUNT_ELAPSED % 60)) s, load" \
           "average $MOUNT_LOAD (start / end)"
    fi
    if [[ -n ${KV_DATE:-} ]]; then
      echo "- The KV benchmark was rerun alone with \`$KV_INVOCATION\` on" \
           "$KV_DATE in $((KV_ELAPSED / 60)) min $((KV_ELAPSED % 60)) s, load" \
           "average $KV_LOAD (start / end)"
    fi
    if [[ -n ${USXF_DATE:-} ]]; then
      echo "- The USXF benchmark was rerun alone with \`$USXF_INVOCATION\` on" \
           "$USXF_DATE in $((USXF_ELAPSED / 60)) min $((USXF_ELAPSED % 60)) s, load" \
           "average $USXF_LOAD (start / end)"
    fi
    echo
    echo "Reproduce with \`$INVOCATION\` from the repository root. It ran:"
    echo
    echo '```'
    # A partial rerun's commands replace those of the full run.
    local exclude=()
    for part in search mount usxf kv quality; do
      if [[ -f $RESULTS/${part}_commands.txt ]]; then exclude+=(-e "${part}_bench"); fi
    done
    if [[ -f $RESULTS/store_commands.txt ]]; then
      exclude+=(-e snapshot_bench -e throughput_bench -e dedup_bench)
    fi
    if [[ ${#exclude[@]} -gt 0 ]]; then
      grep -v "${exclude[@]}" "$RESULTS/commands.txt" || true
    else
      cat "$RESULTS/commands.txt"
    fi
    for part in store search mount usxf kv quality; do
      if [[ -f $RESULTS/${part}_commands.txt ]]; then cat "$RESULTS/${part}_commands.txt"; fi
    done
    echo '```'
    echo
    cat "$RESULTS/snapshot_bench.md" "$RESULTS/throughput_bench.md" "$RESULTS/dedup_bench.md"
    cat "$ROOT/bench/search_intro.md" "$RESULTS/search_bench_fashion.md" \
      "$RESULTS/search_bench_100k.md" "$RESULTS/search_bench_1m.md"
    if [[ -f $RESULTS/search_quality_bench.md ]]; then
      cat "$ROOT/bench/quality_intro.md" "$RESULTS/search_quality_bench.md"
      cat "$ROOT/bench/scale_intro.md" "$RESULTS/search_scale_bench.md"
    fi
    if [[ -f $RESULTS/mount_bench.md ]]; then
      cat "$ROOT/bench/mount_intro.md" "$RESULTS/mount_bench.md"
    fi
    if [[ -f $RESULTS/usxf_bench.md ]]; then
      echo
      cat "$RESULTS/usxf_bench.md"
    fi
    if [[ -f $RESULTS/kv_bench.md ]]; then
      echo
      cat "$ROOT/bench/kv_intro.md" "$RESULTS/kv_bench.md"
    fi
    # Measurements this script does not take (the front ends' benchmarks, and
    # before/after comparisons of single changes), each naming its own command.
    cat "$ROOT/bench/recorded.md"
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
