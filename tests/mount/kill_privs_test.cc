// The setuid/setgid rule after a change by each kind of caller (kill_privs.h),
// checked without a mount, for cases a test as root cannot reach through one
// (a caller in the group only by a supplementary group).
#include "fuse/kill_privs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <vector>

namespace vexfs::fuse {
namespace {

Attributes File(uint32_t mode, uint32_t gid = 50, FileType type = FileType::kRegular) {
  Attributes a;
  a.type = type;
  a.mode = mode;
  a.uid = 1000;
  a.gid = gid;
  return a;
}

Caller User(uint32_t uid, uint32_t gid, std::vector<uint32_t> extra = {}) {
  return Caller{uid, gid, [extra](uint32_t g) {
                  return std::find(extra.begin(), extra.end(), g) != extra.end();
                }};
}

TEST(KillPrivsTest, RootClearsNothing) {
  EXPECT_EQ(ModeAfterChangeBy(File(06755), User(0, 0)), 06755u);
}

TEST(KillPrivsTest, AnyoneElseClearsSetuidEvenTheOwner) {
  EXPECT_EQ(ModeAfterChangeBy(File(04755), User(1000, 50)), 00755u);
  EXPECT_EQ(ModeAfterChangeBy(File(04666), User(2000, 60)), 00666u);
}

TEST(KillPrivsTest, SetgidGoesWithGroupExecuteWhoeverWrites) {
  EXPECT_EQ(ModeAfterChangeBy(File(02775), User(1000, 50)), 00775u);
}

TEST(KillPrivsTest, SetgidWithoutGroupExecuteStaysForTheGroupOnly) {
  EXPECT_EQ(ModeAfterChangeBy(File(02666), User(2000, 50)), 02666u);        // primary group
  EXPECT_EQ(ModeAfterChangeBy(File(02666), User(2000, 60, {50})), 02666u);  // supplementary
  EXPECT_EQ(ModeAfterChangeBy(File(02666), User(2000, 60, {70})), 00666u);  // outside
  EXPECT_EQ(ModeAfterChangeBy(File(02666), Caller{2000, 60, nullptr}), 00666u);
}

TEST(KillPrivsTest, OnlyRegularFilesChange) {
  EXPECT_EQ(ModeAfterChangeBy(File(02775, 50, FileType::kDirectory), User(2000, 60)), 02775u);
}

TEST(KillPrivsTest, PlainFilesStayAsTheyAre) {
  EXPECT_EQ(ModeAfterChangeBy(File(00644), User(2000, 60)), 00644u);
  EXPECT_FALSE(HasPrivBits(00777));
  EXPECT_TRUE(HasPrivBits(02000));
  EXPECT_TRUE(HasPrivBits(04000));
}

}  // namespace
}  // namespace vexfs::fuse
