// Remembering GGUF weights fingerprints by file identity (fingerprint_cache.h).
#include "kv/fingerprint_cache.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/coding.h"
#include "common/file_util.h"
#include "common/sha256.h"

namespace vexfs::kv {
namespace {

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

// The entry's path for a file of this identity ("" when there is no cache).
std::string EntryPath(const struct stat& st) {
  const std::string dir = CacheDir();
  if (dir.empty()) return "";
  Encoder e;
  e.PutRaw("vexfs-gguf-weights-v1");
  for (uint64_t v : {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_size), uint64_t(st.st_mtim.tv_sec),
                     uint64_t(st.st_mtim.tv_nsec), uint64_t(st.st_ctim.tv_sec), uint64_t(st.st_ctim.tv_nsec)}) {
    e.PutFixed64BE(v);
  }
  return dir + "/gguf-weights/" + Sha256Of(e.data()).ToHex();
}

}  // namespace

std::optional<usxf::Digest> RememberedWeights(const struct stat& st) {
  const std::string path = EntryPath(st);
  if (path.empty()) return std::nullopt;
  auto text = ReadWholeFile(path);
  if (!text.ok() || text->size() != 65 || (*text)[64] != '\n') return std::nullopt;
  auto id = ObjectId::FromHex(std::string_view(*text).substr(0, 64));
  if (!id.ok()) return std::nullopt;
  usxf::Digest d;
  std::copy(id->bytes.begin(), id->bytes.end(), d.begin());
  return d;
}

void RememberWeights(const struct stat& st, const usxf::Digest& weights) {
  const std::string path = EntryPath(st);
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return;
  // A cache: a failed write only means the next load hashes again.
  (void)WriteFileAtomically(path, usxf::HexOf(weights) + "\n");
}

}  // namespace vexfs::kv
