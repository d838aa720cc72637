// Transfer quantisation: f16 / bf16 conversion (round to nearest even) and int8
// with per-group f32 scales (docs/usxf.md, "Quantisation").
#include <bit>
#include <cmath>
#include <cstring>

#include "usxf/format.h"
#include "usxf/le.h"
#include "vexfs/usxf_quant.h"

namespace vexfs::usxf {
namespace {

bool IsFloat(DType d) { return d == DType::kF32 || d == DType::kF16 || d == DType::kBF16; }

float LoadFloat(DType d, const char* p) {
  switch (d) {
    case DType::kF16:
      return F16ToF32(LoadLE<uint16_t>(p));
    case DType::kBF16:
      return BF16ToF32(LoadLE<uint16_t>(p));
    default:
      return LoadLE<float>(p);
  }
}

void StoreFloat(DType d, float x, char* p) {
  switch (d) {
    case DType::kF16:
      StoreLE<uint16_t>(p, F32ToF16(x));
      break;
    case DType::kBF16:
      StoreLE<uint16_t>(p, F32ToBF16(x));
      break;
    default:
      StoreLE<float>(p, x);
  }
}

Status NotCarried(uint64_t i, float x, const char* why) {
  return Status::InvalidArgument("element " + std::to_string(i) + " (" + std::to_string(x) +
                                 ") " + why);
}

Status EncodeHalf(DType dtype, Encoding enc, std::string_view values, uint64_t n, std::string* out) {
  out->resize(2 * n);
  const size_t w = DTypeSize(dtype);
  for (uint64_t i = 0; i < n; ++i) {
    float x = LoadFloat(dtype, values.data() + i * w);
    if (!std::isfinite(x)) return NotCarried(i, x, "is not finite");
    uint16_t h = enc == Encoding::kF16 ? F32ToF16(x) : F32ToBF16(x);
    if (enc == Encoding::kF16 && (h & 0x7fff) == 0x7c00) return NotCarried(i, x, "is beyond f16's range");
    if (enc == Encoding::kBF16 && std::isinf(BF16ToF32(h))) return NotCarried(i, x, "rounds past bf16's range");
    if (enc == Encoding::kBF16 && dtype == DType::kF16 && std::fabs(BF16ToF32(h)) > 65504.0f) {
      return NotCarried(i, x, "rounds past f16's range as bf16");
    }
    StoreLE<uint16_t>(out->data() + 2 * i, h);
  }
  return Status::Ok();
}

Status EncodeInt8(DType dtype, uint32_t group, std::string_view values, uint64_t n, std::string* out) {
  const uint64_t groups = (n + group - 1) / group;
  const uint64_t scales_at = AlignUp(n, 64);
  out->assign(scales_at + 4 * groups, '\0');
  const size_t w = DTypeSize(dtype);
  for (uint64_t g = 0; g < groups; ++g) {
    const uint64_t begin = g * group, end = std::min<uint64_t>(n, begin + group);
    float max_abs = 0;
    for (uint64_t i = begin; i < end; ++i) {
      float x = LoadFloat(dtype, values.data() + i * w);
      if (!std::isfinite(x)) return NotCarried(i, x, "is not finite");
      max_abs = std::max(max_abs, std::fabs(x));
    }
    const float scale = max_abs / 127.0f;
    StoreLE<float>(out->data() + scales_at + 4 * g, scale);
    for (uint64_t i = begin; i < end && scale > 0; ++i) {
      float q = std::nearbyint(LoadFloat(dtype, values.data() + i * w) / scale);
      (*out)[i] = static_cast<char>(static_cast<int8_t>(std::clamp(q, -127.0f, 127.0f)));
    }
  }
  return Status::Ok();
}

}  // namespace

size_t DTypeSize(DType d) {
  switch (d) {
    case DType::kF32: case DType::kI32: case DType::kU32: return 4;
    case DType::kF16: case DType::kBF16: return 2;
    case DType::kI8: case DType::kU8: return 1;
    case DType::kI64: case DType::kU64: case DType::kF64: return 8;
    default: return 0;
  }
}

uint16_t F32ToF16(float x) {
  const uint32_t f = std::bit_cast<uint32_t>(x);
  const uint16_t sign = static_cast<uint16_t>((f >> 16) & 0x8000);
  const uint32_t abs = f & 0x7fffffff;
  if (abs > 0x7f800000) return sign | 0x7e00;  // NaN stays NaN
  if (abs >= 0x477ff000) return sign | 0x7c00; // rounds past 65504: infinity
  if (abs < 0x38800000) {                      // below 2^-14: subnormal or zero
    // Scale into the subnormal grid (units of 2^-24), letting the FPU round to even.
    float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // * 2^24
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to even.
  uint32_t m = abs - 0x38000000;  // exponent bias 127 -> 15
  m += 0x0fff + ((m >> 13) & 1);
  return sign | static_cast<uint16_t>(m >> 13);
}

float F16ToF32(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) {
    float v = static_cast<float>(mant) / 16777216.0f;  // mant * 2^-24
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000 | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t F32ToBF16(float x) {
  uint32_t f = std::bit_cast<uint32_t>(x);
  if ((f & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((f >> 16) | 0x40);  // quiet NaN
  f += 0x7fff + ((f >> 16) & 1);
  return static_cast<uint16_t>(f >> 16);
}

float BF16ToF32(uint16_t b) { return std::bit_cast<float>(uint32_t{b} << 16); }

Result<uint64_t> EncodedLength(uint32_t dtype_raw, uint32_t encoding_raw, uint32_t group,
                               uint64_t n) {
  const DType dtype = static_cast<DType>(dtype_raw);
  const Encoding enc = static_cast<Encoding>(encoding_raw);
  if (dtype == DType::kNone) return Status::InvalidArgument("a tensor needs a dtype");
  if (enc == Encoding::kNone) {
    if (dtype == DType::kQ8_0) {
      if (n % 32 != 0) return Status::InvalidArgument("q8_0 needs a multiple of 32 elements");
      return n / 32 * 34;
    }
    return n * DTypeSize(dtype);
  }
  if (!IsFloat(dtype)) {
    return Status::InvalidArgument(std::string("encoding ") + EncodingName(encoding_raw) +
                                   " applies to f32, f16 and bf16 values, not " + DTypeName(dtype_raw));
  }
  if ((enc == Encoding::kF16 && dtype == DType::kF16) || (enc == Encoding::kBF16 && dtype == DType::kBF16)) {
    return Status::InvalidArgument("encoding equals the dtype; use encoding none");
  }
  if (enc == Encoding::kInt8Group) {
    if (group == 0) return Status::InvalidArgument("int8_group needs a group size");
    return AlignUp(n, 64) + 4 * ((n + group - 1) / group);
  }
  return 2 * n;
}

Status EncodeValues(DType dtype, Encoding enc, uint32_t group, std::string_view values,
                    std::string* out) {
  const size_t w = DTypeSize(dtype);
  if (enc == Encoding::kNone) {
    out->assign(values);
    return Status::Ok();
  }
  if (w == 0 || values.size() % w != 0) {
    return Status::InvalidArgument("values are not a whole number of elements of their dtype");
  }
  const uint64_t n = values.size() / w;
  VEXFS_RETURN_IF_ERROR(EncodedLength(static_cast<uint32_t>(dtype), static_cast<uint32_t>(enc), group, n).status());
  if (enc == Encoding::kInt8Group) return EncodeInt8(dtype, group, values, n, out);
  return EncodeHalf(dtype, enc, values, n, out);
}

Status DecodeValues(DType dtype, Encoding enc, uint32_t group, std::string_view payload,
                    uint64_t n, std::string* out) {
  VEXFS_ASSIGN_OR_RETURN(uint64_t expected, EncodedLength(static_cast<uint32_t>(dtype), static_cast<uint32_t>(enc), group, n));
  if (payload.size() != expected) {
    return Status::Corruption("payload is " + std::to_string(payload.size()) + " bytes, expected " +
                              std::to_string(expected));
  }
  if (enc == Encoding::kNone) {
    out->assign(payload);
    return Status::Ok();
  }
  const size_t w = DTypeSize(dtype);
  out->resize(n * w);
  if (enc != Encoding::kInt8Group) {
    for (uint64_t i = 0; i < n; ++i) {
      uint16_t h = LoadLE<uint16_t>(payload.data() + 2 * i);
      StoreFloat(dtype, enc == Encoding::kF16 ? F16ToF32(h) : BF16ToF32(h), out->data() + i * w);
    }
    return Status::Ok();
  }
  const uint64_t scales_at = AlignUp(n, 64);
  for (uint64_t i = n; i < scales_at; ++i) {
    if (payload[i] != 0) return Status::Corruption("int8 padding is not zero");
  }
  for (uint64_t i = 0; i < n; ++i) {
    if (static_cast<int8_t>(payload[i]) == -128) {
      return Status::Corruption("int8 value -128 at element " + std::to_string(i) + " (values are -127..127)");
    }
  }
  for (uint64_t g = 0; g * group < n; ++g) {
    float scale = LoadLE<float>(payload.data() + scales_at + 4 * g);
    if (!std::isfinite(scale) || scale < 0) {
      return Status::Corruption("int8 group " + std::to_string(g) + " has an invalid scale");
    }
    for (uint64_t i = g * group; i < std::min<uint64_t>(n, (g + 1) * group); ++i) {
      StoreFloat(dtype, static_cast<int8_t>(payload[i]) * scale, out->data() + i * w);
    }
  }
  return Status::Ok();
}

}  // namespace vexfs::usxf
