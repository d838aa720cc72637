"""Every public call of the package is used by some test of this suite: a new
method without a test fails here, naming it."""
import inspect
import pathlib
import re

import vexfs
from vexfs import kv

HERE = pathlib.Path(__file__).parent


def used_names() -> set:
    text = "\n".join(p.read_text() for p in HERE.glob("test_*.py") if p.name != pathlib.Path(__file__).name)
    return set(re.findall(r"\.(\w+)\b", text)) | set(re.findall(r"\b(\w+)\(", text))


def public_members(cls) -> set:
    return {name for name, _ in inspect.getmembers(cls) if not name.startswith("_")}


def test_every_store_method_and_result_field_is_used():
    used = used_names()
    classes = [vexfs.Store, vexfs.FileStat, vexfs.Entry, vexfs.Commit, vexfs.Branch, vexfs.Change,
               vexfs.SearchHit, vexfs.HitRank, vexfs.SearchResult, vexfs.IndexStatus,
               vexfs.ModelStatus, vexfs.GcReport, vexfs.FsckReport, vexfs.StoreStats,
               vexfs.GraphNode, vexfs.GraphEdge, vexfs.Neighborhood, vexfs.GraphChange, vexfs.GraphWrite]
    missing = sorted(f"{cls.__name__}.{name}" for cls in classes for name in public_members(cls) - used)
    assert not missing, f"not used by any test: {missing}"


def test_every_kv_call_and_report_field_is_used():
    used = used_names()
    missing = sorted(name for name in kv.__all__ if name[0].islower() and name not in used)
    for cls in (kv.Model, kv.CaptureReport, kv.Generation, kv.ValidationReport, kv.TensorCheck,
                kv.ContinuationCheck, kv.ControlCheck):
        missing += sorted(f"{cls.__name__}.{name}" for name in public_members(cls) - used)
    assert not missing, f"not used by any test: {missing}"
