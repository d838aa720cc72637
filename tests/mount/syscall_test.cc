// POSIX behaviour of a real mount, checked with plain system calls: files, open
// flags, sparse writes and holes, truncate, rename, unlink while open,
// directories, links, attributes, xattrs, permissions, mmap, and the errno of
// each failure.
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "mount/mount_test_util.h"

namespace vexfs::mount_test {
namespace {

// errno of a call that must fail; 0 if it succeeded.
#define ERRNO_OF(call) ((call) < 0 ? errno : 0)

class SyscallTest : public MountTest {};

TEST_F(SyscallTest, CreateWriteReadBack) {
  ASSERT_EQ(WritePath(P("a.txt"), "hello"), 0);
  EXPECT_EQ(ReadPath(P("a.txt")), "hello");
  struct stat st {};
  ASSERT_EQ(::stat(P("a.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_size, 5);
  EXPECT_EQ(st.st_nlink, 1u);
  EXPECT_EQ(st.st_uid, ::getuid());
  // What the mount wrote, the CLI reads from the store.
  CommandResult cat = RunVexfs({"--store", store(), "cat", "a.txt"});
  ASSERT_TRUE(cat.ok()) << cat.err;
  EXPECT_EQ(cat.out, "hello");
}

TEST_F(SyscallTest, OpenFlags) {
  ASSERT_EQ(WritePath(P("f"), "12345"), 0);
  EXPECT_EQ(ERRNO_OF(::open(P("f").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644)), EEXIST);
  EXPECT_EQ(ERRNO_OF(::open(P("missing").c_str(), O_RDONLY)), ENOENT);
  int fd = ::open(P("f").c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "67", 2), 2);
  ASSERT_EQ(::pwrite(fd, "8", 1, 0), 1);  // O_APPEND: the offset is ignored
  ::close(fd);
  EXPECT_EQ(ReadPath(P("f")),
            "1234567"
            "8");
  fd = ::open(P("f").c_str(), O_RDWR | O_TRUNC);
  ASSERT_GE(fd, 0);
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  EXPECT_EQ(st.st_size, 0);
  ::close(fd);
  EXPECT_EQ(ReadPath(P("f")), "");
  EXPECT_EQ(ERRNO_OF(::open(P("f/x").c_str(), O_RDONLY)), ENOTDIR);
  ASSERT_EQ(::mkdir(P("d").c_str(), 0755), 0);
  EXPECT_EQ(ERRNO_OF(::open(P("d").c_str(), O_WRONLY)), EISDIR);
}

TEST_F(SyscallTest, SparseWritesReadBackAsZeros) {
  int fd = ::open(P("sparse").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  const off_t far = 3 << 20;
  ASSERT_EQ(::pwrite(fd, "end", 3, far), 3);
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  EXPECT_EQ(st.st_size, far + 3);
  std::string gap(4096, 'x');
  ASSERT_EQ(::pread(fd, gap.data(), gap.size(), far - 4096), 4096);
  EXPECT_EQ(gap, std::string(4096, '\0'));
  ::close(fd);
  std::string all = ReadPath(P("sparse"));
  ASSERT_EQ(all.size(), static_cast<size_t>(far + 3));
  EXPECT_EQ(all.substr(far), "end");
  EXPECT_EQ(all.find_first_not_of('\0'), static_cast<size_t>(far));
}

TEST_F(SyscallTest, WritesToAFileKeptOpenReachTheStoreWithinSeconds) {
  // The writer is a process of its own that never closes, flushes or fsyncs
  // the file: a descriptor of this process would be closed, and so flushed,
  // in every child RunVexfs forks, at its exec.
  int ready[2], done[2];
  ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(done, O_CLOEXEC), 0);
  const std::string path = P("journal.md");
  const std::string line = "the deploy key rotates on Fridays\n";
  pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    ::close(ready[0]);
    ::close(done[1]);  // or the read below would never see the end
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
    bool ok = fd >= 0 && ::write(fd, line.data(), line.size()) ==
                             static_cast<ssize_t>(line.size());
    char c = ok ? 'y' : 'n';
    ok = ::write(ready[1], &c, 1) == 1 && ok;
    ok = ::read(done[0], &c, 1) == 0 && ok;  // holds the file open until told
    ::_exit(ok ? 0 : 1);
  }
  ::close(ready[1]);
  ::close(done[0]);
  // Checked in a function of its own so that a failed assertion still lets
  // the writer go below.
  auto check = [&] {
    char wrote = 0;
    ASSERT_EQ(::read(ready[0], &wrote, 1), 1);
    ASSERT_EQ(wrote, 'y');
    // The mount writes the bytes out once they are 5 s old; the CLI reads
    // them from the store.
    const auto start = std::chrono::steady_clock::now();
    std::string seen;
    while (seen != line && std::chrono::steady_clock::now() < start + std::chrono::seconds(20)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      CommandResult cat = RunVexfs({"--store", store(), "cat", "journal.md"});
      ASSERT_TRUE(cat.ok()) << cat.err;
      seen = cat.out;
    }
    ASSERT_EQ(seen, line);
    // ... and searches find it, while the writer still holds the file open.
    ASSERT_TRUE(RunVexfs({"--store", store(), "index", "wait"}).ok());
    CommandResult found = RunVexfs(
        {"--store", store(), "search", "when does the deploy key rotate", "-k", "1", "--json"});
    ASSERT_TRUE(found.ok()) << found.err;
    auto hits = nlohmann::json::parse(found.out)["hits"];
    ASSERT_EQ(hits.size(), 1u) << found.out;
    EXPECT_EQ(hits[0]["path"], "journal.md");
  };
  check();
  ::close(done[1]);
  ::close(ready[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(writer, &status, 0), writer);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(SyscallTest, ARestoreKeepsOpenFilesAndDirectoriesThatStay) {
  ASSERT_EQ(::mkdir(P("work").c_str(), 0755), 0);
  ASSERT_EQ(WritePath(P("work/plan.md"), "plan A"), 0);
  ASSERT_EQ(WritePath(P("work/notes.md"), "notes"), 0);
  CommandResult snap = RunVexfs({"--store", store(), "snapshot", "create", "s1"});
  ASSERT_TRUE(snap.ok()) << snap.err;
  ASSERT_EQ(WritePath(P("work/plan.md"), "plan B"), 0);
  int dir = ::open(P("work").c_str(), O_RDONLY | O_DIRECTORY);
  int notes = ::open(P("work/notes.md").c_str(), O_RDONLY);
  int plan = ::open(P("work/plan.md").c_str(), O_RDONLY);
  ASSERT_GE(dir, 0);
  ASSERT_GE(notes, 0);
  ASSERT_GE(plan, 0);
  CommandResult restore = RunVexfs({"--store", store(), "restore", "s1"});
  ASSERT_TRUE(restore.ok()) << restore.err;
  // What keeps its name and type keeps its inode: descriptors opened before
  // the restore, a working directory among them, go on working.
  char buf[16] = {};
  EXPECT_EQ(::pread(notes, buf, sizeof(buf), 0), 5) << std::strerror(errno);
  EXPECT_EQ(std::string(buf, 5), "notes");
  struct stat st {};
  EXPECT_EQ(::fstat(plan, &st), 0) << std::strerror(errno);
  EXPECT_EQ(st.st_nlink, 1u);
  int again = ::openat(dir, "plan.md", O_RDONLY);
  ASSERT_GE(again, 0) << std::strerror(errno);
  EXPECT_EQ(::pread(again, buf, sizeof(buf), 0), 6);
  EXPECT_EQ(std::string(buf, 6), "plan A");
  ::close(again);
  ::close(plan);
  ::close(notes);
  ::close(dir);
}

TEST_F(SyscallTest, TruncateShrinksAndGrows) {
  ASSERT_EQ(WritePath(P("t"), "abcdefgh"), 0);
  ASSERT_EQ(::truncate(P("t").c_str(), 3), 0);
  EXPECT_EQ(ReadPath(P("t")), "abc");
  ASSERT_EQ(::truncate(P("t").c_str(), 6), 0);
  EXPECT_EQ(ReadPath(P("t")), std::string("abc\0\0\0", 6));
  // ftruncate of an open file with buffered writes, then more writes.
  int fd = ::open(P("t").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, "XYZW", 4, 4), 4);
  ASSERT_EQ(::ftruncate(fd, 5), 0);
  ASSERT_EQ(::pwrite(fd, "!", 1, 7), 1);
  ::close(fd);
  EXPECT_EQ(ReadPath(P("t")), std::string("abc\0X\0\0!", 8));
}

TEST_F(SyscallTest, RenameCases) {
  ASSERT_EQ(WritePath(P("a"), "A"), 0);
  ASSERT_EQ(WritePath(P("b"), "B"), 0);
  ASSERT_EQ(::rename(P("a").c_str(), P("b").c_str()), 0);  // over an existing file
  EXPECT_EQ(ReadPath(P("b")), "A");
  EXPECT_EQ(ERRNO_OF(::access(P("a").c_str(), F_OK)), ENOENT);
  ASSERT_EQ(::mkdir(P("d1").c_str(), 0755), 0);
  ASSERT_EQ(WritePath(P("d1/x"), "x"), 0);
  ASSERT_EQ(::mkdir(P("d2").c_str(), 0755), 0);
  ASSERT_EQ(::rename(P("d1").c_str(), P("d2").c_str()), 0);  // over an empty directory
  EXPECT_EQ(ReadPath(P("d2/x")), "x");
  ASSERT_EQ(::mkdir(P("d3").c_str(), 0755), 0);
  EXPECT_EQ(ERRNO_OF(::rename(P("d3").c_str(), P("d2").c_str())), ENOTEMPTY);
  EXPECT_EQ(ERRNO_OF(::rename(P("b").c_str(), P("d3").c_str())), EISDIR);
  EXPECT_EQ(ERRNO_OF(::rename(P("d3").c_str(), P("b").c_str())), ENOTDIR);
  EXPECT_EQ(ERRNO_OF(::rename(P("d2").c_str(), P("d2/inner").c_str())), EINVAL);
  EXPECT_EQ(ERRNO_OF(::rename(P("nope").c_str(), P("b").c_str())), ENOENT);
  ASSERT_EQ(WritePath(P("c"), "C"), 0);
  EXPECT_EQ(ERRNO_OF(syscall(SYS_renameat2, AT_FDCWD, P("c").c_str(), AT_FDCWD, P("b").c_str(),
                             RENAME_NOREPLACE)),
            EEXIST);
  EXPECT_EQ(ReadPath(P("b")), "A");
}

TEST_F(SyscallTest, RenameExchangeSwapsTwoEntries) {
  auto exchange = [&](const std::string& a, const std::string& b,
                      unsigned flags = RENAME_EXCHANGE) {
    return syscall(SYS_renameat2, AT_FDCWD, P(a).c_str(), AT_FDCWD, P(b).c_str(), flags);
  };
  ASSERT_EQ(WritePath(P("f1"), "one"), 0);
  ASSERT_EQ(WritePath(P("f2"), "two"), 0);
  ASSERT_EQ(exchange("f1", "f2"), 0);
  EXPECT_EQ(ReadPath(P("f1")), "two");
  EXPECT_EQ(ReadPath(P("f2")), "one");
  // A directory and a file in two parents: link counts follow the directory.
  ASSERT_EQ(::mkdir(P("d").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(P("d/sub").c_str(), 0755), 0);
  ASSERT_EQ(WritePath(P("d/sub/x"), "x"), 0);
  ASSERT_EQ(::mkdir(P("e").c_str(), 0755), 0);
  ASSERT_EQ(WritePath(P("e/file"), "file"), 0);
  ASSERT_EQ(exchange("d/sub", "e/file"), 0);
  EXPECT_EQ(ReadPath(P("d/sub")), "file");
  EXPECT_EQ(ReadPath(P("e/file/x")), "x");
  struct stat d {}, e {};
  ASSERT_EQ(::stat(P("d").c_str(), &d), 0);
  ASSERT_EQ(::stat(P("e").c_str(), &e), 0);
  EXPECT_EQ(d.st_nlink, 2u);
  EXPECT_EQ(e.st_nlink, 3u);
  // Failures change nothing.
  EXPECT_EQ(ERRNO_OF(exchange("f1", "missing")), ENOENT);
  EXPECT_EQ(ERRNO_OF(exchange("e", "e/file/x")), EINVAL);  // a directory into itself
  EXPECT_EQ(ERRNO_OF(exchange("f1", "f2", RENAME_EXCHANGE | RENAME_NOREPLACE)), EINVAL);
  EXPECT_EQ(ERRNO_OF(exchange("f1", "f2", 1u << 7)), EINVAL);  // no such flag
  EXPECT_EQ(ReadPath(P("f1")), "two");
  EXPECT_EQ(ReadPath(P("e/file/x")), "x");
  // The swap is in the store, not only in the kernel's caches.
  Unmount();
  Mount();
  EXPECT_EQ(ReadPath(P("f1")), "two");
  EXPECT_EQ(ReadPath(P("d/sub")), "file");
  EXPECT_EQ(ReadPath(P("e/file/x")), "x");
  CommandResult fsck = RunVexfs({"--store", store(), "fsck"});
  EXPECT_TRUE(fsck.ok()) << fsck.out << fsck.err;
}

TEST_F(SyscallTest, RewinddirShowsEntriesMadeSinceOpendir) {
  ASSERT_EQ(::mkdir(P("d").c_str(), 0755), 0);
  ASSERT_EQ(WritePath(P("d/before"), "b"), 0);
  DIR* dir = ::opendir(P("d").c_str());
  ASSERT_NE(dir, nullptr);
  auto names = [&] {
    std::set<std::string> out;
    while (dirent* e = ::readdir(dir)) out.insert(e->d_name);
    return out;
  };
  EXPECT_EQ(names(), (std::set<std::string>{".", "..", "before"}));
  ASSERT_EQ(WritePath(P("d/after"), "a"), 0);
  ASSERT_EQ(::unlink(P("d/before").c_str()), 0);
  ::rewinddir(dir);
  EXPECT_EQ(names(), (std::set<std::string>{".", "..", "after"}));
  ::closedir(dir);
}

// The first read counts too: a directory opened, then filled, then rewound
// before anything was read from it lists what was made in between.
TEST_F(SyscallTest, RewinddirBeforeTheFirstReadShowsEntriesMadeSinceOpendir) {
  ASSERT_EQ(::mkdir(P("d").c_str(), 0755), 0);
  DIR* dir = ::opendir(P("d").c_str());
  ASSERT_NE(dir, nullptr);
  ASSERT_EQ(WritePath(P("d/made-after-opendir"), "a"), 0);
  ::rewinddir(dir);
  std::set<std::string> names;
  while (dirent* e = ::readdir(dir)) names.insert(e->d_name);
  EXPECT_EQ(names, (std::set<std::string>{".", "..", "made-after-opendir"}));
  ::closedir(dir);
}

// A name that was missing a moment ago: a create through the mount works at
// once, and a file another process adds shows within the documented second
// (docs/mount.md: the kernel may cache names for 0.5 s), whatever the kernel
// remembered of the miss.
TEST_F(SyscallTest, AMissingNameIsCreatableAtOnceAndShowsWhenAddedElsewhere) {
  struct stat st;
  EXPECT_EQ(ERRNO_OF(::stat(P("made-here").c_str(), &st)), ENOENT);
  ASSERT_EQ(WritePath(P("made-here"), "here"), 0);
  EXPECT_EQ(ReadPath(P("made-here")), "here");

  EXPECT_EQ(ERRNO_OF(::stat(P("made-elsewhere").c_str(), &st)), ENOENT);
  const std::string local = store() + "-local.txt";
  ASSERT_EQ(WritePath(local, "elsewhere"), 0);
  CommandResult put = RunVexfs({"--store", store(), "put", local, "made-elsewhere"});
  ASSERT_TRUE(put.ok()) << put.err;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (::stat(P("made-elsewhere").c_str(), &st) != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(ReadPath(P("made-elsewhere")), "elsewhere");
  ::unlink(local.c_str());
}

TEST_F(SyscallTest, UnlinkWhileOpenKeepsTheFileUntilClose) {
  ASSERT_EQ(WritePath(P("tmp"), "scratch"), 0);
  int fd = ::open(P("tmp").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::unlink(P("tmp").c_str()), 0);
  EXPECT_EQ(ERRNO_OF(::access(P("tmp").c_str(), F_OK)), ENOENT);
  ASSERT_EQ(::pwrite(fd, "!", 1, 7), 1);
  char buf[16] = {};
  ASSERT_EQ(::pread(fd, buf, sizeof(buf), 0), 8);
  EXPECT_EQ(std::string(buf, 8), "scratch!");
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  EXPECT_EQ(st.st_nlink, 0u);
  // A new file may take the name meanwhile.
  ASSERT_EQ(WritePath(P("tmp"), "new"), 0);
  ASSERT_EQ(::close(fd), 0);
  EXPECT_EQ(ReadPath(P("tmp")), "new");
  CommandResult fsck = RunVexfs({"--store", store(), "fsck"});
  EXPECT_TRUE(fsck.ok()) << fsck.out << fsck.err;
}

TEST_F(SyscallTest, RenameOverOpenFileKeepsItReadable) {
  ASSERT_EQ(WritePath(P("old"), "old bytes"), 0);
  ASSERT_EQ(WritePath(P("new"), "new bytes"), 0);
  int fd = ::open(P("old").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::rename(P("new").c_str(), P("old").c_str()), 0);
  char buf[16] = {};
  ASSERT_EQ(::pread(fd, buf, sizeof(buf), 0), 9);
  EXPECT_EQ(std::string(buf, 9), "old bytes");
  ::close(fd);
  EXPECT_EQ(ReadPath(P("old")), "new bytes");
}

TEST_F(SyscallTest, OpenDirectoryRemovedOrReplacedStatsWithNoLinks) {
  ASSERT_EQ(::mkdir(P("a").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(P("b").c_str(), 0700), 0);
  int fd = ::open(P("b").c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::rename(P("a").c_str(), P("b").c_str()), 0);  // replaces the empty b
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0) << std::strerror(errno);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_nlink, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0700u);  // still the replaced directory
  ::close(fd);
  ASSERT_EQ(::stat(P("b").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);  // the name now holds the moved one
  ASSERT_EQ(::mkdir(P("c").c_str(), 0755), 0);
  fd = ::open(P("c").c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::rmdir(P("c").c_str()), 0);
  ASSERT_EQ(::fstat(fd, &st), 0) << std::strerror(errno);
  EXPECT_EQ(st.st_nlink, 0u);
  ::close(fd);
  EXPECT_EQ(ERRNO_OF(::stat(P("c").c_str(), &st)), ENOENT);
}

TEST_F(SyscallTest, DirectoryErrors) {
  ASSERT_EQ(::mkdir(P("d").c_str(), 0755), 0);
  EXPECT_EQ(ERRNO_OF(::mkdir(P("d").c_str(), 0755)), EEXIST);
  ASSERT_EQ(WritePath(P("d/f"), "x"), 0);
  EXPECT_EQ(ERRNO_OF(::rmdir(P("d").c_str())), ENOTEMPTY);
  EXPECT_EQ(ERRNO_OF(::rmdir(P("d/f").c_str())), ENOTDIR);
  EXPECT_EQ(ERRNO_OF(::unlink(P("d").c_str())), EISDIR);
  EXPECT_EQ(ERRNO_OF(::unlink(P("nope").c_str())), ENOENT);
  EXPECT_EQ(ERRNO_OF(::mkdir(P("nope/sub").c_str(), 0755)), ENOENT);
  ASSERT_EQ(::unlink(P("d/f").c_str()), 0);
  ASSERT_EQ(::rmdir(P("d").c_str()), 0);
  struct stat st {};
  ASSERT_EQ(::stat(mnt().c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 2u);
}

TEST_F(SyscallTest, ReaddirListsEverythingOnceAcrossManyCalls) {
  std::set<std::string> want;
  for (int i = 0; i < 600; ++i) {
    std::string name = "file-with-a-longish-name-" + std::to_string(i);
    ASSERT_EQ(WritePath(P(name), ""), 0);
    want.insert(name);
  }
  DIR* dir = ::opendir(mnt().c_str());
  ASSERT_NE(dir, nullptr);
  std::multiset<std::string> seen;
  long middle = -1;
  while (dirent* e = ::readdir(dir)) {
    seen.insert(e->d_name);
    if (seen.size() == 300) middle = ::telldir(dir);
  }
  EXPECT_EQ(seen.count("."), 1u);
  EXPECT_EQ(seen.count(".."), 1u);
  EXPECT_EQ(seen.count(".vexfs"), 0u);  // found by name, never listed
  seen.erase(".");
  seen.erase("..");
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()), want);
  EXPECT_EQ(seen.size(), want.size());
  // Resuming at a saved offset gives exactly the rest.
  ASSERT_GE(middle, 0);
  ::seekdir(dir, middle);
  size_t rest = 0;
  while (::readdir(dir)) ++rest;
  EXPECT_EQ(rest, 602u - 300u);
  ::closedir(dir);
}

TEST_F(SyscallTest, SymlinksAndHardLinks) {
  ASSERT_EQ(WritePath(P("target"), "T"), 0);
  ASSERT_EQ(::symlink("target", P("link").c_str()), 0);
  char buf[64] = {};
  ASSERT_EQ(::readlink(P("link").c_str(), buf, sizeof(buf)), 6);
  EXPECT_EQ(std::string(buf), "target");
  EXPECT_EQ(ReadPath(P("link")), "T");
  struct stat st {};
  ASSERT_EQ(::lstat(P("link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(ERRNO_OF(::symlink("x", P("link").c_str())), EEXIST);
  ASSERT_EQ(::link(P("target").c_str(), P("hard").c_str()), 0);
  ASSERT_EQ(::stat(P("target").c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 2u);
  ASSERT_EQ(WritePath(P("hard"), "changed"), 0);
  EXPECT_EQ(ReadPath(P("target")), "changed");
  ASSERT_EQ(::mkdir(P("d").c_str(), 0755), 0);
  EXPECT_EQ(ERRNO_OF(::link(P("d").c_str(), P("d2").c_str())), EPERM);
  EXPECT_EQ(ERRNO_OF(::link(P("target").c_str(), P("hard").c_str())), EEXIST);
}

TEST_F(SyscallTest, FifosCarryDataBetweenProcesses) {
  ASSERT_EQ(::mkfifo(P("pipe").c_str(), 0640), 0);
  EXPECT_EQ(ERRNO_OF(::mkfifo(P("pipe").c_str(), 0640)), EEXIST);
  struct stat st {};
  ASSERT_EQ(::lstat(P("pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(st.st_size, 0);
  std::string path = P("pipe");
  pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    int fd = ::open(path.c_str(), O_WRONLY);  // blocks until the reader opens
    bool ok = fd >= 0 && ::write(fd, "through the pipe", 16) == 16;
    ::_exit(ok && ::close(fd) == 0 ? 0 : 1);
  }
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  std::string got;
  char buf[64];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) got.append(buf, static_cast<size_t>(n));
  ::close(fd);
  int status = 0;
  ASSERT_EQ(::waitpid(writer, &status, 0), writer);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(got, "through the pipe");
  // The store holds the node, typed, and nothing else.
  CommandResult stat = RunVexfs({"--store", store(), "stat", "pipe", "--json"});
  ASSERT_TRUE(stat.ok()) << stat.err;
  EXPECT_NE(stat.out.find("\"type\":\"fifo\""), std::string::npos) << stat.out;
  EXPECT_NE(stat.out.find("\"size\":0"), std::string::npos) << stat.out;
  DIR* dir = ::opendir(mnt().c_str());
  ASSERT_NE(dir, nullptr);
  unsigned char type = DT_UNKNOWN;
  while (dirent* e = ::readdir(dir)) {
    if (std::string(e->d_name) == "pipe") type = e->d_type;
  }
  ::closedir(dir);
  EXPECT_EQ(type, DT_FIFO);
  ASSERT_EQ(::unlink(P("pipe").c_str()), 0);
}

TEST_F(SyscallTest, UnixSocketsBindAndConnect) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string path = P("sock");
  ASSERT_LT(path.size(), sizeof(addr.sun_path)) << "mount path too long for a socket";
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  int server = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(server, 0);
  ASSERT_EQ(::bind(server, sa, sizeof(addr)), 0) << std::strerror(errno);
  ASSERT_EQ(::listen(server, 1), 0);
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  int client = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(client, 0);
  ASSERT_EQ(::connect(client, sa, sizeof(addr)), 0) << std::strerror(errno);
  int conn = ::accept(server, nullptr, nullptr);
  ASSERT_GE(conn, 0);
  ASSERT_EQ(::send(client, "ping", 4, 0), 4);
  char buf[8] = {};
  ASSERT_EQ(::recv(conn, buf, sizeof(buf), 0), 4);
  EXPECT_EQ(std::string(buf, 4), "ping");
  for (int fd : {conn, client, server}) ::close(fd);
  // A second bind on the same name fails as on any file system.
  int again = ::socket(AF_UNIX, SOCK_STREAM, 0);
  EXPECT_EQ(ERRNO_OF(::bind(again, sa, sizeof(addr))), EADDRINUSE);
  ::close(again);
  ASSERT_EQ(::unlink(path.c_str()), 0);
}

TEST_F(SyscallTest, DeviceNodesKeepTheirNumbersInSnapshotsAndAcrossRemounts) {
  const dev_t tty = ::makedev(136, 3), loop = ::makedev(7, 1);
  int err = ERRNO_OF(::mknod(P("tty").c_str(), S_IFCHR | 0620, tty));
  if (::geteuid() != 0) {  // the kernel checks CAP_MKNOD before asking the mount
    EXPECT_EQ(err, EPERM);
    return;
  }
  ASSERT_EQ(err, 0) << std::strerror(err);
  ASSERT_EQ(::mknod(P("loop").c_str(), S_IFBLK | 0660, loop), 0);
  ASSERT_EQ(::chmod(P("tty").c_str(), 0620), 0);  // past the umask
  // Snapshots show every entry without write permission, so only the working
  // tree is checked for the mode.
  auto expect_nodes = [&](const std::string& dir, uint32_t tty_mode) {
    struct stat st {};
    ASSERT_EQ(::lstat((dir + "/tty").c_str(), &st), 0) << dir;
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    EXPECT_EQ(st.st_rdev, tty);
    EXPECT_EQ(st.st_mode & 07777, tty_mode);
    ASSERT_EQ(::lstat((dir + "/loop").c_str(), &st), 0) << dir;
    EXPECT_TRUE(S_ISBLK(st.st_mode));
    EXPECT_EQ(st.st_rdev, loop);
  };
  expect_nodes(mnt(), 0620);
  CommandResult snap = RunVexfs({"--store", store(), "snapshot", "create", "s1"});
  ASSERT_TRUE(snap.ok()) << snap.err;
  expect_nodes(P(".vexfs/snapshots/s1"), 0400);
  ASSERT_EQ(::unlink(P("tty").c_str()), 0);
  ASSERT_EQ(Unmount(), 0);
  CommandResult restore = RunVexfs({"--store", store(), "restore", "s1"});
  ASSERT_TRUE(restore.ok()) << restore.err;
  Mount();
  expect_nodes(mnt(), 0620);
}

// name_to_handle_at's handle, its buffer sized for any file system.
struct Handle {
  file_handle head;
  unsigned char bytes[MAX_HANDLE_SZ];
};

TEST_F(SyscallTest, FileHandlesOpenAfterARemountAndGoStaleWhenTheFileIsGone) {
  ASSERT_EQ(::mkdir(P("d").c_str(), 0755), 0);
  ASSERT_EQ(WritePath(P("d/g"), "deep"), 0);
  ASSERT_EQ(WritePath(P("f"), "top"), 0);
  Handle f{}, g{}, d{};
  int mount_id = 0;
  for (auto [path, h] : {std::pair{P("f"), &f}, std::pair{P("d/g"), &g}, std::pair{P("d"), &d}}) {
    h->head.handle_bytes = MAX_HANDLE_SZ;
    ASSERT_EQ(::name_to_handle_at(AT_FDCWD, path.c_str(), &h->head, &mount_id, 0), 0)
        << path << ": " << std::strerror(errno);
  }
  struct stat d_before {};
  ASSERT_EQ(::stat(P("d").c_str(), &d_before), 0);
  // A new mount has none of these inodes cached, as an NFS server after a restart.
  ASSERT_EQ(Unmount(), 0);
  Mount();
  int root = ::open(mnt().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  int fd = ::open_by_handle_at(root, &f.head, O_RDONLY);
  if (::geteuid() != 0) {  // opening by handle needs CAP_DAC_READ_SEARCH
    EXPECT_EQ(fd < 0 ? errno : 0, EPERM);
    ::close(root);
    return;
  }
  ASSERT_GE(fd, 0) << std::strerror(errno);
  char buf[16] = {};
  EXPECT_EQ(::read(fd, buf, sizeof(buf)), 3);
  EXPECT_EQ(std::string(buf, 3), "top");
  ::close(fd);
  fd = ::open_by_handle_at(root, &g.head, O_RDONLY);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  EXPECT_EQ(::read(fd, buf, sizeof(buf)), 4);
  ::close(fd);
  fd = ::open_by_handle_at(root, &d.head, O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  struct stat d_after {};
  ASSERT_EQ(::fstat(fd, &d_after), 0);
  EXPECT_EQ(d_after.st_ino, d_before.st_ino);
  ::close(fd);
  ::close(root);
  ASSERT_EQ(::unlink(P("f").c_str()), 0);
  ASSERT_EQ(Unmount(), 0);
  Mount();
  root = ::open(mnt().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  EXPECT_EQ(ERRNO_OF(::open_by_handle_at(root, &f.head, O_RDONLY)), ESTALE);
  ::close(root);
}

TEST_F(SyscallTest, FallocateModes) {
  int fd = ::open(P("f").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  auto size = [&] {
    struct stat st {};
    EXPECT_EQ(::fstat(fd, &st), 0);
    return st.st_size;
  };
  ASSERT_EQ(::fallocate(fd, 0, 0, 1 << 20), 0) << std::strerror(errno);
  EXPECT_EQ(size(), 1 << 20);
  ASSERT_EQ(::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4 << 20), 0);
  EXPECT_EQ(size(), 1 << 20);
  std::string data(1 << 20, 'd');
  ASSERT_EQ(::pwrite(fd, data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
  // The write is still buffered: the punch must land after it, not under it.
  ASSERT_EQ(::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 1000, 200000), 0);
  EXPECT_EQ(size(), 1 << 20);
  std::fill(data.begin() + 1000, data.begin() + 201000, '\0');
  std::string back(data.size(), 'x');
  ASSERT_EQ(::pread(fd, back.data(), back.size(), 0), static_cast<ssize_t>(back.size()));
  EXPECT_TRUE(back == data) << "punched range does not read as zeros";
  ASSERT_EQ(::fallocate(fd, FALLOC_FL_ZERO_RANGE, (1 << 20) - 10, 30), 0);
  EXPECT_EQ(size(), (1 << 20) + 20);  // zero range without KEEP_SIZE extends
  char tail[30];
  ASSERT_EQ(::pread(fd, tail, sizeof(tail), (1 << 20) - 10), 30);
  EXPECT_EQ(std::string(tail, 30), std::string(30, '\0'));
  EXPECT_EQ(ERRNO_OF(::fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 10)), EOPNOTSUPP);  // kernel: needs KEEP_SIZE
  EXPECT_EQ(ERRNO_OF(::fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, 65536)), EOPNOTSUPP);
  EXPECT_EQ(ERRNO_OF(::fallocate(fd, 0, 0, 0)), EINVAL);
  ::close(fd);
  CommandResult cat = RunVexfs({"--store", store(), "cat", "f"});
  ASSERT_TRUE(cat.ok()) << cat.err;
  EXPECT_EQ(cat.out.size(), (1u << 20) + 20);
  EXPECT_TRUE(cat.out.substr(0, data.size() - 10) == data.substr(0, data.size() - 10));
}

// lseek's answer, or minus its errno.
off_t SeekOrErrno(int fd, off_t offset, int whence) {
  off_t at = ::lseek(fd, offset, whence);
  return at < 0 ? -errno : at;
}

TEST_F(SyscallTest, SeekDataAndSeekHoleFindWholeChunkHoles) {
  constexpr off_t kChunk = 64 * 1024;  // the store's chunk: holes are whole chunks
  int fd = ::open(P("sparse").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  // Still buffered when the seeks come, and asked through another handle.
  std::string data(kChunk, 'd');
  ASSERT_EQ(::pwrite(fd, data.data(), data.size(), 3 * kChunk + 100), kChunk);
  int reader = ::open(P("sparse").c_str(), O_RDONLY);
  ASSERT_GE(reader, 0);
  const off_t size = 4 * kChunk + 100;
  EXPECT_EQ(SeekOrErrno(reader, 0, SEEK_DATA), 3 * kChunk);
  EXPECT_EQ(SeekOrErrno(reader, 0, SEEK_HOLE), 0);
  EXPECT_EQ(SeekOrErrno(reader, kChunk + 5, SEEK_HOLE), kChunk + 5);
  EXPECT_EQ(SeekOrErrno(reader, 3 * kChunk + 7, SEEK_DATA), 3 * kChunk + 7);
  EXPECT_EQ(SeekOrErrno(reader, 3 * kChunk, SEEK_HOLE), size);  // the end is a hole
  EXPECT_EQ(SeekOrErrno(reader, size, SEEK_DATA), -ENXIO);
  EXPECT_EQ(SeekOrErrno(reader, size, SEEK_HOLE), -ENXIO);
  EXPECT_EQ(SeekOrErrno(reader, -1, SEEK_DATA), -ENXIO);
  // The seek moves the file offset: a read goes on from there.
  ASSERT_EQ(SeekOrErrno(reader, 3 * kChunk + 100, SEEK_DATA), 3 * kChunk + 100);
  char c = 0;
  ASSERT_EQ(::read(reader, &c, 1), 1);
  EXPECT_EQ(c, 'd');
  // Punched out, chunk 3 is a hole; grown, the file ends in holes.
  ASSERT_EQ(::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 3 * kChunk, kChunk), 0);
  EXPECT_EQ(SeekOrErrno(fd, 0, SEEK_DATA), 4 * kChunk);
  EXPECT_EQ(SeekOrErrno(fd, 3 * kChunk + 1, SEEK_HOLE), 3 * kChunk + 1);
  ASSERT_EQ(::ftruncate(fd, 8 * kChunk), 0);
  EXPECT_EQ(SeekOrErrno(fd, 4 * kChunk, SEEK_HOLE), 5 * kChunk);
  EXPECT_EQ(SeekOrErrno(fd, 5 * kChunk, SEEK_DATA), -ENXIO);
  ::close(reader);
  ::close(fd);
  // Files under .vexfs/ are all data: a snapshot's copy and a generated file.
  CommandResult snap = RunVexfs({"--store", store(), "snapshot", "create", "s1"});
  ASSERT_TRUE(snap.ok()) << snap.err;
  int old = ::open(P(".vexfs/snapshots/s1/sparse").c_str(), O_RDONLY);
  ASSERT_GE(old, 0);
  EXPECT_EQ(SeekOrErrno(old, 10, SEEK_DATA), 10);
  EXPECT_EQ(SeekOrErrno(old, 10, SEEK_HOLE), 8 * kChunk);
  ::close(old);
  int status = ::open(P(".vexfs/status").c_str(), O_RDONLY);
  ASSERT_GE(status, 0);
  std::string text(1 << 16, '\0');
  ssize_t n = ::read(status, text.data(), text.size());
  ASSERT_GT(n, 0);
  EXPECT_EQ(SeekOrErrno(status, 0, SEEK_HOLE), n);
  EXPECT_EQ(SeekOrErrno(status, n, SEEK_DATA), -ENXIO);
  ::close(status);
}

TEST_F(SyscallTest, CopyFileRangeSharesChunks) {
  std::string content(8 << 20, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>((i * 2654435761u) >> 13);
  ASSERT_EQ(WritePath(P("src"), content), 0);
  auto object_bytes = [&] {
    CommandResult stats = RunVexfs({"--store", store(), "--json", "info"});
    EXPECT_TRUE(stats.ok()) << stats.err;
    return nlohmann::json::parse(stats.out).at("object_bytes").get<uint64_t>();
  };
  CommandResult snap = RunVexfs({"--store", store(), "snapshot", "create", "s0"});
  ASSERT_TRUE(snap.ok()) << snap.err;
  uint64_t before = object_bytes();
  int in = ::open(P("src").c_str(), O_RDONLY);
  int out = ::open(P("dst").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(in, 0);
  ASSERT_GE(out, 0);
  size_t total = 0;
  while (total < content.size()) {
    ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, content.size() - total, 0);
    ASSERT_GT(n, 0) << std::strerror(errno);
    total += static_cast<size_t>(n);
  }
  ::close(in);
  ::close(out);
  EXPECT_TRUE(ReadPath(P("dst")) == content);
  snap = RunVexfs({"--store", store(), "snapshot", "create", "s1"});
  ASSERT_TRUE(snap.ok()) << snap.err;
  // The copy added a manifest, trees and a commit, no chunk data.
  EXPECT_LT(object_bytes() - before, 256u * 1024);
  // An unaligned destination still copies the right bytes.
  in = ::open(P("src").c_str(), O_RDONLY);
  out = ::open(P("shifted").c_str(), O_WRONLY | O_CREAT, 0644);
  loff_t in_off = 0, out_off = 3;
  ASSERT_EQ(::copy_file_range(in, &in_off, out, &out_off, 100000, 0), 100000);
  ::close(in);
  ::close(out);
  EXPECT_EQ(ReadPath(P("shifted")), std::string(3, '\0') + content.substr(0, 100000));
}

TEST_F(SyscallTest, AttributesChange) {
  ASSERT_EQ(WritePath(P("f"), "x"), 0);
  ASSERT_EQ(::chmod(P("f").c_str(), 0600), 0);
  ASSERT_EQ(::chown(P("f").c_str(), 1234, 5678), 0);
  timespec times[2] = {{1000, 5}, {2000, 7}};
  ASSERT_EQ(::utimensat(AT_FDCWD, P("f").c_str(), times, 0), 0);
  struct stat st {};
  ASSERT_EQ(::stat(P("f").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, 1234u);
  EXPECT_EQ(st.st_gid, 5678u);
  EXPECT_EQ(st.st_mtim.tv_sec, 2000);
  EXPECT_EQ(st.st_mtim.tv_nsec, 7);
  EXPECT_EQ(st.st_atim.tv_sec, 1000);
  // An explicit mtime survives buffered writes that were made before it.
  int fd = ::open(P("f").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "y", 1), 1);
  ASSERT_EQ(::futimens(fd, times), 0);
  ::close(fd);
  ASSERT_EQ(::stat(P("f").c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, 2000);
  EXPECT_EQ(ReadPath(P("f")), "y");
}

// Runs `fn` in a child process as `uid` with primary group `gid` and no other,
// and returns its exit code.
int AsUser(uid_t uid, gid_t gid, const std::function<int()>& fn) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(gid, gid, gid) != 0 ||
        ::setresuid(uid, uid, uid) != 0) {
      ::_exit(200);
    }
    ::_exit(fn());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

// Runs `fn` in a child process as uid/gid 65534 and returns its exit code.
int AsNobody(const std::function<int()>& fn) { return AsUser(65534, 65534, fn); }

class PermissionTest : public MountTest {
 protected:
  std::vector<std::string> DefaultMountArgs() const override { return {"-o", "allow_other"}; }
};

TEST_F(PermissionTest, OwnershipAndAccessChecks) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  ASSERT_EQ(::chmod(mnt().c_str(), 0777), 0);
  ASSERT_EQ(WritePath(P("private"), "secret"), 0);
  ASSERT_EQ(::chmod(P("private").c_str(), 0600), 0);
  ASSERT_EQ(WritePath(P("readonly"), "r"), 0);
  ASSERT_EQ(::chmod(P("readonly").c_str(), 0644), 0);
  std::string mine = P("mine");
  std::string priv = P("private"), ro = P("readonly");
  int code = AsNobody([&] {
    if (::access(ro.c_str(), R_OK) != 0) return 10;  // the path itself is reachable
    if (::open(priv.c_str(), O_RDONLY) >= 0 || errno != EACCES) return 1;
    if (::open(ro.c_str(), O_WRONLY) >= 0 || errno != EACCES) return 2;
    if (::chmod(ro.c_str(), 0777) == 0 || errno != EPERM) return 3;
    if (::chown(ro.c_str(), 65534, 65534) == 0 || errno != EPERM) return 4;
    if (WritePath(mine, "m") != 0) return 5;
    return 0;
  });
  EXPECT_EQ(code, 0);
  struct stat st {};
  ASSERT_EQ(::stat(mine.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);  // new files belong to the caller
  EXPECT_EQ(st.st_gid, 65534u);
}

// Another user's change to a file clears the setuid and setgid bits it could
// not have set, by the kernel's rules (Linux 6.2 on): setuid always; setgid
// where group-execute is set, or where the writer is outside the file's group.
// For a write, each truncate and each fallocate mode; root clears nothing.
TEST_F(PermissionTest, SetuidAndSetgidAreClearedWhenAnotherUserChangesTheFile) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  constexpr gid_t kGroup = 4242;
  constexpr uid_t kOther = 65534;
  ASSERT_EQ(::chmod(mnt().c_str(), 0777), 0);
  const std::string path = P("f");
  // Each change returns 0 or the errno it met.
  auto with_fd = [&](int flags, const std::function<int(int)>& change) {
    return [&path, flags, change] {
      int fd = ::open(path.c_str(), flags);
      if (fd < 0) return errno;
      int err = change(fd);
      ::close(fd);
      return err;
    };
  };
  auto check = [](bool ok) { return ok ? 0 : errno; };
  auto falloc = [&](int mode) {
    return with_fd(O_RDWR, [mode, check](int fd) {
      return check(::fallocate(fd, mode, 0, 8192) == 0);
    });
  };
  const std::vector<std::pair<std::string, std::function<int()>>> changes = {
      {"write", with_fd(O_WRONLY, [check](int fd) { return check(::pwrite(fd, "x", 1, 0) == 1); })},
      {"ftruncate", with_fd(O_WRONLY, [check](int fd) { return check(::ftruncate(fd, 1) == 0); })},
      {"truncate", [&path, check] { return check(::truncate(path.c_str(), 2) == 0); }},
      {"open O_TRUNC", with_fd(O_WRONLY | O_TRUNC, [](int) { return 0; })},
      {"fallocate", falloc(0)},
      {"fallocate keep size", falloc(FALLOC_FL_KEEP_SIZE)},
      {"fallocate punch hole", falloc(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)},
      {"fallocate zero range", falloc(FALLOC_FL_ZERO_RANGE)},
  };
  struct Case {
    mode_t mode;
    uid_t uid;
    gid_t gid;
    mode_t expected;
    const char* who;
  };
  const Case cases[] = {
      {06666, kOther, kOther, 00666, "another user outside the group"},
      {06666, kOther, kGroup, 02666, "another user in the group (no group-execute)"},
      {02676, kOther, kGroup, 00676, "another user in the group (group-execute)"},
      {06666, 0, 0, 06666, "root"},
  };
  for (const auto& [name, change] : changes) {
    for (const Case& c : cases) {
      ASSERT_EQ(WritePath(path, "abcdef"), 0);
      ASSERT_EQ(::chown(path.c_str(), 0, kGroup), 0);
      ASSERT_EQ(::chmod(path.c_str(), c.mode), 0);
      EXPECT_EQ(AsUser(c.uid, c.gid, change), 0) << name << " by " << c.who;
      struct stat st {};
      ASSERT_EQ(::stat(path.c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 07777, c.expected)
          << name << " by " << c.who << ": mode 0" << std::oct << (st.st_mode & 07777);
      // The store holds what the kernel shows.
      CommandResult stat = RunVexfs({"--store", store(), "stat", "--json", "f"});
      ASSERT_TRUE(stat.ok()) << stat.err;
      EXPECT_NE(stat.out.find("\"mode\":" + std::to_string(c.expected)), std::string::npos)
          << name << " by " << c.who << ": " << stat.out;
    }
  }
}

TEST_F(SyscallTest, SetgidDirectoriesHandDownTheirGroup) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to give a directory another group";
  constexpr gid_t kGroup = 4242;
  ASSERT_EQ(::mkdir(P("shared").c_str(), 0775), 0);
  ASSERT_EQ(::chown(P("shared").c_str(), static_cast<uid_t>(-1), kGroup), 0);
  ASSERT_EQ(::chmod(P("shared").c_str(), 02775), 0);
  ASSERT_EQ(WritePath(P("shared/f"), "f"), 0);
  ASSERT_EQ(::mkdir(P("shared/sub").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(P("shared/sub/deeper").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("f", P("shared/link").c_str()), 0);
  struct stat st {};
  ASSERT_EQ(::stat(P("shared/f").c_str(), &st), 0);
  EXPECT_EQ(st.st_gid, kGroup);
  EXPECT_EQ(st.st_mode & S_ISGID, 0u);  // files take the group, not the bit
  for (const char* dir : {"shared/sub", "shared/sub/deeper"}) {
    ASSERT_EQ(::stat(P(dir).c_str(), &st), 0);
    EXPECT_EQ(st.st_gid, kGroup) << dir;
    EXPECT_NE(st.st_mode & S_ISGID, 0u) << dir;  // and passes it down
  }
  ASSERT_EQ(::lstat(P("shared/link").c_str(), &st), 0);
  EXPECT_EQ(st.st_gid, kGroup);
  // Without the bit, new nodes take the creator's group.
  ASSERT_EQ(::mkdir(P("plain").c_str(), 0775), 0);
  ASSERT_EQ(::chown(P("plain").c_str(), static_cast<uid_t>(-1), kGroup), 0);
  ASSERT_EQ(WritePath(P("plain/g"), "g"), 0);
  ASSERT_EQ(::stat(P("plain/g").c_str(), &st), 0);
  EXPECT_EQ(st.st_gid, ::getgid());
}

TEST_F(SyscallTest, StatfsAndFsync) {
  struct statvfs vfs {};
  ASSERT_EQ(::statvfs(mnt().c_str(), &vfs), 0);
  EXPECT_EQ(vfs.f_namemax, 255u);
  EXPECT_GT(vfs.f_blocks, 0u);
  EXPECT_GT(vfs.f_bavail, 0u);
  int fd = ::open(P("durable").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "d", 1), 1);
  EXPECT_EQ(::fsync(fd), 0);
  EXPECT_EQ(::fdatasync(fd), 0);
  // fsync made it reach the store: another process reads it while still open.
  CommandResult cat = RunVexfs({"--store", store(), "cat", "durable"});
  EXPECT_EQ(cat.out, "d");
  ::close(fd);
}

TEST_F(SyscallTest, Xattrs) {
  ASSERT_EQ(WritePath(P("f"), "x"), 0);
  const char* f = nullptr;
  std::string path = P("f");
  f = path.c_str();
  ASSERT_EQ(::setxattr(f, "user.color", "blue", 4, 0), 0);
  char buf[256] = {};
  ASSERT_EQ(::getxattr(f, "user.color", buf, sizeof(buf)), 4);
  EXPECT_EQ(std::string(buf, 4), "blue");
  EXPECT_EQ(::getxattr(f, "user.color", nullptr, 0), 4);  // size query
  EXPECT_EQ(ERRNO_OF(::getxattr(f, "user.color", buf, 2)), ERANGE);
  EXPECT_EQ(ERRNO_OF(::getxattr(f, "user.none", buf, sizeof(buf))), ENODATA);
  EXPECT_EQ(ERRNO_OF(::setxattr(f, "user.color", "red", 3, XATTR_CREATE)), EEXIST);
  EXPECT_EQ(ERRNO_OF(::setxattr(f, "user.none", "x", 1, XATTR_REPLACE)), ENODATA);
  ASSERT_EQ(::setxattr(f, "user.color", "red", 3, XATTR_REPLACE), 0);
  ASSERT_EQ(::setxattr(f, "user.shape", "", 0, 0), 0);
  ssize_t n = ::listxattr(f, buf, sizeof(buf));
  ASSERT_GT(n, 0);
  std::set<std::string> names;
  for (ssize_t i = 0; i < n; i += static_cast<ssize_t>(std::strlen(buf + i)) + 1)
    names.insert(buf + i);
  EXPECT_TRUE(names.count("user.color"));
  EXPECT_TRUE(names.count("user.shape"));
  ASSERT_EQ(::removexattr(f, "user.color"), 0);
  EXPECT_EQ(ERRNO_OF(::removexattr(f, "user.color")), ENODATA);
  std::string big(65537, 'v');
  EXPECT_EQ(ERRNO_OF(::setxattr(f, "user.big", big.data(), big.size(), 0)), E2BIG);
  std::string long_name = "user." + std::string(300, 'n');
  EXPECT_EQ(ERRNO_OF(::setxattr(f, long_name.c_str(), "x", 1, 0)), ERANGE);
  EXPECT_EQ(ERRNO_OF(::setxattr(f, "trusted.x", "x", 1, 0)), EOPNOTSUPP);
  // Names outside user.* are never stored, so they are never set (the kernel asks
  // for security.capability before each write, and is answered without the store).
  EXPECT_EQ(ERRNO_OF(::getxattr(f, "security.capability", buf, sizeof(buf))), ENODATA);
  EXPECT_EQ(ERRNO_OF(::getxattr(f, "trusted.x", buf, sizeof(buf))), ENODATA);
  EXPECT_EQ(ERRNO_OF(::getxattr(P("none").c_str(), "security.capability", buf, sizeof(buf))),
            ENOENT);
}

TEST_F(SyscallTest, BadNamesAndSizes) {
  std::string long_name(256, 'n');
  EXPECT_EQ(ERRNO_OF(::open(P(long_name).c_str(), O_WRONLY | O_CREAT, 0644)), ENAMETOOLONG);
  EXPECT_EQ(ERRNO_OF(::mkdir(P(long_name).c_str(), 0755)), ENAMETOOLONG);
  int fd = ::open(P("big").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(ERRNO_OF(::pwrite(fd, "x", 1, off_t{1} << 40)), EFBIG);
  EXPECT_EQ(ERRNO_OF(::ftruncate(fd, (off_t{1} << 40) + 1)), EFBIG);
  ::close(fd);
  EXPECT_EQ(ERRNO_OF(::mkdir(P(".vexfs").c_str(), 0755)), EEXIST);
}

// A name over 255 bytes cannot exist, so every operation that names one says
// so, as ext4 does, rather than ENOENT ("maybe it is not there yet").
TEST_F(SyscallTest, ANameOver255BytesIsTooLongInEveryOperation) {
  const std::string long_path = P(std::string(256, 'n'));
  const char* lp = long_path.c_str();
  ASSERT_EQ(WritePath(P("x"), "x"), 0);
  ASSERT_EQ(::mkdir(P("d").c_str(), 0755), 0);
  struct stat st{};
  char buf[64];
  EXPECT_EQ(ERRNO_OF(::stat(lp, &st)), ENAMETOOLONG) << "lookup";
  EXPECT_EQ(ERRNO_OF(::access(lp, F_OK)), ENAMETOOLONG) << "access";
  EXPECT_EQ(ERRNO_OF(::open(lp, O_RDONLY)), ENAMETOOLONG) << "open";
  EXPECT_EQ(ERRNO_OF(::open(lp, O_WRONLY | O_CREAT, 0644)), ENAMETOOLONG) << "create";
  EXPECT_EQ(ERRNO_OF(::chmod(lp, 0600)), ENAMETOOLONG) << "chmod";
  EXPECT_EQ(ERRNO_OF(::chown(lp, 0, 0)), ENAMETOOLONG) << "chown";
  EXPECT_EQ(ERRNO_OF(::truncate(lp, 0)), ENAMETOOLONG) << "truncate";
  EXPECT_EQ(ERRNO_OF(::unlink(lp)), ENAMETOOLONG) << "unlink";
  EXPECT_EQ(ERRNO_OF(::rmdir(lp)), ENAMETOOLONG) << "rmdir";
  EXPECT_EQ(ERRNO_OF(::mkdir(lp, 0755)), ENAMETOOLONG) << "mkdir";
  EXPECT_EQ(ERRNO_OF(::mknod(lp, S_IFIFO | 0644, 0)), ENAMETOOLONG) << "mknod";
  EXPECT_EQ(ERRNO_OF(::symlink("x", lp)), ENAMETOOLONG) << "symlink";
  EXPECT_EQ(ERRNO_OF(::readlink(lp, buf, sizeof(buf))), ENAMETOOLONG) << "readlink";
  EXPECT_EQ(ERRNO_OF(::link(P("x").c_str(), lp)), ENAMETOOLONG) << "link to";
  EXPECT_EQ(ERRNO_OF(::link(lp, P("y").c_str())), ENAMETOOLONG) << "link from";
  EXPECT_EQ(ERRNO_OF(::rename(P("x").c_str(), lp)), ENAMETOOLONG) << "rename to";
  EXPECT_EQ(ERRNO_OF(::rename(lp, P("y").c_str())), ENAMETOOLONG) << "rename from";
  EXPECT_EQ(ERRNO_OF(::getxattr(lp, "user.k", buf, sizeof(buf))), ENAMETOOLONG) << "getxattr";
  EXPECT_EQ(ERRNO_OF(::setxattr(lp, "user.k", "v", 1, 0)), ENAMETOOLONG) << "setxattr";
  std::string in_dir = P("d/" + std::string(300, 'm'));
  EXPECT_EQ(ERRNO_OF(::stat(in_dir.c_str(), &st)), ENAMETOOLONG) << "lookup in a subdirectory";
  // 255 bytes is a name like any other.
  std::string longest = P(std::string(255, 'n'));
  EXPECT_EQ(ERRNO_OF(::stat(longest.c_str(), &st)), ENOENT);
  ASSERT_EQ(WritePath(longest, "fits"), 0);
  EXPECT_EQ(::stat(longest.c_str(), &st), 0);
  // Nothing was made or changed by the refused calls.
  EXPECT_EQ(ReadPath(P("x")), "x");
}

TEST_F(SyscallTest, MmapReadAndSharedWrite) {
  std::string data(3 * 4096, 'a');
  ASSERT_EQ(WritePath(P("m"), data), 0);
  int fd = ::open(P("m").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  void* addr = ::mmap(nullptr, data.size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(addr, MAP_FAILED);
  char* bytes = static_cast<char*>(addr);
  EXPECT_EQ(bytes[5000], 'a');
  std::memcpy(bytes + 4096, "MAPPED", 6);
  ASSERT_EQ(::msync(addr, data.size(), MS_SYNC), 0);
  ASSERT_EQ(::munmap(addr, data.size()), 0);
  ::close(fd);
  data.replace(4096, 6, "MAPPED");
  EXPECT_EQ(ReadPath(P("m")), data);
  CommandResult cat = RunVexfs({"--store", store(), "cat", "m"});
  EXPECT_EQ(cat.out, data);
}

TEST_F(SyscallTest, TwoHandlesSeeOneFile) {
  int writer = ::open(P("shared").c_str(), O_RDWR | O_CREAT, 0644);
  int reader = ::open(P("shared").c_str(), O_RDONLY);
  ASSERT_GE(writer, 0);
  ASSERT_GE(reader, 0);
  ASSERT_EQ(::pwrite(writer, "fresh", 5, 0), 5);  // buffered, not yet flushed
  char buf[8] = {};
  EXPECT_EQ(::pread(reader, buf, sizeof(buf), 0), 5);
  EXPECT_EQ(std::string(buf, 5), "fresh");
  ::close(writer);
  ::close(reader);
}

TEST_F(SyscallTest, VirtualTreeIsReadOnly) {
  ASSERT_EQ(WritePath(P("a"), "A"), 0);
  CommandResult snap = RunVexfs({"--store", store(), "snapshot", "create", "s1"});
  ASSERT_TRUE(snap.ok()) << snap.err;
  EXPECT_EQ(WritePath(P(".vexfs/new"), "x"), EROFS);
  EXPECT_EQ(ERRNO_OF(::mkdir(P(".vexfs/snapshots/s1/d").c_str(), 0755)), EROFS);
  EXPECT_EQ(ERRNO_OF(::open(P(".vexfs/snapshots/s1/a").c_str(), O_WRONLY)), EROFS);
  EXPECT_EQ(ERRNO_OF(::unlink(P(".vexfs/snapshots/s1/a").c_str())), EROFS);
  EXPECT_EQ(ERRNO_OF(::rename(P("a").c_str(), P(".vexfs/a").c_str())), EROFS);
  EXPECT_EQ(ReadPath(P(".vexfs/snapshots/s1/a")), "A");
}

class ReadOnlyMountTest : public MountTest {
 protected:
  std::vector<std::string> DefaultMountArgs() const override { return {"-o", "ro"}; }
};

TEST_F(ReadOnlyMountTest, WritesAreRefused) {
  EXPECT_EQ(WritePath(P("x"), "x"), EROFS);
  EXPECT_EQ(ERRNO_OF(::mkdir(P("d").c_str(), 0755)), EROFS);
  struct stat st {};
  EXPECT_EQ(::stat(mnt().c_str(), &st), 0);
}

}  // namespace
}  // namespace vexfs::mount_test
