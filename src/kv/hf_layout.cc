// The canonical cache of a state in Hugging Face's layout (see hf_layout.h).
#include "vexfs/kv/hf_layout.h"

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "common/file_util.h"
#include "vexfs/types.h"

namespace vexfs::kv {
namespace {

Status CheckUniform(const usxf::KvCacheInfo& info) {
  if (info.n_layers == 0 || info.n_kv_heads.size() != info.n_layers ||
      info.k_head_dim.size() != info.n_layers || info.v_head_dim.size() != info.n_layers) {
    return Status::Corruption("the KV metadata lists heads for " + std::to_string(info.n_kv_heads.size()) +
                              " of " + std::to_string(info.n_layers) + " layers");
  }
  for (uint32_t l = 0; l < info.n_layers; ++l) {
    if (info.n_kv_heads[l] != info.n_kv_heads[0] || info.k_head_dim[l] != info.k_head_dim[0] ||
        info.v_head_dim[l] != info.v_head_dim[0]) {
      return Status::NotSupported("layer " + std::to_string(l) +
                                  " has other heads than layer 0; the Hugging Face layout needs one shape");
    }
  }
  if (info.k_head_dim[0] != info.v_head_dim[0]) {
    return Status::NotSupported("K heads of " + std::to_string(info.k_head_dim[0]) + " and V heads of " +
                                std::to_string(info.v_head_dim[0]) + " do not fit one head size");
  }
  if (!info.k_after_rope) return Status::NotSupported("K is kept before RoPE; Hugging Face runtimes keep it after");
  if (!info.positions_contiguous || info.position_start != 0) {
    return Status::NotSupported("the tokens are not at positions 0..n-1, which the layout implies");
  }
  return Status::Ok();
}

// One layer's K or V as float32 values in canonical order, un-rotated.
Result<std::vector<float>> Widen(const CanonicalKv& kv, uint64_t offset, uint64_t bytes, uint32_t rotation) {
  if (offset + bytes > kv.data.size()) {
    return Status::Corruption("the KV cache holds " + std::to_string(kv.data.size()) +
                              " bytes, less than its metadata describes");
  }
  std::vector<float> values = DecodeToF32(kv.type, std::string_view(kv.data).substr(offset, bytes));
  if (rotation != 0) ApplyHadamard(values, rotation);  // H·H = I
  return values;
}

}  // namespace

Result<HfCache> ToHfLayout(const usxf::KvCacheInfo& info, const CanonicalKv& kv) {
  VEXFS_RETURN_IF_ERROR(CheckUniform(info));
  if (kv.n_tokens != info.n_tokens()) {
    return Status::Corruption("the KV cache holds " + std::to_string(kv.n_tokens) + " tokens, its metadata " +
                              std::to_string(info.n_tokens()));
  }
  HfCache hf;
  hf.n_layers = info.n_layers;
  hf.n_kv_heads = info.n_kv_heads[0];
  hf.head_dim = info.k_head_dim[0];
  hf.n_tokens = static_cast<uint32_t>(info.n_tokens());
  const BlobShape shape{hf.n_layers, hf.n_kv_heads * hf.head_dim, hf.n_kv_heads * hf.head_dim};
  hf.data.resize(2 * uint64_t{hf.n_layers} * hf.TensorElements());
  for (uint32_t l = 0; l < hf.n_layers; ++l) {
    for (bool v : {false, true}) {
      VEXFS_ASSIGN_OR_RETURN(std::vector<float> rows,
                             Widen(kv, v ? kv.VOffset(shape, l) : kv.KOffset(shape, l),
                                   v ? kv.VBytes(shape) : kv.KBytes(shape), v ? kv.v_rotation : kv.k_rotation));
      if (rows.size() != hf.TensorElements()) {
        return Status::Corruption("layer " + std::to_string(l) + " decodes to " + std::to_string(rows.size()) +
                                  " values, not " + std::to_string(hf.TensorElements()));
      }
      float* out = hf.data.data() + hf.Offset(l, v);
      // [token][head][dim] -> [head][token][dim]
      for (uint32_t t = 0; t < hf.n_tokens; ++t) {
        for (uint32_t h = 0; h < hf.n_kv_heads; ++h) {
          const float* from = rows.data() + (uint64_t{t} * hf.n_kv_heads + h) * hf.head_dim;
          std::memcpy(out + (uint64_t{h} * hf.n_tokens + t) * hf.head_dim, from, hf.head_dim * sizeof(float));
        }
      }
    }
  }
  return hf;
}

namespace {

using Json = nlohmann::json;

constexpr const char* kHfFormat = "vexfs-kv-hf-v1";
// Bounds on the outside numbers, far above any real model, so that sizes
// computed from them cannot overflow.
constexpr uint64_t kMaxLayers = 4096, kMaxHeads = 4096, kMaxHeadDim = 65536;
constexpr uint64_t kMaxTokens = uint64_t{1} << 24, kMaxVocab = uint64_t{1} << 24;

Status Bad(const std::string& what) { return Status::Corruption("HF cache manifest: " + what); }

Result<uint64_t> Count(const Json& m, const char* key, uint64_t max) {
  auto it = m.find(key);
  if (it == m.end() || !it->is_number_unsigned()) return Bad(std::string("field '") + key + "' is not a count");
  const uint64_t v = it->get<uint64_t>();
  if (v == 0 || v > max) return Bad(std::string("field '") + key + "' is " + std::to_string(v) + ", not 1.." + std::to_string(max));
  return v;
}

Result<std::string> Text(const Json& m, const char* key) {
  auto it = m.find(key);
  if (it == m.end() || !it->is_string()) return Bad(std::string("field '") + key + "' is not a string");
  return it->get<std::string>();
}

Result<usxf::Digest> Fingerprint(const Json& m, const char* key) {
  VEXFS_ASSIGN_OR_RETURN(std::string hex, Text(m, key));
  auto id = ObjectId::FromHex(hex);
  if (!id.ok()) return Bad(std::string("field '") + key + "' is not 64 hex digits");
  return id->bytes;
}

Result<std::vector<float>> Floats(std::string_view bytes, uint64_t count, const char* what) {
  if (bytes.size() != count * sizeof(float)) {
    return Bad(std::string(what) + " has " + std::to_string(bytes.size()) + " bytes, expected " +
               std::to_string(count * sizeof(float)));
  }
  std::vector<float> v(count);
  std::memcpy(v.data(), bytes.data(), bytes.size());  // little-endian hosts
  for (uint64_t i = 0; i < count; ++i) {
    if (!std::isfinite(v[i])) return Bad(std::string(what) + " holds a value that is not finite at " + std::to_string(i));
  }
  return v;
}

Status ReadShape(const Json& m, usxf::KvCacheInfo& info, HfCache& hf) {
  VEXFS_ASSIGN_OR_RETURN(uint64_t layers, Count(m, "n_layers", kMaxLayers));
  VEXFS_ASSIGN_OR_RETURN(uint64_t heads, Count(m, "n_heads", kMaxHeads));
  VEXFS_ASSIGN_OR_RETURN(uint64_t kv_heads, Count(m, "n_kv_heads", kMaxHeads));
  VEXFS_ASSIGN_OR_RETURN(uint64_t dim, Count(m, "head_dim", kMaxHeadDim));
  VEXFS_ASSIGN_OR_RETURN(uint64_t tokens, Count(m, "n_tokens", kMaxTokens));
  if (heads % kv_heads != 0) return Bad(std::to_string(heads) + " heads do not split into " + std::to_string(kv_heads) + " KV heads");
  hf.n_layers = static_cast<uint32_t>(layers);
  hf.n_kv_heads = static_cast<uint32_t>(kv_heads);
  hf.head_dim = static_cast<uint32_t>(dim);
  hf.n_tokens = static_cast<uint32_t>(tokens);
  info.n_layers = hf.n_layers;
  info.n_heads.assign(layers, static_cast<uint32_t>(heads));
  info.n_kv_heads.assign(layers, hf.n_kv_heads);
  info.k_head_dim.assign(layers, hf.head_dim);
  info.v_head_dim.assign(layers, hf.head_dim);
  info.attention = kv_heads == heads ? usxf::AttentionKind::kMHA
                   : kv_heads == 1   ? usxf::AttentionKind::kMQA
                                     : usxf::AttentionKind::kGQA;
  return Status::Ok();
}

Status ReadRope(const Json& m, usxf::KvCacheInfo& info) {
  VEXFS_ASSIGN_OR_RETURN(std::string rope, Text(m, "rope"));
  auto after = m.find("k_after_rope");
  if (rope != "neox" || after == m.end() || !after->is_boolean() || !after->get<bool>()) {
    return Status::NotSupported("HF cache manifest: K must be kept after neox RoPE, as Qwen2 keeps it (rope '" + rope + "')");
  }
  auto base = m.find("rope_freq_base");
  if (base == m.end() || !base->is_number() || !(base->get<double>() > 0) || !std::isfinite(base->get<double>())) {
    return Bad("field 'rope_freq_base' is not a positive number");
  }
  info.rope = usxf::RopeType::kNeox;
  info.k_after_rope = true;
  info.rope_freq_base = base->get<double>();
  return Status::Ok();
}

Status ReadTokens(const Json& m, const HfCache& hf, usxf::KvCacheInfo& info, uint64_t n_vocab) {
  auto it = m.find("tokens");
  if (it == m.end() || !it->is_array() || it->size() != hf.n_tokens) {
    return Bad("field 'tokens' is not an array of " + std::to_string(hf.n_tokens) + " token ids");
  }
  for (const Json& t : *it) {
    if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<uint64_t>() >= n_vocab) {
      return Bad("field 'tokens' holds " + t.dump() + ", not a token id below " + std::to_string(n_vocab));
    }
    info.token_ids.push_back(t.get<int32_t>());
  }
  info.positions_contiguous = true;
  info.position_start = 0;
  return Status::Ok();
}

// float32 [kv_heads][tokens][dim] per layer -> the canonical token-major cache.
CanonicalKv ToCanonicalF32(const HfCache& hf) {
  CanonicalKv kv;
  kv.type = CacheType::kF32;
  kv.n_tokens = hf.n_tokens;
  kv.data.resize(hf.data.size() * sizeof(float));
  auto* out = reinterpret_cast<float*>(kv.data.data());
  const uint64_t row = uint64_t{hf.n_kv_heads} * hf.head_dim;
  for (uint32_t l = 0; l < hf.n_layers; ++l) {
    for (bool v : {false, true}) {
      const float* in = hf.data.data() + hf.Offset(l, v);
      float* dst = out + hf.Offset(l, v);  // per layer K then V, same sizes in both layouts
      for (uint32_t h = 0; h < hf.n_kv_heads; ++h) {
        for (uint32_t t = 0; t < hf.n_tokens; ++t) {
          std::memcpy(dst + t * row + uint64_t{h} * hf.head_dim, in + (uint64_t{h} * hf.n_tokens + t) * hf.head_dim,
                      hf.head_dim * sizeof(float));
        }
      }
    }
  }
  return kv;
}

Result<Json> ParseManifest(std::string_view manifest_json) {
  Json m = Json::parse(manifest_json, nullptr, /*allow_exceptions=*/false);
  if (m.is_discarded() || !m.is_object()) return Bad("not a JSON object");
  return m;
}

// The file `key` names, which must be a plain name inside the export's folder.
Result<std::string> FileName(const Json& m, const char* key) {
  VEXFS_ASSIGN_OR_RETURN(std::string name, Text(m, key));
  if (name.empty() || name.find('/') != std::string::npos || name[0] == '.') {
    return Bad(std::string("field '") + key + "' ('" + name + "') is not a file name in the folder");
  }
  return name;
}

// The state a parsed manifest and the bytes of its two files describe.
Result<StateBundle> BundleFromParts(const Json& m, std::string_view cache, std::string_view next_logits) {
  VEXFS_ASSIGN_OR_RETURN(std::string format, Text(m, "format"));
  if (format != kHfFormat) return Bad("format '" + format + "' is not " + kHfFormat);
  VEXFS_ASSIGN_OR_RETURN(std::string dtype, Text(m, "dtype"));
  if (dtype != "float32") return Status::NotSupported("HF cache manifest: dtype '" + dtype + "'; only float32 is read");
  StateBundle b;
  HfCache hf;
  VEXFS_ASSIGN_OR_RETURN(b.info.arch, Text(m, "arch"));
  VEXFS_ASSIGN_OR_RETURN(b.info.weights_fingerprint, Fingerprint(m, "weights_fingerprint"));
  VEXFS_ASSIGN_OR_RETURN(b.info.hparams_fingerprint, Fingerprint(m, "hparams_fingerprint"));
  VEXFS_ASSIGN_OR_RETURN(b.info.tokenizer_fingerprint, Fingerprint(m, "tokenizer_fingerprint"));
  VEXFS_RETURN_IF_ERROR(ReadShape(m, b.info, hf));
  VEXFS_RETURN_IF_ERROR(ReadRope(m, b.info));
  VEXFS_ASSIGN_OR_RETURN(uint64_t n_vocab, Count(m, "n_vocab", kMaxVocab));
  VEXFS_RETURN_IF_ERROR(ReadTokens(m, hf, b.info, n_vocab));
  if (auto rt = m.find("runtime"); rt != m.end() && rt->is_string()) b.info.runtime = rt->get<std::string>();
  VEXFS_ASSIGN_OR_RETURN(hf.data, Floats(cache, 2 * uint64_t{hf.n_layers} * hf.TensorElements(), "the cache"));
  VEXFS_ASSIGN_OR_RETURN(b.next_logits, Floats(next_logits, n_vocab, "the next-token logits"));
  if (auto ref = m.find("reference"); ref != m.end() && !ref->is_null()) {
    auto decoded = DecodeReference(ref->dump());
    if (!decoded.ok()) return Bad("field 'reference': " + decoded.status().message());
    b.reference = std::move(decoded).value();
  }
  b.kv = ToCanonicalF32(hf);
  b.info.ComputeBlockHashes();
  return b;
}

}  // namespace

Result<StateBundle> BundleFromHf(const HfExport& in) {
  VEXFS_ASSIGN_OR_RETURN(Json m, ParseManifest(in.manifest_json));
  return BundleFromParts(m, in.cache, in.next_logits);
}

Result<StateBundle> ReadHfExport(const std::string& folder) {
  VEXFS_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(folder + "/manifest.json"));
  auto m = ParseManifest(text);
  if (!m.ok()) return m.status().WithContext(folder + "/manifest.json");
  VEXFS_ASSIGN_OR_RETURN(std::string cache_name, FileName(*m, "cache"));
  VEXFS_ASSIGN_OR_RETURN(std::string logits_name, FileName(*m, "next_logits"));
  VEXFS_ASSIGN_OR_RETURN(std::string cache, ReadWholeFile(folder + "/" + cache_name));
  VEXFS_ASSIGN_OR_RETURN(std::string next_logits, ReadWholeFile(folder + "/" + logits_name));
  auto bundle = BundleFromParts(*m, cache, next_logits);
  if (!bundle.ok()) return bundle.status().WithContext(folder);
  return bundle;
}

}  // namespace vexfs::kv
