// `vexfs` maintenance commands (gc, fsck, info) and the global surface: --store,
// $VEXFS_STORE, --json before or after the command, and --help on every command.
#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

TEST_F(CliStoreTest, GcFreesWhatNothingReaches) {
  PutText("keep.txt", "keep");
  VexfsOk({"snapshot", "create", "s1"});
  json nothing = VexfsJson({"gc"});
  EXPECT_EQ(nothing.at("objects_freed"), 0);
  EXPECT_GT(nothing.at("objects_kept").get<uint64_t>(), 0u);

  // Content only the working tree held, then removed.
  PutText("big.bin", vexfs::test::RandomBytes(5, 200000));
  VexfsOk({"rm", "big.bin"});
  json freed = VexfsJson({"gc"});
  EXPECT_GT(freed.at("objects_freed").get<uint64_t>(), 0u);
  EXPECT_GE(freed.at("bytes_freed").get<uint64_t>(), 200000u);

  // A snapshot on a branch: freed once both its name and the branch are gone.
  VexfsOk({"branch", "tmp"});
  VexfsOk({"put", "--branch", "tmp", "-", "other.bin"}, vexfs::test::RandomBytes(6, 100000));
  VexfsOk({"snapshot", "create", "--branch", "tmp", "t1"});
  EXPECT_EQ(VexfsJson({"gc"}).at("objects_freed"), 0);
  VexfsOk({"snapshot", "delete", "t1"});
  VexfsOk({"branch", "-d", "tmp"});
  EXPECT_GE(VexfsJson({"gc"}).at("bytes_freed").get<uint64_t>(), 100000u);

  std::string text = VexfsOk({"gc"});
  EXPECT_EQ(text.rfind("gc: freed 0 object(s)", 0), 0u) << text;
  EXPECT_EQ(VexfsOk({"cat", "--at", "s1", "keep.txt"}), "keep");
  ExpectFsckClean();
}

TEST_F(CliStoreTest, FsckTextAndJsonOnHealthyStore) {
  PutText("a/b.txt", "b");
  VexfsOk({"snapshot", "create", "s1"});
  json report = VexfsJson({"fsck"});
  EXPECT_EQ(report.at("ok"), true);
  EXPECT_GT(report.at("objects_checked").get<uint64_t>(), 0u);
  EXPECT_GT(report.at("refs_checked").get<uint64_t>(), 0u);
  EXPECT_GT(report.at("inodes_checked").get<uint64_t>(), 0u);
  std::string text = VexfsOk({"fsck"});
  EXPECT_NE(text.find("0 problem(s)"), std::string::npos) << text;
  EXPECT_EQ(text.find("problem:"), std::string::npos) << text;
}

TEST_F(CliStoreTest, InfoTextAndJson) {
  PutText("a.txt", vexfs::test::RandomBytes(2, 10000));
  json info = VexfsJson({"info"});
  EXPECT_EQ(info.at("store"), store());
  EXPECT_EQ(info.at("branch"), "main");
  EXPECT_GT(info.at("objects").get<uint64_t>(), 0u);
  EXPECT_GE(info.at("object_bytes").get<uint64_t>(), 10000u);
  EXPECT_GT(info.at("map_used").get<uint64_t>(), 0u);
  EXPECT_GT(info.at("map_size").get<uint64_t>(), info.at("map_used").get<uint64_t>());
  std::string text = VexfsOk({"info"});
  EXPECT_NE(text.find("branch:  main\n"), std::string::npos) << text;
  EXPECT_NE(text.find("store:   " + store() + "\n"), std::string::npos) << text;
}

TEST_F(CliTest, StoreFromEnvironmentOrOption) {
  ProcessOptions env_only;
  env_only.env["VEXFS_STORE"] = store();
  ASSERT_TRUE(VexfsRaw({"init"}, env_only).ok());
  ProcessOptions env_and_input = env_only;
  env_and_input.stdin_data = "env";
  ASSERT_TRUE(VexfsRaw({"put", "-", "from-env.txt"}, env_and_input).ok());
  EXPECT_EQ(VexfsOk({"cat", "from-env.txt"}), "env");

  // --store wins over the environment.
  std::string other = Local("other");
  ProcessResult init = VexfsRaw({"--store", other, "init"}, env_only);
  ASSERT_TRUE(init.ok()) << init;
  ProcessResult ls = VexfsRaw({"--store", other, "ls"}, env_only);
  EXPECT_TRUE(ls.ok()) << ls;
  EXPECT_EQ(ls.out, "");

  // With neither, the current directory is the store.
  ProcessOptions in_store;
  in_store.cwd = store();
  ProcessResult cwd = VexfsRaw({"cat", "from-env.txt"}, in_store);
  EXPECT_TRUE(cwd.ok()) << cwd;
  EXPECT_EQ(cwd.out, "env");
}

TEST_F(CliStoreTest, GlobalOptionsBeforeOrAfterCommand) {
  PutText("a.txt", "a");
  ProcessResult before = VexfsRaw({"--json", "--store", store(), "ls"});
  ProcessResult after = VexfsRaw({"ls", "--store", store(), "--json"});
  ASSERT_TRUE(before.ok()) << before;
  ASSERT_TRUE(after.ok()) << after;
  EXPECT_EQ(before.out, after.out);
  EXPECT_EQ(json::parse(after.out).at(0).at("name"), "a.txt");
  ProcessResult nested = VexfsRaw({"snapshot", "list", "--json", "--store", store()});
  ASSERT_TRUE(nested.ok()) << nested;
  EXPECT_EQ(json::parse(nested.out), json::array());
}

TEST_F(CliTest, HelpOnEveryCommand) {
  const std::vector<Args> commands = {
      {},          {"init"},     {"put"},       {"get"},
      {"cat"},     {"ls"},       {"stat"},      {"mkdir"},
      {"rm"},      {"rmdir"},    {"mv"},        {"snapshot"},
      {"snapshot", "create"},    {"snapshot", "list"},
      {"snapshot", "delete"},    {"tag"},       {"log"},
      {"diff"},    {"restore"},  {"branch"},    {"checkout"},
      {"gc"},      {"fsck"},     {"info"}};
  for (const Args& command : commands) {
    Args args = command;
    args.push_back("--help");
    ProcessResult r = VexfsRaw(args);  // no store anywhere: help needs none
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.out.find("Usage: vexfs"), std::string::npos) << r;
    EXPECT_EQ(r.err, "") << r;
  }
  ProcessResult top = VexfsRaw({"--help"});
  for (const char* name : {"init", "put", "get", "snapshot", "diff", "restore", "gc", "fsck"}) {
    EXPECT_NE(top.out.find(name), std::string::npos) << name;
  }
  EXPECT_NE(top.out.find("Exit codes"), std::string::npos) << top;
}

}  // namespace
}  // namespace vexfs::cli_test
