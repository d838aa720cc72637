#!/usr/bin/env bash
# Configures and builds VexFS. Usage: scripts/build.sh [--asan] [--release] [--cli-only]
#   default   RelWithDebInfo in build/
#   --asan    AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/
#   --release Release in build-release/
#   --cli-only build just the vexfs binary
set -euo pipefail
cd "$(dirname "$0")/.."

dir=build
args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
target=()
for arg in "$@"; do
  case "$arg" in
    --asan) dir=build-asan; args=(-DCMAKE_BUILD_TYPE=Debug -DVEXFS_SANITIZE=ON -DVEXFS_BUILD_BENCH=OFF) ;;
    --release) dir=build-release; args=(-DCMAKE_BUILD_TYPE=Release) ;;
    --cli-only) target=(--target vexfs) ;;
    *) echo "build.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" "${generator[@]}" "${args[@]}"
fi
cmake --build "$dir" -j "$(nproc)" "${target[@]}"
echo "build: $dir ready"
