// Remembering GGUF weights fingerprints by file identity (fingerprint_cache.h).
#include "kv/fingerprint_cache.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>

#include "common/coding.h"
#include "common/sha256.h"
#include "vexfs/usxf_io.h"

namespace vexfs::kv {
namespace {

// A file changed within this long before its hashing began may change again
// within the same timestamp tick unseen (git's "racy clean"): not remembered.
constexpr int64_t kSettledNs = 2'000'000'000;

int64_t Ns(const timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; }

std::string CacheDir() {
  if (const char* dir = std::getenv("VEXFS_CACHE_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/vexfs";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/vexfs";
  }
  return "";
}

// The entries' directory, made 0700 if missing; "" unless it is a real
// directory of this user that nobody else can write (a shared cache could be
// filled with another model's digest).
std::string EntryDir(bool create) {
  const std::string base = CacheDir();
  if (base.empty()) return "";
  const std::string dir = base + "/gguf-weights";
  if (create) {
    std::error_code ec;
    std::filesystem::create_directories(base, ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return "";
  }
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return "";
  }
  return dir;
}

std::string EntryName(const struct stat& st) {
  Encoder e;
  e.PutRaw("vexfs-gguf-weights-v1");
  for (uint64_t v : {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_size), uint64_t(st.st_mtim.tv_sec),
                     uint64_t(st.st_mtim.tv_nsec), uint64_t(st.st_ctim.tv_sec), uint64_t(st.st_ctim.tv_nsec)}) {
    e.PutFixed64BE(v);
  }
  return Sha256Of(e.data()).ToHex();
}

// File systems whose times come from elsewhere (a server, a FUSE daemon): a
// stat may be served from a cache, and a time need not move on a write.
bool LocalFileSystem(int fd) {
  struct statfs fs;
  if (::fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case NFS_SUPER_MAGIC:
    case SMB_SUPER_MAGIC:
    case 0xFF534D42:  // CIFS
    case 0xFE534D42:  // SMB2
    case 0x65735546:  // FUSE
    case V9FS_MAGIC:
    case CODA_SUPER_MAGIC:
    case AFS_SUPER_MAGIC:
      return false;
    default:
      return true;
  }
}

}  // namespace

bool Rememberable(int fd, const struct stat& st, const timespec& hashing_began) {
  const int64_t began = Ns(hashing_began);
  return S_ISREG(st.st_mode) && LocalFileSystem(fd) && Ns(st.st_ctim) + kSettledNs < began &&
         Ns(st.st_mtim) + kSettledNs < began;
}

std::optional<usxf::Digest> RememberedWeights(const struct stat& st) {
  const std::string dir = EntryDir(/*create=*/false);
  if (dir.empty()) return std::nullopt;
  const int fd = ::open((dir + "/" + EntryName(st)).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  struct stat entry;
  char text[66];
  ssize_t n = -1;
  if (::fstat(fd, &entry) == 0 && S_ISREG(entry.st_mode) && entry.st_uid == ::geteuid()) {
    n = ::read(fd, text, sizeof text);
  }
  ::close(fd);
  if (n != 65 || text[64] != '\n') return std::nullopt;
  auto id = ObjectId::FromHex(std::string_view(text, 64));
  if (!id.ok()) return std::nullopt;
  usxf::Digest d;
  std::copy(id->bytes.begin(), id->bytes.end(), d.begin());
  return d;
}

void RememberWeights(const struct stat& st, const usxf::Digest& weights) {
  const std::string dir = EntryDir(/*create=*/true);
  if (dir.empty()) return;
  // A cache: a failed write only means the next load hashes again. The
  // temporary is made exclusively, never through a symlink.
  auto sink = usxf::AtomicFileSink::Create(dir + "/" + EntryName(st), 0600);
  if (!sink.ok()) return;
  if ((*sink)->Write(usxf::HexOf(weights) + "\n").ok()) (void)(*sink)->Commit();
}

}  // namespace vexfs::kv
