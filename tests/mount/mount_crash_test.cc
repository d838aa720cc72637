// The daemon SIGKILLed mid-workload, again and again: after each kill the mount
// point is cleared, and everything fsynced before the kill must be in the store
// byte for byte (files that were being rewritten may hold the old version, the
// new one, or what of the new one had reached the store, nothing else); the store
// must pass fsck; the next mount goes on. One workload uses small files and an
// append-only log, the other files large enough to be written out behind their
// writer (write-behind). VEXFS_MOUNT_CRASH_ITERATIONS sets the number of kills.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "mount/mount_test_util.h"
#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs::mount_test {
namespace {

// What a writer does: which files it makes, and whether it appends to a log.
struct Workload {
  size_t min_size, max_size;  // of each file
  size_t max_files;           // once this many exist, it only rewrites them
  bool log;
  // Whether a cut rewrite may leave part of the new version: only a file
  // written out behind its writer reaches the store in more than one piece.
  bool partial_rewrites;
};
// Small files reach the store whole at fsync; a log takes fsynced appends.
constexpr Workload kSmallFiles{1, 20000, SIZE_MAX, true, false};
// Past the 8 MiB at which the mount writes a file out behind its writer, so a
// kill can land while a write-out is in flight; few, to bound the model's memory.
constexpr Workload kLargeFiles{9 << 20, 13 << 20, 4, false, true};

// Deterministic content for version `version` of file `id`.
std::string Content(uint64_t id, uint64_t version, const Workload& w) {
  std::mt19937_64 rng(id * 1000003 + version);
  std::string s(w.min_size + rng() % (w.max_size - w.min_size + 1), '\0');
  if (s.size() <= kSmallFiles.max_size) {
    for (char& c : s) c = static_cast<char>('a' + rng() % 26);
    return s;
  }
  for (size_t i = 0; i < s.size(); i += sizeof(uint64_t)) {
    uint64_t word = rng();
    std::memcpy(s.data() + i, &word, std::min(sizeof(word), s.size() - i));
  }
  return s;
}

// Record k of the append-only log.
std::string Record(uint64_t k) {
  std::string r = "record " + std::to_string(k) + " ";
  r.resize(64, '.');
  return r + "\n";
}

// What the writer has had acknowledged, and what it was doing when killed.
struct Acked {
  std::mutex mu;
  std::map<std::string, std::string> files;    // fsynced content
  std::map<std::string, std::string> pending;  // a rewrite in flight
  uint64_t log_records = 0;                    // records fsynced
  uint64_t files_synced = 0;                   // file writes fsynced, all told
};

bool WriteAndSync(const std::string& path, const std::string& data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  bool ok = ::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()) &&
            ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

// Writes until the mount dies: new files, rewrites, log appends, each fsynced.
void Writer(const std::string& mnt, const Workload& w, uint64_t seed, uint64_t* next_id,
            Acked* acked) {
  std::mt19937_64 rng(seed);
  int log = ::open((mnt + "/log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (log < 0) return;
  for (;;) {
    uint64_t choice = w.log ? rng() % 3 : 1 + rng() % 2;
    if (choice == 0) {
      std::string record;
      uint64_t k;
      {
        std::lock_guard lock(acked->mu);
        k = acked->log_records;
      }
      record = Record(k);
      if (::write(log, record.data(), record.size()) != static_cast<ssize_t>(record.size()) ||
          ::fsync(log) != 0) {
        break;
      }
      std::lock_guard lock(acked->mu);
      acked->log_records = k + 1;
      continue;
    }
    std::string name;
    uint64_t id, version = rng() % 1000;
    {
      std::lock_guard lock(acked->mu);
      bool create = choice == 1 && acked->files.size() + acked->pending.size() < w.max_files;
      if (create || acked->files.empty()) {
        id = (*next_id)++;
      } else {
        auto it = acked->files.begin();
        std::advance(it, static_cast<long>(rng() % acked->files.size()));
        id = std::stoull(it->first.substr(1));
      }
      name = "f" + std::to_string(id);
    }
    std::string content = Content(id, version, w);
    {
      std::lock_guard lock(acked->mu);
      acked->pending[name] = content;
    }
    if (!WriteAndSync(mnt + "/" + name, content)) break;
    std::lock_guard lock(acked->mu);
    acked->files[name] = std::move(content);
    acked->pending.erase(name);
    ++acked->files_synced;
  }
  ::close(log);
}

// What a rewrite cut short by the kill may have left of `pending`, the version
// being written: all of it, none (its O_TRUNC emptied the file, as on any file
// system), or, for a file written out behind its writer, the part written out,
// which is always a prefix, since one file's write-outs reach the store in order.
bool LeftByACutRewrite(const std::string& got, const std::string& pending, const Workload& w) {
  if (got == pending || got.empty()) return true;
  return w.partial_rewrites && got.size() < pending.size() &&
         pending.compare(0, got.size(), got) == 0;
}

// Acknowledged writes so far: fsynced files and log records.
uint64_t Progress(Acked& acked) {
  std::lock_guard lock(acked.mu);
  return acked.files_synced + acked.log_records;
}

// Waits (up to a minute) until the writer has had a write acknowledged since
// `before`, or has stopped.
void WaitForProgress(Acked& acked, uint64_t before, const std::atomic<bool>& writer_stopped) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (Progress(acked) == before && !writer_stopped &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

class MountCrashTest : public MountTest {
 protected:
  void SurvivesKilledDaemons(const Workload& w);
};

void MountCrashTest::SurvivesKilledDaemons(const Workload& w) {
  const uint64_t iterations = test::EnvOr("VEXFS_MOUNT_CRASH_ITERATIONS", 8);
  std::mt19937_64 rng(test::EnvOr("VEXFS_MOUNT_CRASH_SEED", 20261203));
  Acked acked;
  uint64_t next_id = 0;
  for (uint64_t it = 0; it < iterations; ++it) {
    if (it > 0) Mount();
    const uint64_t before = Progress(acked);
    std::atomic<bool> writer_stopped{false};
    std::thread writer([&, seed = rng()] {
      Writer(mnt(), w, seed, &next_id, &acked);
      writer_stopped = true;
    });
    // The kill lands at a random moment after the writer's first acknowledged
    // write in this mount: on a slow host (sanitizers, a loaded machine) one
    // large file can take longer than the whole random window, and kills that
    // always came before the first fsync would test nothing.
    WaitForProgress(acked, before, writer_stopped);
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + rng() % 400));
    KillDaemon();
    writer.join();
    Unmount();
    ASSERT_FALSE(IsMountPoint(mnt()));

    // Check the store directly, as any later process would see it.
    StoreOptions read_only;
    read_only.read_only = true;
    auto opened = Store::Open(store(), read_only);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    auto tree = (*opened)->Tree();
    ASSERT_TRUE(tree.ok());
    std::lock_guard lock(acked.mu);
    for (auto& [name, content] : acked.files) {
      auto got = (*tree)->ReadAll(name);
      ASSERT_TRUE(got.ok()) << "iteration " << it << ": " << name << " lost";
      auto pending = acked.pending.find(name);
      bool in_flight = pending != acked.pending.end() && LeftByACutRewrite(*got, pending->second, w);
      EXPECT_TRUE(*got == content || in_flight)
          << "iteration " << it << ": " << name << " differs (" << got->size() << " bytes)";
      content = *got;  // what later iterations must keep
    }
    // The log holds at least every fsynced record, and only whole records in
    // order; one that reached the store unacknowledged is the new base.
    auto log = (*tree)->ReadAll("log");
    ASSERT_TRUE(log.ok());
    const size_t record_size = Record(0).size();
    ASSERT_EQ(log->size() % record_size, 0u) << "iteration " << it << ": a torn record";
    const uint64_t whole = log->size() / record_size;
    ASSERT_GE(whole, acked.log_records) << "iteration " << it << ": fsynced records lost";
    for (uint64_t k = 0; k < whole; ++k) {
      ASSERT_TRUE(log->compare(k * record_size, record_size, Record(k)) == 0)
          << "iteration " << it << ": record " << k << " is wrong";
    }
    acked.log_records = whole;
    EXPECT_TRUE(test::FsckClean(**opened)) << "iteration " << it;
    acked.pending.clear();
  }
  std::lock_guard lock(acked.mu);
  // Small files and records come faster than the kills; a large file takes a
  // while, so one fsynced in all is what is asked there.
  if (w.log) {
    EXPECT_GT(acked.files.size() + acked.log_records, iterations) << "the writer made no progress";
  } else {
    EXPECT_GT(acked.files_synced, 0u) << "the writer made no progress";
  }
}

TEST_F(MountCrashTest, FsyncedDataSurvivesKilledDaemons) { SurvivesKilledDaemons(kSmallFiles); }

TEST_F(MountCrashTest, LargeFilesWrittenOutBehindTheirWriterSurviveKilledDaemons) {
  SurvivesKilledDaemons(kLargeFiles);
}

}  // namespace
}  // namespace vexfs::mount_test
