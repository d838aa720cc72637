// `vexfs` versioning commands run as processes: snapshot create/list/delete, tag,
// log, diff, restore, branch and checkout.
#include <set>

#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

// Every snapshot name in a `snapshot list --json`.
std::set<std::string> SnapshotNames(const json& list) {
  std::set<std::string> names;
  for (const json& c : list) {
    for (const json& n : c.at("names")) names.insert(n.get<std::string>());
  }
  return names;
}

// "change path" (or "renamed old -> new") for each entry of a `diff --json`.
std::set<std::string> Changes(const json& diff) {
  std::set<std::string> out;
  for (const json& e : diff) {
    std::string line = e.at("change").get<std::string>() + " ";
    if (e.contains("old_path")) line += e.at("old_path").get<std::string>() + " -> ";
    out.insert(line + e.at("path").get<std::string>());
  }
  return out;
}

TEST_F(CliStoreTest, SnapshotCreateRecordsMessageAndMetadata) {
  PutText("a.txt", "a");
  json created = VexfsJson({"snapshot", "create", "s1", "-m", "first plan", "--meta",
                            "agent=planner", "--meta", "step=3"});
  EXPECT_EQ(created.at("names"), json::array({"s1"}));
  EXPECT_EQ(created.at("message"), "first plan");
  EXPECT_EQ(created.at("meta"), json({{"agent", "planner"}, {"step", "3"}}));
  EXPECT_EQ(created.at("branch"), "main");
  EXPECT_EQ(created.at("id").get<std::string>().size(), 64u);

  std::string text = VexfsOk({"snapshot", "create", "s2", "-m", "second"});
  EXPECT_EQ(text.rfind("snapshot s2 ", 0), 0u) << text;
}

TEST_F(CliStoreTest, SnapshotListTextAndJson) {
  VexfsOk({"snapshot", "create", "first", "-m", "one"});
  PutText("x", "x");
  VexfsOk({"snapshot", "create", "second", "-m", "two"});
  json list = VexfsJson({"snapshot", "list"});
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].at("names"), json::array({"first"}));  // oldest first
  EXPECT_EQ(list[1].at("message"), "two");
  std::string text = VexfsOk({"snapshot", "list"});
  EXPECT_EQ(text.rfind("first\t", 0), 0u) << text;
  EXPECT_NE(text.find("\nsecond\t"), std::string::npos) << text;
  EXPECT_NE(text.find("\ttwo\n"), std::string::npos) << text;
}

TEST_F(CliStoreTest, SnapshotDeleteRemovesOnlyTheName) {
  PutText("a.txt", "a");
  VexfsOk({"snapshot", "create", "keep"});
  VexfsOk({"tag", "alias", "keep"});
  VexfsOk({"snapshot", "delete", "keep"});
  EXPECT_EQ(SnapshotNames(VexfsJson({"snapshot", "list"})), std::set<std::string>{"alias"});
  EXPECT_EQ(VexfsOk({"cat", "--at", "alias", "a.txt"}), "a");
}

TEST_F(CliStoreTest, TagGivesSnapshotAnotherName) {
  PutText("a.txt", "a");
  json created = VexfsJson({"snapshot", "create", "s1"});
  VexfsOk({"tag", "v1.0", "s1"});
  json list = VexfsJson({"snapshot", "list"});
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(SnapshotNames(list), (std::set<std::string>{"s1", "v1.0"}));
  EXPECT_EQ(list[0].at("id"), created.at("id"));
  // A full commit id works wherever a name does.
  std::string id = created.at("id");
  VexfsOk({"tag", "by-id", id});
  EXPECT_EQ(VexfsOk({"cat", "--at", id, "a.txt"}), "a");
}

TEST_F(CliStoreTest, LogShowsHistoryNewestFirst) {
  json s1 = VexfsJson({"snapshot", "create", "s1", "-m", "one", "--meta", "k=v"});
  PutText("a", "a");
  json s2 = VexfsJson({"snapshot", "create", "s2", "-m", "two"});
  PutText("b", "b");
  json s3 = VexfsJson({"snapshot", "create", "s3", "-m", "three"});

  json log = VexfsJson({"log"});
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0].at("id"), s3.at("id"));
  EXPECT_EQ(log[0].at("parents"), json::array({s2.at("id")}));
  EXPECT_EQ(log[1].at("parents"), json::array({s1.at("id")}));
  EXPECT_EQ(log[2].at("parents"), json::array());
  EXPECT_EQ(log[2].at("meta"), json({{"k", "v"}}));
  EXPECT_EQ(log[2].at("message"), "one");

  json limited = VexfsJson({"log", "-n", "2"});
  ASSERT_EQ(limited.size(), 2u);
  EXPECT_EQ(limited[1].at("id"), s2.at("id"));
  EXPECT_EQ(VexfsJson({"log", "s2"}).size(), 2u);

  std::string text = VexfsOk({"log", "-n", "1"});
  EXPECT_EQ(text.rfind("snapshot " + s3.at("id").get<std::string>() + " (s3)", 0), 0u) << text;
  EXPECT_NE(text.find("parent:  " + s2.at("id").get<std::string>()), std::string::npos);
  EXPECT_NE(text.find("    three\n"), std::string::npos) << text;
  EXPECT_NE(VexfsOk({"log"}).find("meta:    k=v\n"), std::string::npos);
}

class CliDiffTest : public CliStoreTest {
 protected:
  void SetUp() override {
    CliStoreTest::SetUp();
    PutText("keep.txt", "same");
    PutText("edit.txt", "before");
    PutText("gone.txt", "bye");
    PutText("move.txt", "moving content");
    VexfsOk({"snapshot", "create", "a"});
    PutText("edit.txt", "after");
    VexfsOk({"rm", "gone.txt"});
    VexfsOk({"mv", "move.txt", "moved.txt"});
    PutText("new.txt", "hello");
  }
  const std::set<std::string> kExpected{"added new.txt", "modified edit.txt",
                                        "removed gone.txt", "renamed move.txt -> moved.txt"};
};

TEST_F(CliDiffTest, SnapshotAgainstWorkingTree) {
  EXPECT_EQ(Changes(VexfsJson({"diff", "a"})), kExpected);
  EXPECT_EQ(Changes(VexfsJson({"diff", "a", "WORKING"})), kExpected);
  std::string text = VexfsOk({"diff", "a"});
  EXPECT_NE(text.find("R  move.txt -> moved.txt\n"), std::string::npos) << text;
  EXPECT_NE(text.find("A  new.txt\n"), std::string::npos) << text;
}

TEST_F(CliDiffTest, BetweenSnapshotsTextAndJson) {
  VexfsOk({"snapshot", "create", "b"});
  EXPECT_EQ(Changes(VexfsJson({"diff", "a", "b"})), kExpected);
  std::string text = VexfsOk({"diff", "a", "b"});
  for (const char* line : {"A  new.txt\n", "M  edit.txt\n", "D  gone.txt\n",
                           "R  move.txt -> moved.txt\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " not in:\n" << text;
  }
  EXPECT_EQ(VexfsJson({"diff", "b", "b"}), json::array());
  EXPECT_EQ(VexfsOk({"diff", "b"}), "");
}

TEST_F(CliDiffTest, ReportsEntryTypes) {
  VexfsOk({"mkdir", "newdir"});
  json diff = VexfsJson({"diff", "a"});
  bool saw_dir = false;
  for (const json& e : diff) {
    if (e.at("path") == "newdir") {
      EXPECT_EQ(e.at("change"), "added");
      EXPECT_EQ(e.at("type"), "dir");
      saw_dir = true;
    }
  }
  EXPECT_TRUE(saw_dir) << diff.dump();
}

TEST_F(CliStoreTest, RestoreBringsBackSnapshotKeepingHistory) {
  PutText("a.txt", "one");
  PutText("dir/b.txt", "b");
  VexfsOk({"snapshot", "create", "s1"});
  PutText("a.txt", "two");
  VexfsOk({"rm", "-r", "dir"});
  PutText("c.txt", "c");
  VexfsOk({"snapshot", "create", "s2"});
  std::string out = VexfsOk({"restore", "s1"});
  EXPECT_EQ(out, "restored working tree to s1\n");
  EXPECT_EQ(VexfsOk({"cat", "a.txt"}), "one");
  EXPECT_EQ(VexfsOk({"ls", "-R"}), "a.txt\ndir/\ndir/b.txt\n");
  EXPECT_EQ(VexfsJson({"diff", "s1"}), json::array());
  EXPECT_EQ(VexfsJson({"log"}).size(), 2u);  // s2 stays in history
  EXPECT_EQ(SnapshotNames(VexfsJson({"snapshot", "list"})),
            (std::set<std::string>{"s1", "s2"}));
  ExpectFsckClean();
}

TEST_F(CliStoreTest, BranchListCreateFromAndDelete) {
  PutText("a.txt", "v1");
  VexfsOk({"snapshot", "create", "s1"});
  PutText("a.txt", "v2");
  VexfsOk({"branch", "copy"});                  // copy of the working tree
  VexfsOk({"branch", "old", "--from", "s1"});  // from a snapshot

  json branches = VexfsJson({"branch"});
  ASSERT_EQ(branches.size(), 3u);
  std::set<std::string> names;
  for (const json& b : branches) {
    names.insert(b.at("name").get<std::string>());
    EXPECT_EQ(b.at("current"), b.at("name") == "main");
  }
  EXPECT_EQ(names, (std::set<std::string>{"main", "copy", "old"}));
  std::string text = VexfsOk({"branch"});
  EXPECT_NE(text.find("* main\t"), std::string::npos) << text;
  EXPECT_NE(text.find("  copy"), std::string::npos) << text;

  EXPECT_EQ(VexfsOk({"cat", "--branch", "copy", "a.txt"}), "v2");
  EXPECT_EQ(VexfsOk({"cat", "--branch", "old", "a.txt"}), "v1");
  VexfsOk({"branch", "-d", "copy"});
  EXPECT_EQ(VexfsJson({"branch"}).size(), 2u);
  ExpectFsckClean();
}

TEST_F(CliStoreTest, CheckoutSwitchesWorkingTree) {
  PutText("a.txt", "main version");
  VexfsOk({"snapshot", "create", "base"});
  VexfsOk({"branch", "exp", "--from", "base"});
  EXPECT_EQ(VexfsOk({"checkout", "exp"}), "on branch exp\n");
  EXPECT_EQ(VexfsJson({"info"}).at("branch"), "exp");
  PutText("a.txt", "experiment");
  json snap = VexfsJson({"snapshot", "create", "exp-1"});
  EXPECT_EQ(snap.at("branch"), "exp");
  VexfsOk({"checkout", "main"});
  EXPECT_EQ(VexfsOk({"cat", "a.txt"}), "main version");
  EXPECT_EQ(VexfsOk({"cat", "--branch", "exp", "a.txt"}), "experiment");
  EXPECT_EQ(VexfsJson({"log", "exp"}).size(), 2u);
}

}  // namespace
}  // namespace vexfs::cli_test
