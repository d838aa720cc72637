// Merkle leaves hashed on a second thread while a stream is read on: the
// SHA-256 of a USXF stream is the larger part of its verification (about
// 1.3 GB/s on one core here, against over 10 GB/s for XXH3), and a
// receiver's own thread is busy taking the bytes in and writing them out.
// Pieces are handed over whole and come back as the leaves of their chunks,
// in the order given. See digests.h for the tree.
//
// Thread-safety: Acquire, Submit and Finish from one thread; the worker is
// internal.
#ifndef VEXFS_USXF_LEAF_PIPELINE_H_
#define VEXFS_USXF_LEAF_PIPELINE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "vexfs/usxf.h"

namespace vexfs::usxf {

class LeafPipeline {
 public:
  // `piece_size` must be a multiple of `chunk_size`; `buffers` pieces may be
  // in flight at once.
  LeafPipeline(uint64_t chunk_size, size_t piece_size, size_t buffers);
  ~LeafPipeline();  // stops the worker; pieces not yet hashed are dropped
  LeafPipeline(const LeafPipeline&) = delete;
  LeafPipeline& operator=(const LeafPipeline&) = delete;

  // A buffer of piece_size bytes to read the next piece into; waits for one.
  char* Acquire();
  // Hands over the buffer Acquire gave, holding `n` bytes that start a chunk
  // of section `section` (a piece holds whole chunks, but for the last
  // piece of a section).
  void Submit(char* buffer, size_t n, size_t section);
  // Waits for every piece handed over; the leaves of sections 0..sections-1.
  std::vector<std::vector<Digest>> Finish(size_t sections);

 private:
  struct Job {
    char* buffer;
    size_t n;
    size_t section;
  };
  void Work();

  const uint64_t chunk_size_;
  std::vector<std::unique_ptr<char[]>> storage_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<char*> free_;  // guarded by mu_
  std::deque<Job> jobs_;     // guarded by mu_
  size_t busy_ = 0;          // jobs taken, not yet done; guarded by mu_
  bool stop_ = false;        // guarded by mu_
  std::vector<std::vector<Digest>> leaves_;  // written by the worker, read after Finish
  std::thread worker_;
};

}  // namespace vexfs::usxf

#endif  // VEXFS_USXF_LEAF_PIPELINE_H_
