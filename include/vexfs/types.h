// Plain value types shared by the VexFS public API: object ids, file types,
// attributes, directory entries. No behaviour beyond formatting and comparison.
#ifndef VEXFS_TYPES_H_
#define VEXFS_TYPES_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

// The longest path component, as in most POSIX file systems.
inline constexpr size_t kMaxNameLength = 255;
// The largest file the store accepts (1 TiB).
inline constexpr uint64_t kMaxFileSize = uint64_t{1} << 40;
// Inode number of every working tree's root directory.
inline constexpr uint64_t kRootIno = 1;

// SHA-256 of an object's type tag and uncompressed payload (docs/format.md).
struct ObjectId {
  std::array<uint8_t, 32> bytes{};

  bool IsZero() const;
  std::string ToHex() const;
  // Accepts exactly 64 hex digits.
  static Result<ObjectId> FromHex(std::string_view hex);
  static ObjectId FromBytes(std::string_view raw);  // raw.size() must be 32
  std::string_view AsBytes() const {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
  friend bool operator==(const ObjectId&, const ObjectId&) = default;
  friend auto operator<=>(const ObjectId&, const ObjectId&) = default;
};

struct ObjectIdHash {
  size_t operator()(const ObjectId& id) const;
};

// Special files (FIFOs, sockets, devices) are inodes with a mode, an owner and,
// for devices, a device number; they hold no data: the kernel serves them.
enum class FileType : uint8_t {
  kRegular = 1,
  kDirectory = 2,
  kSymlink = 3,
  kFifo = 4,
  kSocket = 5,
  kCharDevice = 6,
  kBlockDevice = 7,
};
// "file", "dir", "symlink", "fifo", "socket", "chardev", "blockdev"
const char* FileTypeName(FileType type);
// True for the four special types, which have no content.
bool IsSpecialFile(FileType type);
// True for character and block devices, the types that carry a device number.
bool IsDeviceFile(FileType type);
// Whether `byte` is the encoding of a FileType (1..7), for decoders of stored bytes.
bool IsFileTypeByte(uint8_t byte);

// Nanoseconds since the Unix epoch.
using TimeNs = int64_t;
TimeNs NowNs();

struct Attributes {
  uint64_t ino = 0;        // 0 inside a snapshot view: snapshots have no inodes
  FileType type = FileType::kRegular;
  uint32_t mode = 0;       // permission bits only (07777); the type is `type`
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint64_t size = 0;       // bytes; for a symlink, the target's length
  uint32_t nlink = 1;
  uint64_t rdev = 0;       // device number of a character or block device; else 0
  TimeNs atime = 0;
  TimeNs mtime = 0;
  TimeNs ctime = 0;
};

struct DirEntry {
  std::string name;
  Attributes attr;
};

using XattrMap = std::map<std::string, std::string>;

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_TYPES_H_
