// Data for the search benchmark: Fashion-MNIST from Debian's dataset package,
// clustered synthetic vectors, exact ground truth, and the file layout that maps
// vector ids onto store files and directories (for filtered searches).
#ifndef VEXFS_BENCH_SEARCH_DATA_H_
#define VEXFS_BENCH_SEARCH_DATA_H_

#include <cstdint>
#include <string>
#include <vector>

namespace vexfs::bench {

struct VectorSet {
  std::string name;
  uint32_t dim = 0;
  bool l2 = false;  // metric: L2 distance, else inner product
  std::vector<float> base;     // n * dim
  std::vector<float> queries;  // nq * dim
  size_t n() const { return base.size() / dim; }
  size_t nq() const { return queries.size() / dim; }
  const float* vec(size_t i) const { return base.data() + i * dim; }
  const float* query(size_t i) const { return queries.data() + i * dim; }
};

// Fashion-MNIST: 60k training and 10k test images, 784 bytes each, scaled to
// [0, 1]. The last `queries` test images are the queries; every other image (70k
// minus the queries) is the base. L2 metric, as usual for this set.
VectorSet LoadFashionMnist(const std::string& dir, size_t queries);

// `n` vectors around max(100, n / 1000) random centres (standard normal per
// dimension), each centre plus normal noise of standard deviation 0.35 per
// dimension, then L2-normalised; inner product metric. Queries are drawn the
// same way from the same centres. Deterministic for a seed.
VectorSet MakeClustered(size_t n, uint32_t dim, size_t queries, uint64_t seed);

// Exact top-k ids of every query among the ids `visible` says (all when empty),
// by brute force; best first.
std::vector<std::vector<uint64_t>> ExactNeighbours(const VectorSet& set, size_t k,
                                                   const std::vector<bool>& visible = {});

// Fraction of `truth` ids found in `got`, averaged over queries.
double Recall(const std::vector<std::vector<uint64_t>>& got,
              const std::vector<std::vector<uint64_t>>& truth);

// Files of the store: `kVectorsPerFile` vectors per file, one byte range each.
// File f lives at "h{0,1}/d{0-4}/e{0-9}/f{0-9}/f" so that the prefixes "h0",
// "h0/d0", "h0/d0/e0" and "h0/d0/e0/f0" hold about 50%, 10%, 1% and 0.1% of all.
inline constexpr size_t kVectorsPerFile = 100;
std::string FilePath(size_t file, size_t files);
// The vector id a search hit names (file path and byte offset).
uint64_t VectorIdOf(const std::string& path, uint64_t offset);

}  // namespace vexfs::bench

#endif  // VEXFS_BENCH_SEARCH_DATA_H_
