#!/usr/bin/env bash
# Sets up, builds and runs the whole VexFS test suite: once in a normal build and
# the core (the libraries' own tests) again under AddressSanitizer +
# UndefinedBehaviorSanitizer, then fuzzes the decoders of outside bytes for about
# two minutes (scripts/fuzz.sh).
# Usage: scripts/test.sh [--no-asan] [--no-fuzz] [ctest args...]
set -euo pipefail
cd "$(dirname "$0")/.."

asan=1
fuzz=1
ctest_args=()
for arg in "$@"; do
  case "$arg" in
    --no-asan) asan=0 ;;
    --no-fuzz) fuzz=0 ;;
    *) ctest_args+=("$arg") ;;
  esac
done

scripts/setup.sh
scripts/build.sh
jobs=$(nproc)
echo "== tests (RelWithDebInfo) =="
(cd build && ctest --output-on-failure -j "$jobs" "${ctest_args[@]}")

if [ "$asan" -eq 1 ]; then
  scripts/build.sh --asan
  echo "== tests (ASan + UBSan) =="
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # The sanitizer pass looks for memory and UB errors; the full kill loop already
  # ran in the normal pass, so a shorter one keeps CI time in bounds.
  export VEXFS_CRASH_ITERATIONS="${VEXFS_CRASH_ITERATIONS:-60}"
  # The core only (tests/CMakeLists.txt, "core"): the front ends' end-to-end
  # suites and the slow integration suites ran once, in the normal pass.
  (cd build-asan && ctest --output-on-failure -j "$jobs" -L core "${ctest_args[@]}")
fi

if [ "$fuzz" -eq 1 ]; then
  # A minute keeps CI time in bounds; longer runs: scripts/fuzz.sh SECONDS.
  scripts/fuzz.sh 60
fi
echo "all test runs passed"
