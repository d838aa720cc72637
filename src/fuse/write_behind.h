// The mount's write-behind thread: writes full write buffers out to the store
// while their writers go on.
//
// Without the kernel's write-back cache (fuse_ops.cc says why) a writer's next
// request comes only after this one is answered, so hashing and committing a
// full buffer inside the request that filled it stalls the writer for as long.
// Handing the buffer to this thread lets the next megabytes arrive meanwhile;
// Filesystem keeps one buffer per file in flight here, so memory stays bounded.
// Jobs run one at a time, in the order posted.
#ifndef VEXFS_FUSE_WRITE_BEHIND_H_
#define VEXFS_FUSE_WRITE_BEHIND_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace vexfs::fuse {

class WriteBehind {
 public:
  WriteBehind();
  // Runs every job still queued, then stops the thread.
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  void Post(std::function<void()> job);

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_WRITE_BEHIND_H_
