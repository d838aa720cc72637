#!/usr/bin/env bash
# `vexfs mcp` driven by the MCP inspector in CLI mode (@modelcontextprotocol/inspector
# 0.15.0, installed by scripts/fetch_mcp_client.sh): tools/list, a write and a read
# back through tools/call, a search, and a bad call that must come back as an error.
# Usage: inspector_cli_test.sh NODE   (with VEXFS_BIN and MCP_CLIENT_DIR set)
set -euo pipefail
node=$1
inspector="$MCP_CLIENT_DIR/node_modules/@modelcontextprotocol/inspector/cli/build/cli.js"
[ -f "$inspector" ] || { echo "FAIL: no MCP inspector at $inspector (run scripts/fetch_mcp_client.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
store="$work/store"
"$VEXFS_BIN" init "$store" >/dev/null
"$VEXFS_BIN" --store "$store" index use hash >/dev/null

# inspect METHOD [ARGS...]: the inspector's JSON answer on stdout. The store is
# passed in the environment, so every argument after --cli is the server's.
inspect() {
  "$node" "$inspector" --cli -e "VEXFS_STORE=$store" "$VEXFS_BIN" mcp --method "$@"
}

inspect tools/list > "$work/tools.json"
inspect tools/call --tool-name write_file --tool-arg path=notes/a.md \
  --tool-arg "content=the harbour master logs every ship" > "$work/write.json"
inspect tools/call --tool-name read_file --tool-arg path=notes/a.md > "$work/read.json"
inspect tools/call --tool-name search --tool-arg "query=harbour ship" > "$work/search.json"
inspect tools/call --tool-name read_file --tool-arg path=missing.md > "$work/missing.json"

python3 - "$work" <<'PY'
import json, pathlib, sys
work = pathlib.Path(sys.argv[1])
load = lambda name: json.loads((work / name).read_text())
names = {t["name"] for t in load("tools.json")["tools"]}
assert {"read_file", "write_file", "search", "restore"} <= names, names
def result(name):
    r = load(name)
    return r.get("isError", False), json.loads(r["content"][0]["text"]) if not r.get("isError") else r["content"][0]["text"]
err, write = result("write.json")
assert not err and write["created"] is True, write
err, read = result("read.json")
assert not err and read["content"] == "the harbour master logs every ship", read
err, search = result("search.json")
assert not err and search["hits"][0]["path"] == "notes/a.md", search
err, missing = result("missing.json")
assert err and "not found" in missing.lower(), missing
print("ok: the MCP inspector lists, writes, reads, searches and sees errors")
PY
