// Tests for the GGUF embedder ("gguf:PATH") against random-weight BERT models that
// bert_model_init.cc builds with llama.cpp's real bge WordPiece tokenizer: pooling
// read from the file, unit vectors, determinism, batched = one at a time,
// truncation with its warning, refusals naming the file, and model identity. The
// tokenizer GGUF is required (scripts/fetch_llama.sh), so a missing one fails
// rather than skips. Random weights prove the plumbing, not embedding quality.
#include "index/embedders/gguf_embedder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ggml.h"
#include "gguf.h"
#include "index/bert_model_init.h"
#include "index/embedders/factory.h"
#include "test_util.h"
#include "vexfs/kv/model_init.h"

namespace vexfs::index {
namespace {

// Batched and one-at-a-time vectors differ only by float rounding in the matrix
// kernels (different row counts take different SIMD tails); 1e-4 per component of
// a unit vector is far above that and far below any real difference.
constexpr float kBatchTolerance = 1e-4f;
// With f16 weights and llama.cpp's f16 KV cache (the decoder below) activations are
// rounded to 11 significant bits at several points, batch-size dependently.
constexpr float kF16BatchTolerance = 2e-3f;

// Models are built once per test process (ctest runs each test in its own), each
// only when a test first asks for it.
class Models {
 public:
  static Models& Get() {
    static Models models;
    return models;
  }
  // A 2-layer, 64-wide, 4-head BERT with a 128-token context.
  const std::string& Bert(uint32_t pooling, uint64_t seed = 1) {
    std::string& path = built_[{pooling, seed}];
    if (path.empty()) {
      test::BertModelOptions o;
      o.pooling = pooling;
      o.seed = seed;
      o.output_path = dir_.Sub("bert-p" + std::to_string(pooling) + "-s" +
                               std::to_string(seed) + ".gguf");
      Status s = test::BuildRandomBert(o);
      EXPECT_TRUE(s.ok()) << s.ToString();
      path = o.output_path;
    }
    return path;
  }
  std::string Sub(std::string_view name) const { return dir_.Sub(name); }

 private:
  vexfs::test::TempDir dir_;
  std::map<std::pair<uint32_t, uint64_t>, std::string> built_;
};

constexpr uint32_t kMean = 1, kCls = 2, kLast = 3, kNone = 0;

std::unique_ptr<GgufEmbedder> OpenOrDie(const std::string& path, uint32_t threads = 1,
                                        uint32_t batch = 0, uint32_t ctx = 0) {
  GgufEmbedderOptions o;
  o.path = path;
  o.threads = threads;
  o.batch_tokens = batch;
  o.max_tokens = ctx;
  auto r = OpenGgufEmbedder(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

std::vector<float> EmbedAll(Embedder& e, const std::vector<std::string>& texts) {
  std::vector<std::string_view> views(texts.begin(), texts.end());
  std::vector<float> out;
  Status s = e.Embed(views, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

std::vector<float> EmbedOne(Embedder& e, std::string_view text) {
  std::vector<float> out;
  Status s = e.Embed({text}, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.size(), e.info().dim);
  return out;
}

double Dot(const float* a, const float* b, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += double{a[i]} * b[i];
  return sum;
}

float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

// English-looking text of `words` words from a seeded generator.
std::string Prose(uint64_t seed, size_t words) {
  static const char* kWords[] = {
      "the", "file", "system", "stores", "notes", "about", "vector", "search", "and", "a",
      "mount", "point", "where", "every", "version", "is", "kept", "by", "its", "hash",
      "embedding", "models", "turn", "sentences", "into", "numbers", "so", "that", "similar",
      "meaning", "lands", "near", "in", "space", "while", "unrelated", "text", "stays", "far",
      "away", "Tokyo", "1998", "compression", "journal", "recovery", "crash", "fsync", "of"};
  vexfs::test::Random rng(seed);
  std::string out;
  for (size_t i = 0; i < words; ++i) {
    if (i > 0) out += (i % 13 == 0) ? ". " : " ";
    out += kWords[rng.Uniform(0, sizeof(kWords) / sizeof(kWords[0]) - 1)];
  }
  return out + ".";
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteBytes(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(GgufEmbedderTest, DimensionNameAndMetricComeFromTheModel) {
  auto e = OpenOrDie(Models::Get().Bert(kMean));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->info().dim, 64u);
  EXPECT_EQ(e->info().metric, Metric::kInnerProduct);
  EXPECT_TRUE(e->info().name.starts_with("gguf-vexfs-random-bert-2x64-seed1-")) << e->info().name;
  EXPECT_EQ(e->info().name.size(), std::string("gguf-vexfs-random-bert-2x64-seed1-").size() + 8);
  EXPECT_TRUE(e->info().fingerprint.starts_with(std::string(kGgufAlgorithm) + ":"));
  EXPECT_EQ(e->max_tokens(), 128u);  // the model's context, below the default cap
  EXPECT_EQ(e->threads(), 1u);
}

TEST(GgufEmbedderTest, PoolingIsReadFromTheFileAndChangesTheVectors) {
  // Same weights (seed 1) in all three files; only bert.pooling_type differs.
  auto mean = OpenOrDie(Models::Get().Bert(kMean));
  auto cls = OpenOrDie(Models::Get().Bert(kCls));
  auto last = OpenOrDie(Models::Get().Bert(kLast));
  ASSERT_TRUE(mean && cls && last);
  EXPECT_EQ(mean->pooling(), GgufPooling::kMean);
  EXPECT_EQ(cls->pooling(), GgufPooling::kCls);
  EXPECT_EQ(last->pooling(), GgufPooling::kLast);
  const std::string text = "Pooling decides which token states make the sentence vector.";
  const std::vector<float> m = EmbedOne(*mean, text), c = EmbedOne(*cls, text),
                           l = EmbedOne(*last, text);
  EXPECT_GT(MaxAbsDiff(m, c), 1e-3f);
  EXPECT_GT(MaxAbsDiff(m, l), 1e-3f);
  EXPECT_GT(MaxAbsDiff(c, l), 1e-3f);
  EXPECT_NE(mean->info().fingerprint, cls->info().fingerprint);
  EXPECT_NE(mean->info().name, cls->info().name);
}

TEST(GgufEmbedderTest, VectorsAreFiniteUnitVectorsForEveryKindOfText) {
  auto e = OpenOrDie(Models::Get().Bert(kMean));
  ASSERT_NE(e, nullptr);
  const std::vector<std::string> texts = {
      "", " ", "hello", "Zürich café — naïve façade, 東京 2024!", "x=1;y=2;\t\n", Prose(1, 40)};
  const std::vector<float> out = EmbedAll(*e, texts);
  ASSERT_EQ(out.size(), texts.size() * 64);
  for (size_t i = 0; i < texts.size(); ++i) {
    const float* v = out.data() + i * 64;
    for (size_t d = 0; d < 64; ++d) ASSERT_TRUE(std::isfinite(v[d])) << "text " << i;
    EXPECT_NEAR(Dot(v, v, 64), 1.0, 1e-5) << "text " << i;
    EXPECT_OK(ValidateVector(e->info(), v, 64));
  }
  // The empty text is [CLS][SEP]: a vector of its own, not a copy of another's.
  EXPECT_LT(Dot(out.data(), out.data() + 2 * 64, 64), 0.9999);
}

TEST(GgufEmbedderTest, TwoInstancesGiveTheSameVectors) {
  const std::string& path = Models::Get().Bert(kMean);
  auto a = OpenOrDie(path);
  auto b = OpenOrDie(path);
  ASSERT_TRUE(a && b);
  const std::vector<std::string> texts = {Prose(2, 30), Prose(3, 5), "same file, same vectors"};
  EXPECT_EQ(EmbedAll(*a, texts), EmbedAll(*b, texts));
  EXPECT_EQ(a->info().fingerprint, b->info().fingerprint);
  EXPECT_EQ(a->info().name, b->info().name);
}

TEST(GgufEmbedderTest, BatchedEqualsOneAtATime) {
  for (uint32_t pooling : {kMean, kCls, kLast}) {
    // batch=256 tokens: 40 texts of 3-70 words need several decodes of several texts.
    auto e = OpenOrDie(Models::Get().Bert(pooling), /*threads=*/1, /*batch=*/256);
    ASSERT_NE(e, nullptr);
    std::vector<std::string> texts;
    for (uint64_t i = 0; i < 40; ++i) texts.push_back(Prose(100 + i, 3 + (i * 17) % 68));
    texts.push_back("");
    const std::vector<float> batched = EmbedAll(*e, texts);
    const uint64_t batched_decodes = e->stats().decodes;
    std::vector<float> single;
    for (const std::string& t : texts) {
      std::vector<float> v = EmbedOne(*e, t);
      single.insert(single.end(), v.begin(), v.end());
    }
    EXPECT_LE(MaxAbsDiff(batched, single), kBatchTolerance) << "pooling " << pooling;
    EXPECT_GT(batched_decodes, 1u);
    EXPECT_LT(batched_decodes, texts.size() / 3) << "texts were not batched";
    EXPECT_EQ(e->stats().decodes, batched_decodes + texts.size());
  }
}

TEST(GgufEmbedderTest, LongTextIsTruncatedWithOneWarning) {
  const std::string& path = Models::Get().Bert(kMean);
  auto e = OpenOrDie(path);
  ASSERT_NE(e, nullptr);
  // Same first 150 words, different tails: past the 128-token context only the
  // head counts, so both get one vector.
  const std::string head = Prose(7, 150);
  const std::string a = head + " " + Prose(8, 400), b = head + " " + Prose(9, 900);
  testing::internal::CaptureStderr();
  const std::vector<float> va = EmbedOne(*e, a);
  const std::vector<float> vb = EmbedOne(*e, b);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_NE(err.find("truncated to the model's context of 128 tokens"), std::string::npos) << err;
  EXPECT_NE(err.find("dropped"), std::string::npos) << err;
  EXPECT_EQ(err.find("warning", err.find("warning") + 1), std::string::npos) << "warned twice";
  EXPECT_EQ(e->stats().truncated_texts, 2u);
  EXPECT_GT(e->stats().dropped_tokens, 1000u);
  EXPECT_NEAR(Dot(va.data(), va.data(), 64), 1.0, 1e-5);
  EXPECT_LE(MaxAbsDiff(va, vb), kBatchTolerance);
  // ...while a text within the context is not affected by the limit.
  EXPECT_GT(MaxAbsDiff(EmbedOne(*e, Prose(7, 20)), EmbedOne(*e, Prose(7, 21))), 1e-4f);
  EXPECT_EQ(e->stats().truncated_texts, 2u);
}

TEST(GgufEmbedderTest, CtxOptionLowersTheLimitAndChangesTheFingerprint) {
  const std::string& path = Models::Get().Bert(kMean);
  auto full = OpenOrDie(path);
  auto short_ctx = OpenOrDie(path, 1, 0, /*ctx=*/16);
  auto more_threads = OpenOrDie(path, /*threads=*/2, /*batch=*/512);
  auto over = OpenOrDie(path, 1, 0, /*ctx=*/4096);  // capped by the model's 128
  ASSERT_TRUE(full && short_ctx && more_threads && over);
  EXPECT_EQ(short_ctx->max_tokens(), 16u);
  EXPECT_EQ(over->max_tokens(), 128u);
  EXPECT_NE(full->info().fingerprint, short_ctx->info().fingerprint);
  EXPECT_EQ(full->info().fingerprint, more_threads->info().fingerprint);
  EXPECT_EQ(full->info().fingerprint, over->info().fingerprint);
  testing::internal::CaptureStderr();
  EmbedOne(*short_ctx, Prose(11, 30));
  EXPECT_NE(testing::internal::GetCapturedStderr().find("context of 16 tokens"), std::string::npos);
}

TEST(GgufEmbedderTest, FingerprintFollowsTheWeights) {
  auto s1 = OpenOrDie(Models::Get().Bert(kMean, 1));
  auto s2 = OpenOrDie(Models::Get().Bert(kMean, 2));
  ASSERT_TRUE(s1 && s2);
  EXPECT_NE(s1->info().fingerprint, s2->info().fingerprint);
  EXPECT_NE(s1->info().name, s2->info().name);
  // A byte-identical copy elsewhere is the same model.
  const std::string copy = Models::Get().Sub("copy.gguf");
  WriteBytes(copy, ReadBytes(Models::Get().Bert(kMean, 1)));
  auto c = OpenOrDie(copy);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->info().fingerprint, s1->info().fingerprint);
  EXPECT_EQ(c->info().name, s1->info().name);
}

TEST(GgufEmbedderTest, MissingAndDamagedFilesAreErrorsNamingThePath) {
  const std::string missing = Models::Get().Sub("no-such-model.gguf");
  auto r = OpenGgufEmbedder({missing});
  EXPECT_CODE(r.status(), StatusCode::kNotFound);
  EXPECT_NE(r.status().ToString().find(missing), std::string::npos) << r.status().ToString();

  const std::string bytes = ReadBytes(Models::Get().Bert(kMean));
  ASSERT_GT(bytes.size(), 1u << 20);
  const std::string truncated = Models::Get().Sub("truncated.gguf");
  WriteBytes(truncated, std::string_view(bytes).substr(0, bytes.size() / 2));
  r = OpenGgufEmbedder({truncated});
  EXPECT_CODE(r.status(), StatusCode::kCorruption);
  EXPECT_NE(r.status().ToString().find(truncated), std::string::npos) << r.status().ToString();

  for (size_t cut : {size_t{0}, size_t{3}, size_t{100}, bytes.size() - 1}) {
    WriteBytes(truncated, std::string_view(bytes).substr(0, cut));
    r = OpenGgufEmbedder({truncated});
    EXPECT_CODE(r.status(), StatusCode::kCorruption) << "cut at " << cut;
  }
  std::string bad_magic = bytes;
  bad_magic[0] = 'X';
  const std::string damaged = Models::Get().Sub("damaged.gguf");
  WriteBytes(damaged, bad_magic);
  r = OpenGgufEmbedder({damaged});
  EXPECT_CODE(r.status(), StatusCode::kCorruption);
  EXPECT_NE(r.status().ToString().find(damaged), std::string::npos) << r.status().ToString();
}

TEST(GgufEmbedderTest, ModelsWithoutSentencePoolingAreRefused) {
  const std::string& none = Models::Get().Bert(kNone);
  auto r = OpenGgufEmbedder({none, 1});
  EXPECT_CODE(r.status(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().ToString().find(none), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().ToString().find("has no pooling for sentence embeddings"),
            std::string::npos);

  // A generative decoder (random Qwen2 with its real tokenizer) declares no pooling.
  kv::ModelInitOptions q;
  q.shape = {1, 2, 1, 32, 64};
  q.output_path = Models::Get().Sub("qwen2.gguf");
  ASSERT_OK(kv::InitRandomModel(q));
  r = OpenGgufEmbedder({q.output_path, 1});
  EXPECT_CODE(r.status(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().ToString().find(q.output_path), std::string::npos);
  EXPECT_NE(r.status().ToString().find("has no pooling"), std::string::npos);
}

// Copies a GGUF with "<arch>.pooling_type" set, as converters do for decoder-based
// embedding models (Qwen3-Embedding: last-token pooling).
Status CopyWithPooling(const std::string& from, const std::string& to, const char* key,
                       uint32_t pooling) {
  ggml_context* data = nullptr;
  gguf_init_params p{/*no_alloc=*/false, &data};
  gguf_context* src = gguf_init_from_file(from.c_str(), p);
  if (src == nullptr) return Status::Corruption(from + ": unreadable");
  // A fresh context over the loaded tensors: writing `src` itself would follow
  // its tensor infos' backend-buffer fields, which a data-loading read leaves unset.
  gguf_context* dst = gguf_init_empty();
  gguf_set_kv(dst, src);
  gguf_set_val_u32(dst, key, pooling);
  for (int64_t t = 0; t < gguf_get_n_tensors(src); ++t) {
    gguf_add_tensor(dst, ggml_get_tensor(data, gguf_get_tensor_name(src, t)));
  }
  const bool ok = gguf_write_to_file(dst, to.c_str(), /*only_meta=*/false);
  gguf_free(dst);
  gguf_free(src);
  ggml_free(data);
  return ok ? Status::Ok() : Status::IOError("cannot write " + to);
}

TEST(GgufEmbedderTest, DecoderModelWithLastPoolingUsesAClearedCachePerBatch) {
  kv::ModelInitOptions q;
  q.shape = {1, 2, 1, 32, 64};
  q.output_path = Models::Get().Sub("qwen2-plain.gguf");
  ASSERT_OK(kv::InitRandomModel(q));
  const std::string path = Models::Get().Sub("qwen2-last.gguf");
  ASSERT_OK(CopyWithPooling(q.output_path, path, "qwen2.pooling_type", kLast));
  auto e = OpenOrDie(path, /*threads=*/1, /*batch=*/128);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->pooling(), GgufPooling::kLast);
  EXPECT_EQ(e->info().dim, 64u);
  std::vector<std::string> texts = {""};  // Qwen2 adds no special tokens: nothing to embed
  for (uint64_t i = 0; i < 12; ++i) texts.push_back(Prose(300 + i, 2 + i * 5));
  const std::vector<float> batched = EmbedAll(*e, texts);
  EXPECT_LT(e->stats().decodes, texts.size());
  std::vector<float> single;
  for (const std::string& t : texts) {
    std::vector<float> v = EmbedOne(*e, t);
    single.insert(single.end(), v.begin(), v.end());
  }
  EXPECT_LE(MaxAbsDiff(batched, single), kF16BatchTolerance);
  // The same batch again: nothing of the previous decode's cache leaks in.
  EXPECT_LE(MaxAbsDiff(EmbedAll(*e, texts), batched), kF16BatchTolerance);
}

TEST(GgufEmbedderTest, SpecSyntax) {
  ASSIGN_OR_FAIL(GgufEmbedderOptions o, ParseGgufSpec("/m/bge.gguf"));
  EXPECT_EQ(o.path, "/m/bge.gguf");
  EXPECT_EQ(o.threads, 0u);
  ASSIGN_OR_FAIL(o, ParseGgufSpec("/m/bge.gguf#threads=2,batch=512,ctx=256"));
  EXPECT_EQ(o.path, "/m/bge.gguf");
  EXPECT_EQ(o.threads, 2u);
  EXPECT_EQ(o.batch_tokens, 512u);
  EXPECT_EQ(o.max_tokens, 256u);
  ASSIGN_OR_FAIL(o, ParseGgufSpec("/m/a#b.gguf#"));
  EXPECT_EQ(o.path, "/m/a#b.gguf");
  for (const char* bad : {"", "#threads=1", "/m#threads=0", "/m#threads=x", "/m#batch=8",
                          "/m#size=3", "/m#threads", "/m#threads=1,", "/m#ctx=99999999999"}) {
    EXPECT_CODE(ParseGgufSpec(bad).status(), StatusCode::kInvalidArgument) << bad;
  }
  // Through the factory, as `vexfs index use gguf:PATH#...` does.
  ASSIGN_OR_FAIL(auto e, MakeEmbedder("gguf:" + Models::Get().Bert(kCls) + "#threads=1,ctx=64"));
  EXPECT_EQ(e->info().dim, 64u);
  EXPECT_CODE(MakeEmbedder("gguf:" + Models::Get().Sub("nothing.gguf")).status(),
              StatusCode::kNotFound);
  EXPECT_CODE(MakeEmbedder("gguf:").status(), StatusCode::kInvalidArgument);
}

// Seconds to embed `texts` one per Embed call (batch 0) or all in one call.
double TimeEmbedding(const std::string& path, const std::vector<std::string>& texts,
                     uint32_t batch, std::vector<float>* vectors) {
  auto e = OpenOrDie(path, /*threads=*/2, batch);
  if (e == nullptr) return 0;
  EmbedOne(*e, texts[0]);  // warm up
  const auto start = std::chrono::steady_clock::now();
  if (batch == 0) {
    for (const std::string& t : texts) {
      std::vector<float> v = EmbedOne(*e, t);
      vectors->insert(vectors->end(), v.begin(), v.end());
    }
  } else {
    *vectors = EmbedAll(*e, texts);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Throughput of a MiniLM-L6-shaped model (6 layers, 384 wide, 12 heads, FFN 1536,
// f16, 2 threads) on ~1200-byte passages and on 8-word queries, one text per
// llama_decode against packed batches. Not part of the suite: run with
// --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'.
TEST(GgufEmbedderTest, DISABLED_Throughput) {
  test::BertModelOptions o;
  o.shape = test::kMiniLmL6Shape;
  o.f16_weights = true;
  o.output_path = Models::Get().Sub("minilm-l6.gguf");
  ASSERT_OK(test::BuildRandomBert(o));
  std::vector<std::string> passages, queries;
  for (uint64_t i = 0; i < 64; ++i) passages.push_back(Prose(1000 + i, 400).substr(0, 1200));
  for (uint64_t i = 0; i < 256; ++i) queries.push_back(Prose(5000 + i, 8));
  for (const auto* set : {&passages, &queries}) {
    std::vector<float> single;
    for (uint32_t batch : {0u, 128u, 512u, 1024u, 2048u}) {
      if (set == &queries && batch > 512) continue;
      std::vector<float> v;
      const double s = TimeEmbedding(o.output_path, *set, batch, &v);
      if (batch == 0) single = v;
      std::printf("%-8s %-18s %4zu texts in %6.2f s = %7.1f texts/s (max diff %.2g)\n",
                  set == &passages ? "passage" : "query",
                  batch == 0 ? "one by one" : ("batch " + std::to_string(batch)).c_str(),
                  set->size(), s, set->size() / s, MaxAbsDiff(v, single));
    }
  }
}

}  // namespace
}  // namespace vexfs::index
