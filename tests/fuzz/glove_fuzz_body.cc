// The checks every fuzzed GloVe file goes through (see the header).
#include "fuzz/glove_fuzz_body.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "index/embedders/glove_embedder.h"
#include "index/embedders/glove_file.h"

namespace vexfs::index::fuzz {
namespace {

constexpr uint32_t kSampledWords = 64;

std::string CheckWords(const GloveFile& file) {
  uint32_t step = std::max<uint32_t>(1, file.count() / kSampledWords);
  std::vector<float> acc(file.dim(), 0.0f);
  for (uint32_t i = 0; i < file.count(); i += step) {
    std::string_view word = file.SortedWord(i);
    auto rank = file.Find(word);
    if (!rank) return "sorted word " + std::to_string(i) + " is not found";
    if (*rank >= file.count()) return "a rank is out of range";
    file.AddScaled(*rank, 1.0f, acc.data());
  }
  for (float v : acc) {
    if (!std::isfinite(v)) return "a verified file holds a non-finite vector value";
  }
  return "";
}

std::string CheckEmbeddings(std::shared_ptr<const GloveFile> file, std::string_view bytes) {
  auto embedder = MakeGloveEmbedder(std::move(file));
  // Texts: empty, common words, and part of the raw input as text.
  std::vector<std::string_view> texts = {"", "the car", bytes.substr(bytes.size() / 2, 512)};
  std::vector<float> out;
  if (!embedder->Embed(texts, &out).ok()) return "";  // refusing a text is allowed
  uint32_t dim = embedder->info().dim;
  if (out.size() != texts.size() * dim) return "wrong number of values";
  for (size_t t = 0; t < texts.size(); ++t) {
    double norm = 0;
    for (uint32_t d = 0; d < dim; ++d) {
      float v = out[t * dim + d];
      if (!std::isfinite(v)) return "a non-finite embedding value";
      norm += double(v) * v;
    }
    if (std::fabs(norm - 1.0) > 1e-3) return "an embedding is not a unit vector";
  }
  return "";
}

std::string CheckOne(std::string_view bytes) {
  auto file = GloveFile::FromBytes(bytes, "fuzz-input");
  if (!file.ok()) {
    if (file.status().message().find("fuzz-input") == std::string::npos) {
      return "an error does not name the file: " + file.status().ToString();
    }
    return "";
  }
  std::shared_ptr<const GloveFile> shared(std::move(*file));
  std::string broken = CheckWords(*shared);
  if (!broken.empty()) return broken;
  return CheckEmbeddings(shared, bytes);
}

}  // namespace

std::string RepairGloveChecksum(std::string_view bytes) {
  std::string out(bytes);
  if (out.size() < kGloveHeaderSize + kGloveTrailerSize) return out;
  size_t body = out.size() - kGloveTrailerSize;
  uint64_t sum = XXH3_64bits(out.data(), body);
  std::memcpy(out.data() + body, &sum, sizeof(sum));
  return out;
}

std::string CheckGloveReader(std::string_view bytes) {
  std::string broken = CheckOne(bytes);
  if (!broken.empty()) return "as given: " + broken;
  std::string repaired = RepairGloveChecksum(bytes);
  broken = CheckOne(repaired);
  return broken.empty() ? "" : "repaired: " + broken;
}

}  // namespace vexfs::index::fuzz
