// The background indexer's loop: wait for a commit, gather a burst, drain.
#include "db/background_indexer.h"

#include <limits>

namespace vexfs::db {

BackgroundIndexer::BackgroundIndexer(std::function<Result<Index*>()> index,
                                     std::unique_ptr<CommitWatch> watch)
    : index_(std::move(index)), watch_(std::move(watch)) {}

BackgroundIndexer::~BackgroundIndexer() { Stop(); }

void BackgroundIndexer::Start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  watch_->ClearInterrupt();
  thread_ = std::thread([this] { Run(); });
}

void BackgroundIndexer::Stop() {
  stopping_ = true;
  watch_->Interrupt();
  if (thread_.joinable()) thread_.join();
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
  if (!(*index)->Wait(nullptr, stop).ok()) return false;
  // The first pass also loads the lexical index, so the first search finds it ready.
  if (first || (*index)->IndexedVersion() != version) (*index)->CatchUp(stop);
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
