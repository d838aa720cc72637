"""One store open in Python while the vexfs CLI uses it from another process."""
import os

import pytest

import vexfs


def test_python_and_cli_on_one_store(store, cli):
    store.write("from-python.md", "written by python about kangaroos")
    # The CLI sees what Python wrote at once.
    assert cli("cat", "from-python.md").stdout == b"written by python about kangaroos"
    cli("put", "-", "from-cli.md", input=b"written by the cli about wombats")
    cli("snapshot", "create", "cli-snap", "-m", "taken by the cli")
    # Python, still open, sees the CLI's write and snapshot.
    assert store.read_text("from-cli.md") == "written by the cli about wombats"
    assert [c.names for c in store.snapshots()] == [["cli-snap"]]
    assert [h.path for h in store.search("wombats")] == ["from-cli.md"]
    # The CLI searches what Python indexed and wrote.
    found = cli("search", "kangaroos", json_out=True)
    assert [h["path"] for h in found["hits"]] == ["from-python.md"]
    store.write("from-python.md", "changed")
    assert [c["path"] for c in cli("diff", "cli-snap", json_out=True)] == ["from-python.md"]
    cli("restore", "cli-snap")
    assert store.read_text("from-python.md") == "written by python about kangaroos"
    assert store.stat("from-cli.md").to_dict() == {
        k: v for k, v in cli("stat", "from-cli.md", json_out=True).items() if k in store.stat("from-cli.md").to_dict()
    }
    assert store.fsck().ok


def test_a_second_open_in_one_process_is_busy_and_harms_nothing(store_path, store):
    # LMDB allows one open per process (a second would reset its lock table under
    # the first): share the Store between threads instead.
    store.write("a.txt", "kept")
    with pytest.raises(vexfs.BusyError, match="open in this process"):
        vexfs.Store.open(store_path)
    with pytest.raises(vexfs.BusyError):
        vexfs.Store.open(store_path, read_only=True)
    store.write("b.txt", "also kept")
    store.close()
    with vexfs.Store.open(store_path) as again:
        assert again.read("a.txt") == b"kept" and again.read("b.txt") == b"also kept"
        assert again.fsck().ok


def test_names_that_are_not_utf8_read_as_os_fsdecode_gives_them(store, cli, tmp_path):
    # Only a program outside Python (here the CLI copying a local file; a mount
    # likewise) can make such a name: Python's str paths are always UTF-8.
    local = tmp_path / "local"
    local.mkdir()
    name = os.fsdecode(b"caf\xe9-latin1.txt")
    (local / name).write_text("a note about the okapi")
    cli("put", str(local), "d")
    assert [e.name for e in store.list("d")] == [name]
    assert "Entry(name='caf\ufffd-latin1.txt'" in repr(store.list("d")[0])  # repr replaces the byte
    hits = store.search("okapi")
    assert [h.path for h in hits] == ["d/" + name]
    assert [c.path for c in store.diff(store.snapshot("s").id)] == []
