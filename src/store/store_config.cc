// Reading and atomically writing the store's marker file.
#include "store/store_config.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace vexfs::internal {

static Status ErrnoStatus(const std::string& what) {
  int err = errno;
  std::string msg = what + ": " + std::strerror(err);
  if (err == ENOSPC || err == EDQUOT) return Status::NoSpace(msg);
  if (err == EROFS || err == EACCES || err == EPERM) return Status::ReadOnly(msg);
  if (err == ENOENT) return Status::NotFound(msg);
  return Status::IOError(msg);
}

Result<StoreConfig> ReadStoreConfig(const std::string& dir) {
  std::string path = dir + "/" + kConfigFileName;
  std::ifstream in(path);
  if (!in) return Status::NotFound("no VexFS store at '" + dir + "' (run 'vexfs init')");
  StoreConfig config;
  std::string key;
  bool has_format = false;
  while (in >> key) {
    if (key == "vexfs-store-format") {
      in >> config.format;
      has_format = true;
    } else if (key == "map_size") {
      in >> config.map_size;
    } else {
      std::string ignored;  // unknown keys are kept for newer versions, not errors
      in >> ignored;
    }
    if (!in) break;
  }
  if (!has_format || config.map_size == 0) {
    return Status::Corruption("store marker '" + path + "' is malformed");
  }
  return config;
}

Status WriteStoreConfig(const std::string& dir, const StoreConfig& config) {
  std::string path = dir + "/" + kConfigFileName;
  std::string tmp = path + ".tmp";
  std::ostringstream text;
  text << "vexfs-store-format " << config.format << "\nmap_size " << config.map_size << "\n";
  std::string bytes = text.str();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("create '" + tmp + "'");
  bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()) &&
            ::fsync(fd) == 0;
  Status st = ok ? Status::Ok() : ErrnoStatus("write '" + tmp + "'");
  ::close(fd);
  if (!st.ok()) return st;
  if (::rename(tmp.c_str(), path.c_str()) != 0) return ErrnoStatus("rename '" + tmp + "'");
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return ErrnoStatus("open directory '" + dir + "'");
  // Makes the rename itself durable: until then a crash can lose the store.
  st = ::fsync(dfd) == 0 ? Status::Ok() : ErrnoStatus("sync directory '" + dir + "'");
  ::close(dfd);
  return st;
}

}  // namespace vexfs::internal
