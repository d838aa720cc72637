"""vexfs.Store's file calls: what they do, and how bad input fails."""
import os

import pytest

import vexfs


def test_write_then_read_bytes_and_text(store):
    store.write("notes/plan.md", "Ship the parser first.\n")
    store.write("raw.bin", b"\x00\xff\x01")
    assert store.read("notes/plan.md") == b"Ship the parser first.\n"
    assert store.read_text("notes/plan.md") == "Ship the parser first.\n"
    assert store.read("raw.bin") == b"\x00\xff\x01"


def test_write_replaces_the_whole_file(store):
    store.write("a.txt", "a long first version")
    store.write("a.txt", "short")
    assert store.read("a.txt") == b"short"


def test_read_ranges(store):
    store.write("digits", "0123456789")
    assert store.read("digits", offset=3, length=4) == b"3456"
    assert store.read("digits", offset=8) == b"89"
    assert store.read("digits", offset=8, length=100) == b"89"
    assert store.read("digits", offset=20) == b""


def test_utf8_text_round_trips(store):
    text = "Ärger über Öl — 東京 🚀"
    store.write("u.txt", text)
    assert store.read_text("u.txt") == text
    assert store.stat("u.txt").size == len(text.encode())


def test_read_text_of_binary_raises_unicode_error(store):
    store.write("bin", b"\xff\xfe\x00")
    with pytest.raises(UnicodeDecodeError):
        store.read_text("bin")


def test_list_and_stat(store):
    store.write("d/b.txt", "bb")
    store.write("d/a.txt", "a")
    store.mkdir("d/sub")
    entries = store.list("d")
    assert [e.name for e in entries] == ["a.txt", "b.txt", "sub"]
    assert [e.type for e in entries] == ["file", "file", "dir"]
    assert entries[1].stat.size == 2
    st = store.stat("d/b.txt")
    assert st.type == "file" and st.size == 2 and st.mode == 0o644 and st.nlink == 1
    assert st.mtime_ns > 1_600_000_000 * 10**9
    assert st.ctime_ns >= st.mtime_ns and st.atime_ns > 0
    assert st.uid == os.geteuid() and st.gid == os.getegid() and st.ino > 1 and st.rdev == 0
    store.snapshot("s")
    assert store.stat("d/b.txt", at="s").ino == 0  # snapshots have no inodes
    assert store.stat("d").type == "dir"
    assert [e.name for e in store.list()] == ["d"]
    assert [e.name for e in store.list("/")] == ["d"]


def test_exists(store):
    store.write("x/y", "1")
    assert store.exists("x/y") and store.exists("x") and not store.exists("x/z")
    store.snapshot("s1")
    store.remove("x/y")
    assert store.exists("x/y", at="s1") and not store.exists("x/y")
    with pytest.raises(vexfs.NotFoundError, match="nope"):
        store.exists("x/y", at="nope")  # an unknown snapshot is not "absent"


def test_meta_is_set_with_the_write(store):
    store.write("m.md", "text", meta={"topic": "parser", "owner": "ana"})
    assert store.meta("m.md") == {"owner": "ana", "topic": "parser"}
    store.write("m.md", "new text", meta={"topic": "lexer"})
    assert store.meta("m.md") == {"owner": "ana", "topic": "lexer"}


def test_mkdir_remove_move(store):
    store.mkdir("a/b/c", parents=True)
    store.mkdir("a/b/c", parents=True)  # exists: no error with parents
    with pytest.raises(vexfs.AlreadyExistsError):
        store.mkdir("a/b/c")
    with pytest.raises(vexfs.NotFoundError):
        store.mkdir("p/q")
    store.write("a/f.txt", "f")
    store.move("a/f.txt", "a/b")  # into the directory
    assert store.read("a/b/f.txt") == b"f"
    store.move("a/b/f.txt", "g.txt")
    store.write("h.txt", "h")
    with pytest.raises(vexfs.AlreadyExistsError):
        store.move("g.txt", "h.txt")
    store.move("g.txt", "h.txt", replace=True)
    assert store.read("h.txt") == b"f" and not store.exists("g.txt")
    with pytest.raises(vexfs.ConflictError) as err:
        store.remove("a")
    assert err.value.code == "is a directory"
    store.remove("a", recursive=True)
    store.remove("h.txt")
    assert store.list() == []


def test_missing_paths_raise_not_found_naming_them(store):
    with pytest.raises(vexfs.NotFoundError, match="nothing-here"):
        store.read("nothing-here")
    with pytest.raises(LookupError):  # NotFoundError is a LookupError too
        store.stat("nothing-here")
    with pytest.raises(vexfs.NotFoundError):
        store.remove("nothing-here")


def test_reading_a_directory_is_a_conflict(store):
    store.mkdir("dir")
    with pytest.raises(vexfs.ConflictError) as err:
        store.read("dir")
    assert err.value.code == "is a directory"


@pytest.mark.parametrize("bad", ["a/../../etc/passwd", "../x", "a/./b", "a//b/", ""])
def test_paths_escaping_or_malformed_are_refused_and_nothing_is_written(store, bad):
    store.write("keep.txt", "kept")
    with pytest.raises(vexfs.Error) as err:
        store.write(bad, "evil")
    assert isinstance(err.value, (vexfs.InvalidArgumentError, vexfs.ConflictError))
    assert err.value.message
    assert [e.name for e in store.list()] == ["keep.txt"]


def test_name_too_long_is_invalid_argument(store):
    with pytest.raises(vexfs.InvalidArgumentError) as err:
        store.write("n" * 300, "x")
    assert err.value.code == "name too long"


def test_arguments_of_the_wrong_type_raise_type_error(store):
    with pytest.raises(TypeError):
        store.write("a", 12)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.read("a", offset=-1)
    with pytest.raises(TypeError):
        store.write("a", "x", meta={"k": 1})  # type: ignore[dict-item]


def test_empty_metadata_key_is_refused_and_the_write_undone(store):
    with pytest.raises(vexfs.InvalidArgumentError, match="metadata key"):
        store.write("m.txt", "x", meta={"": "v"})
    assert not store.exists("m.txt")


def test_a_large_write_round_trips(store):
    data = bytes(range(256)) * (24 * 1024 + 7)  # about 6 MiB, not chunk-aligned
    store.write("big.bin", data)
    assert store.stat("big.bin").size == len(data)
    assert store.read("big.bin") == data
    assert store.read("big.bin", offset=5 << 20, length=10) == data[5 << 20 : (5 << 20) + 10]


def test_to_dict_is_the_shared_json_encoding(store):
    store.write("t.txt", "t")
    d = store.stat("t.txt").to_dict()
    assert d["type"] == "file" and d["size"] == 1 and d["mtime_ns"] == store.stat("t.txt").mtime_ns
