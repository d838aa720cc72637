#!/usr/bin/env python3
"""Checks the layering rules of docs/architecture.md over every #include line.

Each directory of the code is a layer that may include only the layers listed
for it (public headers are "vexfs/..."), and each library that one layer wraps
(LMDB, FAISS, Xapian, libfuse, llama.cpp, CLI11) may be included only by that
layer. Front ends open stores through vexfs::Db only: a call that opens, creates
or attaches a Store or an Index directly in one of them breaks the one-door rule.
Prints every include or call that breaks a rule, with the rule, and exits 1 if
there is any. Usage: scripts/check_layers.py [REPO_ROOT]
"""
import pathlib
import re
import sys

# Directory -> project include prefixes it may use ("" = headers beside it,
# such as the CLI's own cli.h). Every directory with code must be listed.
LAYERS = {
    "include/vexfs": {"vexfs"},
    "src/common": {"vexfs", "common"},
    "src/store": {"vexfs", "common", "store"},
    "src/usxf": {"vexfs", "common", "usxf"},
    "src/kv": {"vexfs", "common", "usxf", "kv"},
    # The GGUF embedder shares llama.cpp's runtime and model fingerprints with kv.
    # The index reaches the store only through its public extension interface.
    "src/index": {"vexfs", "common", "index", "kv"},
    # The memory graph, like the index, reaches the store only through its
    # public extension interface.
    "src/graph": {"vexfs", "common", "graph"},
    # The one door: a store with its extensions and background indexer.
    "src/db": {"vexfs", "db"},
    # Agent bundles: what a Db holds, moved through the public headers.
    "src/agent": {"vexfs", "common", "agent"},
    "src/front_end_shared": {"vexfs", "common", "front_end_shared"},
    # A front end like the CLI, plus common's UTF-8 and base64 helpers.
    "src/mcp": {"vexfs", "common", "mcp"},
    # The C API: the public headers and its own directory.
    "src/capi": {"vexfs", "capi"},
    # The Python bindings: the public headers and their own directory.
    "src/python": {"vexfs", "python"},
    "src/fuse": {"vexfs", "common", "fuse"},
    "tools/vexfs": {"vexfs", ""},
    "bench": {"vexfs", ""},
}

# Layers that may include only these public headers: the foundation under the
# store may not reach up into it (or anything built on it).
PUBLIC_HEADERS_ONLY = {
    "src/common": {"vexfs/status.h", "vexfs/types.h", "vexfs/paths.h"},
}

# A wrapped library's headers -> the layers that may include them.
WRAPPED = [
    (re.compile(r"^lmdb\.h$"), {"src/store"}),
    # The benchmarks run raw FAISS and plain Xapian as their baselines.
    (re.compile(r"^faiss/"), {"src/index", "bench"}),
    (re.compile(r"^xapian"), {"src/index", "bench"}),
    (re.compile(r"^fuse"), {"src/fuse"}),
    (re.compile(r"^(llama|ggml|gguf)"), {"src/kv", "src/index"}),
    (re.compile(r"^CLI/"), {"tools/vexfs", "bench"}),
    (re.compile(r"^dtl/"), {"src/mcp"}),
    (re.compile(r"^pybind11/"), {"src/python"}),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
PROJECT_PREFIXES = {"vexfs", "common", "store", "usxf", "kv", "index", "graph", "db", "front_end_shared", "fuse", "mcp",
                    "capi", "python"}

# The front ends: each is an adapter over vexfs::Db (vexfs/db.h), which alone
# opens a store and attaches what it needs; opening one another way would leave
# an extension unattached or the background indexer unwoken.
FRONT_ENDS = ("tools/vexfs", "src/fuse", "src/mcp", "src/python", "src/capi")
DOOR_BYPASS = re.compile(r"\b(Store|Index|Graph)::(Open|Create|Enable|Attach)\s*\(")


def layer_of(path: pathlib.Path, root: pathlib.Path) -> str:
    rel = path.relative_to(root).as_posix()
    for layer in LAYERS:
        if rel.startswith(layer + "/"):
            return layer
    return ""


def check_include(layer: str, bracket: str, header: str) -> str:
    """The rule `header` breaks in `layer`, or ''."""
    for pattern, allowed in WRAPPED:
        if pattern.search(header):
            if layer in allowed:
                return ""
            return f"{header.split('/')[0]} is wrapped by {', '.join(sorted(allowed))} only"
    if ".." in header.split("/"):
        return "a relative include path hides which layer the header belongs to"
    prefix = header.split("/")[0] if "/" in header else ""
    if bracket != '"' and prefix not in PROJECT_PREFIXES:
        return ""  # a system or dependency header
    if prefix and prefix not in PROJECT_PREFIXES:
        return ""  # a dependency's quoted header (llama.h is covered above)
    if prefix not in LAYERS[layer]:
        shown = ", ".join(p + "/" if p else "its own directory" for p in sorted(LAYERS[layer]))
        return f"{layer} may include only {shown}"
    public = PUBLIC_HEADERS_ONLY.get(layer)
    if prefix == "vexfs" and public is not None and header not in public:
        return f"{layer} may include only the public headers {', '.join(sorted(public))}"
    return ""


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems = []
    for top in ("include", "src", "tools", "bench"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in (".h", ".cc") or not path.is_file():
                continue
            layer = layer_of(path, root)
            if not layer:
                problems.append(f"{path.relative_to(root)}: in no layer of scripts/check_layers.py")
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                bypass = layer in FRONT_ENDS and DOOR_BYPASS.search(line.split("//")[0])
                if bypass:
                    problems.append(f"{path.relative_to(root)}:{number}: calls {bypass.group(0)[:-1]}: "
                                    f"front ends open stores through vexfs::Db only")
                m = INCLUDE.match(line)
                rule = m and check_include(layer, m.group(1), m.group(2))
                if rule:
                    problems.append(f"{path.relative_to(root)}:{number}: includes "
                                    f"{m.group(2)}: {rule}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) break the layering rules "
              "(docs/architecture.md)", file=sys.stderr)
        return 1
    print("check_layers: every include follows the layering rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
