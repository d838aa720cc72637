// CheckStateInput and its seeds (see kv_state_fuzz_body.h).
#include "fuzz/kv_state_fuzz_body.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "fuzz/seed_corpus.h"
#include "usxf/format.h"
#include "vexfs/kv/hf_layout.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/usxf.h"

namespace vexfs::kv::fuzz {
namespace {

bool IsUsxf(std::string_view bytes) {
  return bytes.size() >= sizeof(usxf::kMagic) &&
         std::memcmp(bytes.data(), usxf::kMagic, sizeof(usxf::kMagic)) == 0;
}

constexpr std::string_view kHfPrefix = "vexfs-hf\n";

// Splits an HF export input: the prefix, then the manifest and the cache, each
// after a 4-byte little-endian length, then the next-token logits to the end.
bool SplitHf(std::string_view bytes, HfExport* out) {
  bytes.remove_prefix(kHfPrefix.size());
  std::string* parts[] = {&out->manifest_json, &out->cache};
  for (std::string* part : parts) {
    if (bytes.size() < 4) return false;
    uint32_t n = 0;
    for (int i = 3; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
    bytes.remove_prefix(4);
    if (bytes.size() < n) return false;
    part->assign(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  out->next_logits.assign(bytes);
  return true;
}

std::string JoinHf(const HfExport& in) {
  std::string out(kHfPrefix);
  for (const std::string* part : {&in.manifest_json, &in.cache}) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(part->size() >> (8 * i)));
    out += *part;
  }
  return out + in.next_logits;
}


// The bytes of a whole canonical cache of `type` (stored as it is, no encoding).
Result<uint64_t> CacheBytes(CacheType type, const usxf::KvCacheInfo& kv) {
  return usxf::EncodedLength(static_cast<uint32_t>(StoredDType(type)),
                             static_cast<uint32_t>(usxf::Encoding::kNone), 0, kv.ElementCount());
}

bool SameStep(const ReferenceStep& a, const ReferenceStep& b) {
  if (a.token != b.token || a.logits_sha256 != b.logits_sha256 || a.top.size() != b.top.size()) {
    return false;
  }
  for (size_t i = 0; i < a.top.size(); ++i) {
    // Bit for bit: JSON keeps the sign of zero, and NaN cannot be decoded.
    if (a.top[i].first != b.top[i].first ||
        std::memcmp(&a.top[i].second, &b.top[i].second, sizeof(float)) != 0) {
      return false;
    }
  }
  return true;
}

std::string CheckReferenceRoundTrip(const Reference& r) {
  const std::string once = EncodeReference(r);
  Result<Reference> again = DecodeReference(once);
  if (!again.ok()) return "a reference's own encoding does not decode: " + again.status().ToString();
  bool same = again->settings == r.settings && again->steps.size() == r.steps.size();
  for (size_t i = 0; same && i < r.steps.size(); ++i) same = SameStep(r.steps[i], again->steps[i]);
  if (!same) return "a reference decodes differently after encoding";
  if (EncodeReference(*again) != once) return "a reference's encoding is not stable";
  return "";
}

std::string CheckReferenceText(std::string_view text, bool* decoded) {
  Result<Reference> r = DecodeReference(text);
  if (!r.ok()) {
    if (r.status().code() != StatusCode::kCorruption ||
        r.status().message().rfind("section kv.reference: ", 0) != 0) {
      return "a refused reference is not kCorruption naming the section: " + r.status().ToString();
    }
    return "";
  }
  *decoded = true;
  return CheckReferenceRoundTrip(*r);
}

std::string CheckStateFile(std::string_view bytes, bool* decoded) {
  Result<StateBundle> b = DecodeStateFile(std::string(bytes), nullptr);
  if (!b.ok()) return "";  // hostile files may be refused, for whatever reason
  *decoded = true;
  if (Status st = b->info.Validate(); !st.ok()) {
    return "a decoded state's KV info does not validate: " + st.ToString();
  }
  if (b->kv.n_tokens != b->info.n_tokens() || b->kv.k_rotation != b->info.k_rotation ||
      b->kv.v_rotation != b->info.v_rotation) {
    return "a decoded cache disagrees with its KV info on tokens or rotation";
  }
  const auto expected = CacheBytes(b->kv.type, b->info);
  if (!expected.ok() || b->kv.data.size() != *expected) {
    return "a decoded cache holds " + std::to_string(b->kv.data.size()) +
           " bytes, not what its KV info describes";
  }
  return b->reference ? CheckReferenceRoundTrip(*b->reference) : "";
}

// What decodes is a consistent state whose cache, put back into the layout,
// is the input's bytes exactly; what is refused names the manifest or the
// layout's limits.
std::string CheckHfExport(std::string_view bytes, bool* decoded) {
  HfExport in;
  if (!SplitHf(bytes, &in)) return "";
  Result<StateBundle> b = BundleFromHf(in);
  if (!b.ok()) {
    const StatusCode code = b.status().code();
    if ((code != StatusCode::kCorruption && code != StatusCode::kNotSupported) ||
        b.status().message().rfind("HF cache manifest: ", 0) != 0) {
      return "a refused HF export does not name its manifest: " + b.status().ToString();
    }
    return "";
  }
  *decoded = true;
  if (Status st = b->info.Validate(); !st.ok()) return "an imported state's KV info does not validate: " + st.ToString();
  const auto expected = CacheBytes(b->kv.type, b->info);
  if (b->kv.type != CacheType::kF32 || !expected.ok() || b->kv.data.size() != *expected ||
      b->kv.n_tokens != b->info.n_tokens()) {
    return "an imported cache does not hold what its KV info describes";
  }
  Result<HfCache> back = ToHfLayout(b->info, b->kv);
  if (!back.ok()) return "an imported cache does not convert back: " + back.status().ToString();
  if (back->data.size() * sizeof(float) != in.cache.size() ||
      std::memcmp(back->data.data(), in.cache.data(), in.cache.size()) != 0) {
    return "an imported cache converts back to other bytes";
  }
  return b->reference ? CheckReferenceRoundTrip(*b->reference) : "";
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "kv state seeds: %s\n", what.c_str());
  std::abort();
}

// The seed corpus's small cache with head dim 32 (whole q8_0 blocks).
StateBundle SmallState(CacheType type, uint32_t rotation) {
  StateBundle b;
  b.info = usxf::fuzz::SmallKv(32);
  const usxf::KvCacheInfo& kv = b.info;
  b.kv.type = type;
  b.kv.n_tokens = static_cast<uint32_t>(kv.n_tokens());
  b.kv.k_rotation = b.kv.v_rotation = rotation;
  const auto bytes = CacheBytes(type, kv);
  if (!bytes.ok()) Die(bytes.status().ToString());
  b.kv.data.resize(*bytes);
  for (size_t i = 0; i < b.kv.data.size(); ++i) b.kv.data[i] = static_cast<char>(i * 37 % 61);
  b.next_logits = {0.5f, -1.25f, 3.0f, 0.0f, -0.0f, 7.5f, -2.0f, 1e-3f};
  return b;
}

Reference SmallReference() {
  Reference r;
  r.settings = "n_ctx=256 k=f16 v=f16 flash_attn=1";
  r.steps.push_back(MakeReferenceStep(5, {0.5f, -1.25f, 3.0f, 0.0f, -0.0f, 7.5f}, 3));
  r.steps.push_back(MakeReferenceStep(2, {1.0f, 2.0f, 4.0f}, 3));
  return r;
}

// Unsigned: without a keyring the reader refuses a signed file, and a changed one
// fails its signature before anything behind it is decoded.
std::string Written(const std::string& dir, const std::string& name, const StateBundle& b) {
  const std::string path = dir + "/" + name + ".usxf";
  if (Status st = WriteStateFile(path, b, nullptr); !st.ok()) Die(name + ": " + st.ToString());
  Result<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) Die(bytes.status().ToString());
  return std::move(*bytes);
}

// An export of SmallKv(32)'s shape as the ONNX Runtime adapter writes one.
std::string SmallHfExport(bool with_reference) {
  const usxf::KvCacheInfo kv = usxf::fuzz::SmallKv(32);
  nlohmann::json m = {{"format", "vexfs-kv-hf-v1"}, {"layout", "hf"}, {"dtype", "float32"}, {"arch", kv.arch},
                      {"weights_fingerprint", usxf::HexOf(kv.weights_fingerprint)},
                      {"hparams_fingerprint", usxf::HexOf(kv.hparams_fingerprint)},
                      {"tokenizer_fingerprint", usxf::HexOf(kv.tokenizer_fingerprint)},
                      {"n_layers", kv.n_layers}, {"n_heads", kv.n_heads[0]}, {"n_kv_heads", kv.n_kv_heads[0]},
                      {"head_dim", kv.k_head_dim[0]}, {"n_tokens", kv.n_tokens()}, {"rope", "neox"},
                      {"rope_freq_base", kv.rope_freq_base}, {"k_after_rope", true}, {"tokens", kv.token_ids},
                      {"runtime", "fuzz seed"}, {"cache", "cache.f32"}, {"next_logits", "next_logits.f32"},
                      {"n_vocab", 2048}};
  if (with_reference) m["reference"] = nlohmann::json::parse(EncodeReference(SmallReference()));
  HfExport in;
  in.manifest_json = m.dump();
  std::vector<float> values(kv.ElementCount());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 97) * 0.25f - 12.0f;
  in.cache.assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  std::vector<float> logits(2048, 0.5f);
  in.next_logits.assign(reinterpret_cast<const char*>(logits.data()), logits.size() * sizeof(float));
  return JoinHf(in);
}

}  // namespace

std::string CheckStateInput(std::string_view bytes, bool* decoded) {
  bool ignored = false;
  if (decoded == nullptr) decoded = &ignored;
  *decoded = false;
  if (bytes.substr(0, kHfPrefix.size()) == kHfPrefix) return CheckHfExport(bytes, decoded);
  return IsUsxf(bytes) ? CheckStateFile(bytes, decoded) : CheckReferenceText(bytes, decoded);
}

std::vector<std::pair<std::string, std::string>> KvStateSeeds() {
  std::string dir = (std::filesystem::temp_directory_path() / "vexfs-kv-seeds-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) Die("cannot make a temporary directory");
  std::vector<std::pair<std::string, std::string>> seeds;
  StateBundle f16 = SmallState(CacheType::kF16, 0);
  f16.reference = SmallReference();
  seeds.emplace_back("state_f16_reference", Written(dir, "f16", f16));
  seeds.emplace_back("state_q8_0", Written(dir, "q8_0", SmallState(CacheType::kQ8_0, 0)));
  seeds.emplace_back("state_f32_rotated", Written(dir, "f32", SmallState(CacheType::kF32, 16)));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  seeds.emplace_back("reference", EncodeReference(SmallReference()));
  seeds.emplace_back("reference_empty", R"({"format":"vexfs-kv-reference-v1","steps":[]})");
  seeds.emplace_back("hf_export_reference", SmallHfExport(true));
  seeds.emplace_back("hf_export", SmallHfExport(false));
  return seeds;
}

}  // namespace vexfs::kv::fuzz
