// The GloVe sentence embedder (docs/glove.md, "Sentence vectors").
//
// A text is split into words (word_tokens.h); each word that the vocabulary has
// adds its vector with the SIF weight a / (a + p(w)), where p(w) is estimated from
// the word's frequency rank by Zipf's law because the source has no counts. A word
// it lacks is tried as clitic expansion, accent-folded, then as identifier pieces;
// whatever is still unknown adds a hashed character-n-gram vector with the weight
// of the rarest word. The sum is L2-normalised, so the inner product is a cosine.
// A text without words gets a fixed unit vector hashed from its bytes: no text
// embeds to zero or NaN.
#include "index/embedders/glove_embedder.h"

#include <xxhash.h>

#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "index/embedders/word_tokens.h"

namespace vexfs::index {
namespace {

constexpr double kSifA = 1e-3;                // Arora et al.'s recommended a
constexpr double kEulerGamma = 0.5772156649;  // H_N ~ ln N + gamma
constexpr uint64_t kNgramSeed = 0x56584753494e4752;  // "VXGSINGR"
constexpr uint64_t kLongSeed = 0x56584753494c4f4e;   // "VXGSILON"
constexpr uint64_t kEmptySeed = 0x5658475349454d50;  // "VXGSIEMP"
constexpr size_t kMinGram = 3, kMaxGram = 5;
// Unknown words longer than this take n-grams of their first kMaxGramBytes bytes
// plus one hash of the whole word, so a megabyte of base64 costs no more than a
// long identifier yet different blobs still differ.
constexpr size_t kMaxGramBytes = 64;

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// kSignTable[b][j] = +1 if bit j of b is set, else -1: adding a byte's row adds
// eight signs at once, which the compiler vectorises (bit by bit it was the
// embedder's hottest loop).
constexpr auto kSignTable = [] {
  std::array<std::array<float, 8>, 256> table{};
  for (int b = 0; b < 256; ++b) {
    for (int j = 0; j < 8; ++j) table[b][j] = ((b >> j) & 1) ? 1.0f : -1.0f;
  }
  return table;
}();

// acc[0..dim) += a pseudo-random +-1 vector drawn from `seed`: nearly orthogonal
// to any other seed's in 100 dimensions, which is what a feature direction needs.
void AddSigns(uint64_t seed, uint32_t dim, float* acc) {
  uint64_t state = seed;
  uint64_t bits = 0;
  for (uint32_t i = 0; i < dim; i += 8) {
    if (i % 64 == 0) bits = SplitMix64(&state);
    const std::array<float, 8>& signs = kSignTable[(bits >> (i % 64)) & 0xff];
    uint32_t n = dim - i < 8 ? dim - i : 8;
    for (uint32_t j = 0; j < n; ++j) acc[i + j] += signs[j];
  }
}

double SquaredNorm(const float* v, uint32_t dim) {
  double sum = 0;
  for (uint32_t i = 0; i < dim; ++i) sum += double{v[i]} * v[i];
  return sum;
}

class GloveEmbedder : public Embedder {
 public:
  explicit GloveEmbedder(std::shared_ptr<const GloveFile> file) : file_(std::move(file)) {
    info_.name = file_->name();
    info_.dim = file_->dim();
    info_.metric = Metric::kInnerProduct;
    info_.fingerprint = std::string(kGloveAlgorithm) + ":" + file_->payload_fingerprint();
    zipf_h_ = std::log(static_cast<double>(file_->count())) + kEulerGamma;
    unknown_weight_ = Weight(file_->count());
    acc_.resize(info_.dim);
    gram_.resize(info_.dim);
  }

  const ModelInfo& info() const override { return info_; }

  Status Embed(const std::vector<std::string_view>& texts, std::vector<float>* out) override {
    size_t base = out->size();
    out->reserve(base + texts.size() * info_.dim);
    for (std::string_view text : texts) {
      Status s = AppendVector(text, out);
      if (!s.ok()) {
        out->resize(base);
        return s;
      }
    }
    return Status::Ok();
  }

 private:
  // SIF weight of the word of frequency rank `rank`, with Zipf's estimate
  // p(r) = 1 / ((r + 1) H_N) in place of the counts the source lacks.
  float Weight(uint32_t rank) const {
    double p = 1.0 / ((rank + 1.0) * zipf_h_);
    return static_cast<float>(kSifA / (kSifA + p));
  }

  Status AppendVector(std::string_view text, std::vector<float>* out) {
    std::fill(acc_.begin(), acc_.end(), 0.0f);
    words_.clear();
    SplitRawWords(text, &words_);
    for (std::string_view raw : words_) AddWord(raw);
    double norm2 = SquaredNorm(acc_.data(), info_.dim);
    if (!std::isfinite(norm2)) {
      return Status::Corruption("GloVe vectors '" + file_->path() +
                                "' hold non-finite values");
    }
    if (norm2 == 0) {  // no words (or a cancellation that never happens in practice)
      AddSigns(XXH64(text.data(), text.size(), kEmptySeed), info_.dim, acc_.data());
      norm2 = SquaredNorm(acc_.data(), info_.dim);
    }
    // In double: the inverse of a tiny (denormal) norm overflows a float, which
    // turned a file's near-zero vectors into infinities (found by fuzzing).
    double inv = 1.0 / std::sqrt(norm2);
    for (float x : acc_) out->push_back(static_cast<float>(x * inv));
    return Status::Ok();
  }

  void AddWord(std::string_view raw) {
    NormalizeWord(raw, &cased_, &lower_);
    Clitic clitic;
    if (SplitClitic(lower_, &clitic)) {
      std::string_view expansion = clitic.expansion;
      size_t stem_len = clitic.stem.size();
      bool rewritten = clitic.stem.data() != lower_.data();
      if (rewritten) {
        AddKnown(clitic.stem);  // can, will, shall, is: always in the vocabulary
      } else if (stem_len > 0) {
        AddLowered(std::string_view(cased_).substr(0, stem_len),
                   std::string_view(lower_).substr(0, stem_len));
      }
      if (!expansion.empty()) AddKnown(expansion);
      return;
    }
    AddLowered(cased_, lower_);
  }

  // A normalised word, its cased and lower-cased spellings of equal length.
  void AddLowered(std::string_view cased, std::string_view lower) {
    if (AddKnown(lower)) return;
    parts_.clear();
    SplitIdentifier(cased, IdentifierSplit::kAtConnectors, &parts_);
    if (parts_.size() == 1 && parts_[0].second - parts_[0].first == lower.size()) {
      AddPart(cased, lower);
      return;
    }
    for (const auto& [begin, end] : parts_) {
      std::string_view part = lower.substr(begin, end - begin);
      if (!AddKnown(part)) AddPart(cased.substr(begin, end - begin), part);
    }
  }

  // A word or connector piece the vocabulary lacks: its humps, or else itself, as
  // known words or unknown-word vectors. One-character pieces are skipped: the
  // vocabulary has no one-letter words (wink removed them) and a letter or digit on
  // its own says too little to earn a random direction at full weight, which would
  // make all texts with "a" or "I" alike.
  void AddPart(std::string_view cased, std::string_view lower) {
    humps_.clear();
    SplitIdentifier(cased, IdentifierSplit::kAtHumps, &humps_);
    if (humps_.size() <= 1) {
      if (lower.size() > 1) AddUnknown(lower);
      return;
    }
    for (const auto& [begin, end] : humps_) {
      std::string_view hump = lower.substr(begin, end - begin);
      if (!AddKnown(hump) && hump.size() > 1) AddUnknown(hump);
    }
  }

  // Adds the vector of `lower` (or of its accent-folded spelling) if the vocabulary
  // has it.
  bool AddKnown(std::string_view lower) {
    std::optional<uint32_t> rank = Lookup(lower);
    if (!rank && FoldAccents(lower, &folded_)) rank = Lookup(folded_);
    if (!rank) return false;
    file_->AddScaled(*rank, Weight(*rank), acc_.data());
    return true;
  }

  std::optional<uint32_t> Lookup(std::string_view word) const {
    if (word.size() > kGloveMaxWordBytes) return std::nullopt;
    return file_->Find(word);
  }

  // Sum of the sign vectors of the word's boundary-marked 3-5-grams, scaled to the
  // norm of a rare word's vector and weighted like the rarest word.
  void AddUnknown(std::string_view lower) {
    std::fill(gram_.begin(), gram_.end(), 0.0f);
    padded_.clear();
    padded_.push_back('<');
    padded_.append(lower.substr(0, kMaxGramBytes));
    padded_.push_back('>');
    for (size_t n = kMinGram; n <= kMaxGram; ++n) {
      for (size_t k = 0; k + n <= padded_.size(); ++k) {
        AddSigns(XXH64(padded_.data() + k, n, kNgramSeed), info_.dim, gram_.data());
      }
    }
    if (lower.size() > kMaxGramBytes) {
      AddSigns(XXH64(lower.data(), lower.size(), kLongSeed), info_.dim, gram_.data());
    }
    double norm2 = SquaredNorm(gram_.data(), info_.dim);
    if (norm2 == 0) return;  // "<x>" has one trigram, so this needs dim 0
    float scale = static_cast<float>(unknown_weight_ * file_->oov_norm() / std::sqrt(norm2));
    for (uint32_t i = 0; i < info_.dim; ++i) acc_[i] += scale * gram_[i];
  }

  std::shared_ptr<const GloveFile> file_;
  ModelInfo info_;
  double zipf_h_ = 1;
  float unknown_weight_ = 1;
  // Scratch space reused across texts (an Embedder is used by one thread at a time).
  std::vector<float> acc_;
  std::vector<float> gram_;
  std::vector<std::string_view> words_;
  std::vector<std::pair<size_t, size_t>> parts_, humps_;
  std::string cased_, lower_, folded_, padded_;
};

}  // namespace

Result<std::unique_ptr<Embedder>> MakeGloveEmbedder(const std::string& path) {
  auto file = GloveFile::Open(path);
  if (!file.ok()) return file.status();
  return MakeGloveEmbedder(std::shared_ptr<const GloveFile>(std::move(file).value()));
}

std::unique_ptr<Embedder> MakeGloveEmbedder(std::shared_ptr<const GloveFile> file) {
  return std::make_unique<GloveEmbedder>(std::move(file));
}

}  // namespace vexfs::index
