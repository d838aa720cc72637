// The KV state file reader without a runtime (src/kv/state_file): round trips
// through WriteStateFile, and kv.reference sections crafted with fields of the
// wrong type, missing or out of range. nlohmann's j.value() throws on a field of
// the wrong type, so several of these used to throw out of ReadStateFile; each
// must now be kCorruption naming the field.
#include <gtest/gtest.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>

#include "common/file_util.h"
#include "test_util.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/usxf_io.h"

namespace vexfs::kv {
namespace {

constexpr std::string_view kFormat = R"("format":"vexfs-kv-reference-v1")";
constexpr std::string_view kZeroDigest =
    "0000000000000000000000000000000000000000000000000000000000000000";

// One layer, 2 KV heads of dim 4, three tokens, f16.
StateBundle SmallState() {
  StateBundle b;
  usxf::KvCacheInfo& kv = b.info;
  kv.arch = "qwen2";
  kv.weights_fingerprint.fill(1);
  kv.hparams_fingerprint.fill(2);
  kv.tokenizer_fingerprint.fill(3);
  kv.n_layers = 1;
  kv.n_heads = {4};
  kv.n_kv_heads = {2};
  kv.k_head_dim = {4};
  kv.v_head_dim = {4};
  kv.attention = usxf::AttentionKind::kGQA;
  kv.token_ids = {7, 8, 9};
  kv.block_size = 2;
  kv.ComputeBlockHashes();
  b.kv.type = CacheType::kF16;
  b.kv.n_tokens = 3;
  b.kv.data = test::RandomBytes(1, kv.ElementCount() * 2);
  b.next_logits = {0.25f, -1.0f, 4.0f};
  return b;
}

// The bytes WriteStateFile would write for SmallState(), but with `reference` as
// the kv.reference section's text, whatever it is.
std::string StateFileWithReference(std::string_view reference) {
  const StateBundle b = SmallState();
  usxf::SectionInfo logits;
  logits.name = "kv.next_logits";
  logits.kind = static_cast<uint32_t>(usxf::SectionKind::kTensor);
  logits.dtype = static_cast<uint32_t>(usxf::DType::kF32);
  logits.shape = {b.next_logits.size()};
  usxf::SectionInfo blob;
  blob.name = "kv.reference";
  const std::string_view logit_bytes(reinterpret_cast<const char*>(b.next_logits.data()),
                                     b.next_logits.size() * sizeof(float));
  usxf::StringSink sink;
  const Status st = usxf::WriteFile(
      &sink,
      {{usxf::KvSection("kv", b.info, usxf::DType::kF16), b.kv.data}, {logits, logit_bytes},
       {blob, reference}},
      usxf::Metadata(), usxf::WriterOptions());
  EXPECT_TRUE(st.ok()) << st.ToString();
  return sink.out;
}

std::string Step(std::string_view token, std::string_view digest, std::string_view top) {
  return "{\"token\":" + std::string(token) + ",\"logits_sha256\":" + std::string(digest) +
         ",\"top\":" + std::string(top) + "}";
}

std::string WithSteps(const std::vector<std::string>& steps) {
  std::string text = "{" + std::string(kFormat) + ",\"steps\":[";
  for (size_t i = 0; i < steps.size(); ++i) text += (i ? "," : "") + steps[i];
  return text + "]}";
}

std::string GoodStep() { return Step("5", "\"" + std::string(kZeroDigest) + "\"", "[[5,1.5]]"); }

struct Crafted {
  std::string json;
  std::string named;  // what the message must name
};

std::vector<Crafted> CraftedReferences() {
  const std::string digest = "\"" + std::string(kZeroDigest) + "\"";
  const std::string f(kFormat);
  return {
      {"5", "not a JSON object"},
      {"[]", "not a JSON object"},
      {"\"text\"", "not a JSON object"},
      {"{\"format\":", "not JSON"},
      {"{\"steps\":[]}", "field 'format'"},
      {"{\"format\":5,\"steps\":[]}", "field 'format'"},     // threw: j.value() of a number
      {"{\"format\":null,\"steps\":[]}", "field 'format'"},  // threw
      {"{\"format\":[\"vexfs-kv-reference-v1\"],\"steps\":[]}", "field 'format'"},  // threw
      {"{\"format\":\"vexfs-kv-reference-v2\",\"steps\":[]}", "field 'format'"},
      {"{" + f + ",\"settings\":7,\"steps\":[]}", "field 'settings' is not a string"},  // threw
      {"{" + f + ",\"settings\":null,\"steps\":[]}", "field 'settings' is not a string"},  // threw
      {"{" + f + ",\"settings\":{},\"steps\":[]}", "field 'settings' is not a string"},  // threw
      {"{" + f + "}", "field 'steps' is missing"},
      {"{" + f + ",\"steps\":{}}", "field 'steps' is not an array"},
      {"{" + f + ",\"steps\":\"[]\"}", "field 'steps' is not an array"},
      {WithSteps({"5"}), "step 0: is not an object"},
      {WithSteps({GoodStep(), "[]"}), "step 1: is not an object"},
      {WithSteps({"{\"logits_sha256\":" + digest + ",\"top\":[]}"}), "step 0: field 'token' is missing"},
      {WithSteps({Step("\"5\"", digest, "[]")}), "step 0: field 'token' is not a 32-bit integer"},
      {WithSteps({Step("1.5", digest, "[]")}), "step 0: field 'token' is not a 32-bit integer"},
      {WithSteps({Step("null", digest, "[]")}), "step 0: field 'token' is not a 32-bit integer"},
      {WithSteps({Step("2147483648", digest, "[]")}), "step 0: field 'token' is not a 32-bit integer"},
      {WithSteps({Step("-2147483649", digest, "[]")}), "step 0: field 'token' is not a 32-bit integer"},
      {WithSteps({Step("18446744073709551615", digest, "[]")}), "field 'token' is not a 32-bit integer"},
      {WithSteps({"{\"token\":1,\"top\":[]}"}), "step 0: field 'logits_sha256' is missing"},
      {WithSteps({Step("1", "7", "[]")}), "step 0: field 'logits_sha256' is not 64 hex digits"},
      {WithSteps({Step("1", "\"abc\"", "[]")}), "step 0: field 'logits_sha256' is not 64 hex digits"},
      {WithSteps({Step("1", "\"" + std::string(64, 'g') + "\"", "[]")}), "field 'logits_sha256'"},
      {WithSteps({"{\"token\":1,\"logits_sha256\":" + digest + "}"}), "step 0: field 'top' is missing"},
      {WithSteps({Step("1", digest, "{}")}), "step 0: field 'top' is not an array"},
      {WithSteps({Step("1", digest, "[[1]]")}), "step 0: top entry 0: is not an [id, logit] pair"},
      {WithSteps({Step("1", digest, "[[1,2,3]]")}), "top entry 0: is not an [id, logit] pair"},
      {WithSteps({Step("1", digest, "[[1,2],{\"1\":2}]")}), "top entry 1: is not an [id, logit] pair"},
      {WithSteps({Step("1", digest, "[[\"1\",2.0]]")}), "top entry 0: id is not a 32-bit integer"},
      {WithSteps({Step("1", digest, "[[1,\"2\"]]")}), "top entry 0: logit is not a finite 32-bit float"},
      {WithSteps({Step("1", digest, "[[1,null]]")}), "top entry 0: logit is not a finite 32-bit float"},
      {WithSteps({Step("1", digest, "[[1,1e39]]")}), "top entry 0: logit is not a finite 32-bit float"},
      {WithSteps({Step("1", digest, "[[1,-1e300]]")}), "top entry 0: logit is not a finite 32-bit float"},
  };
}

TEST(StateFileTest, CraftedReferencesAreCorruptionNamingTheField) {
  for (const Crafted& c : CraftedReferences()) {
    Result<Reference> r = DecodeReference(c.json);
    ASSERT_FALSE(r.ok()) << c.json;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << c.json;
    EXPECT_EQ(r.status().message().rfind("section kv.reference: ", 0), 0u) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.named), std::string::npos)
        << c.json << " gave " << r.status().ToString() << ", not naming " << c.named;
  }
}

// Through the whole reader, as a file from another host would arrive.
TEST(StateFileTest, StateFilesWithCraftedReferencesAreRefusedNotThrown) {
  test::TempDir dir;
  for (const Crafted& c : CraftedReferences()) {
    const std::string file = StateFileWithReference(c.json);
    Result<StateBundle> decoded = DecodeStateFile(file, nullptr);
    EXPECT_CODE(decoded, StatusCode::kCorruption) << c.json;
    const std::string path = dir.Sub("crafted.usxf");
    ASSERT_OK(WriteFileAtomically(path, file));
    Result<StateBundle> read = ReadStateFile(path, nullptr);
    ASSERT_FALSE(read.ok()) << c.json;
    EXPECT_EQ(read.status().message().rfind(path + ": section kv.reference: ", 0), 0u)
        << read.status().ToString();
    EXPECT_NE(read.status().message().find(c.named), std::string::npos) << read.status().ToString();
  }
}

TEST(StateFileTest, ReferenceBoundsAreAccepted) {
  const std::string digest = "\"" + std::string(64, 'A') + "\"";
  const std::string text = "{" + std::string(kFormat) + ",\"extra\":[1,{}],\"steps\":[" +
                           Step("-2147483648", digest, "[[2147483647,3.4028234663852886e38],[0,-0.0]]") +
                           "," + Step("2147483647", digest, "[]") + "]}";
  ASSIGN_OR_FAIL(Reference r, DecodeReference(text));
  EXPECT_EQ(r.settings, "");  // optional
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].token, INT32_MIN);
  EXPECT_EQ(r.steps[1].token, INT32_MAX);
  EXPECT_EQ(r.steps[0].logits_sha256[0], 0xaa);
  ASSERT_EQ(r.steps[0].top.size(), 2u);
  EXPECT_EQ(r.steps[0].top[0], std::make_pair(INT32_MAX, FLT_MAX));
  EXPECT_TRUE(std::signbit(r.steps[0].top[1].second));
}

TEST(StateFileTest, ReferencesRoundTrip) {
  Reference r;
  r.settings = "n_ctx=256 k=q8_0 v=f16";
  r.steps.push_back(MakeReferenceStep(3, {0.5f, -2.0f, 9.25f, 1e-30f, -0.0f}, 4));
  r.steps.push_back(MakeReferenceStep(0, {}, 4));
  ASSIGN_OR_FAIL(Reference again, DecodeReference(EncodeReference(r)));
  EXPECT_EQ(again.settings, r.settings);
  ASSERT_EQ(again.steps.size(), 2u);
  for (size_t i = 0; i < r.steps.size(); ++i) {
    EXPECT_EQ(again.steps[i].token, r.steps[i].token);
    EXPECT_EQ(again.steps[i].logits_sha256, r.steps[i].logits_sha256);
    EXPECT_EQ(again.steps[i].top, r.steps[i].top);
  }
  EXPECT_EQ(again.steps[0].top[0], std::make_pair(2, 9.25f));
}

// Settings are a runtime's description; bytes that are not UTF-8 become U+FFFD
// instead of an exception from the JSON encoder.
TEST(StateFileTest, SettingsThatAreNotUtf8DoNotThrow) {
  Reference r;
  r.settings = "model=\xff\xfe";
  ASSIGN_OR_FAIL(Reference again, DecodeReference(EncodeReference(r)));
  EXPECT_EQ(again.settings, "model=\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(StateFileTest, WrittenStatesReadBack) {
  test::TempDir dir;
  StateBundle b = SmallState();
  b.reference.emplace();
  b.reference->settings = "s";
  b.reference->steps.push_back(MakeReferenceStep(8, {1.0f, 3.0f, 2.0f}, 2));
  ASSERT_OK(WriteStateFile(dir.Sub("state.usxf"), b, nullptr));
  ASSIGN_OR_FAIL(StateBundle read, ReadStateFile(dir.Sub("state.usxf"), nullptr));
  EXPECT_EQ(read.info.token_ids, b.info.token_ids);
  EXPECT_EQ(read.kv.type, CacheType::kF16);
  EXPECT_EQ(read.kv.n_tokens, 3u);
  EXPECT_TRUE(read.kv.data == b.kv.data);
  EXPECT_EQ(read.next_logits, b.next_logits);
  ASSERT_TRUE(read.reference.has_value());
  EXPECT_EQ(read.reference->settings, "s");
  ASSERT_EQ(read.reference->steps.size(), 1u);
  EXPECT_EQ(read.reference->steps[0].top, (std::vector<std::pair<int32_t, float>>{{1, 3.0f}, {2, 2.0f}}));

  b.reference.reset();
  ASSERT_OK(WriteStateFile(dir.Sub("plain.usxf"), b, nullptr));
  ASSIGN_OR_FAIL(StateBundle plain, ReadStateFile(dir.Sub("plain.usxf"), nullptr));
  EXPECT_FALSE(plain.reference.has_value());
}

TEST(StateFileTest, UsxfFilesWithoutTheKvSectionsAreNotFound) {
  usxf::SectionInfo blob;
  blob.name = "notes";
  usxf::StringSink sink;
  ASSERT_OK(usxf::WriteFile(&sink, {{blob, "hello"}}, usxf::Metadata(), usxf::WriterOptions()));
  Result<StateBundle> r = DecodeStateFile(sink.out, nullptr);
  EXPECT_CODE(r, StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("no section 'kv'"), std::string::npos) << r.status().ToString();
  EXPECT_CODE(ReadStateFile("/nonexistent/state.usxf", nullptr), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vexfs::kv
