// The daemon SIGKILLed mid-workload, again and again: after each kill the mount
// point is cleared, and everything fsynced before the kill must be in the store
// byte for byte (files that were being rewritten may hold the old or the new
// version, nothing else); the store must pass fsck; the next mount goes on.
// VEXFS_MOUNT_CRASH_ITERATIONS sets the number of kills.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "mount/mount_test_util.h"
#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs::mount_test {
namespace {

// Deterministic content for version `version` of file `id`.
std::string Content(uint64_t id, uint64_t version) {
  std::mt19937_64 rng(id * 1000003 + version);
  std::string s(1 + rng() % 20000, '\0');
  for (char& c : s) c = static_cast<char>('a' + rng() % 26);
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
};

bool WriteAndSync(const std::string& path, const std::string& data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  bool ok = ::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()) &&
            ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

// Writes until the mount dies: new files, rewrites, log appends, each fsynced.
void Writer(const std::string& mnt, uint64_t seed, uint64_t* next_id, Acked* acked) {
  std::mt19937_64 rng(seed);
  int log = ::open((mnt + "/log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (log < 0) return;
  for (;;) {
    uint64_t choice = rng() % 3;
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
      if (choice == 1 || acked->files.empty()) {
        id = (*next_id)++;
      } else {
        auto it = acked->files.begin();
        std::advance(it, static_cast<long>(rng() % acked->files.size()));
        id = std::stoull(it->first.substr(1));
      }
      name = "f" + std::to_string(id);
      acked->pending[name] = Content(id, version);
    }
    if (!WriteAndSync(mnt + "/" + name, Content(id, version))) break;
    std::lock_guard lock(acked->mu);
    acked->files[name] = Content(id, version);
    acked->pending.erase(name);
  }
  ::close(log);
}

class MountCrashTest : public MountTest {};

TEST_F(MountCrashTest, FsyncedDataSurvivesKilledDaemons) {
  const uint64_t iterations = test::EnvOr("VEXFS_MOUNT_CRASH_ITERATIONS", 8);
  std::mt19937_64 rng(test::EnvOr("VEXFS_MOUNT_CRASH_SEED", 20261203));
  Acked acked;
  uint64_t next_id = 0;
  for (uint64_t it = 0; it < iterations; ++it) {
    if (it > 0) Mount();
    std::thread writer(Writer, mnt(), rng(), &next_id, &acked);
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
      // A rewrite cut short by the kill may have left the new version, or the
      // file its O_TRUNC emptied (as on any file system); nothing else.
      auto pending = acked.pending.find(name);
      bool in_flight = pending != acked.pending.end() && (*got == pending->second || got->empty());
      EXPECT_TRUE(*got == content || in_flight) << "iteration " << it << ": " << name << " differs";
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
  EXPECT_GT(acked.files.size() + acked.log_records, iterations) << "the writer made no progress";
}

}  // namespace
}  // namespace vexfs::mount_test
