#!/usr/bin/env bash
# The part of the install test (run_install_test.sh) that runs away from the
# source tree, in the private mount namespace that script starts: an empty
# read-only file system covers the source tree and the build, so nothing in
# them can be found, and everything runs from the prefix, the two programs built
# against it and the wheel's virtual environment.
# Usage: away_from_source.sh SOURCE_DIR BUILD_DIR WORK
set -euo pipefail
source_dir=$1
build_dir=$2
work=$3
fail() { echo "FAIL (away from the source): $*" >&2; exit 1; }

mount -t tmpfs -o ro,size=64k vexfs-away "$source_dir"
case "$build_dir/" in
  "$source_dir/"*) ;;
  *) mount -t tmpfs -o ro,size=64k vexfs-away "$build_dir" ;;
esac
[ -z "$(ls -A "$source_dir")" ] && [ ! -e "$build_dir/CMakeCache.txt" ] ||
  fail "the source tree or the build is still visible"
# Nothing may point back at the checkout either.
unset VEXFS_GLOVE VEXFS_LLAMA_LIB_DIR VEXFS_LLAMA_VOCAB_DIR VEXFS_BIN VEXFS_STORE PYTHONPATH \
  LD_LIBRARY_PATH
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
cd "$work"
vexfs() { "$work/prefix/bin/vexfs" "$@"; }
expect_search() { python3 "$work/expect_search.py" "$@"; }

echo "-- the CLI from the prefix"
vexfs init store >/dev/null
printf 'the lighthouse keeper trims the wick before the storm\n' >lighthouse.md
printf 'we bake sourdough bread with rye flour every morning\n' >bread.md
vexfs --store store put lighthouse.md notes/lighthouse.md >/dev/null
vexfs --store store put bread.md notes/bread.md >/dev/null
vexfs --store store index wait >/dev/null
for mode in lexical dense hybrid; do
  vexfs --store store --json search --mode "$mode" "lighthouse wick" >"search-$mode.json"
  expect_search "search-$mode.json" notes/lighthouse.md
done
# By meaning alone: no word of the query is in the file.
vexfs --store store --json search --mode dense "a bakery oven" >search-meaning.json
expect_search search-meaning.json notes/bread.md
vexfs --store store snapshot create before >/dev/null
printf 'replanned: sail at dawn\n' | vexfs --store store put - notes/lighthouse.md >/dev/null
vexfs --store store --json search "lighthouse wick" >search-now.json
expect_search search-now.json --absent notes/lighthouse.md
vexfs --store store --json search --at before "lighthouse wick" >search-then.json
expect_search search-then.json notes/lighthouse.md
echo "ok: init, put, index wait, search (lexical, dense, hybrid), snapshot, search at it"

echo "-- a mount through the mount(8) helper"
mkdir mnt
"$work/prefix/sbin/mount.fuse.vexfs" "$work/store" "$work/mnt"
trap 'vexfs umount "$work/mnt" 2>/dev/null || umount -l "$work/mnt" 2>/dev/null || true' EXIT
grep -q "sail at dawn" mnt/notes/lighthouse.md || fail "the mount does not show the file"
grep -q "lighthouse keeper" mnt/.vexfs/snapshots/before/notes/lighthouse.md ||
  fail "the mount does not show the snapshot"
printf 'the mount remembers the harbour pilot\n' >mnt/notes/pilot.md
# The daemon's indexer takes it from here; waiting for the queue to drain makes
# the search view's answer certain (it is usually there well before).
vexfs --store store index wait >/dev/null
ls "mnt/.vexfs/search/harbour pilot/" | grep -q pilot || fail "the mount's search view misses the new file"
vexfs umount "$work/mnt"
trap - EXIT
vexfs --store store --json search "harbour pilot" >search-mounted.json
expect_search search-mounted.json notes/pilot.md
echo "ok: mount, read, snapshot view, write, search view, umount"

echo "-- llama.cpp from the prefix"
vexfs kv model-init --arch qwen2 --shape tiny -o tiny.gguf >/dev/null
vexfs --json kv model-info --model tiny.gguf | grep -q qwen2 || fail "kv model-info"
echo "ok: kv model-init, model-info"

echo "-- the programs built against the prefix"
./outside_program store-cc >out-cc.json
python3 - out-cc.json <<'PY'
import json, sys
out = json.load(open(sys.argv[1]))
assert out["then"] == "the lighthouse keeper trims the wick", out["then"]
assert out["now"] == "replanned: sail at dawn", out["now"]
assert out["snapshot"]["names"] == ["before"], out["snapshot"]
hits = out["search"]["hits"]
assert hits and hits[0]["path"] == "notes/plan.md", hits
assert "lighthouse" in hits[0]["snippet"], hits[0]
assert out["note"] == "noted from outside", out["note"]
PY
[ "$(./outside_program_c store-c)" = ok ] || fail "the C program"
echo "ok: C++ and C programs"

echo "-- the wheel in its virtual environment"
"$work/venv/bin/python" - "$work" <<'PY'
import sys
import vexfs
import vexfs.kv

work = sys.argv[1]
assert vexfs.__file__.startswith(work + "/venv/"), vexfs.__file__
with vexfs.Store.open(work + "/store", background_indexing=False) as store:
    hits = store.search("harbour pilot").hits
    assert hits and hits[0].path == "notes/pilot.md", [h.path for h in hits]
with vexfs.Store.create(work + "/store-py", background_indexing=False) as store:
    store.write("notes/bird.md", "the cassowary is a large flightless bird of the rainforest")
    store.write("notes/ship.md", "the container ship docks at the harbour at noon")
    hits = store.search("an animal that cannot fly", mode="dense").hits
    assert hits and hits[0].path == "notes/bird.md", [h.path for h in hits]
vexfs.kv.init_model(work + "/py.gguf")
print("ok: import, search (the CLI's store, dense in a new store), kv init_model")
PY
