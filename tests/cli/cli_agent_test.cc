// `vexfs agent export|import|inspect` through the real binary: a signed bundle
// moves a snapshot and its graph to another store with the same commit id, and
// each refusal (untrusted, damaged, incremental without its base, a branch
// held elsewhere) exits with its documented code and leaves the target as it was.
#include <unistd.h>

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

// A bundle sent over TCP to `kv serve --import`: verified as it arrives
// (against serve's keyring), imported on arrival; an unsigned one is refused
// back to its sender and the target is left as it was.
TEST_F(CliAgentTest, SentBundlesAreVerifiedThenImportedOnArrival) {
  VexfsOk({"agent", "export", "-o", Local("signed.usxf"), "--sign", Local("agent.key")});
  VexfsOk({"agent", "export", "-o", Local("unsigned.usxf")});
  const std::string commit = VexfsJson({"log", "s1"})[0]["id"];
  PutText("/notes/plan.md", "plan B");
  VexfsOk({"snapshot", "create", "s2"});
  VexfsOk({"agent", "export", "s2", "-o", Local("step.usxf"), "--since", "s1", "--sign", Local("agent.key")});
  Process serve;
  std::string error;
  ASSERT_TRUE(serve.Start({VexfsBinary(), "--store", target_, "kv", "serve", "--listen", "127.0.0.1:0", "--keyring",
                           Local("keyring"), "--spool", Local("spool"), "--port-file", Local("port"),
                           "--max-streams", "3", "--import", "--import-branch", "moved"},
                          {}, &error))
      << error;
  std::string port;
  for (int i = 0; i < 500 && port.empty(); ++i) {
    port = ReadLocalFile(Local("port"));
    if (port.empty()) usleep(10000);
  }
  ASSERT_FALSE(port.empty()) << "kv serve did not start";
  const std::string to = "127.0.0.1:" + port.substr(0, port.find('\n'));
  EXPECT_TRUE(FailedWith(Vexfs({"agent", "send", Local("unsigned.usxf"), to}), 10, {"not signed"}));
  // Verified, but the import refuses it: the refusal reaches the sender.
  EXPECT_TRUE(FailedWith(Vexfs({"agent", "send", Local("step.usxf"), to}), 3, {"lacks"}));
  json sent = VexfsJson({"agent", "send", Local("signed.usxf"), to});
  EXPECT_TRUE(sent["ok"].get<bool>());
  ProcessResult served = serve.Finish();
  EXPECT_EQ(served.exit_code, 0) << served;
  EXPECT_NE(served.out.find("imported"), std::string::npos) << served;
  set_store(target_);
  EXPECT_EQ(VexfsJson({"log", "s1"})[0]["id"], commit);
  EXPECT_EQ(VexfsOk({"cat", "/notes/plan.md", "--branch", "moved"}), "plan A: sail at dawn");
  ExpectFsckClean();
  EXPECT_TRUE(FailedWith(Vexfs({"agent", "send", Local("keyring/agent.pub"), to}), 6));
}

// The whole move: a prompt's KV cache captured, the turn it covers and two
// pending actions in the graph, exported, imported elsewhere and resumed there
// without reading the prompt again.
TEST_F(CliAgentTest, ResumeContinuesFromTheCarriedCacheAndListsActions) {
  WriteLocalFile(Local("prompt.txt"), "The keeper of the lighthouse wrote down the ships that passed, the "
                                      "weather and the hours the lamp burned through the night.");
  json c = VexfsJson({"kv", "capture", "--model", TinyModel(7), "--prompt-file", Local("prompt.txt"), "--threads",
                      "1", "--sign-key", Local("agent.key"), "-o", Local("ctx.usxf")});
  const std::string tokens = std::to_string(c["tokens"].get<int>());
  VexfsOk({"graph", "add", "--kind", "turn", "--text", "the keeper's log", "--span", "ctx:0:" + tokens + ":" + tokens});
  VexfsOk({"graph", "add", "--kind", "pending_action", "--text", "ring the bell", "--key", "bell"});
  VexfsOk({"graph", "add", "--kind", "pending_action", "--text", "light the lamp", "--key", "lamp"});
  VexfsOk({"graph", "action", "key:lamp", "done"});
  VexfsOk({"snapshot", "create", "s2"});
  VexfsOk({"agent", "export", "-o", Local("a.usxf"), "--kv", "ctx=" + Local("ctx.usxf"), "--sign", Local("agent.key")});

  set_store(target_);
  VexfsOk({"agent", "import", Local("a.usxf"), "--keyring", Local("keyring"), "--branch", "moved"});
  json r = VexfsJson({"agent", "resume", "--branch", "moved", "--model", TinyModel(7), "--generate", "16",
                      "--keyring", Local("keyring"), "--threads", "1"});
  json expected = c["reference_tokens"];
  expected.erase(expected.begin() + 16, expected.end());
  EXPECT_EQ(r["generated"], expected) << "the target must continue as the source did";
  EXPECT_TRUE(r["matches_source"].get<bool>());
  EXPECT_EQ(r["restored_tokens"], c["tokens"]);
  ASSERT_EQ(r["point"]["completed_actions"].size(), 1u);
  EXPECT_EQ(r["point"]["completed_actions"][0]["key"], "lamp");
  ASSERT_EQ(r["point"]["open_actions"].size(), 1u);
  EXPECT_EQ(r["point"]["open_actions"][0]["key"], "bell");

  // A cache for a model the target does not have is refused, naming why.
  ProcessResult other = Vexfs({"agent", "resume", "--branch", "moved", "--model", TinyModel(8), "--keyring",
                               Local("keyring"), "--threads", "1"});
  EXPECT_TRUE(FailedWith(other, 4, {"fingerprint"}));
  // Without the state, the agent is told to read the prompt again.
  std::filesystem::remove_all(target_ + "/kv");
  EXPECT_TRUE(FailedWith(Vexfs({"agent", "resume", "--branch", "moved", "--model", TinyModel(7)}), 3, {"read the prompt again"}));
}

}  // namespace
}  // namespace vexfs::cli_test
