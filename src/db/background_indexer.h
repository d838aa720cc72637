// The one background indexer a vexfs::Db runs: a thread that drains the search
// index's queue whenever the store commits, whoever committed (this process or
// another), woken by the store's CommitWatch. No writer notifies it. A second
// thread builds what searches use (Index::CatchUp: the Xapian checkpoint, the
// HNSW graphs, the catalogs) after each drain that did work, so a build of
// minutes never delays the next note's indexing, and no search builds anything.
//
// It lives apart from the index because it is scheduling, not indexing: when to
// drain, how to gather a burst of commits into one drain, how to back off after
// a failure, when to build. The index only knows how to drain (Index::Wait) and
// build (Index::CatchUp).
#ifndef VEXFS_DB_BACKGROUND_INDEXER_H_
#define VEXFS_DB_BACKGROUND_INDEXER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "vexfs/extension.h"
#include "vexfs/index.h"
#include "vexfs/status.h"

namespace vexfs::db {

// A commit is indexed at once (a note is searchable about a millisecond after its
// close) unless commits are arriving back to back: several since the last look,
// or one within kBurstWindow of the last drain's end (a build, an unpacked
// archive, a loop of small closes). Such a burst is gathered until the store has
// been quiet for kIndexSettle, kIndexGatherLimit at most, and indexed together,
// in a few transactions instead of one per file.
inline constexpr uint64_t kBurstCommits = 3;
inline constexpr auto kBurstWindow = std::chrono::milliseconds(10);
inline constexpr int kIndexSettleMs = 2;
inline constexpr auto kIndexGatherLimit = std::chrono::milliseconds(50);
// With no commit, the thread still looks this often: on a file system whose
// changes inotify does not report, this is how late indexing starts.
inline constexpr int kIdleLookMs = 1000;
// After a failed drain (an embedder that cannot run), the work stays queued and
// the thread waits this long before trying again.
inline constexpr int kRetryAfterFailureMs = 5000;

class BackgroundIndexer {
 public:
  // `index` opens (or returns) the Db's index; `drain` indexes what waits for
  // it (the index's queue, the graph's texts) until done or its argument says
  // stop; both are called from the threads. `branch`: whose working-tree
  // catalogs the builds ready ("" = HEAD's).
  using DrainFn = std::function<Status(Index* index, const std::function<bool()>& stop)>;
  BackgroundIndexer(std::function<Result<Index*>()> index, DrainFn drain,
                    std::unique_ptr<CommitWatch> watch, std::string branch);
  // Stops the thread.
  ~BackgroundIndexer();
  BackgroundIndexer(const BackgroundIndexer&) = delete;
  BackgroundIndexer& operator=(const BackgroundIndexer&) = delete;

  void Start();
  // Ends the threads; a drain in progress stops between batches (its work stays
  // queued), a build between FAISS adds or Xapian commits. Idempotent.
  void Stop();

 private:
  void Run();
  void RunBuilds();
  void RequestBuild();
  // Drains once; false if it failed.
  bool DrainOnce(bool first);
  // Waits for the store to be quiet for kIndexSettleMs, kIndexGatherLimit at most.
  void GatherBurst(uint64_t counter);

  std::function<Result<Index*>()> index_;
  DrainFn drain_;
  std::unique_ptr<CommitWatch> watch_;
  std::string branch_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::mutex build_mu_;  // guards build_requested_
  std::condition_variable build_cv_;
  bool build_requested_ = false;
  std::thread builder_;
};

}  // namespace vexfs::db

#endif  // VEXFS_DB_BACKGROUND_INDEXER_H_
