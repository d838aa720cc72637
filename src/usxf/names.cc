// Names of USXF codes as the CLI and messages print them, and small value helpers.
#include <array>

#include "vexfs/usxf.h"

namespace vexfs::usxf {
namespace {

constexpr std::array<const char*, 12> kDTypeNames = {
    "none", "f32", "f16", "bf16", "i8", "u8", "i32", "u32", "i64", "u64", "f64", "q8_0"};
constexpr std::array<const char*, 4> kEncodingNames = {"none", "f16", "bf16", "int8_group"};

template <size_t N>
const char* NameOr(const std::array<const char*, N>& names, uint32_t v) {
  return v < N ? names[v] : "unknown";
}

}  // namespace

const char* SectionKindName(uint32_t kind) {
  switch (kind) {
    case 1: return "blob";
    case 2: return "tensor";
    case 3: return "kv_cache";
    default: return "unknown";
  }
}
const char* DTypeName(uint32_t dtype) { return NameOr(kDTypeNames, dtype); }
const char* EncodingName(uint32_t encoding) { return NameOr(kEncodingNames, encoding); }
const char* CompressionName(uint32_t c) { return c == 0 ? "none" : c == 1 ? "zstd" : "unknown"; }

std::optional<DType> ParseDType(std::string_view name) {
  for (uint32_t i = 0; i < kDTypeNames.size(); ++i) {
    if (name == kDTypeNames[i]) return static_cast<DType>(i);
  }
  return std::nullopt;
}

std::optional<Encoding> ParseEncoding(std::string_view name) {
  for (uint32_t i = 0; i < kEncodingNames.size(); ++i) {
    if (name == kEncodingNames[i]) return static_cast<Encoding>(i);
  }
  if (name == "int8") return Encoding::kInt8Group;
  return std::nullopt;
}

std::string HexOf(const uint8_t* bytes, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return out;
}

uint64_t SectionInfo::ElementCount() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;  // bounded: readers check the product first
  return n;
}

}  // namespace vexfs::usxf
