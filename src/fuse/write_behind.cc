// WriteBehind: one thread running posted write-outs in order (see write_behind.h).
#include "fuse/write_behind.h"

#include <utility>

namespace vexfs::fuse {

WriteBehind::WriteBehind() : thread_([this] { Run(); }) {}

WriteBehind::~WriteBehind() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void WriteBehind::Post(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void WriteBehind::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing is left to write
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

}  // namespace vexfs::fuse
