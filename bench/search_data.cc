// Benchmark vector sets and ground truth.
#include "search_data.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "bench_util.h"

namespace vexfs::bench {
namespace {

// The bytes of an idx file after its header (gzip-compressed on disk).
std::string ReadIdxImages(const std::string& path, size_t* count) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) DieErrno("open " + path + " (install dataset-fashion-mnist)");
  std::string bytes;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) bytes.append(buf, static_cast<size_t>(n));
  gzclose(f);
  auto be32 = [&](size_t at) {
    return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
           (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
  };
  if (bytes.size() < 16 || be32(0) != 0x803 || be32(8) != 28 || be32(12) != 28) {
    Check(Status::Corruption(path + " is not an idx3 file of 28x28 images"), "read dataset");
  }
  *count = be32(4);
  return bytes.substr(16);
}

void AppendScaled(const std::string& pixels, size_t from, size_t to, std::vector<float>* out) {
  for (size_t i = from * 784; i < to * 784; ++i) {
    out->push_back(static_cast<float>(static_cast<uint8_t>(pixels[i])) / 255.0f);
  }
}

float Score(const VectorSet& set, const float* a, const float* b) {
  double s = 0;
  for (uint32_t d = 0; d < set.dim; ++d) {
    s += set.l2 ? -double(a[d] - b[d]) * (a[d] - b[d]) : double(a[d]) * b[d];
  }
  return static_cast<float>(s);
}

}  // namespace

VectorSet LoadFashionMnist(const std::string& dir, size_t queries) {
  size_t train_n = 0, test_n = 0;
  std::string train = ReadIdxImages(dir + "/train-images-idx3-ubyte.gz", &train_n);
  std::string test = ReadIdxImages(dir + "/t10k-images-idx3-ubyte.gz", &test_n);
  VectorSet set{"Fashion-MNIST", 784, /*l2=*/true, {}, {}};
  set.base.reserve((train_n + test_n) * 784);
  AppendScaled(train, 0, train_n, &set.base);
  AppendScaled(test, 0, test_n - queries, &set.base);
  AppendScaled(test, test_n - queries, test_n, &set.queries);
  return set;
}

VectorSet MakeClustered(size_t n, uint32_t dim, size_t queries, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> gauss(0.0f, 1.0f);
  size_t clusters = std::max<size_t>(100, n / 1000);
  std::vector<float> centres(clusters * dim);
  for (float& c : centres) c = gauss(rng);
  auto draw = [&](size_t count, std::vector<float>* out) {
    out->resize(count * dim);
    for (size_t i = 0; i < count; ++i) {
      const float* c = &centres[(rng() % clusters) * dim];
      float* v = out->data() + i * dim;
      double norm = 0;
      for (uint32_t d = 0; d < dim; ++d) {
        v[d] = c[d] + 0.35f * gauss(rng);
        norm += double(v[d]) * v[d];
      }
      for (uint32_t d = 0; d < dim; ++d) v[d] = static_cast<float>(v[d] / std::sqrt(norm));
    }
  };
  VectorSet set{"clustered " + std::to_string(n), dim, /*l2=*/false, {}, {}};
  draw(n, &set.base);
  draw(queries, &set.queries);
  return set;
}

std::vector<std::vector<uint64_t>> ExactNeighbours(const VectorSet& set, size_t k,
                                                   const std::vector<bool>& visible) {
  std::vector<std::vector<uint64_t>> out(set.nq());
  std::vector<std::pair<float, uint64_t>> scored;
  for (size_t q = 0; q < set.nq(); ++q) {
    scored.clear();
    for (size_t i = 0; i < set.n(); ++i) {
      if (!visible.empty() && !visible[i]) continue;
      scored.push_back({Score(set, set.query(q), set.vec(i)), i});
    }
    size_t keep = std::min(k, scored.size());
    std::partial_sort(scored.begin(), scored.begin() + keep, scored.end(),
                      [](const auto& a, const auto& b) {
                        return a.first != b.first ? a.first > b.first : a.second < b.second;
                      });
    for (size_t j = 0; j < keep; ++j) out[q].push_back(scored[j].second);
  }
  return out;
}

double Recall(const std::vector<std::vector<uint64_t>>& got,
              const std::vector<std::vector<uint64_t>>& truth) {
  double sum = 0;
  size_t counted = 0;
  for (size_t q = 0; q < truth.size(); ++q) {
    if (truth[q].empty()) continue;
    std::set<uint64_t> want(truth[q].begin(), truth[q].end());
    size_t hit = 0;
    for (uint64_t id : got[q]) hit += want.count(id);
    sum += double(hit) / double(truth[q].size());
    ++counted;
  }
  return counted ? sum / double(counted) : 1.0;
}

std::string FilePath(size_t file, size_t files) {
  size_t half = std::max<size_t>(1, files / 2);
  size_t h = file < half ? 0 : 1;
  size_t r = (file % half) * 1000 / half;  // 0..999 across a half
  return "h" + std::to_string(h) + "/d" + std::to_string(r / 200) + "/e" +
         std::to_string(r / 20 % 10) + "/f" + std::to_string(r / 2 % 10) + "/" +
         std::to_string(file);
}

uint64_t VectorIdOf(const std::string& path, uint64_t offset) {
  size_t slash = path.rfind('/');
  return std::stoull(path.substr(slash + 1)) * kVectorsPerFile + offset;
}

}  // namespace vexfs::bench
