// Disk full on a real file system: a store on a tiny tmpfs, with a map far larger
// than the disk, is written until the disk refuses. The failure must be
// kNoSpace, nothing acknowledged may be lost, fsck must pass after reopening,
// and once the disk grows the store must accept writes again.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "crash/child_process.h"
#include "fault/scoped_mount.h"
#include "vexfs/store.h"

namespace vexfs::fault {
namespace {

constexpr uint64_t kDiskSize = uint64_t{3} << 20;
constexpr uint64_t kMapSize = uint64_t{256} << 20;
constexpr int kMaxPuts = 1000;

// Incompressible, so every put really takes disk space.
std::string PutData(int i) {
  std::string out(100 * 1024 + i, '\0');
  uint64_t x = 0x2545F4914F6CDD1Dull * static_cast<uint64_t>(i + 1);
  for (char& c : out) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    c = static_cast<char>(x);
  }
  return out;
}

std::string PutPath(int i) { return "notes/n" + std::to_string(i); }

Status Put(Store* store, int i) {
  auto tree = store->Tree("");
  if (!tree.ok()) return tree.status();
  return (*tree)->Edit(
      [i](TreeEditor& ed) { return ed.PutFile(PutPath(i), PutData(i), {}).status(); });
}

// Checks fsck and every acked put; the put that failed may be there whole or not at all.
void ExpectAckedPuts(Store* store, int acked) {
  auto fsck = store->Fsck();
  ASSERT_TRUE(fsck.ok()) << fsck.status().ToString();
  EXPECT_TRUE(fsck->ok()) << fsck->problems.size() << " problems, first: " << fsck->problems[0];
  auto tree = store->Tree("");
  ASSERT_TRUE(tree.ok());
  for (int i = 0; i < acked; ++i) {
    auto data = (*tree)->ReadAll(PutPath(i));
    ASSERT_TRUE(data.ok()) << "acked put " << i << ": " << data.status().ToString();
    ASSERT_TRUE(*data == PutData(i)) << "acked put " << i << " has wrong bytes";
  }
  auto failed = (*tree)->ReadAll(PutPath(acked));
  EXPECT_TRUE(failed.ok() ? *failed == PutData(acked) : failed.status().IsNotFound())
      << failed.status().ToString();
}

class DiskFullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    EnterPrivateMountNamespace();
    mnt_ = dir_.path() + "/mnt";
    ASSERT_EQ(::mkdir(mnt_.c_str(), 0755), 0) << std::strerror(errno);
    int err = mount_.MountTmpfs(mnt_, kDiskSize);
    if (err == EPERM) GTEST_SKIP() << "mounting a tmpfs was refused (EPERM): needs CAP_SYS_ADMIN";
    ASSERT_EQ(err, 0) << "mount tmpfs: " << std::strerror(err);
  }
  // The mount goes before the directory holding it (members die in reverse).
  crash::TempDir dir_{"vexfs_diskfull_"};
  ScopedMount mount_;
  std::string mnt_;
};

TEST_F(DiskFullTest, FullDiskFailsWithNoSpaceAndKeepsEveryAckedPut) {
  std::string path = mnt_ + "/store";
  StoreOptions options;
  options.map_size = kMapSize;
  int acked = 0;
  {
    auto store = Store::Create(path, options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    Status st;
    while (acked < kMaxPuts && (st = Put(store->get(), acked)).ok()) ++acked;
    ASSERT_FALSE(st.ok()) << "a " << kDiskSize << "-byte disk took " << kMaxPuts << " puts";
    EXPECT_EQ(st.code(), StatusCode::kNoSpace) << st.ToString();
    EXPECT_NE(st.ToString().find("no space"), std::string::npos) << st.ToString();
    EXPECT_GT(acked, 3) << "the disk filled up implausibly early";
    // Retrying on the still-full disk fails the same clean way, and reads work.
    Status again = Put(store->get(), acked);
    EXPECT_FALSE(again.ok());
    EXPECT_EQ(again.code(), StatusCode::kNoSpace) << again.ToString();
    ExpectAckedPuts(store->get(), acked);
  }
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << "reopen on the full disk: " << store.status().ToString();
    ExpectAckedPuts(store->get(), acked);
  }
  ASSERT_EQ(mount_.ResizeTmpfs(kDiskSize * 8), 0);
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Status more = Put(store->get(), acked);
  EXPECT_TRUE(more.ok()) << "after the disk grew: " << more.ToString();
  ExpectAckedPuts(store->get(), acked + 1);
}

TEST_F(DiskFullTest, CreateOnAFullDiskFailsCleanly) {
  // Fill the disk first, so even LMDB's first pages cannot be written.
  std::string filler = mnt_ + "/filler";
  FILE* f = std::fopen(filler.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::string block(64 * 1024, 'x');
  while (std::fwrite(block.data(), 1, block.size(), f) == block.size()) {
  }
  std::fclose(f);
  StoreOptions options;
  options.map_size = kMapSize;
  auto store = Store::Create(mnt_ + "/store", options);
  ASSERT_FALSE(store.ok()) << "created a store on a full disk";
  EXPECT_EQ(store.status().code(), StatusCode::kNoSpace) << store.status().ToString();
  // A half-made directory must not pass for a store.
  auto reopened = Store::Open(mnt_ + "/store");
  EXPECT_FALSE(reopened.ok());
  EXPECT_TRUE(reopened.status().IsNotFound()) << reopened.status().ToString();
  // Nothing was left behind, so once there is room the same path works.
  ASSERT_EQ(std::remove(filler.c_str()), 0);
  auto retried = Store::Create(mnt_ + "/store", options);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  auto fsck = (*retried)->Fsck();
  ASSERT_TRUE(fsck.ok() && fsck->ok());
}

}  // namespace
}  // namespace vexfs::fault
