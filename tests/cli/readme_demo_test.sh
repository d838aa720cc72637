#!/usr/bin/env bash
# Runs the README's first command (scripts/demo.sh) and checks that its searches
# find what they promise: the HNSW note by its words, and the deleted preference
# only as of the snapshot taken before it was deleted.
# Usage: readme_demo_test.sh SOURCE_DIR
set -euo pipefail
out="$(bash "$1/scripts/demo.sh" 2>&1)" || { echo "$out"; echo "demo failed" >&2; exit 1; }
fail() { echo "$out"; echo "readme demo: $1" >&2; exit 1; }
# The first search lists the HNSW note among its two results.
awk "/what graph does HNSW build@k=2\\/'\$/{getline; print; getline; print}" <<<"$out" |
  grep -q -- '-hnsw.md' || fail "the first search did not find notes/research/hnsw.md"
# As of before-replan the preference is the best match, and reads as it was.
grep -q -- '01-preferences.txt -> ../../snapshots/before-replan/notes/preferences.txt' <<<"$out" ||
  fail "the search at before-replan did not rank preferences.txt first"
[ "$(tail -n 5 <<<"$out" | grep -c 'user prefers short answers')" -ge 1 ] ||
  fail "the old preference could not be read through the search result"
echo "readme demo: both searches found their notes"
