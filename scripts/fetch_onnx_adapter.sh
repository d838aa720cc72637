#!/usr/bin/env bash
# Installs the ONNX Runtime adapter's npm dependencies (transformers.js, which
# brings onnxruntime-node with its prebuilt CPU library; versions pinned in
# adapters/onnx/package-lock.json) into adapters/onnx/node_modules/, which is not
# committed. Safe to run again: an install of the same lock file is kept.
# Usage: scripts/fetch_onnx_adapter.sh
set -euo pipefail
cd "$(dirname "$0")/../adapters/onnx"

stamp="node_modules/.vexfs-lock"
if [ -d node_modules/@huggingface/transformers ] && cmp -s package-lock.json "$stamp"; then
  echo "fetch_onnx_adapter: transformers.js present in adapters/onnx"
  exit 0
fi
echo "fetch_onnx_adapter: installing transformers.js into adapters/onnx"
# onnxruntime-node's install script would download GPU libraries from outside the
# npm registry; the CPU library is inside the package, and the flag skips the rest.
# npm ci installs exactly the lock file's versions and checks their integrity.
ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
