// Metadata records: the canonical typed key-value encoding used by the header for
// file and section metadata (docs/usxf.md, "Fields").
//   field := tag:u16 type:u8 flags:u8 length:u32 value[length]
// Fields appear in strictly ascending tag order; flags bit 0 marks a critical field.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "usxf/format.h"
#include "usxf/le.h"
#include "vexfs/usxf.h"

namespace vexfs::usxf {
namespace {

constexpr int kMaxDepth = 4;
constexpr uint8_t kCriticalFlag = 1;

size_t FixedSize(FieldType t) {
  switch (t) {
    case FieldType::kU64:
    case FieldType::kI64:
    case FieldType::kF64:
      return 8;
    default:
      return 0;
  }
}

size_t ElementSize(FieldType t) {
  switch (t) {
    case FieldType::kU32Array:
    case FieldType::kI32Array:
      return 4;
    case FieldType::kU64Array:
      return 8;
    default:
      return 1;
  }
}

std::string TagName(uint16_t tag, std::string_view what) {
  return std::string(what) + " (tag " + std::to_string(tag) + ")";
}

template <typename T>
std::string PackArray(const std::vector<T>& v) {
  std::string out;
  out.reserve(v.size() * sizeof(T));
  for (T x : v) AppendLE<T>(&out, x);
  return out;
}

template <typename T>
std::vector<T> UnpackArray(const std::string& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  for (size_t i = 0; i < out.size(); ++i) out[i] = LoadLE<T>(bytes.data() + i * sizeof(T));
  return out;
}

}  // namespace

Result<Metadata> DecodeMetadataAtDepth(std::string_view bytes, int depth) {
  Metadata m;
  size_t at = 0;
  int last_tag = -1;
  while (at < bytes.size()) {
    if (bytes.size() - at < 8) return Status::Corruption("field header truncated at byte " + std::to_string(at));
    const char* h = bytes.data() + at;
    uint16_t tag = LoadLE<uint16_t>(h);
    uint8_t type = static_cast<uint8_t>(h[2]);
    uint8_t flags = static_cast<uint8_t>(h[3]);
    uint32_t length = LoadLE<uint32_t>(h + 4);
    std::string where = "field tag " + std::to_string(tag);
    if (static_cast<int>(tag) <= last_tag) return Status::Corruption(where + ": tags out of order or repeated");
    if ((flags & ~kCriticalFlag) != 0) return Status::Corruption(where + ": unknown flag bits");
    if (length > bytes.size() - at - 8) return Status::Corruption(where + ": length runs past the record");
    std::string_view value = bytes.substr(at + 8, length);
    FieldType t = static_cast<FieldType>(type);
    if (type >= 1 && type <= 9) {
      if (FixedSize(t) != 0 && length != FixedSize(t)) return Status::Corruption(where + ": wrong length for its type");
      if (length % ElementSize(t) != 0) return Status::Corruption(where + ": array length not a multiple of its element");
      if (t == FieldType::kF64 && std::isnan(LoadLE<double>(value.data()))) {
        return Status::Corruption(where + ": NaN is not allowed");
      }
      if (t == FieldType::kString && !IsValidUtf8(value)) {
        return Status::Corruption(where + ": string is not UTF-8");
      }
      if (t == FieldType::kRecord) {
        if (depth >= kMaxDepth) return Status::Corruption(where + ": records nested deeper than 4");
        auto inner = DecodeMetadataAtDepth(value, depth + 1);
        if (!inner.ok()) return Status::Corruption(where + ": " + inner.status().message());
      }
    }
    // Unknown types are kept as bytes: a reader that does not know the tag skips it,
    // and one that needs it reports the type mismatch.
    m.fields_[tag] = Metadata::Field{t, (flags & kCriticalFlag) != 0, std::string(value)};
    last_tag = tag;
    at += 8 + length;
  }
  return m;
}

Result<Metadata> Metadata::Decode(std::string_view bytes) { return DecodeMetadataAtDepth(bytes, 0); }

std::string Metadata::Encode() const {
  std::string out;
  for (const auto& [tag, f] : fields_) {
    AppendLE<uint16_t>(&out, tag);
    out.push_back(static_cast<char>(f.type));
    out.push_back(static_cast<char>(f.critical ? kCriticalFlag : 0));
    AppendLE<uint32_t>(&out, static_cast<uint32_t>(f.value.size()));
    out += f.value;
  }
  return out;
}

void Metadata::SetU64(uint16_t tag, uint64_t v, bool critical) {
  std::string b;
  AppendLE<uint64_t>(&b, v);
  fields_[tag] = {FieldType::kU64, critical, b};
}
void Metadata::SetI64(uint16_t tag, int64_t v, bool critical) {
  std::string b;
  AppendLE<int64_t>(&b, v);
  fields_[tag] = {FieldType::kI64, critical, b};
}
void Metadata::SetF64(uint16_t tag, double v, bool critical) {
  std::string b;
  AppendLE<double>(&b, v);
  fields_[tag] = {FieldType::kF64, critical, b};
}
void Metadata::SetString(uint16_t tag, std::string_view v, bool critical) {
  fields_[tag] = {FieldType::kString, critical, std::string(v)};
}
void Metadata::SetBytes(uint16_t tag, std::string_view v, bool critical) {
  fields_[tag] = {FieldType::kBytes, critical, std::string(v)};
}
void Metadata::SetU32Array(uint16_t tag, const std::vector<uint32_t>& v, bool critical) {
  fields_[tag] = {FieldType::kU32Array, critical, PackArray(v)};
}
void Metadata::SetI32Array(uint16_t tag, const std::vector<int32_t>& v, bool critical) {
  fields_[tag] = {FieldType::kI32Array, critical, PackArray(v)};
}
void Metadata::SetRecord(uint16_t tag, const Metadata& v, bool critical) {
  fields_[tag] = {FieldType::kRecord, critical, v.Encode()};
}

namespace {
Result<const Metadata::Field*> Lookup(const std::map<uint16_t, Metadata::Field>& fields,
                                      uint16_t tag, FieldType type, std::string_view what) {
  auto it = fields.find(tag);
  if (it == fields.end()) return Status::NotFound("required field " + TagName(tag, what) + " is missing");
  if (it->second.type != type) {
    return Status::Corruption("field " + TagName(tag, what) + " has type " +
                              std::to_string(static_cast<int>(it->second.type)) + ", expected " +
                              std::to_string(static_cast<int>(type)));
  }
  return &it->second;
}
}  // namespace

Result<uint64_t> Metadata::GetU64(uint16_t tag, std::string_view what) const {
  VEXFS_ASSIGN_OR_RETURN(const Field* f, Lookup(fields_, tag, FieldType::kU64, what));
  return LoadLE<uint64_t>(f->value.data());
}
Result<int64_t> Metadata::GetI64(uint16_t tag, std::string_view what) const {
  VEXFS_ASSIGN_OR_RETURN(const Field* f, Lookup(fields_, tag, FieldType::kI64, what));
  return LoadLE<int64_t>(f->value.data());
}
Result<double> Metadata::GetF64(uint16_t tag, std::string_view what) const {
  VEXFS_ASSIGN_OR_RETURN(const Field* f, Lookup(fields_, tag, FieldType::kF64, what));
  return LoadLE<double>(f->value.data());
}
Result<std::string> Metadata::GetString(uint16_t tag, std::string_view what) const {
  VEXFS_ASSIGN_OR_RETURN(const Field* f, Lookup(fields_, tag, FieldType::kString, what));
  return f->value;
}
Result<std::string> Metadata::GetBytes(uint16_t tag, std::string_view what) const {
  VEXFS_ASSIGN_OR_RETURN(const Field* f, Lookup(fields_, tag, FieldType::kBytes, what));
  return f->value;
}
Result<std::vector<uint32_t>> Metadata::GetU32Array(uint16_t tag, std::string_view what) const {
  VEXFS_ASSIGN_OR_RETURN(const Field* f, Lookup(fields_, tag, FieldType::kU32Array, what));
  return UnpackArray<uint32_t>(f->value);
}
Result<std::vector<int32_t>> Metadata::GetI32Array(uint16_t tag, std::string_view what) const {
  VEXFS_ASSIGN_OR_RETURN(const Field* f, Lookup(fields_, tag, FieldType::kI32Array, what));
  return UnpackArray<int32_t>(f->value);
}
Result<Metadata> Metadata::GetRecord(uint16_t tag, std::string_view what) const {
  VEXFS_ASSIGN_OR_RETURN(const Field* f, Lookup(fields_, tag, FieldType::kRecord, what));
  return Decode(f->value);
}

std::vector<uint16_t> Metadata::UnknownCritical(const std::vector<uint16_t>& known) const {
  std::vector<uint16_t> out;
  for (const auto& [tag, f] : fields_) {
    if (f.critical && std::find(known.begin(), known.end(), tag) == known.end()) out.push_back(tag);
  }
  return out;
}

}  // namespace vexfs::usxf
