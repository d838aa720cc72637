#!/usr/bin/env bash
# Fuzzes the USXF readers: builds the libFuzzer target (clang-14, ASan + UBSan) in
# build-fuzz/, writes the seed corpus, then fuzzes for SECONDS (default 60). Exits
# non-zero on any crash, leak, out-of-memory, timeout or reader disagreement; the
# input is saved as tests/fuzz/regressions/crash-<sha1> (or leak-, oom-, timeout-),
# and usxf_fuzz_regression_test replays it in every normal test run from then on.
# New coverage accumulates in build-fuzz/corpus/ between runs.
# Usage: scripts/fuzz.sh [SECONDS] [libFuzzer flags...]
#   VEXFS_BUILD_JOBS  parallel build jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
if [ $# -gt 0 ]; then
  seconds="$1"
  shift
fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS] [libFuzzer flags...]" >&2
  exit 2
fi

dir=build-fuzz
regressions=tests/fuzz/regressions
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
if [ ! -f "$dir/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" "${generator[@]}" \
    -DVEXFS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$dir" -j "${VEXFS_BUILD_JOBS:-$(nproc)}"

# Seeds are generated every run (never committed), so they follow the writer.
rm -rf "$dir/seeds"
"$dir/tests/fuzz/make_seed_corpus" "$dir/seeds"
mkdir -p "$dir/corpus" "$regressions"

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
echo "== fuzzing the USXF readers for ${seconds}s =="
# The first directory receives new inputs; saved regressions are replayed first,
# so a known crash that is still unfixed fails the run straight away.
status=0
"$dir/tests/fuzz/usxf_reader_fuzz" \
  -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=30 \
  -artifact_prefix="$regressions/" -print_final_stats=1 "$@" \
  "$dir/corpus" "$dir/seeds" "$regressions" || status=$?
if [ "$status" -ne 0 ]; then
  echo "fuzz: FAILED (exit $status); the input is under $regressions/ (see 'Test unit written to' above)." >&2
  echo "fuzz: replay it with $dir/tests/fuzz/usxf_reader_fuzz FILE, and commit it with the fix." >&2
  exit "$status"
fi
echo "fuzz: no crash in ${seconds}s"
