"""Snapshots, log, diff, restore, branches and upkeep through vexfs.Store."""
import time

import pytest

import vexfs


def test_snapshot_diff_restore(store):
    store.write("plan.md", "plan A")
    store.write("facts.md", "the sky is blue")
    v1 = store.snapshot("v1", "first plan", meta={"agent": "a1"})
    assert isinstance(v1, vexfs.Commit)
    assert len(v1.id) == 64 and v1.names == ["v1"] and v1.message == "first plan"
    assert v1.meta == {"agent": "a1"} and v1.branch == "main" and v1.parents == []
    assert len(v1.tree) == 64 and abs(v1.time_ns - time.time_ns()) < 60 * 10**9

    store.write("plan.md", "plan B")
    store.move("facts.md", "truths.md")
    store.write("new.md", "new")
    changes = {(c.kind, c.path, c.old_path) for c in store.diff("v1")}
    assert all(c.root == "" and c.type == "file" for c in store.diff("v1"))
    assert changes == {
        ("modified", "plan.md", None),
        ("renamed", "truths.md", "facts.md"),
        ("added", "new.md", None),
    }
    assert store.read_text("plan.md", at="v1") == "plan A"

    store.restore("v1")
    assert store.read_text("plan.md") == "plan A"
    assert sorted(e.name for e in store.list()) == ["facts.md", "plan.md"]
    assert store.diff("v1") == []


def test_snapshots_log_resolve_tag(store):
    store.write("a", "1")
    v1 = store.snapshot("v1")
    store.write("a", "2")
    v2 = store.snapshot("v2")
    assert [c.id for c in store.snapshots()] == [v1.id, v2.id]
    assert [c.id for c in store.log()] == [v2.id, v1.id]
    assert [c.id for c in store.log(limit=1)] == [v2.id]
    assert store.log()[0].parents == [v1.id]
    store.tag("stable", "v1")
    assert store.resolve("stable").id == v1.id
    assert store.resolve(v2.id).names == ["v2"]
    assert [(c.kind, c.path) for c in store.diff("v1", "v2")] == [("modified", "a")]


def test_branches(store):
    store.write("a", "main's")
    store.snapshot("base")
    store.create_branch("experiment", from_snapshot="base")
    names = {b.name: b for b in store.branches()}
    assert set(names) == {"main", "experiment"} and names["main"].current
    assert names["experiment"].head == store.resolve("base").id
    assert store.current_branch() == "main"
    assert store.branch is None
    with store.on_branch("experiment") as exp:
        assert exp.branch == "experiment" and exp.path == store.path
        exp.write("a", "experiment's")
        exp.snapshot("exp1")
        assert exp.log()[0].names == ["exp1"]
        # WORKING is the checked-out branch, so a diff with it is refused here.
        with pytest.raises(vexfs.NotSupportedError, match="WORKING"):
            exp.diff("base")
        assert [(c.kind, c.path) for c in exp.diff("base", "exp1")] == [("modified", "a")]
        exp.write("b", "not snapshotted yet")
        exp.create_branch("from-exp")  # from this handle's branch, not the checked-out one
    with store.on_branch("from-exp") as copy:
        assert copy.read_text("a") == "experiment's"
        assert copy.read_text("b") == "not snapshotted yet"
    store.delete_branch("from-exp")
    assert not store.closed  # closing the branch handle leaves the store open
    assert store.read_text("a") == "main's"
    with pytest.raises(vexfs.NotFoundError, match="nope"):
        store.on_branch("nope")
    store.checkout("experiment")
    assert store.current_branch() == "experiment"
    assert store.read_text("a") == "experiment's"  # the store follows the checked-out branch
    store.checkout("main")
    store.delete_branch("experiment")
    assert [b.name for b in store.branches()] == ["main"]


def test_version_errors(store):
    store.write("a", "1")
    store.snapshot("v1")
    with pytest.raises(vexfs.AlreadyExistsError):
        store.snapshot("v1")
    with pytest.raises(vexfs.InvalidArgumentError):
        store.snapshot("bad name/with slash")
    with pytest.raises(vexfs.NotFoundError):
        store.restore("nope")
    with pytest.raises(vexfs.NotFoundError):
        store.diff("nope")
    with pytest.raises(vexfs.InvalidArgumentError):
        store.create_branch("WORKING")
    with pytest.raises(vexfs.Error):
        store.delete_branch("main")  # the checked-out one
    assert store.read("a") == b"1" and [c.names for c in store.snapshots()] == [["v1"]]


def test_upkeep(store):
    store.write("kept", "kept")
    store.write("a", "x" * 100_000)
    store.remove("a")
    gc = store.gc()
    assert isinstance(gc, vexfs.GcReport) and gc.objects_freed >= 1
    assert gc.objects_kept >= 1 and gc.bytes_freed > 0
    fsck = store.fsck()
    assert fsck.ok and fsck.problems == [] and fsck.objects_checked >= 1
    assert fsck.refs_checked >= 1 and fsck.inodes_checked >= 2
    assert fsck.to_dict()["problems"] == []
    stats = store.stats()
    assert stats.map_size > 0 and stats.map_used > 0 and stats.object_bytes > 0
    assert stats.to_dict()["objects"] == stats.objects
    assert gc.to_dict()["objects_freed"] == gc.objects_freed


def test_to_dict_of_versions_equals_the_cli_json(store, cli):
    store.write("a", "1")
    store.snapshot("v1", "m")
    store.write("a", "2")
    assert [c.to_dict() for c in store.log()] == cli("log", json_out=True)
    assert [c.to_dict() for c in store.diff("v1")] == cli("diff", "v1", json_out=True)
    assert [b.to_dict() for b in store.branches()] == cli("branch", json_out=True)


def test_long_calls_report_progress_and_reraise_what_it_raises(store_path):
    # The indexing reported here is wait_indexed's own: no background thread first.
    store = vexfs.Store.create(store_path, background_indexing=False)
    # gc and fsck report every few thousand objects: a store of some thousands.
    for i in range(2500):
        store.write(f"many/{i:05d}.txt", f"file {i} of many")
    reports: dict = {"index": [], "gc": [], "fsck": []}
    store.wait_indexed(progress=lambda done, total: reports["index"].append((done, total)))
    store.snapshot("many")
    gc = store.gc(progress=lambda done, total: reports["gc"].append((done, total)))
    fsck = store.fsck(progress=lambda done, total: reports["fsck"].append((done, total)))
    assert fsck.ok and gc.objects_kept > 4096
    for name, seen in reports.items():
        assert seen, f"{name} reported no progress"
        assert [d for d, _ in seen] == sorted(d for d, _ in seen), f"{name} went backwards"

    def refuse(done, total):
        raise RuntimeError(f"stop at {done}")

    with pytest.raises(RuntimeError, match="stop at"):
        store.fsck(progress=refuse)
    with pytest.raises(TypeError, match="callable"):
        store.gc(progress=3)
    assert store.fsck().ok  # the interrupted report changed nothing
    store.close()
