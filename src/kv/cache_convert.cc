// Conversions between the canonical KV cache and llama.cpp's cache rows (see
// cache_convert.h): element types and q8_0 blocks, V transposition, rotation.
#include "vexfs/kv/cache_convert.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "vexfs/usxf_quant.h"

namespace vexfs::kv {
namespace {

uint16_t Load16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

void DecodeQ8_0(std::string_view bytes, std::vector<float>& out) {
  for (size_t b = 0; b < bytes.size() / 34; ++b) {
    const char* block = bytes.data() + b * 34;
    const float d = usxf::F16ToF32(Load16(block));
    for (int j = 0; j < 32; ++j) out.push_back(d * static_cast<float>(static_cast<int8_t>(block[2 + j])));
  }
}

// ggml's reference q8_0 rounding: d = max|x| / 127, q = round(x / d) (ties away).
void EncodeQ8_0(const std::vector<float>& values, std::string& out) {
  for (size_t b = 0; b < values.size() / 32; ++b) {
    const float* x = values.data() + b * 32;
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t dh = usxf::F32ToF16(d);
    out.append(reinterpret_cast<const char*>(&dh), 2);
    for (int j = 0; j < 32; ++j) out.push_back(static_cast<char>(static_cast<int8_t>(std::roundf(x[j] * id))));
  }
}

// V of one layer from [element][cell] (transposed) to [cell][element], or back.
std::string Transpose(std::string_view in, uint64_t rows, uint64_t cols, size_t el) {
  std::string out(in.size(), '\0');
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t c = 0; c < cols; ++c) {
      std::memcpy(&out[(c * rows + r) * el], in.data() + (r * cols + c) * el, el);
    }
  }
  return out;
}

bool UniformType(const SeqState& s) {
  for (const BlobLayer& l : s.layers) {
    if (l.k_type != s.layers[0].k_type || l.v_type != s.layers[0].k_type) return false;
  }
  return true;
}

bool SameEncoding(CacheType from, uint32_t from_rot, CacheType to, uint32_t to_rot) {
  return from == to && from_rot == to_rot;
}

// One layer's K or V converted from (type, rotation) to (type, rotation).
std::string Convert(std::string_view bytes, CacheType from, uint32_t from_rot, CacheType to,
                    uint32_t to_rot) {
  if (SameEncoding(from, from_rot, to, to_rot)) return std::string(bytes);
  std::vector<float> values = DecodeToF32(from, bytes);
  if (from_rot != 0) ApplyHadamard(values, from_rot);
  if (to_rot != 0) ApplyHadamard(values, to_rot);
  return EncodeFromF32(to, values);
}

// Appends without a temporary when nothing changes: these are the bulk copies
// of a capture, and every temporary of this size costs fresh pages.
void AppendConverted(std::string& out, std::string_view bytes, CacheType from, uint32_t from_rot,
                     CacheType to, uint32_t to_rot) {
  if (SameEncoding(from, from_rot, to, to_rot)) {
    out.append(bytes);
  } else {
    out += Convert(bytes, from, from_rot, to, to_rot);
  }
}

}  // namespace

uint64_t CanonicalKv::KBytes(const BlobShape& s) const {
  return CacheBytes(type, uint64_t{n_tokens} * s.k_row);
}
uint64_t CanonicalKv::VBytes(const BlobShape& s) const {
  return CacheBytes(type, uint64_t{n_tokens} * s.v_row);
}
uint64_t CanonicalKv::KOffset(const BlobShape& s, uint32_t l) const {
  return l * (KBytes(s) + VBytes(s));
}
uint64_t CanonicalKv::VOffset(const BlobShape& s, uint32_t l) const {
  return KOffset(s, l) + KBytes(s);
}

std::vector<float> DecodeToF32(CacheType type, std::string_view bytes) {
  std::vector<float> out;
  out.reserve(type == CacheType::kQ8_0 ? bytes.size() / 34 * 32 : bytes.size() / 2);
  switch (type) {
    case CacheType::kF32:
      out.resize(bytes.size() / 4);
      std::memcpy(out.data(), bytes.data(), out.size() * 4);
      break;
    case CacheType::kF16:
      for (size_t i = 0; i < bytes.size() / 2; ++i) out.push_back(usxf::F16ToF32(Load16(&bytes[2 * i])));
      break;
    case CacheType::kBF16:
      for (size_t i = 0; i < bytes.size() / 2; ++i) out.push_back(usxf::BF16ToF32(Load16(&bytes[2 * i])));
      break;
    case CacheType::kQ8_0:
      DecodeQ8_0(bytes, out);
      break;
  }
  return out;
}

std::string EncodeFromF32(CacheType type, const std::vector<float>& values) {
  std::string out;
  out.reserve(CacheBytes(type, values.size()));
  for (float x : values) {
    if (type == CacheType::kF32) {
      out.append(reinterpret_cast<const char*>(&x), 4);
    } else if (type != CacheType::kQ8_0) {
      const uint16_t h = type == CacheType::kF16 ? usxf::F32ToF16(x) : usxf::F32ToBF16(x);
      out.append(reinterpret_cast<const char*>(&h), 2);
    }
  }
  if (type == CacheType::kQ8_0) EncodeQ8_0(values, out);
  return out;
}

void ApplyHadamard(std::vector<float>& values, uint32_t block) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(block));
  for (size_t base = 0; base + block <= values.size(); base += block) {
    float* x = values.data() + base;
    // Fast Walsh-Hadamard transform in Sylvester order: H[i][j] = (-1)^popcount(i&j).
    for (uint32_t h = 1; h < block; h *= 2) {
      for (uint32_t i = 0; i < block; i += 2 * h) {
        for (uint32_t j = i; j < i + h; ++j) {
          const float a = x[j], b = x[j + h];
          x[j] = a + b;
          x[j + h] = a - b;
        }
      }
    }
    for (uint32_t i = 0; i < block; ++i) x[i] *= scale;
  }
}

uint32_t RuntimeRotation(CacheType type, uint32_t head_dim, bool for_k) {
  const char* disable = std::getenv("LLAMA_ATTN_ROT_DISABLE");
  if (disable != nullptr && std::atoi(disable) != 0) return 0;
  if (type != CacheType::kQ8_0 || head_dim % 64 != 0) return 0;
  if (!for_k) return 64;
  uint32_t n = 64;
  while (head_dim % (n * 2) == 0) n *= 2;
  return n;
}

Result<CanonicalKv> ToCanonical(const SeqState& s, const BlobShape& shape, uint32_t k_rotation,
                                uint32_t v_rotation) {
  CanonicalKv kv;
  kv.n_tokens = static_cast<uint32_t>(s.positions.size());
  const bool uniform = UniformType(s);
  kv.type = uniform ? s.layers[0].k_type : CacheType::kF32;
  kv.k_rotation = uniform ? k_rotation : 0;
  kv.v_rotation = uniform ? v_rotation : 0;
  kv.data.reserve(shape.n_layers * (kv.KBytes(shape) + kv.VBytes(shape)));
  for (const BlobLayer& l : s.layers) {
    AppendConverted(kv.data, l.k, l.k_type, k_rotation, kv.type, kv.k_rotation);
    if (s.v_trans) {
      const std::string v = Transpose(l.v, shape.v_row, kv.n_tokens, CacheBytes(l.v_type, 1));
      AppendConverted(kv.data, v, l.v_type, v_rotation, kv.type, kv.v_rotation);
    } else {
      AppendConverted(kv.data, l.v, l.v_type, v_rotation, kv.type, kv.v_rotation);
    }
  }
  return kv;
}

Result<LayerBuffers> FromCanonical(const CanonicalKv& kv, const BlobShape& shape,
                                   const CacheLayout& t) {
  if (kv.data.size() != shape.n_layers * (kv.KBytes(shape) + kv.VBytes(shape))) {
    return Status::InvalidArgument("canonical KV size does not match its shape");
  }
  if (t.v_trans && t.v_type == CacheType::kQ8_0) {
    return Status::InvalidArgument("a transposed V cache cannot be q8_0");
  }
  LayerBuffers out;
  const std::string_view data = kv.data;
  // A view of the canonical bytes when they need no change, else a converted copy.
  auto place = [&](std::string_view bytes, uint32_t from_rot, CacheType to, uint32_t to_rot,
                   bool transpose, uint32_t row) -> std::string_view {
    if (SameEncoding(kv.type, from_rot, to, to_rot) && !transpose) return bytes;
    std::string converted = Convert(bytes, kv.type, from_rot, to, to_rot);
    if (transpose) converted = Transpose(converted, kv.n_tokens, row, CacheBytes(to, 1));
    return out.storage.emplace_back(std::move(converted));
  };
  for (uint32_t l = 0; l < shape.n_layers; ++l) {
    out.k.push_back(place(data.substr(kv.KOffset(shape, l), kv.KBytes(shape)), kv.k_rotation, t.k_type,
                          t.k_rotation, false, shape.k_row));
    out.v.push_back(place(data.substr(kv.VOffset(shape, l), kv.VBytes(shape)), kv.v_rotation, t.v_type,
                          t.v_rotation, t.v_trans, shape.v_row));
  }
  return out;
}

}  // namespace vexfs::kv
