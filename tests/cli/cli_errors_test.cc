// Failing `vexfs` commands: each must exit with its documented code, print one
// "vexfs: " line on stderr naming what is wrong and nothing on stdout, and leave
// the store exactly as it was.
#include <filesystem>

#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

constexpr int kUsage = 2;
constexpr int kNotFound = 3;
constexpr int kInvalid = 4;
constexpr int kConflict = 5;

// A store with a little of everything to get wrong.
class CliErrorTest : public CliStoreTest {
 protected:
  void SetUp() override {
    CliStoreTest::SetUp();
    PutText("a.txt", "a");
    PutText("dir/b.txt", "b");
    VexfsOk({"mkdir", "empty"});
    VexfsOk({"snapshot", "create", "s1", "-m", "base"});
    VexfsOk({"branch", "side"});
  }
};

TEST_F(CliTest, MissingStore) {
  std::string missing = Local("no-store-here");
  for (const Args& args : std::vector<Args>{{"ls"}, {"cat", "a"}, {"snapshot", "list"},
                                            {"put", "-", "x"}, {"fsck"}, {"info"}, {"gc"}}) {
    Args full{"--store", missing};
    full.insert(full.end(), args.begin(), args.end());
    ProcessResult r = VexfsRaw(full);
    EXPECT_TRUE(FailedWith(r, kNotFound, {missing, "no VexFS store"}));
  }
  ProcessOptions env;
  env.env["VEXFS_STORE"] = missing;
  EXPECT_TRUE(FailedWith(VexfsRaw({"ls"}, env), kNotFound, {missing}));
}

TEST_F(CliErrorTest, WrongPathIsNotFound) {
  EXPECT_FAILS_UNCHANGED(Vexfs({"cat", "nope.txt"}), kNotFound, "nope.txt");
  EXPECT_FAILS_UNCHANGED(Vexfs({"cat", "dir/nope.txt"}), kNotFound, "nope.txt");
  EXPECT_FAILS_UNCHANGED(Vexfs({"ls", "missing-dir"}), kNotFound, "missing-dir");
  EXPECT_FAILS_UNCHANGED(Vexfs({"stat", "missing"}), kNotFound, "missing");
  EXPECT_FAILS_UNCHANGED(Vexfs({"get", "missing", Local("out")}), kNotFound, "missing");
  EXPECT_FAILS_UNCHANGED(Vexfs({"rm", "missing"}), kNotFound, "missing");
  EXPECT_FAILS_UNCHANGED(Vexfs({"rmdir", "missing"}), kNotFound, "missing");
  EXPECT_FAILS_UNCHANGED(Vexfs({"mv", "missing", "x"}), kNotFound, "missing");
  EXPECT_FAILS_UNCHANGED(Vexfs({"mkdir", "no/parent"}), kNotFound, "no");
  EXPECT_FAILS_UNCHANGED(Vexfs({"cat", "--at", "s1", "nope.txt"}), kNotFound, "nope.txt");
  EXPECT_FALSE(std::filesystem::exists(Local("out")));
}

TEST_F(CliErrorTest, MissingLocalFileIsNotFound) {
  EXPECT_FAILS_UNCHANGED(Vexfs({"put", Local("absent.txt"), "x"}), kNotFound, "absent.txt");
}

TEST_F(CliErrorTest, DotDotEscapingIsInvalid) {
  EXPECT_FAILS_UNCHANGED(Vexfs({"cat", "../x"}), kInvalid, "../x");
  EXPECT_FAILS_UNCHANGED(Vexfs({"ls", "dir/../.."}), kInvalid, "dir/../..");
  EXPECT_FAILS_UNCHANGED(Vexfs({"put", "-", "../escape.txt"}, "data"), kInvalid, "..");
  EXPECT_FAILS_UNCHANGED(Vexfs({"mkdir", "-p", "dir/../../up"}), kInvalid, "..");
  EXPECT_FAILS_UNCHANGED(Vexfs({"mv", "a.txt", "../a.txt"}), kInvalid, "..");
  EXPECT_FAILS_UNCHANGED(Vexfs({"rm", "-r", ".."}), kInvalid, "..");
  EXPECT_FAILS_UNCHANGED(Vexfs({"get", "../a.txt"}), kInvalid, "..");
}

TEST_F(CliErrorTest, SnapshotNameWithSlashIsInvalid) {
  EXPECT_FAILS_UNCHANGED(Vexfs({"snapshot", "create", "a/b"}), kInvalid, "a/b");
  EXPECT_FAILS_UNCHANGED(Vexfs({"tag", "x/y", "s1"}), kInvalid, "x/y");
  EXPECT_FAILS_UNCHANGED(Vexfs({"branch", "feat/x"}), kInvalid, "feat/x");
  EXPECT_FAILS_UNCHANGED(Vexfs({"snapshot", "create", "ok", "--meta", "novalue"}), kInvalid,
                         "novalue");
}

TEST_F(CliErrorTest, UnknownSnapshotIsNotFound) {
  EXPECT_FAILS_UNCHANGED(Vexfs({"cat", "--at", "ghost", "a.txt"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"ls", "--at", "ghost"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"restore", "ghost"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"diff", "ghost"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"diff", "s1", "ghost"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"log", "ghost"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"tag", "t", "ghost"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"snapshot", "delete", "ghost"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"branch", "b2", "--from", "ghost"}), kNotFound, "ghost");
}

TEST_F(CliErrorTest, UnknownBranchIsNotFound) {
  EXPECT_FAILS_UNCHANGED(Vexfs({"checkout", "ghost"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"cat", "--branch", "ghost", "a.txt"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"branch", "-d", "ghost"}), kNotFound, "ghost");
  EXPECT_FAILS_UNCHANGED(Vexfs({"put", "--branch", "ghost", "-", "x"}, "x"), kNotFound, "ghost");
}

TEST_F(CliErrorTest, DuplicatesConflict) {
  EXPECT_FAILS_UNCHANGED(Vexfs({"snapshot", "create", "s1"}), kConflict, "s1");
  EXPECT_FAILS_UNCHANGED(Vexfs({"tag", "s1", "s1"}), kConflict, "s1");
  EXPECT_FAILS_UNCHANGED(Vexfs({"branch", "side"}), kConflict, "side");
  EXPECT_FAILS_UNCHANGED(Vexfs({"mkdir", "dir"}), kConflict, "dir");
  EXPECT_FAILS_UNCHANGED(Vexfs({"mkdir", "empty", "fresh"}), kConflict, "empty");
  EXPECT_FAILS_UNCHANGED(Vexfs({"init"}), kConflict, store());
}

TEST_F(CliErrorTest, RmdirOfNonEmptyDirectoryConflicts) {
  EXPECT_FAILS_UNCHANGED(Vexfs({"rmdir", "dir"}), kConflict, "dir", "not empty");
}

TEST_F(CliErrorTest, WrongKindOfObjectIsInvalid) {
  EXPECT_FAILS_UNCHANGED(Vexfs({"rm", "dir"}), kInvalid, "dir", "rm -r");
  EXPECT_FAILS_UNCHANGED(Vexfs({"rmdir", "a.txt"}), kInvalid, "a.txt");
  EXPECT_FAILS_UNCHANGED(Vexfs({"cat", "dir"}), kInvalid, "dir");
  EXPECT_FAILS_UNCHANGED(Vexfs({"get", "dir"}), kInvalid, "dir");
  EXPECT_FAILS_UNCHANGED(Vexfs({"put", "-", "dir/"}, "x"), kInvalid);
  EXPECT_FAILS_UNCHANGED(Vexfs({"rm", "-r", "/"}), kInvalid, "root");
  EXPECT_FAILS_UNCHANGED(Vexfs({"branch", "-d", "main"}), kInvalid, "main");
}

TEST_F(CliErrorTest, UsageErrors) {
  EXPECT_FAILS_UNCHANGED(Vexfs({"bogus"}), kUsage, "bogus");
  EXPECT_FAILS_UNCHANGED(Vexfs({"ls", "--bogus"}), kUsage, "--bogus");
  EXPECT_FAILS_UNCHANGED(Vexfs({"--bogus", "ls"}), kUsage, "--bogus");
  EXPECT_FAILS_UNCHANGED(Vexfs({"snapshot", "bogus"}), kUsage, "bogus");
  EXPECT_FAILS_UNCHANGED(Vexfs({"snapshot"}), kUsage, "snapshot");
  EXPECT_FAILS_UNCHANGED(Vexfs({"cat"}), kUsage, "STORE_PATH");
  EXPECT_FAILS_UNCHANGED(Vexfs({"log", "-n", "many"}), kUsage, "many");
  EXPECT_FAILS_UNCHANGED(Vexfs({"init", "--map-size", "lots"}), kInvalid, "lots");
  EXPECT_TRUE(FailedWith(VexfsRaw({}), kUsage, {"command"}));
}

TEST_F(CliTest, BadMapSizeIsInvalidAndCreatesNothing) {
  for (const char* size : {"lots", "-1", "99999999999T", "5X"}) {
    EXPECT_TRUE(FailedWith(Vexfs({"init", "--map-size", size}), kInvalid, {size}));
  }
  EXPECT_FALSE(std::filesystem::exists(store()));
}

// The check every test above leans on: each kind of change a command could make
// by mistake shows in the captured state.
TEST_F(CliErrorTest, TheUnchangedCheckSeesEveryKindOfChange) {
  const std::vector<std::pair<Args, std::string>> changes = {
      {{"put", "-", "a.txt"}, "z"},           {{"meta", "set", "a.txt", "k=v"}, ""},
      {{"mkdir", "empty/sub"}, ""},          {{"rm", "dir/b.txt"}, ""},
      {{"tag", "t", "s1"}, ""},              {{"branch", "other"}, ""},
      {{"checkout", "side"}, ""}};
  for (const auto& [args, input] : changes) {
    StoreState before = CaptureState();
    ProcessResult r = Vexfs(args, input);
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(before, CaptureState()) << args[0] << " went unseen";
  }
}

TEST_F(CliErrorTest, LostOutputIsAFailure) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  ProcessOptions full;
  full.stdout_path = "/dev/full";
  for (const Args& args : std::vector<Args>{{"cat", "a.txt"}, {"ls", "-R"}, {"log", "--json"}}) {
    Args with_store{"--store", store()};
    with_store.insert(with_store.end(), args.begin(), args.end());
    EXPECT_TRUE(FailedWith(VexfsRaw(with_store, full), 1, {"standard output"}));
  }
}

}  // namespace
}  // namespace vexfs::cli_test
