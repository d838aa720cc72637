#!/usr/bin/env bash
# Configures and builds VexFS. Usage: scripts/build.sh [--asan] [--release] [--cli-only]
#   default   RelWithDebInfo in build/
#   --asan    AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/: the
#             core libraries, their tests and the CLI (target core_tests)
#   --release Release in build-release/
#   --cli-only build just the vexfs binary
# Every run configures the directory with the options of the build asked for, all
# of them stated, so a directory configured otherwise before (by hand, or by an
# older version of this script) gets exactly these; when nothing changed, cmake
# rewrites nothing and nothing is rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=build
args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DVEXFS_SANITIZE=OFF -DVEXFS_BUILD_BENCH=ON)
target=()
for arg in "$@"; do
  case "$arg" in
    --asan) dir=build-asan; args=(-DCMAKE_BUILD_TYPE=Debug -DVEXFS_SANITIZE=ON -DVEXFS_BUILD_BENCH=OFF)
            target=(--target core_tests) ;;
    --release) dir=build-release; args=(-DCMAKE_BUILD_TYPE=Release -DVEXFS_SANITIZE=OFF -DVEXFS_BUILD_BENCH=ON) ;;
    --cli-only) target=(--target vexfs) ;;
    *) echo "build.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done
args+=(-DVEXFS_BUILD_TESTS=ON -DVEXFS_FUZZ=OFF -DVEXFS_BUILD_PYTHON=ON)

# The generator is chosen once, when the directory is first configured: cmake
# refuses a different one for an existing cache.
generator=()
if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S . -B "$dir" "${generator[@]}" "${args[@]}"
cmake --build "$dir" -j "$(nproc)" "${target[@]}"
# The Python package goes into .deps/python from the default build (the one the
# README's commands make), so `import vexfs` works there without building twice.
if [ "$dir" = build ] && [ ${#target[@]} -eq 0 ]; then scripts/install_python.sh "$dir"; fi
echo "build: $dir ready"
