// The mount's Filesystem class without the kernel: when buffered writes reach the
// store (limits per file and over all files) and what a failed write leaves.
#include "fuse/filesystem.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <string>

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

TEST_F(FilesystemTest, AWriteThatCannotBeMadeRoomForLeavesNothing) {
  FilesystemOptions options;
  options.file_buffer_limit = 256 * kKiB;
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
