// vexfs::Graph on a store: the model's rules (stable ids, upserts, entities by
// name, links, supersedes, invalidation and retirement, pending actions), every
// bad item refused with nothing written, and versioning with the files:
// snapshots, reads as of a snapshot, diffs, restores, branches, one edit that
// writes a file and graph records, gc and fsck.
#include "vexfs/graph.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"
#include "vexfs/db.h"
#include "vexfs/extension.h"
#include "vexfs/object_transfer.h"

namespace vexfs {
namespace {

class GraphTest : public test::StoreTest {
 protected:
  void SetUp() override {
    test::StoreTest::SetUp();
    auto graph = Graph::Attach(&store());
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    graph_ = std::move(*graph);
  }

  GraphWriteResult MustApply(const GraphBatch& batch, std::string_view branch = "") {
    auto result = graph_->Apply(batch, branch);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? *result : GraphWriteResult();
  }

  GraphId AddOne(NodeSpec spec) {
    GraphBatch batch;
    GraphId id = batch.AddNode(std::move(spec));
    MustApply(batch);
    return id;
  }

  std::optional<GraphNode> Get(const GraphId& id, GraphReadOptions read = {}) {
    auto node = graph_->Node(id, read);
    EXPECT_TRUE(node.ok()) << node.status().ToString();
    return node.ok() ? *node : std::nullopt;
  }

  uint64_t NodeCount(GraphReadOptions read = {}) {
    auto stats = graph_->Stats(read);
    EXPECT_TRUE(stats.ok());
    return stats.ok() ? stats->nodes : 0;
  }

  std::unique_ptr<Graph> graph_;
};

NodeSpec Fact(std::string text, std::string key = "") {
  return NodeSpec{.kind = node_kind::kFact, .text = std::move(text), .key = std::move(key)};
}

TEST_F(GraphTest, AddedNodeReadsBackWithItsFields) {
  NodeSpec spec{.kind = node_kind::kTurn, .text = "hello there", .properties = R"({"b":1, "a":[2]})",
                .thread = "chat-1", .source = "user"};
  spec.span = KvSpan{.cache = "state-1", .start = 0, .end = 12, .cache_tokens = 40, .tokens_hash = "ab"};
  GraphId id = AddOne(spec);
  auto node = Get(id);
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->kind, "turn");
  EXPECT_EQ(node->text, "hello there");
  EXPECT_EQ(node->properties, R"({"a":[2],"b":1})") << "kept canonical";
  EXPECT_EQ(node->thread, "chat-1");
  EXPECT_EQ(node->span, spec.span);
  EXPECT_GT(node->times.recorded_at, 0);
  EXPECT_EQ(node->times.valid_to, kGraphForever);
  Reopen();
  graph_ = std::move(Graph::Attach(&store())).value();
  EXPECT_EQ(Get(id), node) << "durable";
}

TEST_F(GraphTest, KeyedWritesAreUpsertsAndTheSameWriteTwiceChangesNothing) {
  GraphBatch batch;
  GraphId id = batch.AddNode(Fact("the sky is blue", "fact-1"));
  EXPECT_EQ(id, GraphIdForKey("fact-1"));
  EXPECT_GT(MustApply(batch).records_changed, 0u);
  EXPECT_EQ(MustApply(batch).records_changed, 0u);
  GraphBatch update;
  update.AddNode(Fact("the sky is grey", "fact-1"));
  EXPECT_EQ(MustApply(update).records_changed, 1u);
  EXPECT_EQ(Get(id)->text, "the sky is grey");
  EXPECT_EQ(NodeCount(), 1u);
}

TEST_F(GraphTest, EntityNamesNormaliseAsciiOnly) {
  EXPECT_EQ(NormaliseEntityName("  Ada \t LOVELACE \n"), "ada lovelace");
  // U+00A0 is not white space here, whatever the locale: its bytes stay.
  EXPECT_EQ(NormaliseEntityName("a\xc2\xa0" "B"), "a\xc2\xa0" "b");
  EXPECT_EQ(GraphIdForEntity("entity", "Ada"), GraphIdForEntity("entity", " ada"));
  EXPECT_NE(GraphIdForEntity("entity", "Ada"), GraphIdForEntity("person", "Ada"));
}

TEST_F(GraphTest, ApplyInNeedsATransactionBoundToABranch) {
  StoreTxn txn;
  ASSERT_TRUE(txn.Begin(&store(), /*write=*/true).ok());
  GraphBatch batch;
  batch.AddNode(Fact("x"));
  auto refused = graph_->ApplyIn(txn, batch);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << refused.status().ToString();
}

TEST_F(GraphTest, MustMatchRefusesADifferentNodeUnderItsKey) {
  NodeSpec spec = Fact("first", "k");
  spec.must_match = true;
  GraphBatch batch;
  batch.AddNode(spec);
  MustApply(batch);
  EXPECT_EQ(MustApply(batch).records_changed, 0u);
  spec.text = "second";
  GraphBatch other;
  other.AddNode(spec);
  auto refused = graph_->Apply(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("already names a different fact"), std::string::npos);
}

TEST_F(GraphTest, TheSameEntityNameNeverMakesTwoEntities) {
  GraphId a = AddOne(NodeSpec{.kind = node_kind::kEntity, .text = "Ada Lovelace"});
  GraphId b = AddOne(NodeSpec{.kind = node_kind::kEntity, .text = "  ada   LOVELACE "});
  EXPECT_EQ(a, b);
  EXPECT_EQ(NodeCount(), 1u);
  EXPECT_EQ(Get(a)->text, "Ada Lovelace") << "the first spelling stays";
}

TEST_F(GraphTest, ABadItemWritesNothingAndIsNamed) {
  GraphId known = AddOne(Fact("known"));
  struct Case {
    const char* what;
    std::function<void(GraphBatch&)> build;
    StatusCode code;
    const char* message;
  };
  std::vector<Case> cases = {
      {"edge to a missing node", [&](GraphBatch& b) { b.Link({.kind = "mentions", .from = known, .to = GraphIdForKey("nope")}); },
       StatusCode::kNotFound, "does not exist"},
      {"bad kind", [](GraphBatch& b) { b.AddNode({.kind = "Bad Kind"}); }, StatusCode::kInvalidArgument, "kind"},
      {"properties not JSON", [](GraphBatch& b) { b.AddNode({.kind = "fact", .properties = "{oops"}); },
       StatusCode::kInvalidArgument, "not JSON"},
      {"properties not an object", [](GraphBatch& b) { b.AddNode({.kind = "fact", .properties = "[1]"}); },
       StatusCode::kInvalidArgument, "not a JSON object"},
      {"properties too big", [](GraphBatch& b) {
         b.AddNode({.kind = "fact", .properties = "{\"a\":\"" + std::string(kMaxGraphProperties, 'x') + "\"}"});
       }, StatusCode::kInvalidArgument, "longer than"},
      {"valid time reversed", [](GraphBatch& b) { b.AddNode({.kind = "fact", .valid_from = 200, .valid_to = 100}); },
       StatusCode::kInvalidArgument, "ends before it starts"},
      {"span outside its cache", [](GraphBatch& b) {
         NodeSpec s{.kind = "turn"};
         s.span = KvSpan{.cache = "c", .start = 10, .end = 50, .cache_tokens = 40};
         b.AddNode(s);
       }, StatusCode::kInvalidArgument, "outside its cache"},
      {"pending action without a key", [](GraphBatch& b) { b.AddNode({.kind = "pending_action", .text = "send"}); },
       StatusCode::kInvalidArgument, "idempotency key"},
  };
  for (const Case& c : cases) {
    GraphBatch batch;
    batch.AddNode(Fact("would be written first", "first"));
    c.build(batch);
    auto result = graph_->Apply(batch);
    ASSERT_FALSE(result.ok()) << c.what;
    EXPECT_EQ(result.status().code(), c.code) << c.what << ": " << result.status().ToString();
    EXPECT_NE(result.status().message().find(c.message), std::string::npos) << result.status().ToString();
    EXPECT_NE(result.status().message().find("item 2"), std::string::npos) << result.status().ToString();
    EXPECT_FALSE(Get(GraphIdForKey("first")).has_value()) << c.what << ": nothing written";
  }
  EXPECT_EQ(NodeCount(), 1u);
}

TEST_F(GraphTest, ASupersededFactIsLeftOutUnlessAskedAndCyclesAreRefused) {
  GraphId old_fact = AddOne(NodeSpec{.kind = "fact", .text = "meeting on Monday", .valid_from = 1000});
  GraphId new_fact = AddOne(NodeSpec{.kind = "fact", .text = "meeting on Tuesday", .valid_from = 2000});
  GraphBatch link;
  link.Link({.kind = edge_kind::kSupersedes, .from = new_fact, .to = old_fact});
  MustApply(link);

  EXPECT_FALSE(Get(old_fact).has_value()) << "superseded: not valid now";
  auto asked = Get(old_fact, {.include_invalid = true});
  ASSERT_TRUE(asked.has_value());
  EXPECT_EQ(asked->times.valid_to, 2000) << "ends where the newer begins";
  EXPECT_TRUE(Get(old_fact, {.valid_at = 1500}).has_value()) << "valid as of then";
  auto facts = graph_->Nodes({.kind = "fact"});
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->size(), 1u);
  EXPECT_EQ(facts->front().id, new_fact);

  GraphId plan = AddOne(NodeSpec{.kind = "plan", .text = "a plan", .valid_from = 3000});
  GraphBatch across_kinds;
  across_kinds.Link({.kind = edge_kind::kSupersedes, .from = plan, .to = new_fact});
  auto refused_kind = graph_->Apply(across_kinds);
  ASSERT_FALSE(refused_kind.ok());
  EXPECT_NE(refused_kind.status().message().find("a plan cannot supersede a fact"), std::string::npos);

  GraphBatch cycle;
  cycle.Link({.kind = edge_kind::kSupersedes, .from = old_fact, .to = new_fact});
  auto refused = graph_->Apply(cycle);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("cycle"), std::string::npos) << refused.status().ToString();
}

TEST_F(GraphTest, InvalidateAndRetireNeverDelete) {
  GraphId fact = AddOne(NodeSpec{.kind = "fact", .text = "x", .valid_from = 1000});
  GraphBatch invalidate;
  invalidate.Invalidate(fact, 5000);
  MustApply(invalidate);
  EXPECT_FALSE(Get(fact).has_value());
  EXPECT_TRUE(Get(fact, {.valid_at = 4000}).has_value());
  GraphBatch later;
  later.Invalidate(fact, 6000);
  EXPECT_EQ(MustApply(later).records_changed, 0u) << "it already ended earlier";
  GraphBatch before_start;
  before_start.Invalidate(fact, 500);
  auto refused = graph_->Apply(before_start);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("ends before it starts"), std::string::npos);

  GraphId other = AddOne(Fact("y"));
  GraphBatch retire;
  retire.Retire(other);
  MustApply(retire);
  EXPECT_FALSE(Get(other).has_value());
  EXPECT_TRUE(Get(other, {.include_retired = true}).has_value());
  EXPECT_EQ(NodeCount(), 2u) << "both still stored";
}

TEST_F(GraphTest, PendingActionsMoveForwardAndADoneOneNeverRunsAgain) {
  GraphBatch plan;
  GraphId action = plan.AddNode({.kind = "pending_action", .text = "send the report", .key = "send-report-42"});
  MustApply(plan);
  EXPECT_EQ(Get(action)->action, ActionState::kPlanned);
  GraphId result = AddOne({.kind = "tool_result", .text = "sent"});
  GraphBatch done;
  done.SetAction(action, ActionState::kStarted);
  done.SetAction(action, ActionState::kDone, result);
  MustApply(done);
  auto node = Get(action);
  EXPECT_EQ(node->action, ActionState::kDone);
  EXPECT_EQ(node->result, result);
  GraphBatch same;
  same.SetAction(action, ActionState::kDone, result);
  EXPECT_EQ(MustApply(same).records_changed, 0u) << "setting the state it has is a no-op";

  GraphBatch other_result;
  other_result.SetAction(action, ActionState::kDone, AddOne({.kind = "tool_result", .text = "other"}));
  auto refused_result = graph_->Apply(other_result);
  ASSERT_FALSE(refused_result.ok());
  EXPECT_NE(refused_result.status().message().find("result is final"), std::string::npos);

  GraphBatch again;
  again.SetAction(action, ActionState::kStarted);
  auto refused = graph_->Apply(again);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("must not run again"), std::string::npos);

  auto open = graph_->Nodes({.action = ActionState::kPlanned});
  ASSERT_TRUE(open.ok());
  EXPECT_TRUE(open->empty());
  auto completed = graph_->Nodes({.action = ActionState::kDone});
  ASSERT_TRUE(completed.ok());
  EXPECT_EQ(completed->size(), 1u);
}

TEST_F(GraphTest, NeighboursToADepthFollowEdgeKindsAndDirections) {
  GraphBatch batch;
  GraphId user = batch.AddNode({.kind = "turn", .text = "find the bug", .thread = "t"});
  GraphId call = batch.AddNode({.kind = "tool_call", .text = "grep bug", .thread = "t"});
  GraphId ret = batch.AddNode({.kind = "tool_result", .text = "main.cc:3", .thread = "t"});
  GraphId entity = batch.AddNode({.kind = "entity", .text = "main.cc"});
  batch.Link({.kind = "called", .from = user, .to = call});
  batch.Link({.kind = "returned", .from = call, .to = ret});
  batch.Link({.kind = "mentions", .from = ret, .to = entity});
  MustApply(batch);

  auto one = graph_->Neighbors({.start = call, .depth = 1});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->nodes.size(), 3u);
  EXPECT_EQ(one->nodes.front().id, call);
  auto two = graph_->Neighbors({.start = user, .depth = 3, .direction = GraphDirection::kOut});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->nodes.size(), 4u);
  EXPECT_EQ(two->edges.size(), 3u);
  auto only = graph_->Neighbors({.start = user, .depth = 3, .edge_kinds = {"called"}});
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->nodes.size(), 2u);
  auto incoming = graph_->Neighbors({.start = entity, .depth = 1, .direction = GraphDirection::kIn});
  ASSERT_TRUE(incoming.ok());
  ASSERT_EQ(incoming->nodes.size(), 2u);
  EXPECT_EQ(incoming->nodes[1].id, ret);
  auto thread = graph_->Nodes({.thread = "t"});
  ASSERT_TRUE(thread.ok());
  EXPECT_EQ(thread->size(), 3u);
}

TEST_F(GraphTest, SnapshotsCarryTheGraphWithTheFilesAndReadInPlace) {
  GraphId first = AddOne(Fact("before the plan", "k1"));
  ASSERT_TRUE(Put("notes.md", "plan A").ok());
  auto a = Snap("a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_TRUE(a->roots.count("graph"));

  GraphBatch change;
  GraphId second = change.AddNode(NodeSpec{.kind = "fact", .text = "after", .key = "k2"});
  change.Invalidate(first);
  MustApply(change);
  ASSERT_TRUE(Put("notes.md", "plan B").ok());
  ASSERT_TRUE(Snap("b").ok());

  EXPECT_TRUE(Get(first, {.snapshot = "a"}).has_value());
  EXPECT_FALSE(Get(second, {.snapshot = "a"}).has_value());
  EXPECT_TRUE(Get(second, {.snapshot = "b"}).has_value());
  EXPECT_FALSE(Get(first, {.snapshot = "b"}).has_value()) << "invalidated in b";
  auto at_a = graph_->Nodes({.kind = "fact", .read = {.snapshot = "a"}});
  ASSERT_TRUE(at_a.ok());
  EXPECT_EQ(at_a->size(), 1u);

  auto diff = graph_->Diff("a", "b");
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  std::map<std::string, int> kinds;
  for (const GraphChange& c : diff->changes) ++kinds[GraphChangeKindName(c.kind)];
  EXPECT_EQ(kinds["added"], 1);
  EXPECT_EQ(kinds["invalidated"], 1);
  EXPECT_EQ(diff->changes.size(), 2u);

  // Restore brings back files and graph together.
  ASSERT_TRUE(store().Restore("a").ok());
  EXPECT_EQ(Content("notes.md"), "plan A");
  EXPECT_TRUE(Get(first).has_value());
  EXPECT_FALSE(Get(second).has_value());
  auto empty = graph_->Diff("a", "WORKING");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->changes.empty());
  EXPECT_TRUE(test::FsckClean(store()));
}

// A snapshot's graph moves to another store with its files
// (vexfs/object_transfer.h): the same nodes at either snapshot, the same diff,
// and an incremental step after a graph-only change carries just that.
TEST_F(GraphTest, SnapshotsMoveToAnotherStoreWithTheirGraph) {
  GraphId first = AddOne(Fact("before the plan", "k1"));
  ASSERT_TRUE(Put("notes.md", "plan A").ok());
  CommitInfo a = *Snap("a");
  GraphBatch change;
  change.AddNode(NodeSpec{.kind = "fact", .text = "after", .key = "k2"});
  change.Invalidate(first);
  MustApply(change);
  CommitInfo b = *Snap("b");

  auto target = Store::Create(dir_.Sub("target")).value();
  auto target_graph = Graph::Attach(target.get()).value();
  auto move = [&](const std::vector<ObjectId>& want, const std::vector<ObjectId>& have,
                  const std::vector<std::pair<std::string, ObjectId>>& names) {
    auto import = ObjectImport::Begin(*target).value();
    size_t objects = 0;
    Status st = SelectObjects(store(), want, have, [&](const ObjectId& id, std::string_view stored) {
      ++objects;
      return import->Add(id, stored);
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    st = import->Commit(names);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return objects;
  };
  move({a.id}, {}, {{"a", a.id}});
  size_t step = move({b.id}, {a.id}, {{"b", b.id}});
  EXPECT_LE(step, 12u) << "a commit and the graph tree's changed path";

  auto here = graph_->Diff("a", "b");
  auto there = target_graph->Diff("a", "b");
  ASSERT_TRUE(here.ok() && there.ok());
  ASSERT_EQ(there->changes.size(), here->changes.size());
  for (size_t i = 0; i < here->changes.size(); ++i) {
    EXPECT_EQ(there->changes[i].kind, here->changes[i].kind);
  }
  auto node = target_graph->Node(first, {.snapshot = "a"});
  ASSERT_TRUE(node.ok() && node->has_value());
  EXPECT_EQ((*node)->text, "before the plan");
  EXPECT_TRUE(test::FsckClean(*target));
}

TEST_F(GraphTest, DiffWithTheWorkingGraphSeesUnsnapshottedChanges) {
  AddOne(Fact("one", "k1"));
  ASSERT_TRUE(Snap("a").ok());
  GraphId two = AddOne(Fact("two", "k2"));
  auto diff = graph_->Diff("a", "WORKING");
  ASSERT_TRUE(diff.ok());
  ASSERT_EQ(diff->changes.size(), 1u);
  EXPECT_EQ(diff->changes[0].kind, GraphChange::Kind::kAdded);
  EXPECT_EQ(diff->changes[0].node->id, two);
  auto reverse = graph_->Diff("WORKING", "a");
  ASSERT_TRUE(reverse.ok());
  ASSERT_EQ(reverse->changes.size(), 1u);
  EXPECT_EQ(reverse->changes[0].kind, GraphChange::Kind::kRemoved);
}

TEST_F(GraphTest, SupersedingShowsInTheDiff) {
  GraphId old_fact = AddOne(NodeSpec{.kind = "fact", .text = "v1", .valid_from = 1000});
  ASSERT_TRUE(Snap("a").ok());
  GraphBatch b;
  GraphId newer = b.AddNode(NodeSpec{.kind = "fact", .text = "v2", .valid_from = 2000});
  b.Link({.kind = edge_kind::kSupersedes, .from = newer, .to = old_fact});
  MustApply(b);
  ASSERT_TRUE(Snap("b").ok());
  auto diff = graph_->Diff("a", "b");
  ASSERT_TRUE(diff.ok());
  bool superseded = false;
  for (const GraphChange& c : diff->changes) {
    if (c.kind == GraphChange::Kind::kSuperseded) {
      superseded = true;
      EXPECT_EQ(c.node->id, old_fact);
      EXPECT_EQ(c.by, newer);
    }
  }
  EXPECT_TRUE(superseded);
}

TEST_F(GraphTest, AFileAndGraphRecordsCommitInOneEdit) {
  GraphBatch batch;
  GraphId artefact = batch.AddNode({.kind = "artefact", .text = "report.md", .key = "artefact:report"});
  ASSERT_TRUE(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.PutFile("report.md", "results", {}).status());
    StoreTxn txn = TransactionOf(ed);
    return graph_->ApplyIn(txn, batch).status();
  }).ok());
  EXPECT_EQ(Content("report.md"), "results");
  EXPECT_TRUE(Get(artefact).has_value());

  // An edit that fails leaves neither.
  GraphBatch more;
  GraphId lost = more.AddNode(Fact("never", "never"));
  Status failed = Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.PutFile("other.md", "x", {}).status());
    StoreTxn txn = TransactionOf(ed);
    VEXFS_RETURN_IF_ERROR(graph_->ApplyIn(txn, more).status());
    return Status::InvalidArgument("the caller gives up");
  });
  EXPECT_FALSE(failed.ok());
  EXPECT_FALSE(Get(lost).has_value());
  EXPECT_FALSE(store().Tree().value()->Stat("other.md").ok());
}

TEST_F(GraphTest, BranchesCopyOrRestoreTheGraph) {
  GraphId fact = AddOne(Fact("shared", "k"));
  ASSERT_TRUE(Snap("a").ok());
  GraphId unsnapshotted = AddOne(Fact("working only", "w"));
  ASSERT_TRUE(store().CreateBranch("copy", std::nullopt).ok());
  ASSERT_TRUE(store().CreateBranch("from-a", std::string("a")).ok());
  EXPECT_TRUE(Get(unsnapshotted, {.branch = "copy"}).has_value());
  EXPECT_FALSE(Get(unsnapshotted, {.branch = "from-a"}).has_value());
  EXPECT_TRUE(Get(fact, {.branch = "from-a"}).has_value());

  GraphId only_there = AddOne(Fact("elsewhere", "e"));
  (void)only_there;
  GraphBatch on_branch;
  GraphId branch_fact = on_branch.AddNode(Fact("branch", "b"));
  MustApply(on_branch, "from-a");
  EXPECT_FALSE(Get(branch_fact).has_value()) << "another branch's graph";
  EXPECT_TRUE(Get(branch_fact, {.branch = "from-a"}).has_value());
  ASSERT_TRUE(store().CreateSnapshot("fa", "", {}, "from-a").ok());
  EXPECT_TRUE(Get(branch_fact, {.snapshot = "fa"}).has_value());
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(GraphTest, GcKeepsEverySnapshotsGraph) {
  for (int i = 0; i < 200; ++i) AddOne(Fact("fact " + std::to_string(i), "k" + std::to_string(i)));
  ASSERT_TRUE(Snap("a").ok());
  AddOne(Fact("later", "later"));
  ASSERT_TRUE(Snap("b").ok());
  ASSERT_TRUE(store().DeleteSnapshotName("a").ok());
  ASSERT_TRUE(store().Gc().ok());
  EXPECT_TRUE(test::FsckClean(store()));
  EXPECT_EQ(NodeCount({.snapshot = "b"}), 201u);
  EXPECT_EQ(NodeCount(), 201u);
}

}  // namespace
}  // namespace vexfs

namespace vexfs {
namespace {

// Two processes adding 20 nodes and links each at the same moment: every one
// of them is there afterwards (each write is one transaction that excludes the
// other process's, never a read-modify-write of a shared file).
TEST(GraphProcessesTest, TwoWritersAtOnceLoseNothing) {
  test::TempDir dir;
  std::string path = dir.Sub("store");
  DbOptions options;
  options.embedder = "hash";
  options.background_indexing = false;
  options.sync_on_commit = false;
  ASSERT_TRUE(Db::Create(path, options).ok());  // closed again before the fork
  constexpr int kEach = 20;
  std::vector<pid_t> children;
  for (const char* who : {"a", "b"}) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto db = Db::Open(path, options);
      if (!db.ok()) _exit(2);
      for (int i = 0; i < kEach; ++i) {
        GraphBatch batch;
        GraphId fact = batch.AddNode({.kind = "fact", .text = std::string(who) + " fact",
                                      .key = std::string(who) + std::to_string(i)});
        GraphId shared = batch.AddNode({.kind = "entity", .text = "shared " + std::to_string(i % 5)});
        batch.Link({.kind = "mentions", .from = fact, .to = shared});
        if (!(*db)->graph().Apply(batch).ok()) _exit(3);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed: " << status;
  }
  auto db = Db::Open(path, options);
  ASSERT_TRUE(db.ok());
  auto stats = (*db)->graph().Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->nodes, 2u * kEach + 5);
  EXPECT_EQ(stats->edges, 2u * kEach);
  auto hood = (*db)->graph().Neighbors({.start = GraphIdForEntity("entity", "shared 0"),
                                         .direction = GraphDirection::kIn});
  ASSERT_TRUE(hood.ok());
  EXPECT_EQ(hood->nodes.size(), 1u + 8);
  EXPECT_TRUE(test::FsckClean((*db)->store()));
}

}  // namespace
}  // namespace vexfs
