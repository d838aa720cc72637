#!/usr/bin/env bash
# Installs the MCP clients the tests drive `vexfs mcp` with (the official
# TypeScript SDK and the MCP inspector, versions pinned in tests/mcp/package.json
# and package-lock.json) from the npm registry into .deps/mcp-client/. Nothing of
# it is committed. Safe to run again: an install of the same lock file is kept.
# Usage: scripts/fetch_mcp_client.sh [DEST]   (default .deps/mcp-client)
set -euo pipefail
cd "$(dirname "$0")/.."

dest="${1:-.deps/mcp-client}"
lock="tests/mcp/package-lock.json"
if [ -d "$dest/node_modules/@modelcontextprotocol/sdk" ] && cmp -s "$lock" "$dest/package-lock.json"; then
  echo "fetch_mcp_client: MCP clients present in $dest"
  exit 0
fi
mkdir -p "$dest"
cp tests/mcp/package.json "$lock" "$dest/"
echo "fetch_mcp_client: installing the MCP SDK and inspector into $dest"
# npm ci installs exactly the lock file's versions and checks their integrity.
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
