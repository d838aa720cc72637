// Formatting and parsing for the public value types.
#include "vexfs/types.h"

#include <chrono>
#include <cstring>

namespace vexfs {

bool ObjectId::IsZero() const {
  for (uint8_t b : bytes) {
    if (b != 0) return false;
  }
  return true;
}

std::string ObjectId::ToHex() const {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(64, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return out;
}

static int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<ObjectId> ObjectId::FromHex(std::string_view hex) {
  if (hex.size() != 64) {
    return Status::InvalidArgument("object id '" + std::string(hex) +
                                   "' is not 64 hex digits");
  }
  ObjectId id;
  for (size_t i = 0; i < 32; ++i) {
    int hi = HexValue(hex[2 * i]);
    int lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return Status::InvalidArgument("object id '" + std::string(hex) +
                                     "' has a non-hex digit");
    }
    id.bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return id;
}

ObjectId ObjectId::FromBytes(std::string_view raw) {
  ObjectId id;
  std::memcpy(id.bytes.data(), raw.data(), std::min(raw.size(), id.bytes.size()));
  return id;
}

size_t ObjectIdHash::operator()(const ObjectId& id) const {
  size_t h;  // SHA-256 output is uniform: any 8 bytes make a good hash
  std::memcpy(&h, id.bytes.data(), sizeof(h));
  return h;
}

const char* FileTypeName(FileType type) {
  switch (type) {
    case FileType::kRegular: return "file";
    case FileType::kDirectory: return "dir";
    case FileType::kSymlink: return "symlink";
    case FileType::kFifo: return "fifo";
    case FileType::kSocket: return "socket";
    case FileType::kCharDevice: return "chardev";
    case FileType::kBlockDevice: return "blockdev";
  }
  return "unknown";
}

bool IsSpecialFile(FileType type) {
  return type == FileType::kFifo || type == FileType::kSocket || IsDeviceFile(type);
}

bool IsDeviceFile(FileType type) {
  return type == FileType::kCharDevice || type == FileType::kBlockDevice;
}

bool IsFileTypeByte(uint8_t byte) {
  return byte >= static_cast<uint8_t>(FileType::kRegular) &&
         byte <= static_cast<uint8_t>(FileType::kBlockDevice);
}

TimeNs NowNs() {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
}

}  // namespace vexfs
