// Lexical feature-hashing embedder.
//
// Features of a text: each normalised word (weight 1.0), each pair of adjacent
// words (0.5), and each character trigram of a word padded with boundary marks
// (0.25; these let "index" meet "indexing"). A feature's count becomes
// 1 + ln(count) (sublinear, so one repeated word cannot dominate), goes to bucket
// xxh64(feature) mod dim with a sign from another hash bit (so collisions cancel
// on average rather than pile up), and the vector is L2-normalised, making the
// inner product a cosine similarity.
#include "index/embedders/hash_embedder.h"

#include <xxhash.h>

#include <cctype>
#include <cmath>
#include <string>
#include <unordered_map>

namespace vexfs::index {
namespace {

constexpr uint64_t kWordSeed = 0x5645584653575244;     // distinct seeds keep the
constexpr uint64_t kPairSeed = 0x5645584653504152;     // three feature families
constexpr uint64_t kTrigramSeed = 0x5645584653545247;  // from colliding systematically
constexpr float kWordWeight = 1.0f;
constexpr float kPairWeight = 0.5f;
constexpr float kTrigramWeight = 0.25f;

// Words: runs of ASCII letters/digits (lower-cased) or of non-ASCII bytes (kept
// as is, so UTF-8 words of other scripts still form features).
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string cur;
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 0x80 || std::isalnum(c)) {
      cur.push_back(c < 0x80 ? static_cast<char>(std::tolower(c)) : ch);
    } else if (!cur.empty()) {
      words.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  return words;
}

class HashEmbedder : public Embedder {
 public:
  explicit HashEmbedder(uint32_t dim) {
    info_.name = "hash-" + std::to_string(dim);
    info_.dim = dim;
    info_.metric = Metric::kInnerProduct;
    info_.fingerprint = "vexfs-hash-v1:words1.0,pairs0.5,trigrams0.25,log-tf,l2:" +
                        std::to_string(dim);
  }

  const ModelInfo& info() const override { return info_; }

  Status Embed(const std::vector<std::string_view>& texts, std::vector<float>* out) override {
    out->reserve(out->size() + texts.size() * info_.dim);
    for (std::string_view text : texts) AppendVector(text, out);
    return Status::Ok();
  }

 private:
  struct Feature {
    float count = 0;
    float weight = 0;
  };

  void AppendVector(std::string_view text, std::vector<float>* out) const {
    std::unordered_map<uint64_t, Feature> features;  // by feature hash
    auto add = [&](uint64_t h, float weight) {
      Feature& f = features[h];
      f.count += 1;
      f.weight = weight;
    };
    std::vector<std::string> words = Words(text);
    for (size_t i = 0; i < words.size(); ++i) {
      add(Hash(words[i], kWordSeed), kWordWeight);
      if (i + 1 < words.size()) add(Hash(words[i] + " " + words[i + 1], kPairSeed), kPairWeight);
      std::string padded = "^" + words[i] + "$";
      for (size_t k = 0; k + 3 <= padded.size(); ++k) {
        add(Hash(std::string_view(padded).substr(k, 3), kTrigramSeed), kTrigramWeight);
      }
    }
    size_t base = out->size();
    out->resize(base + info_.dim, 0.0f);
    float* v = out->data() + base;
    for (const auto& [h, f] : features) {
      float sign = (h >> 63) ? -1.0f : 1.0f;
      v[h % info_.dim] += sign * f.weight * (1.0f + std::log(f.count));
    }
    double norm = 0;
    for (uint32_t i = 0; i < info_.dim; ++i) norm += double{v[i]} * v[i];
    if (norm > 0) {
      float inv = static_cast<float>(1.0 / std::sqrt(norm));
      for (uint32_t i = 0; i < info_.dim; ++i) v[i] *= inv;
    }
  }

  static uint64_t Hash(std::string_view s, uint64_t seed) {
    return XXH64(s.data(), s.size(), seed);
  }

  ModelInfo info_;
};

}  // namespace

std::unique_ptr<Embedder> MakeHashEmbedder(uint32_t dim) {
  return std::make_unique<HashEmbedder>(dim < 16 ? 16 : dim);
}

}  // namespace vexfs::index
