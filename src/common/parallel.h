// Running one piece of work on several cores at once, with the threads it can get.
#ifndef VEXFS_COMMON_PARALLEL_H_
#define VEXFS_COMMON_PARALLEL_H_

#include <cstddef>
#include <functional>

namespace vexfs {

// Calls `work` on up to `threads` threads at once, the calling thread included,
// and returns when every call has returned. `work` shares out its jobs itself
// (an atomic counter, say). Where no more threads can be started the ones
// running do the rest; nothing fails for lack of threads.
void RunOnThreads(size_t threads, const std::function<void()>& work);

// The threads worth starting for `jobs` jobs of at least `jobs_per_thread` each:
// at least 1, at most the number of cores and `cap`.
size_t ThreadsFor(size_t jobs, size_t jobs_per_thread, size_t cap);

}  // namespace vexfs

#endif  // VEXFS_COMMON_PARALLEL_H_
