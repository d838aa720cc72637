// Little-endian and varint encoding for everything VexFS writes to disk. The
// grammar of each record is in docs/format.md; these are its primitives.
#ifndef VEXFS_COMMON_CODING_H_
#define VEXFS_COMMON_CODING_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "vexfs/types.h"

namespace vexfs {

// Appends encoded values to a string.
class Encoder {
 public:
  void PutU8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void PutFixed32BE(uint32_t v);  // big-endian: keys sort numerically
  void PutFixed64BE(uint64_t v);
  void PutFixed64LE(uint64_t v);  // little-endian: checksums
  void PutVarint(uint64_t v);          // LEB128
  void PutSignedVarint(int64_t v);     // zigzag, then LEB128
  void PutBytes(std::string_view b);   // varint length, then bytes
  void PutRaw(std::string_view b) { out_.append(b); }
  void PutId(const ObjectId& id) { out_.append(id.AsBytes()); }

  const std::string& data() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads values back; every getter fails (returns false) instead of reading past
// the end, so a truncated or hostile record is a decode error, never a crash.
class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}
  bool GetU8(uint8_t* v);
  bool GetFixed32BE(uint32_t* v);
  bool GetFixed64BE(uint64_t* v);
  bool GetFixed64LE(uint64_t* v);
  bool GetVarint(uint64_t* v);
  bool GetVarint32(uint32_t* v);
  bool GetSignedVarint(int64_t* v);
  bool GetBytes(std::string_view* b);
  bool GetRaw(size_t n, std::string_view* b);
  bool GetId(ObjectId* id);
  bool done() const { return in_.empty(); }
  size_t remaining() const { return in_.size(); }

 private:
  std::string_view in_;
};

// The big-endian number the first 8 bytes of `bytes` hold (key suffixes); 0 if
// there are fewer.
uint64_t DecodeBE64(std::string_view bytes);

}  // namespace vexfs

#endif  // VEXFS_COMMON_CODING_H_
