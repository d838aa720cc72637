"""vexfs.Store.search: modes, filters, snapshots, typed results, bad arguments."""
import datetime
import time

import pytest

import vexfs

NOTES = {
    "projects/parser.md": "The parser must handle nested brackets and escaped quotes.",
    "projects/deploy.md": "Deploy on Friday after the security review is signed off.",
    "journal/2026-11-30.md": "Lunch with Ana; she suggested a recursive descent parser.",
    "journal/2026-12-01.md": "The garden needs watering; tomatoes are ripe.",
}


@pytest.fixture
def notes(store):
    for path, text in NOTES.items():
        store.write(path, text, meta={"kind": path.split("/")[0]})
    return store


def test_finds_what_was_just_written(notes):
    result = notes.search("parser brackets")
    assert isinstance(result, vexfs.SearchResult)
    assert result.mode == "lexical" and result.unindexed_files == 0
    assert result.hits[0].path == "projects/parser.md"
    hit = result[0]
    assert isinstance(hit, vexfs.SearchHit)
    assert hit.score > 0 and hit.offset == 0 and hit.length > 0
    assert "nested brackets" in hit.snippet
    assert hit.lexical is not None and hit.lexical.rank == 1 and hit.dense is None
    assert len(result) == len(list(result)) == len(result.hits)
    with pytest.raises(IndexError):
        result[len(result)]


def test_modes(notes):
    dense = notes.search("parser", mode="dense")
    assert dense.mode == "dense" and dense.model.startswith("glove") and dense.lexical_model == ""
    assert dense.method in ("exact", "hnsw") and dense.visible_vectors >= 4
    lexical = notes.search("parser")
    assert lexical.lexical_model != "" and lexical.model == "" and lexical.visible_passages >= 4
    hybrid = notes.search("parser", mode="hybrid")
    assert hybrid.mode == "hybrid" and hybrid.fusion == "rrf" and hybrid.note == ""
    assert hybrid[0].to_dict()["path"] == hybrid[0].path
    assert {h.path for h in hybrid} >= {"projects/parser.md", "journal/2026-11-30.md"}
    assert any(h.dense is not None and h.lexical is not None for h in hybrid)


def test_k_under_where(notes):
    assert len(notes.search("parser", k=1)) == 1
    assert [h.path for h in notes.search("parser", under="journal")] == ["journal/2026-11-30.md"]
    assert [h.path for h in notes.search("parser", where={"kind": "projects"})] == ["projects/parser.md"]
    assert notes.search("parser", where={"kind": "nothing"}).hits == []


def test_time_filters_take_datetimes_seconds_and_text(notes):
    now = time.time()
    assert notes.search("parser", modified_after=now + 3600).hits == []
    assert len(notes.search("parser", modified_after=now - 3600)) == 2
    tomorrow = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
    assert len(notes.search("parser", modified_before=tomorrow)) == 2
    assert notes.search("parser", modified_before="2000-01-01").hits == []


def test_search_at_a_snapshot_sees_the_old_files(notes):
    notes.snapshot("before")
    notes.remove("projects/parser.md")
    notes.write("projects/lexer.md", "The lexer splits brackets into tokens.")
    assert [h.path for h in notes.search("brackets", at="before")] == ["projects/parser.md"]
    assert [h.path for h in notes.search("brackets")] == ["projects/lexer.md"]


def test_passages_and_snippets(store):
    text = ("alpha beta gamma. " * 200) + "\n\n" + ("unique needle here. " * 200)
    store.write("long.txt", text)
    every = store.search("needle", passages=True)
    assert len(every) >= 1 and all(h.path == "long.txt" for h in every)
    assert store.search("needle", snippets=False)[0].snippet == ""


def test_wait_false_searches_what_is_indexed(store_path):
    # Without the background indexer nothing indexes the write until asked to.
    store = vexfs.Store.create(store_path, background_indexing=False)
    store.write("a.md", "zebra crossing")
    found = store.search("zebra", wait=False)
    # The write was queued, not indexed: the answer says so rather than missing it silently.
    assert found.hits == [] and found.unindexed_files == 1
    store.wait_indexed()
    assert [h.path for h in store.search("zebra", wait=False)] == ["a.md"]
    status = store.index_status()
    assert status.queued == 0 and status.embedder.startswith("glove")
    assert any(m.kind == "lexical" for m in status.models)
    glove = [m for m in status.models if m.kind == "embedded"]
    assert len(glove) == 1 and glove[0].dim == 100 and glove[0].metric in ("ip", "l2")
    assert glove[0].fingerprint and glove[0].vectors >= 1
    store.close()


def test_the_background_indexer_finds_writes_with_nobody_asking(store):
    store.write("a.md", "zebra crossing")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not store.search("zebra", wait=False).hits:
        time.sleep(0.01)
    assert [h.path for h in store.search("zebra", wait=False)] == ["a.md"]


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"mode": "psychic"}, vexfs.InvalidArgumentError),
        ({"k": 0}, vexfs.InvalidArgumentError),
        ({"k": 10001}, vexfs.InvalidArgumentError),
        ({"modified_after": "yesterday-ish"}, vexfs.InvalidArgumentError),
        ({"modified_after": float("nan")}, vexfs.InvalidArgumentError),
        ({"modified_after": [1]}, vexfs.InvalidArgumentError),
        ({"at": "no-such-snapshot"}, vexfs.NotFoundError),
        ({"k": -1}, TypeError),
        ({"where": {"a": 1}}, TypeError),
    ],
)
def test_bad_arguments_raise_naming_the_problem(notes, kwargs, error):
    with pytest.raises(error) as err:
        notes.search("parser", **kwargs)
    assert str(err.value)


def test_to_dict_equals_the_cli_json(notes, cli):
    mine = notes.search("parser", k=5).to_dict()
    theirs = cli("search", "parser", "-k", "5", json_out=True)
    assert mine == theirs
