#!/usr/bin/env bash
# Fuzzes the USXF readers: builds the libFuzzer targets (clang-14, ASan + UBSan) in
# build-fuzz/, writes the seed corpus, then fuzzes for SECONDS (default 60). Then,
# for about as long again together: the GloVe file reader and the store's record
# decoders (a sixth each), the KV state file reader (a quarter), the KV transfer
# protocol's decoders, the MCP server's message decoders, the mount's
# search-directory names, the memory graph's records and an agent bundle's
# manifest and packs (a twelfth each), each at least a second. Their inputs go
# to tests/fuzz/glove_regressions/, store_regressions/, kv_state_regressions/,
# kv_transport_regressions/, mcp_regressions/, query_name_regressions/,
# graph_regressions/ and agent_bundle_regressions/, replayed by
# glove_fuzz_regression_test, store_records_fuzz_regression_test,
# kv_state_fuzz_regression_test, kv_transport_fuzz_regression_test,
# mcp_message_fuzz_regression_test, query_name_fuzz_regression_test,
# graph_records_fuzz_regression_test and agent_bundle_fuzz_regression_test.
# Exits non-zero on any crash, leak, out-of-memory, timeout or reader
# disagreement; a USXF input is saved as tests/fuzz/regressions/crash-<sha1> (or
# leak-, oom-, timeout-), and usxf_fuzz_regression_test replays it in every
# normal test run from then on.
# New coverage accumulates in build-fuzz/corpus/ (and *-corpus/) between runs.
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

# fuzz_target TARGET WHAT SECONDS MAX_LEN REGRESSIONS CORPUS SEEDS [flags...]
# The first directory receives new inputs; saved regressions are replayed first,
# so a known crash that is still unfixed fails the run straight away.
fuzz_target() {
  local target=$1 what=$2 secs=$3 max_len=$4 saved=$5 corpus=$6 seeds=$7
  shift 7
  echo "== fuzzing $what for ${secs}s =="
  local status=0
  "$dir/tests/fuzz/$target" \
    -max_total_time="$secs" -rss_limit_mb=2048 -max_len="$max_len" -timeout=30 \
    -artifact_prefix="$saved/" -print_final_stats=1 "$@" \
    "$corpus" "$seeds" "$saved" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "fuzz: FAILED (exit $status); the input is under $saved/ (see 'Test unit written to' above)." >&2
    echo "fuzz: replay it with $dir/tests/fuzz/$target FILE, and commit it with the fix." >&2
    exit "$status"
  fi
  echo "fuzz: no crash in ${secs}s of $what"
}

# share NUM DEN: SECONDS * NUM / DEN, at least 1.
share() {
  local n=$(( seconds * $1 / $2 ))
  echo $(( n > 0 ? n : 1 ))
}

fuzz_target usxf_reader_fuzz "the USXF readers" "$seconds" 65536 "$regressions" \
  "$dir/corpus" "$dir/seeds" "$@"

# The GloVe (.vxg) file reader, a sixth as long: seeds are small files made by
# the real converter (f16 and f32, ASCII and non-ASCII words).
glove_regressions=tests/fuzz/glove_regressions
rm -rf "$dir/glove-seeds"
mkdir -p "$dir/glove-seeds" "$dir/glove-corpus" "$glove_regressions"
cat > "$dir/glove-seeds/tiny.json" <<'JSON'
{"precision":8,"l2NormIndex":4,"wordIndex":5,"size":4,"dimensions":4,
 "words":["the","car","\u00e9t\u00e9","parse"],
 "vectors":{"car":[0,1,0,0,1,1],"the":[1,0,0,0,1,0],"\u00e9t\u00e9":[0,0,0.5,-2,2.06,2],
            "parse":[0.25,0.5,-1,3,3.2,3]},
 "unkVector":[0,0,0,0,0,-1]}
JSON
for dtype in f16 f32; do
  python3 scripts/convert_glove.py --dtype "$dtype" "$dir/glove-seeds/tiny.json" \
    "$dir/glove-seeds/tiny-$dtype.vxg" >/dev/null
done
rm "$dir/glove-seeds/tiny.json"
fuzz_target glove_reader_fuzz "the GloVe file reader" "$(share 1 6)" 16384 \
  "$glove_regressions" "$dir/glove-corpus" "$dir/glove-seeds" "$@"

# The store's record and object decoders, a sixth as long: seeds are one valid
# record or object of each kind (a chunk with page checksums is over 10 KB).
store_regressions=tests/fuzz/store_regressions
rm -rf "$dir/store-seeds"
mkdir -p "$dir/store-seeds" "$dir/store-corpus" "$store_regressions"
"$dir/tests/fuzz/make_store_seeds" "$dir/store-seeds"
fuzz_target store_records_fuzz "the store's record decoders" "$(share 1 6)" 16384 \
  "$store_regressions" "$dir/store-corpus" "$dir/store-seeds" "$@"

# The KV state file reader, a quarter as long: seeds are state files written by
# WriteStateFile (about 16 KB each) and kv.reference JSON texts.
kv_state_regressions=tests/fuzz/kv_state_regressions
rm -rf "$dir/kv-state-seeds"
mkdir -p "$dir/kv-state-seeds" "$dir/kv-state-corpus" "$kv_state_regressions"
"$dir/tests/fuzz/make_kv_state_seeds" "$dir/kv-state-seeds"
fuzz_target kv_state_fuzz "the KV state file reader" "$(share 1 4)" 32768 \
  "$kv_state_regressions" "$dir/kv-state-corpus" "$dir/kv-state-seeds" "$@"

# The KV transfer protocol's hello and message decoders, a twelfth as long: their
# inputs are under 4.2 KB and their code is short.
kv_transport_regressions=tests/fuzz/kv_transport_regressions
rm -rf "$dir/kv-transport-seeds"
mkdir -p "$dir/kv-transport-seeds" "$dir/kv-transport-corpus" "$kv_transport_regressions"
"$dir/tests/fuzz/make_kv_transport_seeds" "$dir/kv-transport-seeds"
fuzz_target kv_transport_fuzz "the KV transfer protocol" "$(share 1 12)" 8192 \
  "$kv_transport_regressions" "$dir/kv-transport-corpus" "$dir/kv-transport-seeds" "$@"

# The MCP server's JSON-RPC and tool-argument decoders, a twelfth as long: seeds
# are well-formed requests of each kind.
mcp_regressions=tests/fuzz/mcp_regressions
rm -rf "$dir/mcp-seeds"
mkdir -p "$dir/mcp-seeds" "$dir/mcp-corpus" "$mcp_regressions"
"$dir/tests/fuzz/make_mcp_seeds" "$dir/mcp-seeds"
fuzz_target mcp_message_fuzz "the MCP message decoders" "$(share 1 12)" 8192 \
  "$mcp_regressions" "$dir/mcp-corpus" "$dir/mcp-seeds" "$@"

# The mount's search-directory names (any process may look one up), a twelfth
# as long: seeds are names that parse, with every option and escape.
query_name_regressions=tests/fuzz/query_name_regressions
rm -rf "$dir/query-name-seeds"
mkdir -p "$dir/query-name-seeds" "$dir/query-name-corpus" "$query_name_regressions"
"$dir/tests/fuzz/make_query_name_seeds" "$dir/query-name-seeds"
fuzz_target query_name_fuzz "the mount's search-directory names" "$(share 1 12)" 1024 \
  "$query_name_regressions" "$dir/query-name-corpus" "$dir/query-name-seeds" "$@"

# The memory graph's records and hash-tree objects (bundles and remotes bring
# them from elsewhere), a twelfth as long: seeds are one well-formed input per
# decoder.
graph_regressions=tests/fuzz/graph_regressions
rm -rf "$dir/graph-seeds"
mkdir -p "$dir/graph-seeds" "$dir/graph-corpus" "$graph_regressions"
"$dir/tests/fuzz/make_graph_seeds" "$dir/graph-seeds"
fuzz_target graph_records_fuzz "the memory graph's records" "$(share 1 12)" 4096 \
  "$graph_regressions" "$dir/graph-corpus" "$dir/graph-seeds" "$@"

# An agent bundle's manifest and object packs (another host writes them), a
# twelfth as long: seeds are a well-formed manifest and pack.
agent_bundle_regressions=tests/fuzz/agent_bundle_regressions
rm -rf "$dir/agent-bundle-seeds"
mkdir -p "$dir/agent-bundle-seeds" "$dir/agent-bundle-corpus" "$agent_bundle_regressions"
"$dir/tests/fuzz/make_agent_bundle_seeds" "$dir/agent-bundle-seeds"
fuzz_target agent_bundle_fuzz "an agent bundle's manifest and packs" "$(share 1 12)" 8192 \
  "$agent_bundle_regressions" "$dir/agent-bundle-corpus" "$dir/agent-bundle-seeds" "$@"
