#!/usr/bin/env bash
# Sets up, builds, and shows the main job on built-in defaults: an agent's memory
# store is created, written, snapshotted, changed, diffed, branched from the old
# snapshot, and searched by meaning, now and as of the older snapshot.
# Usage: scripts/demo.sh [STORE_DIR]   (default: a new temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh >/dev/null
scripts/build.sh --cli-only >/dev/null
VEXFS="$PWD/build/tools/vexfs/vexfs"

work=$(mktemp -d /tmp/vexfs-demo.XXXXXX)
export VEXFS_STORE="${1:-$work/store}"
run() {
  printf '\n$ vexfs'
  printf ' %q' "$@"
  printf '\n'
  "$VEXFS" "$@"
}

mkdir -p "$work/notes/research"
printf '# Plan\n1. Read the paper on vector indexes.\n2. Summarise HNSW.\n' > "$work/notes/plan.md"
printf 'HNSW builds a layered proximity graph.\n' > "$work/notes/research/hnsw.md"
printf 'user prefers short answers\n' > "$work/notes/preferences.txt"

run init
run put "$work/notes" notes
run ls -R -l
run snapshot create before-replan -m "plan as first written" --meta task=survey
printf '# Plan\n1. Benchmark FAISS against an exact scan.\n' > "$work/plan-v2.md"
run put "$work/plan-v2.md" notes/plan.md
run mv notes/research/hnsw.md notes/research/graphs.md
run rm notes/preferences.txt
run diff before-replan
run snapshot create after-replan -m "switched to benchmarking"
run cat --at before-replan notes/plan.md
run log
run branch recovered --from before-replan
run cat --branch recovered notes/plan.md
run fsck
# Search shares only a few words with the note it finds; the preference deleted
# after the first snapshot is found only as of that snapshot.
run search "how short should my answers to the user be" -k 2
run search "how short should my answers to the user be" -k 2 --at before-replan
printf '\nstore left in %s\n' "$VEXFS_STORE"
