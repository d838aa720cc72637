// Tests for RunOnThreads and ThreadsFor: every job done exactly once, on more
// than one thread when asked, and sensible thread counts.
#include "common/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace vexfs {
namespace {

TEST(ParallelTest, EveryJobRunsOnceWhateverTheThreads) {
  for (size_t threads : {size_t{1}, size_t{2}, size_t{5}}) {
    std::vector<std::atomic<int>> done(1000);
    std::atomic<size_t> next{0};
    std::mutex mu;
    std::set<std::thread::id> seen;
    RunOnThreads(threads, [&] {
      {
        std::lock_guard lock(mu);
        seen.insert(std::this_thread::get_id());
      }
      for (size_t i = next++; i < done.size(); i = next++) ++done[i];
    });
    for (size_t i = 0; i < done.size(); ++i) ASSERT_EQ(done[i].load(), 1) << i;
    // Each call ran on a thread of its own, the caller's among them.
    EXPECT_EQ(seen.size(), threads);
    EXPECT_EQ(seen.count(std::this_thread::get_id()), 1u);
  }
}

TEST(ParallelTest, ThreadsForStaysWithinJobsCoresAndCap) {
  size_t cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(ThreadsFor(0, 4, 8), 1u);    // always at least the caller
  EXPECT_EQ(ThreadsFor(7, 4, 8), 1u);    // not enough jobs for a second thread
  EXPECT_EQ(ThreadsFor(8, 4, 8), std::min<size_t>(2, cores));
  EXPECT_EQ(ThreadsFor(1000, 1, 3), std::min<size_t>(3, cores));
  EXPECT_EQ(ThreadsFor(1000, 0, 1000), cores);  // a zero share counts as one
}

}  // namespace
}  // namespace vexfs
