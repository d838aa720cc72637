#!/usr/bin/env python3
"""Three agents on one store, each through its own front end: a Python program
(the vexfs package), an MCP client (the official TypeScript SDK against
`vexfs mcp`) and a C program (vexfs/vexfs.h), and a file put by the CLI. Each
writes, searches what the one before it wrote, snapshots, diffs and restores;
the Python agent keeps the store open the whole time and sees everything the
others did. Its background indexer finds the other processes' writes by itself:
its searches do not index first, and nobody tells it that anything was written.

  one_store_test.py C_AGENT MCP_AGENT_MJS NODE     (VEXFS_BIN, MCP_CLIENT_DIR,
                                                    PYTHONPATH at the package)
"""
import os
import subprocess
import sys
import tempfile
import time

import vexfs


def run(argv):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    sys.stdout.write(done.stdout)
    if done.returncode != 0:
        sys.exit(f"{argv[0]} failed ({done.returncode}): {done.stderr}")


def found_without_waiting(store, query, path, seconds=30):
    """Whether `path` becomes the best hit for `query` with no indexing asked for."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        hits = store.search(query, wait=False)
        if [h.path for h in hits][:1] == [path]:
            return True
        time.sleep(0.01)
    return False


def main():
    c_agent, mcp_agent, node = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as work, vexfs.Store.create(f"{work}/store") as store:
        store.write("notes/python.md", "the python agent remembers the aardvark\n")
        store.snapshot("py-snap", "written from Python")

        run([node, mcp_agent, store.path])
        run([c_agent, store.path])
        with open(f"{work}/cli.md", "w") as f:
            f.write("the cli put the wombat here\n")
        run([os.environ["VEXFS_BIN"], "--store", store.path, "put", f"{work}/cli.md", "notes/cli.md"])

        for query, path in [("cassowary", "notes/c.md"), ("bandicoot", "notes/mcp.md"),
                            ("wombat", "notes/cli.md")]:
            assert found_without_waiting(store, query, path), f"{path} was not indexed in the background"
        run([os.environ["VEXFS_BIN"], "--store", store.path, "rm", "notes/cli.md"])
        assert [h.path for h in store.search("cassowary")] == ["notes/c.md"]
        assert [h.path for h in store.search("bandicoot")] == ["notes/mcp.md"]
        assert [c.names[0] for c in store.snapshots()] == ["py-snap", "mcp-snap", "c-snap"]
        assert store.read_text("notes/mcp.md", at="mcp-snap") == "the mcp agent remembers the bandicoot\n"
        added = sorted((c.kind, c.path) for c in store.diff("py-snap"))
        assert added == [("added", "notes/c.md"), ("added", "notes/mcp.md")], added
        store.restore("py-snap")
        assert [e.name for e in store.list("notes")] == ["python.md"]
        assert store.fsck().ok
    print("one_store_test: Python, MCP and C each wrote, searched, snapshotted, diffed and restored one store")


if __name__ == "__main__":
    main()
