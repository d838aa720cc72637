// ReadHfExport: a folder in the HF layout (manifest.json and the two float32 files
// it names) read into a state, and manifests naming files outside the folder refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "common/file_util.h"
#include "test_util.h"
#include "vexfs/kv/hf_layout.h"

namespace vexfs::kv {
namespace {

// One layer, 2 KV heads of dim 4, three tokens, a vocabulary of 3.
nlohmann::json SmallManifest() {
  return {{"format", "vexfs-kv-hf-v1"}, {"layout", "hf"}, {"dtype", "float32"}, {"arch", "qwen2"},
          {"weights_fingerprint", std::string(64, '1')}, {"hparams_fingerprint", std::string(64, '2')},
          {"tokenizer_fingerprint", std::string(64, '3')}, {"n_layers", 1}, {"n_heads", 4},
          {"n_kv_heads", 2}, {"head_dim", 4}, {"n_tokens", 3}, {"rope", "neox"},
          {"rope_freq_base", 10000.0}, {"k_after_rope", true}, {"tokens", {0, 1, 2}},
          {"cache", "cache.f32"}, {"next_logits", "next_logits.f32"}, {"n_vocab", 3}};
}

std::string FloatBytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

class HfLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<float> cache(2 * 2 * 3 * 4);
    for (size_t i = 0; i < cache.size(); ++i) cache[i] = static_cast<float>(i) * 0.5f;
    cache_ = FloatBytes(cache);
    logits_ = FloatBytes({0.25f, -1.0f, 4.0f});
    ASSERT_TRUE(WriteFileAtomically(dir_.path() + "/cache.f32", cache_).ok());
    ASSERT_TRUE(WriteFileAtomically(dir_.path() + "/next_logits.f32", logits_).ok());
  }
  void WriteManifest(const nlohmann::json& m) {
    ASSERT_TRUE(WriteFileAtomically(dir_.path() + "/manifest.json", m.dump()).ok());
  }

  test::TempDir dir_;
  std::string cache_, logits_;
};

TEST_F(HfLayoutTest, AFolderReadsAsItsFilesDecode) {
  WriteManifest(SmallManifest());
  auto read = ReadHfExport(dir_.path());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  auto decoded = BundleFromHf(HfExport{SmallManifest().dump(), cache_, logits_});
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(read->kv.data, decoded->kv.data);
  EXPECT_EQ(read->next_logits, decoded->next_logits);
  EXPECT_EQ(read->info.token_ids, (std::vector<int32_t>{0, 1, 2}));
}

TEST_F(HfLayoutTest, FilesOutsideTheFolderAreRefusedNamingTheField) {
  for (const char* field : {"cache", "next_logits"}) {
    for (const char* name : {"../cache.f32", "/etc/passwd", ".hidden", "", "sub/cache.f32"}) {
      nlohmann::json m = SmallManifest();
      m[field] = name;
      WriteManifest(m);
      auto read = ReadHfExport(dir_.path());
      ASSERT_FALSE(read.ok()) << field << " = '" << name << "'";
      EXPECT_EQ(read.status().code(), StatusCode::kCorruption) << read.status().ToString();
      EXPECT_NE(read.status().message().find(std::string("'") + field + "'"), std::string::npos)
          << read.status().ToString();
    }
  }
}

TEST_F(HfLayoutTest, AMissingOrBrokenManifestIsAnErrorNamingTheFile) {
  auto missing = ReadHfExport(dir_.path());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status().ToString();
  ASSERT_TRUE(WriteFileAtomically(dir_.path() + "/manifest.json", "{not json").ok());
  auto broken = ReadHfExport(dir_.path());
  EXPECT_EQ(broken.status().code(), StatusCode::kCorruption);
  EXPECT_NE(broken.status().ToString().find("manifest.json"), std::string::npos)
      << broken.status().ToString();
}

}  // namespace
}  // namespace vexfs::kv
