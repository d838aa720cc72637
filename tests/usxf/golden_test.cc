// Golden USXF files: small files committed under tests/usxf/golden/ with their
// expected digests (expected.json). A change to the writer or the readers that
// breaks compatibility with files already written fails here. With
// VEXFS_UPDATE_GOLDEN=1 the test rewrites the files and expected.json instead
// (only for a deliberate format change, with a version bump).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "common/sha256.h"
#include "test_util.h"
#include "usxf/usxf_test_util.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"
#include "vexfs/usxf_quant.h"

namespace vexfs::usxf {
namespace {

const std::string kGoldenDir = VEXFS_GOLDEN_DIR;

// The committed test key: seed bytes 0, 1, ..., 31 (never use it for anything else).
SigningKey TestKey() {
  std::array<uint8_t, 32> seed;
  for (int i = 0; i < 32; ++i) seed[i] = static_cast<uint8_t>(i);
  auto key = SigningKey::FromSeed(seed);
  EXPECT_TRUE(key.ok());
  return *key;
}

struct Golden {
  std::string name;
  std::vector<SectionData> sections;
  Metadata meta;
  WriterOptions options;
  bool sign = false;
};

// Section values must outlive the files built from them.
struct Values {
  std::string text = "hello, usxf\n";
  std::string f32 = test::Pack(std::vector<float>{0.0f, 1.0f, -2.5f, 3.25f, 1000.0f, -0.125f});
  std::string u8 = std::string("\x00\x01\x7f\x80\xfe\xff", 6);
  std::string kv_f16;
  KvCacheInfo kv = test::SmallKv(2, 5);
  Values() {
    std::vector<uint16_t> h(kv.ElementCount());
    for (size_t i = 0; i < h.size(); ++i) h[i] = F32ToF16(static_cast<float>(i % 13) * 0.25f - 1.0f);
    kv_f16 = test::Pack(h);
  }
};

std::vector<Golden> GoldenFiles(const Values& v) {
  std::vector<Golden> out;
  Golden blob{"blob.usxf", {SectionData{{}, v.text}}, {}, {}, false};
  blob.sections[0].info.name = "greeting";
  blob.meta.SetString(1, "golden blob");
  blob.options.alignment = 64;
  out.push_back(blob);

  Golden tensors{"tensors.usxf", {}, {}, {}, false};
  tensors.options.alignment = 128;
  tensors.sections = {test::TensorSection("f32", v.f32, DType::kF32, {2, 3}),
                      test::TensorSection("as_f16", v.f32, DType::kF32, {2, 3}, Encoding::kF16),
                      test::TensorSection("as_bf16", v.f32, DType::kF32, {6}, Encoding::kBF16),
                      test::TensorSection("as_int8", v.f32, DType::kF32, {6}, Encoding::kInt8Group, 4,
                             Compression::kZstd),
                      test::TensorSection("bytes", v.u8, DType::kU8, {6})};
  out.push_back(tensors);

  Golden kv{"kv_signed.usxf", {SectionData{KvSection("kv", v.kv, DType::kF16), v.kv_f16}}, {}, {}, true};
  kv.options.alignment = 64;
  kv.meta.SetString(1, "golden kv cache");
  kv.meta.SetU64(2, 42);
  out.push_back(kv);

  Golden unsealed{"unsealed.usxf", {SectionData{{}, v.text}}, {}, {}, false};
  unsealed.sections[0].info.name = "greeting";
  unsealed.options.alignment = 64;
  unsealed.options.seal = false;
  out.push_back(unsealed);
  return out;
}

std::string Build(const Golden& g) {
  SigningKey key = TestKey();
  std::vector<const SigningKey*> signers;
  if (g.sign) signers.push_back(&key);
  StringSink sink;
  EXPECT_OK(WriteFile(&sink, g.sections, g.meta, g.options, signers));
  return sink.out;
}

std::string FileSha256(std::string_view bytes) { return HexOf(Sha256Of(bytes).bytes.data(), 32); }

nlohmann::json Describe(const std::string& bytes) {
  auto m = MappedFile::FromBytes(bytes);
  EXPECT_TRUE(m.ok());
  const FileSummary& s = (*m)->summary();
  nlohmann::json sections = nlohmann::json::array();
  for (size_t i = 0; i < s.sections.size(); ++i) {
    std::string storage;
    auto values = (*m)->Values(i, &storage);
    EXPECT_TRUE(values.ok());
    sections.push_back({{"name", s.sections[i].name},
                        {"kind", SectionKindName(s.sections[i].kind)},
                        {"dtype", DTypeName(s.sections[i].dtype)},
                        {"encoding", EncodingName(s.sections[i].encoding)},
                        {"compression", CompressionName(s.sections[i].compression)},
                        {"shape", s.sections[i].shape},
                        {"offset", s.sections[i].offset},
                        {"stored_bytes", s.sections[i].stored_length},
                        {"values_sha256", FileSha256(values.ok() ? *values : "")}});
  }
  nlohmann::json j = {{"file_sha256", FileSha256(bytes)}, {"sealed", s.sealed}, {"sections", sections},
                      {"signatures", s.signatures.size()}};
  if (s.sealed) j["root"] = HexOf(s.root);
  return j;
}

TEST(UsxfGoldenTest, CommittedFilesReadVerifyAndMatchTheirDigests) {
  Values values;
  const std::vector<Golden> golden = GoldenFiles(values);
  if (std::getenv("VEXFS_UPDATE_GOLDEN") != nullptr) {
    nlohmann::json expected;
    for (const Golden& g : golden) {
      const std::string bytes = Build(g);
      ASSERT_OK(WriteFileAtomically(kGoldenDir + "/" + g.name, bytes));
      expected[g.name] = Describe(bytes);
    }
    ASSERT_OK(WriteFileAtomically(kGoldenDir + "/expected.json", expected.dump(2) + "\n"));
    ::unlink((kGoldenDir + "/keyring/test.pub").c_str());
    ASSERT_OK(SavePublicKey(kGoldenDir + "/keyring/test.pub", TestKey().public_key));
    GTEST_SKIP() << "golden files rewritten";
  }
  auto expected_text = ReadWholeFile(kGoldenDir + "/expected.json");
  ASSERT_TRUE(expected_text.ok()) << expected_text.status().ToString();
  const nlohmann::json expected = nlohmann::json::parse(*expected_text);
  auto keyring = Keyring::Load(kGoldenDir + "/keyring");
  ASSERT_TRUE(keyring.ok());
  for (const Golden& g : golden) {
    SCOPED_TRACE(g.name);
    const std::string path = kGoldenDir + "/" + g.name;
    auto committed = ReadWholeFile(path);
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    // Today's readers read yesterday's files, with the recorded digests...
    EXPECT_EQ(Describe(*committed), expected.at(g.name));
    VerifyOptions options;
    options.level = g.options.seal ? VerifyLevel::kFull : VerifyLevel::kFast;
    options.keyring = g.sign ? &*keyring : nullptr;
    EXPECT_OK(VerifyFile(path, options).status);
    // ...and today's writer still writes them byte for byte.
    EXPECT_EQ(FileSha256(Build(g)), FileSha256(*committed)) << "the writer's output changed";
  }
}

}  // namespace
}  // namespace vexfs::usxf
