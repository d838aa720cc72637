// `vexfs usxf`: keygen, pack, sign, inspect, verify and extract through the real
// binary. Exit codes and messages are what scripts rely on; trust comes from the
// keyring given to verify, never from the file.
#include <sys/stat.h>

#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

constexpr int kCorrupt = 6;
constexpr int kInvalid = 4;
constexpr int kConflict = 5;
constexpr int kUntrusted = 10;

class CliUsxfTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    WriteLocalFile(Local("notes.txt"), "what I learned about retries\n");
    WriteLocalFile(Local("plan.md"), std::string(5000, 'p'));
    ASSERT_EQ(::mkdir(Local("trusted").c_str(), 0755), 0);
    VexfsOk({"usxf", "keygen", "-o", Local("alice.key")});
    VexfsOk({"usxf", "keygen", "-o", Local("mallory.key")});
    WriteLocalFile(Local("trusted/alice.pub"), ReadLocalFile(Local("alice.key.pub")));
  }

  std::string Pack(const std::string& name, const Args& extra = {}) {
    Args args = {"usxf", "pack", "notes=" + Local("notes.txt"), "plan=" + Local("plan.md"), "-o", Local(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    VexfsOk(args);
    return Local(name);
  }
};

TEST_F(CliUsxfTest, SignedByATrustedKeyVerifies) {
  std::string file = Pack("state.usxf", {"--key", Local("alice.key")});
  std::string out = VexfsOk({"usxf", "verify", file, "--keyring", Local("trusted")});
  EXPECT_NE(out.find("ok"), std::string::npos);
  EXPECT_NE(out.find("alice.pub"), std::string::npos) << out;
  json j = VexfsJson({"usxf", "verify", file, "--keyring", Local("trusted")});
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["signatures"][0]["trusted"], true);
  EXPECT_EQ(j["signatures"][0]["valid"], true);
  EXPECT_EQ(j["file"]["sections"].size(), 2u);
}

TEST_F(CliUsxfTest, InspectShowsSectionsAndClaimedSigners) {
  std::string file = Pack("state.usxf", {"--key", Local("mallory.key"), "--zstd"});
  json j = VexfsJson({"usxf", "inspect", file});
  ASSERT_EQ(j["sections"].size(), 2u);
  EXPECT_EQ(j["sections"][0]["name"], "notes");
  EXPECT_EQ(j["sections"][0]["kind"], "blob");
  EXPECT_EQ(j["sections"][1]["compression"], "zstd");
  EXPECT_LT(j["sections"][1]["stored_bytes"].get<uint64_t>(), 5000u);
  EXPECT_EQ(j["sealed"], true);
  ASSERT_EQ(j["signed_by"].size(), 1u);
  std::string text = VexfsOk({"usxf", "inspect", file});
  EXPECT_NE(text.find("claimed"), std::string::npos) << text;
}

TEST_F(CliUsxfTest, UntrustedMissingOrUncheckableSignaturesFail) {
  std::string by_mallory = Pack("m.usxf", {"--key", Local("mallory.key")});
  EXPECT_TRUE(FailedWith(Vexfs({"usxf", "verify", by_mallory, "--keyring", Local("trusted")}), kUntrusted,
                         {"outside the keyring"}));
  std::string unsigned_file = Pack("u.usxf");
  EXPECT_TRUE(FailedWith(Vexfs({"usxf", "verify", unsigned_file, "--keyring", Local("trusted")}), kUntrusted,
                         {"not signed"}));
  VexfsOk({"usxf", "verify", unsigned_file});  // digests only, nobody vouches
  EXPECT_TRUE(FailedWith(Vexfs({"usxf", "verify", by_mallory}), kUntrusted, {"no keyring"}));
  // $VEXFS_KEYRING stands in for --keyring.
  ProcessOptions env;
  env.env["VEXFS_KEYRING"] = Local("trusted");
  EXPECT_EQ(VexfsRaw({"usxf", "verify", by_mallory}, env).exit_code, kUntrusted);
}

TEST_F(CliUsxfTest, SignAddsATrustedSignatureAndRefusesTwice) {
  std::string file = Pack("s.usxf", {"--no-seal"});
  VexfsOk({"usxf", "verify", file, "--fast"});
  EXPECT_TRUE(FailedWith(Vexfs({"usxf", "verify", file}), kInvalid, {"not sealed"}));
  VexfsOk({"usxf", "sign", file, "--key", Local("alice.key")});
  VexfsOk({"usxf", "verify", file, "--keyring", Local("trusted")});
  EXPECT_TRUE(FailedWith(Vexfs({"usxf", "sign", file, "--key", Local("alice.key")}), kConflict, {"already signed"}));
  EXPECT_TRUE(FailedWith(Vexfs({"usxf", "sign", file, "--key", Local("notes.txt")}), kInvalid, {"not a PEM"}));
}

TEST_F(CliUsxfTest, DamageIsNamedAndExitsWithCorruption) {
  std::string file = Pack("d.usxf", {"--key", Local("alice.key")});
  json j = VexfsJson({"usxf", "inspect", file});
  const uint64_t at = j["sections"][1]["offset"].get<uint64_t>() + 100;
  std::string bytes = ReadLocalFile(file);
  bytes[at] ^= 0x10;
  WriteLocalFile(file, bytes);
  ProcessResult r = Vexfs({"usxf", "verify", file, "--keyring", Local("trusted")});
  EXPECT_TRUE(FailedWith(r, kCorrupt, {"section 1 'plan'", "checksum mismatch"}));
  r = Vexfs({"usxf", "verify", file, "--json"});
  EXPECT_EQ(r.exit_code, kCorrupt);
  EXPECT_EQ(json::parse(r.out)["ok"], false);
  EXPECT_NE(r.err.find("section 1 'plan'"), std::string::npos);
  // A truncated file is refused by inspect too.
  WriteLocalFile(file, bytes.substr(0, bytes.size() - 30));
  EXPECT_TRUE(FailedWith(Vexfs({"usxf", "inspect", file}), kCorrupt, {"footer"}));
}

TEST_F(CliUsxfTest, ExtractWritesTheSectionBack) {
  std::string file = Pack("e.usxf", {"--zstd"});
  VexfsOk({"usxf", "extract", file, "plan", "-o", Local("plan.out")});
  EXPECT_EQ(ReadLocalFile(Local("plan.out")), std::string(5000, 'p'));
  EXPECT_TRUE(FailedWith(Vexfs({"usxf", "extract", file, "nope", "-o", Local("x")}), 3, {"nope"}));
}

TEST_F(CliUsxfTest, KeygenRefusesToOverwriteAKey) {
  EXPECT_TRUE(FailedWith(Vexfs({"usxf", "keygen", "-o", Local("alice.key")}), kConflict, {"already exists"}));
  struct stat st;
  ASSERT_EQ(::stat(Local("alice.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

}  // namespace
}  // namespace vexfs::cli_test
