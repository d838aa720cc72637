// A store that fills up under a mount: the writer gets ENOSPC, the mount stays
// usable, nothing written before is lost, and the store passes fsck.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "mount/mount_test_util.h"

namespace vexfs::mount_test {
namespace {

std::string Incompressible(uint64_t seed, size_t size) {
  std::mt19937_64 rng(seed);
  std::string s(size, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

class FullStoreTest : public MountTest {
 protected:
  std::vector<std::string> InitArgs() const override { return {"--map-size", "2M"}; }
};

TEST_F(FullStoreTest, WriterGetsEnospcAndTheMountStaysUsable) {
  std::string keep = Incompressible(1, 100000);
  ASSERT_EQ(WritePath(P("keep.bin"), keep), 0);
  // Fill the store: the error reaches write() or close(), as ENOSPC.
  int error = 0;
  int written = 0;
  for (int i = 0; i < 40 && error == 0; ++i) {
    error = WritePath(P("fill" + std::to_string(i)), Incompressible(100 + i, 256 * 1024));
    if (error == 0) ++written;
  }
  EXPECT_EQ(error, ENOSPC);
  EXPECT_LT(written, 40);
  // Everything else still works: reads, listings, metadata, and small changes
  // that fit.
  EXPECT_EQ(ReadPath(P("keep.bin")), keep);
  struct stat st {};
  EXPECT_EQ(::stat(P("keep.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 100000);
  for (int i = 0; i < written; ++i) {
    EXPECT_EQ(ReadPath(P("fill" + std::to_string(i))), Incompressible(100 + i, 256 * 1024));
  }
  for (int i = 0; i < written; ++i) ::unlink(P("fill" + std::to_string(i)).c_str());
  CommandResult gc = RunVexfs({"--store", store(), "gc"});
  EXPECT_TRUE(gc.ok()) << gc.err;
  EXPECT_EQ(WritePath(P("after.txt"), "space again"), 0);
  EXPECT_EQ(ReadPath(P("after.txt")), "space again");
  EXPECT_EQ(ReadPath(P("keep.bin")), keep);
  Unmount();
  CommandResult fsck = RunVexfs({"--store", store(), "fsck"});
  EXPECT_TRUE(fsck.ok()) << fsck.out << fsck.err;
}

// An allocation the store could not hold is refused at once (ENOSPC), by every
// allocating mode, and changes nothing; one that fits is granted.
TEST_F(FullStoreTest, FallocateOfMoreThanTheFreeSpaceIsEnospc) {
  struct statvfs vfs {};
  ASSERT_EQ(::statvfs(mnt().c_str(), &vfs), 0);
  const off_t free_bytes = static_cast<off_t>(vfs.f_bavail * vfs.f_frsize);
  ASSERT_GT(free_bytes, 0);
  int fd = ::open(P("f").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "abc", 3), 3);
  const off_t too_much = free_bytes + (1 << 20);
  for (int mode : {0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_ZERO_RANGE}) {
    errno = 0;
    EXPECT_EQ(::fallocate(fd, mode, 0, too_much), -1) << "mode " << mode;
    EXPECT_EQ(errno, ENOSPC) << "mode " << mode;
  }
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  EXPECT_EQ(st.st_size, 3);
  // Punching needs no space, and an allocation that fits is granted.
  EXPECT_EQ(::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, too_much), 0);
  EXPECT_EQ(::fallocate(fd, 0, 0, free_bytes / 4), 0) << std::strerror(errno);
  ASSERT_EQ(::fstat(fd, &st), 0);
  EXPECT_EQ(st.st_size, free_bytes / 4);
  ::close(fd);
}

}  // namespace
}  // namespace vexfs::mount_test
