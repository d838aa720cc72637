// Read-only whole-file mappings (see mapping.h).
#include "usxf/mapping.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_util.h"

namespace vexfs::usxf {

Result<std::unique_ptr<Mapping>> Mapping::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open " + path);
  auto mapping = FromFd(fd, path);
  ::close(fd);  // the mapping keeps the file
  return mapping;
}

Result<std::unique_ptr<Mapping>> Mapping::FromFd(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoStatus("stat " + path);
  auto m = std::unique_ptr<Mapping>(new Mapping);
  if (st.st_size == 0) return m;  // mmap refuses a zero length
  void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return ErrnoStatus("mmap " + path);
  m->map_ = map;
  m->length_ = static_cast<size_t>(st.st_size);
  return m;
}

Mapping::~Mapping() {
  if (map_ != nullptr) ::munmap(map_, length_);
}

}  // namespace vexfs::usxf
