// `vexfs graph` run as a process: writing turns, facts, entities, links and
// pending actions; reading them (get, list, neighbors, actions, diff) in text
// and --json, now and as of snapshots; and every bad item refused with a
// documented exit code and nothing written.
#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

class CliGraphTest : public CliStoreTest {
 protected:
  // Adds a node and returns its id (the one line `graph add` prints).
  std::string Add(Args args) {
    Args full = {"graph", "add"};
    full.insert(full.end(), args.begin(), args.end());
    std::string out = VexfsOk(full);
    EXPECT_EQ(out.size(), 33u) << out;
    return out.substr(0, 32);
  }

  size_t Count(Args args) { return VexfsJson(args).size(); }
};

TEST_F(CliGraphTest, AddGetAndListInTextAndJson) {
  std::string id = Add({"--kind", "fact", "--text", "the deploy key rotates monthly", "--key",
                        "fact:rotation", "--thread", "ops", "--properties", R"({"confidence":0.9})"});
  json node = VexfsJson({"graph", "get", "key:fact:rotation"});
  EXPECT_EQ(node.at("id"), id);
  EXPECT_EQ(node.at("kind"), "fact");
  EXPECT_EQ(node.at("thread"), "ops");
  EXPECT_EQ(node.at("properties").at("confidence"), 0.9);
  EXPECT_TRUE(node.at("valid_to").is_null());
  EXPECT_NE(VexfsOk({"graph", "get", id}).find("the deploy key rotates monthly"), std::string::npos);

  // The same add again changes nothing and gives the same id.
  json again = VexfsJson({"graph", "add", "--kind", "fact", "--text", "the deploy key rotates monthly",
                          "--key", "fact:rotation", "--thread", "ops", "--properties",
                          R"({"confidence":0.9})"});
  EXPECT_EQ(again.at("nodes"), json::array({id}));
  EXPECT_EQ(again.at("records_changed"), 0);

  Add({"--kind", "entity", "--text", "Deploy Key"});
  Add({"--kind", "entity", "--text", "deploy  key"});
  EXPECT_EQ(Count({"graph", "list", "--kind", "entity"}), 1u) << "one entity per name";
  EXPECT_EQ(Count({"graph", "list", "--thread", "ops"}), 1u);
  EXPECT_NE(VexfsOk({"graph", "list"}).find("[ops]"), std::string::npos);
}

TEST_F(CliGraphTest, NeighboursFollowLinks) {
  std::string turn = Add({"--kind", "turn", "--text", "please check the logs", "--thread", "t1"});
  std::string call = Add({"--kind", "tool_call", "--text", "grep error app.log", "--thread", "t1"});
  std::string result = Add({"--kind", "tool_result", "--text", "3 errors", "--thread", "t1"});
  VexfsOk({"graph", "link", turn, "called", call});
  VexfsOk({"graph", "link", call, "returned", result});
  json hood = VexfsJson({"graph", "neighbors", turn, "--depth", "2", "--direction", "out"});
  EXPECT_EQ(hood.at("nodes").size(), 3u);
  EXPECT_EQ(hood.at("edges").size(), 2u);
  json only = VexfsJson({"graph", "neighbors", call, "--edge", "returned"});
  EXPECT_EQ(only.at("nodes").size(), 2u);
}

TEST_F(CliGraphTest, SnapshotsDiffAndReadAsOfThem) {
  std::string old_fact = Add({"--kind", "fact", "--text", "standup at 9", "--valid-from", "2026-01-01"});
  PutText("plan.md", "plan A");
  VexfsOk({"snapshot", "create", "before"});

  std::string new_fact = Add({"--kind", "fact", "--text", "standup at 10", "--valid-from", "2026-06-01"});
  VexfsOk({"graph", "link", new_fact, "supersedes", old_fact});
  Add({"--kind", "pending_action", "--text", "email the team", "--key", "email-1"});
  VexfsOk({"graph", "action", "key:email-1", "done"});
  VexfsOk({"snapshot", "create", "after"});

  json diff = VexfsJson({"graph", "diff", "before", "after"});
  std::multiset<std::string> changes;
  for (const json& c : diff.at("changes")) changes.insert(c.at("change").get<std::string>());
  EXPECT_EQ(changes.count("superseded"), 1u);
  EXPECT_EQ(changes.count("invalidated"), 1u) << "the older fact's valid time ended";
  EXPECT_EQ(changes.count("added"), 3u) << "new fact, action, supersedes edge";
  std::string text = VexfsOk({"graph", "diff", "before", "after"});
  EXPECT_NE(text.find("^ superseded"), std::string::npos) << text;

  EXPECT_EQ(Count({"graph", "list", "--kind", "fact", "--at", "before"}), 1u);
  EXPECT_EQ(Count({"graph", "list", "--kind", "fact"}), 1u) << "the superseded fact is left out";
  EXPECT_EQ(Count({"graph", "list", "--kind", "fact", "--all"}), 2u);
  EXPECT_EQ(Count({"graph", "list", "--kind", "fact", "--valid-at", "2026-03-01"}), 1u);
  EXPECT_EQ(Count({"graph", "actions", "--state", "done"}), 1u);
  EXPECT_EQ(Count({"graph", "actions", "--state", "planned"}), 0u);

  // Restore brings the graph back with the files.
  VexfsOk({"restore", "before"});
  EXPECT_EQ(Count({"graph", "actions"}), 0u);
  EXPECT_TRUE(VexfsJson({"graph", "diff", "before"}).at("changes").empty());
  ExpectFsckClean();
}

TEST_F(CliGraphTest, BadItemsAreRefusedAndWriteNothing) {
  std::string fact = Add({"--kind", "fact", "--text", "x"});
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "link", fact, "mentions", "key:missing"}), 3, {"does not exist"}));
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "add", "--kind", "Fact"}), 4, {"kind"}));
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "add", "--kind", "fact", "--properties", "{nope"}), 4, {"not JSON"}));
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "add", "--kind", "fact", "--valid-from", "2026-02-01",
                                "--valid-to", "2026-01-01"}),
                         4, {"ends before it starts"}));
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "add", "--kind", "turn", "--span", "cache:0:50:40"}), 4,
                         {"outside its cache"}));
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "get", "nothex"}), 4, {"32 hex digits"}));
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "get", "key:none"}), 3, {"no node or edge"}));
  Add({"--kind", "pending_action", "--text", "deploy", "--key", "deploy-7"});
  VexfsOk({"graph", "action", "key:deploy-7", "done"});
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "action", "key:deploy-7", "started"}), 4, {"must not run again"}));
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "link", fact, "supersedes", fact}), 4, {"cycle"}));
  EXPECT_EQ(Count({"graph", "list", "--all"}), 2u) << "only the two good adds";
  ExpectFsckClean();
}

TEST_F(CliGraphTest, TranscriptsImportOnceAndExportAsTheyCameIn) {
  std::string chat =
      "{\"role\":\"user\",\"content\":\"list the files\"}\n"
      "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"looking\"},"
      "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"ls\",\"input\":{\"dir\":\"/\"}}]}\n"
      "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"bin\"}]}\n";
  WriteLocalFile(Local("chat.jsonl"), chat);
  json first = VexfsJson({"graph", "import", Local("chat.jsonl"), "--thread", "c", "--format", "anthropic"});
  EXPECT_GT(first.at("records_changed").get<int>(), 0);
  json second = VexfsJson({"graph", "import", Local("chat.jsonl"), "--thread", "c", "--format", "anthropic"});
  EXPECT_EQ(second.at("records_changed"), 0);
  std::string out = VexfsOk({"graph", "export", "--thread", "c", "--format", "anthropic"});
  std::vector<json> exported, imported;
  for (const std::string* text : {&out, &chat}) {
    std::vector<json>& into = text == &out ? exported : imported;
    size_t at = 0;
    while (at < text->size()) {
      size_t end = text->find('\n', at);
      into.push_back(json::parse(text->substr(at, end - at)));
      at = end + 1;
    }
  }
  EXPECT_EQ(exported, imported);
  WriteLocalFile(Local("bad.jsonl"), "{\"role\":\"user\",\"content\":\"x\"}\n{\"role\":\"tool\",\"tool_call_id\":\"z\"}\n");
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "import", Local("bad.jsonl"), "--thread", "bad"}), 4,
                         {"line 2", "no earlier message made"}));
  EXPECT_EQ(Count({"graph", "list", "--thread", "bad"}), 0u);
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "export", "--thread", "c", "--format", "openai"}), 4,
                         {"was imported as anthropic"}));
}

// The whole round an agent makes: a transcript in, a snapshot, a fact
// superseded and an action done, another snapshot; then the diff, the graph
// as of either snapshot, and one search over files and nodes.
TEST_F(CliGraphTest, ATranscriptSnapshottedChangedAndSearched) {
  WriteLocalFile(Local("chat.jsonl"),
                 "{\"role\":\"user\",\"content\":\"when is the deploy window?\"}\n"
                 "{\"role\":\"assistant\",\"content\":\"the deploy window is tuesday\"}\n");
  VexfsOk({"graph", "import", Local("chat.jsonl"), "--thread", "ops"});
  std::string old_fact = Add({"--kind", "fact", "--text", "the deploy window is tuesday", "--key", "window"});
  Add({"--kind", "pending_action", "--text", "announce the deploy window", "--key", "announce"});
  PutText("runbook.md", "deploy window checklist: freeze, tag, roll out");
  VexfsOk({"snapshot", "create", "s1"});

  std::string new_fact = Add({"--kind", "fact", "--text", "the deploy window moved to thursday", "--key", "window-2"});
  VexfsOk({"graph", "link", new_fact, "supersedes", old_fact});
  VexfsOk({"graph", "action", "key:announce", "done"});
  VexfsOk({"snapshot", "create", "s2"});

  std::multiset<std::string> changes;
  json diff = VexfsJson({"graph", "diff", "s1", "s2"});
  for (const json& c : diff.at("changes")) changes.insert(c.at("change").get<std::string>());
  EXPECT_EQ(changes.count("superseded"), 1u) << diff.dump();
  EXPECT_EQ(changes.count("action"), 1u) << diff.dump();
  EXPECT_EQ(Count({"graph", "list", "--kind", "fact", "--at", "s1"}), 1u);
  EXPECT_EQ(VexfsJson({"graph", "get", "key:window", "--at", "s1"}).at("valid_to"), nullptr);
  EXPECT_EQ(VexfsJson({"graph", "actions", "--state", "done", "--at", "s2"}).size(), 1u);

  // One search over files and nodes: the runbook, the turns and the current fact.
  json both = VexfsJson({"graph", "search", "deploy window", "--with-files", "--kind", "fact",
                         "--kind", "turn"});
  std::set<std::string> paths, nodes;
  for (const json& hit : both.at("hits")) {
    if (hit.contains("path")) paths.insert(hit.at("path").get<std::string>());
    if (hit.contains("node")) nodes.insert(hit.at("node").get<std::string>());
  }
  EXPECT_EQ(paths, std::set<std::string>{"runbook.md"});
  EXPECT_TRUE(nodes.count(new_fact));
  EXPECT_FALSE(nodes.count(old_fact)) << "superseded: left out unless asked";
  EXPECT_EQ(nodes.size(), 3u) << "the new fact and both turns";
  json asked = VexfsJson({"graph", "search", "tuesday", "--kind", "fact", "--all"});
  ASSERT_EQ(asked.at("hits").size(), 1u);
  EXPECT_EQ(asked.at("hits")[0].at("node"), old_fact);
  json then = VexfsJson({"graph", "search", "deploy window", "--kind", "fact", "--at", "s1"});
  ASSERT_EQ(then.at("hits").size(), 1u);
  EXPECT_EQ(then.at("hits")[0].at("node"), old_fact);
  std::string text = VexfsOk({"search", "deploy window", "--graph"});
  EXPECT_NE(text.find("runbook.md"), std::string::npos) << text;
  EXPECT_NE(text.find("node " + new_fact), std::string::npos) << text;
  EXPECT_TRUE(FailedWith(Vexfs({"graph", "search", "x", "--property", "novalue"}), 4, {"KEY=VALUE"}));
  ExpectFsckClean();
}

}  // namespace
}  // namespace vexfs::cli_test
