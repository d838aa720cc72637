// CommitWatch (vexfs/extension.h): waking a thread on any process's commit to a
// store, by inotify on the LMDB data file plus LMDB's transaction counter.
//
// Why both: inotify says the file was written, not that a commit is visible
// (LMDB writes the data pages, syncs, writes the meta page, and then publishes
// the commit to new readers in its lock table, which raises no event). So a
// wake-up counts only once the counter readers see (Store::LastCommitId) moved,
// and the events are drained before it is read: a later meta page write raises
// a new event. A meta page already written but not yet published is waited for
// in short sleeps, since nothing else will announce it.
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

#include "store/store_impl.h"
#include "vexfs/extension.h"

namespace vexfs {

struct CommitWatch::Rep {
  Store* store = nullptr;
  MDB_env* env = nullptr;
  int inotify_fd = -1;
  int wake_fd = -1;  // an eventfd: Interrupt() writes it
  std::atomic<bool> interrupted{false};

  ~Rep() {
    if (inotify_fd >= 0) close(inotify_fd);
    if (wake_fd >= 0) close(wake_fd);
  }

  void DrainEvents() const {
    alignas(inotify_event) char buf[4096];
    while (read(inotify_fd, buf, sizeof buf) > 0) {
    }
  }
};

namespace {

Status Errno(const std::string& what) {
  return Status::IOError("commit watch: " + what + ": " + std::strerror(errno));
}

}  // namespace

Result<std::unique_ptr<CommitWatch>> CommitWatch::Open(Store* store) {
  auto rep = std::make_unique<Rep>();
  rep->store = store;
  rep->env = internal::ImplOf(store)->lmdb().env();
  rep->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (rep->inotify_fd < 0) return Errno("inotify_init1");
  std::string data_file = store->path() + "/data.mdb";
  if (inotify_add_watch(rep->inotify_fd, data_file.c_str(), IN_MODIFY) < 0) {
    return Errno("watch '" + data_file + "'");
  }
  rep->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (rep->wake_fd < 0) return Errno("eventfd");
  return std::unique_ptr<CommitWatch>(new CommitWatch(std::move(rep)));
}

CommitWatch::CommitWatch(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
CommitWatch::~CommitWatch() = default;

uint64_t CommitWatch::LastCommit() const { return rep_->store->LastCommitId(); }

namespace {

constexpr auto kPublishWait = std::chrono::milliseconds(10);

// The newest commit whose meta page is written, published to readers or not.
uint64_t WrittenCommit(MDB_env* env) {
  MDB_envinfo info{};
  mdb_env_info(env, &info);
  return info.me_last_txnid;
}

}  // namespace

uint64_t CommitWatch::WaitPast(uint64_t seen, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::optional<std::chrono::steady_clock::time_point> unpublished_since;
  for (;;) {
    rep_->DrainEvents();
    uint64_t last = LastCommit();
    if (last > seen || rep_->interrupted.load()) return last;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return last;
    if (WrittenCommit(rep_->env) > seen) {
      // Written, about to be published: microseconds away, with no event to come.
      // A writer killed in between never publishes it (the next writer does), so
      // this waits for it 10 ms at most.
      auto now = std::chrono::steady_clock::now();
      if (!unpublished_since) unpublished_since = now;
      if (now - *unpublished_since < kPublishWait) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        continue;
      }
    }
    pollfd fds[2] = {{rep_->inotify_fd, POLLIN, 0}, {rep_->wake_fd, POLLIN, 0}};
    // Rounded up, so a wait of under a millisecond still sleeps instead of spinning.
    poll(fds, 2, static_cast<int>(left.count()) + 1);
  }
}

void CommitWatch::Interrupt() {
  rep_->interrupted = true;
  uint64_t one = 1;
  // A full counter (impossible in practice) still leaves the fd readable.
  (void)!write(rep_->wake_fd, &one, sizeof one);
}

void CommitWatch::ClearInterrupt() {
  rep_->interrupted = false;
  uint64_t value = 0;
  (void)!read(rep_->wake_fd, &value, sizeof value);
}

bool CommitWatch::interrupted() const { return rep_->interrupted.load(); }

}  // namespace vexfs
