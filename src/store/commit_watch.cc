// CommitWatch (vexfs/extension.h): waking a thread on any process's commit to a
// store, by inotify on the LMDB data file plus LMDB's transaction counter.
//
// Why both: inotify says the file was written, not that a commit is visible
// (LMDB writes the data pages, syncs, then writes the meta page that publishes
// the commit). So a wake-up only counts once the counter moved, and the events
// are drained before the counter is read: the meta page's write after that
// raises a new event, and the next poll returns at once.
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "vexfs/extension.h"

namespace vexfs {

struct CommitWatch::Rep {
  Store* store = nullptr;
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

uint64_t CommitWatch::WaitPast(uint64_t seen, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    rep_->DrainEvents();
    uint64_t last = LastCommit();
    if (last > seen || rep_->interrupted.load()) return last;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return last;
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
