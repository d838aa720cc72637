"""The memory graph through vexfs.Store: writes that are all or nothing,
upserts and entities by name, supersedes and invalidation, pending actions,
neighbours, diffs and reads as of snapshots, transcripts in and out, and the
same graph seen by the CLI."""
import json

import pytest

import vexfs

CHAT = "\n".join(json.dumps(m) for m in [
    {"role": "user", "content": "What is in the log?", "timestamp": "2026-03-01T10:00:00Z"},
    {"role": "assistant", "content": None,
     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "3 errors"},
    {"role": "assistant", "content": "Three errors."},
]) + "\n"


def test_add_upsert_entities_and_typed_nodes(store):
    wrote = store.graph_add(
        nodes=[
            {"kind": "fact", "text": "standup at 9", "key": "standup", "thread": "ops",
             "properties": {"confidence": 0.9}, "valid_from": "2026-01-01"},
            {"kind": "entity", "text": "Team Blue"},
        ],
        links=[{"from": "#0", "kind": "mentions", "to": "#1"}],
    )
    assert isinstance(wrote, vexfs.GraphWrite)
    assert len(wrote.nodes) == 2 and len(wrote.edges) == 1 and wrote.records_changed > 0
    assert wrote.to_dict()["records_changed"] == wrote.records_changed
    again = store.graph_add(nodes=[{"kind": "entity", "text": "team  BLUE"}])
    assert again.records_changed == 0 and again.nodes == [wrote.nodes[1]]

    fact = store.graph_node("key:standup")
    assert isinstance(fact, vexfs.GraphNode)
    assert fact.id == wrote.nodes[0] and fact.kind == "fact" and fact.text == "standup at 9"
    assert fact.properties == {"confidence": 0.9} and fact.thread == "ops" and fact.key == "standup"
    assert fact.source == "" and fact.span is None and fact.action is None and fact.result is None
    assert fact.valid_from_ns == 1767225600 * 10**9 and fact.valid_to_ns is None
    assert fact.recorded_at_ns > 0 and fact.retired_at_ns is None
    assert fact.to_dict()["id"] == fact.id
    assert [n.id for n in store.graph_nodes(kind="entity")] == [wrote.nodes[1]]
    assert len(store.graph_nodes(thread="ops", limit=5)) == 1

    hood = store.graph_neighbors("entity:Team Blue", direction="in", edge_kinds=["mentions"], depth=1, limit=10)
    assert isinstance(hood, vexfs.Neighborhood)
    assert [n.text for n in hood.nodes] == ["Team Blue", "standup at 9"]
    edge = hood.edges[0]
    assert isinstance(edge, vexfs.GraphEdge)
    assert edge.kind == "mentions" and edge.from_id == fact.id and edge.to_id == wrote.nodes[1]
    assert len(edge.id) == 32 and edge.properties == {} and edge.valid_to_ns is None
    assert edge.valid_from_ns > 0 and edge.recorded_at_ns > 0 and edge.retired_at_ns is None
    assert edge.to_dict()["kind"] == "mentions" and hood.to_dict()["nodes"][0]["text"] == "Team Blue"


def test_bad_items_raise_and_write_nothing(store):
    with pytest.raises(vexfs.NotFoundError, match="does not exist"):
        store.graph_add(nodes=[{"kind": "fact", "text": "x", "key": "x"}],
                        links=[{"from": "#0", "kind": "mentions", "to": "key:missing"}])
    with pytest.raises(vexfs.InvalidArgumentError, match="kind"):
        store.graph_add(nodes=[{"kind": "Not A Kind"}])
    with pytest.raises(vexfs.InvalidArgumentError, match="not a JSON value"):
        store.graph_add(nodes=[{"kind": "fact", "properties": {"x": object()}}])
    with pytest.raises(vexfs.InvalidArgumentError, match="unknown member"):
        store.graph_add(nodes=[{"kind": "fact", "colour": "red"}])
    assert store.graph_nodes(all=True) == []
    assert store.graph_node("key:x") is None


def test_supersede_invalidate_retire_and_actions(store):
    store.graph_add(nodes=[{"kind": "fact", "text": "v1", "key": "old", "valid_from": "2026-01-01"},
                           {"kind": "fact", "text": "v2", "key": "new", "valid_from": "2026-06-01"}],
                    links=[{"from": "#1", "kind": "supersedes", "to": "#0"}])
    assert store.graph_node("key:old") is None
    assert store.graph_node("key:old", all=True).valid_to_ns == 1780272000 * 10**9
    assert store.graph_node("key:old", valid_at="2026-03-01").text == "v1"
    store.graph_invalidate("key:new", when="2026-07-01")
    assert store.graph_node("key:new") is None
    store.graph_add(nodes=[{"kind": "fact", "text": "mistake", "key": "oops"}])
    store.graph_retire("key:oops")
    assert store.graph_node("key:oops", all=True).retired_at_ns is not None

    store.graph_add(nodes=[{"kind": "pending_action", "text": "send", "key": "send-1"},
                           {"kind": "tool_result", "text": "sent", "key": "sent-1"}])
    assert store.graph_nodes(action="planned")[0].key == "send-1"
    store.graph_action("key:send-1", "started")
    done = store.graph_action("key:send-1", "done", result="key:sent-1")
    assert done.records_changed == 1
    action = store.graph_node("key:send-1")
    assert action.action == "done" and action.result == store.graph_node("key:sent-1").id
    with pytest.raises(vexfs.InvalidArgumentError, match="must not run again"):
        store.graph_action("key:send-1", "started")


def test_snapshots_diffs_and_restore(store):
    store.graph_add(nodes=[{"kind": "fact", "text": "a", "key": "a", "valid_from": "2026-01-01"}])
    store.snapshot("g1")
    store.graph_add(nodes=[{"kind": "fact", "text": "b", "key": "b", "valid_from": "2026-02-01"}],
                    links=[{"from": "#0", "kind": "supersedes", "to": "key:a"}])
    store.snapshot("g2")
    changes = store.graph_diff("g1", "g2")
    assert all(isinstance(c, vexfs.GraphChange) for c in changes)
    kinds = sorted(c.kind for c in changes)
    assert kinds == ["added", "added", "invalidated", "superseded"]
    superseded = next(c for c in changes if c.kind == "superseded")
    assert superseded.node.key == "a" and superseded.by == store.graph_node("key:b").id
    assert superseded.edge.kind == "supersedes" and superseded.to_dict()["change"] == "superseded"
    invalidated = next(c for c in changes if c.kind == "invalidated")
    assert invalidated.before.valid_to_ns is None and invalidated.node.valid_to_ns is not None
    assert all(c.edge_before is None for c in changes)
    assert store.graph_node("key:b", at="g1") is None
    store.restore("g1")
    assert store.graph_node("key:b") is None and store.graph_diff("g1") == []


def test_transcripts_round_trip_and_the_cli_sees_the_graph(store, cli):
    first = store.graph_import(CHAT, thread="chat")
    assert first.records_changed > 0
    assert store.graph_import(CHAT, thread="chat").records_changed == 0
    out = store.graph_export(thread="chat")
    assert [json.loads(line) for line in out.splitlines()] == [json.loads(line) for line in CHAT.splitlines()]
    with pytest.raises(vexfs.InvalidArgumentError, match="line 1"):
        store.graph_import('{"role": "tool", "tool_call_id": "none"}\n', thread="t", format="openai")
    store.snapshot("chat-1")
    assert store.graph_export(thread="chat", format="openai", at="chat-1") == out
    store.close()
    listed = cli("graph", "list", "--thread", "chat", json_out=True)
    assert len(listed) == 5


def test_search_nodes_as_of_now_a_snapshot_and_with_files(store):
    store.graph_add(nodes=[{"kind": "fact", "text": "the release train leaves on tuesday",
                            "key": "train", "thread": "ops", "properties": {"team": "infra"}}])
    store.snapshot("before")
    wrote = store.graph_add(
        nodes=[{"kind": "fact", "text": "the release train leaves on thursday", "key": "train-2"}],
        links=[{"from": "#0", "kind": "supersedes", "to": "key:train"}])
    store.write("notes/train.md", b"release train checklist\n")

    found = store.graph_search("release train", kinds=["fact"])
    assert isinstance(found, vexfs.SearchResult)
    assert [h.node for h in found] == [wrote.nodes[0]]
    assert found[0].path == "" and "thursday" in found[0].snippet
    assert found.unindexed_nodes == 0
    assert found.to_dict()["hits"][0]["node"] == wrote.nodes[0]

    older = store.graph_node("key:train", all=True).id
    assert {h.node for h in store.graph_search("release train", all=True)} == {older, wrote.nodes[0]}
    assert [h.node for h in store.graph_search("release train", at="before")] == [older]
    assert [h.node for h in store.graph_search("release train", properties={"team": "infra"}, all=True)] == [older]
    assert store.graph_search("release train", thread="nowhere").hits == []

    both = store.graph_search("release train", files=True, mode="hybrid")
    assert "notes/train.md" in [h.path for h in both]
    assert wrote.nodes[0] in [h.node for h in both]
    # The files' own search never returns nodes.
    assert all(h.node == "" for h in store.search("release train"))
    with pytest.raises(vexfs.InvalidArgumentError):
        store.graph_search("release train", mode="sideways")
