// Tests for the built-in lexical hash embedder (deterministic, unit length, the
// declared dimension, shared vocabulary scoring higher than unrelated text) and for
// ValidateVector, which every vector passes before it is stored.
#include "index/embedders/hash_embedder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "index/embedders/embedder.h"
#include "test_util.h"

namespace vexfs::index {
namespace {

// The one vector `embedder` gives `text`.
std::vector<float> EmbedOne(Embedder& embedder, std::string_view text) {
  std::vector<float> out;
  Status s = embedder.Embed({text}, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.size(), embedder.info().dim);
  return out;
}

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) sum += double{a[i]} * b[i];
  return sum;
}

double Norm(const std::vector<float>& v) { return std::sqrt(Dot(v, v)); }

class HashEmbedderTest : public ::testing::Test {
 protected:
  double Cosine(std::string_view a, std::string_view b) {
    return Dot(EmbedOne(*embedder_, a), EmbedOne(*embedder_, b));
  }

  std::unique_ptr<Embedder> embedder_ = MakeHashEmbedder();
};

TEST_F(HashEmbedderTest, DescribesItsModel) {
  const ModelInfo& info = embedder_->info();
  EXPECT_EQ(info.dim, kDefaultHashDim);
  EXPECT_EQ(info.name, "hash-384");
  EXPECT_EQ(info.metric, Metric::kInnerProduct);
  EXPECT_FALSE(info.fingerprint.empty());
}

TEST(HashEmbedderDimTest, DifferentDimsAreDifferentModels) {
  auto a = MakeHashEmbedder(64);
  auto b = MakeHashEmbedder(128);
  EXPECT_EQ(a->info().dim, 64u);
  EXPECT_EQ(b->info().dim, 128u);
  EXPECT_NE(a->info().name, b->info().name);
  EXPECT_NE(a->info().fingerprint, b->info().fingerprint);
}

TEST(HashEmbedderDimTest, VectorsHaveTheDeclaredDimension) {
  for (uint32_t dim : {16u, 17u, 100u, 384u, 1024u}) {
    auto embedder = MakeHashEmbedder(dim);
    ASSERT_EQ(embedder->info().dim, dim);
    std::vector<float> out;
    ASSERT_OK(embedder->Embed({"one text", "another text", ""}, &out));
    EXPECT_EQ(out.size(), 3u * dim) << "dim " << dim;
  }
}

// Below the documented minimum the embedder must at least stay consistent: the
// vectors it returns have the length its info() declares.
TEST(HashEmbedderDimTest, TooSmallDimStillMatchesInfo) {
  auto embedder = MakeHashEmbedder(4);
  EXPECT_GE(embedder->info().dim, 16u);
  std::vector<float> out;
  ASSERT_OK(embedder->Embed({"some words here"}, &out));
  EXPECT_EQ(out.size(), embedder->info().dim);
}

TEST_F(HashEmbedderTest, IsDeterministicAcrossCallsAndInstances) {
  std::string_view text = "Snapshots are immutable; branches move.";
  std::vector<float> first = EmbedOne(*embedder_, text);
  EXPECT_EQ(EmbedOne(*embedder_, text), first);
  auto other = MakeHashEmbedder();
  EXPECT_EQ(EmbedOne(*other, text), first);
}

TEST_F(HashEmbedderTest, VectorsAreUnitLengthAndFinite) {
  for (std::string_view text :
       {"a", "index", "The quick brown fox jumps over the lazy dog.",
        "word word word word word word word", "caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80",
        "x1 y2 z3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"}) {
    std::vector<float> v = EmbedOne(*embedder_, text);
    EXPECT_NEAR(Norm(v), 1.0, 1e-5) << text;
    EXPECT_OK(ValidateVector(embedder_->info(), v.data(), v.size())) << text;
  }
}

TEST_F(HashEmbedderTest, LongTextIsUnitLength) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "term" + std::to_string(i % 300) + " ";
  EXPECT_NEAR(Norm(EmbedOne(*embedder_, text)), 1.0, 1e-5);
}

// Text without a single word has no features: it embeds (the batch must not fail
// for it) as the zero vector, which is finite and similar to nothing.
TEST_F(HashEmbedderTest, TextWithoutWordsIsTheZeroVector) {
  for (std::string_view text : {"", "   ", "!!! --- ???", "\n\t"}) {
    std::vector<float> v = EmbedOne(*embedder_, text);
    ASSERT_EQ(v.size(), embedder_->info().dim);
    for (float x : v) ASSERT_EQ(x, 0.0f) << "'" << text << "'";
    EXPECT_OK(ValidateVector(embedder_->info(), v.data(), v.size()));
  }
  EXPECT_EQ(Cosine("", "anything at all"), 0.0);
}

TEST_F(HashEmbedderTest, SelfSimilarityIsOne) {
  EXPECT_NEAR(Cosine("vector index search", "vector index search"), 1.0, 1e-5);
}

TEST_F(HashEmbedderTest, CaseAndPunctuationDoNotMatter) {
  EXPECT_EQ(EmbedOne(*embedder_, "Vector INDEX, search!"),
            EmbedOne(*embedder_, "vector index search"));
}

TEST_F(HashEmbedderTest, SharedWordsScoreHigherThanUnrelatedText) {
  struct Case {
    std::string_view query, related, unrelated;
  };
  for (const Case& c : {
           Case{"the vector index stores embeddings", "embeddings live in the vector index",
                "banana bread recipe with walnuts"},
           Case{"snapshot restore after a crash", "restore the snapshot taken before the crash",
                "gardening tips for tomatoes in spring"},
           Case{"lmdb transaction commit", "commit the lmdb transaction",
                "a walk along the river at dusk"},
           Case{"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xe3\x83\x86\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88",
                "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xe3\x81\xae \xe6\x96\x87\xe6\x9b\xb8",
                "english words only here"},
       }) {
    double related = Cosine(c.query, c.related);
    double unrelated = Cosine(c.query, c.unrelated);
    EXPECT_GT(related, unrelated) << c.query;
    EXPECT_GT(related, 0.2) << c.query;
  }
}

TEST_F(HashEmbedderTest, WordFragmentsLinkRelatedForms) {
  EXPECT_GT(Cosine("indexing", "index"), Cosine("indexing", "banana"));
  EXPECT_GT(Cosine("snapshots", "snapshot"), Cosine("snapshots", "branches"));
  // 7 shared trigrams of weight 0.25 against two different whole words: ~0.29.
  EXPECT_GT(Cosine("snapshots", "snapshot"), 0.2);
}

TEST_F(HashEmbedderTest, WordOrderMattersButLessThanVocabulary) {
  double reordered = Cosine("dog bites man", "man bites dog");
  EXPECT_LT(reordered, 0.9999);  // word pairs differ
  EXPECT_GT(reordered, Cosine("dog bites man", "cat sleeps indoors"));
}

TEST_F(HashEmbedderTest, BatchEmbedsEveryTextAsIfAlone) {
  std::vector<std::string_view> texts = {"first note", "", "second note about lmdb",
                                         "first note"};
  std::vector<float> out;
  ASSERT_OK(embedder_->Embed(texts, &out));
  uint32_t dim = embedder_->info().dim;
  ASSERT_EQ(out.size(), texts.size() * dim);
  for (size_t i = 0; i < texts.size(); ++i) {
    std::vector<float> slice(out.begin() + i * dim, out.begin() + (i + 1) * dim);
    EXPECT_EQ(slice, EmbedOne(*embedder_, texts[i])) << "text " << i;
  }
}

TEST_F(HashEmbedderTest, EmbedAppendsAndKeepsWhatWasThere) {
  std::vector<float> out = {7.0f, -3.5f};
  ASSERT_OK(embedder_->Embed({"alpha", "beta"}, &out));
  uint32_t dim = embedder_->info().dim;
  ASSERT_EQ(out.size(), 2 + 2u * dim);
  EXPECT_EQ(out[0], 7.0f);
  EXPECT_EQ(out[1], -3.5f);
  EXPECT_EQ(std::vector<float>(out.begin() + 2, out.begin() + 2 + dim), EmbedOne(*embedder_, "alpha"));
}

TEST_F(HashEmbedderTest, EmptyBatchAppendsNothing) {
  std::vector<float> out = {1.0f};
  ASSERT_OK(embedder_->Embed({}, &out));
  EXPECT_EQ(out, std::vector<float>{1.0f});
}

TEST(MetricTest, Names) {
  EXPECT_STREQ(MetricName(Metric::kInnerProduct), "ip");
  EXPECT_STREQ(MetricName(Metric::kL2), "l2");
}

ModelInfo FourDimModel() {
  ModelInfo m;
  m.name = "test-4";
  m.dim = 4;
  return m;
}

TEST(ValidateVectorTest, AcceptsFiniteVectorOfTheRightLength) {
  std::vector<float> v = {0.0f, -1.0f, std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::denorm_min()};
  EXPECT_OK(ValidateVector(FourDimModel(), v.data(), v.size()));
}

TEST(ValidateVectorTest, ZeroDimensionAcceptsTheEmptyVector) {
  ModelInfo m;
  m.name = "empty";
  EXPECT_OK(ValidateVector(m, nullptr, 0));
}

TEST(ValidateVectorTest, WrongLengthNamesBothLengthsAndTheModel) {
  std::vector<float> v = {1, 2, 3};
  Status s = ValidateVector(FourDimModel(), v.data(), v.size());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("3 values"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("dimension 4"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("test-4"), std::string::npos) << s.message();

  std::vector<float> longer = {1, 2, 3, 4, 5};
  EXPECT_CODE(ValidateVector(FourDimModel(), longer.data(), longer.size()),
              StatusCode::kInvalidArgument);
}

TEST(ValidateVectorTest, NonFiniteValueNamesItsIndex) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    std::vector<float> v = {0.5f, 0.5f, bad, 0.5f};
    Status s = ValidateVector(FourDimModel(), v.data(), v.size());
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("value 2"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("not finite"), std::string::npos) << s.message();
  }
}

TEST(ValidateVectorTest, NonFiniteValueInFirstOrLastPlace) {
  std::vector<float> first = {std::numeric_limits<float>::quiet_NaN(), 0, 0, 0};
  EXPECT_CODE(ValidateVector(FourDimModel(), first.data(), first.size()),
              StatusCode::kInvalidArgument);
  std::vector<float> last = {0, 0, 0, std::numeric_limits<float>::infinity()};
  Status s = ValidateVector(FourDimModel(), last.data(), last.size());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("value 3"), std::string::npos) << s.message();
}

TEST(ValidateVectorTest, LengthIsCheckedBeforeValues) {
  std::vector<float> v = {std::numeric_limits<float>::quiet_NaN(), 0, 0};
  Status s = ValidateVector(FourDimModel(), v.data(), v.size());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("dimension 4"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace vexfs::index
