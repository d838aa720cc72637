#!/usr/bin/env bash
# Fetches llama.cpp for the KV-cache adapter (src/kv/) and the GGUF embedder
# (src/index/embedders/gguf_embedder.h) from the npm registry into .deps/llama/: the headers,
# the Qwen2 and BERT (bge WordPiece) tokenizer GGUFs and gguf-py (llama.cpp's GGUF
# reader, for the ONNX converter in adapters/onnx/) from the source bundle that
# node-llama-cpp ships, and the prebuilt CPU libraries of the same release. Nothing
# of it is committed. Safe to run again: a finished fetch leaves a stamp file.
# Usage: scripts/fetch_llama.sh [DEST]   (default .deps/llama)
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=3.22.1
# Pinned tarball digests: a registry answer that differs is refused.
SOURCE_SHA256=a0d9dd80eacd2ab1cfe71aee57ac8a806487fd70b3d2a38fbec637752d9e5c5f
LIBS_SHA256=0d953e1503d5ab4608d8ed5b739132308c81ac05ffeb760d2a7f30e08a9f90e0

dest="${1:-.deps/llama}"
stamp="$dest/.fetched-$VERSION"
# A fetch by an older version of this script lacks the bge tokenizer or gguf-py:
# fetch again.
if [ -f "$stamp" ] && [ -f "$dest/models/ggml-vocab-bert-bge.gguf" ] && [ -f "$dest/gguf-py/gguf/__init__.py" ]; then
  echo "fetch_llama: llama.cpp from node-llama-cpp@$VERSION present in $dest"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "fetch_llama: downloading node-llama-cpp@$VERSION and @node-llama-cpp/linux-x64@$VERSION"
(cd "$work" && npm pack --silent "node-llama-cpp@$VERSION" "@node-llama-cpp/linux-x64@$VERSION" >/dev/null)

check() {
  local file="$1" want="$2" got
  got="$(sha256sum "$file" | cut -d' ' -f1)"
  if [ "$got" != "$want" ]; then
    echo "fetch_llama: $file has SHA-256 $got, expected $want" >&2
    exit 1
  fi
}
check "$work/node-llama-cpp-$VERSION.tgz" "$SOURCE_SHA256"
check "$work/node-llama-cpp-linux-x64-$VERSION.tgz" "$LIBS_SHA256"

mkdir -p "$work/src" "$work/libs"
tar -xzf "$work/node-llama-cpp-$VERSION.tgz" -C "$work/src" package/llama/gitRelease.bundle
tar -xzf "$work/node-llama-cpp-linux-x64-$VERSION.tgz" -C "$work/libs" package/bins/linux-x64

# Only the public headers, the tokenizer files and gguf-py are needed from the source tree.
git clone --quiet --no-checkout "$work/src/package/llama/gitRelease.bundle" "$work/llama.cpp"
git -C "$work/llama.cpp" checkout --quiet HEAD -- include ggml/include models/ggml-vocab-qwen2.gguf \
  models/ggml-vocab-bert-bge.gguf gguf-py LICENSE

rm -rf "$dest"
mkdir -p "$dest/include" "$dest/lib" "$dest/models"
cp "$work/llama.cpp/include/"*.h "$work/llama.cpp/ggml/include/"*.h "$dest/include/"
cp "$work/llama.cpp/models/ggml-vocab-qwen2.gguf" "$work/llama.cpp/models/ggml-vocab-bert-bge.gguf" \
  "$dest/models/"
cp "$work/llama.cpp/LICENSE" "$dest/LICENSE"
cp -r "$work/llama.cpp/gguf-py" "$dest/gguf-py"
cp "$work/libs/package/bins/linux-x64/"lib*.so "$dest/lib/"
git -C "$work/llama.cpp" rev-parse HEAD >"$dest/COMMIT"
touch "$stamp"
echo "fetch_llama: llama.cpp $(cut -c1-12 "$dest/COMMIT") ready in $dest"
