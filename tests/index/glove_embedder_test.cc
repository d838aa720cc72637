// Tests for the GloVe embedder and its .vxg reader: the real vectors that
// scripts/fetch_glove.sh converts (required, so a missing file fails rather than
// skips; CI runs scripts/setup.sh first), and tiny files this test converts with
// the same scripts/convert_glove.py to damage on purpose: truncation, flipped
// bytes, absurd headers. Also the tokeniser's splitting rules.
#include "index/embedders/glove_embedder.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/shipped_files.h"
#include "index/embedders/factory.h"
#include "index/embedders/glove_file.h"
#include "index/embedders/word_tokens.h"
#include "test_util.h"

namespace vexfs::index {
namespace {

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) sum += double{a[i]} * b[i];
  return sum;
}

std::vector<float> EmbedOne(Embedder& embedder, std::string_view text) {
  std::vector<float> out;
  Status s = embedder.Embed({text}, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.size(), embedder.info().dim);
  return out;
}

// A unit vector of finite numbers: what every text must get.
void ExpectUnitAndFinite(const std::vector<float>& v, std::string_view text) {
  for (float x : v) ASSERT_TRUE(std::isfinite(x)) << "text '" << text << "'";
  EXPECT_NEAR(Dot(v, v), 1.0, 1e-5) << "text '" << text << "'";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// ---- The real vectors --------------------------------------------------------

class RealGloveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto file = GloveFile::Open(ShippedGlovePath());
    ASSERT_TRUE(file.ok()) << file.status().ToString()
                           << " (the real GloVe file is required: run scripts/setup.sh)";
    file_ = std::shared_ptr<const GloveFile>(std::move(file).value());
  }
  static void TearDownTestSuite() { file_.reset(); }

  void SetUp() override {
    ASSERT_NE(file_, nullptr) << "GloVe file missing: run scripts/setup.sh";
    embedder_ = MakeGloveEmbedder(file_);
  }

  double Cosine(std::string_view a, std::string_view b) {
    return Dot(EmbedOne(*embedder_, a), EmbedOne(*embedder_, b));
  }

  static std::shared_ptr<const GloveFile> file_;
  std::unique_ptr<Embedder> embedder_;
};
std::shared_ptr<const GloveFile> RealGloveTest::file_;

TEST_F(RealGloveTest, DescribesItsModel) {
  const ModelInfo& info = embedder_->info();
  EXPECT_EQ(info.name, "glove-6b-100d");
  EXPECT_EQ(info.dim, 100u);
  EXPECT_EQ(info.metric, Metric::kInnerProduct);
  EXPECT_EQ(info.fingerprint, std::string(kGloveAlgorithm) + ":" + file_->payload_fingerprint());
  EXPECT_EQ(file_->count(), 341479u);
  EXPECT_EQ(file_->source_sha256(),
            "2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c");
}

TEST_F(RealGloveTest, FindsWordsByFrequencyRank) {
  EXPECT_EQ(file_->Find("the"), 0u);
  EXPECT_EQ(file_->Find(","), 1u);
  EXPECT_TRUE(file_->Find("automobile").has_value());
  EXPECT_TRUE(file_->Find("well-known").has_value());
  EXPECT_FALSE(file_->Find("zqxjv").has_value());
  EXPECT_FALSE(file_->Find("").has_value());
  EXPECT_FALSE(file_->Find("The").has_value());  // the vocabulary is lower-case
}

TEST_F(RealGloveTest, IsDeterministicAndBatchIndependent) {
  std::vector<std::string_view> texts = {"the car was fast", "", "zqxjv_kkw9", "Ünïcödé façade"};
  std::vector<float> batch, again;
  ASSERT_OK(embedder_->Embed(texts, &batch));
  ASSERT_OK(MakeGloveEmbedder(file_)->Embed(texts, &again));
  EXPECT_EQ(batch, again);
  for (size_t i = 0; i < texts.size(); ++i) {
    std::vector<float> one = EmbedOne(*embedder_, texts[i]);
    EXPECT_EQ(one, std::vector<float>(batch.begin() + 100 * i, batch.begin() + 100 * (i + 1)));
  }
}

TEST_F(RealGloveTest, EveryTextGetsAFiniteUnitVector) {
  for (std::string_view text : std::vector<std::string_view>{"the car was fast", "", " \t\n", "!!! ... ---", "zqxjv_kkw9", "XAPIAN_DB", "1234567",
        "don't won't can't y'all", "東京 café naïve", "\xff\xfe invalid utf-8 \xc3",
        "a", std::string_view("nul\0inside", 10)}) {
    ExpectUnitAndFinite(EmbedOne(*embedder_, text), text);
  }
  std::string long_word(100000, 'q');  // one enormous unknown word
  ExpectUnitAndFinite(EmbedOne(*embedder_, long_word), "100000 q");
}

TEST_F(RealGloveTest, TextsWithoutWordsDifferButAreFixed) {
  std::vector<float> empty = EmbedOne(*embedder_, "");
  std::vector<float> punct = EmbedOne(*embedder_, "!!! ...");
  EXPECT_NE(empty, punct);
  EXPECT_EQ(punct, EmbedOne(*embedder_, "!!! ..."));
}

TEST_F(RealGloveTest, UnknownWordsMatchThemselvesNotEachOther) {
  EXPECT_GT(Cosine("zqxjv_kkw9", "zqxjv_kkw9"), 0.999);
  EXPECT_LT(Cosine("zqxjv", "bmrtpl"), 0.5);
  EXPECT_GT(Cosine("zqxjvw", "zqxjv"), 0.5);  // shared n-grams
}

TEST_F(RealGloveTest, MeaningBeatsUnrelatedText) {
  EXPECT_GT(Cosine("the car was fast", "an automobile speeding"),
            Cosine("the car was fast", "a recipe for bread"));
  EXPECT_GT(Cosine("parse_config_v2", "parse the configuration"),
            Cosine("parse_config_v2", "chocolate cake"));
}

// "a" and "I" are not in wink's vocabulary; as unknown words at full weight they
// would pull every text that has them together.
TEST_F(RealGloveTest, SkipsOneCharacterWords) {
  EXPECT_EQ(EmbedOne(*embedder_, "a car"), EmbedOne(*embedder_, "car"));
  EXPECT_LT(Cosine("a b c", "d e f"), 0.5);  // no words: unrelated fixed vectors
}

TEST_F(RealGloveTest, ExpandsClitics) {
  EXPECT_GT(Cosine("I don't like it", "I do not like it"), 0.999);
  EXPECT_GT(Cosine("we can't", "we can not"), 0.999);
  EXPECT_GT(Cosine("café", "cafe"), 0.999);
}

TEST_F(RealGloveTest, FactoryKnowsTheSpecs) {
  ASSIGN_OR_FAIL(auto embedder, MakeEmbedder("glove:" + ShippedGlovePath()));
  EXPECT_EQ(embedder->info().fingerprint, embedder_->info().fingerprint);
  auto missing = MakeEmbedder("glove:/nonexistent/dir/vectors.vxg");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/dir/vectors.vxg"), std::string::npos);
  EXPECT_CODE(MakeEmbedder("glove:"), StatusCode::kInvalidArgument);
  auto unknown = MakeEmbedder("nonsense");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("glove:PATH"), std::string::npos);
}

// ---- Tiny files converted by the real converter --------------------------------

// words: the, car, é (rank order); dim 4.
constexpr std::string_view kTinyJson = R"({"precision":8,"l2NormIndex":4,"wordIndex":5,
  "size":3,"dimensions":4,"words":["the","car","\u00e9"],
  "vectors":{"car":[0,1,0,0,1,1],"the":[1,0,0,0,1,0],"\u00e9":[0,0,0.5,-2,2.06,2]},
  "unkVector":[0,0,0,0,0,-1]})";

class TinyGloveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    json_ = dir_.Sub("tiny.json");
    path_ = dir_.Sub("tiny.vxg");
    WriteFile(json_, kTinyJson);
    ASSERT_TRUE(Convert("f16", path_)) << "scripts/convert_glove.py failed";
    bytes_ = ReadFile(path_);
    ASSERT_GT(bytes_.size(), kGloveHeaderSize + kGloveTrailerSize);
  }

  bool Convert(const std::string& dtype, const std::string& out) {
    std::string cmd = std::string("python3 '") + VEXFS_CONVERT_GLOVE + "' --dtype " + dtype +
                      " '" + json_ + "' '" + out + "' >/dev/null";
    return std::system(cmd.c_str()) == 0;
  }

  // Writes `bytes` as a file, opens it and expects kCorruption naming the path.
  void ExpectRefused(const std::string& bytes, const std::string& what) {
    std::string bad = dir_.Sub("bad.vxg");
    WriteFile(bad, bytes);
    auto file = GloveFile::Open(bad);
    ASSERT_FALSE(file.ok()) << what;
    EXPECT_EQ(file.status().code(), StatusCode::kCorruption) << what << ": "
                                                             << file.status().ToString();
    EXPECT_NE(file.status().message().find(bad), std::string::npos) << file.status().ToString();
  }

  // `bytes_` with a header field overwritten and the checksum recomputed, so the
  // field's own check (not the checksum) must refuse it.
  template <typename T>
  std::string WithField(size_t at, T value) const {
    std::string b = bytes_;
    std::memcpy(b.data() + at, &value, sizeof(T));
    uint64_t sum = XXH3_64bits(b.data(), b.size() - kGloveTrailerSize);
    std::memcpy(b.data() + b.size() - kGloveTrailerSize, &sum, sizeof(sum));
    return b;
  }

  test::TempDir dir_;
  std::string json_, path_, bytes_;
};

TEST_F(TinyGloveTest, ReadsWhatTheConverterWrote) {
  ASSIGN_OR_FAIL(auto file, GloveFile::Open(path_));
  EXPECT_EQ(file->dim(), 4u);
  EXPECT_EQ(file->count(), 3u);
  EXPECT_EQ(file->dtype(), GloveDtype::kF16);
  EXPECT_EQ(file->file_size(), bytes_.size());
  EXPECT_EQ(file->Find("the"), 0u);
  EXPECT_EQ(file->Find("car"), 1u);
  EXPECT_EQ(file->Find("\xc3\xa9"), 2u);
  EXPECT_FALSE(file->Find("cat").has_value());
  EXPECT_EQ(file->SortedWord(0), "car");  // bytewise order
  float acc[4] = {0, 0, 0, 0};
  file->AddScaled(2, 2.0f, acc);
  EXPECT_FLOAT_EQ(acc[2], 1.0f);
  EXPECT_FLOAT_EQ(acc[3], -4.0f);
}

TEST_F(TinyGloveTest, OneKnownWordEmbedsToItsDirection) {
  ASSIGN_OR_FAIL(auto embedder, MakeGloveEmbedder(path_));
  EXPECT_EQ(embedder->info().dim, 4u);
  std::vector<float> v = EmbedOne(*embedder, "Car!");
  EXPECT_EQ(v[0], 0.0f);
  EXPECT_NEAR(v[1], 1.0f, 1e-6);
  EXPECT_EQ(v[2], 0.0f);
  EXPECT_EQ(v[3], 0.0f);
  ExpectUnitAndFinite(EmbedOne(*embedder, "zqxjv_kkw9"), "zqxjv_kkw9");
  ExpectUnitAndFinite(EmbedOne(*embedder, "..."), "...");
}

TEST_F(TinyGloveTest, F32FileIsAnotherModel) {
  std::string f32 = dir_.Sub("tiny32.vxg");
  ASSERT_TRUE(Convert("f32", f32));
  ASSIGN_OR_FAIL(auto a, MakeGloveEmbedder(path_));
  ASSIGN_OR_FAIL(auto b, MakeGloveEmbedder(f32));
  EXPECT_EQ(b->info().name, "glove-6b-100d-f32");
  EXPECT_NE(a->info().fingerprint, b->info().fingerprint);
  EXPECT_GT(Dot(EmbedOne(*a, "the car é"), EmbedOne(*b, "the car é")), 0.9999);
}

TEST_F(TinyGloveTest, MissingFileSaysHowToGetIt) {
  std::string missing = dir_.Sub("absent.vxg");
  auto file = GloveFile::Open(missing);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound);
  EXPECT_NE(file.status().message().find(missing), std::string::npos);
  EXPECT_NE(file.status().message().find("scripts/setup.sh"), std::string::npos);
  EXPECT_CODE(MakeGloveEmbedder(missing), StatusCode::kNotFound);
}

TEST_F(TinyGloveTest, RefusesTruncatedFiles) {
  for (size_t keep = 0; keep < bytes_.size(); keep += keep < 300 ? 7 : 1) {
    ExpectRefused(bytes_.substr(0, keep), "truncated to " + std::to_string(keep));
  }
  ExpectRefused(bytes_ + "x", "one byte appended");
}

TEST_F(TinyGloveTest, RefusesFlippedBytes) {
  for (size_t at = 0; at < bytes_.size(); ++at) {
    std::string b = bytes_;
    b[at] = static_cast<char>(b[at] ^ 0x10);
    ExpectRefused(b, "byte " + std::to_string(at) + " flipped");
  }
}

TEST_F(TinyGloveTest, RefusesAbsurdHeadersWithValidChecksums) {
  ExpectRefused(WithField<uint32_t>(8, 2), "version 2");
  ExpectRefused(WithField<uint32_t>(12, 7), "dtype 7");
  ExpectRefused(WithField<uint32_t>(16, 0), "dim 0");
  ExpectRefused(WithField<uint32_t>(16, 0xFFFFFFFF), "dim 2^32-1");
  ExpectRefused(WithField<uint32_t>(16, 8), "dim 8: vectors section too small");
  ExpectRefused(WithField<uint32_t>(20, 0), "count 0");
  ExpectRefused(WithField<uint32_t>(20, 0xFFFFFFFF), "count 2^32-1");
  ExpectRefused(WithField<uint32_t>(20, 1000), "count 1000");
  ExpectRefused(WithField<uint64_t>(24, ~uint64_t{0}), "file size 2^64-1");
  for (size_t at : {32u, 40u, 48u, 56u, 64u, 72u}) {
    ExpectRefused(WithField<uint64_t>(at, ~uint64_t{0} - 3), "offset field " + std::to_string(at));
    ExpectRefused(WithField<uint64_t>(at, 1u << 30), "offset field " + std::to_string(at));
  }
  ExpectRefused(WithField<float>(80, std::nanf("")), "oov norm NaN");
  ExpectRefused(WithField<uint64_t>(152, 0), "no name");
  // The vocabulary itself: ranks that are not a permutation, words out of order.
  ExpectRefused(WithField<uint32_t>(256 + 16, 0), "rank of word 0 repeated");
  ExpectRefused(WithField<uint32_t>(256 + 4, 7), "word offsets not ascending");
  ExpectRefused(WithField<char>(256 + 28, 'z'), "vocabulary unsorted");
}

// ---- Tokenisation -------------------------------------------------------------

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string_view> views;
  SplitRawWords(text, &views);
  return std::vector<std::string>(views.begin(), views.end());
}

TEST(WordTokensTest, SplitsOnWhitespaceAndPunctuation) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Words("Hello, world!  (twice)"), (V{"Hello", "world", "twice"}));
  EXPECT_EQ(Words("a well-known parse_config_v2 os.path 'quoted'"),
            (V{"a", "well-known", "parse_config_v2", "os.path", "quoted"}));
  EXPECT_EQ(Words("don\xe2\x80\x99t stop\xe2\x80\x94now"), (V{"don\xe2\x80\x99t", "stop", "now"}));
  EXPECT_EQ(Words("caf\xc3\xa9 \xe6\x9d\xb1\xe4\xba\xac 42"), (V{"caf\xc3\xa9", "\xe6\x9d\xb1\xe4\xba\xac", "42"}));
  EXPECT_EQ(Words("-- ... __init__ a--b"), (V{"init", "a", "b"}));
  EXPECT_TRUE(Words(" !?\xc2\xa0\xe2\x80\xa6 ").empty());
}

TEST(WordTokensTest, NormalizesCaseAndApostrophes) {
  std::string cased, lower;
  NormalizeWord("Don\xe2\x80\x99t", &cased, &lower);
  EXPECT_EQ(cased, "Don't");
  EXPECT_EQ(lower, "don't");
  NormalizeWord("\xc3\x89T\xc3\x89", &cased, &lower);  // ÉTÉ
  EXPECT_EQ(lower, "\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(cased.size(), lower.size());
}

TEST(WordTokensTest, ExpandsClitics) {
  Clitic c;
  ASSERT_TRUE(SplitClitic("don't", &c));
  EXPECT_EQ(c.stem, "do");
  EXPECT_EQ(c.expansion, "not");
  ASSERT_TRUE(SplitClitic("won't", &c));
  EXPECT_EQ(c.stem, "will");
  ASSERT_TRUE(SplitClitic("they're", &c));
  EXPECT_EQ(c.stem, "they");
  EXPECT_EQ(c.expansion, "are");
  ASSERT_TRUE(SplitClitic("john's", &c));
  EXPECT_EQ(c.stem, "john");
  EXPECT_EQ(c.expansion, "");
  EXPECT_FALSE(SplitClitic("o'brien", &c));
  EXPECT_FALSE(SplitClitic("plain", &c));
}

TEST(WordTokensTest, FoldsAccents) {
  std::string out;
  ASSERT_TRUE(FoldAccents("na\xc3\xafve", &out));
  EXPECT_EQ(out, "naive");
  ASSERT_TRUE(FoldAccents("stra\xc3\x9f" "e", &out));
  EXPECT_EQ(out, "strasse");
  EXPECT_FALSE(FoldAccents("plain", &out));
}

TEST(WordTokensTest, SplitsIdentifiers) {
  auto pieces = [](std::string_view s, IdentifierSplit how) {
    std::vector<std::pair<size_t, size_t>> p;
    SplitIdentifier(s, how, &p);
    std::vector<std::string> out;
    for (auto [b, e] : p) out.emplace_back(s.substr(b, e - b));
    return out;
  };
  using V = std::vector<std::string>;
  constexpr IdentifierSplit kConnectors = IdentifierSplit::kAtConnectors;
  constexpr IdentifierSplit kHumps = IdentifierSplit::kAtHumps;
  EXPECT_EQ(pieces("parse_config_v2", kConnectors), (V{"parse", "config", "v2"}));
  EXPECT_EQ(pieces("XAPIAN_DB", kConnectors), (V{"XAPIAN", "DB"}));
  EXPECT_EQ(pieces("os.path-join", kConnectors), (V{"os", "path", "join"}));
  EXPECT_EQ(pieces("v2", kHumps), (V{"v", "2"}));
  EXPECT_EQ(pieces("parseConfigFile", kHumps), (V{"parse", "Config", "File"}));
  EXPECT_EQ(pieces("XMLHttpRequest", kHumps), (V{"XML", "Http", "Request"}));
  EXPECT_EQ(pieces("word", kHumps), (V{"word"}));
  EXPECT_EQ(pieces("word", kConnectors), (V{"word"}));
}

}  // namespace
}  // namespace vexfs::index
