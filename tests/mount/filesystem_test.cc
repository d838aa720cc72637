// The mount's Filesystem class without the kernel: when buffered writes reach the
// store (limits per file and over all files, written out in the write that
// passes a limit or in the background, and bytes that waited too long), what a
// failed write leaves, and that reads see every acknowledged byte meanwhile.
#include "fuse/filesystem.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace vexfs::fuse {
namespace {

using test::TempDir;

constexpr uint64_t kKiB = 1024;

class FilesystemTest : public ::testing::Test {
 protected:
  void Start(const FilesystemOptions& options, uint64_t map_size = 0) {
    StoreOptions store_options;
    store_options.map_size = map_size;
    store_options.sync_on_commit = false;
    auto store = Store::Create(dir_.Sub("store"), store_options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    auto fs = Filesystem::Create(store_.get(), nullptr, options);
    ASSERT_TRUE(fs.ok()) << fs.status().ToString();
    fs_ = std::move(*fs);
  }

  // Creates `name` at the root, open for writing: {ino, fh}.
  std::pair<uint64_t, uint64_t> CreateFile(const std::string& name) {
    auto created = fs_->Create(kRootIno, name, 0644, O_WRONLY | O_CREAT, Caller{});
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? std::make_pair(created->first.ino, created->second.fh)
                        : std::make_pair(uint64_t{0}, uint64_t{0});
  }

  // Waits up to 10 s for the store to hold `size` bytes of `name`.
  bool StoredSizeBecomes(const std::string& name, uint64_t size) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (StoredSize(name) != size) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }

  // The size the store holds, what another process would see.
  uint64_t StoredSize(const std::string& name) {
    auto tree = store_->Tree();
    if (!tree.ok()) return ~uint64_t{0};
    auto attr = (*tree)->Stat(name);
    return attr.ok() ? attr->size : ~uint64_t{0};
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Filesystem> fs_;
};

TEST_F(FilesystemTest, AFileOverItsLimitWritesOutBeforeBufferingMore) {
  FilesystemOptions options;
  options.file_buffer_limit = 64 * kKiB;
  options.write_behind = false;
  Start(options);
  auto [ino, fh] = CreateFile("f");
  const std::string block(60 * kKiB, 'a');
  ASSERT_TRUE(fs_->Write(ino, fh, 0, block).ok());
  EXPECT_EQ(StoredSize("f"), 0u);  // buffered
  ASSERT_TRUE(fs_->Write(ino, fh, block.size(), std::string(10 * kKiB, 'b')).ok());
  EXPECT_EQ(StoredSize("f"), block.size());  // the first block went out first
  auto attr = fs_->GetAttr(ino);
  ASSERT_TRUE(attr.ok());
  EXPECT_EQ(attr->size, 70 * kKiB);  // readers see the buffered bytes too
  ASSERT_TRUE(fs_->Release(ino, fh).ok());
  EXPECT_EQ(StoredSize("f"), 70 * kKiB);
}

TEST_F(FilesystemTest, AFileOverHalfItsLimitWritesOutInTheBackgroundWhileItsWriterGoesOn) {
  FilesystemOptions options;
  options.file_buffer_limit = 64 * kKiB;
  Start(options);
  auto [ino, fh] = CreateFile("f");
  const std::string first(20 * kKiB, 'a'), second(10 * kKiB, 'b'), third(25 * kKiB, 'c');
  ASSERT_TRUE(fs_->Write(ino, fh, 0, first).ok());
  ASSERT_TRUE(fs_->Write(ino, fh, first.size(), second).ok());
  EXPECT_EQ(StoredSize("f"), 0u);  // 30 KiB: within half the limit, all buffered
  // The next write would pass half the limit: the 30 KiB go out in the
  // background, and this write is buffered at once.
  ASSERT_TRUE(fs_->Write(ino, fh, 30 * kKiB, third).ok());
  EXPECT_TRUE(StoredSizeBecomes("f", 30 * kKiB));  // with no close, flush or fsync
  auto attr = fs_->GetAttr(ino);
  ASSERT_TRUE(attr.ok());
  EXPECT_EQ(attr->size, 55 * kKiB);
  auto all = fs_->Read(ino, fh, 0, 100 * kKiB);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, first + second + third);
  ASSERT_TRUE(fs_->Release(ino, fh).ok());
  EXPECT_EQ(StoredSize("f"), 55 * kKiB);
}

TEST_F(FilesystemTest, BytesKeptInAnOpenFileGoOutOnceTheyAreOld) {
  FilesystemOptions options;
  options.max_buffer_age = std::chrono::seconds(5);
  Start(options);
  auto [ino, fh] = CreateFile("f");
  // A write-out is posted to another thread: a wrong one would show in the
  // store within this wait.
  auto stays_buffered = [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return StoredSize("f") == 0;
  };
  const auto before_first = std::chrono::steady_clock::now();
  ASSERT_TRUE(fs_->Write(ino, fh, 0, "first").ok());
  const auto between = std::chrono::steady_clock::now();
  ASSERT_TRUE(fs_->Write(ino, fh, 5, "second").ok());
  // Younger than the limit: they stay buffered.
  fs_->WriteOutAged(before_first + std::chrono::seconds(4));
  EXPECT_TRUE(stays_buffered());
  // Old enough by the first write's age, not the last one's: out in the
  // background, with the file still open.
  fs_->WriteOutAged(between + std::chrono::seconds(5));
  EXPECT_TRUE(StoredSizeBecomes("f", 11));
  // Bytes written after that start a new age; reads see every byte meanwhile.
  ASSERT_TRUE(fs_->Write(ino, fh, 11, "third").ok());
  fs_->WriteOutAged(std::chrono::steady_clock::now());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(StoredSize("f"), 11u);
  auto all = fs_->Read(ino, fh, 0, 100);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, "firstsecondthird");
  ASSERT_TRUE(fs_->Release(ino, fh).ok());
  EXPECT_EQ(StoredSize("f"), 16u);
}

TEST_F(FilesystemTest, AnOldWriteOutThatFailedIsTriedAgainUntilItGetsOut) {
  FilesystemOptions options;
  options.max_buffer_age = std::chrono::seconds(5);
  Start(options, 8 << 20);  // a small store, filled below
  auto write_random = [&](uint64_t ino, uint64_t fh, uint64_t blocks, uint64_t seed) {
    for (uint64_t i = 0; i < blocks; ++i) {
      ASSERT_TRUE(fs_->Write(ino, fh, i * 64 * kKiB, test::RandomBytes(seed + i, 64 * kKiB)).ok());
    }
  };
  auto [filler, filler_fh] = CreateFile("filler");
  write_random(filler, filler_fh, 80, 1000);  // 5 MiB
  ASSERT_TRUE(fs_->Release(filler, filler_fh).ok());
  auto [ino, fh] = CreateFile("f");
  write_random(ino, fh, 64, 2000);  // 4 MiB: more than the store has room for
  const auto later = std::chrono::steady_clock::now() + std::chrono::hours(1);
  fs_->WriteOutAged(later);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(StoredSize("f"), 0u);  // the write-out failed; its bytes are kept
  // Room again: the next check tries the failed write-out once more.
  ASSERT_TRUE(fs_->Unlink(kRootIno, "filler").ok());
  ASSERT_TRUE(store_->Gc().ok());
  fs_->WriteOutAged(later);
  EXPECT_TRUE(StoredSizeBecomes("f", 4 << 20));
  EXPECT_TRUE(fs_->Release(ino, fh).ok());
}

TEST_F(FilesystemTest, MemoryPressureWritesOutOtherFiles) {
  FilesystemOptions options;
  options.file_buffer_limit = 1024 * kKiB;
  options.total_buffer_limit = 100 * kKiB;
  Start(options);
  auto [a, fa] = CreateFile("a");
  auto [b, fb] = CreateFile("b");
  ASSERT_TRUE(fs_->Write(a, fa, 0, std::string(60 * kKiB, 'a')).ok());
  EXPECT_EQ(StoredSize("a"), 0u);
  // b's write takes all files past the limit: a's buffer goes out, b's stays.
  ASSERT_TRUE(fs_->Write(b, fb, 0, std::string(60 * kKiB, 'b')).ok());
  EXPECT_EQ(StoredSize("a"), 60 * kKiB);
  EXPECT_EQ(StoredSize("b"), 0u);
  ASSERT_TRUE(fs_->Release(a, fa).ok());
  ASSERT_TRUE(fs_->Release(b, fb).ok());
  EXPECT_EQ(StoredSize("b"), 60 * kKiB);
}

TEST_F(FilesystemTest, BytesThatCannotBeWrittenOutAtShutdownAreLoggedAsDropped) {
  FilesystemOptions options;
  options.write_behind = false;  // 6 MiB stay buffered until the flush
  Start(options, 4 << 20);       // in a store that cannot hold them
  auto [ino, fh] = CreateFile("f");
  uint64_t written = 0;
  for (uint64_t i = 0; i < 96; ++i) {
    std::string block = test::RandomBytes(i, 64 * kKiB);
    ASSERT_TRUE(fs_->Write(ino, fh, written, block).ok());
    written += block.size();
  }
  ::testing::internal::CaptureStderr();
  Status st = fs_->FlushAll();
  std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(st.code(), StatusCode::kNoSpace) << st.ToString();
  std::string expected = "dropping " + std::to_string(written) + " unwritten bytes of inode " +
                         std::to_string(ino) + ": ";
  EXPECT_NE(log.find(expected), std::string::npos) << log;
  (void)fs_->Release(ino, fh);
}

// copy_file_range within one file racing a write to it: once both returned, the
// file must be as long as the copy made it. (Without the file's lock held across
// the copy, a write in between would buffer the size from before the copy, and
// hide the copied bytes until its own close.)
TEST_F(FilesystemTest, ACopyWithinAFileIsNotHiddenByAWriteRacingIt) {
  Start(FilesystemOptions{});
  auto [ino, fh] = CreateFile("f");
  ASSERT_TRUE(fs_->Write(ino, fh, 0, std::string(4 * kKiB, 'a')).ok());
  constexpr int kRounds = 100;
  for (int round = 1; round <= kRounds; ++round) {
    const uint64_t copy_end = (4 + 4 * round) * kKiB;
    std::atomic<bool> copied{false};
    std::thread copier([&] {
      auto n = fs_->CopyFileRange(ino, 0, ino, copy_end - 4 * kKiB, 4 * kKiB);
      EXPECT_TRUE(n.ok()) << n.status().ToString();
      copied = true;
    });
    // Writes all through the copy, so one lands between its flush and its commit.
    bool wrote = true;
    do {
      wrote = wrote && fs_->Write(ino, fh, 100, "x").ok();
    } while (!copied);
    copier.join();
    ASSERT_TRUE(wrote);
    auto attr = fs_->GetAttr(ino);
    ASSERT_TRUE(attr.ok());
    ASSERT_EQ(attr->size, copy_end) << "round " << round;
  }
  ASSERT_TRUE(fs_->Release(ino, fh).ok());
}

// open(O_CREAT | O_TRUNC) of a file that exists (another creator was first):
// the attributes it answers, which the kernel caches, are the truncated ones.
TEST_F(FilesystemTest, CreatingAnExistingFileWithOTruncAnswersItsNewSize) {
  Start(FilesystemOptions{});
  auto [ino, fh] = CreateFile("f");
  ASSERT_OK(fs_->Write(ino, fh, 0, std::string(100, 'x')).status());
  ASSERT_OK(fs_->Release(ino, fh));
  auto again = fs_->Create(kRootIno, "f", 0644, O_WRONLY | O_CREAT | O_TRUNC, Caller{});
  ASSERT_OK(again.status());
  EXPECT_EQ(again->first.ino, ino);
  EXPECT_EQ(again->first.size, 0u);
  EXPECT_EQ(StoredSize("f"), 0u);
  auto kept = fs_->Create(kRootIno, "f", 0644, O_WRONLY | O_CREAT, Caller{});
  ASSERT_OK(kept.status());
  EXPECT_EQ(kept->first.ino, ino);
  EXPECT_CODE(fs_->Create(kRootIno, "f", 0644, O_WRONLY | O_CREAT | O_EXCL, Caller{}).status(),
              StatusCode::kAlreadyExists);
  ASSERT_OK(fs_->Release(ino, again->second.fh));
  ASSERT_OK(fs_->Release(ino, kept->second.fh));
}

// Another process (the CLI, the library) shrinks a file while this mount holds
// writes to it in a buffer. The size the mount shows is the store's, or where
// the buffered writes end if that is further, at once and not only after the
// buffer drains; a buffer keeping the size it saw first would show the old
// size and its old bytes as zeros. (A truncate racing the first write of a file
// no one had open reached the same state inside the mount.)
TEST_F(FilesystemTest, AFileShrunkElsewhereWhileBufferedShowsItsNewSizeAtOnce) {
  Start(FilesystemOptions{});
  auto [ino, fh] = CreateFile("f");
  ASSERT_OK(fs_->Write(ino, fh, 0, std::string(100, 'x')).status());
  ASSERT_OK(fs_->Flush(ino, fh));
  ASSERT_OK(fs_->Write(ino, fh, 0, "ab").status());  // buffered
  auto tree = store_->Tree();
  ASSERT_TRUE(tree.ok());
  ASSERT_OK((*tree)->Edit([&](TreeEditor& ed) { return ed.Truncate(ino, 10); }));
  auto attr = fs_->GetAttr(ino);
  ASSERT_OK(attr.status());
  EXPECT_EQ(attr->size, 10u);
  auto read = fs_->Read(ino, fh, 0, 1000);
  ASSERT_OK(read.status());
  EXPECT_EQ(*read, "abxxxxxxxx");
  // A write past the store's new end: the gap reads as zeros.
  ASSERT_OK(fs_->Write(ino, fh, 20, "zz").status());
  attr = fs_->GetAttr(ino);
  ASSERT_OK(attr.status());
  EXPECT_EQ(attr->size, 22u);
  const std::string expected = "abxxxxxxxx" + std::string(10, '\0') + "zz";
  read = fs_->Read(ino, fh, 0, 1000);
  ASSERT_OK(read.status());
  EXPECT_EQ(*read, expected);
  ASSERT_OK(fs_->Release(ino, fh));
  EXPECT_EQ(StoredSize("f"), 22u);
  auto stored = (*tree)->ReadAll("f");
  ASSERT_OK(stored.status());
  EXPECT_EQ(*stored, expected);
}

// A flush (what fsync and close do first) and a writer both waiting for the
// file's write-out in flight: the flush must go first. Were the writer first, it
// would start the next write-out, and the flush would wait for that one too,
// and so on while the writer kept refilling its buffer. The test holds the
// store's write transaction so that the write-out cannot end before both wait.
TEST_F(FilesystemTest, AFlushWaitingForAWriteOutGoesBeforeAWriterWaitingForIt) {
  FilesystemOptions options;
  options.file_buffer_limit = 512 * kKiB;  // halves of 256 KiB: four writes of 64 KiB
  Start(options);
  auto [ino, fh] = CreateFile("f");
  const std::string block = test::RandomBytes(7, 64 * kKiB);
  auto tree = store_->Tree();
  ASSERT_TRUE(tree.ok());
  uint64_t offset = 0;
  for (int round = 0; round < 8; ++round) {
    std::promise<void> inside, go_on;
    std::thread holder([&] {
      ASSERT_OK((*tree)->Edit([&](TreeEditor&) {
        inside.set_value();
        go_on.get_future().wait();
        return Status::Ok();
      }));
    });
    inside.get_future().wait();
    const uint64_t base = offset;
    std::atomic<int> acked{0}, finished{0};
    std::thread writer([&] {
      // Four writes fill the buffer; the fifth hands it to the write-out (which
      // waits for the held transaction) and starts the next; the ninth waits.
      for (int i = 0; i < 9; ++i) {
        ASSERT_OK(fs_->Write(ino, fh, offset, block).status());
        offset += block.size();
        ++acked;
      }
      ++finished;
    });
    while (acked < 8) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    uint64_t stored_after_flush = 0;
    std::thread flusher([&] {
      ASSERT_OK(fs_->Flush(ino, fh));
      stored_after_flush = StoredSize("f");
      ++finished;
    });
    // Time for both to start waiting; nothing else runs meanwhile.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(finished, 0) << "round " << round << ": nothing can finish yet";
    go_on.set_value();
    holder.join();
    writer.join();
    flusher.join();
    // The flush went first: it wrote out the eight writes before the ninth was
    // buffered (which stays buffered). Had the writer gone first, it would have
    // started a write-out of writes 5-8, and the flush would have waited for
    // that and then written out the ninth as well.
    EXPECT_EQ(stored_after_flush, base + 8 * block.size()) << "round " << round;
    ASSERT_OK(fs_->Flush(ino, fh));  // the next round starts with nothing buffered
  }
  ASSERT_TRUE(fs_->Release(ino, fh).ok());
  EXPECT_EQ(StoredSize("f"), offset);
}

// The tests below run with full buffers written out in the background and in
// the write that fills them.
class BufferModeTest : public FilesystemTest, public ::testing::WithParamInterface<bool> {};

INSTANTIATE_TEST_SUITE_P(BothModes, BufferModeTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Behind" : "InTheWrite"; });

// Reads, sizes and truncates against a model of the file while a writer keeps
// passing the write-behind limit: whatever the background writer is doing, every
// acknowledged byte reads back, in both modes.
TEST_P(BufferModeTest, RandomWritesReadsAndTruncatesMatchAModel) {
  const bool behind = GetParam();
  FilesystemOptions options;
  options.file_buffer_limit = 48 * kKiB;
  options.write_behind = behind;
  Start(options);
  auto [ino, fh] = CreateFile("f");
  std::string model;
  std::mt19937_64 rng(behind ? 7 : 8);
  auto below = [&](uint64_t n) { return n == 0 ? 0 : rng() % n; };
  for (int step = 0; step < 3000; ++step) {
    uint64_t kind = below(100);
    if (kind < 60) {
      uint64_t offset = below(model.size() + 8 * kKiB), length = 1 + below(12 * kKiB);
      std::string data = test::RandomBytes(step, length);
      ASSERT_TRUE(fs_->Write(ino, fh, offset, data).ok()) << step;
      if (model.size() < offset + length) model.resize(offset + length, '\0');
      model.replace(offset, length, data);
    } else if (kind < 90) {
      uint64_t offset = below(model.size() + 1024), length = 1 + below(20 * kKiB);
      auto got = fs_->Read(ino, fh, offset, length);
      ASSERT_TRUE(got.ok()) << step;
      std::string want = offset >= model.size() ? "" : model.substr(offset, length);
      ASSERT_TRUE(*got == want) << "step " << step << ": read of " << length << " bytes at "
                              << offset << " differs (" << got->size() << " bytes)";
    } else if (kind < 95) {
      auto attr = fs_->GetAttr(ino);
      ASSERT_TRUE(attr.ok());
      ASSERT_EQ(attr->size, model.size()) << step;
    } else if (kind < 98) {
      SetAttrRequest truncate;
      truncate.size = below(model.size() + 4 * kKiB);
      ASSERT_TRUE(fs_->SetAttr(ino, truncate).ok()) << step;
      model.resize(*truncate.size, '\0');
    } else {
      ASSERT_TRUE(fs_->Flush(ino, fh).ok()) << step;
      ASSERT_EQ(StoredSize("f"), model.size()) << step;
    }
  }
  ASSERT_TRUE(fs_->Release(ino, fh).ok());
  auto tree = store_->Tree();
  ASSERT_TRUE(tree.ok());
  auto stored = (*tree)->ReadAll("f");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_TRUE(*stored == model) << "the store's copy differs";
}

// Threads writing, reading and flushing their own parts of two shared files,
// with buffers small enough that every few writes start a write-out or pass the
// memory limit (which writes the other files out), while another thread opens
// and closes the files: each thread must read back exactly its own bytes, and
// the store must end up with all of them.
TEST_P(BufferModeTest, ThreadsSharingFilesEachReadBackTheirOwnBytes) {
  FilesystemOptions options;
  options.file_buffer_limit = 64 * kKiB;
  options.total_buffer_limit = 160 * kKiB;
  options.write_behind = GetParam();
  Start(options);
  constexpr uint64_t kPart = 192 * kKiB;
  constexpr int kThreads = 4;  // two on each file
  std::pair<uint64_t, uint64_t> files[2] = {CreateFile("a"), CreateFile("b")};
  std::vector<std::string> parts(kThreads);
  std::atomic<bool> writers_done{false};
  auto work = [&](int t) {
    auto [ino, fh] = files[t % 2];
    const uint64_t base = (t / 2) * kPart;
    std::string& part = parts[t];
    part = test::RandomBytes(100 + t, kPart);
    ASSERT_OK(fs_->Write(ino, fh, base, part).status());
    std::mt19937_64 rng(t);
    for (int step = 0; step < 1500; ++step) {
      const uint64_t kind = rng() % 100, offset = rng() % kPart;
      const uint64_t length = 1 + rng() % std::min<uint64_t>(kPart - offset, 24 * kKiB);
      if (kind < 55) {
        std::string data = test::RandomBytes(t * 100000 + step, length);
        ASSERT_OK(fs_->Write(ino, fh, base + offset, data).status());
        part.replace(offset, length, data);
      } else if (kind < 90) {
        auto got = fs_->Read(ino, fh, base + offset, length);
        ASSERT_OK(got.status());
        ASSERT_TRUE(*got == part.substr(offset, length))
            << "thread " << t << " step " << step << ": " << length << " bytes at " << offset;
      } else if (kind < 99) {
        ASSERT_OK(fs_->Flush(ino, fh));
      } else {
        ASSERT_OK(fs_->Fsync(ino, fh));
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  std::thread opener([&] {  // every release flushes the file too
    while (!writers_done) {
      for (auto [ino, fh] : files) {
        auto opened = fs_->Open(ino, O_RDONLY);
        ASSERT_OK(opened.status());
        ASSERT_OK(fs_->Release(ino, opened->fh));
      }
    }
  });
  for (std::thread& t : threads) t.join();
  writers_done = true;
  opener.join();
  for (auto [ino, fh] : files) ASSERT_OK(fs_->Release(ino, fh));
  auto tree = store_->Tree();
  ASSERT_TRUE(tree.ok());
  for (int f = 0; f < 2; ++f) {
    auto stored = (*tree)->ReadAll(f == 0 ? "a" : "b");
    ASSERT_OK(stored.status());
    EXPECT_TRUE(*stored == parts[f] + parts[f + 2]) << "the store's copy of file " << f;
  }
}

// With write-behind the store fills up in the background: the write-out that
// fails keeps its bytes, and the file's next write that needs room tries it
// again and fails in its place.
TEST_P(BufferModeTest, AWriteThatCannotBeMadeRoomForLeavesNothing) {
  FilesystemOptions options;
  options.file_buffer_limit = 256 * kKiB;
  options.write_behind = GetParam();
  Start(options, 4 << 20);  // a 4 MiB store fills up quickly
  auto [ino, fh] = CreateFile("f");
  uint64_t written = 0;
  Status failed;
  for (uint64_t i = 0; i < 64 && failed.ok(); ++i) {
    // Incompressible and unique, so every block takes space.
    std::string block = test::RandomBytes(i, 64 * kKiB);
    auto n = fs_->Write(ino, fh, written, block);
    if (n.ok()) {
      written += block.size();
    } else {
      failed = n.status();
    }
  }
  ASSERT_EQ(failed.code(), StatusCode::kNoSpace) << failed.ToString();
  // The failed write is not buffered: the file ends where the last good write did.
  auto attr = fs_->GetAttr(ino);
  ASSERT_TRUE(attr.ok());
  EXPECT_EQ(attr->size, written);
  auto past = fs_->Read(ino, fh, written, 64 * kKiB);
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(past->size(), 0u);
  // Every byte acknowledged is readable, buffered or stored.
  auto all = fs_->Read(ino, fh, 0, written);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), written);
  for (uint64_t i = 0; i * 64 * kKiB < written; ++i) {
    EXPECT_EQ(all->substr(i * 64 * kKiB, 64 * kKiB), test::RandomBytes(i, 64 * kKiB)) << i;
  }
  (void)fs_->Release(ino, fh);
}

}  // namespace
}  // namespace vexfs::fuse
