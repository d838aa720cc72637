#!/usr/bin/env bash
# Sets up, builds, and shows the main job on built-in defaults: an agent mounts its
# memory store, writes notes with the shell, finds them by meaning with
# `ls .vexfs/search/...`, snapshots, re-plans (changes and deletes notes), reads the
# old version under .vexfs/snapshots/, diffs and branches with the CLI, and
# searches by meaning now and as of the older snapshot.
# Usage: scripts/demo.sh [STORE_DIR]   (default: a new temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh >/dev/null
scripts/build.sh --cli-only >/dev/null
VEXFS="$PWD/build/tools/vexfs/vexfs"

work=$(mktemp -d /tmp/vexfs-demo.XXXXXX)
export VEXFS_STORE="${1:-$work/store}"
mnt="$work/memory"
mkdir -p "$mnt"

show() {  # prints a shell command, then runs it
  printf '\n$ %s\n' "$*"
  eval "$@"
}
run() {
  printf '\n$ vexfs'
  printf ' %q' "$@"
  printf '\n'
  "$VEXFS" "$@"
}

if ! [ -r /dev/fuse ] || ! [ -w /dev/fuse ]; then
  echo "demo: /dev/fuse is not usable here, so the store cannot be mounted" >&2
  exit 1
fi
run init
run mount "$VEXFS_STORE" "$mnt"
trap '"$VEXFS" umount "$mnt" 2>/dev/null || true' EXIT
cd "$mnt"

# The agent's whole interface is the file system.
show 'mkdir -p notes/research'
show "printf '# Plan\n1. Read the paper on vector indexes.\n2. Summarise HNSW.\n' > notes/plan.md"
show "printf 'HNSW builds a layered proximity graph.\n' > notes/research/hnsw.md"
show "printf 'user prefers short answers\n' > notes/preferences.txt"
show 'ls -lR notes'
run index wait    # the mount indexes in the background; this waits for it
show "ls '.vexfs/search/what graph does HNSW build@k=2/'"
show "cat '.vexfs/search/what graph does HNSW build@k=2/results.jsonl'"

run snapshot create before-replan -m "plan as first written" --meta task=survey
show "printf '# Plan\n1. Benchmark FAISS against an exact scan.\n' > notes/plan.md"
show 'mv notes/research/hnsw.md notes/research/graphs.md'
show 'rm notes/preferences.txt'
show 'cat notes/plan.md'
show 'cat .vexfs/snapshots/before-replan/notes/plan.md'
run diff before-replan
run snapshot create after-replan -m "switched to benchmarking"
run log
run branch recovered --from before-replan
run cat --branch recovered notes/preferences.txt
run fsck
run index wait
# The query shares only a few words with the note it finds; the preference deleted
# after the first snapshot is found only as of that snapshot.
show "ls '.vexfs/search/how short should my answers to the user be@k=2/'"
show "ls -l '.vexfs/search/how short should my answers to the user be@k=2,at=before-replan/'"
show "cat '.vexfs/search/how short should my answers to the user be@k=2,at=before-replan/01-preferences.txt'"
cd /
run umount "$mnt"
trap - EXIT
printf '\nstore left in %s\n' "$VEXFS_STORE"
