// A read-only, shared mapping of a whole file, unmapped when it goes away: what
// MappedFile, VerifyFile and SignFile read USXF files through.
#ifndef VEXFS_USXF_MAPPING_H_
#define VEXFS_USXF_MAPPING_H_

#include <memory>
#include <string>
#include <string_view>

#include "vexfs/status.h"

namespace vexfs::usxf {

class Mapping {
 public:
  static Result<std::unique_ptr<Mapping>> Open(const std::string& path);
  // Maps the file `fd` refers to; the caller keeps (and closes) fd.
  static Result<std::unique_ptr<Mapping>> FromFd(int fd, const std::string& path);
  ~Mapping();
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;

  std::string_view bytes() const { return {static_cast<const char*>(map_), length_}; }

 private:
  Mapping() = default;
  void* map_ = nullptr;  // null for an empty file
  size_t length_ = 0;
};

}  // namespace vexfs::usxf

#endif  // VEXFS_USXF_MAPPING_H_
