// OpenInode on its own: the write-behind rules with a store stood in by a
// recorder that can be told to fail (the mount tests cover them through the
// kernel and a real store).
#include "fuse/open_inode.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace vexfs::fuse {
namespace {

using std::chrono::steady_clock;

// A store of one file: what each apply wrote, and the failure the next applies
// get while `fail` is set. `Block()` holds background write-outs until `Release()`.
class RecordingStore {
 public:
  Status Apply(uint64_t ino, const WriteBuffer& buffer) {
    std::unique_lock lock(mu_);
    resumed_.wait(lock, [&] { return !blocked_; });
    ++applies_;
    if (fail_) return Status::NoSpace("the store is full");
    std::string stored = bytes_[ino];
    uint64_t size = std::max<uint64_t>(stored.size(), buffer.end());
    bytes_[ino] = buffer.Overlay(0, size, stored, size);
    return Status::Ok();
  }
  void set_fail(bool fail) {
    std::lock_guard lock(mu_);
    fail_ = fail;
  }
  void Block() {
    std::lock_guard lock(mu_);
    blocked_ = true;
  }
  void Release() {
    {
      std::lock_guard lock(mu_);
      blocked_ = false;
    }
    resumed_.notify_all();
  }
  std::string bytes(uint64_t ino) {
    std::lock_guard lock(mu_);
    return bytes_[ino];
  }
  int applies() {
    std::lock_guard lock(mu_);
    return applies_;
  }

 private:
  std::mutex mu_;
  std::condition_variable resumed_;
  bool blocked_ = false;
  bool fail_ = false;
  int applies_ = 0;
  std::map<uint64_t, std::string> bytes_;
};

class OpenInodeTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kIno = 7;

  OpenInodeTest() {
    context_.file_buffer_limit = 64;
    context_.total_buffer_limit = 1024;
    context_.writer = &writer_;
    context_.apply = [this](uint64_t ino, const WriteBuffer& buffer) {
      return store_.Apply(ino, buffer);
    };
    inode_ = std::make_shared<OpenInode>(kIno, &context_);
  }
  ~OpenInodeTest() override { store_.Release(); }

  // What a reader sees: the store with the buffers over it.
  std::string Read() {
    OpenInode::Guard guard = inode_->Lock();
    std::string stored = store_.bytes(kIno);
    if (!guard.buffered()) return stored;
    uint64_t size = guard.SizeOver(stored.size());
    return guard.Overlay(0, size, stored, size);
  }
  // Waits until the background writer has run everything posted so far.
  void DrainWriter() {
    std::mutex mu;
    std::condition_variable done;
    bool ran = false;
    writer_.Post([&] {
      std::lock_guard lock(mu);
      ran = true;
      done.notify_one();
    });
    std::unique_lock lock(mu);
    done.wait(lock, [&] { return ran; });
  }

  RecordingStore store_;
  BufferContext context_;
  std::shared_ptr<OpenInode> inode_;
  WriteBehind writer_;  // last: joined first, while the rest exists
};

TEST_F(OpenInodeTest, WritesStayBufferedUntilAFlush) {
  ASSERT_TRUE(inode_->Lock().Write(0, "hello").ok());
  ASSERT_TRUE(inode_->Lock().Write(5, " world").ok());
  EXPECT_EQ(store_.applies(), 0);
  EXPECT_EQ(context_.buffered_bytes, 11u);
  EXPECT_EQ(Read(), "hello world");
  ASSERT_TRUE(inode_->Lock().Flush().ok());
  EXPECT_EQ(store_.applies(), 1);
  EXPECT_EQ(store_.bytes(kIno), "hello world");
  EXPECT_EQ(context_.buffered_bytes, 0u);
  EXPECT_FALSE(inode_->Lock().buffered());
}

TEST_F(OpenInodeTest, AFullBufferGoesOutInTheBackgroundAndReadsSeeItMeanwhile) {
  store_.Block();
  const std::string first(32, 'a');  // half the file's limit
  ASSERT_TRUE(inode_->Lock().Write(0, first).ok());
  // Past half the limit: `first` is handed to the writer, blocked in the store.
  ASSERT_TRUE(inode_->Lock().Write(32, "bb").ok());
  EXPECT_EQ(store_.bytes(kIno), "");
  EXPECT_EQ(Read(), first + "bb");  // the bytes in flight are overlaid
  EXPECT_EQ(context_.buffered_bytes, 34u);
  store_.Release();
  DrainWriter();
  EXPECT_EQ(store_.bytes(kIno), first);
  EXPECT_EQ(context_.buffered_bytes, 2u);
  EXPECT_EQ(Read(), first + "bb");
}

TEST_F(OpenInodeTest, AFailedWriteOutIsRetriedByTheNextFlush) {
  store_.set_fail(true);
  ASSERT_TRUE(inode_->Lock().Write(0, std::string(32, 'a')).ok());
  ASSERT_TRUE(inode_->Lock().Write(32, "b").ok());  // starts a write-out that fails
  DrainWriter();
  EXPECT_EQ(Read(), std::string(32, 'a') + "b");  // nothing lost
  EXPECT_EQ(inode_->Lock().Flush().code(), StatusCode::kNoSpace);
  EXPECT_EQ(context_.buffered_bytes, 33u);
  store_.set_fail(false);
  ASSERT_TRUE(inode_->Lock().Flush().ok());
  EXPECT_EQ(store_.bytes(kIno), std::string(32, 'a') + "b");
  EXPECT_EQ(context_.buffered_bytes, 0u);
}

TEST_F(OpenInodeTest, AWriteThatCannotMakeRoomLeavesNothingOfItself) {
  context_.write_behind = false;
  ASSERT_TRUE(inode_->Lock().Write(0, std::string(60, 'a')).ok());
  store_.set_fail(true);
  // Past the file's limit: the buffer must go out first, and cannot.
  EXPECT_EQ(inode_->Lock().Write(60, std::string(10, 'z')).code(), StatusCode::kNoSpace);
  EXPECT_EQ(Read(), std::string(60, 'a'));
  EXPECT_EQ(context_.buffered_bytes, 60u);
}

TEST_F(OpenInodeTest, MemoryPressureFlushesInsteadOfBuffering) {
  context_.total_buffer_limit = 16;
  ASSERT_TRUE(inode_->Lock().Write(0, "0123456789").ok());
  ASSERT_TRUE(inode_->Lock().Write(10, "abcdefghij").ok());  // 20 > 16: flush first
  EXPECT_EQ(store_.bytes(kIno), "0123456789");
  EXPECT_EQ(context_.buffered_bytes, 10u);
}

TEST_F(OpenInodeTest, OldBuffersGoOutAndYoungOnesStay) {
  ASSERT_TRUE(inode_->Lock().Write(0, "old").ok());
  inode_->WriteOutIfOlderThan(steady_clock::now() - std::chrono::hours(1));
  DrainWriter();
  EXPECT_EQ(store_.applies(), 0);
  inode_->WriteOutIfOlderThan(steady_clock::now() + std::chrono::seconds(1));
  DrainWriter();
  EXPECT_EQ(store_.bytes(kIno), "old");
  EXPECT_EQ(context_.buffered_bytes, 0u);
}

TEST_F(OpenInodeTest, DropForgetsWhatCouldNotBeWritten) {
  store_.set_fail(true);
  ASSERT_TRUE(inode_->Lock().Write(0, "lost").ok());
  Status flushed = inode_->Lock().Flush();
  ASSERT_FALSE(flushed.ok());
  testing::internal::CaptureStderr();
  inode_->Lock().Drop(flushed);
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("dropping 4 unwritten bytes of inode 7"), std::string::npos) << log;
  EXPECT_EQ(context_.buffered_bytes, 0u);
  EXPECT_FALSE(inode_->Lock().buffered());
}

TEST_F(OpenInodeTest, AFlushWaitsForTheWriteOutInFlight) {
  store_.Block();
  ASSERT_TRUE(inode_->Lock().Write(0, std::string(32, 'a')).ok());
  ASSERT_TRUE(inode_->Lock().Write(32, "b").ok());  // in flight, blocked
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    store_.Release();
  });
  ASSERT_TRUE(inode_->Lock().Flush().ok());
  release.join();
  // Both buffers, in order: the write-out first, then the newer bytes.
  EXPECT_EQ(store_.bytes(kIno), std::string(32, 'a') + "b");
  EXPECT_EQ(store_.applies(), 2);
  EXPECT_EQ(context_.buffered_bytes, 0u);
}

}  // namespace
}  // namespace vexfs::fuse
