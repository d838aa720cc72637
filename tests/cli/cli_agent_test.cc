// `vexfs agent export|import|inspect` through the real binary: a signed bundle
// moves a snapshot and its graph to another store with the same commit id, and
// each refusal (untrusted, damaged, incremental without its base, a branch
// held elsewhere) exits with its documented code and leaves the target as it was.
#include <fstream>

#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

class CliAgentTest : public CliStoreTest {
 protected:
  void SetUp() override {
    CliStoreTest::SetUp();
    VexfsOk({"usxf", "keygen", "-o", Local("agent.key")});
    std::filesystem::create_directories(Local("keyring"));
    std::filesystem::copy_file(Local("agent.key.pub"), Local("keyring/agent.pub"));
    source_ = store();
    target_ = Local("target");
    VexfsRaw({"init", target_});
    PutText("/notes/plan.md", "plan A: sail at dawn");
    VexfsOk({"graph", "add", "--kind", "fact", "--text", "the harbour closes at dusk", "--key", "harbour"});
    VexfsOk({"snapshot", "create", "s1"});
  }

  ProcessResult OnTarget(Args args) {
    set_store(target_);
    ProcessResult r = Vexfs(args);
    set_store(source_);
    return r;
  }

  std::string source_, target_;
};

TEST_F(CliAgentTest, ASignedBundleMovesTheSnapshotAndGraph) {
  json exported = VexfsJson({"agent", "export", "-o", Local("a.usxf"), "--sign", Local("agent.key")});
  const std::string commit = exported["manifest"]["snapshot"];
  EXPECT_TRUE(exported["signed"].get<bool>());
  json inspected = VexfsJson({"agent", "inspect", Local("a.usxf"), "--keyring", Local("keyring")});
  EXPECT_EQ(inspected["snapshot"], commit);
  EXPECT_EQ(inspected["extensions"], json::array({"graph"}));

  set_store(target_);
  json imported = VexfsJson({"agent", "import", Local("a.usxf"), "--keyring", Local("keyring"), "--branch", "moved"});
  EXPECT_GT(imported["objects_added"].get<uint64_t>(), 3u);
  json log = VexfsJson({"log", "s1"});
  EXPECT_EQ(log[0]["id"], commit);
  EXPECT_EQ(VexfsOk({"cat", "/notes/plan.md", "--branch", "moved"}), "plan A: sail at dawn");
  json fact = VexfsJson({"graph", "get", "key:harbour", "--at", "s1"});
  EXPECT_EQ(fact["text"], "the harbour closes at dusk");
  ExpectFsckClean();
}

TEST_F(CliAgentTest, RefusalsExitWithTheirCodeAndChangeNothing) {
  VexfsOk({"agent", "export", "-o", Local("unsigned.usxf")});
  VexfsOk({"agent", "export", "-o", Local("signed.usxf"), "--sign", Local("agent.key")});
  PutText("/notes/plan.md", "plan B: wait for the tide");
  VexfsOk({"snapshot", "create", "s2"});
  VexfsOk({"agent", "export", "-o", Local("step.usxf"), "--since", "s1", "--sign", Local("agent.key")});
  std::string bytes = ReadLocalFile(Local("signed.usxf"));
  bytes[bytes.size() / 2] ^= 0x10;
  WriteLocalFile(Local("damaged.usxf"), bytes);

  set_store(target_);
  const std::string keyring = Local("keyring");
  EXPECT_FAILS_UNCHANGED(Vexfs({"agent", "import", Local("unsigned.usxf"), "--keyring", keyring}), 10);
  EXPECT_FAILS_UNCHANGED(Vexfs({"agent", "import", Local("damaged.usxf"), "--keyring", keyring}), 6);
  EXPECT_FAILS_UNCHANGED(Vexfs({"agent", "import", Local("step.usxf"), "--keyring", keyring}), 3, "lacks");
  PutText("/mine.md", "the target's own work");
  VexfsOk({"snapshot", "create", "own"});
  VexfsOk({"branch", "moved", "--from", "own"});
  EXPECT_FAILS_UNCHANGED(
      Vexfs({"agent", "import", Local("signed.usxf"), "--keyring", keyring, "--branch", "moved"}), 5, "moved");
  EXPECT_FAILS_UNCHANGED(Vexfs({"agent", "export", "-o", Local("x.usxf"), "--kv", "nofile"}), 4, "--kv");
}

}  // namespace
}  // namespace vexfs::cli_test
