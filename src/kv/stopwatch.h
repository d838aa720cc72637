// Seconds since a point, for the timings capture, restore and validation report.
#ifndef VEXFS_KV_STOPWATCH_H_
#define VEXFS_KV_STOPWATCH_H_

#include <chrono>

namespace vexfs::kv {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  void Restart() { start_ = std::chrono::steady_clock::now(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace vexfs::kv

#endif  // VEXFS_KV_STOPWATCH_H_
