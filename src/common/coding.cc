// Encoder/Decoder primitives (docs/format.md, "Primitives").
#include "common/coding.h"

namespace vexfs {

void Encoder::PutFixed32BE(uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) PutU8(static_cast<uint8_t>(v >> shift));
}

void Encoder::PutFixed64BE(uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) PutU8(static_cast<uint8_t>(v >> shift));
}

void Encoder::PutFixed64LE(uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) PutU8(static_cast<uint8_t>(v >> shift));
}

void Encoder::PutVarint(uint64_t v) {
  while (v >= 0x80) {
    PutU8(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  PutU8(static_cast<uint8_t>(v));
}

void Encoder::PutSignedVarint(int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  PutVarint((u << 1) ^ static_cast<uint64_t>(v >> 63));
}

void Encoder::PutBytes(std::string_view b) {
  PutVarint(b.size());
  out_.append(b);
}

bool Decoder::GetU8(uint8_t* v) {
  if (in_.empty()) return false;
  *v = static_cast<uint8_t>(in_[0]);
  in_.remove_prefix(1);
  return true;
}

bool Decoder::GetFixed32BE(uint32_t* v) {
  if (in_.size() < 4) return false;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r = r << 8 | static_cast<uint8_t>(in_[i]);
  in_.remove_prefix(4);
  *v = r;
  return true;
}

bool Decoder::GetFixed64BE(uint64_t* v) {
  if (in_.size() < 8) return false;
  uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r = r << 8 | static_cast<uint8_t>(in_[i]);
  in_.remove_prefix(8);
  *v = r;
  return true;
}

bool Decoder::GetFixed64LE(uint64_t* v) {
  if (in_.size() < 8) return false;
  uint64_t r = 0;
  for (int i = 7; i >= 0; --i) r = r << 8 | static_cast<uint8_t>(in_[i]);
  in_.remove_prefix(8);
  *v = r;
  return true;
}

bool Decoder::GetVarint(uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63; shift += 7) {
    uint8_t byte;
    if (!GetU8(&byte)) return false;
    if (shift == 63 && byte > 1) return false;  // would overflow 64 bits
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

bool Decoder::GetVarint32(uint32_t* v) {
  uint64_t wide;
  if (!GetVarint(&wide) || wide > UINT32_MAX) return false;
  *v = static_cast<uint32_t>(wide);
  return true;
}

bool Decoder::GetSignedVarint(int64_t* v) {
  uint64_t u;
  if (!GetVarint(&u)) return false;
  *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

bool Decoder::GetBytes(std::string_view* b) {
  uint64_t len;
  if (!GetVarint(&len) || len > in_.size()) return false;
  return GetRaw(static_cast<size_t>(len), b);
}

bool Decoder::GetRaw(size_t n, std::string_view* b) {
  if (n > in_.size()) return false;
  *b = in_.substr(0, n);
  in_.remove_prefix(n);
  return true;
}

bool Decoder::GetId(ObjectId* id) {
  std::string_view raw;
  if (!GetRaw(32, &raw)) return false;
  *id = ObjectId::FromBytes(raw);
  return true;
}

uint64_t DecodeBE64(std::string_view bytes) {
  uint64_t v = 0;
  Decoder d(bytes);
  return d.GetFixed64BE(&v) ? v : 0;
}

}  // namespace vexfs
