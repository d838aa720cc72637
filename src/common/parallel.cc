// RunOnThreads and ThreadsFor (see parallel.h).
#include "common/parallel.h"

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

namespace vexfs {

void RunOnThreads(size_t threads, const std::function<void()>& work) {
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones running (and this one) finish
    }
  }
  work();
  for (std::thread& t : pool) t.join();
}

size_t ThreadsFor(size_t jobs, size_t jobs_per_thread, size_t cap) {
  size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max<size_t>(1, std::min({cores, cap, jobs / std::max<size_t>(1, jobs_per_thread)}));
}

}  // namespace vexfs
