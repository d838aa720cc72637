"""Opening, closing and the exception hierarchy of vexfs.Store."""
import pytest

import vexfs
from vexfs import errors


def test_create_then_open(store_path):
    with vexfs.Store.create(store_path) as s:
        s.write("a", "1")
        assert s.path == store_path and not s.closed and not s.read_only
    assert s.closed
    with vexfs.Store.open(store_path) as s:
        assert s.read("a") == b"1"


def test_open_of_no_store_is_not_found(tmp_path):
    with pytest.raises(vexfs.NotFoundError) as err:
        vexfs.Store.open(str(tmp_path / "none"))
    assert err.value.code == "not found"


def test_create_over_a_store_already_exists(store_path):
    vexfs.Store.create(store_path).close()
    with pytest.raises(vexfs.AlreadyExistsError):
        vexfs.Store.create(store_path)


def test_calls_after_close_raise_and_close_twice_is_fine(store):
    store.close()
    store.close()
    with pytest.raises(vexfs.InvalidArgumentError, match="closed"):
        store.list()
    with pytest.raises(vexfs.InvalidArgumentError, match="closed"):
        store.search("x")
    assert "closed" in repr(store)


def test_read_only_store_refuses_writes_and_keeps_the_data(store_path):
    with vexfs.Store.create(store_path) as s:
        s.write("a", "kept")
    with vexfs.Store.open(store_path, read_only=True) as s:
        assert s.read_only
        with pytest.raises(vexfs.ReadOnlyError):
            s.write("a", "lost")
        with pytest.raises(vexfs.ReadOnlyError):
            s.snapshot("v1")
        with pytest.raises(vexfs.ReadOnlyError):
            s.remove("a")
        assert s.read("a") == b"kept"
        assert [h.path for h in s.search("kept")] == []  # nothing indexed, nothing indexable
    with vexfs.Store.open(store_path) as s:
        assert s.read("a") == b"kept"


def test_branch_at_open(store_path):
    with pytest.raises(TypeError):
        vexfs.Store.create(store_path, branch="main")  # a new store has only main: no such argument
    with vexfs.Store.create(store_path) as s:
        s.write("a", "main")
        s.create_branch("side")
    with pytest.raises(vexfs.NotFoundError, match="nope"):
        vexfs.Store.open(store_path, branch="nope")
    with vexfs.Store.open(store_path, branch="side") as side:
        assert side.branch == "side"
        side.write("a", "side")
        assert side.current_branch() == "main"
    with vexfs.Store.open(store_path) as s:
        assert s.read("a") == b"main" and s.on_branch("side").read("a") == b"side"


def test_sync_false_store_is_durable_after_sync(store_path):
    with vexfs.Store.create(store_path, sync=False) as s:
        s.write("a", "1")
        s.sync()
    with vexfs.Store.open(store_path) as s:
        assert s.read("a") == b"1"


def test_every_error_class_is_an_error_and_carries_message_and_code():
    assert issubclass(vexfs.NotFoundError, LookupError)
    assert issubclass(vexfs.InvalidArgumentError, ValueError)
    assert issubclass(vexfs.AlreadyExistsError, vexfs.ConflictError)
    assert issubclass(vexfs.NoSpaceError, vexfs.StorageError)
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, vexfs.Error) and getattr(vexfs, name) is cls
        e = cls("what", "code")
        assert str(e) == "what" and e.message == "what" and e.code == "code"


def test_errors_pickle_whole():
    import pickle

    again = pickle.loads(pickle.dumps(vexfs.NotFoundError("snapshot 'v9' not found", "not found")))
    assert type(again) is vexfs.NotFoundError
    assert (again.message, again.code, str(again)) == ("snapshot 'v9' not found", "not found", "snapshot 'v9' not found")


def test_version():
    assert vexfs.__version__.count(".") == 2
