// The fault child's numbered puts, shared by the child that writes them and the
// tests that check what survived. Put i writes FaultPath(i) and rewrites
// kLatestPath in one transaction, so a torn put would show as a mismatch.
#ifndef VEXFS_TESTS_FAULT_FAULT_WORKLOAD_H_
#define VEXFS_TESTS_FAULT_FAULT_WORKLOAD_H_

#include <cstdint>
#include <string>

namespace vexfs::fault {

inline constexpr char kLatestPath[] = "latest";

inline std::string FaultPath(int i) {
  return "d" + std::to_string(i % 3) + "/f" + std::to_string(i);
}

// Sizes cycle through empty, small, chunk-boundary and multi-chunk files;
// contents alternate between incompressible and compressible bytes.
inline std::string FaultData(int i) {
  static constexpr uint64_t kSizes[] = {70000, 100, 200 * 1024, 0, 150000, 65536};
  std::string out(kSizes[i % 6], '\0');
  uint64_t x = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1);
  for (size_t b = 0; b < out.size(); ++b) {
    if (i % 2 == 0) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      out[b] = static_cast<char>(x);
    } else {
      out[b] = "put data "[(b + static_cast<size_t>(i)) % 9];
    }
  }
  return out;
}

inline std::string LatestData(int i) {
  std::string out;
  for (int r = 0; r < 2000; ++r) out += "latest put " + std::to_string(i) + "\n";
  return out;
}

}  // namespace vexfs::fault

#endif  // VEXFS_TESTS_FAULT_FAULT_WORKLOAD_H_
