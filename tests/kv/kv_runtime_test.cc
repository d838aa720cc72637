// Capture, restore and the causal check against llama.cpp itself, with tiny
// random-weight Qwen2 models: same-configuration restores are bit-exact, the
// refusals name what is wrong, and a corrupted cache fails verification.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <chrono>

#include <fcntl.h>
#include <sys/stat.h>

#include <set>

#include "common/file_util.h"
#include "kv/kv_test_util.h"
#include "test_util.h"
#include "vexfs/kv/capture.h"
#include "vexfs/kv/model_fingerprint.h"
#include "vexfs/kv/restore.h"
#include "vexfs/kv/validate.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::kv {
namespace {

using test::PromptText;
using test::TestSettings;
using test::TinyModelPath;

class KvRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = TinyModelPath(7);
    ASSERT_FALSE(path.empty()) << "could not build the tiny model";
    auto m = Model::Load(path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    model_ = std::move(*m);
    auto t = model_->Tokenize(PromptText());
    ASSERT_TRUE(t.ok());
    tokens_ = *t;
    ASSERT_GT(tokens_.size(), 100u);
  }

  // Captures the prompt with `s` into a file and reads it back verified.
  StateBundle CaptureToFile(const RuntimeSettings& s, const std::string& name,
                            const usxf::SigningKey* signer = nullptr) {
    CaptureOptions o;
    o.tokens = tokens_;
    o.settings = s;
    o.output_path = dir_.Sub(name);
    o.signer = signer;
    auto r = Capture(*model_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    auto b = ReadStateFile(o.output_path, nullptr);
    EXPECT_TRUE(b.ok() || signer != nullptr) << b.status().ToString();
    return b.ok() ? std::move(*b) : StateBundle();
  }

  vexfs::test::TempDir dir_;
  std::unique_ptr<Model> model_;
  std::vector<int32_t> tokens_;
};

TEST_F(KvRuntimeTest, SameConfigurationRestoreIsBitExactOver64Tokens) {
  const RuntimeSettings s = TestSettings();
  // The source: prefill and continue, as an agent that never moved would.
  ASSIGN_OR_FAIL(auto source, ModelContext::Create(*model_, s, tokens_.size() + 65));
  ASSERT_OK(source->Prefill(tokens_));
  ASSIGN_OR_FAIL(StateBundle bundle, CaptureBundle(*model_, *source, tokens_, 16));
  ASSIGN_OR_FAIL(Continuation want, source->Greedy(64));
  source.reset();

  ASSIGN_OR_FAIL(auto target, RestoreBundle(*model_, bundle, s, 64, nullptr));
  ASSIGN_OR_FAIL(Continuation got, target->Greedy(64));
  EXPECT_EQ(got.tokens, want.tokens);
  for (size_t i = 0; i < 64; ++i) {
    ASSERT_EQ(got.logits[i].size(), want.logits[i].size());
    EXPECT_EQ(std::memcmp(got.logits[i].data(), want.logits[i].data(), got.logits[i].size() * 4), 0)
        << "logits differ at step " << i;
  }
  // Random weights at this scale make varied text, not one token repeated.
  std::set<int32_t> distinct(want.tokens.begin(), want.tokens.end());
  EXPECT_GT(distinct.size(), 16u);
}

TEST_F(KvRuntimeTest, StateFileCarriesIdentityTokensAndReference) {
  StateBundle b = CaptureToFile(TestSettings(), "s.usxf");
  EXPECT_EQ(b.info.arch, "qwen2");
  EXPECT_EQ(b.info.token_ids, tokens_);
  EXPECT_TRUE(b.info.positions_contiguous);
  EXPECT_EQ(b.info.position_start, 0);
  EXPECT_EQ(b.info.n_layers, 2u);
  EXPECT_EQ(b.info.n_kv_heads, std::vector<uint32_t>(2, 2));
  EXPECT_EQ(b.info.attention, usxf::AttentionKind::kGQA);
  EXPECT_EQ(b.info.rope, usxf::RopeType::kNeox);
  EXPECT_EQ(b.info.weights_fingerprint, model_->fingerprints().weights);
  EXPECT_EQ(b.kv.type, CacheType::kF16);
  EXPECT_EQ(b.next_logits.size(), model_->shape().n_vocab);
  ASSERT_TRUE(b.reference.has_value());
  EXPECT_EQ(b.reference->steps.size(), 64u);
}

TEST_F(KvRuntimeTest, VerifyReportsExactForTheSameConfiguration) {
  StateBundle b = CaptureToFile(TestSettings(), "s.usxf");
  ValidateOptions o;
  o.target = TestSettings();
  ASSIGN_OR_FAIL(ValidationReport r, Validate(*model_, b, o));
  EXPECT_EQ(r.verdict, "exact");
  EXPECT_TRUE(r.tensors.readback_equals_loaded);
  EXPECT_TRUE(r.tensors.bit_exact_vs_source);
  EXPECT_EQ(r.tensors.max_abs_diff_vs_source, 0.0);
  EXPECT_EQ(r.probes.exact, r.probes.count);
  EXPECT_TRUE(r.next_logits_equal_reprefill);
  EXPECT_TRUE(r.vs_reprefill.tokens_equal);
  EXPECT_EQ(r.vs_reprefill.logits_bit_exact, 64u);
  EXPECT_TRUE(r.vs_source.tokens_equal);
  EXPECT_EQ(r.vs_source.logits_bit_exact, 64u);
  EXPECT_TRUE(r.control.changed);
  EXPECT_GT(r.control.max_abs_logit_diff, 0.1);
}

TEST_F(KvRuntimeTest, CorruptedKvFailsVerification) {
  StateBundle b = CaptureToFile(TestSettings(), "s.usxf");
  // A well-formed file whose cache is not the prompt's: every K value of layer 1
  // negated (f16 sign bit). Digests cannot catch this; the causal check must.
  const BlobShape shape = model_->shape().blob();
  for (uint64_t i = b.kv.KOffset(shape, 1); i < b.kv.VOffset(shape, 1); i += 2) b.kv.data[i + 1] ^= char(0x80);
  ValidateOptions o;
  o.target = TestSettings();
  ASSIGN_OR_FAIL(ValidationReport r, Validate(*model_, b, o));
  EXPECT_FALSE(r.passed()) << r.verdict;
  EXPECT_EQ(r.verdict, "diverged");
  EXPECT_FALSE(r.vs_reprefill.tokens_equal);
  EXPECT_FALSE(r.tensors.bit_exact_vs_source == false && r.vs_source.tokens_equal);
}

TEST_F(KvRuntimeTest, AnotherModelIsRefusedBeforeLoading) {
  StateBundle b = CaptureToFile(TestSettings(), "s.usxf");
  ASSIGN_OR_FAIL(auto other, Model::Load(TinyModelPath(8)));
  Status s = CheckIdentity(b.info, *other);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("weights fingerprint"), std::string::npos) << s.ToString();
  EXPECT_EQ(s.message().find("tokenizer"), std::string::npos) << s.ToString();
  EXPECT_CODE(RestoreBundle(*other, b, TestSettings(), 8, nullptr), StatusCode::kInvalidArgument);
}

TEST_F(KvRuntimeTest, AnotherTokenizerIsRefused) {
  StateBundle b = CaptureToFile(TestSettings(), "s.usxf");
  const std::string variant = TinyModelPath(7, 1);
  ASSERT_FALSE(variant.empty());
  ASSIGN_OR_FAIL(auto other, Model::Load(variant));
  EXPECT_EQ(other->fingerprints().weights, model_->fingerprints().weights) << "same seed, same weights";
  Status s = CheckIdentity(b.info, *other);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("tokenizer fingerprint"), std::string::npos) << s.ToString();
  EXPECT_EQ(s.message().find("weights"), std::string::npos) << s.ToString();
}

// The weights fingerprint is remembered by the file's identity on disk and
// read back from there, and a write to the file (which moves its change time,
// even when its modification time is put back) is never answered from what
// was remembered.
TEST_F(KvRuntimeTest, RememberedWeightsFingerprintFollowsTheFile) {
  const std::string cache = dir_.Sub("cache");
  ASSERT_EQ(::setenv("VEXFS_CACHE_DIR", cache.c_str(), 1), 0);
  struct Unset {
    ~Unset() { ::unsetenv("VEXFS_CACHE_DIR"); }
  } unset;
  const std::string copy = dir_.Sub("m.gguf");
  std::filesystem::copy_file(TinyModelPath(7), copy);
  // A file changed in the last two seconds is not remembered (a second write
  // in the same timestamp tick could go unseen).
  ASSIGN_OR_FAIL(ModelFingerprints fresh, FingerprintGguf(copy));
  EXPECT_FALSE(std::filesystem::exists(cache + "/gguf-weights"));
  std::this_thread::sleep_for(std::chrono::milliseconds(2600));
  ASSIGN_OR_FAIL(ModelFingerprints first, FingerprintGguf(copy));
  EXPECT_EQ(first.weights, fresh.weights);
  EXPECT_EQ(first.weights, model_->fingerprints().weights);
  std::vector<std::filesystem::path> entries;
  for (const auto& e : std::filesystem::directory_iterator(cache + "/gguf-weights")) entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 1u);
  // What is remembered is what is read: a planted digest comes back.
  const std::string planted(64, 'a');
  ASSERT_OK(WriteFileAtomically(entries[0].string(), planted + "\n"));
  ::chmod(entries[0].c_str(), 0600);
  ASSIGN_OR_FAIL(ModelFingerprints remembered, FingerprintGguf(copy));
  EXPECT_EQ(usxf::HexOf(remembered.weights), planted);
  // The last byte belongs to the last tensor's data: change it in place and
  // put the modification time back; the change time still moves.
  struct stat before;
  ASSERT_EQ(::stat(copy.c_str(), &before), 0);
  ASSIGN_OR_FAIL(std::string bytes, ReadWholeFile(copy));
  {
    std::fstream out(copy, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(static_cast<std::streamoff>(bytes.size() - 1));
    out.put(static_cast<char>(bytes.back() ^ 0x40));
  }
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, copy.c_str(), times, 0), 0);
  ASSIGN_OR_FAIL(ModelFingerprints changed, FingerprintGguf(copy));
  EXPECT_NE(changed.weights, first.weights);
  EXPECT_NE(usxf::HexOf(changed.weights), planted);
}

TEST_F(KvRuntimeTest, DamagedOrTruncatedFilesAreRefused) {
  CaptureToFile(TestSettings(), "s.usxf");
  ASSIGN_OR_FAIL(std::string bytes, ReadWholeFile(dir_.Sub("s.usxf")));
  std::string flipped = bytes;
  flipped[8192 + 100] ^= 0x01;  // inside the kv section
  ASSERT_OK(WriteFileAtomically(dir_.Sub("flipped.usxf"), flipped));
  auto r = ReadStateFile(dir_.Sub("flipped.usxf"), nullptr);
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
  EXPECT_NE(r.status().message().find("'kv"), std::string::npos) << r.status().ToString();
  for (size_t cut : {size_t{0}, size_t{79}, bytes.size() / 2, bytes.size() - 1}) {
    ASSERT_OK(WriteFileAtomically(dir_.Sub("cut.usxf"), bytes.substr(0, cut)));
    auto c = ReadStateFile(dir_.Sub("cut.usxf"), nullptr);
    EXPECT_FALSE(c.ok()) << "a file cut to " << cut << " bytes was accepted";
  }
}

TEST_F(KvRuntimeTest, SignaturesAreCheckedAgainstTheKeyring) {
  ASSIGN_OR_FAIL(usxf::SigningKey alice, usxf::SigningKey::Generate());
  ASSIGN_OR_FAIL(usxf::SigningKey mallory, usxf::SigningKey::Generate());
  ASSERT_EQ(::mkdir(dir_.Sub("trusted").c_str(), 0755), 0);
  ASSERT_OK(usxf::SavePublicKey(dir_.Sub("trusted/alice.pub"), alice.public_key));
  ASSIGN_OR_FAIL(usxf::Keyring keyring, usxf::Keyring::Load(dir_.Sub("trusted")));
  CaptureToFile(TestSettings(), "alice.usxf", &alice);
  CaptureToFile(TestSettings(), "mallory.usxf", &mallory);
  CaptureToFile(TestSettings(), "unsigned.usxf");
  EXPECT_OK(ReadStateFile(dir_.Sub("alice.usxf"), &keyring));
  EXPECT_CODE(ReadStateFile(dir_.Sub("mallory.usxf"), &keyring), StatusCode::kPermissionDenied);
  EXPECT_CODE(ReadStateFile(dir_.Sub("unsigned.usxf"), &keyring), StatusCode::kPermissionDenied);
}

TEST_F(KvRuntimeTest, CaptureFromAnySequenceOfAMultiSequenceContext) {
  RuntimeSettings s = TestSettings();
  s.n_seq_max = 3;
  s.seq_id = 2;
  StateBundle b = CaptureToFile(s, "s.usxf");
  ValidateOptions o;
  o.target = TestSettings();
  o.horizon = 16;
  ASSIGN_OR_FAIL(ValidationReport r, Validate(*model_, b, o));
  EXPECT_TRUE(r.passed()) << r.verdict;
  EXPECT_TRUE(r.tensors.bit_exact_vs_source);
}

}  // namespace
}  // namespace vexfs::kv
