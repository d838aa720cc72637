#!/usr/bin/env bash
# Shows that scripts/check_layers.py catches what it exists to catch: in a small
# tree, a layer reaching into another's private header (with quotes, with angle
# brackets, or by a relative path), a wrapped library included outside its layer,
# a front end including a private header, the foundation (src/common)
# including the store's public header, a front end opening a store past
# vexfs::Db, and a file in no layer each fail the check by name; a tree
# following the rules passes.
# Usage: check_layers_test.sh REPO_ROOT
set -euo pipefail
check="$1/scripts/check_layers.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make_tree() {
  rm -rf "$work/tree"
  mkdir -p "$work/tree"/{include/vexfs,src/common,src/store,src/fuse,tools/vexfs}
  printf '#include "vexfs/paths.h"\n#include "vexfs/types.h"\n' > "$work/tree/src/common/paths.cc"
  printf '#include <string>\n#include "vexfs/status.h"\n' > "$work/tree/include/vexfs/store.h"
  printf '#include <lmdb.h>\n#include "store/lmdb.h"\n#include "common/coding.h"\n' \
    > "$work/tree/src/store/lmdb.cc"
  printf '#include <fuse_lowlevel.h>\n#include "vexfs/store.h"\n' > "$work/tree/src/fuse/ops.cc"
  printf '#include <CLI/CLI.hpp>\n#include "cli.h"\n#include "vexfs/store.h"\n' \
    > "$work/tree/tools/vexfs/main.cc"
}

expect_pass() {
  if ! python3 "$check" "$work/tree" > "$work/out" 2>&1; then
    echo "FAIL: a tree following the rules was refused:"; cat "$work/out"; exit 1
  fi
}

# expect_fail FILE LINE TEXT WHAT: FILE gets LINE; the check must fail naming FILE and WHAT.
expect_fail() {
  make_tree
  printf '%s\n' "$2" >> "$work/tree/$1"
  if python3 "$check" "$work/tree" > "$work/out" 2>&1; then
    echo "FAIL: '$2' in $1 passed the check"; exit 1
  fi
  grep -q "^$1:[0-9]*: includes $3" "$work/out" || { echo "FAIL: $1 not named:"; cat "$work/out"; exit 1; }
  grep -q "$4" "$work/out" || { echo "FAIL: rule '$4' not named:"; cat "$work/out"; exit 1; }
}

make_tree
expect_pass
expect_fail src/fuse/ops.cc '#include "store/lmdb.h"' store/lmdb.h "src/fuse may include only"
expect_fail src/fuse/ops.cc '#include <lmdb.h>' lmdb.h "lmdb.h is wrapped by src/store only"
expect_fail tools/vexfs/main.cc '#include "kv/capture.h"' kv/capture.h "tools/vexfs may include only"
expect_fail include/vexfs/store.h '#include "common/coding.h"' common/coding.h "include/vexfs may include only"
expect_fail src/fuse/ops.cc '#include <store/lmdb.h>' store/lmdb.h "src/fuse may include only"
expect_fail src/fuse/ops.cc '#include "../store/lmdb.h"' ../store/lmdb.h "a relative include path"
# The foundation layer reaching up into the store it lies under.
expect_fail src/common/paths.cc '#include "vexfs/store.h"' vexfs/store.h \
  "src/common may include only the public headers"
# A front end opening a store or an index past vexfs::Db.
for call in 'auto s = Store::Open(path);' 'Index::Enable(store);' 'auto i = Index::Open (s);' 'Graph::Attach(store);'; do
  make_tree
  printf '%s\n' "$call" >> "$work/tree/src/fuse/ops.cc"
  if python3 "$check" "$work/tree" > "$work/out" 2>&1 ||
     ! grep -q "^src/fuse/ops.cc:[0-9]*: calls .*front ends open stores through vexfs::Db only" "$work/out"; then
    echo "FAIL: '$call' in a front end was not refused:"; cat "$work/out"; exit 1
  fi
done
make_tree
mkdir -p "$work/tree/src/nowhere" && echo '#include "vexfs/store.h"' > "$work/tree/src/nowhere/g.cc"
if python3 "$check" "$work/tree" > "$work/out" 2>&1 || ! grep -q "src/nowhere/g.cc: in no layer" "$work/out"; then
  echo "FAIL: a file in no layer was not refused:"; cat "$work/out"; exit 1
fi
echo "check_layers_test: all cases behave"
