// `vexfs kv`: model-init, capture, restore and verify through the real binary,
// each step in its own process, as an agent moving between machines would run
// them. Refusals use the documented exit codes and name what is wrong.
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

constexpr int kFailure = 1;
constexpr int kInvalid = 4;
constexpr int kCorrupt = 6;
constexpr int kUntrusted = 10;

class CliKvTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    WriteLocalFile(Local("prompt.txt"),
                   "The ship left the harbour at dawn with a cargo of timber, salt and letters. "
                   "Its captain kept a careful log of the weather, the stars and the depth of the "
                   "water, because the charts of the northern coast were old and often wrong.");
  }

  std::string Model(int seed) { return TinyModel(seed); }

  json Capture(const std::string& out, const Args& extra = {}) {
    Args args = {"kv", "capture", "--model", Model(7), "--prompt-file", Local("prompt.txt"), "--threads", "1", "-o", out};
    args.insert(args.end(), extra.begin(), extra.end());
    return VexfsJson(args);
  }
};

TEST_F(CliKvTest, CaptureThenRestoreInAnotherProcessContinuesExactly) {
  json c = Capture(Local("state.usxf"));
  EXPECT_GT(c["tokens"].get<int>(), 30);
  EXPECT_EQ(c["cache_type"], "f16");
  ASSERT_EQ(c["reference_tokens"].size(), 64u);
  json r = VexfsJson({"kv", "restore", "--model", Model(7), Local("state.usxf"), "--generate", "64", "--threads", "1"});
  EXPECT_EQ(r["generated"], c["reference_tokens"]) << "the restored process must continue as the source did";
  EXPECT_EQ(r["restored_tokens"], c["tokens"]);
  json inspect = VexfsJson({"usxf", "inspect", Local("state.usxf")});
  EXPECT_EQ(inspect["sections"][0]["kind"], "kv_cache");
  EXPECT_EQ(inspect["sections"][0]["kv"]["n_tokens"], c["tokens"]);
}

TEST_F(CliKvTest, VerifyInAFreshProcessIsExact) {
  Capture(Local("state.usxf"));
  json v = VexfsJson({"kv", "verify", "--model", Model(7), Local("state.usxf"), "--threads", "1"});
  EXPECT_EQ(v["verdict"], "exact");
  EXPECT_EQ(v["passed"], true);
  EXPECT_EQ(v["vs_source"]["logits_bit_exact_steps"], 64);
  EXPECT_EQ(v["vs_reprefill"]["logits_bit_exact_steps"], 64);
  EXPECT_EQ(v["control"]["changed"], true);
  std::string text = VexfsOk({"kv", "verify", "--model", Model(7), Local("state.usxf"), "--threads", "1"});
  EXPECT_NE(text.find("verdict: exact"), std::string::npos) << text;
}

TEST_F(CliKvTest, CrossConfigurationVerifyReportsTheTarget) {
  Capture(Local("state.usxf"), {"--k-type", "f32", "--v-type", "f32", "--flash-attn", "off"});
  json v = VexfsJson({"kv", "verify", "--model", Model(7), Local("state.usxf"), "--threads", "1", "--k-type", "f16",
                      "--v-type", "f16", "--horizon", "16"});
  EXPECT_EQ(v["tensors"]["readback_equals_loaded"], true);
  EXPECT_EQ(v["tensors"]["same_type_as_source"], false);
  EXPECT_GT(v["tensors"]["max_abs_diff_vs_source"].get<double>(), 0.0);
  EXPECT_EQ(v["target_settings"], "k=f16 v=f16 fa=on seqs=1 unified=no seq=0");
}

TEST_F(CliKvTest, WrongModelIsRefusedWithTheReason) {
  Capture(Local("state.usxf"));
  ProcessResult r = Vexfs({"kv", "restore", "--model", Model(8), Local("state.usxf"), "--threads", "1"});
  EXPECT_TRUE(FailedWith(r, kInvalid, {"weights fingerprint", "another model"}));
}

TEST_F(CliKvTest, DamagedStateIsRefused) {
  Capture(Local("state.usxf"));
  std::string bytes = ReadLocalFile(Local("state.usxf"));
  bytes[4096 + 10] ^= 0x40;
  WriteLocalFile(Local("bad.usxf"), bytes);
  ProcessResult r = Vexfs({"kv", "restore", "--model", Model(7), Local("bad.usxf")});
  EXPECT_TRUE(FailedWith(r, kCorrupt, {"bad.usxf", "kv"}));
  r = Vexfs({"kv", "verify", "--model", Model(7), Local("bad.usxf")});
  EXPECT_TRUE(FailedWith(r, kCorrupt, {"bad.usxf"}));
}

TEST_F(CliKvTest, UntrustedSignerIsRefused) {
  VexfsOk({"usxf", "keygen", "-o", Local("alice.key")});
  VexfsOk({"usxf", "keygen", "-o", Local("mallory.key")});
  ASSERT_EQ(::mkdir(Local("trusted").c_str(), 0755), 0);
  WriteLocalFile(Local("trusted/alice.pub"), ReadLocalFile(Local("alice.key.pub")));
  Capture(Local("alice.usxf"), {"--sign-key", Local("alice.key")});
  Capture(Local("mallory.usxf"), {"--sign-key", Local("mallory.key")});
  VexfsOk({"kv", "restore", "--model", Model(7), Local("alice.usxf"), "--keyring", Local("trusted"),
           "--generate", "4", "--threads", "1"});
  ProcessResult r = Vexfs({"kv", "restore", "--model", Model(7), Local("mallory.usxf"), "--keyring", Local("trusted")});
  EXPECT_TRUE(FailedWith(r, kUntrusted, {"mallory.usxf"}));
}

TEST_F(CliKvTest, BadSettingsAndPromptsAreUsageErrors) {
  ProcessResult r = Vexfs({"kv", "capture", "--model", Model(7), "--prompt", "hi", "--v-type", "q8_0",
                           "--flash-attn", "off", "-o", Local("x.usxf")});
  EXPECT_TRUE(FailedWith(r, kInvalid, {"q8_0 V cache needs flash attention"}));
  r = Vexfs({"kv", "capture", "--model", Model(7), "--prompt", "hi", "--k-type", "q4", "-o", Local("x.usxf")});
  EXPECT_TRUE(FailedWith(r, kInvalid, {"cache type 'q4'"}));
  r = Vexfs({"kv", "capture", "--model", Model(7), "--prompt", "hi", "--tokens", "500", "-o", Local("x.usxf")});
  EXPECT_TRUE(FailedWith(r, kInvalid, {"--tokens asked for 500"}));
  r = Vexfs({"kv", "capture", "--model", Local("missing.gguf"), "--prompt", "hi", "-o", Local("x.usxf")});
  EXPECT_TRUE(FailedWith(r, 3, {"missing.gguf"}));
  WriteLocalFile(Local("junk.gguf"), "not a model");
  r = Vexfs({"kv", "capture", "--model", Local("junk.gguf"), "--prompt", "hi", "-o", Local("x.usxf")});
  EXPECT_TRUE(FailedWith(r, kCorrupt, {"junk.gguf"}));
  r = Vexfs({"kv", "model-init", "--shape", "2,3,2,64,128", "-o", Local("m.gguf")});
  EXPECT_TRUE(FailedWith(r, kInvalid, {"multiple of KV heads"}));
  (void)kFailure;
}

}  // namespace
}  // namespace vexfs::cli_test
