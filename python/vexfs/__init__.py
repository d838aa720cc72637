"""VexFS: durable, versioned, searchable memory for AI agents.

    import vexfs
    with vexfs.Store.open("memory") as store:
        store.write("notes/plan.md", "Ship the parser first.")
        for hit in store.search("what is the plan"):
            print(hit.path, hit.score, hit.snippet)
        store.snapshot("before-replan")

A ``Store`` is one directory on local disk; every call is one durable, atomic
transaction, the GIL is released while it runs, and the CLI, a mount or
``vexfs mcp`` may use the same store at the same time. Failures raise the
classes of ``vexfs.errors``. KV-cache capture and restore are in ``vexfs.kv``.
See docs/agents.md.
"""

from ._vexfs import (
    Branch,
    Change,
    Commit,
    Entry,
    FileStat,
    FsckReport,
    GcReport,
    GraphChange,
    GraphEdge,
    GraphNode,
    GraphWrite,
    HitRank,
    IndexStatus,
    ModelStatus,
    Neighborhood,
    SearchHit,
    SearchResult,
    Store,
    StoreStats,
    __version__,
)
from .errors import (
    AlreadyExistsError,
    BusyError,
    ConflictError,
    CorruptionError,
    Error,
    InvalidArgumentError,
    NoSpaceError,
    NotFoundError,
    NotSupportedError,
    PermissionDeniedError,
    ReadOnlyError,
    StorageError,
)

# A literal list (not built from errors.__all__): type checkers read exports from it.
__all__ = [
    "Store",
    "FileStat",
    "Entry",
    "Commit",
    "Branch",
    "Change",
    "SearchHit",
    "HitRank",
    "SearchResult",
    "IndexStatus",
    "ModelStatus",
    "GcReport",
    "FsckReport",
    "StoreStats",
    "GraphNode",
    "GraphEdge",
    "Neighborhood",
    "GraphChange",
    "GraphWrite",
    "Error",
    "NotFoundError",
    "InvalidArgumentError",
    "ConflictError",
    "AlreadyExistsError",
    "CorruptionError",
    "StorageError",
    "NoSpaceError",
    "ReadOnlyError",
    "BusyError",
    "NotSupportedError",
    "PermissionDeniedError",
    "__version__",
]
