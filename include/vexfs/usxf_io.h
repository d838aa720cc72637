// Byte sinks and sources for USXF: files (written atomically), file descriptors
// and in-memory strings.
//
// Thread-safety: one thread per object.
#ifndef VEXFS_USXF_IO_H_
#define VEXFS_USXF_IO_H_

#include <sys/types.h>

#include <string>

#include "vexfs/usxf.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::usxf {

// Writes to a new temporary "<path>.tmp.<pid>.<random>" (created exclusively, never
// through a symlink); Commit fsyncs it and renames it over `path`, so a crash
// leaves the old file or the new one. Without Commit the temporary is removed.
class AtomicFileSink : public ByteSink {
 public:
  // `mode`: permissions of the new file (before the umask).
  static Result<std::unique_ptr<AtomicFileSink>> Create(const std::string& path, mode_t mode = 0644);
  ~AtomicFileSink() override;
  Status Write(std::string_view bytes) override;
  // Gives the new file exactly `mode` (no umask), e.g. that of the file it replaces.
  Status SetMode(mode_t mode);
  Status Commit();

 private:
  AtomicFileSink(std::string path, std::string tmp, int fd);
  std::string path_, tmp_;
  int fd_;
  std::string buffer_;  // coalesces small writes
  Status Flush();
  Status WriteAll(std::string_view bytes);
};

// Reads from a file descriptor the caller owns (a file, a pipe, a socket).
class FdSource : public ByteSource {
 public:
  explicit FdSource(int fd) : fd_(fd) {}
  Result<size_t> Read(char* buf, size_t n) override;

 private:
  int fd_;
};

class StringSink : public ByteSink {
 public:
  Status Write(std::string_view bytes) override {
    out.append(bytes);
    return Status::Ok();
  }
  std::string out;
};

class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string_view in) : in_(in) {}
  Result<size_t> Read(char* buf, size_t n) override;

 private:
  std::string_view in_;
};

}  // namespace vexfs::usxf

#pragma GCC visibility pop

#endif  // VEXFS_USXF_IO_H_
