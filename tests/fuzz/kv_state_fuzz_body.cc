// CheckStateInput and its seeds (see kv_state_fuzz_body.h).
#include "fuzz/kv_state_fuzz_body.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/file_util.h"
#include "fuzz/seed_corpus.h"
#include "usxf/format.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/usxf.h"

namespace vexfs::kv::fuzz {
namespace {

bool IsUsxf(std::string_view bytes) {
  return bytes.size() >= sizeof(usxf::kMagic) &&
         std::memcmp(bytes.data(), usxf::kMagic, sizeof(usxf::kMagic)) == 0;
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

}  // namespace

std::string CheckStateInput(std::string_view bytes, bool* decoded) {
  bool ignored = false;
  if (decoded == nullptr) decoded = &ignored;
  *decoded = false;
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
  return seeds;
}

}  // namespace vexfs::kv::fuzz
