// The background indexer's loops: wait for a commit, gather a burst, drain; and
// after a drain that did work, build.
#include "db/background_indexer.h"

#include <limits>

namespace vexfs::db {

BackgroundIndexer::BackgroundIndexer(std::function<Result<Index*>()> index, DrainFn drain,
                                     std::unique_ptr<CommitWatch> watch, std::string branch)
    : index_(std::move(index)), drain_(std::move(drain)), watch_(std::move(watch)),
      branch_(std::move(branch)) {}

BackgroundIndexer::~BackgroundIndexer() { Stop(); }

void BackgroundIndexer::Start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  watch_->ClearInterrupt();
  thread_ = std::thread([this] { Run(); });
  builder_ = std::thread([this] { RunBuilds(); });
}

void BackgroundIndexer::Stop() {
  {
    std::lock_guard lock(build_mu_);
    stopping_ = true;
  }
  build_cv_.notify_all();
  watch_->Interrupt();
  if (thread_.joinable()) thread_.join();
  if (builder_.joinable()) builder_.join();
}

void BackgroundIndexer::RequestBuild() {
  {
    std::lock_guard lock(build_mu_);
    build_requested_ = true;
  }
  build_cv_.notify_one();
}

void BackgroundIndexer::RunBuilds() {
  auto stop = [this] { return stopping_.load(); };
  for (;;) {
    {
      std::unique_lock lock(build_mu_);
      build_cv_.wait(lock, [this] { return build_requested_ || stopping_; });
      if (stopping_) return;
      build_requested_ = false;  // drains during this build ask for one more
    }
    auto index = index_();
    // Errors (a full disk, a read-only index folder) are left for the searches,
    // which answer without what could not be built.
    if (index.ok()) (void)(*index)->CatchUp(stop, nullptr, branch_);
  }
}

void BackgroundIndexer::Run() {
  // `seen` is the counter read before the last drain began: a commit that lands
  // during a drain, after the drain last looked at the queue, moves the counter
  // past it, so the loop drains once more instead of missing it. The drain's own
  // commits do the same, which costs one drain that finds nothing.
  uint64_t seen = 0;
  auto last_drain_end = std::chrono::steady_clock::time_point{};
  bool first = true;
  while (!stopping_) {
    uint64_t counter = watch_->WaitPast(seen, first ? 0 : kIdleLookMs);
    if (stopping_) break;
    bool busy = counter - seen >= kBurstCommits ||
                std::chrono::steady_clock::now() - last_drain_end < kBurstWindow;
    if (!first && busy) GatherBurst(counter);
    seen = watch_->LastCommit();
    bool ok = DrainOnce(first);
    first = false;
    last_drain_end = std::chrono::steady_clock::now();
    // The work stays queued; an interrupt (Stop) cuts the pause short.
    if (!ok) watch_->WaitPast(std::numeric_limits<uint64_t>::max(), kRetryAfterFailureMs);
  }
}

bool BackgroundIndexer::DrainOnce(bool first) {
  auto index = index_();
  if (!index.ok()) return false;
  auto stop = [this] { return stopping_.load(); };
  uint64_t version = (*index)->IndexedVersion();
  if (!drain_(*index, stop).ok()) return false;
  // The first pass also loads what was built before, so the first search finds it ready.
  if (first || (*index)->IndexedVersion() != version) RequestBuild();
  return true;
}

void BackgroundIndexer::GatherBurst(uint64_t counter) {
  auto give_up = std::chrono::steady_clock::now() + kIndexGatherLimit;
  while (!stopping_ && std::chrono::steady_clock::now() < give_up) {
    uint64_t next = watch_->WaitPast(counter, kIndexSettleMs);
    if (next == counter) return;  // quiet for the settle time
    counter = next;
  }
}

}  // namespace vexfs::db
