// Randomised file operations applied in lockstep to the mount and to a plain
// directory on tmpfs: writes at random offsets through long-lived descriptors,
// truncates, renames, links, unlinks (also of open files), mmap writes, reopens.
// Every operation must give the same result (or errno) on both sides; after every
// step the metadata of the whole tree and the content of what the step touched
// must agree, and every 50 steps (and at the end) all content.
// Seeded and reproducible: VEXFS_EXERCISER_SEED and VEXFS_EXERCISER_OPS.
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include "mount/mount_test_util.h"
#include "test_util.h"

namespace vexfs::mount_test {
namespace {

constexpr int kMaxOpenPairs = 4;
constexpr size_t kMaxWrite = 48 * 1024;

// One descriptor on each side, opened on the same path at the same step.
struct FdPair {
  int mount_fd = -1;
  int ref_fd = -1;
  std::string opened_as;
};

class Exerciser {
 public:
  Exerciser(std::string mount_root, std::string ref_root, uint64_t seed)
      : roots_{std::move(mount_root), std::move(ref_root)}, rng_(seed) {}
  ~Exerciser() {
    for (FdPair& p : open_) Close(p);
  }

  // Runs one random operation; returns a description of any disagreement.
  std::string Step(int step) {
    std::string op = RandomOp();
    log_ << step << ": " << op << "\n";
    if (!mismatch_.empty()) return mismatch_;
    std::string meta = CompareTree("", /*content=*/step % 50 == 49);
    if (!meta.empty()) return meta;
    for (const std::string& path : touched_) {
      std::string diff = CompareContent(path);
      if (!diff.empty()) return diff;
    }
    return "";
  }

  std::string FinalCheck() { return CompareTree("", /*content=*/true); }
  std::string Log() const { return log_.str(); }

 private:
  std::string M(const std::string& rel) const { return roots_[0] + "/" + rel; }
  std::string R(const std::string& rel) const { return roots_[1] + "/" + rel; }

  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  std::string RandomName() {
    static const char* kDirs[] = {"", "a/", "b/", "a/c/"};
    return std::string(kDirs[Pick(4)]) + "f" + std::to_string(Pick(12));
  }
  std::string RandomDir() {
    static const char* kDirs[] = {"a", "b", "a/c", "b/d"};
    return kDirs[Pick(4)];
  }
  std::string RandomBytes(size_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>('a' + Pick(26));
    return s;
  }

  // Records a disagreement between the two sides' results.
  void Expect(const std::string& what, long mount_rc, int mount_errno, long ref_rc, int ref_errno) {
    bool same = (mount_rc < 0) == (ref_rc < 0) &&
                (mount_rc < 0 ? mount_errno == ref_errno : mount_rc == ref_rc);
    if (!same && mismatch_.empty()) {
      mismatch_ = what + ": mount gave " + std::to_string(mount_rc) + " (" +
                  std::strerror(mount_errno) + "), tmpfs gave " + std::to_string(ref_rc) + " (" +
                  std::strerror(ref_errno) + ")";
    }
  }

  // Runs `fn` on both roots' paths and compares the results.
  template <typename Fn>
  void Both(const std::string& what, Fn fn) {
    errno = 0;
    long m = fn(0);
    int me = errno;
    errno = 0;
    long r = fn(1);
    int re = errno;
    Expect(what, m, me, r, re);
  }

  std::string RandomOp() {
    touched_.clear();
    switch (Pick(14)) {
      case 0:
      case 1:
        return CreateFile();
      case 2:
      case 3:
        return PwriteOpen();
      case 4:
        return Truncate();
      case 5:
        return Rename();
      case 6:
        return Unlink();
      case 7:
        return Mkdir();
      case 8:
        return Rmdir();
      case 9:
        return MmapWrite();
      case 10:
        return Reopen();
      case 11:
        return Link();
      case 12:
        return Chmod();
      default:
        return Append();
    }
  }

  std::string CreateFile() {
    std::string path = RandomName();
    std::string data = RandomBytes(Pick(kMaxWrite));
    Both("create " + path, [&](int side) -> long {
      std::string p = side == 0 ? M(path) : R(path);
      int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) return -1;
      ssize_t n = ::write(fd, data.data(), data.size());
      int err = errno;
      ::close(fd);
      errno = err;
      return n;
    });
    touched_.push_back(path);
    return "create " + path + " (" + std::to_string(data.size()) + " bytes)";
  }

  std::string OpenPair() {
    if (open_.size() >= kMaxOpenPairs) Close(open_[Pick(open_.size())]);
    std::erase_if(open_, [](const FdPair& p) { return p.mount_fd < 0; });
    std::string path = RandomName();
    FdPair pair;
    pair.opened_as = path;
    errno = 0;
    pair.mount_fd = ::open(M(path).c_str(), O_RDWR | O_CREAT, 0644);
    int me = errno;
    errno = 0;
    pair.ref_fd = ::open(R(path).c_str(), O_RDWR | O_CREAT, 0644);
    int re = errno;
    Expect("open " + path, pair.mount_fd < 0 ? -1 : 0, me, pair.ref_fd < 0 ? -1 : 0, re);
    if (pair.mount_fd >= 0 && pair.ref_fd >= 0) {
      open_.push_back(pair);
    } else {
      Close(pair);
    }
    touched_.push_back(path);
    return "open " + path;
  }

  void Close(FdPair& p) {
    if (p.mount_fd >= 0) Expect("close " + p.opened_as, ::close(p.mount_fd), errno, 0, 0);
    if (p.ref_fd >= 0) ::close(p.ref_fd);
    p.mount_fd = p.ref_fd = -1;
  }

  FdPair* SomeOpen() {
    if (open_.empty() || Pick(4) == 0) OpenPair();
    return open_.empty() ? nullptr : &open_[Pick(open_.size())];
  }

  std::string PwriteOpen() {
    FdPair* p = SomeOpen();
    if (!p) return "pwrite: nothing open";
    struct stat st {};
    ::fstat(p->ref_fd, &st);
    off_t offset = static_cast<off_t>(Pick(static_cast<size_t>(st.st_size) + kMaxWrite));
    std::string data = RandomBytes(1 + Pick(kMaxWrite));
    Expect("pwrite " + p->opened_as, ::pwrite(p->mount_fd, data.data(), data.size(), offset), errno,
           ::pwrite(p->ref_fd, data.data(), data.size(), offset), errno);
    // A read through the same descriptor sees the write at once.
    std::string a(data.size(), 'x'), b(data.size(), 'y');
    Expect("pread " + p->opened_as, ::pread(p->mount_fd, a.data(), a.size(), offset), errno,
           ::pread(p->ref_fd, b.data(), b.size(), offset), errno);
    if (a != b && mismatch_.empty()) mismatch_ = "pread after pwrite differs: " + p->opened_as;
    touched_.push_back(p->opened_as);
    return "pwrite " + p->opened_as + " at " + std::to_string(offset) + " len " +
           std::to_string(data.size());
  }

  std::string Append() {
    std::string path = RandomName();
    std::string data = RandomBytes(1 + Pick(4096));
    Both("append " + path, [&](int side) -> long {
      int fd = ::open((side == 0 ? M(path) : R(path)).c_str(), O_WRONLY | O_APPEND);
      if (fd < 0) return -1;
      ssize_t n = ::write(fd, data.data(), data.size());
      int err = errno;
      ::close(fd);
      errno = err;
      return n;
    });
    touched_.push_back(path);
    return "append " + path;
  }

  std::string Truncate() {
    if (!open_.empty() && Pick(2) == 0) {
      FdPair& p = open_[Pick(open_.size())];
      off_t size = static_cast<off_t>(Pick(2 * kMaxWrite));
      Expect("ftruncate " + p.opened_as, ::ftruncate(p.mount_fd, size), errno,
             ::ftruncate(p.ref_fd, size), errno);
      touched_.push_back(p.opened_as);
      return "ftruncate " + p.opened_as + " to " + std::to_string(size);
    }
    std::string path = RandomName();
    off_t size = static_cast<off_t>(Pick(2 * kMaxWrite));
    Both("truncate " + path, [&](int side) -> long {
      return ::truncate((side == 0 ? M(path) : R(path)).c_str(), size);
    });
    touched_.push_back(path);
    return "truncate " + path + " to " + std::to_string(size);
  }

  std::string Rename() {
    bool dirs = Pick(4) == 0;
    std::string from = dirs ? RandomDir() : RandomName();
    std::string to = dirs ? RandomDir() : RandomName();
    Both("rename " + from + " " + to, [&](int side) -> long {
      return side == 0 ? ::rename(M(from).c_str(), M(to).c_str())
                       : ::rename(R(from).c_str(), R(to).c_str());
    });
    touched_.push_back(to);
    return "rename " + from + " -> " + to;
  }

  std::string Unlink() {
    std::string path = RandomName();
    Both("unlink " + path,
         [&](int side) -> long { return ::unlink((side == 0 ? M(path) : R(path)).c_str()); });
    return "unlink " + path;
  }

  std::string Mkdir() {
    std::string dir = RandomDir();
    Both("mkdir " + dir,
         [&](int side) -> long { return ::mkdir((side == 0 ? M(dir) : R(dir)).c_str(), 0755); });
    return "mkdir " + dir;
  }

  std::string Rmdir() {
    std::string dir = RandomDir();
    Both("rmdir " + dir,
         [&](int side) -> long { return ::rmdir((side == 0 ? M(dir) : R(dir)).c_str()); });
    return "rmdir " + dir;
  }

  std::string MmapWrite() {
    FdPair* p = SomeOpen();
    if (!p) return "mmap: nothing open";
    struct stat st {};
    ::fstat(p->ref_fd, &st);
    if (st.st_size == 0) return "mmap: empty file";
    size_t size = static_cast<size_t>(st.st_size);
    size_t at = Pick(size);
    std::string data = RandomBytes(1 + Pick(std::min<size_t>(size - at, 8192)));
    for (int side = 0; side < 2; ++side) {
      int fd = side == 0 ? p->mount_fd : p->ref_fd;
      void* addr = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (addr == MAP_FAILED) {
        if (mismatch_.empty()) mismatch_ = "mmap failed: " + std::string(std::strerror(errno));
        return "mmap";
      }
      std::memcpy(static_cast<char*>(addr) + at, data.data(), data.size());
      if (::msync(addr, size, MS_SYNC) != 0 && mismatch_.empty()) mismatch_ = "msync failed";
      ::munmap(addr, size);
    }
    touched_.push_back(p->opened_as);
    return "mmap write " + p->opened_as + " at " + std::to_string(at);
  }

  std::string Reopen() {
    if (!open_.empty()) Close(open_[Pick(open_.size())]);
    std::erase_if(open_, [](const FdPair& p) { return p.mount_fd < 0; });
    return OpenPair();
  }

  std::string Link() {
    std::string from = RandomName(), to = RandomName();
    bool soft = Pick(2) == 0;
    Both((soft ? "symlink " : "link ") + from + " " + to, [&](int side) -> long {
      if (soft) return ::symlink("target-text", (side == 0 ? M(to) : R(to)).c_str());
      return side == 0 ? ::link(M(from).c_str(), M(to).c_str())
                       : ::link(R(from).c_str(), R(to).c_str());
    });
    return (soft ? "symlink " : "link ") + from + " -> " + to;
  }

  std::string Chmod() {
    std::string path = RandomName();
    mode_t mode = Pick(2) ? 0600 : 0644;
    Both("chmod " + path,
         [&](int side) -> long { return ::chmod((side == 0 ? M(path) : R(path)).c_str(), mode); });
    return "chmod " + path;
  }

  static std::string ReadAll(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW);
    if (fd < 0) return "<" + std::string(std::strerror(errno)) + ">";
    std::string out;
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    ::close(fd);
    return out;
  }

  std::string CompareContent(const std::string& rel) {
    struct stat st {};
    if (::lstat(R(rel).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
    std::string a = ReadAll(M(rel)), b = ReadAll(R(rel));
    if (a == b) return "";
    size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
    return "content of " + rel + " differs at byte " + std::to_string(at) + " (mount " +
           std::to_string(a.size()) + " bytes, tmpfs " + std::to_string(b.size()) + ")";
  }

  // Names, types, sizes, modes, link counts (and content) of everything below `rel`.
  std::string CompareTree(const std::string& rel, bool content) {
    std::map<std::string, struct stat> sides[2];
    for (int side = 0; side < 2; ++side) {
      std::string dir = side == 0 ? M(rel) : R(rel);
      DIR* d = ::opendir(dir.c_str());
      if (!d) return "cannot list " + dir;
      while (dirent* e = ::readdir(d)) {
        std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        struct stat st {};
        ::lstat((dir + "/" + name).c_str(), &st);
        sides[side][name] = st;
      }
      ::closedir(d);
    }
    for (const auto& [name, st] : sides[1]) {
      std::string path = rel.empty() ? name : rel + "/" + name;
      auto it = sides[0].find(name);
      if (it == sides[0].end()) return path + " is missing on the mount";
      const struct stat& m = it->second;
      if ((m.st_mode & S_IFMT) != (st.st_mode & S_IFMT)) return path + ": type differs";
      if ((m.st_mode & 07777) != (st.st_mode & 07777)) return path + ": mode differs";
      if (!S_ISDIR(st.st_mode) && m.st_size != st.st_size) {
        return path + ": size " + std::to_string(m.st_size) + " on the mount, " +
               std::to_string(st.st_size) + " on tmpfs";
      }
      if (m.st_nlink != st.st_nlink) return path + ": nlink differs";
      if (S_ISDIR(st.st_mode)) {
        std::string sub = CompareTree(path, content);
        if (!sub.empty()) return sub;
      } else if (content) {
        std::string diff = CompareContent(path);
        if (!diff.empty()) return diff;
      }
    }
    if (sides[0].size() != sides[1].size()) return "extra entries on the mount in '" + rel + "'";
    return "";
  }

  std::string roots_[2];
  std::mt19937_64 rng_;
  std::vector<FdPair> open_;
  std::vector<std::string> touched_;
  std::string mismatch_;
  std::ostringstream log_;
};

class ExerciserTest : public MountTest {};

TEST_F(ExerciserTest, MountMatchesTmpfsStepByStep) {
  const uint64_t seed = test::EnvOr("VEXFS_EXERCISER_SEED", 20261203);
  const uint64_t ops = test::EnvOr("VEXFS_EXERCISER_OPS", 2000);
  // The reference is tmpfs where there is one.
  std::string pattern =
      std::string(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/vexfs-refXXXXXX";
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  struct RemoveAtEnd {
    std::string path;
    ~RemoveAtEnd() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } ref{pattern};
  Exerciser ex(mnt(), ref.path, seed);
  for (uint64_t step = 0; step < ops; ++step) {
    std::string diff = ex.Step(static_cast<int>(step));
    ASSERT_TRUE(diff.empty()) << "seed " << seed << ", step " << step << ": " << diff
                              << "\nlast operations:\n"
                              << ex.Log().substr(ex.Log().size() > 3000 ? ex.Log().size() - 3000
                                                                        : 0);
  }
  std::string diff = ex.FinalCheck();
  EXPECT_TRUE(diff.empty()) << "seed " << seed << ": " << diff;
}

}  // namespace
}  // namespace vexfs::mount_test
