// KV-cache section metadata: encoding, decoding and the consistency rules a
// target relies on before accepting state (docs/usxf.md, "KV-cache sections").
#include <climits>
#include <cmath>
#include <cstring>

#include "common/sha256.h"
#include "usxf/le.h"
#include "vexfs/usxf_kv.h"

namespace vexfs::usxf {
namespace {

enum Tag : uint16_t {
  kArch = 1, kWeightsFp = 2, kHparamsFp = 3, kTokenizerFp = 4, kLayers = 5, kHeads = 6,
  kKvHeads = 7, kKDim = 8, kVDim = 9, kAttention = 10, kRope = 11, kRopeBase = 12,
  kRopeScale = 13, kRopeScaling = 14, kKAfterRope = 15, kTokens = 16, kTokenIds = 17,
  kPosStart = 18, kPositions = 19, kLayout = 20, kBlockSize = 21, kBlockHashes = 22,
  kRuntime = 23, kKRotation = 24, kVRotation = 25,
};
const std::vector<uint16_t> kKnownTags = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
                                          14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25};
constexpr uint32_t kMaxLayers = 4096;
constexpr uint32_t kMaxHeadDim = 1u << 16;
constexpr uint32_t kMaxHeads = 1u << 16;

std::string_view AsBytes(const Digest& d) { return {reinterpret_cast<const char*>(d.data()), d.size()}; }

Status Bad(const std::string& field, const std::string& why) {
  return Status::InvalidArgument("kv field '" + field + "': " + why);
}

Result<Digest> GetDigest(const Metadata& m, uint16_t tag, const char* what) {
  VEXFS_ASSIGN_OR_RETURN(std::string b, m.GetBytes(tag, what));
  if (b.size() != 32) return Status::Corruption(std::string("kv field '") + what + "' is not 32 bytes");
  Digest d;
  std::memcpy(d.data(), b.data(), 32);
  return d;
}

AttentionKind KindFor(uint32_t heads, uint32_t kv_heads) {
  if (kv_heads == heads) return AttentionKind::kMHA;
  if (kv_heads == 1) return AttentionKind::kMQA;
  return AttentionKind::kGQA;
}

// A rotation block is 0 (none) or a power of two >= 2 that divides every head dim.
Status CheckRotation(uint32_t block, const std::vector<uint32_t>& dims, const char* what) {
  if (block == 0) return Status::Ok();
  if (block < 2 || (block & (block - 1)) != 0) return Bad(what, "must be 0 or a power of two >= 2");
  for (uint32_t d : dims) {
    if (d % block != 0) return Bad(what, "does not divide head dim " + std::to_string(d));
  }
  return Status::Ok();
}

Status CheckStructure(const KvCacheInfo& kv) {
  if (kv.arch.empty()) return Bad("arch", "empty");
  if (kv.n_layers == 0 || kv.n_layers > kMaxLayers) return Bad("n_layers", "must be 1..4096");
  const std::pair<const std::vector<uint32_t>*, const char*> arrays[] = {
      {&kv.n_heads, "n_heads"}, {&kv.n_kv_heads, "n_kv_heads"},
      {&kv.k_head_dim, "k_head_dim"}, {&kv.v_head_dim, "v_head_dim"}};
  for (const auto& [a, name] : arrays) {
    if (a->size() != kv.n_layers) return Bad(name, "needs one entry per layer");
    for (uint32_t v : *a) {
      if (v == 0 || v > std::max(kMaxHeadDim, kMaxHeads)) return Bad(name, "entries must be 1..65536");
    }
  }
  for (uint32_t l = 0; l < kv.n_layers; ++l) {
    if (kv.n_heads[l] % kv.n_kv_heads[l] != 0) {
      return Bad("n_kv_heads", "layer " + std::to_string(l) + " has " +
                 std::to_string(kv.n_kv_heads[l]) + " KV heads, not a divisor of " +
                 std::to_string(kv.n_heads[l]) + " heads");
    }
    if (KindFor(kv.n_heads[l], kv.n_kv_heads[l]) != kv.attention) {
      return Bad("attention", "does not match heads and KV heads of layer " + std::to_string(l));
    }
  }
  if (kv.rope != RopeType::kNone && !(kv.rope_freq_base > 0 && std::isfinite(kv.rope_freq_base))) {
    return Bad("rope_freq_base", "must be positive and finite");
  }
  if (!(kv.rope_freq_scale > 0 && std::isfinite(kv.rope_freq_scale))) {
    return Bad("rope_freq_scale", "must be positive and finite");
  }
  VEXFS_RETURN_IF_ERROR(CheckRotation(kv.k_rotation, kv.k_head_dim, "k_rotation"));
  return CheckRotation(kv.v_rotation, kv.v_head_dim, "v_rotation");
}

// The canonical layout's size without wrapping: every offset is then exact.
Status CheckSize(const KvCacheInfo& kv) {
  uint64_t total = 0;
  for (uint32_t l = 0; l < kv.n_layers; ++l) {
    uint64_t per_token = uint64_t{kv.n_kv_heads[l]} * (uint64_t{kv.k_head_dim[l]} + kv.v_head_dim[l]);
    uint64_t layer;
    if (__builtin_mul_overflow(per_token, kv.n_tokens(), &layer) ||
        __builtin_add_overflow(total, layer, &total) || total > kMaxSectionLength) {
      return Bad("n_tokens", "the cache would exceed 2^44 elements");
    }
  }
  return Status::Ok();
}

Status CheckTokens(const KvCacheInfo& kv) {
  VEXFS_RETURN_IF_ERROR(CheckSize(kv));
  if (!kv.positions_contiguous && kv.positions.size() != kv.token_ids.size()) {
    return Bad("positions", "needs one position per token");
  }
  for (int32_t p : kv.positions) {
    if (p < 0) return Bad("positions", "negative position " + std::to_string(p));
  }
  // Compared without adding, so a hostile position_start cannot overflow the check.
  if (kv.positions_contiguous &&
      (kv.position_start < 0 || kv.position_start > INT32_MAX ||
       static_cast<int64_t>(kv.n_tokens()) > int64_t{INT32_MAX} - kv.position_start + 1)) {
    return Bad("position_start", "positions must lie in 0 .. 2^31-1");
  }
  if (kv.block_size == 0) return Bad("block_size", "must be at least 1");
  if (kv.block_hashes != ChainedBlockHashes(kv.ModelId(), kv.block_size, kv.token_ids)) {
    return Bad("block_hashes", "do not match the token ids and model fingerprints");
  }
  return Status::Ok();
}

}  // namespace

uint64_t KvCacheInfo::ElementCount() const { return n_layers == 0 ? 0 : VOffset(n_layers - 1) + n_tokens() * n_kv_heads[n_layers - 1] * v_head_dim[n_layers - 1]; }

uint64_t KvCacheInfo::KOffset(uint32_t layer) const {
  uint64_t at = 0;
  for (uint32_t l = 0; l < layer; ++l) {
    at += n_tokens() * n_kv_heads[l] * (uint64_t{k_head_dim[l]} + v_head_dim[l]);
  }
  return at;
}

uint64_t KvCacheInfo::VOffset(uint32_t layer) const {
  return KOffset(layer) + n_tokens() * n_kv_heads[layer] * uint64_t{k_head_dim[layer]};
}

Digest KvCacheInfo::ModelId() const {
  Sha256 h;
  h.Update("USXF-model-v1");
  h.Update(AsBytes(weights_fingerprint));
  h.Update(AsBytes(hparams_fingerprint));
  h.Update(AsBytes(tokenizer_fingerprint));
  ObjectId id = h.Finish();
  return id.bytes;
}

void KvCacheInfo::ComputeBlockHashes() {
  block_hashes = ChainedBlockHashes(ModelId(), block_size, token_ids);
}

std::vector<Digest> ChainedBlockHashes(const Digest& model_id, uint32_t block_size,
                                       const std::vector<int32_t>& token_ids) {
  std::vector<Digest> out;
  if (block_size == 0) return out;
  Digest prev{};
  for (size_t start = 0; start < token_ids.size(); start += block_size) {
    size_t count = std::min<size_t>(block_size, token_ids.size() - start);
    std::string msg = "USXF-kv-block-v1";
    msg.append(AsBytes(prev));
    msg.append(AsBytes(model_id));
    AppendLE<uint32_t>(&msg, static_cast<uint32_t>(count));
    for (size_t i = 0; i < count; ++i) AppendLE<int32_t>(&msg, token_ids[start + i]);
    prev = Sha256Of(msg).bytes;
    out.push_back(prev);
  }
  return out;
}

Status KvCacheInfo::Validate() const {
  VEXFS_RETURN_IF_ERROR(CheckStructure(*this));
  return CheckTokens(*this);
}

Metadata KvCacheInfo::ToMetadata() const {
  Metadata m;
  m.SetString(kArch, arch, true);
  m.SetBytes(kWeightsFp, AsBytes(weights_fingerprint), true);
  m.SetBytes(kHparamsFp, AsBytes(hparams_fingerprint), true);
  m.SetBytes(kTokenizerFp, AsBytes(tokenizer_fingerprint), true);
  m.SetU64(kLayers, n_layers, true);
  m.SetU32Array(kHeads, n_heads, true);
  m.SetU32Array(kKvHeads, n_kv_heads, true);
  m.SetU32Array(kKDim, k_head_dim, true);
  m.SetU32Array(kVDim, v_head_dim, true);
  m.SetU64(kAttention, static_cast<uint32_t>(attention), true);
  m.SetU64(kRope, static_cast<uint32_t>(rope), true);
  if (rope != RopeType::kNone) m.SetF64(kRopeBase, rope_freq_base, true);
  if (rope_freq_scale != 1.0) m.SetF64(kRopeScale, rope_freq_scale, true);
  if (rope_scaling != RopeScaling::kNone) m.SetU64(kRopeScaling, static_cast<uint32_t>(rope_scaling), true);
  m.SetU64(kKAfterRope, k_after_rope ? 1 : 0, true);
  m.SetU64(kTokens, token_ids.size(), true);
  m.SetI32Array(kTokenIds, token_ids, true);
  if (positions_contiguous) {
    m.SetI64(kPosStart, position_start, true);
  } else {
    m.SetI32Array(kPositions, positions, true);
  }
  m.SetU64(kLayout, static_cast<uint32_t>(layout), true);
  m.SetU64(kBlockSize, block_size, true);
  std::string hashes;
  for (const Digest& d : block_hashes) hashes.append(AsBytes(d));
  m.SetBytes(kBlockHashes, hashes, true);
  if (!runtime.empty()) m.SetString(kRuntime, runtime);
  if (k_rotation != 0) m.SetU64(kKRotation, k_rotation, true);
  if (v_rotation != 0) m.SetU64(kVRotation, v_rotation, true);
  return m;
}

namespace {

Result<uint32_t> SmallEnum(const Metadata& m, uint16_t tag, const char* what, uint32_t lo,
                           uint32_t hi) {
  VEXFS_ASSIGN_OR_RETURN(uint64_t v, m.GetU64(tag, what));
  if (v < lo || v > hi) {
    return Status::NotSupported(std::string("kv field '") + what + "' has unknown value " +
                                std::to_string(v));
  }
  return static_cast<uint32_t>(v);
}

// Absent means 0 (no rotation); the value is checked against the head dims later.
Result<uint32_t> GetRotation(const Metadata& m, uint16_t tag, const char* what) {
  if (!m.Has(tag)) return 0u;
  VEXFS_ASSIGN_OR_RETURN(uint64_t v, m.GetU64(tag, what));
  if (v > kMaxHeadDim) return Bad(what, "must be at most 65536");
  return static_cast<uint32_t>(v);
}

Status DecodeStructure(const Metadata& m, KvCacheInfo* kv) {
  VEXFS_ASSIGN_OR_RETURN(kv->arch, m.GetString(kArch, "arch"));
  VEXFS_ASSIGN_OR_RETURN(kv->weights_fingerprint, GetDigest(m, kWeightsFp, "weights_fingerprint"));
  VEXFS_ASSIGN_OR_RETURN(kv->hparams_fingerprint, GetDigest(m, kHparamsFp, "hparams_fingerprint"));
  VEXFS_ASSIGN_OR_RETURN(kv->tokenizer_fingerprint, GetDigest(m, kTokenizerFp, "tokenizer_fingerprint"));
  VEXFS_ASSIGN_OR_RETURN(uint64_t layers, m.GetU64(kLayers, "n_layers"));
  if (layers == 0 || layers > kMaxLayers) return Bad("n_layers", "must be 1..4096");
  kv->n_layers = static_cast<uint32_t>(layers);
  VEXFS_ASSIGN_OR_RETURN(kv->n_heads, m.GetU32Array(kHeads, "n_heads"));
  VEXFS_ASSIGN_OR_RETURN(kv->n_kv_heads, m.GetU32Array(kKvHeads, "n_kv_heads"));
  VEXFS_ASSIGN_OR_RETURN(kv->k_head_dim, m.GetU32Array(kKDim, "k_head_dim"));
  VEXFS_ASSIGN_OR_RETURN(kv->v_head_dim, m.GetU32Array(kVDim, "v_head_dim"));
  VEXFS_ASSIGN_OR_RETURN(uint32_t att, SmallEnum(m, kAttention, "attention", 1, 3));
  kv->attention = static_cast<AttentionKind>(att);
  VEXFS_ASSIGN_OR_RETURN(uint32_t rope, SmallEnum(m, kRope, "rope_type", 0, 2));
  kv->rope = static_cast<RopeType>(rope);
  if (kv->rope != RopeType::kNone) {
    VEXFS_ASSIGN_OR_RETURN(kv->rope_freq_base, m.GetF64(kRopeBase, "rope_freq_base"));
  }
  if (m.Has(kRopeScale)) {
    VEXFS_ASSIGN_OR_RETURN(kv->rope_freq_scale, m.GetF64(kRopeScale, "rope_freq_scale"));
  }
  if (m.Has(kRopeScaling)) {
    VEXFS_ASSIGN_OR_RETURN(uint32_t s, SmallEnum(m, kRopeScaling, "rope_scaling", 0, 3));
    kv->rope_scaling = static_cast<RopeScaling>(s);
  }
  VEXFS_ASSIGN_OR_RETURN(uint32_t after, SmallEnum(m, kKAfterRope, "k_after_rope", 0, 1));
  kv->k_after_rope = after == 1;
  VEXFS_ASSIGN_OR_RETURN(uint32_t layout, SmallEnum(m, kLayout, "layout", 1, 1));
  kv->layout = static_cast<KvLayout>(layout);
  if (m.Has(kRuntime)) {
    VEXFS_ASSIGN_OR_RETURN(kv->runtime, m.GetString(kRuntime, "runtime"));
  }
  VEXFS_ASSIGN_OR_RETURN(kv->k_rotation, GetRotation(m, kKRotation, "k_rotation"));
  VEXFS_ASSIGN_OR_RETURN(kv->v_rotation, GetRotation(m, kVRotation, "v_rotation"));
  return Status::Ok();
}

Status DecodeTokens(const Metadata& m, KvCacheInfo* kv) {
  VEXFS_ASSIGN_OR_RETURN(uint64_t n, m.GetU64(kTokens, "n_tokens"));
  VEXFS_ASSIGN_OR_RETURN(kv->token_ids, m.GetI32Array(kTokenIds, "token_ids"));
  if (kv->token_ids.size() != n) return Bad("token_ids", "count differs from n_tokens");
  if (m.Has(kPosStart) == m.Has(kPositions)) {
    return Bad("positions", "exactly one of position_start and positions is required");
  }
  kv->positions_contiguous = m.Has(kPosStart);
  if (kv->positions_contiguous) {
    VEXFS_ASSIGN_OR_RETURN(kv->position_start, m.GetI64(kPosStart, "position_start"));
  } else {
    VEXFS_ASSIGN_OR_RETURN(kv->positions, m.GetI32Array(kPositions, "positions"));
  }
  VEXFS_ASSIGN_OR_RETURN(uint64_t block, m.GetU64(kBlockSize, "block_size"));
  if (block == 0 || block > (1u << 20)) return Bad("block_size", "must be 1..2^20");
  kv->block_size = static_cast<uint32_t>(block);
  VEXFS_ASSIGN_OR_RETURN(std::string hashes, m.GetBytes(kBlockHashes, "block_hashes"));
  if (hashes.size() != 32 * ((n + block - 1) / block)) return Bad("block_hashes", "wrong count");
  kv->block_hashes.resize(hashes.size() / 32);
  for (size_t i = 0; i < kv->block_hashes.size(); ++i) {
    std::memcpy(kv->block_hashes[i].data(), hashes.data() + 32 * i, 32);
  }
  return Status::Ok();
}

}  // namespace

Result<KvCacheInfo> KvCacheInfo::FromMetadata(const Metadata& m) {
  if (auto unknown = m.UnknownCritical(kKnownTags); !unknown.empty()) {
    return Status::NotSupported("kv metadata has unknown critical field tag " +
                                std::to_string(unknown.front()));
  }
  KvCacheInfo kv;
  VEXFS_RETURN_IF_ERROR(DecodeStructure(m, &kv));
  VEXFS_RETURN_IF_ERROR(DecodeTokens(m, &kv));
  VEXFS_RETURN_IF_ERROR(kv.Validate());
  return kv;
}

Result<KvCacheInfo> KvCacheInfo::FromSection(const SectionInfo& s) {
  VEXFS_ASSIGN_OR_RETURN(Metadata m, Metadata::Decode(s.metadata));
  VEXFS_ASSIGN_OR_RETURN(KvCacheInfo kv, FromMetadata(m));
  if (s.shape.size() != 1 || s.shape[0] != kv.ElementCount()) {
    return Status::InvalidArgument("kv shape must be [" + std::to_string(kv.ElementCount()) +
                                   "] (the canonical layout's element count)");
  }
  return kv;
}

SectionInfo KvSection(const std::string& name, const KvCacheInfo& kv, DType dtype,
                      Encoding encoding, uint32_t group_size) {
  SectionInfo s;
  s.name = name;
  s.kind = static_cast<uint32_t>(SectionKind::kKvCache);
  s.dtype = static_cast<uint32_t>(dtype);
  s.encoding = static_cast<uint32_t>(encoding);
  s.group_size = group_size;
  s.shape = {kv.ElementCount()};
  s.metadata = kv.ToMetadata().Encode();
  return s;
}

}  // namespace vexfs::usxf
