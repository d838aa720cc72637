// The second thread of a stream's verification (leaf_pipeline.h).
#include "usxf/leaf_pipeline.h"

#include <algorithm>

#include "usxf/digests.h"

namespace vexfs::usxf {

LeafPipeline::LeafPipeline(uint64_t chunk_size, size_t piece_size, size_t buffers) : chunk_size_(chunk_size) {
  for (size_t i = 0; i < buffers; ++i) {
    storage_.push_back(std::make_unique<char[]>(piece_size));
    free_.push_back(storage_.back().get());
  }
  worker_ = std::thread([this] { Work(); });
}

LeafPipeline::~LeafPipeline() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

char* LeafPipeline::Acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return !free_.empty(); });
  char* buffer = free_.back();
  free_.pop_back();
  return buffer;
}

void LeafPipeline::Submit(char* buffer, size_t n, size_t section) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back({buffer, n, section});
  }
  changed_.notify_all();
}

std::vector<std::vector<Digest>> LeafPipeline::Finish(size_t sections) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return jobs_.empty() && busy_ == 0; });
  leaves_.resize(std::max(leaves_.size(), sections));
  return std::move(leaves_);
}

void LeafPipeline::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
    if (stop_) return;
    Job job = jobs_.front();
    jobs_.pop_front();
    ++busy_;
    lock.unlock();
    // Only this thread touches leaves_ until Finish has seen the queue empty.
    if (leaves_.size() <= job.section) leaves_.resize(job.section + 1);
    for (size_t at = 0; at < job.n; at += chunk_size_) {
      const size_t len = static_cast<size_t>(std::min<uint64_t>(chunk_size_, job.n - at));
      leaves_[job.section].push_back(ChunkLeaf(std::string_view(job.buffer + at, len)));
    }
    lock.lock();
    --busy_;
    free_.push_back(job.buffer);
    changed_.notify_all();
  }
}

}  // namespace vexfs::usxf
